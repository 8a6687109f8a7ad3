"""A file the evaluator refused is refused again from memory (web.score_refusals), by the
Score tab's handlers called directly: the same bytes are checked once per key, track and way
of choosing the track; a file that scores is scored every time.

Issue 22 left this open: a refusal gives its score slot back, so one upload of a file slow to
refuse could be sent again and again, each call costing its whole check.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import threading
import weakref
from pathlib import Path
from typing import Any

import gradio as gr
import pytest
from anyio import to_thread

import evaluator
import guard
import ledger
import spec
from evaluator import track_fit
from tests.web.test_score_handlers import (
    ARGUS,
    DECISION,
    EGOMEM,
    MEMORY,
    MEMORY_SAMPLE,
    UNDERSTANDING,
    Uploads,
    _key,
    _refusal,
    _request,
    _run,
    _served,
    _tab,
)
from web import score_handlers as handlers
from web.served import Served

SLOW_TO_REFUSE = b"[" + b'{"example_id": 1, "predicted_answer": "A"},' * 2000 + b"0]"


@pytest.fixture
def uploads(tmp_path: Path) -> Uploads:
    return Uploads(tmp_path / "gradio-uploads")


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The files the evaluator was given, in order."""
    given: list[bytes] = []
    scorer = handlers.visitor_score

    def counted(
        key: evaluator.AnyKey, data: bytes, sha256: str | None = None
    ) -> evaluator.ScoreResult:
        given.append(data)
        return scorer(key, data, sha256)

    monkeypatch.setattr(handlers, "visitor_score", counted)
    return given


def test_the_same_refused_bytes_are_checked_once_and_told_the_same(
    uploads: Uploads, checks: list[bytes]
) -> None:
    tab = _tab(uploads, EGOMEM, [_served(EGOMEM, MEMORY)], guard.ScoreLimits(limit=1))
    first = _refusal(handlers.score, tab, uploads.file(SLOW_TO_REFUSE), _request())
    # Uploaded again (another path), from another visitor, twice: the same message, no check.
    for client in ("203.0.113.9", "198.51.100.7", "198.51.100.7"):
        again = _refusal(handlers.score, tab, uploads.file(SLOW_TO_REFUSE), _request(client))
        assert again == first
    assert checks == [SLOW_TO_REFUSE]
    # A refusal from memory takes no slot either: the one allowed score is still there.
    assert _run(handlers.score(tab, uploads.file(MEMORY_SAMPLE), _request()))["metrics"]


def test_a_file_that_scores_is_scored_every_time(uploads: Uploads, checks: list[bytes]) -> None:
    tab = _tab(uploads, EGOMEM, [_served(EGOMEM, MEMORY)], guard.ScoreLimits(limit=2))
    for _ in range(2):
        assert _run(handlers.score(tab, uploads.file(MEMORY_SAMPLE), _request()))["metrics"]
    assert checks == [MEMORY_SAMPLE, MEMORY_SAMPLE]
    limited = _refusal(handlers.score, tab, uploads.file(MEMORY_SAMPLE), _request())
    assert limited.startswith("Scoring is limited")


def test_another_key_or_track_checks_the_file_afresh(uploads: Uploads, checks: list[bytes]) -> None:
    """A rotated key is another key; the same bytes on another track, or with the track
    guessed rather than picked, may be told otherwise."""
    status = {"key": _key(EGOMEM, MEMORY)}
    board = ledger.BoardCache(ledger.LocalStore(EGOMEM.demo_board), EGOMEM, MEMORY)
    served = Served(MEMORY, lambda: ledger.KeyStatus(status["key"], "demo", True, None), board)
    tab = _tab(uploads, EGOMEM, [served])
    _refusal(handlers.score, tab, uploads.file(SLOW_TO_REFUSE), _request())
    # equal answers, another key object (loaded afresh, not the shared demo key): a rotation
    status["key"] = evaluator.load_answer_key(MEMORY, EGOMEM.demo_key(MEMORY).read_bytes())
    _refusal(handlers.score, tab, uploads.file(SLOW_TO_REFUSE), _request())
    assert len(checks) == 2

    argus = _tab(uploads, ARGUS, [_served(ARGUS, UNDERSTANDING), _served(ARGUS, DECISION)])
    told = {
        track: _refusal(handlers.score_any, argus, uploads.file(b"[1]"), _request(), track)
        for track in ("understanding", "decision", "auto", "understanding", "auto")
    }
    assert len(checks) == 2 + 3  # understanding, decision, auto: each once
    assert told["auto"] != told["understanding"]  # auto says how the track was chosen


# --- issue 30: nothing parses a file before the memo is read --------------------------------


def _argus(uploads: Uploads) -> handlers.ScoreTab:
    return _tab(uploads, ARGUS, [_served(ARGUS, UNDERSTANDING), _served(ARGUS, DECISION)])


def test_the_memo_is_read_before_the_file_is_parsed_for_its_track(
    uploads: Uploads, checks: list[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Detect from the file" guessed the track (a parse of the whole file) before it read the
    memo, so a refused file sent again cost its parse every time."""
    guesses: list[bytes] = []
    guess = track_fit.fitting_track

    def counted(bench: spec.Benchmark, data: bytes) -> spec.Track | None:
        guesses.append(data)
        return guess(bench, data)

    monkeypatch.setattr(handlers, "fitting_track", counted)
    tab = _argus(uploads)
    first = _refusal(handlers.score_any, tab, uploads.file(SLOW_TO_REFUSE), _request(), "auto")
    again = _refusal(handlers.score_any, tab, uploads.file(SLOW_TO_REFUSE), _request(), "auto")
    assert again == first
    assert len(guesses) == 1 and len(checks) == 1


def test_the_same_file_sent_many_times_at_once_is_checked_once(
    uploads: Uploads, checks: list[bytes]
) -> None:
    """Sent at once, each call of a big file (checked in a thread) found no refusal yet, and
    each parsed it."""
    tab = _argus(uploads)
    big = SLOW_TO_REFUSE * 4  # ~360 kB

    async def at_once() -> list[BaseException | dict[str, Any]]:
        calls = [handlers.score_any(tab, uploads.file(big), _request(), "auto") for _ in range(4)]
        return await asyncio.gather(*calls, return_exceptions=True)

    answers = asyncio.run(at_once())
    assert all(isinstance(a, gr.Error) for a in answers), answers
    assert len({str(a) for a in answers}) == 1
    assert checks == [big]


def test_a_file_past_a_small_size_is_scored_off_the_event_loop(
    uploads: Uploads, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 256 kB file was scored on the event loop, which stopped for the whole check; a file
    past THREAD_SCORE_BYTES (512 kB) is scored in a thread now."""
    where: list[str] = []
    scorer = handlers.visitor_score

    def noted(
        key: evaluator.AnyKey, data: bytes, sha256: str | None = None
    ) -> evaluator.ScoreResult:
        where.append(threading.current_thread().name)
        return scorer(key, data, sha256)

    monkeypatch.setattr(handlers, "visitor_score", noted)
    tab = _tab(uploads, EGOMEM, [_served(EGOMEM, MEMORY)])
    small = MEMORY_SAMPLE
    padded = MEMORY_SAMPLE + b" " * (600 * 1024)  # a real file of 600 kB
    assert len(small) <= handlers.THREAD_SCORE_BYTES < len(padded)
    for data in (small, padded):
        assert _run(handlers.score(tab, uploads.file(data), _request()))["metrics"]
    assert where[0] == threading.main_thread().name and where[1] != where[0], where


def test_no_refusal_outlives_its_call(uploads: Uploads, monkeypatch: pytest.MonkeyPatch) -> None:
    """The evaluator's exception holds the parsed file in its traceback; raised into the event
    loop it made a cycle with anyio's future and lived until a full collection (a 5 MB file's
    ~130 MB each, kept). Only its words leave the thread now: freed as the call ends."""
    alive: list[weakref.ref[BaseException]] = []

    class Watched(evaluator.SubmissionError):
        def __init__(self, problems: list[str]) -> None:
            super().__init__(problems)
            alive.append(weakref.ref(self))

    def refuses(
        key: evaluator.AnyKey, data: bytes, sha256: str | None = None
    ) -> evaluator.ScoreResult:
        raise Watched(["the file is hostile"])

    monkeypatch.setattr(handlers, "visitor_score", refuses)
    tab = _tab(uploads, EGOMEM, [_served(EGOMEM, MEMORY)])
    gc.disable()
    try:
        for data in (b"[1]", b"[2]" + b" " * (100 * 1024)):  # on the loop, and in a thread
            message = _refusal(handlers.score, tab, uploads.file(data), _request())
            assert message.endswith("the file is hostile")
        assert [ref() for ref in alive] == [None, None]
    finally:
        gc.enable()


def test_the_same_upload_refused_before_is_not_even_read(
    uploads: Uploads, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sent again and again, a refused 5 MB upload was read and hashed on every call: most of
    what a flood of calls on it cost. Its stat names it now; the same bytes uploaded anew are
    read and hashed once, then found among the refusals."""
    reads: list[Path] = []
    read = handlers._read

    def counted(file: Path) -> bytes:
        reads.append(file)
        return read(file)

    monkeypatch.setattr(handlers, "_read", counted)
    tab = _argus(uploads)
    upload = uploads.file(SLOW_TO_REFUSE)
    told = [_refusal(handlers.score_any, tab, upload, _request(), "auto") for _ in range(3)]
    again = _refusal(handlers.score_any, tab, uploads.file(SLOW_TO_REFUSE), _request(), "auto")
    assert len(set(told)) == 1 and again == told[0]
    assert len(reads) == 2  # the upload once, the new upload of the same bytes once


@pytest.mark.parametrize("padding", [0, 100 * 1024], ids=["on-the-loop", "in-a-thread"])
def test_a_scored_file_is_hashed_once(
    uploads: Uploads, monkeypatch: pytest.MonkeyPatch, padding: int
) -> None:
    """The handler hashed a file to look it up among the refusals, then the scorer hashed it
    again for the result's submission_sha256 (0.26 ms of a 437 kB file's score): the handler's
    sha256 is now the result's."""
    data = MEMORY_SAMPLE + b" " * padding
    hashed: list[int] = []
    sha256 = hashlib.sha256

    def counted(given: bytes = b"", *args: Any, **kwargs: Any) -> Any:
        if bytes(given) == data:
            hashed.append(len(given))
        return sha256(given, *args, **kwargs)

    monkeypatch.setattr(hashlib, "sha256", counted)
    tab = _tab(uploads, EGOMEM, [_served(EGOMEM, MEMORY)])
    numbers = _run(handlers.score(tab, uploads.file(data), _request()))
    assert numbers["submission_sha256"] == sha256(data).hexdigest()
    assert len(hashed) == 1, hashed


@pytest.mark.parametrize(
    ("padding", "hops"), [(600 * 1024, 1), (2 * 2**20, 2)], ids=["600-kB", "2-MB"]
)
def test_a_file_up_to_a_megabyte_is_hashed_on_the_loop(
    uploads: Uploads, monkeypatch: pytest.MonkeyPatch, padding: int, hops: int
) -> None:
    """Each trip to a worker thread cost ~1 ms of a score's latency on the server (waking the
    thread, then the loop), four times the sha256 of the 437 kB understanding sample: a file
    up to HASH_ON_LOOP_BYTES is hashed on the loop and makes one trip, its score's."""
    trips: list[str] = []
    run_sync = to_thread.run_sync

    async def counted(work: Any, *args: Any, **kwargs: Any) -> Any:
        trips.append(getattr(work, "__name__", str(work)))
        return await run_sync(work, *args, **kwargs)

    monkeypatch.setattr(to_thread, "run_sync", counted)
    data = MEMORY_SAMPLE + b" " * padding
    assert len(data) > handlers.THREAD_SCORE_BYTES
    assert (len(data) <= handlers.HASH_ON_LOOP_BYTES) == (hops == 1)
    tab = _tab(uploads, EGOMEM, [_served(EGOMEM, MEMORY)])
    numbers = _run(handlers.score(tab, uploads.file(data), _request()))
    assert numbers["submission_sha256"] == hashlib.sha256(data).hexdigest()
    assert len(trips) == hops, trips
