"""scripts/validate_submission.py and what it stands on: ``evaluator.load_questions`` (a public
file's questions, without answers) and ``evaluator.validate`` (the check ``score`` runs first).

The script's message for a bad file must be the Score tab's, exactly: for a table of bad
submissions to every track of both shipped benchmarks, it is compared with ``evaluator.score``
on the real (demo) answer key. The script is called through ``main([...])`` and as a
subprocess, and never opens a private key.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import evaluator
import spec
from evaluator.kinds import decision
from scripts import validate_submission
from tests.support import ROOT
from tests.support.scripts import run_script


@dataclass(frozen=True)
class Case:
    """A track of a shipped benchmark, with its demo files."""

    bench: spec.Benchmark
    track: spec.Track
    sample: Path  # the demo's sample submission of the track

    @property
    def name(self) -> str:
        return f"{self.bench.id}/{self.track.id}"

    @property
    def public(self) -> Path:
        return self.bench.demo_public(self.track)

    @property
    def key(self) -> evaluator.AnyKey:
        return KEYS[self.name]

    def entries(self) -> list[dict[str, Any]]:
        loaded: list[dict[str, Any]] = json.loads(self.sample.read_text(encoding="utf-8"))
        return loaded

    def argv(self, submission: Path) -> list[str]:
        return [
            "--benchmark",
            self.bench.id,
            "--track",
            self.track.id,
            "--public",
            str(self.public),
            str(submission),
        ]


def _case(bench_id: str, track_id: str, sample: str) -> Case:
    bench = spec.load_benchmark(bench_id)
    return Case(bench, bench.track(track_id), bench.demo_dir / sample)


CASES = {
    c.name: c
    for c in (
        _case("egomemreason", "memory", "sample_submission.json"),
        _case("egoargus", "understanding", "sample_submission.json"),
        _case("egoargus", "decision", "decision_sample_submission.json"),
    )
}

MULTIPLE_CHOICE = [
    n for n, c in CASES.items() if c.track in c.bench.tracks_of(spec.MultipleChoiceTrack)
]
DECISION = [n for n, c in CASES.items() if c.track in c.bench.tracks_of(spec.DecisionTrack)]


def _lettered(case: Case) -> spec.MultipleChoiceTrack:
    """The case's track, which has option letters (SpecError if it has none)."""
    return case.bench.track(case.track.id, kind=spec.MultipleChoiceTrack)


def _demo_key(case: Case) -> bytes:
    return case.bench.demo_key(case.track).read_bytes()


#: The demo keys of the multiple-choice cases, and of every case.
LETTERED_KEYS = {
    n: evaluator.kinds.multiple_choice.load_key(_lettered(CASES[n]), _demo_key(CASES[n]))
    for n in MULTIPLE_CHOICE
}
KEYS: dict[str, evaluator.AnyKey] = {
    **LETTERED_KEYS,
    **{n: evaluator.load_answer_key(CASES[n].track, _demo_key(CASES[n])) for n in DECISION},
}


Edit = Callable[[Case], bytes]


def dumps(value: object) -> bytes:
    return json.dumps(value).encode("utf-8")


def edited(change: Callable[[Case, list[Any]], object]) -> Edit:
    """The sample submission, changed in place by ``change``, as JSON bytes."""

    def build(case: Case) -> bytes:
        entries: list[Any] = case.entries()
        change(case, entries)
        return dumps(entries)

    return build


def _id(case: Case) -> str:
    return case.track.fields.id


def _pred(case: Case) -> str:
    return _lettered(case).fields.prediction


def _rename(old: Callable[[Case], str], new: str, upto: int | None = None) -> Edit:
    def change(case: Case, entries: list[dict[str, Any]]) -> None:
        for e in entries[:upto]:
            e[new] = e.pop(old(case))

    return edited(change)


def _unknown_id(case: Case, entries: list[dict[str, Any]]) -> None:
    entries.append(
        {
            **entries[0],
            _id(case): 999_999 if case.track.fields.id_type == "integer" else "no-such-id",
        }
    )


def _wrong_id_type(case: Case, entries: list[dict[str, Any]]) -> None:
    ident = entries[4][_id(case)]
    entries[4][_id(case)] = str(ident) if isinstance(ident, int) else 5


def _set_answer(value: object, where: Callable[[Case], int] = lambda c: 0) -> Edit:
    def change(case: Case, entries: list[dict[str, Any]]) -> None:
        entries[where(case)][_pred(case)] = value

    return edited(change)


def _a_four_option_question(case: Case) -> int:
    """The position of the sample's first answer to a question with four options."""
    four = {q.id for q in LETTERED_KEYS[case.name].questions if len(q.options) == 4}
    return next(i for i, e in enumerate(case.entries()) if e[_id(case)] in four)


def _set(name: str, value: object, at: int = 0) -> Edit:
    def change(case: Case, entries: list[dict[str, Any]]) -> None:
        entries[at][name] = value

    return edited(change)


def _drop(name: str, at: int = 0) -> Edit:
    return edited(lambda case, entries: entries[at].pop(name))


EVERY_TRACK: list[tuple[str, Edit]] = [
    ("not-json", lambda case: b"example_id,predicted_answer\n1,B\n"),
    ("empty-file", lambda case: b""),
    ("utf-16", lambda case: case.sample.read_text(encoding="utf-8").encode("utf-16")),
    ("results-object", lambda case: dumps({"results": case.entries()})),
    ("predictions-object", lambda case: dumps({"predictions": case.entries()})),
    ("a-number", lambda case: b"17"),
    ("empty-list", lambda case: b"[]"),
    ("far-too-long", lambda case: dumps(case.entries()[:1] * (4 * len(case.key) + 1))),
    ("one-missing", edited(lambda case, entries: entries.pop())),
    ("twelve-missing", edited(lambda case, entries: entries.__delitem__(slice(3, 15)))),
    ("duplicate", edited(lambda case, entries: entries.extend(entries[:3]))),
    ("unknown-id", edited(_unknown_id)),
    ("wrong-id-type", edited(_wrong_id_type)),
    ("not-objects", edited(lambda case, entries: entries.__setitem__(slice(0, 2), [1, "x"]))),
    ("sample_id-everywhere", _rename(_id, "sample_id")),
    ("sample_id-on-some", _rename(_id, "sample_id", upto=3)),
    ("id-everywhere", _rename(_id, "id")),
]


def _several_problems(case: Case, entries: list[dict[str, Any]]) -> None:
    entries[0][_pred(case)] = "ZZ"
    entries.pop()
    entries.append(entries[1])
    _unknown_id(case, entries)


MULTIPLE_CHOICE_ONLY: list[tuple[str, Edit]] = [
    ("pred-everywhere", _rename(_pred, "pred")),
    ("answer-on-some", _rename(_pred, "answer", upto=2)),
    ("no-prediction", edited(lambda case, entries: entries[0].pop(_pred(case)))),
    ("letter-out-of-range", _set_answer("J", _a_four_option_question)),
    ("decorated-letter", _set_answer("(A)")),
    ("letter-and-text", _set_answer("A. a kettle")),
    ("first-capital", _set_answer("T")),
    ("number", _set_answer(2)),
    ("several-problems", edited(_several_problems)),
]
DECISION_ONLY: list[tuple[str, Edit]] = [
    ("assist-yes", _set(decision.ASSIST, "yes")),
    ("assist-number", _set(decision.ASSIST, 1, at=2)),
    ("no-assist", _drop(decision.ASSIST, at=3)),
    ("time-as-text", _set(decision.TIME, "12.5")),
    ("negative-time", _set(decision.TIME, -1.5, at=6)),
    ("no-time", _drop(decision.TIME, at=1)),
    (
        "jsonl-broken-line",
        lambda case: b"\n".join(dumps(e) for e in case.entries()[:2]) + b'\n{"example_id": ',
    ),
]
BAD = (
    [pytest.param(CASES[n], edit, id=f"{n}-{label}") for n in CASES for label, edit in EVERY_TRACK]
    + [
        pytest.param(CASES[n], edit, id=f"{n}-{label}")
        for n in MULTIPLE_CHOICE
        for label, edit in MULTIPLE_CHOICE_ONLY
    ]
    + [
        pytest.param(CASES[n], edit, id=f"{n}-{label}")
        for n in DECISION
        for label, edit in DECISION_ONLY
    ]
)


def score_tab_message(case: Case, data: bytes) -> str:
    """What the Score tab says of ``data``: ``evaluator.score``'s message on the real key."""
    with pytest.raises(evaluator.SubmissionError) as info:
        evaluator.score(case.key, data)
    return str(info.value)


@pytest.mark.parametrize(("case", "edit"), BAD)
def test_a_bad_submission_gets_exactly_the_score_tab_message(
    case: Case, edit: Edit, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = edit(case)
    expected = score_tab_message(case, data)
    submission = tmp_path / "submission.json"
    submission.write_bytes(data)
    assert validate_submission.main(case.argv(submission)) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == expected + "\n"


@pytest.mark.parametrize("case", CASES.values(), ids=CASES)
def test_the_demo_sample_submission_passes(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    result = evaluator.score(case.key, case.sample.read_bytes())
    assert validate_submission.main(case.argv(case.sample)) == 0
    out, err = capsys.readouterr()
    noun = evaluator.kind_of(case.track).ROWS[1]
    version = (
        f"key version {result.key_version}"
        if result.key_version is not None
        else "unversioned: the public file names no key_version"
    )
    assert out == (
        f"valid: an entry for each of the {len(case.key)} {noun} of {case.name} ({version}): "
        f"{len(case.key) - result.n_abstained} answered, {result.n_abstained} without an answer\n"
    )
    assert err == ""


def test_the_summary_names_answers_abstentions_questions_and_the_key_version(
    capsys: pytest.CaptureFixture[str],
) -> None:
    case = CASES["egomemreason/memory"]
    assert validate_submission.main(case.argv(case.sample)) == 0
    assert capsys.readouterr().out == (
        "valid: an entry for each of the 500 questions of egomemreason/memory "
        "(key version demo-1): 489 answered, 11 without an answer\n"
    )


def test_a_file_of_empty_answers_is_valid_and_said_to_answer_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 31, item 13: it was "valid: 500 answers, 500 abstentions"."""
    case = CASES["egomemreason/memory"]
    entries = [{**e, "predicted_answer": None} for e in case.entries()]
    submission = tmp_path / "empty.json"
    submission.write_bytes(dumps(entries))
    assert validate_submission.main(case.argv(submission)) == 0
    out = capsys.readouterr().out
    assert out.startswith("valid: an entry for each of the 500 questions")
    assert out.endswith(": 0 answered, 500 without an answer\n")


# --- the questions of a public file ---------------------------------------------------------------


def test_predictions_of_any_name_are_read_by_their_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As Score reads them (issue 28): JSON Lines named .jsonl, JSON named .txt or with no
    suffix pass; a table gets Score's message; a file over 5 MB Score's words, whatever its
    name. (Every name but .json was refused before: "Upload a .json file".)"""
    case = CASES["egomemreason/memory"]
    lines = b"".join(dumps(e) + b"\n" for e in case.entries())
    for name, data in (("run.jsonl", lines), ("run.txt", case.sample.read_bytes()), ("run", lines)):
        path = tmp_path / name
        path.write_bytes(data)
        assert validate_submission.main(case.argv(path)) == 0, capsys.readouterr().err
        assert capsys.readouterr().out.endswith(": 489 answered, 11 without an answer\n"), name
    table = tmp_path / "answers.csv"
    table.write_bytes(b"example_id,predicted_answer\n1,A\n")
    assert validate_submission.main(case.argv(table)) == 1
    assert capsys.readouterr().err == score_tab_message(case, table.read_bytes()) + "\n"
    big = tmp_path / "big.jsonl"
    big.write_bytes(b" " * (6 * 2**20))
    assert validate_submission.main(case.argv(big)) == 1
    assert capsys.readouterr().err == "The file is 6.0 MB; the limit is 5 MB.\n"


@pytest.mark.parametrize("case", CASES.values(), ids=CASES)
def test_the_public_file_gives_the_questions_of_the_key_without_answers(case: Case) -> None:
    questions = evaluator.load_questions(case.track, case.public.read_bytes())
    assert questions == case.key.asked  # ids, letters, key version: all validation needs
    assert len(questions) == len(case.key)


def _answer_fields(case: Case) -> set[str]:
    """What a row of the case's key answers: what its public file must not hold."""
    for track in case.bench.tracks_of(spec.MultipleChoiceTrack):
        if track.id == case.track.id:
            flag = () if track.out_of_option is None else (track.out_of_option.field,)
            return {track.fields.answer, *flag}
    episodes = case.bench.track(case.track.id, kind=spec.DecisionTrack)
    return {episodes.scenarios.field, decision.ASSIST_TYPE, decision.TIME}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES)
def test_the_public_file_carries_no_answers(case: Case) -> None:
    """So nothing the script says can come from the key."""
    track = case.track
    rows = evaluator.read_rows(track, case.public.read_bytes(), track.public.format).records
    answer_fields = _answer_fields(case)
    assert rows and all(not answer_fields & set(r) for r in rows)


def test_validate_is_what_score_runs_first() -> None:
    case = CASES["egomemreason/memory"]
    questions = evaluator.load_questions(_lettered(case), case.public.read_bytes())
    answers = evaluator.validate(questions, case.sample.read_bytes())
    assert answers == {
        e["example_id"]: (e["predicted_answer"] or "").strip().upper() or None
        for e in case.entries()
    }


def _public_rows(case: Case) -> list[dict[str, Any]]:
    track = case.track
    return [
        dict(r)
        for r in evaluator.read_rows(track, case.public.read_bytes(), track.public.format).records
    ]


def _jsonl(rows: list[dict[str, Any]]) -> bytes:
    return b"".join(dumps(r) + b"\n" for r in rows)


def test_a_public_file_is_checked_as_the_key_is_but_for_the_answers() -> None:
    case = CASES["egomemreason/memory"]
    rows = _public_rows(case)
    rows[1]["example_id"] = 1
    rows[2]["options"] = {"A": "a", "B": "b", "D": "d", "E": "e"}
    with pytest.raises(evaluator.PublicFileError) as info:
        evaluator.load_questions(case.track, _jsonl(rows))
    assert str(info.value) == (
        "invalid public file annotations_public.jsonl: 1 duplicate example_id (1); 1 question "
        "whose option letters are not A.. without gaps, 4 to 10 of them (3)"
    )
    del rows[0]["options"]
    rows[5] = 17  # type: ignore[call-overload]
    with pytest.raises(evaluator.PublicFileError) as info:
        evaluator.load_questions(case.track, _jsonl(rows))
    assert str(info.value) == (
        "the public file annotations_public.jsonl has 2 invalid fields: example_id 1: options: "
        "Field required; the 6th question: entry: expected a JSON object"
    )


def test_a_decision_public_file_is_checked_for_its_ids() -> None:
    case = CASES["egoargus/decision"]
    rows = _public_rows(case)
    rows[3]["example_id"] = rows[0]["example_id"]
    with pytest.raises(
        evaluator.PublicFileError,
        match=r"^invalid public file "
        r"decision_public\.jsonl: 1 duplicate example_id \(ep-000001\)$",
    ):
        evaluator.load_questions(case.track, _jsonl(rows))
    del rows[3]["example_id"]
    with pytest.raises(
        evaluator.PublicFileError,
        match=r"has 1 invalid field: the 4th episode: "
        r"example_id: Field required$",
    ):
        evaluator.load_questions(case.track, _jsonl(rows))
    with pytest.raises(evaluator.PublicFileError, match="no episodes at all"):
        evaluator.load_questions(case.track, b"\n")


def test_a_bad_public_file_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = CASES["egomemreason/memory"]
    public = tmp_path / "annotations_public.jsonl"
    public.write_bytes(b'{"example_id": 1,\n')
    argv = ["--benchmark", case.bench.id, "--public", str(public), str(case.sample)]
    assert validate_submission.main(argv) == 1
    err = capsys.readouterr().err
    assert err == (
        f"error: --public {public}: the public file annotations_public.jsonl: line 1 "
        "is not valid JSON (Expecting property name enclosed in double quotes: line 1 "
        "column 18 (char 17))\n"
    )
    assert (
        validate_submission.main(
            [
                "--benchmark",
                case.bench.id,
                "--public",
                str(tmp_path / "absent.jsonl"),
                str(case.sample),
            ]
        )
        == 1
    )
    assert capsys.readouterr().err.startswith("error: cannot read the public file: ")


# --- as a subprocess ---------------------------------------------------------------------------

#: Runs the script as `python scripts/validate_submission.py ...` would, recording every file it
#: opens (an audit hook sees each open() however it is made).
AUDITED = textwrap.dedent("""
    import os, runpy, sys
    opened = []
    sys.addaudithook(lambda event, args: opened.append(os.fsdecode(args[0]))
                     if event == "open" and isinstance(args[0], (str, bytes, os.PathLike))
                     else None)
    sys.argv = ["scripts/validate_submission.py", *sys.argv[1:]]
    sys.path.insert(0, "scripts")  # as `python scripts/x.py` puts the script's folder first
    try:
        runpy.run_path("scripts/validate_submission.py", run_name="__main__")
    finally:
        sys.stdout.flush()
        print("\\nOPENED " + "\\nOPENED ".join(opened), file=sys.stderr)
""")


def run_audited(*args: str) -> tuple[subprocess.CompletedProcess[str], list[str], str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-c", AUDITED, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    message, _, listed = proc.stderr.partition("\nOPENED ")
    return proc, listed.rstrip("\n").split("\nOPENED "), message


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES.values(), ids=CASES)
def test_as_a_subprocess_it_never_opens_a_private_key(case: Case, tmp_path: Path) -> None:
    proc, opened, message = run_audited(*case.argv(case.sample))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("valid: ")
    assert message == ""
    assert str(case.public) in opened and str(case.sample) in opened
    keys = {
        t.key.name
        for b in (spec.load_benchmark(n) for n in ("egomemreason", "egoargus"))
        for t in b.tracks
    }
    assert not [p for p in opened if Path(p).name in keys]

    bad = tmp_path / "bad.json"
    data = dumps(case.entries()[:-1])
    bad.write_bytes(data)
    proc, opened, message = run_audited(*case.argv(bad))
    assert proc.returncode == 1 and proc.stdout == ""
    assert message == score_tab_message(case, data) + "\n"
    assert not [p for p in opened if Path(p).name in keys]


def test_the_benchmark_defaults_to_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES["egoargus/understanding"]
    monkeypatch.setenv("LEADERBOARD_BENCHMARK", "egoargus")
    proc = run_script("validate_submission.py", "--public", str(case.public), str(case.sample))
    assert proc.returncode == 0, proc.stderr
    assert "each of the 6978 questions of egoargus/understanding" in proc.stdout


def test_help_names_the_public_file_and_shows_an_example(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        validate_submission.main(["--benchmark", "egoargus", "--track", "decision", "--help"]) == 0
    )
    text = capsys.readouterr().out
    assert "Example:" in text and "python scripts/validate_submission.py" in text
    assert "decision_public.jsonl (jsonl)" in text
