"""maintainer.letter_map: a rotation's letter map read back, and submissions remapped with it.

The library alone, on generated keys (EgoMemReason's fields) and a small demo key; the command
line (its flags, what it writes and refuses to overwrite) is in test_reshuffle.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from errors import ReshuffleError
from evaluator import score
from maintainer.letter_map import LetterMap, read_letter_map, remap_submission
from tests.maintainer.keys import (
    FAST,
    TRACK,
    Key,
    answers_for,
    keys,
    load_answer_key,
    rotated,
    small_key,
    submission_for,
    valid_submission,
)

MAP_PATH, OLD = Path("rotated/letter_map.json"), Path("old.json")


def _small_map() -> tuple[dict[str, Any], LetterMap]:
    data = rotated(small_key()).letter_map
    return json.loads(data), read_letter_map(TRACK, data, MAP_PATH)


@FAST
@given(key=keys(), data=st.data())
def test_remapped_submission_scores_what_it_scored(key: Key, data: st.DataObject) -> None:
    answers = answers_for(key, data)
    submission = submission_for(key, answers)
    rotation = rotated(key)
    letter_map = read_letter_map(TRACK, rotation.letter_map, MAP_PATH)
    remapped, translated, abstained = remap_submission(TRACK, submission, letter_map, OLD)
    old_key = load_answer_key(key.private_bytes())
    before, after = score(old_key, submission), score(rotation.new_key, remapped)
    assert after.counts == before.counts
    assert after.n_abstained == before.n_abstained
    entries = json.loads(remapped)
    for answer, entry in zip(answers, entries, strict=True):
        assert entry["confidence"] == 0.5
        if answer is None or not answer.strip():
            assert entry["predicted_answer"] == answer
    expected_abstained = sum(a is None or not a.strip() for a in answers)
    assert (translated, abstained) == (len(answers) - expected_abstained, expected_abstained)


def test_a_letter_map_reads_back_as_the_rotation_wrote_it() -> None:
    raw, letter_map = _small_map()
    assert letter_map.old_key_version == "demo-1" and letter_map.new_key_version == "v9"
    assert [e.example_id for e in letter_map.questions] == [
        s["example_id"] for s in small_key().samples
    ]
    assert [dict(e.old_to_new) for e in letter_map.questions] == [
        q["old_to_new"] for q in raw["questions"]
    ]


def _swap_twice(m: dict[str, Any]) -> None:
    m["questions"][0]["old_to_new"]["A"] = m["questions"][0]["old_to_new"]["B"]


def _list_twice(m: dict[str, Any]) -> None:
    m["questions"].append(dict(m["questions"][1]))


def _string_ids(m: dict[str, Any]) -> None:
    for q in m["questions"]:
        q["example_id"] = str(q["example_id"])


BAD_MAPS: list[tuple[str, Callable[[dict[str, Any]], object], str]] = [
    ("not a reordering", _swap_twice, "1 map is not a reordering of A.. ("),
    ("an id twice", _list_twice, "1 example_id listed twice ("),
    ("no questions", lambda m: m.update(questions=[]), "is damaged: no questions"),
    ("another format", lambda m: m.update(format="other/1"), "has format 'other/1', expected"),
    ("a field missing", lambda m: m.pop("new_key_version"), "is not a letter map (new_key_"),
    ("an unknown field", lambda m: m.update(salt="x"), "is not a letter map (salt: "),
    ("another benchmark's ids", _string_ids, "ids are not of the integer ids of the memory"),
]


@pytest.mark.parametrize(
    ("change", "message"), [b[1:] for b in BAD_MAPS], ids=[b[0] for b in BAD_MAPS]
)
def test_a_bad_letter_map_is_refused_naming_the_damage(
    change: Callable[[dict[str, Any]], object], message: str
) -> None:
    raw, _ = _small_map()
    change(raw)
    with pytest.raises(ReshuffleError) as refused:
        read_letter_map(TRACK, json.dumps(raw).encode(), MAP_PATH)
    assert str(refused.value).startswith(f"--letter-map {MAP_PATH}")
    assert message in str(refused.value)


def test_a_letter_map_that_is_no_json_is_refused() -> None:
    with pytest.raises(ReshuffleError, match="is not valid JSON"):
        read_letter_map(TRACK, b"{", MAP_PATH)


def _with(change: Callable[[list[dict[str, Any]]], object]) -> Any:
    entries = valid_submission()
    change(entries)
    return entries


BAD_SUBMISSIONS = [
    (
        "letter not an option",
        _with(lambda e: e[3].update(predicted_answer="Z")),
        "1 answer is not an option letter of their question",
    ),
    ("decorated letter", _with(lambda e: e[0].update(predicted_answer="(A)")), '"(A)" (valid A-'),
    ("list as answer", _with(lambda e: e[2].update(predicted_answer=["A"])), '["A"] (valid A-'),
    (
        "unknown id",
        _with(lambda e: e.append({"example_id": 99_999, "predicted_answer": "A"})),
        "1 example_id is not in the letter map (is this the right map?) (e.g. 99999)",
    ),
    (
        "pred instead of predicted_answer",
        _with(lambda e: e[1].update(pred=e[1].pop("predicted_answer"))),
        '1 entry lacks a "predicted_answer" (rename pred',
    ),
    ("string id", _with(lambda e: e[0].update(example_id="1")), '1 entry has no integer "'),
    ("not an object", [*valid_submission(), ["A"]], "1 entry is not a JSON object"),
    ("results shape", {"results": valid_submission()}, "convert it to the submission format"),
    ("one object", {"example_id": 1}, "expected a JSON list of"),
]


@pytest.mark.parametrize(
    ("submission", "message"),
    [b[1:] for b in BAD_SUBMISSIONS],
    ids=[b[0] for b in BAD_SUBMISSIONS],
)
def test_a_submission_that_cannot_be_remapped_is_refused_with_the_reason(
    submission: Any, message: str
) -> None:
    _, letter_map = _small_map()
    with pytest.raises(ReshuffleError) as refused:
        remap_submission(TRACK, json.dumps(submission).encode(), letter_map, OLD)
    assert str(refused.value).startswith(f"--remap-submission {OLD}")
    assert message in str(refused.value)
