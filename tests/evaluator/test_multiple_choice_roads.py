"""The roads a multiple-choice file takes: the fast ones (every check over all entries at
once, for a file that scores: ``_fast_codes``, the score's, for answers written as the track
writes them, and ``_fast_columns`` for any other) and the careful one (entry by entry,
writing every message).

The fast columns must take exactly the files the careful road accepts, and read them the same;
the fast codes only files it accepts, with the same answers; the score's ``answers_sha256``,
written from the key's text of it, must be the bytes of the documented digest. Both
benchmarks' tracks: integer ids (EgoMemReason) and string ids with out-of-option rows (EgoArgus
understanding).
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evaluator
import spec
from evaluator.kinds.multiple_choice import answers as mc_answers
from evaluator.kinds.multiple_choice.key import QuestionSet


@functools.cache
def _track(bench_id: str) -> tuple[spec.MultipleChoiceTrack, evaluator.AnswerKey, list[Any]]:
    """A benchmark's multiple-choice track, its demo key and its demo sample's entries (read
    on first use, not when the tests are collected)."""
    bench = spec.load_benchmark(bench_id)
    track = bench.track(kind=spec.MultipleChoiceTrack)
    key = evaluator.kinds.multiple_choice.load_key(track, bench.demo_key(track).read_bytes())
    sample = json.loads((bench.demo_dir / "sample_submission.json").read_bytes())
    return track, key, sample


TRACKS = ("egomemreason", "egoargus")
SMALL = 40  # questions of the small question sets the roads are compared on


@functools.cache
def _small(bench_id: str) -> tuple[spec.MultipleChoiceTrack, QuestionSet, list[Any]]:
    """The first SMALL questions of the demo key, with every out-of-option one, as a question
    set, and the sample's entries for them: the roads compared on a file of tens of entries
    rather than thousands."""
    track, key, sample = _track(bench_id)
    flagged = {q.id for q in key.questions if q.out_of_option}
    chosen = {q.id for q in key.questions[:SMALL]} | flagged
    letters = {i: v for i, v in key.asked.letters.items() if i in chosen}
    entries = [e for e in sample if e[track.fields.id] in chosen]
    return track, QuestionSet(track, letters, key.key_version), entries


#: Values an entry's id or prediction may be given, odd and ordinary.
ODD_VALUES: list[Any] = [
    None,
    "",
    "  ",
    "a",
    " b ",
    "B",
    "(A)",
    "A. Pancake",
    "Z",
    "AB",
    1,
    0,
    True,
    2.5,
    [],
    {},
    "ß",
    "\u00e5",
]

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def _mostly_valid(draw: st.DrawFn, name: str) -> list[Any]:
    """The demo sample, in its order or shuffled, with a few entries changed: a field dropped
    or given an odd value, an id repeated or unknown, an entry that is no object."""
    track, _, sample = _small(name)
    entries: list[Any] = [dict(e) for e in sample]
    if draw(st.booleans()):
        random.Random(draw(st.integers(0, 2**16))).shuffle(entries)
    fields = (track.fields.id, track.fields.prediction, *track.fields.prediction_aliases)
    for _ in range(draw(st.integers(0, 3))):
        index = draw(st.integers(0, len(entries) - 1))
        entry = entries[index]
        if not isinstance(entry, dict):
            continue
        change = draw(st.sampled_from(["drop", "odd", "copy-id", "not-object", "rename"]))
        field = draw(st.sampled_from(fields))
        if change == "drop":
            entry.pop(field, None)
        elif change == "odd":
            entry[field] = draw(st.sampled_from(ODD_VALUES))
        elif change == "copy-id":
            other = entries[draw(st.integers(0, len(entries) - 1))]
            if isinstance(other, dict) and track.fields.id in other:
                entry[track.fields.id] = other[track.fields.id]
        elif change == "rename" and track.fields.prediction in entry:
            entry[field] = entry.pop(track.fields.prediction)
        else:
            entries[index] = draw(st.sampled_from(ODD_VALUES))
    return entries


def _both_roads(name: str, entries: list[Any]) -> None:
    _, questions, _ = _small(name)
    fast = mc_answers._fast_columns(questions, entries)
    codes = mc_answers._fast_codes(questions, entries)
    try:
        careful = mc_answers._careful_columns(questions, entries)
    except evaluator.SubmissionError:
        assert fast is None
        assert codes is None
        return
    assert fast == careful  # every file that scores takes the fast road, and reads the same
    if codes is not None:  # the same answers, as codes in the questions' order
        letters = dict(zip(*careful, strict=True))
        coding = questions.coding
        assert codes.tolist() == [coding.codes[letters[i]] for i in coding.order]


@SETTINGS
@given(_mostly_valid("egomemreason"))
def test_the_fast_road_takes_exactly_the_files_the_careful_one_accepts_integer_ids(
    entries: list[Any],
) -> None:
    _both_roads("egomemreason", entries)


@SETTINGS
@given(_mostly_valid("egoargus"))
def test_the_fast_road_takes_exactly_the_files_the_careful_one_accepts_string_ids(
    entries: list[Any],
) -> None:
    _both_roads("egoargus", entries)


def _documented_digest(answers: dict[int | str, str | None]) -> str:
    """The digest as ``answers_sha256``'s docstring defines it, written out again: sha256 of
    ``["answers/1", [[id, letter or null], ...]]`` sorted by id, integers first, as compact
    ASCII JSON."""

    def order(ident: int | str) -> tuple[int, Any]:
        return (0, ident) if isinstance(ident, int) else (1, ident)

    listed = [[i, answers[i]] for i in sorted(answers, key=order)]
    text = json.dumps(["answers/1", listed], separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


@pytest.mark.parametrize("name", TRACKS)
@pytest.mark.parametrize("seed", range(6))
def test_the_score_s_answers_sha256_is_the_documented_digest(name: str, seed: int) -> None:
    track, key, sample = _track(name)
    rng = random.Random(seed)
    entries = [dict(e) for e in sample]
    rng.shuffle(entries)
    for entry in entries:
        ident = entry[track.fields.id]
        entry[track.fields.prediction] = rng.choice(
            [None, "", *sorted(key.asked.letters[ident]), f" {min(key.asked.letters[ident])} "]
        )
    data = json.dumps(entries).encode()
    expected = _documented_digest(evaluator.kinds.multiple_choice.validate(key.asked, data))
    assert evaluator.score(key, data).answers_sha256 == expected
    assert evaluator.answers_sha256(track, data) == expected
    assert evaluator.kinds.multiple_choice.ANSWERS_FORMAT == "answers/1"


@pytest.mark.parametrize("name", TRACKS)
def test_shuffled_entries_score_bit_for_bit_as_the_key_s_order(name: str) -> None:
    _, key, sample = _track(name)
    shuffled = list(sample)
    random.Random(3).shuffle(shuffled)
    ordered = evaluator.score(key, json.dumps(sample).encode())
    mixed = evaluator.score(key, json.dumps(shuffled).encode())
    assert ordered.model_dump(exclude={"submission_sha256"}) == mixed.model_dump(
        exclude={"submission_sha256"}
    )


def _one_change_each(name: str) -> list[tuple[str, list[Any]]]:
    """The sample with one change to one entry (the first or the last): each field given each
    odd value or dropped, the entry replaced by each odd value, its id repeated from another."""
    track, _, sample = _small(name)
    fields = (track.fields.id, track.fields.prediction, *track.fields.prediction_aliases)
    cases: list[tuple[str, list[Any]]] = []
    for position in (0, len(sample) - 1):
        for field in fields:
            for value in ODD_VALUES:
                entries: list[Any] = [dict(e) for e in sample]
                entries[position][field] = value
                cases.append((f"{position}:{field}={value!r}", entries))
            entries = [dict(e) for e in sample]
            entries[position].pop(field, None)
            cases.append((f"{position}:no {field}", entries))
        for value in ODD_VALUES:
            entries = [dict(e) for e in sample]
            entries[position] = value
            cases.append((f"{position}: entry {value!r}", entries))
        entries = [dict(e) for e in sample]
        entries[position][track.fields.id] = entries[1 - position][track.fields.id]
        cases.append((f"{position}: id twice", entries))
    return cases


@pytest.mark.parametrize("name", TRACKS)
def test_each_single_change_takes_the_road_the_careful_one_says(name: str) -> None:
    for label, entries in _one_change_each(name):
        try:
            _both_roads(name, entries)
        except AssertionError as failed:
            raise AssertionError(f"{name}, {label}") from failed


@pytest.mark.parametrize("name", TRACKS)
@pytest.mark.parametrize("shuffled", [False, True])
def test_a_sample_written_as_the_track_writes_answers_takes_the_codes_road(
    name: str, shuffled: bool
) -> None:
    _, key, sample = _track(name)
    entries = [dict(e) for e in sample]
    if shuffled:
        random.Random(5).shuffle(entries)
    codes = mc_answers._fast_codes(key.asked, entries)
    assert codes is not None  # the road the score takes for such a file, not the careful one
    answers = evaluator.kinds.multiple_choice.validate(key.asked, json.dumps(entries).encode())
    coding = key.asked.coding
    assert codes.tolist() == [coding.codes[answers[i] or ""] for i in key.ids]


@SETTINGS
@given(_mostly_valid("egoargus"), st.sampled_from([None, "a", " B ", "(A)", 1]))
def test_the_answers_as_codes_are_validate_s_whatever_road_they_take(
    entries: list[Any], odd: Any
) -> None:
    """``coded`` (the score's reading) gives ``validate``'s answers, or its very error, for any
    file: one written as the track writes answers, or with a prediction only the careful road
    reads (lower case, spaces)."""
    _, questions, _ = _small("egoargus")
    for entry in entries[:1]:
        if isinstance(entry, dict):
            entry[questions.track.fields.prediction] = odd
    data = json.dumps(entries).encode()
    try:
        answers = evaluator.kinds.multiple_choice.validate(questions, data)
    except evaluator.SubmissionError as error:
        with pytest.raises(evaluator.SubmissionError) as refused:
            mc_answers.coded(questions, data)
        assert refused.value.problems == error.problems
        return
    coding = questions.coding
    codes = mc_answers.coded(questions, data).tolist()
    assert codes == [coding.codes[answers[i] or ""] for i in coding.order]


ODD_IDS = ['q"1', "q\\2", "q%s3", "q%%b4", "é5", "\U0001f600 6", "q\u20287", "Q 8"]


def test_the_key_s_text_of_the_answers_is_written_as_json_writes_odd_ids() -> None:
    """Ids JSON escapes (quotes, backslashes, non-ASCII, a line separator) and ids printf
    would read ("%s", "%%b"): the score's digest is still the documented one."""
    track, key, _ = _track("egoargus")
    rows = [dict(q.record) for q in key.questions]
    for row, ident in zip(rows, ODD_IDS, strict=False):
        row[track.fields.id] = ident
    odd_key = evaluator.parse_answer_key(track, rows)
    rng = random.Random(11)
    for _ in range(3):
        entries = [
            {track.fields.id: i, track.fields.prediction: rng.choice([None, "", *sorted(ls)])}
            for i, ls in odd_key.asked.letters.items()
        ]
        rng.shuffle(entries)
        data = json.dumps(entries).encode()
        expected = _documented_digest(evaluator.kinds.multiple_choice.validate(odd_key.asked, data))
        assert evaluator.score(odd_key, data).answers_sha256 == expected
