"""maintainer.rotation: new letters for every question of a key, the same answers, an even spread.

The library alone, on generated keys (EgoMemReason's fields) and the demo's; the command line
that writes its files is in test_reshuffle.py.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.rotation import (
    Slot,
    choose_correct_positions,
    letter_permutation,
    question_digest,
)
from tests.maintainer.keys import (
    FAST,
    LETTERS,
    OUTPUTS,
    SALT,
    SALTS,
    Key,
    check_spread,
    files_of,
    keys,
    load_answer_key,
    rotated,
    small_key,
)

# --- properties over generated keys ----------------------------------------------------------


@FAST
@given(key=keys(), salt=SALTS)
def test_rotation_keeps_every_answer_and_moves_every_letter(key: Key, salt: str) -> None:
    files = files_of(rotated(key, salt=salt))

    old = load_answer_key(key.private_bytes())
    new = load_answer_key(files["annotations_private.json"])
    assert new.key_version == "v9"
    letter_map = json.loads(files["letter_map.json"])
    maps = {e["example_id"]: e["old_to_new"] for e in letter_map["questions"]}
    new_samples = json.loads(files["annotations_private.json"])["samples"]
    assert [s["example_id"] for s in new_samples] == [s["example_id"] for s in key.samples]
    for before, after in zip(key.samples, new_samples, strict=True):
        mapping = maps[before["example_id"]]
        assert (
            after["options"][after["correct_answer"]] == before["options"][before["correct_answer"]]
        )
        assert after["correct_answer"] != before["correct_answer"]
        assert after["correct_answer"] == mapping[before["correct_answer"]]
        assert list(after["options"]) == list(LETTERS[: len(before["options"])])
        for old_letter, text in before["options"].items():
            assert after["options"][mapping[old_letter]] == text
        assert {k: v for k, v in after.items() if k not in ("options", "correct_answer")} == {
            k: v for k, v in before.items() if k not in ("options", "correct_answer")
        }
    check_spread(old, new)

    new_public = [json.loads(line) for line in files["annotations_public.jsonl"].splitlines()]
    by_id = {s["example_id"]: s for s in new_samples}
    for before, after in zip(key.public_records(), new_public, strict=True):
        # Only the letters change, and every row names the new key version.
        assert {k: v for k, v in after.items() if k != "options"} == {
            **{k: v for k, v in before.items() if k != "options"},
            "key_version": "v9",
        }
        assert after["options"] == by_id[after["example_id"]]["options"]
        assert "correct_answer" not in after

    assert letter_map["old_key_version"] == key.key_version
    assert letter_map["new_key_version"] == "v9"
    assert letter_map["old_private_sha256"] == hashlib.sha256(key.private_bytes()).hexdigest()
    assert letter_map["new_private_sha256"] == new.sha256
    assert (
        letter_map["new_public_sha256"]
        == hashlib.sha256(files["annotations_public.jsonl"]).hexdigest()
    )
    for blob in files.values():
        assert salt.encode() not in blob


@settings(max_examples=10, deadline=None)
@given(key=keys())
def test_rotation_is_deterministic(key: Key) -> None:
    assert files_of(rotated(key)) == files_of(rotated(key))


def test_another_salt_or_version_gives_another_rotation() -> None:
    key = small_key()
    maps: list[Any] = [
        json.loads(rotated(key, salt=salt, version=version).letter_map)["questions"]
        for salt, version in ((SALT, "v9"), (SALT + "x", "v9"), (SALT, "v10"))
    ]
    assert maps[0] != maps[1] and maps[0] != maps[2]


def test_the_letter_map_never_holds_the_salt_and_names_its_inputs() -> None:
    key = small_key()
    letter_map = json.loads(rotated(key).letter_map)
    assert set(letter_map) == {
        "format",
        "note",
        "derivation",
        "old_key_version",
        "new_key_version",
        "old_private_sha256",
        "new_private_sha256",
        "old_public_sha256",
        "new_public_sha256",
        "questions",
    }
    assert letter_map["old_public_sha256"] == hashlib.sha256(key.public_bytes()).hexdigest()
    assert "--remap-submission OLD.json" in letter_map["note"]
    assert SALT not in json.dumps(letter_map)
    assert OUTPUTS[2] in letter_map["note"]


# --- the balanced permutation, piece by piece ----------------------------------------------------


@st.composite
def strata(draw: st.DrawFn) -> list[Slot]:
    """Slots of a few groups and option counts, each with an old correct position."""
    n = draw(st.integers(1, 60))
    slots = []
    for ident in range(n):
        options = draw(st.integers(1, 6))
        slots.append(
            Slot(
                ident=ident,
                n_options=options,
                old=draw(st.integers(0, options - 1)),
                group=draw(st.sampled_from(["a", "b"])),
                digest=question_digest(SALT, "v2", ident),
            )
        )
    return slots


@FAST
@given(slots=strata())
def test_correct_positions_move_and_spread_as_evenly_as_the_old_ones_allow(
    slots: list[Slot],
) -> None:
    chosen = choose_correct_positions(slots)
    assert set(chosen) == {s.ident for s in slots}
    by_stratum: dict[tuple[str, int], list[Slot]] = defaultdict(list)
    for slot in slots:
        assert 0 <= chosen[slot.ident] < slot.n_options
        if slot.n_options > 1:
            assert chosen[slot.ident] != slot.old
        by_stratum[slot.stratum].append(slot)
    for (_, k), members in by_stratum.items():
        now = Counter(chosen[s.ident] for s in members)
        before = Counter(s.old for s in members)
        for high in range(k):
            for low in range(k):
                if k > 1 and now[high] >= now[low] + 2:
                    # Only if every question that could move to ``low`` was there before.
                    assert now[low] == len(members) - before[low], (k, now, before)


def test_three_answers_of_one_letter_take_the_three_others() -> None:
    slots = [Slot(n, 4, 0, "g", question_digest("salt", "v2", n)) for n in (1, 2, 3)]
    assert sorted(choose_correct_positions(slots).values()) == [1, 2, 3]


@FAST
@given(options=st.integers(1, 10), data=st.data())
def test_a_letter_permutation_is_a_reordering_that_puts_the_answer_where_chosen(
    options: int, data: st.DataObject
) -> None:
    old = data.draw(st.one_of(st.none(), st.integers(0, options - 1)))
    new = None if old is None else data.draw(st.integers(0, options - 1))
    slot = Slot(7, options, old, "g", question_digest(SALT, "v2", 7))
    mapping = letter_permutation(slot, new, LETTERS)
    assert list(mapping) == list(LETTERS[:options])
    assert sorted(mapping.values()) == list(LETTERS[:options])
    if old is not None and new is not None:
        assert mapping[LETTERS[old]] == LETTERS[new]


def test_the_digest_depends_on_the_salt_the_version_and_the_id() -> None:
    digest = question_digest(SALT, "v2", 1)
    assert len(digest) == 32
    assert len({digest, question_digest(SALT + "x", "v2", 1), question_digest(SALT, "v3", 1)}) == 3
    assert question_digest(SALT, "v2", 1) != question_digest(SALT, "v2", "1")
    assert question_digest(SALT, "v2", 1) == digest
