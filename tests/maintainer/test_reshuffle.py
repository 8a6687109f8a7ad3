"""scripts/reshuffle_options.py: the command line that rotates a key and remaps submissions.

On EgoMemReason (the default benchmark): what it writes is the library's rotation and remapping
(maintainer.rotation, maintainer.letter_map: their properties are in test_rotation.py and
test_letter_map.py), its refusals with nothing written, the demo key as a maintainer rotates
it, and a pin of the demo rotation's bytes as the script wrote them before benchmarks were
specs. The same script on EgoArgus (CSV files, string ids, out-of-option rows) is in
test_release.py.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator import score
from maintainer.letter_map import read_letter_map, remap_submission
from scripts import reshuffle_options
from tests.maintainer.keys import (
    DEMO_PRIVATE,
    DEMO_PUBLIC,
    DEMO_SUBMISSION,
    FAST,
    LETTERS,
    OUTPUTS,
    QUERY_TYPES,
    SALT,
    SALTS,
    TRACK,
    Key,
    answers_for,
    check_spread,
    files_of,
    keys,
    load_answer_key,
    small_key,
    submission_for,
    workdir,
)
from tests.maintainer.keys import rotated as library_rotation
from tests.maintainer.keys import valid_submission as _valid_submission
from tests.support import ROOT

SCRIPT = ROOT / "scripts" / "reshuffle_options.py"


# --- helpers -------------------------------------------------------------------------------


def run(argv: Sequence[str]) -> tuple[int, str, str]:
    """Call main() in-process; return its exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = reshuffle_options.main(list(argv))
    return status, out.getvalue(), err.getvalue()


def rotate(
    folder: Path, private: Path, public: Path, salt: str = SALT, version: str = "v9"
) -> tuple[int, str, str]:
    return run(
        [
            "--private",
            str(private),
            "--public",
            str(public),
            "--salt",
            salt,
            "--key-version",
            version,
            "--out-dir",
            str(folder / "rotated"),
        ]
    )


def read_outputs(folder: Path) -> dict[str, bytes]:
    return {name: (folder / "rotated" / name).read_bytes() for name in OUTPUTS}


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


# --- what the command line writes: the library's files ----------------------------------------


@FAST
@given(key=keys(), salt=SALTS)
def test_the_command_line_writes_the_library_s_rotation_and_never_the_salt(
    key: Key, salt: str
) -> None:
    with workdir() as folder:
        private, public = key.write(folder)
        inputs = {private: private.read_bytes(), public: public.read_bytes()}
        status, out, err = rotate(folder, private, public, salt=salt)
        assert (status, err) == (0, "")
        assert {p: p.read_bytes() for p in inputs} == inputs
        files = read_outputs(folder)
    assert files == files_of(library_rotation(key, salt=salt))
    for blob in [*files.values(), out.encode()]:
        assert salt.encode() not in blob


@pytest.mark.slow  # 1.4 s of CPU: rotates and remaps
@FAST
@given(key=keys(), data=st.data())
def test_the_command_line_remaps_as_the_library_does(key: Key, data: st.DataObject) -> None:
    answers = answers_for(key, data)
    submission = submission_for(key, answers)
    with workdir() as folder:
        private, public = key.write(folder)
        assert rotate(folder, private, public)[0] == 0
        (folder / "old.json").write_bytes(submission)
        status, out, err = run(
            [
                "--remap-submission",
                str(folder / "old.json"),
                "--letter-map",
                str(folder / "rotated" / "letter_map.json"),
                "--out",
                str(folder / "new.json"),
            ]
        )
        assert (status, err) == (0, "")
        letter_map = (folder / "rotated" / "letter_map.json").read_bytes()
        remapped = (folder / "new.json").read_bytes()
    expected, _, _ = remap_submission(
        TRACK, submission, read_letter_map(TRACK, letter_map, Path()), Path()
    )
    assert remapped == expected
    new_key = library_rotation(key).new_key
    assert (
        score(new_key, remapped).counts
        == score(load_answer_key(key.private_bytes()), submission).counts
    )
    abstained = sum(a is None or not a.strip() for a in answers)
    assert f"Remapped {len(answers) - abstained} answers ({abstained} abstentions kept)" in out


@settings(max_examples=10, deadline=None)
@given(key=keys())
def test_rotation_is_deterministic(key: Key) -> None:
    with workdir() as one, workdir() as two:
        for folder in (one, two):
            private, public = key.write(folder)
            assert rotate(folder, private, public)[0] == 0
        assert read_outputs(one) == read_outputs(two)


MISMATCHES: dict[str, Callable[[dict[str, Any]], None]] = {
    "question texts": lambda r: r.update(question=r["question"] + " (edited)"),
    "options": lambda r: r["options"].update(A=r["options"]["A"] + "!"),
    "query types": lambda r: r.update(
        query_type=next(t for t in QUERY_TYPES if t != r["query_type"])
    ),
    "only in the private key": lambda r: r.clear(),
    "only in the public file": lambda r: r.update(example_id=10_001),
}


@FAST
@given(key=keys(), kind=st.sampled_from(sorted(MISMATCHES)), data=st.data())
def test_mismatched_public_file_is_refused(key: Key, kind: str, data: st.DataObject) -> None:
    with workdir() as folder:
        private, public = key.write(folder)
        records = key.public_records()
        victim = data.draw(st.integers(0, len(records) - 1))
        example_id = records[victim]["example_id"]
        MISMATCHES[kind](records[victim])
        public.write_text("".join(json.dumps(r) + "\n" for r in records if r), encoding="utf-8")
        before = snapshot(folder)
        status, out, err = rotate(folder, private, public)
        assert snapshot(folder) == before
    assert (status, out) == (1, "")
    assert "describe different questions" in err and kind in err
    shown = 10_001 if kind == "only in the public file" else example_id
    assert str(shown) in err


# --- refusals, each with the message it must give -------------------------------------------


def _corrupt_key(folder: Path) -> None:
    payload = json.loads((folder / OUTPUTS[0]).read_bytes())
    payload["samples"][2]["correct_answer"] = "J"
    (folder / OUTPUTS[0]).write_text(json.dumps(payload))


def _leak_answers(folder: Path) -> None:
    samples = json.loads((folder / OUTPUTS[0]).read_bytes())["samples"]
    (folder / OUTPUTS[1]).write_text("".join(json.dumps(s) + "\n" for s in samples))


def _break_line(folder: Path) -> None:
    lines = (folder / OUTPUTS[1]).read_text().splitlines()
    lines[2] = lines[2][:-1]
    (folder / OUTPUTS[1]).write_text("\n".join(lines) + "\n")


def _fill_out_dir(folder: Path) -> None:
    (folder / "rotated").mkdir()
    (folder / "rotated" / "keep.txt").write_text("earlier rotation")


def _out_dir_is_a_file(folder: Path) -> None:
    (folder / "rotated").write_text("not a folder")


def _nothing(folder: Path) -> None:
    pass


REFUSALS = [
    # (name, change to the folder, arguments replacing the defaults, message)
    ("no salt", _nothing, {"--salt": None}, "missing --salt (or --salt-file)"),
    ("short salt", _nothing, {"--salt": "hunter2"}, "the salt has 7 characters"),
    ("bad version", _nothing, {"--key-version": "v 1.2"}, "is not a version name"),
    (
        "same version",
        _nothing,
        {"--key-version": "demo-1"},
        "is the version of the key being rotated",
    ),
    ("no key file", _nothing, {"--private": "missing.json"}, "missing.json: no such file"),
    ("key not JSON", lambda f: (f / OUTPUTS[0]).write_text("{"), {}, "is not valid JSON"),
    ("invalid key", _corrupt_key, {}, "correct_answer is not one of their options"),
    ("answers in the public file", _leak_answers, {}, "must not contain answers"),
    ("broken public line", _break_line, {}, "line 3 is not valid JSON"),
    ("non-empty out dir", _fill_out_dir, {}, "is not empty; pass an empty or new folder"),
    ("out dir is a file", _out_dir_is_a_file, {}, "is a file; pass a folder"),
    (
        "out dir holds the inputs",
        _nothing,
        {"--out-dir": ".", "--force": ""},
        "would overwrite --private",
    ),
    ("unknown flag", _nothing, {"--shuffle": ""}, "unrecognized arguments: --shuffle"),
    (
        "unquoted salt",
        _nothing,
        {"--salt": "test-salt-7f3a9c2e41d8b605 hunter2secret"},
        "1 unexpected value (not shown: if part of the salt, quote the salt",
    ),
    ("mixed modes", _nothing, {"--out": "x.json"}, "belong to a rotation"),
    (
        "unknown benchmark",
        _nothing,
        {"--benchmark": "no-such-bench"},
        "--benchmark: no benchmark 'no-such-bench'",
    ),
    ("unknown track", _nothing, {"--track": "no-such-track"}, "its tracks are: memory"),
]


@pytest.mark.parametrize(
    ("change", "flags", "message"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS]
)
def test_bad_rotation_input_is_refused_and_nothing_written(
    tmp_path: Path,
    change: Callable[[Path], None],
    flags: dict[str, str | None],
    message: str,
) -> None:
    private, public = small_key().write(tmp_path)
    change(tmp_path)
    args: dict[str, str | None] = {
        "--private": str(private),
        "--public": str(public),
        "--salt": SALT,
        "--key-version": "v1.2",
        "--out-dir": str(tmp_path / "rotated"),
    }
    for flag, value in flags.items():
        args[flag] = (
            str(tmp_path / value) if value and flag.endswith(("-dir", "private")) else value
        )
    argv = [
        item
        for flag, value in args.items()
        if value is not None
        for item in (
            [flag, *value.split(" ")] if flag == "--salt" else [flag, value] if value else [flag]
        )
    ]
    before = snapshot(tmp_path)
    status, out, err = run(argv)
    assert (status, out) == (1, "")
    assert message in err
    assert err.startswith("error: ") and SALT not in err and "hunter2secret" not in err
    assert snapshot(tmp_path) == before


def test_force_writes_into_a_non_empty_folder(tmp_path: Path) -> None:
    private, public = small_key().write(tmp_path)
    _fill_out_dir(tmp_path)
    status, _, err = run(
        [
            "--private",
            str(private),
            "--public",
            str(public),
            "--salt",
            SALT,
            "--key-version",
            "v1.2",
            "--out-dir",
            str(tmp_path / "rotated"),
            "--force",
        ]
    )
    assert (status, err) == (0, "")
    assert sorted(p.name for p in (tmp_path / "rotated").iterdir()) == sorted(
        [*OUTPUTS, "keep.txt"]
    )


def test_salt_file_gives_the_same_rotation_as_salt(tmp_path: Path) -> None:
    private, public = small_key().write(tmp_path)
    (tmp_path / "salt.txt").write_text(SALT + "\n")
    assert rotate(tmp_path, private, public)[0] == 0
    first = read_outputs(tmp_path)
    status, _, err = run(
        [
            "--private",
            str(private),
            "--public",
            str(public),
            "--salt-file",
            str(tmp_path / "salt.txt"),
            "--key-version",
            "v9",
            "--out-dir",
            str(tmp_path / "rotated"),
            "--force",
        ]
    )
    assert (status, err) == (0, "")
    assert read_outputs(tmp_path) == first


# --- remapping refusals ----------------------------------------------------------------------


@pytest.fixture
def rotated(tmp_path: Path) -> Path:
    """A rotated small key; returns the folder holding the key and rotated/."""
    private, public = small_key().write(tmp_path)
    assert rotate(tmp_path, private, public)[0] == 0
    return tmp_path


def _with(change: Callable[[list[dict[str, Any]]], object]) -> Any:
    entries = _valid_submission()
    change(entries)
    return entries


REMAP_REFUSALS = [
    (
        "letter not an option",
        _with(lambda e: e[3].update(predicted_answer="Z")),
        {},
        "1 answer is not an option letter of their question",
    ),
    (
        "decorated letter",
        _with(lambda e: e[0].update(predicted_answer="(A)")),
        {},
        '"(A)" (valid A-',
    ),
    ("list as answer", _with(lambda e: e[2].update(predicted_answer=["A"])), {}, '["A"] (valid A-'),
    (
        "unknown id",
        _with(lambda e: e.append({"example_id": 99_999, "predicted_answer": "A"})),
        {},
        "1 example_id is not in the letter map (is this the right map?) (e.g. 99999)",
    ),
    (
        "pred instead of predicted_answer",
        _with(lambda e: e[1].update(pred=e[1].pop("predicted_answer"))),
        {},
        '1 entry lacks a "predicted_answer" (rename pred',
    ),
    ("results shape", {"results": _valid_submission()}, {}, "convert it to the submission format"),
    ("not a letter map", _valid_submission(), {"--letter-map": "old.json"}, "is not a letter map"),
    ("output exists", _valid_submission(), {"--out": "keep.txt"}, "exists; pass another name"),
    (
        "output is the input",
        _valid_submission(),
        {"--out": "old.json", "--force": ""},
        "inputs are never overwritten",
    ),
    ("missing --out", _valid_submission(), {"--out": None}, "missing --out"),
]


@pytest.mark.parametrize(
    ("submission", "flags", "message"),
    [r[1:] for r in REMAP_REFUSALS],
    ids=[r[0] for r in REMAP_REFUSALS],
)
def test_bad_remap_input_is_refused_and_nothing_written(
    rotated: Path, submission: Any, flags: dict[str, str | None], message: str
) -> None:
    (rotated / "old.json").write_text(json.dumps(submission))
    (rotated / "keep.txt").write_text("do not touch")
    args: dict[str, str | None] = {
        "--remap-submission": str(rotated / "old.json"),
        "--letter-map": str(rotated / "rotated" / "letter_map.json"),
        "--out": str(rotated / "new.json"),
    }
    args.update({f: str(rotated / v) if v else v for f, v in flags.items()})
    argv = [
        item
        for flag, value in args.items()
        if value is not None
        for item in ([flag, value] if value else [flag])
    ]
    before = snapshot(rotated)
    status, out, err = run(argv)
    assert (status, out) == (1, "")
    assert message in err
    assert snapshot(rotated) == before


def test_damaged_letter_map_is_refused(rotated: Path) -> None:
    path = rotated / "rotated" / "letter_map.json"
    letter_map = json.loads(path.read_bytes())
    letter_map["questions"][0]["old_to_new"]["A"] = letter_map["questions"][0]["old_to_new"]["B"]
    path.write_text(json.dumps(letter_map))
    (rotated / "old.json").write_text(json.dumps(_valid_submission()))
    status, _, err = run(
        [
            "--remap-submission",
            str(rotated / "old.json"),
            "--letter-map",
            str(path),
            "--out",
            str(rotated / "new.json"),
        ]
    )
    assert status == 1
    first = letter_map["questions"][0]["example_id"]
    assert f"1 map is not a reordering of A.. ({first})" in err
    assert not (rotated / "new.json").exists()


def test_help_works() -> None:
    with pytest.raises(SystemExit) as exc, contextlib.redirect_stdout(io.StringIO()) as out:
        reshuffle_options.main(["--help"])
    assert exc.value.code == 0
    assert "--remap-submission" in out.getvalue() and "Example:" in out.getvalue()


# --- the shipped demo key, as a maintainer runs it --------------------------------------------


@pytest.mark.slow
def test_rotating_the_demo_key_from_the_command_line(tmp_path: Path) -> None:
    """As a maintainer runs it, a process, from another folder than the repository's."""
    out_dir = tmp_path / "rotated"
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--private",
            str(DEMO_PRIVATE),
            "--public",
            str(DEMO_PUBLIC),
            "--salt",
            SALT,
            "--key-version",
            "demo-2",
            "--out-dir",
            str(out_dir),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, "")
    old = load_answer_key(DEMO_PRIVATE.read_bytes())
    new = load_answer_key((out_dir / "annotations_private.json").read_bytes())
    assert (new.key_version, len(new)) == ("demo-2", 500)
    check_spread(old, new)

    rows = {
        line.split()[0]: line.split()
        for line in done.stdout.splitlines()
        if line[:1] in LETTERS and line[1:2] == " "
    }
    assert sorted(rows) == list(LETTERS)
    for letter, (_, offered, _, after, _, score_after, chance) in rows.items():
        assert int(offered) == sum(letter in q.options for q in new.questions)
        assert int(after) == sum(q.answer == letter for q in new.questions)
        # Spread within every stratum puts each always-letter score at chance.
        assert abs(float(score_after) - float(chance)) < 1.0, rows[letter]
    always_a = json.dumps(
        [{"example_id": q.id, "predicted_answer": "A"} for q in new.questions]
    ).encode()
    assert f"{score(new, always_a).metrics['overall']:.1f}" == rows["A"][5]
    assert SALT not in done.stdout
    for name in OUTPUTS:
        assert SALT.encode() not in (out_dir / name).read_bytes()

    remapped = tmp_path / "sample_v2.json"
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--remap-submission",
            str(DEMO_SUBMISSION),
            "--letter-map",
            str(out_dir / "letter_map.json"),
            "--out",
            str(remapped),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert (
        score(new, remapped.read_bytes()).counts == score(old, DEMO_SUBMISSION.read_bytes()).counts
    )


#: sha256 of what the script wrote for the demo key (SALT, key version demo-2) before
#: benchmarks were specs (scripts/reshuffle_options.py at the commit before the spec, run on
#: the same files): the rotation of a published key must not change with the code around it.
PINNED = {
    "annotations_private.json": "705fbeb17d84319a63185b1fda805a78788690b1c2921759e5cabb9e2d6fba0b",
}
#: The demo sample remapped then, before a remap named the new version on every entry (so a
#: remapped file is not remapped twice): the bytes written now, once each entry's
#: "key_version" is dropped.
PINNED_UNVERSIONED_SAMPLE = "e31e44f7111e6dd5147732cd4e632bc1d240189b4cb9054b4b059893caaed69e"
#: The public file and the letter map of that rotation, when public rows named no version:
#: the public file is those bytes once each row's "key_version" is dropped, and the letter
#: map's questions (its permutation) are the same.
PINNED_UNVERSIONED_PUBLIC = "f530ed88b70b9da211ff52967c16df123208f7b9ced204531aec4405cfeb1c2a"
PINNED_PERMUTATION = "9f8c6ee116e59c10087225db9ac6c973a94ac1054c93d20618737e0e09a8f644"
#: ...and as they are now that every public row names its key version (demo-1, then demo-2).
PINNED_VERSIONED = {
    "annotations_public.jsonl": "5d7dd88894bba1eb408c655cb2c5017ede9e6542c7b7fd7e52cd0a3b11f3f0b9",
    "letter_map.json": "abfc5be65c0ffc810fa22a59bafc052e5f1ca8a871060bd2525e099e8dc23092",
}


def test_the_demo_rotation_is_byte_identical_to_the_one_before_the_spec(tmp_path: Path) -> None:
    out_dir = tmp_path / "rotated"
    status, _, err = run(
        [
            "--benchmark",
            "egomemreason",
            "--private",
            str(DEMO_PRIVATE),
            "--public",
            str(DEMO_PUBLIC),
            "--salt",
            SALT,
            "--key-version",
            "demo-2",
            "--out-dir",
            str(out_dir),
        ]
    )
    assert (status, err) == (0, "")
    status, _, err = run(
        [
            "--remap-submission",
            str(DEMO_SUBMISSION),
            "--letter-map",
            str(out_dir / "letter_map.json"),
            "--out",
            str(out_dir / "sample_v2.json"),
        ]
    )
    assert (status, err) == (0, "")
    pinned = {**PINNED, **PINNED_VERSIONED}
    assert {
        name: hashlib.sha256((out_dir / name).read_bytes()).hexdigest() for name in pinned
    } == pinned

    rows = [
        json.loads(line)
        for line in (out_dir / "annotations_public.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert {row.pop("key_version") for row in rows} == {"demo-2"}
    unversioned = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()
    assert hashlib.sha256(unversioned).hexdigest() == PINNED_UNVERSIONED_PUBLIC
    entries = json.loads((out_dir / "sample_v2.json").read_bytes())
    assert {entry.pop("key_version") for entry in entries} == {"demo-2"}
    unversioned = (json.dumps(entries, indent=1, ensure_ascii=False) + "\n").encode()
    assert hashlib.sha256(unversioned).hexdigest() == PINNED_UNVERSIONED_SAMPLE
    questions = json.loads((out_dir / "letter_map.json").read_bytes())["questions"]
    assert hashlib.sha256(json.dumps(questions).encode()).hexdigest() == PINNED_PERMUTATION
