"""The Score tab: a submission file scored privately against its track's held-out key.

``build_score_tab`` lays the tab out inside the page's ``gr.Blocks`` and wires its events;
``/score`` is its public API (with the track as a second input on a several-track benchmark).
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
import pandas as pd
from anyio import to_thread
from gradio.components.plot import PlotData

import decision
import evaluator
import ledger
from board_view import listed, quoted
from charts import chart_axis, chart_groups, chart_keys, split_chart
from guard import (
    MAX_UPLOAD_BYTES,
    RateLimited,
    ScoreLimiter,
    client_address,
    forwarded_summary,
)
from score_view import entry_shape, fitting_track, score_json, score_summary, score_table
from served import Served
from spec import AnyTrack, Benchmark, Track

THREAD_SCORE_BYTES = 256 * 1024  # a real submission is ~30 kB; larger ones are scored off-loop
#: The Score tab's track choice that lets the file's entries tell its track (fitting_track).
DETECT = "auto"
DECISION_SCORE_WIDTHS: list[str | int] = ["38%", "19%", "20%", "23%"]  # Metric, Value, ...

#: A score as the Score tab shows it: summary, table, chart, the numbers, the track scored.
Scored = tuple[str, pd.DataFrame, PlotData, dict[str, Any], AnyTrack]


def submission_format(track: AnyTrack) -> str:
    """A track's submission file in a few words: a JSON list of `{"example_id", ...}`."""
    if isinstance(track, Track):
        fields = f'"{track.fields.id}", "{track.fields.prediction}"'
        return f"a JSON list of `{{{fields}}}`"
    fields = f'"{track.fields.id}", "{decision.ASSIST}", "{decision.TIME}"'
    return f"a JSON list (or JSON Lines saved as .json) of `{{{fields}}}`"


def rows_noun(track: AnyTrack) -> str:
    """What a track's key holds: "questions" (multiple choice) or "episodes" (decisions)."""
    return "questions" if isinstance(track, Track) else "episodes"


def score_help(track: AnyTrack) -> str:
    return (f"Upload a submission ({submission_format(track)}, 5 MB at most) to score it "
            "privately against the held-out answer key. Nothing is stored, and you never see "
            f"which {rows_noun(track)} were right. See **About** for the format and how to get "
            "listed.")


def tracks_help(tracks: Sequence[AnyTrack]) -> str:
    """The Score tab's help when a benchmark has several tracks: each one's format."""
    formats = "\n".join(f"- **{t.title}**: {submission_format(t)}" for t in tracks)
    return ("Upload a submission (5 MB at most) to score it privately against the held-out "
            "answer key of its track: pick the track, or leave **Detect from the file** and "
            "the file's entries tell.\n\n"
            f"{formats}\n\n"
            "Nothing is stored, and you never see which entries were right. See **About** for "
            "the formats and how to get listed.")


def wrong_track(picked: AnyTrack, fits: AnyTrack) -> str:
    """What a file for another track than the one picked is told: which track it fits."""
    return (f"This file is for the {fits.title} track (its entries are {entry_shape(fits)} "
            f"entries), not for the {picked.title} track. Score it as {fits.title}: pick "
            f"{fits.title} as the track above the upload, or Detect from the file (through the "
            f'API: track "{fits.id}" or "{DETECT}").')


def score_chart_title(track: AnyTrack, with_paper: bool) -> str:
    if isinstance(track, Track):
        return "Your splits beside the best paper baseline"
    per = chart_groups(track)
    if with_paper:
        return f"Your {per}s beside the best paper baseline"
    return f"Your {chart_axis(track)[0].split(' (')[0].lower()} per {per}"


def _read_upload(submission: Mapping[str, Any] | str | None, upload_dir: str,
                 expected: str) -> bytes:
    """The bytes of a file the visitor uploaded, given as Gradio's FileData of it or its path;
    any other path on the server is refused. ``expected`` names a submission's entries
    (score_view.entry_shape), for the message on a file of another type."""
    path = submission.get("path") if isinstance(submission, Mapping) else submission
    if not path or not isinstance(path, str):
        raise gr.Error("Choose a submission .json file to score.", print_exception=False)
    file = Path(path).resolve()
    # An API caller can name any path as its "upload": only Gradio's upload folder is theirs.
    if not file.is_relative_to(Path(upload_dir).resolve()):
        raise gr.Error("Upload the file through /gradio_api/upload first, then pass the path "
                       "it returns.", print_exception=False)
    if file.suffix.lower() != ".json":
        raise gr.Error(f"Upload a .json file (a JSON list of {expected} objects).",
                       print_exception=False)
    try:
        size = file.stat().st_size
        if size > MAX_UPLOAD_BYTES:
            raise gr.Error(f"The file is {size / 2**20:.1f} MB; the limit is 5 MB.",
                           print_exception=False)
        return file.read_bytes()
    except OSError:
        raise gr.Error("The uploaded file could not be read; upload it again.",
                       print_exception=False) from None



def build_score_tab(demo: gr.Blocks, bench: Benchmark, served: Sequence[Served],
                    limiter: ScoreLimiter, log: logging.Logger) -> None:
    """The Score tab's components and events, inside ``demo``'s current tab: its help, the
    track choice on a several-track benchmark (``#score-track``), the upload, the results."""
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
        return "\n\n".join(f"### Scoring is unavailable for {track.title}\n{status.error}"
                           for track, status in down)

    def score_state() -> Any:
        text = unavailable({tid: s.keys() for tid, s in tracks.items()})
        return gr.update(value=text, visible=bool(text))

    def best_paper(s: Served) -> ledger.Record | None:
        """The best paper row of the track that carries a metric of its chart."""
        keys = chart_keys(s.track)
        papers = [r for r in s.board.snapshot().records if r.source == "paper"
                  and any(k in r.metrics for k in keys)]
        return max(papers, key=lambda r: ledger.ranking_value(r, s.track) or 0.0, default=None)

    def key_of(s: Served) -> evaluator.AnswerKey:
        """The track's current key; gr.Error with the reason Score is unavailable for it."""
        status = s.keys()
        if status.key is None:
            where = f" for {s.track.title}" if many else ""
            raise gr.Error(f"Scoring{where} is unavailable: {status.error}",
                           print_exception=False)
        return status.key

    async def score(submission: dict[str, Any] | None, request: gr.Request) -> tuple[Any, ...]:
        """Score a submission file; returns summary, table, chart and the numbers as JSON."""
        return shown(await scored(submission, first, request))

    async def score_any(submission: dict[str, Any] | None, track: str | None,
                        request: gr.Request) -> tuple[Any, ...]:
        """Score a submission file of one of the tracks: ``track`` names it, or is "auto" (or
        null) to let the file's entries tell; returns summary, table, chart and the numbers as
        JSON (with the track scored)."""
        return shown(await scored_as(submission, track, request))

    async def scored_as(submission: dict[str, Any] | None, track: str | None,
                        request: gr.Request) -> Scored:
        if track is None or track == DETECT:
            return await scored(submission, None, request)
        if not isinstance(track, str) or track not in tracks:  # before any work
            raise gr.Error(f"Track: {quoted(track)} is not one of "
                           f"{listed([DETECT, *tracks])}.", print_exception=False)
        return await scored(submission, tracks[track], request)

    async def scored(submission: dict[str, Any] | None, chosen: Served | None,
                     request: gr.Request) -> Scored:
        """(summary, table, chart, numbers, track) of a file scored as ``chosen``'s track, or
        the one its entries tell (None)."""
        # How the track was chosen: picked (by the visitor or the page), told (by the file's
        # entries), or unknown (entries of no track's shape: the first scorer that can says
        # what is wrong with them).
        how = "picked"
        if chosen is not None:
            key = key_of(chosen)  # an unavailable key is said before anything is read
        data = _read_upload(submission, demo.GRADIO_CACHE, expected)
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
            log.info("the first scored request came with %s; the client is its rightmost "
                     "public entry past %d trusted hop(s)", forwarded_summary(request),
                     limits.trusted_hops)
        client = client_address(request, limits.on_space, limits.trusted_hops)
        try:
            stamp = limiter.acquire(client)
        except RateLimited as exc:
            raise gr.Error(str(exc), print_exception=False) from None
        try:
            # A big file, or a decision score (its F1 bootstrap takes ~0.2 s), must not hold the
            # event loop.
            if len(data) > THREAD_SCORE_BYTES or track.kind == "decision":
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
                message += (f" (The file's entries carry no track's fields, so it was read as "
                            f"a file for the {track.title} track; for another track, pick it "
                            "above the upload.)")
            raise gr.Error(message, duration=None, print_exception=False) from None
        log.info("scored one submission (%d bytes)%s", len(data),
                 f" of the {track.id} track" if many else "")
        series = {"Your submission": dict(result.metrics)}
        paper = best_paper(chosen)
        if paper is not None:
            series[f"{paper.method_name} (paper)"] = dict(paper.metrics)
        numbers = score_json(result)
        if many:
            numbers = {"track": track.id, **numbers}
        return (score_summary(result, track), score_table(result, track),
                split_chart(series, score_chart_title(track, paper is not None), track),
                numbers, track)

    def shown(parts: Scored) -> tuple[Any, ...]:
        """What Score's outputs get: plain values, not component updates (Gradio post-processes
        them faster, and /score gives them as they are); show_results shows them."""
        return parts[:4]

    async def rescore(submission: dict[str, Any] | None, track: str | None,
                      request: gr.Request) -> tuple[Any, ...]:
        """The file already chosen, scored as the track just picked (none chosen: nothing)."""
        if submission is None:
            return reset_score()
        return shown(await scored_as(submission, track, request))

    def reset_score() -> tuple[Any, ...]:
        """Clear the previous file's results as soon as another file arrives."""
        return ("", gr.Dataframe(visible=False), gr.Plot(visible=False), None)

    def show_results(numbers: dict[str, Any] | None) -> tuple[Any, ...]:
        """The table and chart of a score shown (none: left hidden), a decision score's table
        with widths that keep its numbers in view on a phone (its metric names are long)."""
        if numbers is None:
            return gr.Dataframe(), gr.Plot()
        named = numbers.get("track") if isinstance(numbers, dict) else None  # anyone can send
        scored_track = (tracks[named] if isinstance(named, str) and named in tracks
                        else first).track
        if not many and scored_track.kind != "decision":
            return gr.Dataframe(visible=True), gr.Plot(visible=True)
        widths = DECISION_SCORE_WIDTHS if scored_track.kind == "decision" else None
        return gr.Dataframe(visible=True, column_widths=widths), gr.Plot(visible=True)

    boot_text = unavailable(boot)
    disabled = gr.Markdown(boot_text, elem_id="score-disabled", visible=bool(boot_text))
    gr.Markdown(tracks_help([s.track for s in served]) if many else score_help(first.track))
    score_track = gr.Radio(
        [("Detect from the file", DETECT), *((s.track.title, s.track.id) for s in served)],
        value=DETECT, label="Track", elem_id="score-track") if many else None
    upload = gr.File(label="Submission (.json)", file_types=[".json"], type="filepath",
                     elem_id="score-upload")
    summary = gr.Markdown(elem_id="score-summary")
    # Wrapped, as high as a decision score's 17 rows: it fits a phone's width.
    score_df = gr.Dataframe(interactive=False, elem_id="score-table", visible=False,
                            max_height=900, wrap=True)
    score_plot = gr.Plot(show_label=False, elem_id="score-chart", visible=False)
    with gr.Accordion("The numbers as JSON (what the /score API returns)", open=False):
        score_numbers = gr.JSON(show_label=False, elem_id="score-json")

    private: dict[str, Any] = {"api_visibility": "private", "show_progress": "hidden"}
    demo.load(score_state, None, disabled, **private)
    score_outputs = [summary, score_df, score_plot, score_numbers]
    scoring: dict[str, Any] = {"concurrency_limit": 4, "preprocess": False}
    if many:  # rescoring on a track switch shares Score's bound
        scoring["concurrency_id"] = "score"
    score_inputs = [upload] if score_track is None else [upload, score_track]
    upload.upload(reset_score, None, score_outputs, queue=False, **private).then(
        # Unprocessed: gr.File(type="filepath") leaves an empty tmp file per call in the cache.
        score if score_track is None else score_any, score_inputs, score_outputs,
        api_name="score", **scoring,
    ).success(show_results, score_numbers, [score_df, score_plot], queue=False, **private)
    upload.clear(reset_score, None, score_outputs, queue=False, **private)
    if score_track is not None:
        score_track.change(reset_score, None, score_outputs, queue=False, **private).then(
            rescore, score_inputs, score_outputs, **scoring, **private).success(
            show_results, score_numbers, [score_df, score_plot], queue=False, **private)
