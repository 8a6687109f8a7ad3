"""What a score is: ``ScoreResult``, and ``Count``, the correct answers out of rows of a metric;
``submission_sha256``, what names the file scored.

The same model for every kind of track: records keep its numbers, ``/score`` returns it as
JSON, and a re-score must give it again bit for bit.
"""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, ConfigDict


def submission_sha256(data: bytes) -> str:
    """A submission file's ``submission_sha256``: the sha256 of its bytes, as they were sent.

    >>> submission_sha256(b"[]")[:12]
    '4f53cda18c2b'
    """
    return hashlib.sha256(data).hexdigest()


class Count(BaseModel):
    """Correct answers out of questions, for one metric."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    correct: int
    total: int


class ScoreResult(BaseModel):
    """What a submission scored, with everything needed to reproduce it.

    ``metrics``, ``counts`` and ``intervals`` are keyed by the track's metric keys, in display
    order. A metric without a value (a decision track's timing means when nothing could be
    timed) is absent from ``metrics``; a metric without a count (a decision F1) from
    ``counts``. Every value is in its metric's display (``spec``): a percent, a 0-1 ratio,
    seconds or a count.

    ``chance`` is the percent answering at random scores on the key's questions and
    ``below_chance`` whether ``overall``'s 95 % interval lies entirely under it (a decision
    track: None and False, it has no such rate). ``answers_sha256`` identifies the answers
    themselves (ids and normalised letters, whatever the file's bytes; None on a decision
    track): two files with the same answers have the same one.

    ``withheld`` names the metrics a visitor is not shown, each with why ("withheld: computed
    over 3 answered questions, fewer than 20"): their value turns on fewer rows of the key than
    the track's ``min_rows`` (each kind's ``scoring`` says which rows). The scorer's result
    keeps their values (records are made of it); ``evaluator.disclosed`` takes them out and
    rounds the rest to the board's precision, for ``/score`` and the Score tab.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    metrics: dict[str, float]
    counts: dict[str, Count]
    intervals: dict[str, tuple[float, float]]
    n_questions: int
    n_abstained: int
    submission_sha256: str
    answer_key_sha256: str
    key_version: str | None
    scorer_version: str
    chance: float | None = None
    below_chance: bool = False
    answers_sha256: str | None = None
    withheld: dict[str, str] = {}
