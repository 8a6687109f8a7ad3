"""The Score tab's handlers: functions over a ``ScoreTab``, which score_page wires.

``ScoreTab`` is the tab as its handlers see it: the benchmark, the tracks it serves, the score
limiter, the app's log, where Gradio keeps uploads, and whether the first scored request's
proxy hops were logged yet. Each handler takes it first, then what its event sends: ``score``
and ``score_any`` are ``/score`` (one track; several, the track as a second input), and
``page_score``, ``render`` and ``reset_score`` the page's own path (a refusal under the upload,
the score kept server-side, then shown from there).

Every handler is safe for anyone to call: an event's inputs are checked before any work, the
upload must be a file of Gradio's upload folder, and the score limit holds per client (a file
the evaluator refuses for its shape gives its slot back, one refused by a check that reads the
key keeps it, as a score does; the same bytes sent again are refused from memory, before
anything parses them: ``score_refusals``).

Example (``score``, ``scored`` and the like are coroutines: Gradio awaits them):

>>> import logging, evaluator, ledger, spec
>>> from guard import ScoreLimiter, ScoreLimits
>>> bench = spec.load_benchmark("egomemreason")
>>> track = bench.track()
>>> status = ledger.KeyStatus(None, "the Hub", demo=False, error="no answer from a:pw@hub")
>>> board = ledger.BoardCache(ledger.LocalStore(bench.demo_board), bench, track)
>>> served = (Served(track, lambda: status, board),)
>>> tab = ScoreTab(bench, served, ScoreLimiter(ScoreLimits()), logging.getLogger("doc"), str)
>>> print(unavailable(tab, {track.id: status}))  # the error itself goes to the log
### Scoring is unavailable
the answer key could not be loaded; the maintainer has been told in the log
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gradio as gr
from anyio import to_thread
from gradio.data_classes import FileData

import evaluator
import ledger
from errors import KeyedRefusal, NotAnUpload, RateLimited
from evaluator.track_fit import fitting_track
from guard import MAX_UPLOAD_BYTES, ScoreLimiter, client_address, forwarded_summary, heap
from guard.clients import SCORE_IPV6_PREFIX
from ledger import submission_file
from web.board.ranks import shown_interval
from web.charts import chart_keys, split_chart
from web.score_refusals import Refusals
from web.score_view import (
    BELOW_CHANCE_NOTE,
    DETECT,
    error_markdown,
    listed_markdown,
    listing_mailto,
    rank_markdown,
    same_answers_row,
    score_chart_title,
    score_json,
    score_summary,
    score_table,
    unread_board_markdown,
    would_rank,
    wrong_track,
)
from web.served import Served, Tab
from web.text import listed, quoted

#: A file past this many bytes is guessed and scored in a worker thread, a smaller one on the
#: event loop: a thread holds the GIL as the loop would, and under load handed it to and fro each
#: time numpy let it go (the slowest file under the bound stops the loop ~50 ms, about what the
#: old 64 kB bound allowed; BENCHMARKS.md, "P2 on EgoArgus, fourth pass").
THREAD_SCORE_BYTES = 512 * 1024
#: A file up to this many bytes is hashed on the event loop, which its sha256 holds 0.6 ms at
#: most: a trip to a worker thread costs a score more on a server (~1 ms: the thread woken, then
#: the loop; EgoArgus' 437 kB sample hashes in 0.26 ms). A bigger one is hashed in a thread.
HASH_ON_LOOP_BYTES = 2**20
#: What a refusal that read the key adds (errors.KeyedRefusal): why it cost a score.
KEYED_NOTE = (
    "This check reads the answer key, so this refusal counts against your score limit, as a "
    "score does (About: What one scored file reveals)."
)
#: A score and its track id, kept server-side for the session (a ``gr.State``).
Kept = tuple[evaluator.ScoreResult, str] | None


@dataclass(frozen=True)
class ScoreTab(Tab):
    """The Score tab as its handlers see it."""

    limiter: ScoreLimiter
    log: logging.Logger
    #: Gradio's upload folder (the Blocks' GRADIO_CACHE): a submission must be a file in it.
    upload_dir: Callable[[], str]
    #: Held once the first scored request's proxy hops are logged (on a Space).
    hops_untold: threading.Lock = field(default_factory=threading.Lock)
    #: The messages of files lately refused: the same bytes are not checked again.
    refusals: Refusals = field(default_factory=Refusals)


# --- the upload ---------------------------------------------------------------------------------


def _upload(submission: object, upload_dir: str) -> tuple[Path, os.stat_result]:
    """A file the visitor uploaded, given as Gradio's FileData of it (as JSON), whatever its
    name, and what its stat says; NotAnUpload for anything else (a bare path included:
    Gradio's own file inputs refuse one), any other path on the server, or a file over the
    size limit. Nothing of it is read."""
    if submission is None:
        raise NotAnUpload("no file", "Choose a submission file to score.")
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
        raise NotAnUpload("no file", "Choose a submission file to score.")
    file = Path(path).resolve()
    # An API caller can name any path as its "upload": only Gradio's upload folder is theirs.
    if not file.is_relative_to(Path(upload_dir).resolve()):
        raise NotAnUpload(
            "a path outside the upload folder",
            "Upload the file through /gradio_api/upload first, then pass the path it returns.",
        )
    try:
        stat = file.stat()
    except OSError:
        raise _UNREADABLE from None
    if stat.st_size > MAX_UPLOAD_BYTES:
        raise NotAnUpload("over the size limit", submission_file.too_big(stat.st_size))
    return file, stat


_UNREADABLE = NotAnUpload(
    "an unreadable file", "The uploaded file could not be read; upload it again."
)


def _read(file: Path) -> bytes:
    try:
        return file.read_bytes()
    except OSError:
        raise _UNREADABLE from None


# --- whether Score is available -----------------------------------------------------------------


def unavailable(tab: ScoreTab, statuses: Mapping[str, ledger.KeyStatus]) -> str:
    """Why Score is unavailable, for each track whose key is (Markdown; "" when none is): what
    a visitor may read (``KeyStatus.unavailable``), never the path or endpoint the log has."""
    tracks = tab.tracks
    down = [(tracks[tid].track, s) for tid, s in statuses.items() if s.key is None]
    if not tab.many:
        return f"### Scoring is unavailable\n{down[0][1].unavailable}" if down else ""
    return "\n\n".join(
        f"### Scoring is unavailable for {track.title}\n{status.unavailable}"
        for track, status in down
    )


def score_state(tab: ScoreTab) -> Any:
    """The note of what is unavailable now (a key that failed at boot may have loaded since)."""
    text = unavailable(tab, {s.track.id: s.keys() for s in tab.served})
    return gr.update(value=text, visible=bool(text))


def key_of(tab: ScoreTab, s: Served) -> evaluator.AnyKey:
    """The track's current key; gr.Error with why Score is unavailable for it, as a visitor
    may read it (``KeyStatus.unavailable``)."""
    status = s.keys()
    if status.key is None:
        where = f" for {s.track.title}" if tab.many else ""
        raise gr.Error(
            f"Scoring{where} is unavailable: {status.unavailable}", print_exception=False
        )
    return status.key


# --- scoring --------------------------------------------------------------------------------------


def visitor_score(
    key: evaluator.AnyKey, data: bytes, sha256: str | None = None
) -> evaluator.ScoreResult:
    """A file's score as a visitor is shown it, on /score and on the page alike: the scorer's,
    without what turns on too few rows of the key and at the board's precision
    (``evaluator.disclosed``). ``sha256``: the file's, taken already (``evaluator.score``)."""
    return evaluator.disclosed(key.track, evaluator.score(key, data, sha256))


#: The evaluator's refusal of a file: its message, and whether the check read the key.
Refusal = tuple[str, bool]


def score_or_refusal(
    key: evaluator.AnyKey, data: bytes, sha256: str | None = None
) -> evaluator.ScoreResult | Refusal:
    """``visitor_score``, or the refusal's words (``Refusal``) instead of the exception: only
    those leave the thread a big file is checked in. The exception's traceback holds the parsed
    file (a 5 MB list of 1.7 million empty lists: ~130 MB), and raised into the event loop it
    made a reference cycle with anyio's future, which outlived the call until a full garbage
    collection, rare in a busy server: memory grew with every such file and stayed (issue 30).
    Scored with garbage collections paused (``heap.collections_paused``): a parse makes no
    reference cycle for them to find, and the file is freed before they resume.
    """
    with heap.collections_paused():
        try:
            return visitor_score(key, data, sha256)
        except evaluator.SubmissionError as exc:
            return str(exc), isinstance(exc, KeyedRefusal)


async def scored_as(
    tab: ScoreTab, submission: object, track: object, request: gr.Request
) -> tuple[evaluator.ScoreResult, Served]:
    """A file scored as the track ``track`` names, or as the one its entries tell ("auto" or
    None); gr.Error with the message if it is not scored."""
    if track is None or track == DETECT:
        return await scored(tab, submission, None, request)
    tracks = tab.tracks
    if not isinstance(track, str) or track not in tracks:  # before any work
        raise gr.Error(
            f"Track: {quoted(track)} is not one of {listed([DETECT, *tracks])}.",
            print_exception=False,
        )
    return await scored(tab, submission, tracks[track], request)


async def scored(
    tab: ScoreTab, submission: object, chosen: Served | None, request: gr.Request
) -> tuple[evaluator.ScoreResult, Served]:
    """A file scored as ``chosen``'s track, or the one its entries tell (None): the score as
    a visitor is shown it (``visitor_score``) and the track scored.

    Before anything parses the file, its sha256 (the result's ``submission_sha256``, taken
    once) is looked up among the refusals (a refusal turns on the file, the track asked for
    and the keys it can be checked against): the same bytes refused before cost one sha256,
    not their check nor a guess of their track, and the same uploaded file refused before is
    not even read (its stat names it)."""
    if chosen is not None:
        key_of(tab, chosen)  # an unavailable key is said before anything is read
    try:
        file, stat = _upload(submission, tab.upload_dir())
        asked = DETECT if chosen is None else chosen.track.id
        keys = tuple(s.keys().key for s in (tab.served if chosen is None else (chosen,)))
        # The very file refused before (its path, inode, size and time): not even read again.
        mark = (str(file), stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)
        known = tab.refusals.digest_of(mark)
        told = None if known is None else tab.refusals.told(keys, asked, known)
        data = b"" if told is not None else _read(file)
    except NotAnUpload as exc:
        # One short line, as guard logs what Gradio refuses before a handler.
        tab.log.warning("refused a score input in its handler: %s", exc.why)
        raise gr.Error(str(exc), print_exception=False) from None
    if told is None:
        digest = known or await _off_loop(
            data, evaluator.submission_sha256, data, past=HASH_ON_LOOP_BYTES
        )
        async with tab.refusals.one_at_a_time(digest, asked):
            told = tab.refusals.told(keys, asked, digest)
            if told is None:
                checked = await _checked(tab, data, digest, chosen, request)
                if not isinstance(checked, str):
                    return checked
                told = checked
                tab.refusals.keep(keys, asked, digest, told, mark)
    raise gr.Error(told, duration=None, print_exception=False)


async def _off_loop(
    data: bytes, work: Callable[..., Any], *args: Any, past: int = THREAD_SCORE_BYTES
) -> Any:
    """``work(*args)``, in a worker thread when ``data`` is over ``past`` bytes."""
    if len(data) > past:
        return await to_thread.run_sync(work, *args)
    return work(*args)


async def _checked(
    tab: ScoreTab, data: bytes, digest: str, chosen: Served | None, request: gr.Request
) -> tuple[evaluator.ScoreResult, Served] | str:
    """``scored``'s work on a file not refused before (``digest`` its sha256, the result's):
    the track (the file's entries tell it when none is ``chosen``), the score limit, the
    score; or the message of the evaluator's refusal (``score_or_refusal``). A refusal that
    reads the key (``KeyedRefusal``) keeps its score slot, any other gives it back."""
    # How the track was chosen: picked (by the visitor or the page), told (by the file's
    # entries), or unknown (entries of no track's shape: the first scorer that can says what
    # is wrong with them).
    how = "picked"
    if chosen is None:
        fits = await _off_loop(data, fitting_track, tab.bench, data)
        if fits is not None:
            chosen, how = tab.tracks[fits.id], "told"
        else:
            chosen = next((s for s in tab.served if s.keys().key is not None), tab.first)
            how = "unknown"
    key = key_of(tab, chosen)
    track = chosen.track
    limits = tab.limiter.limits
    if limits.on_space and tab.hops_untold.acquire(blocking=False):
        # How the Spaces proxy lays the header out is documented nowhere: show the operator.
        tab.log.info(
            "the first scored request came with %s; the client is its rightmost "
            "public entry past %d trusted hop(s)",
            forwarded_summary(request),
            limits.trusted_hops,
        )
    client = client_address(request, limits.on_space, limits.trusted_hops, SCORE_IPV6_PREFIX)
    try:
        stamp = tab.limiter.acquire(client)
    except RateLimited as exc:
        raise gr.Error(str(exc), print_exception=False) from None
    # A big file, or a score its kind says is slow, must not hold the event loop.
    if len(data) > THREAD_SCORE_BYTES or evaluator.kind_of(track).SCORE_OFF_LOOP:
        outcome = await to_thread.run_sync(score_or_refusal, key, data, digest)
    else:
        outcome = score_or_refusal(key, data, digest)
    if isinstance(outcome, evaluator.ScoreResult):
        tab.log.info(
            "scored one submission (%d bytes)%s",
            len(data),
            f" of the {track.id} track" if tab.many else "",
        )
        return outcome, chosen
    refused, keyed = outcome
    if keyed:  # it read the key: counted as a score is
        return f"{refused}\n\n{KEYED_NOTE}"
    tab.limiter.release(client, stamp)
    if tab.many and how == "picked":
        fits = await _off_loop(data, fitting_track, tab.bench, data)
        if fits is not None and fits.id != track.id:
            refused = wrong_track(track, fits)
    elif how == "unknown":
        refused += (
            f"\n\nThe file's entries carry no track's fields, so it was read as "
            f"a file for the {track.title} track; for another track, pick it "
            "above the upload."
        )
    return refused


def numbers(tab: ScoreTab, result: evaluator.ScoreResult, s: Served) -> dict[str, Any]:
    """A score's JSON object, as /score returns it (with its track on a several-track page)."""
    return score_json(result, s.track.id if tab.many else None)


# /score: the JSON object, or the error event with the message. The annotations are the API
# page's (a file, a track); Gradio hands the file over unprocessed, as FileData's JSON.
async def score(tab: ScoreTab, submission: FileData, request: gr.Request) -> dict[str, Any]:
    """Score a submission file against the held-out answer key: its metrics, counts, 95 %
    intervals, sha256, the answer key's version and sha256, and the scorer's version."""
    return numbers(tab, *await scored(tab, submission, tab.first, request))


async def score_any(
    tab: ScoreTab, submission: FileData, request: gr.Request, track: str | None = DETECT
) -> dict[str, Any]:
    """Score a submission file of one of the tracks: ``track`` names it, or is "auto" (or
    null) to let the file's entries tell. Returns its metrics, counts, 95 % intervals,
    sha256, the answer key's version and sha256, the scorer's version, and the track."""
    return numbers(tab, *await scored_as(tab, submission, track, request))


# --- the page's path --------------------------------------------------------------------------


async def page_score(
    tab: ScoreTab, submission: object, request: gr.Request, track: object = None
) -> tuple[Any, ...]:
    """The page's scoring: (the score kept, its JSON, the refusal under the upload). A refusal
    is shown under the upload, not raised (no toast)."""
    if submission is None:  # the file was cleared (a track switch with no file)
        return None, None, gr.update(value="", visible=False)
    try:
        if tab.many:
            result, s = await scored_as(tab, submission, track, request)
        else:
            result, s = await scored(tab, submission, tab.first, request)
    except gr.Error as exc:  # shown under the upload, and nowhere else: no toasts pile up
        return None, None, gr.update(value=error_markdown(exc.message), visible=True)
    kept: Kept = (result, s.track.id)
    return kept, numbers(tab, result, s), gr.update(value="", visible=False)


def best_paper(s: Served) -> ledger.Record | None:
    """The best paper row of the track that carries a metric of its chart."""
    keys = chart_keys(s.track)
    papers = [
        r
        for r in s.board.snapshot().records
        if r.source == "paper" and any(k in r.metrics for k in keys)
    ]
    return max(papers, key=lambda r: ledger.ranking_value(r, s.track) or 0.0, default=None)


def render(tab: ScoreTab, kept: Kept) -> tuple[Any, ...]:
    """The summary, table, chart, sha256, rank and listing link of the score kept for this
    session (none: all hidden). Read server-side: nothing here comes from the browser.

    Answers already on the board name their row instead of a rank, and neither they nor a
    score below chance are offered a listing request."""
    if kept is None:
        return cleared()
    result, track_id = kept
    s = tab.tracks[track_id]
    track = s.track
    series = {"Your submission": dict(result.metrics)}
    intervals: dict[str, dict[str, tuple[float, float] | None]] = {
        "Your submission": dict(result.intervals)
    }
    paper = best_paper(s)
    if paper is not None:
        series[f"{paper.method_name} (paper)"] = dict(paper.metrics)
        intervals[f"{paper.method_name} (paper)"] = {
            k: shown_interval(paper, track, k) for k in chart_keys(track)
        }
    table = score_table(result, track)
    # Each column's width on a phone, as the track's kind words its table (Kind.SCORE_COLUMNS).
    widths: list[str | int] = [evaluator.kind_of(track).SCORE_COLUMNS[c] for c in table.columns]
    board = s.board.snapshot()
    records = board.records
    on_board = same_answers_row(result, records)
    if on_board is not None:  # already a row: no rank to guess, nothing to request
        note = listed_markdown(on_board, track, tab.many)
    elif board.last_success is None:  # never read: its rows are not known, nor the rank
        note = unread_board_markdown(track, tab.many)
    else:
        note = rank_markdown(would_rank(result, records, track), track, tab.many)
    if on_board is None and result.below_chance:
        note += BELOW_CHANCE_NOTE
    request = on_board is None and not result.below_chance
    return (
        score_summary(result, track),
        gr.Dataframe(table, visible=True, column_widths=widths or None),
        gr.Plot(
            split_chart(
                series,
                score_chart_title(track, paper is not None),
                track,
                intervals,
                result.chance,
            ),
            visible=True,
        ),
        gr.Textbox(result.submission_sha256, visible=True),
        gr.Markdown(note, visible=True),
        gr.Button(visible=True),
        gr.Button(
            link=listing_mailto(tab.bench, track, result, tab.many) if request else None,
            visible=request,
        ),
    )


def cleared() -> tuple[Any, ...]:
    """The results hidden: (summary, table, chart, sha256, rank, copy, listing)."""
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


#: What the page's check of a file it held back sends (web/js/score_upload_check.js):
#: "size:<bytes>" for one over the limit.
_HELD_BACK = re.compile(r"size:([0-9]{1,12})")


def refused_upload(tab: ScoreTab, code: object) -> tuple[Any, ...]:
    """A file the page held back (web/js/score_upload_check.js), refused under the upload in the
    words /score would give it (ledger.submission_file), the previous results and the upload
    cleared: (kept, JSON, refusal, the results..., upload). Only the code comes from the
    browser, never the words; a code of another shape shows nothing."""
    held = _HELD_BACK.fullmatch(code) if isinstance(code, str) else None
    if held is None:
        return (*reset_score(), gr.update())
    message = submission_file.too_big(int(held.group(1)))
    refusal = gr.update(value=error_markdown(message), visible=True)
    return (None, None, refusal, *cleared(), None)


def reset_score() -> tuple[Any, ...]:
    """Clear the previous file's results and refusal as soon as another file arrives."""
    return (None, None, gr.update(value="", visible=False), *cleared())
