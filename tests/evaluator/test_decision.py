"""decision.py: how a decision track is scored, on a tiny key written by hand.

Every metric of the hand-computed case is typed in as worked out on paper (comments give the
arithmetic); the zero-denominator and no-time cases have their own keys. Property tests run
on the synthetic demo key (789 episodes) and on random tiny keys; malformed files are a table
of bytes and the message each must produce. Records of the decision track are checked here
too (their metrics follow from their counts, they keep their intervals).
"""

from __future__ import annotations

import ast
import concurrent.futures
import contextlib
import functools
import json
import math
import random
import subprocess
import sys
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evaluator
import ledger
import spec
from evaluator.kinds import decision
from tests.support import ROOT

BENCH = spec.load_benchmark("egoargus")
_TRACK = BENCH.track("decision")
assert isinstance(_TRACK, spec.DecisionTrack)
TRACK: spec.DecisionTrack = _TRACK
DEMO_KEY_BYTES = BENCH.demo_key(TRACK).read_bytes()
DEMO_KEY = decision.load_key(TRACK, DEMO_KEY_BYTES)
SAMPLE_BYTES = (BENCH.demo_dir / "decision_sample_submission.json").read_bytes()
SCENARIOS = [g.value for g in TRACK.scenarios.groups]
SILENT = TRACK.silent_scenario

Row = dict[str, Any]


def _row(ident: str, scenario: str, assist_type: str, time_s: float | None) -> Row:
    return {
        "example_id": ident,
        "scenario": scenario,
        "assist_type": assist_type,
        "intervention_time_s": time_s,
    }


#: Ten episodes: every scenario, three safety, three non-safety, four needing silence.
TINY = [
    _row("e01", "multimodal_grounded", "safety", 10.0),
    _row("e02", "multimodal_grounded", "non_safety", 20.0),
    _row("e03", "contradictory", "safety", 5.0),
    _row("e04", "video_grounded_ontopic", "non_safety", 30.0),
    _row("e05", "video_grounded_offtopic", "safety", 12.5),
    _row("e06", "text_grounded", "non_safety", 8.0),
    _row("e07", "no_assistance", "none", None),
    _row("e08", "no_assistance", "none", None),
    _row("e09", "no_assistance", "none", None),
    _row("e10", "no_assistance", "none", None),
]
#: TP e01 (3 s early), e02 (1 s late), e03 (no time), e06 (on time); FN e04, e05 (no answer);
#: FP e07; TN e08, e09, e10 (no answer).
TINY_RUN: list[Row] = [
    {
        "example_id": "e01",
        "assist": True,
        "intervention_time_s": 7.0,
        "issue": "a pan",
        "evidence": "at 6 s",
        "steps": ["warn"],
    },
    {"example_id": "e02", "assist": True, "intervention_time_s": 21},
    {"example_id": "e03", "assist": True, "intervention_time_s": None},
    {"example_id": "e04", "assist": False, "intervention_time_s": None},
    {"example_id": "e05", "assist": None, "intervention_time_s": None},
    {"example_id": "e06", "assist": True, "intervention_time_s": 8.0},
    {"example_id": "e07", "assist": True, "intervention_time_s": 3.0},
    {"example_id": "e08", "assist": False, "intervention_time_s": 99.0},  # not read: no TP
    {"example_id": "e09", "assist": False, "intervention_time_s": None},
    {"example_id": "e10", "assist": None, "intervention_time_s": None},
]


def _jsonl(rows: list[Row]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def _key(rows: list[Row] | None = None) -> decision.DecisionKey:
    return decision.load_key(TRACK, _jsonl(TINY if rows is None else rows))


def _score(entries: list[Row], key: decision.DecisionKey | None = None) -> evaluator.ScoreResult:
    return evaluator.score(key or _key(), json.dumps(entries).encode())


def _run(assist: Any, time_s: Any = None, rows: list[Row] | None = None) -> list[Row]:
    return [
        {"example_id": r["example_id"], "assist": assist, "intervention_time_s": time_s}
        for r in (TINY if rows is None else rows)
    ]


def _wilson(correct: int, total: int) -> tuple[float, float]:
    """An independent Wilson interval, 0-1."""
    z = NormalDist().inv_cdf(0.975)
    p = correct / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z / (1 + z * z / total) * math.sqrt(p * (1 - p) / total + z * z / (4 * total**2))
    return (max(0.0, centre - half), min(1.0, centre + half))


def _multinomial(tp: int, fn: int, fp: int, tn: int) -> tuple[float, float]:
    """The module docstring's bootstrap, written out again from its words: each of 2,000
    resamples a multinomial draw of the four counts, from numpy's legacy generator."""
    n = tp + fn + fp + tn
    draws = np.random.RandomState(decision.BOOTSTRAP_SEED).multinomial(
        n, [tp / n, fn / n, fp / n, tn / n], size=2000
    )
    f1s = sorted(2 * a / (2 * a + b + c) if a or b or c else 0.0 for a, b, c, _ in draws.tolist())
    return (f1s[49], f1s[1949])  # the 50th and the 1,950th


@functools.cache
def _episode_f1s(tp: int, fn: int, fp: int, tn: int) -> tuple[float, ...]:
    """The slow reference, the bootstrap of scorer 1.0: 2,000 resamples of the episodes sorted
    TP, FN, FP, TN, each episode drawn one at a time (``int(random() * n)``, Python's random
    seeded with BOOTSTRAP_SEED); the resampled F1s, sorted."""
    episodes = ["tp"] * tp + ["fn"] * fn + ["fp"] * fp + ["tn"] * tn
    n = len(episodes)
    draw = random.Random(decision.BOOTSTRAP_SEED).random
    f1s = []
    for _ in range(2000):
        picked = [episodes[int(draw() * n)] for _ in range(n)]
        a, b, c = picked.count("tp"), picked.count("fn"), picked.count("fp")
        f1s.append(2 * a / (2 * a + b + c) if a or b or c else 0.0)
    return tuple(sorted(f1s))


def _bootstrap(tp: int, fn: int, fp: int, tn: int) -> tuple[float, float]:
    """The slow reference's interval: the 50th and the 1,950th of its resampled F1s."""
    f1s = _episode_f1s(tp, fn, fp, tn)
    return (f1s[49], f1s[1949])


# --- the hand-computed case ---------------------------------------------------------------------


def test_every_metric_of_the_hand_computed_case() -> None:
    result = _score(TINY_RUN)
    m, c = result.metrics, result.counts
    # TP 4, FN 2, FP 1, TN 3
    assert m["decision_precision"] == 4 / 5
    assert m["decision_recall"] == 4 / 6
    assert m["decision_f1"] == 8 / 11  # 2*4 / (2*4 + 1 + 2)
    # errors -3, +1, 0 over the three timed TP episodes; e03 has no time
    assert m["timing_mae_s"] == pytest.approx(4 / 3)
    assert m["timing_signed_s"] == pytest.approx(-2 / 3)  # negative: too early on average
    assert (m["timing_n"], m["timing_missing"]) == (3.0, 1.0)
    assert m["safety_fn_rate"] == 1 / 3  # e05 of e01, e03, e05
    assert m["non_safety_fn_rate"] == 1 / 3  # e04 of e02, e04, e06
    assert m["no_assist_fp_rate"] == 1 / 4  # e07 of e07..e10
    assert m["decision_accuracy"] == 0.7  # 4 TP + 3 TN of 10, a 0-1 ratio
    by_scenario = {g.value: m[TRACK.scenario_key(g)] for g in TRACK.scenarios.groups}
    assert by_scenario == {
        "multimodal_grounded": 1.0,
        "contradictory": 1.0,
        "video_grounded_ontopic": 0.0,
        "video_grounded_offtopic": 0.0,
        "text_grounded": 1.0,
        "no_assistance": 0.75,
    }
    assert c["decision_precision"] == evaluator.Count(correct=4, total=5)
    assert c["decision_recall"] == evaluator.Count(correct=4, total=6)
    assert c["safety_fn_rate"] == evaluator.Count(correct=1, total=3)
    assert c["no_assist_fp_rate"] == evaluator.Count(correct=1, total=4)
    assert c["decision_accuracy"] == evaluator.Count(correct=7, total=10)
    assert c["decision_accuracy/no_assistance"] == evaluator.Count(correct=3, total=4)
    assert not {
        "decision_f1",
        "timing_mae_s",
        "timing_signed_s",
        "timing_n",
        "timing_missing",
    } & set(c)
    assert (result.n_questions, result.n_abstained) == (10, 2)
    assert result.scorer_version == TRACK.scorer_version


def test_metrics_counts_and_intervals_come_in_display_order() -> None:
    result = _score(TINY_RUN)
    assert tuple(result.metrics) == TRACK.metric_keys
    assert list(result.counts) == [k for k in TRACK.metric_keys if k in result.counts]
    assert list(result.intervals) == [
        k for k in TRACK.metric_keys if k in decision.PROPORTIONS or "/" in k
    ]


def test_intervals_are_wilson_and_f1_the_documented_bootstrap() -> None:
    result = _score(TINY_RUN)
    assert result.intervals["decision_precision"] == pytest.approx(_wilson(4, 5))
    assert result.intervals["safety_fn_rate"] == pytest.approx(_wilson(1, 3))
    assert result.intervals["decision_accuracy"] == pytest.approx(_wilson(7, 10))
    assert result.intervals["decision_f1"] == _multinomial(4, 2, 1, 3)  # bit for bit
    assert "timing_mae_s" not in result.intervals


def test_the_submission_may_be_json_lines() -> None:
    as_list = _score(TINY_RUN)
    as_lines = evaluator.score(_key(), _jsonl(TINY_RUN))
    assert as_lines.model_dump(exclude={"submission_sha256"}) == as_list.model_dump(
        exclude={"submission_sha256"}
    )


def test_the_key_may_be_a_json_list() -> None:
    track = TRACK.model_copy(update={"key": spec.DataFile(name="k.json", format="json")})
    key = decision.load_key(track, json.dumps(TINY).encode())
    assert [e.id for e in key.episodes] == [r["example_id"] for r in TINY]


# --- zero denominators and no times -------------------------------------------------------------


def test_never_assisting_gives_zero_where_a_denominator_is_zero() -> None:
    result = _score(_run(False))
    m = result.metrics
    assert m["decision_precision"] == 0.0 and m["decision_f1"] == 0.0  # TP + FP = 0
    assert "decision_precision" not in result.counts  # nothing was counted
    assert result.intervals["decision_precision"] == (0.0, 1.0)  # the whole range
    assert result.intervals["decision_f1"] == (0.0, 0.0)
    assert m["decision_recall"] == 0.0 and m["safety_fn_rate"] == m["non_safety_fn_rate"] == 1
    assert m["no_assist_fp_rate"] == 0.0 and m["decision_accuracy"] == 0.4
    # nothing to time: the means have no value and are absent, the counts are 0
    assert "timing_mae_s" not in m and "timing_signed_s" not in m
    assert (m["timing_n"], m["timing_missing"]) == (0.0, 0.0)


def test_assisting_without_times_counts_every_tp_as_untimed() -> None:
    result = _score(_run(True))
    m = result.metrics
    assert (m["timing_n"], m["timing_missing"]) == (0.0, 6.0)
    assert "timing_mae_s" not in m and "timing_signed_s" not in m
    assert json.loads(result.model_dump_json())["metrics"].keys() == m.keys()


def test_a_null_answer_is_not_assisting_and_counts_as_abstained() -> None:
    abstain, silent = _score(_run(None)), _score(_run(False))
    assert abstain.metrics == silent.metrics and abstain.counts == silent.counts
    assert (abstain.n_abstained, silent.n_abstained) == (10, 0)


def test_a_time_is_read_only_on_tp_episodes() -> None:
    late = [
        {**e, "intervention_time_s": 500.0} if e["example_id"] in ("e04", "e07", "e08") else e
        for e in TINY_RUN
    ]
    assert _score(late).metrics == _score(TINY_RUN).metrics


# --- properties -----------------------------------------------------------------------------


def _perfect(key: decision.DecisionKey) -> bytes:
    return json.dumps(
        [
            {"example_id": e.id, "assist": e.needs_assistance, "intervention_time_s": e.time_s}
            for e in key.episodes
        ]
    ).encode()


def test_a_perfect_submission_scores_f1_1_mae_0_and_no_errors() -> None:
    result = evaluator.score(DEMO_KEY, _perfect(DEMO_KEY))
    m = result.metrics
    assert m["decision_f1"] == m["decision_precision"] == m["decision_recall"] == 1.0
    assert m["timing_mae_s"] == 0.0 and m["timing_signed_s"] == 0.0
    assert m["safety_fn_rate"] == m["non_safety_fn_rate"] == m["no_assist_fp_rate"] == 0.0
    assert all(m[k] == 1.0 for k in TRACK.metric_keys if k.startswith("decision_accuracy"))
    assert m["decision_macro_f1"] == 1.0 and result.intervals["decision_macro_f1"] == (1.0, 1.0)
    assert (m["timing_n"], m["timing_missing"]) == (550.0, 0.0)
    assert result.intervals["decision_f1"] == (1.0, 1.0)


def test_always_assisting_gives_recall_1_and_every_silent_episode_a_false_alarm() -> None:
    entries = [
        {"example_id": e.id, "assist": True, "intervention_time_s": 0} for e in DEMO_KEY.episodes
    ]
    m = evaluator.score(DEMO_KEY, json.dumps(entries).encode()).metrics
    assert m["decision_recall"] == 1.0 and m["no_assist_fp_rate"] == 1.0
    assert m["decision_precision"] == 550 / 789
    assert m["decision_f1"] == 1100 / 1339  # 0.822: about.md's caution
    assert m[f"decision_accuracy/{SILENT}"] == 0.0


def _random_run(seed: int) -> bytes:
    rng = random.Random(seed)
    p = rng.random()
    entries = [
        {
            "example_id": e.id,
            "assist": rng.random() < p if rng.random() < 0.97 else None,
            "intervention_time_s": round(rng.uniform(0, 200), 1) if rng.random() < 0.9 else None,
        }
        for e in DEMO_KEY.episodes
    ]
    return json.dumps(entries).encode()


def test_the_bootstrap_interval_is_the_same_on_every_run_and_holds_the_estimate() -> None:
    first = evaluator.score(DEMO_KEY, SAMPLE_BYTES)
    again = evaluator.score(DEMO_KEY, SAMPLE_BYTES)
    assert first.intervals["decision_f1"] == again.intervals["decision_f1"]
    assert first.model_dump() == again.model_dump()
    for data in [SAMPLE_BYTES, *(_random_run(seed) for seed in range(8))]:
        result = evaluator.score(DEMO_KEY, data)
        low, high = result.intervals["decision_f1"]
        assert low <= result.metrics["decision_f1"] <= high
        assert 0.0 <= low < high <= 1.0


#: The demo runs' F1 intervals as scorer 1.1 draws them (the demo board's decision rows).
PINNED_F1_INTERVALS = {
    "decision_sample_submission.json": (0.7530120481927711, 0.8081002892960463),
    "leaderboard/inputs/decision_always_assist.json": (0.8009118541033434, 0.843108504398827),
    "leaderboard/inputs/decision_never_assist.json": (0.0, 0.0),
}


@pytest.mark.parametrize("name", PINNED_F1_INTERVALS)
def test_the_f1_intervals_of_the_shipped_runs_are_pinned(name: str) -> None:
    result = evaluator.score(DEMO_KEY, (BENCH.demo_dir / name).read_bytes())
    tp, fn, fp, tn = decision.scoring._outcomes(result.counts)
    assert result.intervals["decision_f1"] == PINNED_F1_INTERVALS[name]
    assert decision.f1_interval(tp, fn, fp, tn) == PINNED_F1_INTERVALS[name]
    if tp + fn + fp:
        assert _multinomial(tp, fn, fp, tn) == PINNED_F1_INTERVALS[name]


def test_the_episodes_a_file_is_checked_against_come_in_the_key_s_order() -> None:
    """So that a file in that order (most are) is matched by comparing its ids in turn, not
    by hashing every one (``entry_columns``); a set of string ids had its own order."""
    assert list(DEMO_KEY.asked.ids) == list(DEMO_KEY.ids)
    public = BENCH.demo_dir / TRACK.public.name
    rows = [json.loads(line) for line in public.read_text().splitlines() if line.strip()]
    asked = decision.load_questions(TRACK, public.read_bytes())
    assert list(asked.ids) == [r["example_id"] for r in rows] and len(asked) == len(rows)


def test_the_sample_s_counts_are_the_ones_pinned_below() -> None:
    counts = evaluator.score(DEMO_KEY, SAMPLE_BYTES).counts
    assert decision.scoring._outcomes(counts) == (400, 150, 73, 166)


#: Outcome counts (TP, FN, FP, TN) on which the counts' draw meets the slow reference: tiny,
#: low and high F1, no TP, every episode assisted, the demo sample's.
REFERENCE_COUNTS = [
    (4, 2, 1, 3),
    (3, 20, 1, 40),
    (40, 15, 7, 17),
    (0, 12, 3, 30),
    (120, 30, 90, 60),
    (550, 0, 239, 0),
    (400, 150, 73, 166),
]


@pytest.mark.parametrize("counts", REFERENCE_COUNTS, ids=str)
def test_the_counts_draw_gives_the_episode_bootstrap_s_interval_within_monte_carlo_error(
    counts: tuple[int, int, int, int],
) -> None:
    """Each end of the interval is, within Monte Carlo error, the same quantile of the slow
    reference's resampled F1s (the bootstrap over episodes one at a time): the share of those
    below it at most, and at or below it at least, its 2.5 % or 97.5 %, give or take four
    standard errors of two independent runs of 2,000 resamples."""
    reference = _episode_f1s(*counts)
    low, high = decision.f1_interval(*counts)
    for end, share in ((low, 0.025), (high, 0.975)):
        margin = 4 * math.sqrt(2 * share * (1 - share) / len(reference))
        below = sum(f < end for f in reference) / len(reference)
        at_or_below = sum(f <= end for f in reference) / len(reference)
        assert below <= share + margin and at_or_below >= share - margin, (end, share)
    old_low, old_high = reference[49], reference[1949]
    assert abs((high - low) - (old_high - old_low)) <= 0.2 * (old_high - old_low) + 1e-12


def test_the_slow_reference_is_what_scorer_1_0_published() -> None:
    """The reference is the old method itself: it gives the interval the demo board's record
    of the sample kept under scorer 1.0."""
    assert _bootstrap(400, 150, 73, 166) == (0.7529880478087649, 0.8083491461100569)


def test_a_record_of_scorer_1_0_is_still_accepted_by_the_board() -> None:
    """Records published under the episode bootstrap keep its interval; the board takes them."""
    result = evaluator.score(DEMO_KEY, SAMPLE_BYTES)
    old = result.model_copy(
        update={
            "scorer_version": "egoargus-decision-scorer 1.0",
            "intervals": {**result.intervals, "decision_f1": _bootstrap(400, 150, 73, 166)},
        }
    )
    assert old.intervals["decision_f1"] != result.intervals["decision_f1"]
    record = ledger.parse_record(_record(old).to_json(), BENCH, TRACK)
    assert record.provenance is not None
    assert record.provenance.scorer_version == "egoargus-decision-scorer 1.0"
    assert TRACK.scorer_version != "egoargus-decision-scorer 1.0"
    assert record.intervals is not None
    assert record.intervals["decision_f1"] == (0.7529880478087649, 0.8083491461100569)


def test_the_bootstrap_interval_depends_on_the_four_outcomes_only() -> None:
    shuffled = list(TINY)
    random.Random(5).shuffle(shuffled)
    assert _score(TINY_RUN, _key(shuffled)).intervals == _score(TINY_RUN).intervals
    assert decision.f1_interval(4, 2, 1, 3) == _score(TINY_RUN).intervals["decision_f1"]


@pytest.mark.slow
def test_the_bootstrap_interval_is_the_same_in_another_process() -> None:
    code = (
        "import json; from evaluator.kinds import decision; "
        "print(json.dumps(decision.f1_interval(400, 150, 73, 166)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONHASHSEED": "123"},
    )
    assert done.returncode == 0, done.stderr
    assert tuple(json.loads(done.stdout)) == decision.f1_interval(400, 150, 73, 166)


@st.composite
def _key_and_run(draw: st.DrawFn) -> tuple[list[Row], list[Row]]:
    rows = [
        _row(
            f"s{i}",
            s,
            "none" if s == SILENT else draw(st.sampled_from(["safety", "non_safety"])),
            None if s == SILENT else draw(st.floats(0, 300)),
        )
        for i, s in enumerate(SCENARIOS)
    ]
    extra = draw(
        st.lists(
            st.tuples(
                st.sampled_from(SCENARIOS),
                st.sampled_from(["safety", "non_safety"]),
                st.floats(0, 300),
            ),
            max_size=12,
        )
    )
    rows += [
        _row(f"x{i}", s, "none" if s == SILENT else t, None if s == SILENT else time)
        for i, (s, t, time) in enumerate(extra)
    ]
    run = [
        {
            "example_id": r["example_id"],
            "assist": draw(st.sampled_from([True, False, None])),
            "intervention_time_s": draw(st.one_of(st.none(), st.floats(0, 300))),
        }
        for r in rows
    ]
    return rows, run


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_key_and_run())
def test_any_run_gives_numbers_that_follow_from_their_counts(
    case: tuple[list[Row], list[Row]],
) -> None:
    rows, run = case
    key = _key(rows)
    result = _score(run, key)
    assert decision.record_problems(TRACK, result.metrics, result.counts, result.intervals) == []
    m = result.metrics
    ratios = (
        "decision_f1",
        "decision_precision",
        "decision_recall",
        "safety_fn_rate",
        "non_safety_fn_rate",
        "no_assist_fp_rate",
    )
    assert all(0 <= m[k] <= 1 for k in ratios)
    assert m["timing_n"] + m["timing_missing"] == result.counts["decision_recall"].correct
    assert ("timing_mae_s" in m) == (m["timing_n"] > 0)
    if "timing_mae_s" in m:
        assert abs(m["timing_signed_s"]) <= m["timing_mae_s"] + 1e-9
    perfect = evaluator.score(key, _perfect(key)).metrics
    assert perfect["decision_f1"] == 1.0 and perfect["timing_mae_s"] == 0.0
    always = _score(_run(True, 1.0, rows), key).metrics
    assert always["decision_recall"] == 1.0 and always["no_assist_fp_rate"] == 1.0


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_give_a_result_or_the_domain_error(data: bytes) -> None:
    with contextlib.suppress(evaluator.SubmissionError):
        evaluator.score(_key(), data)


# --- malformed submissions ----------------------------------------------------------------------


def _edit(index: int, **fields: Any) -> bytes:
    entries = [dict(e) for e in TINY_RUN]
    entries[index].update(fields)
    for name, value in fields.items():
        if value is _DROP:
            del entries[index][name]
    return json.dumps(entries, allow_nan=True).encode()


_DROP = object()

BAD_SUBMISSIONS: list[tuple[str, bytes, list[str]]] = [
    (
        "empty",
        b"  \n",
        [
            "the file is empty; expected a JSON list (or JSON Lines) of objects "
            'such as {"example_id": "<id>", "assist": true, '
            '"intervention_time_s": 12.5}'
        ],
    ),
    ("utf-16", "[]".encode("utf-16"), ["the file is UTF-16 encoded; save it as UTF-8"]),
    ("not-utf8", b"[\xff]", ["not UTF-8 text (undecodable byte at offset 1)"]),
    (
        "broken-json",
        b'[{"example_id": "e01",',
        ["the file is not valid JSON (", "or JSON Lines with one such object a line"],
    ),
    (
        "wrapped",
        json.dumps({"predictions": TINY_RUN}).encode(),
        ['the top level is an object with a "predictions" list; upload the list itself'],
    ),
    (
        "wrapped-pretty",
        json.dumps({"results": TINY_RUN}, indent=2).encode(),
        ['the top level is an object with a "results" list; upload the list itself'],
    ),
    (
        "a-string",
        b'"e01"',
        ["the top level is a JSON string; expected a JSON list (or JSON Lines)"],
    ),
    ("empty-list", b"[]", ["the list is empty; expected one entry for each of the 10 episodes"]),
    (
        "broken-jsonl-line",
        _jsonl(TINY_RUN[:2]) + b'{"example_id": "e03",\n',
        ["line 3 is not valid JSON ("],
    ),
    (
        "yes-instead-of-true",
        _edit(0, assist="yes"),
        [
            '1 entry writes "assist" as a string (e.g. the 1st entry: "yes"); write the JSON '
            'literal true or false, without quotes: "assist": true, not "assist": "yes"'
        ],
    ),
    (
        "true-in-quotes",
        _edit(1, assist="true"),
        ['writes "assist" as a string (e.g. the 2nd entry: "true")'],
    ),
    (
        "assist-a-number",
        _edit(0, assist=1),
        ['1 entry has an "assist" that is not true, false or null (e.g. the 1st entry: 1)'],
    ),
    (
        "no-assist",
        _edit(2, assist=_DROP),
        [
            '1 entry has no "assist" (e.g. the 3rd entry); write true or false, or null if the '
            "model gave no answer"
        ],
    ),
    (
        "no-time",
        _edit(2, intervention_time_s=_DROP),
        [
            '1 entry has no "intervention_time_s" (e.g. the 3rd entry); give the time in seconds, '
            "or null"
        ],
    ),
    (
        "time-as-text",
        _edit(0, intervention_time_s="12.5"),
        [
            '1 entry has an "intervention_time_s" that is not a number (e.g. the 1st entry: '
            '"12.5"); write seconds as a JSON number such as 12.5, not a string, or null'
        ],
    ),
    (
        "time-boolean",
        _edit(0, intervention_time_s=True),
        ['an "intervention_time_s" that is not a number (e.g. the 1st entry: true)'],
    ),
    (
        "negative-time",
        _edit(5, intervention_time_s=-1.5),
        [
            '1 entry has a negative "intervention_time_s" (e.g. the 6th entry: -1.5); times are '
            "seconds from the start of the video, 0 or more"
        ],
    ),
    (
        "nan-time",
        _edit(0, intervention_time_s=math.nan),
        [
            '1 entry has an "intervention_time_s" that is not a finite number (e.g. the 1st entry: '
            "NaN)"
        ],
    ),
    (
        "infinite-time",
        _edit(0, intervention_time_s=math.inf),
        ["not a finite number (e.g. the 1st entry: Infinity)"],
    ),
    (
        "huge-integer-time",
        _edit(0, intervention_time_s=10**400),
        ["not a finite number (e.g. the 1st entry: "],
    ),
    (
        "duplicate-id",
        json.dumps([*TINY_RUN, TINY_RUN[0]]).encode(),
        ["1 episode is answered more than once (e01); keep one entry per example_id"],
    ),
    (
        "unknown-id",
        json.dumps([*TINY_RUN, {**TINY_RUN[0], "example_id": "zzz"}]).encode(),
        [
            "1 example_id is not in the answer key (zzz); valid ids are those of the public file "
            "(decision_public.jsonl)"
        ],
    ),
    (
        "missing-episode",
        json.dumps(TINY_RUN[:-1]).encode(),
        [
            "1 episode has no answer (e10); expected one entry for each of the 10 episodes (use "
            '"assist": null for no answer)'
        ],
    ),
    (
        "integer-id",
        _edit(0, example_id=1),
        [
            '1 entry has an "example_id" that is not a non-empty string (e.g. the 1st entry: 1); '
            "write ids as JSON strings, exactly as in the public file",
            "1 episode has no answer (e01)",
        ],
    ),
    (
        "sample-id-alias",
        json.dumps(
            [
                {**{k: v for k, v in e.items() if k != "example_id"}, "sample_id": e["example_id"]}
                for e in TINY_RUN
            ]
        ).encode(),
        [
            '10 entries use "sample_id" (e.g. the 1st, 2nd, 3rd, 4th, 5th, 6th, 7th, 8th, 9th, '
            '10th entries); rename the field to "example_id"'
        ],
    ),
    (
        "not-objects",
        json.dumps([1, *TINY_RUN]).encode(),
        [
            "1 entry is not a JSON object (e.g. the 1st entry (integer)); each entry must be "
            '{"example_id": ..., "assist": ..., "intervention_time_s": ...}'
        ],
    ),
    (
        "far-too-long",
        json.dumps([TINY_RUN[0]] * 41).encode(),
        ["the list has 41 entries; expected one entry for each of the 10 episodes"],
    ),
]


@pytest.mark.parametrize(
    ("data", "fragments"),
    [(d, f) for _, d, f in BAD_SUBMISSIONS],
    ids=[name for name, _, _ in BAD_SUBMISSIONS],
)
def test_a_malformed_submission_is_refused_with_its_message(
    data: bytes, fragments: list[str]
) -> None:
    with pytest.raises(evaluator.SubmissionError) as raised:
        evaluator.score(_key(), data)
    for fragment in fragments:
        assert fragment in str(raised.value)


@pytest.mark.parametrize(
    "data", [d for _, d, _ in BAD_SUBMISSIONS], ids=[n for n, _, _ in BAD_SUBMISSIONS]
)
def test_the_fast_road_leaves_every_malformed_file_to_the_careful_one(data: bytes) -> None:
    try:
        entries = decision.decode(TRACK, data, len(_key().asked))
    except evaluator.SubmissionError:
        return  # refused before either road
    assert decision.answers._fast_columns(_key().asked, entries) is None


_ODD_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    3,
    2.5,
    -1,
    -0.0,
    math.inf,
    math.nan,
    10**400,
    "yes",
    "",
    [1],
    {},
]


@st.composite
def _mostly_valid_entries(draw: st.DrawFn) -> list[Any]:
    """TINY_RUN in any order, with a few entries changed: a field dropped or given an odd
    value, an id repeated or unknown, an entry that is no object."""
    entries: list[Any] = [dict(e) for e in draw(st.permutations(TINY_RUN))]
    for _ in range(draw(st.integers(0, 3))):
        index = draw(st.integers(0, len(entries) - 1))
        change = draw(st.sampled_from(["drop", "odd", "id", "not-object"]))
        entry = entries[index]
        if not isinstance(entry, dict):
            continue
        field = draw(st.sampled_from(["example_id", "assist", "intervention_time_s"]))
        if change == "drop":
            entry.pop(field, None)
        elif change == "odd":
            entry[field] = draw(st.sampled_from(_ODD_VALUES))
        elif change == "id":
            entry["example_id"] = draw(st.sampled_from(["e01", "e99", 1, True]))
        else:
            entries[index] = draw(st.sampled_from(_ODD_VALUES))
    return entries


@settings(max_examples=300, deadline=None)
@given(_mostly_valid_entries())
def test_the_fast_road_takes_a_file_only_as_the_careful_one_reads_it(entries: list[Any]) -> None:
    asked = _key().asked
    fast = decision.answers._fast_columns(asked, entries)
    try:
        careful = decision.answers._careful_columns(asked, entries)
    except evaluator.SubmissionError:
        assert fast is None
        return
    assert fast is not None  # every file that scores takes the fast road
    ids, assists, times = fast
    assert (ids, assists) == (careful[0], careful[1])
    assert [None if t is None else float(t) for t in times] == careful[2]


def test_every_problem_of_a_file_is_reported_at_once() -> None:
    entries = [dict(e) for e in TINY_RUN[:-1]]  # e10 missing
    entries[0]["assist"] = "yes"
    entries[1]["intervention_time_s"] = -2
    entries[2]["example_id"] = "nope"
    entries.append(dict(TINY_RUN[3]))  # e04 twice
    with pytest.raises(evaluator.SubmissionError) as raised:
        evaluator.score(_key(), json.dumps(entries).encode())
    assert len(raised.value.problems) == 5, raised.value.problems
    assert str(raised.value).startswith("This submission cannot be scored (5 problems):\n- ")


def test_an_id_alias_on_every_entry_is_the_one_problem() -> None:
    renamed = [
        {("sample_id" if k == "example_id" else k): v for k, v in e.items()} for e in TINY_RUN
    ]
    with pytest.raises(evaluator.SubmissionError) as raised:
        evaluator.score(_key(), json.dumps(renamed).encode())
    assert raised.value.problems == (
        '10 entries use "sample_id" (e.g. the 1st, 2nd, 3rd, 4th, 5th, 6th, 7th, 8th, 9th, 10th '
        'entries); rename the field to "example_id"',
    )
    renamed[0] = dict(TINY_RUN[0])  # only some: the episodes left unanswered are named too
    with pytest.raises(evaluator.SubmissionError) as raised:
        evaluator.score(_key(), json.dumps(renamed).encode())
    assert raised.value.problems[1].startswith("9 episodes have no answer (e02, e03, ")


# --- malformed keys -----------------------------------------------------------------------------


def _key_with(index: int, **fields: Any) -> list[Row]:
    rows = [dict(r) for r in TINY]
    rows[index].update(fields)
    for name, value in fields.items():
        if value is _DROP:
            del rows[index][name]
    return rows


BAD_KEYS: list[tuple[str, list[Row], str]] = [
    (
        "unknown-assist-type",
        _key_with(0, assist_type="maybe"),
        "example_id 'e01': assist_type: expected one of safety, non_safety, none, got \"maybe\"",
    ),
    (
        "integer-id",
        _key_with(0, example_id=7),
        "example_id 7: example_id: Input should be a valid non-empty string",
    ),
    (
        "time-field-missing",
        _key_with(6, intervention_time_s=_DROP),
        "example_id 'e07': intervention_time_s: Field required (null on a no-assistance episode)",
    ),
    (
        "negative-time",
        _key_with(0, intervention_time_s=-1),
        "intervention_time_s: expected a number of seconds >= 0, or null; got -1",
    ),
    (
        "unknown-scenario",
        _key_with(0, scenario="kitchen"),
        "1 episode with an unknown scenario (e01); expected one of: multimodal_grounded, ",
    ),
    (
        "silent-scenario-needing-help",
        _key_with(6, assist_type="safety", intervention_time_s=2.0),
        "1 no_assistance episode whose assist_type is not none (e07); a no_assistance episode "
        "needs no assistance: write none",
    ),
    (
        "assistance-scenario-needing-none",
        _key_with(0, assist_type="none", intervention_time_s=None),
        "1 episode of an assistance scenario whose assist_type is none (e01); assist_type is none "
        "exactly on the no_assistance episodes",
    ),
    (
        "assistance-without-time",
        _key_with(1, intervention_time_s=None),
        "1 assistance episode without an intervention_time_s (e02); each needs its reviewed "
        "earliest useful time in seconds",
    ),
    (
        "silence-with-time",
        _key_with(7, intervention_time_s=4.0),
        "1 no-assistance episode with an intervention_time_s (e08); write null",
    ),
    ("duplicate-id", _key_with(1, example_id="e01"), "1 duplicate example_id (e01)"),
    (
        "absent-scenario",
        [r for r in TINY if r["scenario"] != "text_grounded"],
        "no episodes of scenario text_grounded",
    ),
    ("id-missing", _key_with(2, example_id=_DROP), "the 3rd episode: example_id: Field required"),
]


@pytest.mark.parametrize(
    ("rows", "message"), [(r, m) for _, r, m in BAD_KEYS], ids=[name for name, _, _ in BAD_KEYS]
)
def test_a_malformed_key_is_refused_with_its_message(rows: list[Row], message: str) -> None:
    with pytest.raises(evaluator.AnswerKeyError) as raised:
        evaluator.load_answer_key(TRACK, _jsonl(rows))
    assert message in str(raised.value)


def test_a_key_that_is_not_json_lines_is_refused() -> None:
    with pytest.raises(evaluator.AnswerKeyError, match=r"the answer key is line 2 is not valid"):
        evaluator.load_answer_key(TRACK, _jsonl(TINY[:1]) + b"{oops\n")


def test_size_problems_name_the_scenarios_of_the_wrong_size() -> None:
    assert evaluator.size_problems(DEMO_KEY) == []
    (problem,) = evaluator.size_problems(_key())
    assert problem.startswith(
        "6 of the 6 scenario groups differ from the spec: multimodal_grounded has 2 (expected 116)"
    )


# --- records of the decision track ----------------------------------------------------------


def _record(result: evaluator.ScoreResult | None = None) -> ledger.Record:
    return ledger.rescored_record(
        result or _score(TINY_RUN),
        BENCH,
        TRACK,
        team_name="T",
        method_name="M",
        model_size="7B",
        uses_external=False,
        uses_frames="full-video",
    )


def test_a_decision_record_keeps_its_intervals_and_round_trips() -> None:
    record = _record()
    again = ledger.parse_record(record.to_json(), BENCH, TRACK)
    assert again == record
    assert (
        again.intervals is not None
        and again.intervals["decision_f1"] == _score(TINY_RUN).intervals["decision_f1"]
    )
    assert "intervals" in json.loads(record.to_json())


def test_a_multiple_choice_record_has_no_intervals_field() -> None:
    memory = spec.load_benchmark("egomemreason")
    track = memory.track()
    key = evaluator.load_answer_key(track, memory.demo_key(track).read_bytes())
    result = evaluator.score(key, (memory.demo_dir / "sample_submission.json").read_bytes())
    record = ledger.rescored_record(
        result,
        memory,
        track,
        team_name="T",
        method_name="M",
        model_size="",
        uses_external=None,
        uses_frames=None,
    )
    assert record.intervals is None and "intervals" not in json.loads(record.to_json())


def test_a_record_without_timing_means_omits_them() -> None:
    record = _record(_score(_run(False)))
    assert "timing_mae_s" not in record.metrics
    ledger.check_record(ledger.Record.from_json(record.to_json()), BENCH, TRACK)


def _tampered(change: Any) -> bytes:
    payload = json.loads(_record().to_json())
    change(payload)
    return json.dumps(payload).encode()


TAMPERED: list[tuple[str, Any, str]] = [
    (
        "precision-off",
        lambda p: p["metrics"].update(decision_precision=0.5),
        "metrics do not match counts for decision_precision",
    ),
    (
        "f1-off",
        lambda p: p["metrics"].update(decision_f1=0.7),
        "metrics do not match counts for decision_f1",
    ),
    (
        "ratio-above-1",
        lambda p: p["metrics"].update(decision_f1=1.5),
        "metrics: must be ratios between 0 and 1 (decision_f1)",
    ),
    (
        "accuracy-above-1",  # a 0-1 ratio, as every proportion of the track (scorer 1.2)
        lambda p: p["metrics"].update(decision_accuracy=1.7),
        "metrics: must be ratios between 0 and 1 (decision_accuracy)",
    ),
    (
        "count-not-whole",
        lambda p: p["metrics"].update(timing_n=2.5),
        "metrics: must be whole numbers >= 0 (timing_n)",
    ),
    (
        "timing-mean-dropped",
        lambda p: p["metrics"].pop("timing_mae_s"),
        "timing_mae_s and timing_signed_s must be absent exactly when timing_n is 0",
    ),
    (
        "timing-counts-off",
        lambda p: p["metrics"].update(timing_missing=3.0),
        "do not add up to the 4 TP episodes of the counts",
    ),
    (
        "paper-metric-in-a-rescored-row",
        lambda p: p["metrics"].update(paper_f1=0.5),
        "metrics: must have exactly the keys decision_macro_f1, decision_f1, ",
    ),
    (
        "intervals-dropped",
        lambda p: p.pop("intervals"),
        "a re-scored decision record keeps its intervals",
    ),
    (
        "wilson-off",
        lambda p: p["intervals"].update(decision_recall=[0.1, 0.9]),
        "intervals do not match counts for decision_recall",
    ),
    (
        "interval-dropped",
        lambda p: p["intervals"].pop("safety_fn_rate"),
        "intervals: must have exactly the keys",
    ),
    (
        "count-for-f1",
        lambda p: p["counts"].update(decision_f1={"correct": 1, "total": 2}),
        "counts: unexpected decision_f1",
    ),
]


@pytest.mark.parametrize(
    ("change", "message"), [(c, m) for _, c, m in TAMPERED], ids=[name for name, _, _ in TAMPERED]
)
def test_a_tampered_decision_record_is_refused(change: Any, message: str) -> None:
    with pytest.raises(ledger.RecordError) as raised:
        ledger.parse_record(_tampered(change), BENCH, TRACK)
    assert message in str(raised.value)


def _paper(**metrics: float) -> ledger.Record:
    return ledger.Record(
        benchmark=BENCH.id,
        track=TRACK.id,
        id="00000000-0000-4000-8000-000000000007",
        created_at="2026-06-01T00:00:00Z",
        source="paper",
        team_name="Authors",
        method_name="Model-8B",
        model_size="8B",
        uses_external=None,
        uses_frames="sampled-frames",
        metrics=metrics,
        counts=None,
        n_abstained=None,
        provenance=None,
    )


def test_a_paper_row_carries_the_paper_s_columns_and_its_ranking_metric() -> None:
    row = _paper(paper_f1=0.55, paper_signed_s=-1.7, **{"paper_f1/no_assistance": 0.3})
    ledger.check_record(row, BENCH, TRACK)
    assert ledger.ranking_value(row, TRACK) == 0.55
    assert ledger.metric_interval(row, TRACK, "paper_f1") is None
    with pytest.raises(ledger.RecordError, match=r"missing paper_f1"):
        ledger.check_record(_paper(decision_f1=0.55), BENCH, TRACK)
    with pytest.raises(ledger.RecordError, match=r"must be ratios between 0 and 1 \(paper_f1\)"):
        ledger.check_record(_paper(paper_f1=55.0), BENCH, TRACK)
    assert (
        ledger.commit_message(row, TRACK)
        == "Add Model-8B by Authors (paper-reported, paper f1 0.550)"
    )


def test_the_helpers_give_a_rescored_row_s_ranking_value_and_kept_intervals() -> None:
    record = _record()
    # the ranking metric: the macro F1 over both decisions (8/11 assisting, 6/9 silent)
    assert ledger.ranking_value(record, TRACK) == pytest.approx((8 / 11 + 6 / 9) / 2)
    assert (
        ledger.metric_interval(record, TRACK, "decision_f1")
        == _score(TINY_RUN).intervals["decision_f1"]
    )
    assert ledger.metric_interval(record, TRACK, "timing_mae_s") is None
    assert ledger.commit_message(record, TRACK) == "Add M by T (re-scored, macro f1 0.697)"


# --- the module -------------------------------------------------------------------------------


def test_decision_imports_nothing_with_io() -> None:
    folder = ROOT / "evaluator" / "kinds" / "decision"
    trees = [ast.parse(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.py"))]
    imported: set[str] = set()
    for node in (n for tree in trees for n in ast.walk(tree)):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert "evaluator" in imported  # the walk sees the imports at all
    assert not imported & {
        "gradio",
        "huggingface_hub",
        "ledger",
        "app",
        "requests",
        "httpx",
        "urllib",
        "socket",
        "os",
        "pathlib",
        "time",
        "datetime",
    }


def test_the_docstring_defines_every_metric_it_computes() -> None:
    doc = " ".join((decision.__doc__ or "").split())
    for key in decision.METRICS:
        assert f"``{key}``" in doc, key
    assert "own definitions" in doc and "not public" in doc
    assert "2,000" in doc and str(decision.BOOTSTRAP_RESAMPLES) == "2000"
    assert "50th to the 1,950th" in doc
    assert "not a closed form" in doc and "multinomial" in doc
    assert "numpy.random.RandomState(BOOTSTRAP_SEED).multinomial(n," in doc
    assert (decision.LOWER_RANK, decision.UPPER_RANK) == (50, 1950)


def test_each_bootstrap_draws_from_a_generator_seeded_afresh_in_every_thread() -> None:
    """The generator is kept per thread and seeded again for each bootstrap (making one cost
    a twentieth of a score): whatever ran before in the thread, and in any thread, each
    interval is the one a new ``RandomState(BOOTSTRAP_SEED)`` draws."""

    def fresh(tp: int, fn: int, fp: int, tn: int) -> tuple[float, float]:
        return _multinomial(tp, fn, fp, tn) if tp + fn + fp else (0.0, 0.0)

    def each() -> list[tuple[float, float]]:
        np.random.RandomState(7).normal(size=3)  # another generator's draws change nothing
        return [decision.f1_interval(*counts) for counts in REFERENCE_COUNTS * 2]

    expected = [fresh(*counts) for counts in REFERENCE_COUNTS * 2]
    assert each() == expected
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        assert all(got == expected for got in pool.map(lambda _: each(), range(8)))
