"""The decision board's ranking metric (issue 21): one that both decisions count in.

The assist-class F1 rewards assisting everywhere (550 of the demo key's 789 episodes need
assistance, so the constant "Always-assist" policy scored 0.822, above the demo run's 0.782,
whose decisions are more accurate). The track ranks by ``decision_macro_f1``, the mean of the
F1 of assisting and the F1 of staying silent (the kind's docstring), with a bootstrap interval
drawn as F1's is; the assist-class F1 stays a column.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import evaluator
import spec
from evaluator.kinds import decision
from tests.evaluator.test_decision import TINY_RUN, _score

BENCH = spec.load_benchmark("egoargus")
TRACK = BENCH.track("decision")
assert isinstance(TRACK, spec.DecisionTrack)
DEMO = BENCH.demo_dir
KEY = decision.load_key(TRACK, BENCH.demo_key(TRACK).read_bytes())


def _demo(path: str) -> evaluator.ScoreResult:
    return evaluator.score(KEY, (DEMO / path).read_bytes())


def _public() -> list[dict[str, object]]:
    lines = (DEMO / "decision_public.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def _constant(assist: bool) -> bytes:
    return json.dumps(
        [
            {"example_id": r["example_id"], "assist": assist, "intervention_time_s": None}
            for r in _public()
        ]
    ).encode()


def test_a_constant_policy_ranks_below_the_demo_run_whose_decisions_are_better() -> None:
    run = _demo("decision_sample_submission.json")
    always = evaluator.score(KEY, _constant(True))
    never = evaluator.score(KEY, _constant(False))
    # what the issue observed: the assist-class F1 puts Always-assist first
    assert always.metrics["decision_f1"] > run.metrics["decision_f1"]
    assert run.metrics["decision_accuracy"] > always.metrics["decision_accuracy"]
    ranking = TRACK.ranking
    assert ranking != "decision_f1"
    assert run.metrics[ranking] > always.metrics[ranking]
    assert run.metrics[ranking] > never.metrics[ranking]
    # and the board's rank ranges agree: the demo run's interval lies above both
    assert run.intervals[ranking][0] > always.intervals[ranking][1]
    assert run.intervals[ranking][0] > never.intervals[ranking][1]


def test_macro_f1_is_the_mean_of_both_decisions_f1_in_the_hand_computed_case() -> None:
    result = _score(TINY_RUN)  # TP 4, FN 2, FP 1, TN 3
    assist = 2 * 4 / (2 * 4 + 1 + 2)
    silent = 2 * 3 / (2 * 3 + 2 + 1)
    assert result.metrics["decision_macro_f1"] == pytest.approx((assist + silent) / 2)
    assert result.metrics["decision_f1"] == assist  # kept, as a column
    assert "decision_macro_f1" not in result.counts  # no count: a mean of two F1s


def _macro_reference(tp: int, fn: int, fp: int, tn: int) -> tuple[float, float]:
    """The docstring's bootstrap written out again: the same 2,000 multinomial draws as F1's,
    each resample's macro F1, the 50th and the 1,950th."""
    n = tp + fn + fp + tn
    draws = np.random.RandomState(decision.BOOTSTRAP_SEED).multinomial(
        n, [tp / n, fn / n, fp / n, tn / n], size=2000
    )

    def f1(a: int, b: int, c: int) -> float:
        return 2 * a / (2 * a + b + c) if a or b or c else 0.0

    values = sorted((f1(a, b, c) + f1(d, b, c)) / 2 for a, b, c, d in draws.tolist())
    return (values[49], values[1949])


def test_macro_f1_interval_is_the_documented_bootstrap_bit_for_bit() -> None:
    result = _score(TINY_RUN)
    assert result.intervals["decision_macro_f1"] == pytest.approx(
        _macro_reference(4, 2, 1, 3), rel=0, abs=1e-15
    )
    run = _demo("decision_sample_submission.json")
    recall, precision = run.counts["decision_recall"], run.counts["decision_precision"]
    accuracy = run.counts["decision_accuracy"]
    tp = recall.correct
    outcomes = (tp, recall.total - tp, precision.total - tp, accuracy.correct - tp)
    assert run.intervals["decision_macro_f1"] == pytest.approx(
        _macro_reference(*outcomes), rel=0, abs=1e-15
    )
    low, high = run.intervals["decision_macro_f1"]
    assert low <= run.metrics["decision_macro_f1"] <= high


def test_every_proportion_of_a_decision_board_is_on_one_scale() -> None:
    """F1 (0-1) sat beside Accuracy in percent in one row: every proportion is a 0-1 ratio,
    as the paper prints its decision metrics."""
    proportions = [k for k in TRACK.metric_keys if decision.scoring._is_proportion(k)]
    assert {TRACK.display[k] for k in proportions} == {"ratio"}


def test_a_record_of_the_macro_f1_is_checked_like_f1s() -> None:
    result = _score(TINY_RUN)
    kind = evaluator.kind_of(TRACK)
    assert kind.record_problems(TRACK, result.metrics, result.counts, result.intervals) == []
    wrong = {**result.metrics, "decision_macro_f1": result.metrics["decision_macro_f1"] + 0.1}
    assert "decision_macro_f1" in " ".join(
        kind.record_problems(TRACK, wrong, result.counts, result.intervals)
    )
    bad = {**result.intervals, "decision_macro_f1": (0.9, 0.2)}
    assert "decision_macro_f1" in " ".join(
        kind.record_problems(TRACK, result.metrics, result.counts, bad)
    )
