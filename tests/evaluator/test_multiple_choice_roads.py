"""The two roads a multiple-choice file takes: the fast one (every check over all entries at
once, for a file that scores) and the careful one (entry by entry, writing every message).

The fast road must take exactly the files the careful one accepts, and read them the same;
the score's ``answers_sha256``, written from the key's columns, must be the bytes of the
documented digest. Both benchmarks' tracks: integer ids (EgoMemReason) and string ids with
out-of-option rows (EgoArgus understanding).
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
from evaluator.kinds.multiple_choice import scoring as mc_scoring
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
    try:
        careful = mc_answers._careful_columns(questions, entries)
    except evaluator.SubmissionError:
        assert fast is None
        return
    assert fast == careful  # every file that scores takes the fast road, and reads the same


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
    assert mc_scoring.ANSWERS_FORMAT == "answers/1"


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
