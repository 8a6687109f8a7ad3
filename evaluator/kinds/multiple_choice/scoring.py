"""Scoring a multiple-choice submission: counts per group, the metric tree, intervals, chance,
and the answers as content (``answers_sha256``). The definitions are the kind's docstring's."""

from __future__ import annotations

import hashlib
import json
import math
import operator
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress, islice

from errors import SubmissionError
from evaluator.disclosure import too_few, withheld_reason
from evaluator.files import KEY_VERSION_FIELD, with_ids
from evaluator.kinds.base import Summary
from evaluator.kinds.multiple_choice.answers import columns, entries_of, keyless_letter
from evaluator.kinds.multiple_choice.key import AnswerKey, id_order
from evaluator.results import Count, ScoreResult
from evaluator.stats import mean_interval, wilson_interval
from evaluator.submissions import in_order
from spec import Aggregate, MultipleChoiceTrack

_DIGEST_SLICE = 4096  # answers joined per update of answers_sha256
ANSWERS_FORMAT = "answers/1"  # tags what answers_sha256 hashes, so it can change visibly
#: The rows a multiple-choice metric's value turns on, as a withheld metric's reason names them.
TOLD_ROWS = ("answered question", "answered questions")


def score(key: AnswerKey, data: bytes) -> ScoreResult:
    """Score the raw bytes of a submission against ``key`` (of its track); SubmissionError if
    it cannot be scored (``validate``'s, on the key's questions)."""
    track = key.track
    ids, read = columns(key.asked, data)
    (answers,) = in_order(ids, key.ids, read)  # in key order, as the key's columns are
    table = key.columns
    hits = list(map(operator.eq, answers, table.corrects))  # "" and None never equal
    # The rows whose outcome the key decides: answered, and not out of option (an abstention
    # and an out-of-option row are wrong whatever the key says).
    told = [bool(a) and c is not None for a, c in zip(answers, table.corrects, strict=True)]
    tallies, told_rows = [], {}
    for grouping, of, sizes in zip(track.groupings, table.groups, table.sizes, strict=True):
        right, open_ = Counter(compress(of, hits)), Counter(compress(of, told))
        tallies.append([(right[i], sizes[i]) for i in range(len(grouping.groups))])
        told_rows.update({g.key: open_[i] for i, g in enumerate(grouping.groups)})
    answerable = Count(correct=sum(hits), total=len(key) - table.corrects.count(None))
    abstained = answers.count("")
    per_group = {
        group.key: Count(correct=tally[0], total=tally[1])
        for grouping, level in zip(track.groupings, tallies, strict=True)
        for group, tally in zip(grouping.groups, level, strict=True)
    }
    counts = aggregate(track, per_group, answerable, Count(correct=sum(hits), total=len(key)))
    intervals = intervals_from_counts(track, counts)
    rate = chance(key)
    return ScoreResult(
        metrics=metrics_from_counts(track, counts),
        counts=counts,
        intervals=intervals,
        n_questions=len(key),
        n_abstained=abstained,
        submission_sha256=hashlib.sha256(data).hexdigest(),
        answer_key_sha256=key.sha256,
        key_version=key.key_version,
        scorer_version=track.scorer_version,
        chance=rate,
        below_chance=intervals[track.overall.key][1] < rate,
        answers_sha256=_key_digest(key, answers),
        withheld=withheld(track, told_rows, sum(told)),
    )


def withheld(track: MultipleChoiceTrack, told: Mapping[str, int], told_all: int) -> dict[str, str]:
    """The metrics a visitor is not shown (``evaluator.disclosure``), each with why, in display
    order: ``told`` gives each group's rows whose outcome the key decides (``told_all`` all
    of them).

    Those rows are the file's answered questions that are not out of option: an abstention and
    an out-of-option row score 0 whatever the key says, so a group's count over one answered
    question and 99 abstentions is that one question's outcome. Counting all the group's
    questions instead would let a file that answers one question per group read each one's
    outcome; the visitor knows which questions they answered, so withholding tells nothing
    more. A group is withheld when fewer than ``min_rows`` (but some) of its rows are told;
    ``overall``, the answerable overall and an aggregate when theirs are, or when one of their
    groups is (with the values shown they would give it: ``overall`` less every other group).
    """
    limit = track.min_rows
    out: dict[str, str] = {}
    for group in track.groups:
        if too_few(told[group.key], limit):
            out[group.key] = withheld_reason(told[group.key], TOLD_ROWS, limit)
    everyone = tuple(g.key for g in track.groups)
    answerable = track.out_of_option.answerable if track.out_of_option is not None else None
    wholes = [(track.overall.key, told_all, everyone)]
    for summary in track.summaries:
        members = track.members(summary)
        rows = told_all if summary is answerable else sum(told[m] for m in members)
        wholes.append((summary.key, rows, everyone if summary is answerable else members))
    for key, rows, members in wholes:
        given = next((m for m in members if m in out), None)
        if too_few(rows, limit):
            out[key] = withheld_reason(rows, TOLD_ROWS, limit)
        elif given is not None:
            out[key] = (
                f"withheld: with the values shown it would give {track.labels[given]}, which "
                "is withheld"
            )
    return {k: out[k] for k in track.metric_keys if k in out}


def _macro(track: MultipleChoiceTrack) -> dict[str, Aggregate]:
    return {a.key: a for a in track.summaries if a.aggregation == "macro"}


def metrics_from_counts(
    track: MultipleChoiceTrack, counts: Mapping[str, Count]
) -> dict[str, float]:
    """Percent accuracy per key, unrounded; a macro aggregate is the mean of its groups'."""
    out = {k: 100 * c.correct / c.total for k, c in counts.items() if c.total > 0}
    for key, aggregate in _macro(track).items():
        members = [out[m] for m in track.members(aggregate) if m in out]
        if key in out and len(members) == len(track.members(aggregate)):
            out[key] = sum(members) / len(members)
    return out


def intervals_from_counts(
    track: MultipleChoiceTrack, counts: Mapping[str, Count]
) -> dict[str, tuple[float, float]]:
    """A 95 % interval per key: Wilson, or for a macro aggregate the normal approximation."""
    out = {k: wilson_interval(c.correct, c.total) for k, c in counts.items()}
    for key, aggregate in _macro(track).items():
        members = [counts[m] for m in track.members(aggregate) if m in counts]
        if key not in counts or not members or any(c.total <= 0 for c in members):
            continue
        out[key] = mean_interval([(c.correct, c.total) for c in members])
    return out


def aggregate(
    track: MultipleChoiceTrack,
    per_group: Mapping[str, Count],
    answerable: Count | None = None,
    overall: Count | None = None,
) -> dict[str, Count]:
    """Counts of every metric key, in display order, from the counts of every group.

    ``overall`` is given, or sums the first grouping (each grouping covers every row); an
    aggregate sums its members; ``answerable`` is the count over rows that are not out of
    option.
    """
    if overall is None:
        first = [per_group[g.key] for g in track.groupings[0].groups]
        overall = Count(correct=sum(c.correct for c in first), total=sum(c.total for c in first))
    out: dict[str, Count] = {track.overall.key: overall}
    for summary in track.summaries:
        if track.out_of_option is not None and summary is track.out_of_option.answerable:
            if answerable is not None:
                out[summary.key] = answerable
            continue
        members = [per_group[k] for k in track.members(summary)]
        out[summary.key] = Count(
            correct=sum(c.correct for c in members), total=sum(c.total for c in members)
        )
    out.update({g.key: per_group[g.key] for g in track.groups})
    return out


def chance(key: AnswerKey) -> float:
    """What answering every question at random scores in expectation, in percent: the mean of
    ``1 / n`` over all rows (``n`` its option count), an out-of-option row counting 0. Exact
    (``AnswerKey.chance``, a fraction) and rounded once, to the float nearest it: 20.0 for
    five options everywhere, not a sum of floats' 19.99999999999929."""
    return float(100 * key.chance)


def chance_warning(track: MultipleChoiceTrack, result: ScoreResult) -> str | None:
    """The warning a below-chance result gets (None otherwise): what it scored, the chance
    rate, the likely cause and the fix. Plain text, one paragraph."""
    if not result.below_chance or result.chance is None:
        return None
    key = track.overall.key
    value = track.format_metric(key, result.metrics[key])
    interval = track.interval_text("percent", *result.intervals[key])
    version = result.key_version or "(unversioned)"
    return (
        f"{track.labels[key]} {value} (95 % CI {interval}) is significantly below chance, "
        f"{track.shown('percent', result.chance)} (what answering at random scores "
        "on these questions). The likely cause: the letters were chosen against another "
        f"version of the answer key than this one, key version {version}. Answer the "
        f"questions of the public file of key version {version} (its rows name their "
        f"{KEY_VERSION_FIELD}); a file made against older letters can be remapped by the "
        'maintainer with the README\'s command ("Rotating the answer key": '
        "scripts/reshuffle_options.py --remap-submission OLD.json --letter-map "
        "letter_map.json --out NEW.json)."
    )


def _digest(listed: Iterable[tuple[int | str, str | None]]) -> str:
    """sha256 of the answers as compact JSON, ``[format, [[id, letter or null], ...]]``, the
    pairs given sorted by id (``id_order``)."""
    text = json.dumps([ANSWERS_FORMAT, list(listed)], separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _key_digest(key: AnswerKey, answers: Sequence[str]) -> str:
    """``_digest`` of answers in key order ("" an abstention), its text joined from the key's
    ids as JSON (``KeyColumns.ids_json``): the same bytes, written without encoding each id."""
    table = key.columns
    closing = {letter: f"{json.dumps(letter)}]" for letter in set(answers)} | {"": "null]"}
    items = map(
        operator.add,
        table.ids_json,
        map(closing.__getitem__, map(answers.__getitem__, table.by_id)),
    )
    # Hashed a slice at a time: the same bytes as one joined text, without a copy of the
    # whole of it (a 100,000-question key's is ~3 MB) falling out of the processor's cache.
    digest = hashlib.sha256(f"[{json.dumps(ANSWERS_FORMAT)},[".encode("ascii"))
    for start in range(0, len(table.by_id), _DIGEST_SLICE):
        if start:
            digest.update(b",")
        digest.update(",".join(islice(items, _DIGEST_SLICE)).encode("ascii"))
    digest.update(b"]]")
    return digest.hexdigest()


def answers_sha256(track: MultipleChoiceTrack, data: bytes) -> str | None:
    """The ``answers_sha256`` of a submission, read without its key (the file of a row scored
    on another key version); None if it is not a list of entries that each name one id and
    a text or null prediction (a file that was scored never is).

    Equal to the scored result's for every file that scores: letters trimmed and
    upper-cased, null and "" both an abstention, other fields ignored; in any shape a
    submission takes (a list, JSON Lines, an object keyed by id) and an index answer format's
    integers. None for predictions written as option texts, which only the questions turn
    into letters.
    """
    try:
        decoded = entries_of(track, data, len(data), None)
    except SubmissionError:
        return None
    with_ids(track.fields, decoded)
    answers: dict[int | str, str | None] = {}
    for entry in decoded:
        if not isinstance(entry, dict) or track.fields.prediction not in entry:
            return None
        ident = entry.get(track.fields.id)
        letter = keyless_letter(track, entry[track.fields.prediction])
        if (
            not isinstance(ident, (int, str))
            or not track.fields.is_id(ident)
            or ident in answers
            or isinstance(letter, bool)
        ):
            return None
        answers[ident] = letter
    return _digest((i, answers[i]) for i in sorted(answers, key=id_order))


def counts_problems(track: MultipleChoiceTrack, counts: Mapping[str, Count]) -> list[str]:
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
    track: MultipleChoiceTrack,
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


def summary(track: MultipleChoiceTrack, result: ScoreResult) -> Summary:
    """A score in words: the ranking metric, its count and interval, the abstentions, the key
    version, and the below-chance warning if it has one."""
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
        warning=chance_warning(track, result),
    )


def score_rows(track: MultipleChoiceTrack, result: ScoreResult) -> list[dict[str, str | int]]:
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
