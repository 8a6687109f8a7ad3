"""The scripts on a benchmark of several tracks, and on files the Space would not take (issue
21): validate_submission.py refuses what Score refuses, in Score's words (a file over 5 MB; any
name is read by its bytes since issue 28), reads the track from the file's entries as Score's
"Detect from the file" does, and names the track a misplaced file belongs to; reproduce_row.py
re-scores a record on the benchmark and track the record names."""

from __future__ import annotations

from pathlib import Path

import pytest

import spec
from errors import NotAnUpload
from scripts import reproduce_row, validate_submission
from web import score_handlers

ARGUS = spec.load_benchmark("egoargus")
EGOMEM = spec.load_benchmark("egomemreason")
DEMO = ARGUS.demo_dir
DECISION_SAMPLE = DEMO / "decision_sample_submission.json"
#: The demo board's DemoVLM-7B decision row, scored from DECISION_SAMPLE.
DECISION_ROW = DEMO / "leaderboard" / "submissions" / "b136b870-1043-44fe-ba5e-cf57ac225388.json"


def _read_upload(submission: object, upload_dir: str) -> bytes:
    """The bytes the Score tab reads of an upload (its own checks: the file must be in the
    upload folder and within the size limit)."""
    file, _ = score_handlers._upload(submission, upload_dir)
    return score_handlers._read(file)


def _score_tab_says(path: Path) -> str:
    """What the Score tab (and /score) says of an upload ``path`` it refuses unread:
    score_handlers' own check."""
    with pytest.raises(NotAnUpload) as refused:
        _read_upload({"path": str(path)}, str(path.parent))
    return str(refused.value)


def test_a_file_score_refuses_unread_is_refused_in_its_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    track = EGOMEM.track()
    path = tmp_path / "big.json"  # valid JSON, past the Space's 5 MB (once taken as valid)
    path.write_bytes(
        EGOMEM.demo_dir.joinpath("sample_submission.json").read_bytes()[:-1]
        + b" " * (6 * 2**20)
        + b"]"
    )
    argv = ["--benchmark", "egomemreason", "--public", str(EGOMEM.demo_public(track)), str(path)]
    assert validate_submission.main(argv) == 1
    assert capsys.readouterr().err.strip() == _score_tab_says(path)


def test_a_file_of_any_name_is_read_by_both_as_its_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 28: JSON named .csv is read by Score and passes the script (both refused it,
    "Upload a .json file", before)."""
    sample = EGOMEM.demo_dir.joinpath("sample_submission.json").read_bytes()
    path = tmp_path / "answers.csv"
    path.write_bytes(sample)
    assert _read_upload({"path": str(path)}, str(path.parent)) == sample
    argv = ["--benchmark", "egomemreason", "--public", str(EGOMEM.demo_public(EGOMEM.track()))]
    assert validate_submission.main([*argv, str(path)]) == 0
    assert capsys.readouterr().out.startswith("valid: an entry for each of the 500 questions")


def test_the_track_is_the_one_the_entries_tell(capsys: pytest.CaptureFixture[str]) -> None:
    decision = ARGUS.track("decision")
    argv = ["--benchmark", "egoargus", "--public", str(ARGUS.demo_public(decision))]
    assert validate_submission.main([*argv, str(DECISION_SAMPLE)]) == 0
    assert "of egoargus/decision" in capsys.readouterr().out


def test_another_track_s_public_file_names_the_track_to_pass(
    capsys: pytest.CaptureFixture[str],
) -> None:
    decision, understanding = ARGUS.track("decision"), ARGUS.track("understanding")
    public = ARGUS.demo_public(decision)
    argv = ["--benchmark", "egoargus", "--track", "understanding", "--public", str(public)]
    assert validate_submission.main([*argv, str(DEMO / "sample_submission.json")]) == 1
    err = capsys.readouterr().err
    assert f"{public.name} is the decision track's public file: pass --track decision" in err
    # The track told by the entries, the other track's public file given: give this one's.
    argv = ["--benchmark", "egoargus", "--public", str(ARGUS.demo_public(understanding))]
    assert validate_submission.main([*argv, str(DECISION_SAMPLE)]) == 1
    err = capsys.readouterr().err
    assert f"give the decision track's public file, {public.name}" in err


def test_reproduce_row_takes_the_benchmark_and_track_the_record_names(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("LEADERBOARD_BENCHMARK", raising=False)  # the default: egomemreason
    key = ARGUS.demo_key(ARGUS.track("decision"))
    argv = ["--record", str(DECISION_ROW), "--submission", str(DECISION_SAMPLE)]
    assert reproduce_row.main([*argv, "--private", str(key)]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.startswith("reproduced: DemoVLM-7B")
