"""Scoring a short-answer submission: each question right or wrong by its rule set, counts per
group, chance, and the responses as content (``answers_sha256``); the metric tree, intervals and
words are every accuracy kind's (``evaluator.accuracy``). The definitions are the kind's
docstring's."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable
from itertools import compress

from errors import SubmissionError
from evaluator.accuracy import aggregate, intervals_from_counts, metrics_from_counts, withheld
from evaluator.accuracy import summary as accuracy_summary
from evaluator.documents import entries_of as document_entries
from evaluator.files import KEY_VERSION_FIELD, with_ids
from evaluator.kinds.base import Summary
from evaluator.kinds.short_answer.answers import response_text, submission_shape, validate
from evaluator.kinds.short_answer.key import ShortAnswerKey
from evaluator.kinds.short_answer.rules import right
from evaluator.results import Count, ScoreResult
from spec import ShortAnswerTrack

ANSWERS_FORMAT = "short_answers/1"  # tags what answers_sha256 hashes, so it can change visibly


def hits(key: ShortAnswerKey, answers: dict[int | str, str | None]) -> list[bool]:
    """Each question of the key, in its order: whether its response is right by its rule set
    (an abstention never is)."""
    sets = key.track.rule_sets
    out = []
    for ident in key.ids:
        text, item = answers[ident], key.items[ident]
        out.append(text is not None and right(sets[item.rule], text, item.accepted))
    return out


def score(key: ShortAnswerKey, data: bytes, sha256: str) -> ScoreResult:
    """Score the raw bytes of a submission against ``key`` (of its track); SubmissionError if
    it cannot be scored (``validate``'s, on the key's questions). ``sha256``: the file's
    ``submission_sha256`` (``evaluator.score`` takes it when its caller has not)."""
    track = key.track
    answers = validate(key.asked, data)
    right_ones = hits(key, answers)
    told = [answers[i] is not None for i in key.ids]  # an abstention is wrong whatever the key
    per_group: dict[str, Count] = {}
    told_rows: dict[str, int] = {}
    for n, grouping in enumerate(track.groupings):
        of = [key.items[i].groups[n] for i in key.ids]
        sizes, rights = Counter(of), Counter(compress(of, right_ones))
        answered = Counter(compress(of, told))
        for g, group in enumerate(grouping.groups):
            per_group[group.key] = Count(correct=rights[g], total=sizes[g])
            told_rows[group.key] = answered[g]
    counts = aggregate(track, per_group, None, Count(correct=sum(right_ones), total=len(key)))
    intervals = intervals_from_counts(track, counts)
    rate = chance(key)
    return ScoreResult(
        metrics=metrics_from_counts(track, counts),
        counts=counts,
        intervals=intervals,
        n_questions=len(key),
        n_abstained=len(key) - sum(told),
        submission_sha256=sha256,
        answer_key_sha256=key.sha256,
        key_version=key.key_version,
        scorer_version=track.scorer_version,
        chance=rate,
        below_chance=intervals[track.overall.key][1] < rate,
        answers_sha256=_digest(sorted(answers.items(), key=_order)),
        withheld=withheld(track, told_rows, sum(told)),
    )


def chance(key: ShortAnswerKey) -> float:
    """What answering every question at random scores in expectation, in percent: a random
    letter of each multiple-choice question, an open question counting 0 (exact, rounded once)."""
    return float(100 * key.chance)


def chance_warning(track: ShortAnswerTrack, result: ScoreResult) -> str | None:
    """The warning a below-chance result gets (None otherwise), plain text."""
    if not result.below_chance or result.chance is None:
        return None
    key = track.overall.key
    value = track.format_metric(key, result.metrics[key])
    interval = track.interval_text("percent", *result.intervals[key])
    version = result.key_version or "(unversioned)"
    return (
        f"{track.labels[key]} {value} (95 % CI {interval}) is significantly below chance, "
        f"{track.shown('percent', result.chance)} (what a random letter for each "
        "multiple-choice question scores). The likely cause: the letters were chosen against "
        f"another order of the options than the key's, key version {version}; answer the "
        f"questions as the public file of that version (its rows name their {KEY_VERSION_FIELD}) "
        "orders their options."
    )


def summary(track: ShortAnswerTrack, result: ScoreResult) -> Summary:
    """A score in words: the ranking metric, its count and interval, the abstentions, the key
    version, and the below-chance warning if it has one."""
    return accuracy_summary(track, result, chance_warning(track, result))


def _order(pair: tuple[int | str, object]) -> tuple[int, int, str]:
    ident = pair[0]
    return (0, ident, "") if isinstance(ident, int) else (1, 0, ident)


def _digest(listed: Iterable[tuple[int | str, str | None]]) -> str:
    """sha256 of the responses as compact JSON, ``[format, [[id, text or null], ...]]``, the
    pairs given sorted by id (integers first, then strings)."""
    text = json.dumps([ANSWERS_FORMAT, [list(p) for p in listed]], separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def answers_sha256(track: ShortAnswerTrack, data: bytes) -> str | None:
    """The ``answers_sha256`` of a submission, read without its key; None if it is not a file
    of entries that each name one id and hold a response (a text, a number or null). Equal to
    the scored result's for every file that scores: a number read as its text, null and "" both
    an abstention, other fields ignored, in any shape a submission takes."""
    try:
        decoded = document_entries(track.fields, data, len(data), None, submission_shape(track))
    except SubmissionError:
        return None
    if not isinstance(decoded, list):
        return None
    with_ids(track.fields, decoded)
    answers: dict[int | str, str | None] = {}
    for entry in decoded:
        if not isinstance(entry, dict) or track.fields.prediction not in entry:
            return None
        ident = entry.get(track.fields.id)
        text = response_text(entry[track.fields.prediction])
        if (
            not isinstance(ident, (int, str))
            or not track.fields.is_id(ident)
            or ident in answers
            or text is False
        ):
            return None
        answers[ident] = text if isinstance(text, str) else None
    return _digest(sorted(answers.items(), key=_order))
