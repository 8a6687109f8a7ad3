"""Scoring a multiple-choice submission: counts per group, chance, and the answers as content
(``answers_sha256``); the metric tree, intervals and words are every accuracy kind's
(``evaluator.accuracy``). The definitions are the kind's docstring's."""

from __future__ import annotations

import numpy as np

from errors import SubmissionError
from evaluator.accuracy import aggregate, intervals_from_counts, metrics_from_counts, withheld
from evaluator.accuracy import summary as accuracy_summary
from evaluator.files import KEY_VERSION_FIELD, with_ids
from evaluator.kinds.base import Summary
from evaluator.kinds.multiple_choice.answers import coded, entries_of, keyless_letter
from evaluator.kinds.multiple_choice.coding import ABSTAINED
from evaluator.kinds.multiple_choice.digest import digest
from evaluator.kinds.multiple_choice.key import AnswerKey, id_order
from evaluator.results import Count, ScoreResult
from evaluator.stats import wilson_interval
from spec import MultipleChoiceTrack


def score(key: AnswerKey, data: bytes, sha256: str) -> ScoreResult:
    """Score the raw bytes of a submission against ``key`` (of its track); SubmissionError if
    it cannot be scored (``validate``'s, on the key's questions). ``sha256``: the file's
    ``submission_sha256`` (``evaluator.score`` takes it when its caller has not)."""
    track = key.track
    # Each answer as its code (0 an abstention), in key order as the key's columns are (its
    # questions' order), so every count is numpy's over all rows.
    codes = coded(key.asked, data)
    table = key.columns
    hits = codes == table.correct_codes  # an abstention and an out-of-option row never equal
    # The rows whose outcome the key decides: the answered ones (an abstention is wrong whatever
    # the key says). An out-of-option row answered counts: the public file does not say which
    # rows are flagged, so only the key decides that it is wrong.
    told = codes != ABSTAINED
    # Each row's outcome, 0 unanswered, 1 wrong, 2 right (a right answer is an answer), counted
    # per group in one bincount: a group's slots are its three outcomes.
    outcome = told.view(np.uint8) + hits.view(np.uint8)
    per_group: dict[str, Count] = {}
    told_rows: dict[str, int] = {}
    for grouping, slots, sizes in zip(
        track.groupings, table.outcome_slots, table.sizes, strict=True
    ):
        tally = np.bincount(slots + outcome, minlength=3 * len(sizes)).reshape(-1, 3).tolist()
        for group, (_, wrong, right), size in zip(grouping.groups, tally, sizes, strict=True):
            per_group[group.key] = Count(correct=right, total=size)
            told_rows[group.key] = wrong + right
    correct, answered = int(np.count_nonzero(hits)), int(np.count_nonzero(told))
    answerable = Count(correct=correct, total=table.answerable)
    abstained = len(key) - answered
    counts = aggregate(track, per_group, answerable, Count(correct=correct, total=len(key)))
    intervals = intervals_from_counts(track, counts)
    rate = chance(key)
    return ScoreResult(
        metrics=metrics_from_counts(track, counts),
        counts=counts,
        intervals=intervals,
        n_questions=len(key),
        n_abstained=abstained,
        submission_sha256=sha256,
        answer_key_sha256=key.sha256,
        key_version=key.key_version,
        scorer_version=track.scorer_version,
        chance=rate,
        below_chance=intervals[track.overall.key][1] < rate,
        answers_sha256=table.answers_text.digest(codes),
        withheld=withheld(track, told_rows, answered),
    )


def chance(key: AnswerKey) -> float:
    """What answering every question at random scores in expectation, in percent: the mean of
    ``1 / n`` over all rows (``n`` its option count), an out-of-option row counting 0. Exact
    (``AnswerKey.chance``, a fraction) and rounded once, to the float nearest it: 20.0 for
    five options everywhere, not a sum of floats' 19.99999999999929."""
    return float(100 * key.chance)


def chance_warning(track: MultipleChoiceTrack, result: ScoreResult) -> str | None:
    """The warning a below-chance result gets (None otherwise): what it scored, the chance
    rate, the likely cause and the fix. Plain text, one paragraph.

    The cause is the empty answers when the file leaves some empty and the questions it
    answers are not significantly below chance on their own (the upper end of their Wilson
    interval reaches chance): a file of nulls is below chance, but not in another key's
    letters. Else it is the key version: letters chosen against other letters."""
    if not result.below_chance or result.chance is None:
        return None
    key = track.overall.key
    value = track.format_metric(key, result.metrics[key])
    interval = track.interval_text("percent", *result.intervals[key])
    below = (
        f"{track.labels[key]} {value} (95 % CI {interval}) is significantly below chance, "
        f"{track.shown('percent', result.chance)} (what answering at random scores "
        "on these questions)."
    )
    answered = result.n_questions - result.n_abstained
    count = result.counts.get(key)
    if result.n_abstained and (
        answered == 0
        or (count is not None and wilson_interval(count.correct, answered)[1] >= result.chance)
    ):
        if answered == 0:
            empty = f"All {result.n_questions} answers are empty"
            alone = "nothing was answered"
        else:
            empty = f"{result.n_abstained} of the {result.n_questions} answers are empty"
            share = 100 * count.correct / answered if count is not None else 0.0
            alone = (
                f"the {answered} answered score {track.shown('percent', share)}, not below "
                "chance on their own"
            )
        return (
            f'{below} The cause: {empty} (null or ""), and an empty answer scores as wrong; '
            f"{alone}. Write an answer ({track.fields.prediction}) for every question and "
            "score the file again."
        )
    version = result.key_version or "(unversioned)"
    return (
        f"{below} The likely cause: the letters were chosen against another "
        f"version of the answer key than this one, key version {version}. Answer the "
        f"questions of the public file of key version {version} (its rows name their "
        f"{KEY_VERSION_FIELD}); a file made against older letters can be remapped by the "
        'maintainer with the README\'s command ("Rotating the answer key": '
        "scripts/reshuffle_options.py --remap-submission OLD.json --letter-map "
        "letter_map.json --out NEW.json)."
    )


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
    return digest((i, answers[i]) for i in sorted(answers, key=id_order))


def summary(track: MultipleChoiceTrack, result: ScoreResult) -> Summary:
    """A score in words: the ranking metric, its count and interval, the abstentions, the key
    version, and the below-chance warning if it has one."""
    return accuracy_summary(track, result, chance_warning(track, result))
