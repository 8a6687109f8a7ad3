"""Rotating a key released in its authors' own layout (issue 19), through
``scripts/reshuffle_options.py`` (its ``main([...])``, tests.support.scripts): options in columns
(``a0`` ... ``a4``, ``opt1`` ... ``opt4``) or as a JSON list, answers written as 0-based or
1-based indices or as the option's text, ids made of two columns, predictions keyed by id.

The rotated key is written in the release's own layout (the same columns, the same answer
format), every answer keeps its text, and the authors' predictions file remapped with the
letter map scores on the rotated key exactly what it scored on the old one.

Before the fix the rotation stopped at the options (``KeyError: 'a0+a1+a2+a3+a4'``,
``'list' object has no attribute 'items'``) and the remap refused a file keyed by id.
"""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

import evaluator
import spec
from errors import ReshuffleError
from evaluator.kinds.multiple_choice.layouts import options_of
from evaluator.kinds.multiple_choice.printed import misprinted, printed_letters, unprinted
from maintainer import rotation, tables
from maintainer.letter_map import read_letter_map, remap_submission
from tests.support.native_releases import (
    LAYOUTS,
    Release,
    authors_numbers,
    authors_tallies,
    publish_args,
    write_release,
)
from tests.support.scripts import run_script

SALT = "a salt of sixteen or more characters"


_script = run_script


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_script("reshuffle_options.py", *args)


def _rotate(release: Release, salt: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """reshuffle_options.py rotating the release's key to v2 with ``salt``, into ``out``."""
    return _run(
        "--benchmark",
        str(release.folder),
        "--private",
        str(release.key),
        "--public",
        str(release.public),
        "--salt-file",
        str(salt),
        "--key-version",
        "v2",
        "--out-dir",
        str(out),
    )


def _rows(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".csv":
        with path.open(encoding="utf-8", newline="") as lines:
            return list(csv.DictReader(lines))
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    decoded: Any = json.loads(path.read_text())
    rows: list[dict[str, Any]] = decoded["samples"] if isinstance(decoded, dict) else decoded
    return rows


@pytest.fixture(params=LAYOUTS)
def release(request: pytest.FixtureRequest, tmp_path: Path) -> Release:
    return write_release(tmp_path, request.param)


def test_a_native_key_rotates_in_its_own_layout_and_remapped_predictions_score_the_same(
    release: Release, tmp_path: Path
) -> None:
    salt, out = tmp_path / "salt.txt", tmp_path / "rotated"
    salt.write_text(SALT)
    bench = ["--benchmark", str(release.folder)]
    rotated = _rotate(release, salt, out)
    assert rotated.returncode == 0, rotated.stdout + rotated.stderr
    new_key_path, new_public_path = out / release.key.name, out / release.public.name
    remapped = _run(
        *bench,
        "--remap-submission",
        str(release.predictions),
        "--letter-map",
        str(out / "letter_map.json"),
        "--out",
        str(tmp_path / "remapped.json"),
    )
    assert remapped.returncode == 0, remapped.stdout + remapped.stderr

    track = spec.load_benchmark(str(release.folder)).track(kind=spec.MultipleChoiceTrack)
    old_key = evaluator.kinds.multiple_choice.load_key(track, release.key.read_bytes())
    new_key = evaluator.kinds.multiple_choice.load_key(track, new_key_path.read_bytes())
    assert new_key.key_version == "v2"

    # The release's own layout: the same fields (and the version, a JSON key's once at the
    # top), answers in the same format.
    old_rows, new_rows = _rows(release.key), _rows(new_key_path)
    for old, new in zip(old_rows, new_rows, strict=True):
        assert set(new) - {"key_version"} == set(old)
        assert type(new[track.fields.answer]) is type(old[track.fields.answer])
    if release.layout == "textqa":  # a text answer names the same text: it does not move
        assert [r["answer"] for r in new_rows] == [r["answer"] for r in old_rows]
        assert all(isinstance(r["choices"], list) for r in new_rows)
    if release.layout == "videoqa":  # a row of four options keeps its empty fifth column
        assert [r["a4"] == "" for r in new_rows] == [r["a4"] == "" for r in old_rows]
    public_rows = _rows(new_public_path)
    assert all(track.fields.answer not in r for r in public_rows)
    unversioned = ("key_version", track.fields.answer)
    assert [{k: v for k, v in r.items() if k not in unversioned} for r in new_rows] == [
        {k: v for k, v in r.items() if k not in unversioned} for r in public_rows
    ]

    # Every answer keeps its text and (a question of one option aside) moves its letter.
    old_by_id = {q.id: q for q in old_key.questions}
    for q in new_key.questions:
        before = old_by_id[q.id]
        assert q.options[q.answer] == before.options[before.answer]
        assert sorted(q.options.values()) == sorted(before.options.values())
        assert q.answer != before.answer

    # The remapped predictions, still keyed by id and written as the key writes its answers.
    predictions = json.loads(release.predictions.read_text())
    translated = json.loads((tmp_path / "remapped.json").read_text())
    assert isinstance(translated, dict) and set(translated) == set(predictions)
    first = next(iter(predictions))
    assert type(translated[first]["prediction"]) is type(predictions[first]["prediction"])
    assert translated[first]["key_version"] == "v2"
    before_counts = evaluator.score(old_key, release.predictions.read_bytes()).counts
    after_counts = evaluator.score(new_key, (tmp_path / "remapped.json").read_bytes()).counts
    assert after_counts == before_counts
    tallies = authors_tallies(release)
    assert {k: (c.correct, c.total) for k, c in after_counts.items()} == tallies
    # Remapping the remapped file again is refused: its entries name the new version.
    again = _run(
        *bench,
        "--remap-submission",
        str(tmp_path / "remapped.json"),
        "--letter-map",
        str(out / "letter_map.json"),
        "--out",
        str(tmp_path / "twice.json"),
    )
    assert again.returncode == 1 and "already in the letters of key version v2" in again.stderr


def test_the_readme_s_rotation_walk_through_carries_a_native_board(tmp_path: Path) -> None:
    """Publish the authors' predictions, rotate, check the new release, carry the board: the
    README's steps on the videoqa release (two-column ids, options in columns, index answers,
    predictions keyed by id); the carried record holds the authors' numbers on the new key."""
    release = write_release(tmp_path, "videoqa")
    bench = ["--benchmark", str(release.folder)]
    board, out, salt = tmp_path / "board", tmp_path / "rotated", tmp_path / "salt.txt"
    board.mkdir()
    salt.write_text(SALT)
    published = _script(
        "publish_submission.py",
        *publish_args(release, board),
    )
    assert published.returncode == 0, published.stdout + published.stderr
    rotated = _rotate(release, salt, out)
    assert rotated.returncode == 0, rotated.stdout + rotated.stderr
    checked = _script(
        "validate_benchmark.py",
        *bench,
        "--private",
        str(out / release.key.name),
        "--public",
        str(out / release.public.name),
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "key version v2, named by both files" in checked.stdout
    carried = _script(
        "rescore_board.py",
        *bench,
        "--leaderboard-dir",
        str(board),
        "--private",
        str(out / release.key.name),
        "--letter-map",
        str(out / "letter_map.json"),
        "--submissions-dir",
        str(release.predictions.parent),
        "--out-dir",
        str(tmp_path / "remapped"),
    )
    assert carried.returncode == 0, carried.stdout + carried.stderr
    assert "carried 1 row onto key version v2" in carried.stdout
    records = [json.loads(p.read_text()) for p in (board / "submissions").glob("*.json")]
    [on_v2] = [r for r in records if r["provenance"]["key_version"] == "v2"]
    assert on_v2["metrics"] == authors_numbers(release)


def test_a_remap_names_an_id_of_two_fields_by_its_fields(tmp_path: Path) -> None:
    release = write_release(tmp_path, "videoqa")
    track = spec.load_benchmark(str(release.folder)).track(kind=spec.MultipleChoiceTrack)
    table, key = tables.read_private(track, release.key.read_bytes(), release.key)
    public = tables.read_public(track, release.public.read_bytes(), release.public)
    rotated = rotation.rotate(table, key, public, "0" * 64, SALT, "v2")
    letter_map = read_letter_map(track, rotated.letter_map, Path("letter_map.json"))
    entries = [{"video": "vid000", "prediction": 1}, {"video": "nope", "qid": "9", "prediction": 0}]
    with pytest.raises(ReshuffleError) as refused:
        remap_submission(track, json.dumps(entries).encode(), letter_map, Path("old.json"))
    message = str(refused.value)
    assert '1 entry has no string "video"+"qid"' in message
    assert "1 id is not in the letter map" in message and "nope_9" in message
    assert "video+qid" not in message


# --- option texts that print their letters (issue 28, item 8) -------------------------------


def _printing(track: spec.MultipleChoiceTrack, rows: list[dict[str, Any]]) -> list[str]:
    """Why rows do not each print every option's own letter ([] when they all do)."""
    out = []
    for row in rows:
        options = options_of(track, row) or {}
        if printed_letters(options) is None or misprinted(options):
            out.append(f"{row}")
    return out


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_rotation_prints_each_option_s_new_letter(layout: str, tmp_path: Path) -> None:
    """Options written "A. season the soup": the rotation left 428 of 516 of a release's options
    printing another letter than their own. Every option of the rotated key and public file
    prints its new letter; each answer keeps its text; the new release validates; the authors'
    predictions, remapped (a text prediction printed anew too), score the same."""
    release = write_release(tmp_path, layout, printed=True)
    track = spec.load_benchmark(str(release.folder)).track(kind=spec.MultipleChoiceTrack)
    assert _printing(track, _rows(release.key)) == []
    salt, out = tmp_path / "salt.txt", tmp_path / "rotated"
    salt.write_text(SALT)
    rotated = _rotate(release, salt, out)
    assert rotated.returncode == 0, rotated.stdout + rotated.stderr
    new_key_path, new_public_path = out / release.key.name, out / release.public.name
    assert _printing(track, _rows(new_key_path)) == []
    assert _printing(track, _rows(new_public_path)) == []
    old_key = evaluator.kinds.multiple_choice.load_key(track, release.key.read_bytes())
    new_key = evaluator.kinds.multiple_choice.load_key(track, new_key_path.read_bytes())
    old_by_id = {q.id: q for q in old_key.questions}
    for q in new_key.questions:
        before = old_by_id[q.id]
        assert unprinted(q.options[q.answer]) == unprinted(before.options[before.answer])
        assert q.answer != before.answer
        assert sorted(map(unprinted, q.options.values())) == sorted(
            map(unprinted, before.options.values())
        )
    assert evaluator.same_questions(old_key, new_key)
    checked = _script(
        "validate_benchmark.py",
        *("--benchmark", str(release.folder)),
        *("--private", str(new_key_path), "--public", str(new_public_path)),
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    remapped = _run(
        *("--benchmark", str(release.folder)),
        *("--remap-submission", str(release.predictions)),
        *("--letter-map", str(out / "letter_map.json"), "--out", str(tmp_path / "remapped.json")),
    )
    assert remapped.returncode == 0, remapped.stdout + remapped.stderr
    before_counts = evaluator.score(old_key, release.predictions.read_bytes()).counts
    after_counts = evaluator.score(new_key, (tmp_path / "remapped.json").read_bytes()).counts
    assert after_counts == before_counts


def _misprinted_release(tmp_path: Path) -> Release:
    """The onebased release with options printing their letters, then each row's options moved
    one place on (the last to the first) with their texts, marks and all, and the answer
    following its text: what a rotation that ignored the printed letters wrote."""
    release = write_release(tmp_path, "onebased", printed=True)
    for path in (release.key, release.public):
        rows = _rows(path)
        for row in rows:
            texts = [row[f"opt{k}"] for k in range(1, 5)]
            for k in range(4):
                row[f"opt{k + 1}"] = texts[k - 1]
            if "gold" in row:
                row["gold"] = row["gold"] % 4 + 1
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return release


def test_validate_refuses_options_printing_another_letter(tmp_path: Path) -> None:
    release = _misprinted_release(tmp_path)
    checked = _script(
        "validate_benchmark.py",
        *("--benchmark", str(release.folder)),
        *("--private", str(release.key), "--public", str(release.public)),
    )
    assert checked.returncode == 1, checked.stdout
    assert (
        "30 rows of the public file print option letters that are not their own (120 of 120 "
        "options, e.g. 1: A prints D, B prints A, C prints B, D prints C)"
    ) in checked.stderr, checked.stderr
    assert "reshuffle_options.py" in checked.stderr  # what prints them right


def test_a_rotation_refuses_a_key_whose_printed_letters_are_not_its_own(tmp_path: Path) -> None:
    release = _misprinted_release(tmp_path)
    salt, out = tmp_path / "salt.txt", tmp_path / "rotated"
    salt.write_text(SALT)
    rotated = _rotate(release, salt, out)
    assert rotated.returncode == 1, rotated.stdout
    assert "print option letters that are not their own" in rotated.stderr, rotated.stderr
    assert "Traceback" not in rotated.stderr and not out.exists()
