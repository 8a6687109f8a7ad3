"""The numbers of a track scored as accuracies, whatever its kind reads (``spec.accuracy``):
from the counts of its groups, every metric of its tree (micro, macro), their intervals, what a
visitor is not shown of them, a record's numbers checked, and a score in words and as a table.

A kind counts its rows right and wrong per group (``evaluator.kinds.multiple_choice``,
``evaluator.kinds.short_answer``, whose docstrings define their metrics); the rest is here.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence

from evaluator.disclosure import too_few, withheld_reason
from evaluator.kinds.base import Summary
from evaluator.messages import MAX_EXAMPLES, counted
from evaluator.results import Count, ScoreResult
from evaluator.stats import mean_interval, wilson_interval
from spec import AccuracyTrack

#: The rows a metric's value turns on, as a withheld metric's reason names them.
TOLD_ROWS = ("answered question", "answered questions")


def withheld(track: AccuracyTrack, told: Mapping[str, int], told_all: int) -> dict[str, str]:
    """The metrics a visitor is not shown (``evaluator.disclosure``), each with why, in display
    order: ``told`` gives each group's rows whose outcome the key decides (``told_all`` all
    of them).

    Those rows are the file's answered questions: an abstention scores 0 whatever the key says,
    so a group's count over one answered question and 99 abstentions is that one question's
    outcome. Counting all the group's questions instead would let a file that answers one
    question per group read each one's outcome; the visitor knows which questions they
    answered, so withholding tells nothing more. An answered question no answer gets right (out
    of option) counts like any other: the public file does not flag it, so leaving it out told
    which questions are flagged ("computed over 19" of 20 answered; issue 30).

    A group is withheld when fewer than ``min_rows`` (but some) of its rows are told;
    ``overall``, the answerable overall and an aggregate when theirs are, or when one of their
    groups is (with the values shown they would give it: ``overall`` less every other group).
    """
    limit = track.min_rows
    out: dict[str, str] = {}
    everyone = track.group_keys
    for group in everyone:
        if too_few(told[group], limit):
            out[group] = withheld_reason(told[group], TOLD_ROWS, limit)
    answerable = track.answerable
    wholes = [(track.overall.key, told_all, everyone)]
    for summary in track.summaries:
        members = track.summary_members[summary.key]
        rows = told_all if summary is answerable else sum(told[m] for m in members)
        wholes.append((summary.key, rows, everyone if summary is answerable else members))
    for key, rows, members in wholes:
        given = next((m for m in members if m in out), None) if out else None
        if too_few(rows, limit):
            out[key] = withheld_reason(rows, TOLD_ROWS, limit)
        elif given is not None:
            out[key] = (
                f"withheld: with the values shown it would give {track.labels[given]}, which "
                "is withheld"
            )
    return {k: out[k] for k in track.metric_keys if k in out} if out else {}


def _macro(track: AccuracyTrack) -> Iterator[tuple[str, tuple[str, ...]]]:
    """Each macro aggregate's key and the group keys it is the mean of."""
    return ((k, m) for k, m in track.summary_members.items() if k in track.macro_keys)


def metrics_from_counts(track: AccuracyTrack, counts: Mapping[str, Count]) -> dict[str, float]:
    """Percent accuracy per key, unrounded; a macro aggregate is the mean of its groups'."""
    out = {k: 100 * c.correct / c.total for k, c in counts.items() if c.total > 0}
    for key, of in _macro(track):
        members = [out[m] for m in of if m in out]
        if key in out and len(members) == len(of):
            out[key] = sum(members) / len(members)
    return out


def intervals_from_counts(
    track: AccuracyTrack, counts: Mapping[str, Count]
) -> dict[str, tuple[float, float]]:
    """A 95 % interval per key: Wilson, or for a macro aggregate the normal approximation."""
    out = {k: wilson_interval(c.correct, c.total) for k, c in counts.items()}
    for key, of in _macro(track):
        members = [counts[m] for m in of if m in counts]
        if key not in counts or not members or any(c.total <= 0 for c in members):
            continue
        out[key] = mean_interval([(c.correct, c.total) for c in members])
    return out


def aggregate(
    track: AccuracyTrack,
    per_group: Mapping[str, Count],
    answerable: Count | None = None,
    overall: Count | None = None,
) -> dict[str, Count]:
    """Counts of every metric key, in display order, from the counts of every group.

    ``overall`` is given, or sums the first grouping (each grouping covers every row); an
    aggregate sums its members; ``answerable`` is the count over rows an answer can get right
    (``track.answerable``: not out of option).
    """
    if overall is None:
        first = [per_group[g.key] for g in track.groupings[0].groups]
        overall = Count(correct=sum(c.correct for c in first), total=sum(c.total for c in first))
    out: dict[str, Count] = {track.overall.key: overall}
    for summary in track.summaries:
        if summary is track.answerable:
            if answerable is not None:
                out[summary.key] = answerable
            continue
        members = [per_group[k] for k in track.summary_members[summary.key]]
        out[summary.key] = Count(
            correct=sum(c.correct for c in members), total=sum(c.total for c in members)
        )
    out.update({k: per_group[k] for k in track.group_keys})
    return out


def counts_problems(track: AccuracyTrack, counts: Mapping[str, Count]) -> list[str]:
    """What is wrong with a re-scored record's counts on their own: a count of every metric
    key of the track, and of nothing else."""
    missing = [k for k in track.metric_keys if k not in counts]
    extra = sorted(k for k in counts if k not in track.metric_keys)
    if not missing and not extra:
        return []
    found = ([f"missing {', '.join(missing)}"] if missing else []) + (
        [f"unexpected {', '.join(extra)}"] if extra else []
    )
    return [
        f"counts: must have exactly the keys {', '.join(track.metric_keys)} ({'; '.join(found)})"
    ]


def record_problems(
    track: AccuracyTrack,
    metrics: Mapping[str, float],
    counts: Mapping[str, Count],
    intervals: Mapping[str, tuple[float, float]] | None,
) -> list[str]:
    """Where a re-scored record's numbers do not follow from its counts: its counts' keys
    (``counts_problems``), then each metric its count's accuracy, a macro mean its groups'
    mean. A record keeps no intervals: they follow from its counts."""
    problems = counts_problems(track, counts)
    if problems:
        return problems
    recomputed = metrics_from_counts(track, counts)
    off = [
        k
        for k in track.metric_keys
        if not math.isclose(metrics[k], recomputed[k], rel_tol=1e-9, abs_tol=1e-9)
    ]
    return [f"metrics do not match counts for {', '.join(off)}"] if off else []


def summary(track: AccuracyTrack, result: ScoreResult, warning: str | None) -> Summary:
    """A score in words: the ranking metric, its count and interval, the abstentions, the key
    version, and ``warning`` (the kind's below-chance warning, if it has one)."""
    ranking = track.ranking
    abstained = (
        f"{result.n_abstained} question{'s' if result.n_abstained != 1 else ''} "
        "without an answer (scored as wrong)"
    )
    if ranking in result.withheld:
        value, facts = "withheld", [result.withheld[ranking], abstained]
    else:
        count, (low, high) = result.counts[ranking], result.intervals[ranking]
        value = track.format_metric(ranking, result.metrics[ranking])
        facts = [
            f"{count.correct} of {count.total} correct",
            f"95 % CI {track.interval_text('percent', low, high)}",
        ]
        facts.append(abstained)
    if result.key_version:
        facts.append(f"answer key {result.key_version}")
    return Summary(
        headline=f"{track.labels[ranking]}: {value}",
        facts=tuple(facts),
        warning=warning,
    )


#: The columns of ``score_rows``' table, each with its width on the Score tab (the split names
#: would take a phone's whole width if Gradio sized each column by its longest cell).
SCORE_COLUMNS: Mapping[str, str] = {
    "Split": "30%",
    "Accuracy (%)": "18%",
    "Correct": "16%",
    "Questions": "19%",
    "95% CI": "17%",
}


def score_rows(track: AccuracyTrack, result: ScoreResult) -> list[dict[str, str | int]]:
    """A row per metric of the track, by its long name, at the decimals the track shows a
    percent with (the numbers at full precision are the result's). A macro mean is not
    correct / questions, so its row shows no "Correct" count; a metric a visitor is not shown
    (``evaluator.disclosure``) shows "withheld" and why."""
    rows: list[dict[str, str | int]] = []
    for key in track.metric_keys:
        if key in result.withheld:
            rows.append(
                {
                    "Split": track.names[key],
                    "Accuracy (%)": "withheld",
                    "Correct": "—",
                    "Questions": track.sizes[key],
                    "95% CI": result.withheld[key].removeprefix("withheld: "),
                }
            )
            continue
        if key not in result.counts:
            continue
        count, (low, high) = result.counts[key], result.intervals[key]
        rows.append(
            {
                "Split": track.names[key],
                "Accuracy (%)": track.number("percent", result.metrics[key]),
                "Correct": "—" if key in track.macro_keys else count.correct,
                "Questions": count.total,
                "95% CI": track.interval_text("percent", low, high),
            }
        )
    return rows


def size_problems(track: AccuracyTrack, groups: Sequence[Sequence[str]]) -> list[str]:
    """Where a key's rows disagree with the sizes the spec declares (``groups``: each row's
    value of every grouping's field, in the track's order): each grouping's group sizes, or,
    without groupings, the rows ``overall.size`` declares."""
    problems = []
    if not track.groupings and len(groups) != track.total:
        problems.append(
            f"the key has {len(groups)} rows; the spec declares {track.total} (overall.size)"
        )
    for i, grouping in enumerate(track.groupings):
        found = Counter(row[i] for row in groups)
        has = [(g, sum(found[v] for v in g.values)) for g in grouping.groups]
        wrong = [f"{g.spelled} has {n} (expected {g.size})" for g, n in has if n != g.size]
        if wrong:
            problems.append(
                f"{len(wrong)} of the {len(grouping.groups)} {grouping.field} groups differ "
                f"from the spec: {'; '.join(wrong[:MAX_EXAMPLES])}"
            )
    return problems


def hidden_groups(track: AccuracyTrack, told: Mapping[str, int], told_all: int) -> list[str]:
    """What a consistent release would still hide from its visitors (``Kind.release_warnings``):
    a group with fewer questions a file can answer right (``told``: each group's, ``told_all``
    all of them; out-of-option rows aside) than the track's ``min_rows`` is withheld from the
    score of every file that answers any of them, and with it Overall and the aggregates that
    would give it away (``withheld``, on the rows of a file that answers every question). One
    warning a group, naming it and the fix."""
    hidden = withheld(track, told, told_all)
    limit = track.min_rows
    summaries = {s.key: s for s in track.summaries}
    everyone = {track.overall.key} | (
        {track.answerable.key} if track.answerable is not None else set()
    )
    warnings = []
    for group in track.groups:
        n = told[group.key]
        if group.key not in hidden or not too_few(n, limit):
            continue
        through = [
            track.labels[k]
            for k in hidden
            if k in everyone or (k in summaries and group.key in track.members(summaries[k]))
        ]
        flagged = f"; {group.size - n} more are out of option" if n != group.size else ""
        named = " and ".join(filter(None, (", ".join(through[:-1]), *through[-1:])))
        with_it = f", nor {named}, which would give it away," if through else ""
        warnings.append(
            f"min_rows = {limit} is above the {counted(n, 'question', 'questions')} of the group "
            f"{track.labels[group.key]} ({group.key}{flagged}): a visitor's score never shows "
            f"it{with_it} whenever the file answers any of its questions; lower min_rows to "
            f"{n} (the track {track.id}'s, in benchmark.toml) or merge the group with another "
            "(a group's value may be a list of values)"
        )
    return warnings
