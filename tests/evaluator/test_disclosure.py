"""What a visitor's score reveals (issue 22, finding 4): no metric that turns on fewer rows of
the key than the track's ``min_rows``, every value at the precision the board shows.

The probes are the issue's: a decision file that assists on two episodes with times 0 and
1,000 s (the issue's 1e6 now reads as milliseconds and is refused)
(MAE minus the signed error gives one episode's reviewed time, 1,000 minus their sum the other's),
a decision file that assists on one episode (the per-scenario counts give its scenario and
assist type), and a multiple-choice file that answers one question per group and abstains on
the rest (the group counts say which were right). The maintainer's full result keeps every
value: records and ``scripts/reproduce_row.py`` compare those.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

import evaluator
import spec
from evaluator.kinds import decision, multiple_choice
from spec.base import MIN_ROWS

EGOMEM = spec.load_benchmark("egomemreason")
MEMORY = EGOMEM.track()
assert isinstance(MEMORY, spec.MultipleChoiceTrack)
MEMORY_KEY = multiple_choice.load_key(MEMORY, EGOMEM.demo_key(MEMORY).read_bytes())
MEMORY_SAMPLE = (EGOMEM.demo_dir / "sample_submission.json").read_bytes()
ARGUS = spec.load_benchmark("egoargus")
_DECISION = ARGUS.track("decision")
assert isinstance(_DECISION, spec.DecisionTrack)
DECISION: spec.DecisionTrack = _DECISION
DECISION_KEY = decision.load_key(DECISION, ARGUS.demo_key(DECISION).read_bytes())
DECISION_SAMPLE = (ARGUS.demo_dir / "decision_sample_submission.json").read_bytes()
UNDERSTANDING = ARGUS.track("understanding")
assert isinstance(UNDERSTANDING, spec.MultipleChoiceTrack)
UNDERSTANDING_KEY = multiple_choice.load_key(
    UNDERSTANDING, ARGUS.demo_key(UNDERSTANDING).read_bytes()
)
UNDERSTANDING_SAMPLE = (ARGUS.demo_dir / "sample_submission.json").read_bytes()


def _decision_file(assisted: dict[Any, float | None]) -> bytes:
    """Assist on the episodes of ``assisted`` (each with its time), not on the others."""
    entries = [
        {
            "example_id": e.id,
            "assist": e.id in assisted,
            "intervention_time_s": assisted.get(e.id),
        }
        for e in DECISION_KEY.episodes
    ]
    return json.dumps(entries).encode()


def _two_episode_probe() -> tuple[bytes, float, float]:
    """The issue's probe: two assistance episodes assisted, at 0 s and at 1,000 s (past every
    reviewed time)."""
    first, second = [e for e in DECISION_KEY.episodes if e.needs_assistance][:2]
    assert first.time_s is not None and second.time_s is not None
    return _decision_file({first.id: 0.0, second.id: 1000.0}), first.time_s, second.time_s


def _one_per_group(key: evaluator.AnswerKey) -> bytes:
    """Answer the first question of each group of the first grouping (its right letter, so the
    counts are not all zero), abstain on every other."""
    seen: set[str] = set()
    entries = []
    for question in key.questions:
        value = question.groups[0]
        answer = question.answer if value not in seen else None
        seen.add(value)
        entries.append({"example_id": question.id, "predicted_answer": answer})
    return json.dumps(entries).encode()


def _decimals_ok(track: spec.Track, shown: evaluator.ScoreResult) -> list[str]:
    """The metrics and interval bounds of ``shown`` with more decimals than the board shows."""
    off = []
    for name, value in shown.metrics.items():
        digits = track.digits(track.display[name])
        if value != float(f"{value:.{digits}f}"):
            off.append(f"{name}={value!r}")
    for name, (low, high) in shown.intervals.items():
        digits = track.digits(track.display[name])
        if (low, high) != (float(f"{low:.{digits}f}"), float(f"{high:.{digits}f}")):
            off.append(f"{name} interval {low!r}–{high!r}")
    return off


# --- the probes -----------------------------------------------------------------------


def test_the_two_episode_probe_reveals_a_reviewed_time_in_the_full_result_only() -> None:
    data, first, second = _two_episode_probe()
    full = evaluator.score(DECISION_KEY, data)
    # The leak, on the maintainer's full result: the first episode's reviewed time, almost
    # exactly, and the second's from the sum.
    recovered = full.metrics["timing_mae_s"] - full.metrics["timing_signed_s"]
    assert math.isclose(recovered, first, abs_tol=1e-6)
    assert math.isclose(
        1000.0 - (2 * full.metrics["timing_mae_s"] - recovered), second, abs_tol=1e-6
    )

    shown = evaluator.disclosed(DECISION, full)
    assert "timing_mae_s" not in shown.metrics and "timing_signed_s" not in shown.metrics
    # Two assisted episodes: every value turns on those two.
    reason = "withheld: computed over 2 assisted episodes, fewer than 20"
    assert shown.withheld == dict.fromkeys(DECISION.metric_keys, reason)
    assert shown.metrics == {} and shown.counts == {}
    assert not any(k.startswith("decision_accuracy") for k in shown.metrics)
    assert shown.intervals == {}
    text = json.dumps(shown.model_dump(mode="json"))
    assert str(first) not in text and str(second) not in text


def test_one_assisted_episode_tells_neither_its_scenario_nor_its_assist_type() -> None:
    target = next(e for e in DECISION_KEY.episodes if e.assist_type == "non_safety")
    full = evaluator.score(DECISION_KEY, _decision_file({target.id: None}))
    group = next(g for g in DECISION.scenarios.groups if g.value == target.scenario)
    scenario_key = f"decision_accuracy/{group.key}"
    assert full.counts["non_safety_fn_rate"].correct == full.counts["non_safety_fn_rate"].total - 1
    assert scenario_key in full.counts  # the leak: this scenario's count moved by one

    shown = evaluator.disclosed(DECISION, full)
    assert shown.counts == {} and shown.intervals == {}
    assert set(shown.metrics) == set()  # every value turns on that one episode
    assert shown.withheld[scenario_key] == (
        "withheld: computed over 1 assisted episode, fewer than 20"
    )
    assert shown.n_abstained == full.n_abstained and shown.n_questions == full.n_questions


def test_one_answered_question_per_group_shows_no_group_s_count() -> None:
    full = evaluator.score(MEMORY_KEY, _one_per_group(MEMORY_KEY))
    groups = [g.key for g in MEMORY.groups]
    assert all(full.counts[g].correct == 1 for g in groups)  # the leak: which were right

    shown = evaluator.disclosed(MEMORY, full)
    assert not set(shown.metrics) & set(MEMORY.metric_keys)
    assert shown.counts == {} and shown.intervals == {}
    assert shown.withheld[groups[0]] == "withheld: computed over 1 answered question, fewer than 20"
    assert (
        shown.withheld["overall"] == "withheld: computed over 6 answered questions, fewer than 20"
    )
    assert shown.below_chance is False  # it would tell what overall does


def test_abstaining_on_a_whole_group_tells_nothing_and_is_shown() -> None:
    """A group left unanswered scores 0 whatever the key: its count is shown (it turns on no
    row), while the rest of a full file is shown too."""
    entries = json.loads(MEMORY_SAMPLE)
    first = MEMORY.groupings[0].groups[0]
    by_id = {q.id: q for q in MEMORY_KEY.questions}
    for entry in entries:
        if by_id[entry["example_id"]].groups[0] == first.value:
            entry["predicted_answer"] = None
    shown = evaluator.disclosed(MEMORY, evaluator.score(MEMORY_KEY, json.dumps(entries).encode()))
    assert shown.withheld == {}
    assert shown.metrics[first.key] == 0.0 and shown.counts[first.key].correct == 0


def _answering(questions: list[multiple_choice.Question]) -> bytes:
    """A file that answers ``questions`` (each with "A") and abstains on every other."""
    answered = {q.id for q in questions}
    entries = [
        {"example_id": q.id, "predicted_answer": "A" if q.id in answered else None}
        for q in UNDERSTANDING_KEY.questions
    ]
    return json.dumps(entries).encode()


def test_an_out_of_option_row_answered_counts_as_the_public_file_counts_it() -> None:
    """Issue 30, finding 4: the public file does not flag a row out of option, but the message
    counted only the unflagged rows: 20 answered questions, one out of option, read "computed
    over 19 answered questions", and withheld, which told that one of them is flagged. A count
    is of the answered questions now, and the same twenty answered with or without the flagged
    one are told the same."""
    questions = UNDERSTANDING_KEY.questions
    flagged = next(q for q in questions if q.out_of_option)
    group = [q for q in questions if q.groups == flagged.groups and not q.out_of_option]
    told = {}
    for name, picked in (("with", [flagged, *group[:19]]), ("without", group[:20])):
        shown = evaluator.disclosed(
            UNDERSTANDING, evaluator.score(UNDERSTANDING_KEY, _answering(picked))
        )
        told[name] = shown.withheld
    assert told["with"] == told["without"] == {}, told
    nineteen = [flagged, *group[:18]]
    shown = evaluator.disclosed(
        UNDERSTANDING, evaluator.score(UNDERSTANDING_KEY, _answering(nineteen))
    )
    assert shown.withheld["overall"] == (
        "withheld: computed over 19 answered questions, fewer than 20"
    )


# --- what a real file is shown -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("track", "key", "data"),
    [
        (MEMORY, MEMORY_KEY, MEMORY_SAMPLE),
        (UNDERSTANDING, UNDERSTANDING_KEY, UNDERSTANDING_SAMPLE),
        (DECISION, DECISION_KEY, DECISION_SAMPLE),
    ],
    ids=["memory", "understanding", "decision"],
)
def test_a_real_file_is_shown_whole_at_the_board_s_precision(
    track: spec.Track, key: evaluator.AnyKey, data: bytes
) -> None:
    full = evaluator.score(key, data)
    shown = evaluator.disclosed(track, full)
    assert shown.withheld == {} and full.withheld == {}
    assert set(shown.metrics) == set(full.metrics) and list(shown.metrics) == list(full.metrics)
    assert shown.counts == full.counts  # counts stay exact
    assert _decimals_ok(track, shown) == []
    assert _decimals_ok(track, full) != []  # the full result keeps full precision
    for name, value in full.metrics.items():
        assert shown.metrics[name] == float(
            track.format_metric(name, value).removesuffix(" %").removesuffix(" s")
        )
    assert (shown.submission_sha256, shown.answer_key_sha256) == (
        full.submission_sha256,
        full.answer_key_sha256,
    )
    assert shown.below_chance == full.below_chance


def test_a_spec_s_min_rows_sets_the_threshold() -> None:
    data, _, _ = _two_episode_probe()
    full = evaluator.score(DECISION_KEY, data)
    one = DECISION.model_copy(update={"min_rows": 1})
    key = decision.load_key(one, ARGUS.demo_key(DECISION).read_bytes())
    assert evaluator.score(key, data).withheld == {}
    assert set(evaluator.disclosed(one, evaluator.score(key, data)).metrics) == set(full.metrics)
    assert DECISION.min_rows == MEMORY.min_rows == MIN_ROWS == 20


def test_a_file_that_decides_the_same_everywhere_is_shown() -> None:
    """Never assisting tells nothing about any one episode (its counts are the key's totals):
    nothing is withheld, and the timing means are absent as ever (nothing was timed)."""
    full = evaluator.score(DECISION_KEY, _decision_file({}))
    shown = evaluator.disclosed(DECISION, full)
    assert shown.withheld == {}
    assert "timing_mae_s" not in shown.metrics and shown.metrics["timing_n"] == 0.0


def test_timing_withheld_with_timing_n_whatever_timing_n_is() -> None:
    """When timing_n is withheld, the timing means are withheld with it, not absent: absent
    would tell that timing_n is 0."""
    needing = [e for e in DECISION_KEY.episodes if e.needs_assistance]
    silent = [e for e in DECISION_KEY.episodes if not e.needs_assistance]
    # 40 assisted (enough), one of them timed: timing_n is 0 or 1 by that episode alone.
    for timed in (needing[0], silent[0]):
        assisted: dict[Any, float | None] = {e.id: None for e in [*needing[1:21], *silent[1:20]]}
        assisted[timed.id] = 5.0
        shown = evaluator.disclosed(
            DECISION, evaluator.score(DECISION_KEY, _decision_file(assisted))
        )
        assert "decision_f1" in shown.metrics
        reason = "withheld: computed over 1 timed episode, fewer than 20"
        assert shown.withheld["timing_n"] == reason
        assert shown.withheld["timing_mae_s"] == shown.withheld["timing_signed_s"] == reason
