"""Scoring a decision submission: each episode a TP, FN, FP or TN, the proportions, the timing
errors, the intervals (the two F1s' by a seeded bootstrap, drawn as multinomial counts), and a
record's numbers checked. The definitions are the kind's docstring's."""

from __future__ import annotations

import math
import operator
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from errors import KeyedRefusal
from evaluator.disclosure import fewest, too_few, withheld_reason
from evaluator.kinds.base import Summary
from evaluator.kinds.decision.answers import Prediction, columns, millisecond_times
from evaluator.kinds.decision.key import DecisionKey
from evaluator.results import Count, ScoreResult
from evaluator.stats import wilson_bounds
from evaluator.submissions import in_order
from spec import DecisionTrack
from spec.decision import BY_SCENARIO, NON_SAFETY, NONE, NULLABLE, SAFETY

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20260601  # part of the definition: changing it changes every F1 interval
LOWER_RANK, UPPER_RANK = 50, 1950  # of the sorted resampled F1s: the 2.5 % and 97.5 % points
#: The proportions with no count of their own, each from the four outcomes, each with a
#: bootstrap interval: the assist-class F1 and the macro F1 over both decisions.
BOOTSTRAPPED = ("decision_f1", "decision_macro_f1")
#: The proportions, each with its Wilson interval (the BOOTSTRAPPED with their bootstrap one).
PROPORTIONS = (
    *BOOTSTRAPPED,
    "decision_precision",
    "decision_recall",
    "safety_fn_rate",
    "non_safety_fn_rate",
    "no_assist_fp_rate",
    BY_SCENARIO,
)


@dataclass(frozen=True)
class Tally:
    """The outcomes of every episode, and the timing errors of the timed TP episodes."""

    tp: int
    fn: int
    fp: int
    tn: int
    right: Mapping[str, tuple[int, int]]  # scenario value -> (right decisions, episodes)
    missed: Mapping[str, tuple[int, int]]  # safety, non_safety -> (FN, episodes)
    alarms: tuple[int, int]  # (FP, no-assistance episodes)
    errors: tuple[float, ...]  # predicted - reviewed, over timed TP episodes, in key order
    untimed: int  # TP episodes without a predicted time
    abstained: int  # episodes whose assist is null
    assisted: int  # episodes whose assist is true
    timed_asked: int  # of those, the ones given a time


def tally(key: DecisionKey, predictions: Mapping[int | str, Prediction]) -> Tally:
    """Sort every episode into TP, FN, FP or TN and collect the timing errors."""
    guesses = [predictions[i] for i in key.ids]
    return tally_columns(key, [g.assist for g in guesses], seconds([g.time_s for g in guesses]))


def seconds(times: Sequence[int | float | None]) -> np.ndarray:
    """Times as numpy's floats (each as ``float`` makes it), NaN where none is given.

    >>> seconds([1, None, 2.5]).tolist()[::2], bool(np.isnan(seconds([None])[0]))
    ([1.0, 2.5], True)
    """
    # None made NaN first: numpy takes ~40% longer to convert a list that holds None.
    return np.array([math.nan if t is None else t for t in times], np.float64)


def tally_columns(key: DecisionKey, assists: Sequence[bool | None], times: np.ndarray) -> Tally:
    """``tally`` of the predictions as columns in key order (each episode's assist, and its
    time as ``seconds`` has it), counted over all episodes at once, then cell by cell
    (``key.cells``)."""
    cells = key.cells
    assisting = np.fromiter(map(operator.is_, assists, repeat(True)), np.bool_, len(assists))
    timed = ~np.isnan(times)
    assisted = np.bincount(cells.of[assisting], minlength=len(cells.kinds)).tolist()
    outcomes = {"tp": 0, "fn": 0, "fp": 0, "tn": 0}
    right: dict[str, list[int]] = {g.value: [0, 0] for g in key.track.scenarios.groups}
    missed = {SAFETY: [0, 0], NON_SAFETY: [0, 0]}
    for (scenario, assist_type), size, yes in zip(cells.kinds, cells.sizes, assisted, strict=True):
        if assist_type != NONE:  # an assistance episode: TP when assisted, else FN
            outcomes["tp"] += yes
            outcomes["fn"] += size - yes
            missed[assist_type][0] += size - yes
            missed[assist_type][1] += size
            right[scenario][0] += yes
        else:
            outcomes["fp"] += yes
            outcomes["tn"] += size - yes
            right[scenario][0] += size - yes
        right[scenario][1] += size
    # predicted - reviewed over the TP episodes both time (NaN: no time), in key order
    both = cells.timed_needs & assisting & timed
    errors = tuple((times[both] - cells.times[both]).tolist())
    return Tally(
        tp=outcomes["tp"],
        fn=outcomes["fn"],
        fp=outcomes["fp"],
        tn=outcomes["tn"],
        right={k: (v[0], v[1]) for k, v in right.items()},
        missed={k: (v[0], v[1]) for k, v in missed.items()},
        alarms=(outcomes["fp"], outcomes["fp"] + outcomes["tn"]),
        errors=errors,
        untimed=outcomes["tp"] - len(errors),
        abstained=assists.count(None),
        assisted=int(np.count_nonzero(assisting)),
        timed_asked=int(np.count_nonzero(assisting & timed)),
    )


def _is_proportion(key: str) -> bool:
    return key in PROPORTIONS or key.startswith(f"{BY_SCENARIO}/")


def _scale(track: DecisionTrack, metric: str) -> float:
    return 100.0 if track.display[metric] == "percent" else 1.0


def _f1(tp: int, fn: int, fp: int) -> float:
    denominator = 2 * tp + fp + fn
    return 2 * tp / denominator if denominator else 0.0


def _outcome_values(tp: int, fn: int, fp: int, tn: int) -> dict[str, float]:
    """The BOOTSTRAPPED proportions (0-1) of four outcomes: the F1 of assisting, and the mean
    of it and the F1 of staying silent (silence's TP is a TN; its FN and FP are swapped)."""
    assist = _f1(tp, fn, fp)
    return {"decision_f1": assist, "decision_macro_f1": (assist + _f1(tn, fp, fn)) / 2}


def counts_of(track: DecisionTrack, t: Tally) -> dict[str, Count]:
    """The count of every proportion but the BOOTSTRAPPED, in display order; none where nothing
    is counted."""
    pairs = {
        "decision_precision": (t.tp, t.tp + t.fp),
        "decision_recall": (t.tp, t.tp + t.fn),
        "safety_fn_rate": t.missed[SAFETY],
        "non_safety_fn_rate": t.missed[NON_SAFETY],
        "no_assist_fp_rate": t.alarms,
        BY_SCENARIO: (t.tp + t.tn, t.tp + t.fn + t.fp + t.tn),
    }
    pairs.update({track.scenario_key(g): t.right[g.value] for g in track.scenarios.groups})
    return {
        k: Count(correct=pairs[k][0], total=pairs[k][1])
        for k in track.metric_keys
        if k in pairs and pairs[k][1] > 0
    }


def _outcomes(counts: Mapping[str, Count]) -> tuple[int, int, int, int]:
    """(TP, FN, FP, TN) from the counts of recall, precision and accuracy."""
    recall, precision = counts.get("decision_recall"), counts.get("decision_precision")
    accuracy = counts.get(BY_SCENARIO)
    tp = recall.correct if recall else 0
    fn = recall.total - tp if recall else 0
    fp = precision.total - tp if precision else 0
    tn = accuracy.correct - tp if accuracy else 0
    return tp, fn, fp, tn


def proportions(track: DecisionTrack, counts: Mapping[str, Count]) -> dict[str, float]:
    """Every proportion (the BOOTSTRAPPED included) from the counts, in its display; 0 where
    not counted."""
    out = {}
    outcomes = _outcome_values(*_outcomes(counts))
    for key in track.metric_keys:
        if key in outcomes:
            out[key] = _scale(track, key) * outcomes[key]
        elif key in counts:
            count = counts[key]
            out[key] = _scale(track, key) * count.correct / count.total
        elif _is_proportion(key):
            out[key] = 0.0
    return out


def bootstrap_intervals(tp: int, fn: int, fp: int, tn: int) -> dict[str, tuple[float, float]]:
    """The bootstrap percentile interval (0-1) of each BOOTSTRAPPED proportion for these
    outcomes (the kind's docstring): each resample's four counts drawn from the multinomial
    distribution of ``n`` episodes, all 2,000 at once; both from the same resamples."""
    n = tp + fn + fp + tn
    if n == 0:
        return dict.fromkeys(BOOTSTRAPPED, (0.0, 0.0))
    draws = _seeded().multinomial(n, [tp / n, fn / n, fp / n, tn / n], size=BOOTSTRAP_RESAMPLES)
    assist = _resampled_f1s(draws[:, 0], draws[:, 1], draws[:, 2])
    silent = _resampled_f1s(draws[:, 3], draws[:, 2], draws[:, 1])
    out = {}
    for key, values in (("decision_f1", assist), ("decision_macro_f1", (assist + silent) / 2)):
        values.sort()
        out[key] = (float(values[LOWER_RANK - 1]), float(values[UPPER_RANK - 1]))
    return out


#: Each thread's bootstrap generator (``_seeded``).
_GENERATORS = threading.local()


def _seeded() -> np.random.RandomState:
    """numpy's legacy generator as ``RandomState(BOOTSTRAP_SEED)`` makes it, drawing the same
    numbers: this thread's own, seeded again. Making one draws entropy from the system before
    the seed replaces it (0.1 ms, a twentieth of a score); seeding one again takes 2 us."""
    generator: np.random.RandomState | None = getattr(_GENERATORS, "generator", None)
    if generator is None:
        generator = _GENERATORS.generator = np.random.RandomState(BOOTSTRAP_SEED)
    else:
        generator.seed(BOOTSTRAP_SEED)
    return generator


def _resampled_f1s(tp: np.ndarray, fn: np.ndarray, fp: np.ndarray) -> np.ndarray:
    """Each resample's F1 of one class from its columns of counts (0 where 2 TP + FN + FP is)."""
    doubled = 2 * tp
    denominators = doubled + fn + fp
    out: np.ndarray = np.divide(
        doubled, denominators, out=np.zeros(len(tp)), where=denominators > 0
    )
    return out


def f1_interval(tp: int, fn: int, fp: int, tn: int) -> tuple[float, float]:
    """The bootstrap percentile interval of the assist-class F1 (0-1) for these outcomes."""
    return bootstrap_intervals(tp, fn, fp, tn)["decision_f1"]


def wilson_intervals(
    track: DecisionTrack, counts: Mapping[str, Count]
) -> dict[str, tuple[float, float]]:
    """The Wilson interval of every proportion but the BOOTSTRAPPED, in its display (the whole
    range when nothing is counted)."""
    out = {}
    for key in proportions(track, counts):
        if key in BOOTSTRAPPED:
            continue
        count = counts.get(key, Count(correct=0, total=0))
        low, high = wilson_bounds(count.correct, count.total)
        scale = _scale(track, key)
        out[key] = (scale * low, scale * high)
    return out


def score(key: DecisionKey, data: bytes, sha256: str) -> ScoreResult:
    """Score the raw bytes of a submission against a decision key; SubmissionError if it cannot
    be scored: ``validate``'s, or a KeyedRefusal when its times look like milliseconds against
    the reviewed times (``millisecond_times``). ``sha256``: the file's
    ``submission_sha256`` (``evaluator.score`` takes it when its caller has not)."""
    track = key.track
    ids, assists_read, times_read = columns(key.asked, data)
    # in key order, as the tally counts
    assists, times_given = in_order(ids, key.ids, assists_read, times_read)
    times = seconds(times_given)
    wrong_unit = millisecond_times(times, key.cells.times, track.min_rows)
    if wrong_unit is not None:
        raise KeyedRefusal([wrong_unit])
    t = tally_columns(key, assists, times)
    counts = counts_of(track, t)
    values = proportions(track, counts)
    timed = len(t.errors)
    values["timing_n"] = float(timed)
    values["timing_missing"] = float(t.untimed)
    if timed:
        values["timing_mae_s"] = math.fsum(map(abs, t.errors)) / timed
        values["timing_signed_s"] = math.fsum(t.errors) / timed
    wilson = wilson_intervals(track, counts)
    for metric, (low, high) in bootstrap_intervals(t.tp, t.fn, t.fp, t.tn).items():
        scale = _scale(track, metric)
        wilson[metric] = (scale * low, scale * high)
    return ScoreResult(
        metrics={k: values[k] for k in track.metric_keys if k in values},
        counts=counts,
        intervals={k: wilson[k] for k in track.metric_keys if k in wilson},
        n_questions=len(key),
        n_abstained=t.abstained,
        submission_sha256=sha256,
        answer_key_sha256=key.sha256,
        key_version=key.key_version,
        scorer_version=track.scorer_version,
        withheld=withheld(track, len(key), t.assisted, t.timed_asked, timed),
    )


#: The rows a decision metric's value turns on, as a withheld metric's reason names them.
_ASSISTED = ("assisted episode", "assisted episodes")
_NOT_ASSISTED = ("episode not assisted", "episodes not assisted")
_TIMED = ("timed episode", "timed episodes")
_UNTIMED = ("assisted episode without a time", "assisted episodes without a time")
_TIMING = ("timing_n", "timing_missing")


def withheld(
    track: DecisionTrack, episodes: int, assisted: int, timed_asked: int, timed: int
) -> dict[str, str]:
    """The metrics a visitor is not shown (``evaluator.disclosure``), each with why, in display
    order: from the file's ``assisted`` episodes, ``timed_asked`` of them with a time, and the
    ``timed`` TP episodes the timing means are over.

    Every count of the decisions (TP, FP, FN, each scenario's right decisions, each assist
    type's misses) is the number of the file's assisted episodes that fall in a set of the key,
    or that set's size less those of the episodes not assisted: it turns on the fewer of the
    two (a file that assists on one episode reads that episode's scenario and assist type in
    the per-scenario counts). So every decision metric is withheld when either side has
    fewer than ``min_rows`` episodes (but some). ``timing_n`` and ``timing_missing`` split
    the TP episodes into those the file gives a time and the others: they turn on the fewer of
    the two as well. The timing means turn on the ``timing_n`` episodes they average, and are
    withheld with ``timing_n`` when it is (absent, they would tell that it is 0). The visitor
    knows each of these sides from their own file, and ``timing_n`` when it is shown, so
    withholding tells nothing more.
    """
    limit = track.min_rows
    out: dict[str, str] = {}
    sides = fewest((assisted, episodes - assisted))
    if too_few(sides, limit):
        nouns = _ASSISTED if sides == assisted else _NOT_ASSISTED
        return dict.fromkeys(track.metric_keys, withheld_reason(sides, nouns, limit))
    split = fewest((timed_asked, assisted - timed_asked))
    if too_few(split, limit):
        nouns = _TIMED if split == timed_asked else _UNTIMED
        reason = withheld_reason(split, nouns, limit)
        out.update(dict.fromkeys(_TIMING, reason))
        out.update(dict.fromkeys(NULLABLE, reason))
    elif too_few(timed, limit):
        out.update(dict.fromkeys(NULLABLE, withheld_reason(timed, _TIMED, limit)))
    return {k: out[k] for k in track.metric_keys if k in out}


def answers_sha256(track: DecisionTrack, data: bytes) -> str | None:
    """A decision file's answers have no digest of their own (only its bytes' sha256)."""
    return None


def chance(key: DecisionKey) -> float | None:
    """A decision track has no chance rate: its floors are its reference policies, such as the
    constant ones, which its spec declares (``DecisionTrack.reference_of``)."""
    return None


def chance_warning(track: DecisionTrack, result: ScoreResult) -> str | None:
    """A decision track has no chance rate, so no warning."""
    return None


def summary(track: DecisionTrack, result: ScoreResult) -> Summary:
    """A score in words: the ranking metric, the episodes, its (bootstrap) interval, the
    accuracy, the abstentions and the key version."""
    ranking = track.ranking
    display = track.display[ranking]
    facts = [f"{result.n_questions} episodes"]
    if ranking in result.withheld:
        facts.append(f"{track.labels[ranking]} {result.withheld[ranking]}")
    else:
        low, high = result.intervals[ranking]
        facts.append(f"95 % CI {track.interval_text(display, low, high)} (bootstrap)")
    accuracy = track.by_scenario
    if accuracy is not None and accuracy in result.metrics:
        shown = track.format_metric(accuracy, result.metrics[accuracy])
        facts.append(f"{track.labels[accuracy]} {shown}")
    facts.append(
        f"{result.n_abstained} episode{'s' if result.n_abstained != 1 else ''} "
        "without an answer (scored as not assisting)"
    )
    if result.key_version:
        facts.append(f"answer key {result.key_version}")
    value = (
        "withheld" if ranking in result.withheld else track.shown(display, result.metrics[ranking])
    )
    headline = f"{track.title} {track.labels[ranking]}: {value}"
    return Summary(headline=headline, facts=tuple(facts))


#: The columns of ``score_rows``' table, each with its width on the Score tab (a phone shows
#: every column).
SCORE_COLUMNS: Mapping[str, str] = {
    "Metric": "38%",
    "Value": "19%",
    "Count": "20%",
    "95% CI": "23%",
}


def score_rows(track: DecisionTrack, result: ScoreResult) -> list[dict[str, str | int]]:
    """A row per metric in display order: its value as the spec shows it, its count (episodes
    counted of episodes), its interval; "—" where there is none (F1 has no count, the timing
    metrics no interval, the timing means no value when nothing was timed); "withheld" and why
    for a metric a visitor is not shown (``evaluator.disclosure``)."""
    rows: list[dict[str, str | int]] = []
    for key in track.metric_keys:
        if key in result.withheld:
            why = result.withheld[key].removeprefix("withheld: ")
            rows.append(
                {"Metric": track.names[key], "Value": "withheld", "Count": "—", "95% CI": why}
            )
            continue
        display = track.display[key]
        count = result.counts.get(key)
        interval = result.intervals.get(key)
        rows.append(
            {
                "Metric": track.names[key],
                "Value": track.shown(display, result.metrics.get(key)),
                "Count": "—" if count is None else f"{count.correct} of {count.total}",
                "95% CI": "—" if interval is None else track.interval_text(display, *interval),
            }
        )
    return rows


def counts_problems(track: DecisionTrack, counts: Mapping[str, Count]) -> list[str]:
    """What is wrong with a re-scored record's counts on their own: a count of a metric that
    has none (only the proportions other than the two F1s have counts)."""
    counted = {k for k in track.metric_keys if _is_proportion(k)} - set(BOOTSTRAPPED)
    extra = [k for k in counts if k not in counted]
    if not extra:
        return []
    return [
        f"counts: unexpected {', '.join(extra)} (only the proportions other than the two F1s "
        "have counts)"
    ]


def record_problems(
    track: DecisionTrack,
    metrics: Mapping[str, float],
    counts: Mapping[str, Count],
    intervals: Mapping[str, tuple[float, float]] | None,
) -> list[str]:
    """Where a re-scored record's numbers do not follow from its counts: every proportion
    (the two F1s from the outcomes), every Wilson interval, and the timing metrics' presence.

    A bootstrap interval is only checked to lie within its range (recomputing it takes the
    scorer's time; ``scripts/reproduce_row.py`` compares it bit for bit).
    """
    problems = counts_problems(track, counts)
    if problems:
        return problems
    expected = proportions(track, counts)
    off = [
        k
        for k, v in expected.items()
        if k in metrics and not math.isclose(metrics[k], v, rel_tol=1e-9, abs_tol=1e-9)
    ]
    if off:
        problems.append(f"metrics do not match counts for {', '.join(off)}")
    tp, _, _, _ = _outcomes(counts)
    timed, untimed = metrics.get("timing_n"), metrics.get("timing_missing")
    if timed is not None and untimed is not None and timed + untimed != tp:
        problems.append(
            f"timing_n ({timed:g}) and timing_missing ({untimed:g}) do not add up "
            f"to the {tp} TP episodes of the counts"
        )
    means = sorted(k for k in NULLABLE if k in metrics)
    if timed is not None and means != ([] if timed == 0 else sorted(NULLABLE)):
        problems.append(
            f"{' and '.join(sorted(NULLABLE))} must be absent exactly when "
            f"timing_n is 0 (timing_n {timed:g}, present: "
            f"{', '.join(sorted(means)) or 'none'})"
        )
    if intervals is None:
        return problems
    missing = [k for k in expected if k not in intervals]
    extra = sorted(k for k in intervals if k not in expected)
    if missing or extra:
        found = ([f"missing {', '.join(missing)}"] if missing else []) + (
            [f"unexpected {', '.join(extra)}"] if extra else []
        )
        problems.append(
            f"intervals: must have exactly the keys {', '.join(expected)} ({'; '.join(found)})"
        )
        return problems
    wilson = wilson_intervals(track, counts)
    wrong = [
        k
        for k, v in wilson.items()
        if not all(
            math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
            for a, b in zip(intervals[k], v, strict=True)
        )
    ]
    for metric in BOOTSTRAPPED:
        low, high = intervals[metric]
        if not 0 <= low <= high <= _scale(track, metric):
            wrong.append(metric)
    if wrong:
        problems.append(f"intervals do not match counts for {', '.join(wrong)}")
    return problems
