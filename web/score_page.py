"""The Score tab: a submission file scored privately against its track's held-out key.

``build_score_tab`` lays the tab out inside the page's ``gr.Blocks`` and wires its events to
score_handlers' functions over the tab's ``ScoreTab``.
``/score`` is its public API (``gr.api``; the track as a second input on a several-track
benchmark): it returns the score's JSON object (``score_view.score_json``) or fails with the
message. The page scores through a private event of its own on the same core, which shows a
refusal under the upload instead of failing (Gradio hands a ``.failure`` listener no message),
keeps the result server-side (a ``gr.State``) and renders the summary, table, chart, sha256,
rank and listing link from it in a chained private event: nothing the browser sends back is
ever rendered as a score.

Every handler is safe for anyone to call: an event's inputs are checked before any work, the
upload must be a file of Gradio's upload folder, and the score limit holds per client.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import gradio as gr

import evaluator
from guard import ScoreLimiter
from guard.optional_inputs import optional_last_input
from ledger import submission_file
from spec import Benchmark, Track
from web import score_handlers as handlers
from web.page_js import page_script
from web.score_view import DETECT
from web.served import Served
from web.wiring import bound

#: The page's own look at a chosen or dropped file, before Gradio sends it: one over the Space's
#: limit is held back and refused under the upload in words (web/js/score_upload_check.js).
UPLOAD_CHECK_JS = page_script("score_upload_check.js", LIMIT_BYTES=submission_file.LIMIT_BYTES)
#: What the hidden ``#score-refuse`` button sends: the code of the file the check held back.
REFUSAL_JS = page_script("score_refusal.js")
#: The copy button's: the file's sha256 to the clipboard.
COPY_SHA256_JS = page_script("score_copy_sha256.js")


def submission_format(track: Track) -> str:
    """A track's submission file in a few words: a JSON list of `{"example_id", ...}`."""
    kind = evaluator.kind_of(track)
    fields = ", ".join(f'"{name}"' for name in kind.entry_fields(track))
    return f"a JSON list (or JSON Lines, one entry a line) of `{{{fields}}}`"


def rows_noun(track: Track) -> str:
    """What a track's key holds: "questions" (multiple choice) or "episodes" (decisions)."""
    return evaluator.kind_of(track).ROWS[1]


def score_help(track: Track) -> str:
    return (
        f"Upload a submission ({submission_format(track)}, 5 MB at most) to score it "
        "privately against the held-out answer key. Nothing is stored, and you never see "
        f"which {rows_noun(track)} were right. See **About** for the format and how to get "
        "listed."
    )


def tracks_help(tracks: Sequence[Track]) -> str:
    """The Score tab's help when a benchmark has several tracks: each one's format."""
    formats = "\n".join(f"- **{t.title}**: {submission_format(t)}" for t in tracks)
    return (
        "Upload a submission (5 MB at most) to score it privately against the held-out "
        "answer key of its track: pick the track, or leave **Detect from the file** and "
        "the file's entries tell.\n\n"
        f"{formats}\n\n"
        "Nothing is stored, and you never see which entries were right. See **About** for "
        "the formats and how to get listed."
    )


def build_score_tab(
    demo: gr.Blocks,
    bench: Benchmark,
    served: Sequence[Served],
    limiter: ScoreLimiter,
    log: logging.Logger,
) -> None:
    """The Score tab's components and events, inside ``demo``'s current tab: its help, the
    track choice on a several-track benchmark (``#score-track``), the upload, a refusal under
    it (``#score-error``), the results; and the ``/score`` API."""
    tab = handlers.ScoreTab(bench, tuple(served), limiter, log, lambda: demo.GRADIO_CACHE)
    first, many = tab.first, tab.many
    boot = {s.track.id: s.keys() for s in served}
    boot_text = handlers.unavailable(tab, boot)
    disabled = gr.Markdown(boot_text, elem_id="score-disabled", visible=bool(boot_text))
    gr.Markdown(tracks_help([s.track for s in served]) if many else score_help(first.track))
    score_track = (
        gr.Radio(
            [("Detect from the file", DETECT), *((s.track.title, s.track.id) for s in served)],
            value=DETECT,
            label="Track",
            elem_id="score-track",
        )
        if many
        else None
    )
    upload = gr.File(
        label="Submission (JSON or JSON Lines)",
        type="filepath",
        elem_id="score-upload",
    )
    error = gr.Markdown(elem_id="score-error", visible=False)
    # Clicked by the upload check (UPLOAD_CHECK_JS) alone, with the code of the file it held back.
    refuse = gr.Button("Refused file", visible="hidden", elem_id="score-refuse")
    summary = gr.Markdown(elem_id="score-summary")
    rank = gr.Markdown(elem_id="score-rank", visible=False)
    # Whole: a phone wraps it onto a second line rather than cutting it. Its copy button is a
    # button of its own: Gradio's (buttons=["copy"]) sits inside the box's <label>, which then
    # names the button, and the box is left without a name for a screen reader.
    sha256 = gr.Textbox(
        label="File sha256 (quote it to get listed)",
        interactive=False,
        lines=1,
        max_lines=3,
        visible=False,
        elem_id="score-sha256",
    )
    with gr.Row():
        copy = gr.Button(
            "Copy the sha256",
            size="sm",
            visible=False,
            scale=0,
            min_width=160,
            elem_id="score-sha256-copy",
        )
        # A mailto: link, pre-written (score_view.listing_mailto); the Space sends nothing.
        listing = gr.Button(
            "Request listing by e-mail",
            variant="primary",
            visible=False,
            scale=0,
            min_width=300,
            elem_id="score-listing",
        )
    # Wrapped, as high as a decision score's 17 rows: it fits a phone's width.
    score_df = gr.Dataframe(
        interactive=False, elem_id="score-table", visible=False, max_height=900, wrap=True
    )
    score_plot = gr.Plot(show_label=False, elem_id="score-chart", visible=False)
    with gr.Accordion("The numbers as JSON (what the /score API returns)", open=False):
        score_numbers = gr.JSON(show_label=False, elem_id="score-json")
    kept = gr.State(None)

    # The handlers over this tab (bound, not functools.partial: Gradio still sees the
    # gr.Request parameter, and /score keeps its name, docstring and parameters).
    score, score_any = bound(handlers.score, tab), bound(handlers.score_any, tab)
    page_score, render = bound(handlers.page_score, tab), bound(handlers.render, tab)
    score_state, reset_score = bound(handlers.score_state, tab), handlers.reset_score
    private: dict[str, Any] = {"api_visibility": "private", "show_progress": "hidden"}
    demo.load(score_state, None, disabled, **private)
    demo.load(None, js=UPLOAD_CHECK_JS)
    shown = [summary, score_df, score_plot, sha256, rank, copy, listing]
    copy.click(None, js=COPY_SHA256_JS)
    outputs = [kept, score_numbers, error]
    # The API and the page share one bound on scoring at once.
    scoring: dict[str, Any] = {"concurrency_limit": 4, "concurrency_id": "score"}
    if score_track is None:
        gr.api(score, api_name="score", **scoring)  # type: ignore[attr-defined]
    else:
        gr.api(score_any, api_name="score", **scoring)  # type: ignore[attr-defined]
        optional_last_input(demo, "score", DETECT)  # the track: curl may leave it out
    score_inputs = [upload] if score_track is None else [upload, score_track]
    triggers = [upload.upload] if score_track is None else [upload.upload, score_track.change]
    for trigger in triggers:
        # Unprocessed: gr.File(type="filepath") leaves an empty tmp file per call in the cache.
        trigger(reset_score, None, [*outputs, *shown], queue=False, **private).then(
            page_score, score_inputs, outputs, preprocess=False, **scoring, **private
        ).then(render, kept, shown, **private)
    upload.clear(reset_score, None, [*outputs, *shown], queue=False, **private)
    refuse.click(
        bound(handlers.refused_upload, tab),
        refuse,
        [*outputs, *shown, upload],
        js=REFUSAL_JS,
        queue=False,
        **private,
    )
