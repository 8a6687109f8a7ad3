"""The Score tab: a submission file scored privately against its track's held-out key.

``build_score_tab`` lays the tab out inside the page's ``gr.Blocks`` and wires its events.
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
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gradio as gr
from anyio import to_thread
from gradio.data_classes import FileData

import evaluator
import ledger
from errors import NotAnUpload, RateLimited
from guard import MAX_UPLOAD_BYTES, ScoreLimiter, client_address, forwarded_summary
from spec import Benchmark, Track
from web.board_view import listed, quoted
from web.charts import chart_axis, chart_groups, chart_keys, split_chart
from web.score_view import (
    entry_shape,
    error_markdown,
    fitting_track,
    listing_mailto,
    rank_markdown,
    score_json,
    score_summary,
    score_table,
    would_rank,
)
from web.served import Served

THREAD_SCORE_BYTES = 256 * 1024  # a real submission is ~30 kB; larger ones are scored off-loop
#: The Score tab's track choice that lets the file's entries tell its track (fitting_track).
DETECT = "auto"
#: The score table's column widths, by its number of columns (a decision score's four: Metric,
#: Value, Count, 95% CI; else Gradio's own).
SCORE_WIDTHS: dict[int, list[str | int]] = {4: ["38%", "19%", "20%", "23%"]}


def submission_format(track: Track) -> str:
    """A track's submission file in a few words: a JSON list of `{"example_id", ...}`."""
    kind = evaluator.kind_of(track)
    fields = ", ".join(f'"{name}"' for name in kind.entry_fields(track))
    lines = " (or JSON Lines saved as .json)" if kind.JSON_LINES else ""
    return f"a JSON list{lines} of `{{{fields}}}`"


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


def wrong_track(picked: Track, fits: Track) -> str:
    """What a file for another track than the one picked is told: which track it fits."""
    return (
        f"This file is for the {fits.title} track (its entries are {entry_shape(fits)} "
        f"entries), not for the {picked.title} track. Score it as {fits.title}: pick "
        f"{fits.title} as the track above the upload, or Detect from the file (through the "
        f'API: track "{fits.id}" or "{DETECT}").'
    )


def score_chart_title(track: Track, with_paper: bool) -> str:
    """The Score chart's title, short enough for a phone: "You vs. the best paper baseline",
    or "Your accuracy per split" on a board without paper rows."""
    if with_paper:
        return "You vs. the best paper baseline"
    return f"Your {chart_axis(track)[0].split(' (')[0].lower()} per {chart_groups(track)}"


def _read_upload(submission: object, upload_dir: str, expected: str) -> bytes:
    """The bytes of a file the visitor uploaded, given as Gradio's FileData of it (as JSON);
    NotAnUpload for anything else (a bare path included: Gradio's own file inputs refuse one),
    or any other path on the server. ``expected`` names a submission's entries
    (score_view.entry_shape), for the message on a file of another type."""
    if submission is None:
        raise NotAnUpload("no file", "Choose a submission .json file to score.")
    if not isinstance(submission, Mapping):
        raise NotAnUpload(
            "not a FileData object",
            "Pass the file as gradio_client's "
            "handle_file(path) does: upload it through /gradio_api/upload, then "
            'pass {"path": <the path it returns>, "meta": {"_type": '
            '"gradio.FileData"}}.',
        )
    path = submission.get("path")
    if not path or not isinstance(path, str):
        raise NotAnUpload("no file", "Choose a submission .json file to score.")
    file = Path(path).resolve()
    # An API caller can name any path as its "upload": only Gradio's upload folder is theirs.
    if not file.is_relative_to(Path(upload_dir).resolve()):
        raise NotAnUpload(
            "a path outside the upload folder",
            "Upload the file through /gradio_api/upload first, then pass the path it returns.",
        )
    if file.suffix.lower() != ".json":
        raise NotAnUpload(
            "not a .json file", f"Upload a .json file (a JSON list of {expected} objects)."
        )
    try:
        size = file.stat().st_size
        if size > MAX_UPLOAD_BYTES:
            raise NotAnUpload(
                "over the size limit", f"The file is {size / 2**20:.1f} MB; the limit is 5 MB."
            )
        return file.read_bytes()
    except OSError:
        raise NotAnUpload(
            "an unreadable file", "The uploaded file could not be read; upload it again."
        ) from None


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
    tracks = {s.track.id: s for s in served}
    first = served[0]
    many = len(served) > 1
    boot = {tid: s.keys() for tid, s in tracks.items()}
    hops_untold = threading.Lock()  # held once the first scored request's hops are logged
    expected = " or ".join(entry_shape(s.track) for s in served)

    def unavailable(statuses: Mapping[str, ledger.KeyStatus]) -> str:
        down = [(tracks[tid].track, s) for tid, s in statuses.items() if s.key is None]
        if not many:
            return f"### Scoring is unavailable\n{down[0][1].error}" if down else ""
        return "\n\n".join(
            f"### Scoring is unavailable for {track.title}\n{status.error}"
            for track, status in down
        )

    def score_state() -> Any:
        text = unavailable({tid: s.keys() for tid, s in tracks.items()})
        return gr.update(value=text, visible=bool(text))

    def best_paper(s: Served) -> ledger.Record | None:
        """The best paper row of the track that carries a metric of its chart."""
        keys = chart_keys(s.track)
        papers = [
            r
            for r in s.board.snapshot().records
            if r.source == "paper" and any(k in r.metrics for k in keys)
        ]
        return max(papers, key=lambda r: ledger.ranking_value(r, s.track) or 0.0, default=None)

    def key_of(s: Served) -> evaluator.AnyKey:
        """The track's current key; gr.Error with the reason Score is unavailable for it."""
        status = s.keys()
        if status.key is None:
            where = f" for {s.track.title}" if many else ""
            raise gr.Error(f"Scoring{where} is unavailable: {status.error}", print_exception=False)
        return status.key

    async def scored_as(
        submission: object, track: object, request: gr.Request
    ) -> tuple[evaluator.ScoreResult, Served]:
        """A file scored as the track ``track`` names, or as the one its entries tell ("auto"
        or None); gr.Error with the message if it is not scored."""
        if track is None or track == DETECT:
            return await scored(submission, None, request)
        if not isinstance(track, str) or track not in tracks:  # before any work
            raise gr.Error(
                f"Track: {quoted(track)} is not one of {listed([DETECT, *tracks])}.",
                print_exception=False,
            )
        return await scored(submission, tracks[track], request)

    async def scored(
        submission: object, chosen: Served | None, request: gr.Request
    ) -> tuple[evaluator.ScoreResult, Served]:
        """A file scored as ``chosen``'s track, or the one its entries tell (None): the score
        and the track scored."""
        # How the track was chosen: picked (by the visitor or the page), told (by the file's
        # entries), or unknown (entries of no track's shape: the first scorer that can says
        # what is wrong with them).
        how = "picked"
        if chosen is not None:
            key = key_of(chosen)  # an unavailable key is said before anything is read
        try:
            data = _read_upload(submission, demo.GRADIO_CACHE, expected)
        except NotAnUpload as exc:
            # One short line, as guard logs what Gradio refuses before a handler.
            log.warning("refused a score input in its handler: %s", exc.why)
            raise gr.Error(str(exc), print_exception=False) from None
        if chosen is None:
            fits = await to_thread.run_sync(fitting_track, bench, data)
            if fits is not None:
                chosen, how = tracks[fits.id], "told"
            else:
                chosen = next((s for s in served if s.keys().key is not None), first)
                how = "unknown"
            key = key_of(chosen)
        track = chosen.track
        limits = limiter.limits
        if limits.on_space and hops_untold.acquire(blocking=False):
            # How the Spaces proxy lays the header out is documented nowhere: show the operator.
            log.info(
                "the first scored request came with %s; the client is its rightmost "
                "public entry past %d trusted hop(s)",
                forwarded_summary(request),
                limits.trusted_hops,
            )
        client = client_address(request, limits.on_space, limits.trusted_hops)
        try:
            stamp = limiter.acquire(client)
        except RateLimited as exc:
            raise gr.Error(str(exc), print_exception=False) from None
        try:
            # A big file, or a decision score (its F1 bootstrap takes ~0.2 s), must not hold the
            # event loop.
            if len(data) > THREAD_SCORE_BYTES or evaluator.kind_of(track).SCORE_OFF_LOOP:
                result = await to_thread.run_sync(evaluator.score, key, data)
            else:
                result = evaluator.score(key, data)
        except evaluator.SubmissionError as exc:
            limiter.release(client, stamp)
            message = str(exc)
            if many and how == "picked":
                fits = await to_thread.run_sync(fitting_track, bench, data)
                if fits is not None and fits.id != track.id:
                    message = wrong_track(track, fits)
            elif how == "unknown":
                message += (
                    f"\n\nThe file's entries carry no track's fields, so it was read as "
                    f"a file for the {track.title} track; for another track, pick it "
                    "above the upload."
                )
            raise gr.Error(message, duration=None, print_exception=False) from None
        log.info(
            "scored one submission (%d bytes)%s",
            len(data),
            f" of the {track.id} track" if many else "",
        )
        return result, chosen

    def numbers(result: evaluator.ScoreResult, s: Served) -> dict[str, Any]:
        return score_json(result, s.track.id if many else None)

    # /score: the JSON object, or the error event with the message. The annotations are the
    # API page's (a file, a track); Gradio hands the file over unprocessed, as FileData's JSON.
    async def score(submission: FileData, request: gr.Request) -> dict[str, Any]:
        """Score a submission file against the held-out answer key: its metrics, counts, 95 %
        intervals, sha256, the answer key's version and sha256, and the scorer's version."""
        return numbers(*await scored(submission, first, request))

    async def score_any(
        submission: FileData, request: gr.Request, track: str | None = DETECT
    ) -> dict[str, Any]:
        """Score a submission file of one of the tracks: ``track`` names it, or is "auto" (or
        null) to let the file's entries tell. Returns its metrics, counts, 95 % intervals,
        sha256, the answer key's version and sha256, the scorer's version, and the track."""
        return numbers(*await scored_as(submission, track, request))

    Kept = tuple[evaluator.ScoreResult, str] | None  # a score and its track, server-side

    async def page_score(
        submission: object, request: gr.Request, track: object = None
    ) -> tuple[Any, ...]:
        """The page's scoring: (the score kept, its JSON, the refusal under the upload). A
        refusal is shown under the upload, not raised (no toast)."""
        if submission is None:  # the file was cleared (a track switch with no file)
            return None, None, gr.update(value="", visible=False)
        try:
            if many:
                result, s = await scored_as(submission, track, request)
            else:
                result, s = await scored(submission, first, request)
        except gr.Error as exc:  # shown under the upload, and nowhere else: no toasts pile up
            return None, None, gr.update(value=error_markdown(exc.message), visible=True)
        kept: Kept = (result, s.track.id)
        return kept, numbers(result, s), gr.update(value="", visible=False)

    def render(kept: Kept) -> tuple[Any, ...]:
        """The summary, table, chart, sha256, rank and listing link of the score kept for this
        session (none: all hidden). Read server-side: nothing here comes from the browser."""
        if kept is None:
            return cleared()
        result, track_id = kept
        s = tracks[track_id]
        track = s.track
        series = {"Your submission": dict(result.metrics)}
        paper = best_paper(s)
        if paper is not None:
            series[f"{paper.method_name} (paper)"] = dict(paper.metrics)
        table = score_table(result, track)
        widths = SCORE_WIDTHS.get(len(table.columns))
        rank = would_rank(result, s.board.snapshot().records, track)
        return (
            score_summary(result, track),
            gr.Dataframe(table, visible=True, column_widths=widths),
            gr.Plot(
                split_chart(series, score_chart_title(track, paper is not None), track),
                visible=True,
            ),
            gr.Textbox(result.submission_sha256, visible=True),
            gr.Markdown(rank_markdown(rank, track, many), visible=True),
            gr.Button(visible=True),
            gr.Button(link=listing_mailto(bench, track, result, many), visible=True),
        )

    def cleared() -> tuple[Any, ...]:
        hidden = gr.update(visible=False)
        return (
            "",
            hidden,
            hidden,
            gr.update(value="", visible=False),
            gr.update(value="", visible=False),
            hidden,
            hidden,
        )

    def reset_score() -> tuple[Any, ...]:
        """Clear the previous file's results and refusal as soon as another file arrives."""
        return (None, None, gr.update(value="", visible=False), *cleared())

    boot_text = unavailable(boot)
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
        label="Submission (.json)", file_types=[".json"], type="filepath", elem_id="score-upload"
    )
    error = gr.Markdown(elem_id="score-error", visible=False)
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

    private: dict[str, Any] = {"api_visibility": "private", "show_progress": "hidden"}
    demo.load(score_state, None, disabled, **private)
    shown = [summary, score_df, score_plot, sha256, rank, copy, listing]
    copy.click(
        None,
        js="() => navigator.clipboard.writeText("
        "document.querySelector('#score-sha256 textarea').value)",
    )
    outputs = [kept, score_numbers, error]
    # The API and the page share one bound on scoring at once.
    scoring: dict[str, Any] = {"concurrency_limit": 4, "concurrency_id": "score"}
    if score_track is None:
        gr.api(score, api_name="score", **scoring)  # type: ignore[attr-defined]
    else:
        gr.api(score_any, api_name="score", **scoring)  # type: ignore[attr-defined]
    score_inputs = [upload] if score_track is None else [upload, score_track]
    triggers = [upload.upload] if score_track is None else [upload.upload, score_track.change]
    for trigger in triggers:
        # Unprocessed: gr.File(type="filepath") leaves an empty tmp file per call in the cache.
        trigger(reset_score, None, [*outputs, *shown], queue=False, **private).then(
            page_score, score_inputs, outputs, preprocess=False, **scoring, **private
        ).then(render, kept, shown, **private)
    upload.clear(reset_score, None, [*outputs, *shown], queue=False, **private)
