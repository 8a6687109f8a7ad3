"""Scoring a multiple-choice submission: counts per group, chance, and the answers as content
(``answers_sha256``); the metric tree, intervals and words are every accuracy kind's
(``evaluator.accuracy``). The definitions are the kind's docstring's."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from itertools import islice

import numpy as np

from errors import SubmissionError
from evaluator.accuracy import aggregate, intervals_from_counts, metrics_from_counts, withheld
from evaluator.accuracy import summary as accuracy_summary
from evaluator.files import KEY_VERSION_FIELD, with_ids
from evaluator.kinds.base import Summary
from evaluator.kinds.multiple_choice.answers import columns, entries_of, keyless_letter
from evaluator.kinds.multiple_choice.key import ABSTAINED, ANSWERS_SLICE, AnswerKey, id_order
from evaluator.results import Count, ScoreResult
from evaluator.stats import wilson_interval
from evaluator.submissions import in_order
from spec import MultipleChoiceTrack

ANSWERS_FORMAT = "answers/1"  # tags what answers_sha256 hashes, so it can change visibly


def score(key: AnswerKey, data: bytes) -> ScoreResult:
    """Score the raw bytes of a submission against ``key`` (of its track); SubmissionError if
    it cannot be scored (``validate``'s, on the key's questions)."""
    track = key.track
    ids, read = columns(key.asked, data)
    (answers,) = in_order(ids, key.ids, read)  # in key order, as the key's columns are
    table = key.columns
    # Each answer as its code (0 an abstention), so every count is numpy's over all rows.
    codes = np.frombuffer(bytes(map(table.codes.__getitem__, answers)), np.uint8)
    hits = codes == table.correct_codes  # an abstention and an out-of-option row never equal
    # The rows whose outcome the key decides: the answered ones (an abstention is wrong whatever
    # the key says). An out-of-option row answered counts: the public file does not say which
    # rows are flagged, so only the key decides that it is wrong.
    told = codes != ABSTAINED
    tallies, told_rows = [], {}
    for grouping, of, sizes in zip(track.groupings, table.group_codes, table.sizes, strict=True):
        right = np.bincount(of[hits], minlength=len(grouping.groups)).tolist()
        open_ = np.bincount(of[told], minlength=len(grouping.groups)).tolist()
        tallies.append([(right[i], sizes[i]) for i in range(len(grouping.groups))])
        told_rows.update({g.key: open_[i] for i, g in enumerate(grouping.groups)})
    correct, answered = int(np.count_nonzero(hits)), int(np.count_nonzero(told))
    answerable = Count(correct=correct, total=len(key) - table.corrects.count(None))
    abstained = len(key) - answered
    per_group = {
        group.key: Count(correct=tally[0], total=tally[1])
        for grouping, level in zip(track.groupings, tallies, strict=True)
        for group, tally in zip(grouping.groups, level, strict=True)
    }
    counts = aggregate(track, per_group, answerable, Count(correct=correct, total=len(key)))
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
        answers_sha256=_key_digest(key, codes),
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


def _digest(listed: Iterable[tuple[int | str, str | None]]) -> str:
    """sha256 of the answers as compact JSON, ``[format, [[id, letter or null], ...]]``, the
    pairs given sorted by id (``id_order``)."""
    text = json.dumps([ANSWERS_FORMAT, list(listed)], separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _key_digest(key: AnswerKey, codes: np.ndarray) -> str:
    """``_digest`` of answers in key order (``letter_codes``): the key's text of them
    (``KeyColumns.answers_text``) filled in with each answer's JSON, the same bytes written
    without encoding each id or answer."""
    table = key.columns
    written = [b"null"] * (len(table.codes) + 1)
    for letter, code in table.codes.items():
        if letter:
            written[code] = json.dumps(letter).encode("ascii")
    answers = map(written.__getitem__, codes[table.by_id_codes].tobytes())
    # Hashed a slice at a time: the same bytes as one joined text, without a copy of the
    # whole of it (a 100,000-question key's is ~3 MB) falling out of the processor's cache.
    digest = hashlib.sha256(f"[{json.dumps(ANSWERS_FORMAT)},[".encode("ascii"))
    for n, template in enumerate(table.answers_text):
        if n:
            digest.update(b",")
        digest.update(template % tuple(islice(answers, ANSWERS_SLICE)))
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


def summary(track: MultipleChoiceTrack, result: ScoreResult) -> Summary:
    """A score in words: the ranking metric, its count and interval, the abstentions, the key
    version, and the below-chance warning if it has one."""
    return accuracy_summary(track, result, chance_warning(track, result))
