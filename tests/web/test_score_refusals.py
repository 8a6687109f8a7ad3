"""A file the evaluator refused is refused again from memory (web.score_refusals), by the
Score tab's handlers called directly: the same bytes are checked once per key, track and way
of choosing the track; a file that scores is scored every time.

Issue 22 left this open: a refusal gives its score slot back, so one upload of a file slow to
refuse could be sent again and again, each call costing its whole check.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import evaluator
import guard
import ledger
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

    def counted(key: evaluator.AnyKey, data: bytes) -> evaluator.ScoreResult:
        given.append(data)
        return scorer(key, data)

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
    status["key"] = _key(EGOMEM, MEMORY)  # equal answers, another key object: a rotation
    _refusal(handlers.score, tab, uploads.file(SLOW_TO_REFUSE), _request())
    assert len(checks) == 2

    argus = _tab(uploads, ARGUS, [_served(ARGUS, UNDERSTANDING), _served(ARGUS, DECISION)])
    told = {
        track: _refusal(handlers.score_any, argus, uploads.file(b"[1]"), _request(), track)
        for track in ("understanding", "decision", "auto", "understanding", "auto")
    }
    assert len(checks) == 2 + 3  # understanding, decision, auto: each once
    assert told["auto"] != told["understanding"]  # auto says how the track was chosen
