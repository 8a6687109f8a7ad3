"""Decision times in milliseconds (issue 21): a file whose times are all three orders past the
episodes' reviewed times was scored silently (an MAE of 49,390 s on the demo); it is refused,
saying the times look like milliseconds and how to write seconds. Times merely off (ten times
late, say) are a bad model, not a wrong unit: they are scored."""

from __future__ import annotations

import json
from typing import Any

import pytest

import evaluator
import spec
from errors import KeyedRefusal
from spec.decision import TIME

ARGUS = spec.load_benchmark("egoargus")
DECISION = ARGUS.track("decision")
KEY = evaluator.load_answer_key(DECISION, ARGUS.demo_key(DECISION).read_bytes())
SAMPLE = json.loads((ARGUS.demo_dir / "decision_sample_submission.json").read_bytes())


def _scaled(factor: float) -> bytes:
    entries: list[dict[str, Any]] = [
        {**e, TIME: None if e[TIME] is None else e[TIME] * factor} for e in SAMPLE
    ]
    return json.dumps(entries).encode()


def test_times_in_milliseconds_are_refused_with_how_to_write_seconds() -> None:
    with pytest.raises(evaluator.SubmissionError) as refused:
        evaluator.score(KEY, _scaled(1000))
    [problem] = refused.value.problems
    assert "look like milliseconds" in problem and f'"{TIME}"' in problem
    assert "12.5" in problem  # how to write a time in seconds


@pytest.mark.parametrize("factor", [1, 0.5, 10])
def test_times_in_seconds_are_scored_however_far_off(factor: float) -> None:
    result = evaluator.score(KEY, _scaled(factor))
    assert result.metrics["timing_n"] > 0


def test_a_refusal_by_the_times_is_a_keyed_refusal() -> None:
    """The check reads the key, so its refusal is one the Space counts as a score."""
    with pytest.raises(KeyedRefusal):
        evaluator.score(KEY, _scaled(1000))


@pytest.mark.parametrize("timed", [1, 2, DECISION.min_rows - 1])
def test_fewer_timed_episodes_than_min_rows_are_never_judged_by_their_times(timed: int) -> None:
    """Issue 30: one episode timed at 1,000 times its reviewed time was refused, at once its
    reviewed time scored; the answer told the time. Under ``min_rows`` episodes timed against
    a reviewed time the file is scored, whatever its times, and says nothing of them (its
    timing means are withheld)."""
    assert isinstance(KEY, evaluator.DecisionKey)
    reviewed = {e.id: e.time_s for e in KEY.episodes if e.time_s}
    ids = list(reviewed)[:timed]
    for factor in (1, 1000):
        entries = [
            {**e, TIME: reviewed[e["example_id"]] * factor if e["example_id"] in ids else None}
            for e in SAMPLE
        ]
        result = evaluator.disclosed(DECISION, evaluator.score(KEY, json.dumps(entries).encode()))
        assert "timing_mae_s" not in result.metrics, result.metrics
