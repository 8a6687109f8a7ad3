"""A short-answer release as published (issue 29), through the README's scripts alone: a key
keyed by id with multiple-choice questions whose answers are letters A-I with no option texts
anywhere, open questions whose answers are texts or lists of accepted texts, its subjects in its
ids and disciplines over them. ``new_benchmark.py`` scaffolds it with its flags only,
``validate_benchmark.py`` passes it, the model's outputs as published score what the reference
scorer (``tests.support.short_answers``, from the issue's statement of the official rules)
gives per subject, per discipline and overall, ``publish_submission.py`` records exactly those
numbers on a local board, ``reproduce_row.py`` reproduces the row, and
``reshuffle_options.py`` refuses to rotate letters whose options it cannot see.

Before issue 29 the scaffold refused the key ("cannot find answer_dict_val.json's options").
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import evaluator
import spec
from scripts import (
    new_benchmark,
    publish_submission,
    reproduce_row,
    reshuffle_options,
    validate_benchmark,
    validate_submission,
)
from tests.support import ROOT
from tests.support.published_releases import write_published
from tests.support.short_answers import (
    DISCIPLINES,
    ShortRelease,
    reference_numbers,
    reference_right,
    reference_tallies,
    write_short_release,
)


@pytest.fixture
def release(tmp_path: Path) -> ShortRelease:
    return write_short_release(tmp_path / "release")


def scaffolded(release: ShortRelease, out: Path) -> spec.ShortAnswerTrack:
    args = ["--id", "shortbench", "--key", str(release.key), "--out", str(out), *release.flags]
    assert new_benchmark.main(args) == 0
    return spec.load_benchmark(str(out)).track(kind=spec.ShortAnswerTrack)


def test_the_scaffold_reads_it_with_its_flags_and_the_outputs_score_the_reference(
    release: ShortRelease, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    track = scaffolded(release, tmp_path / "bench")
    said = capsys.readouterr().out
    assert "question_type tells multiple-choice (multiple-choice, letters ABCDEFGHI)" in said
    assert "grouped by subject (from the id): Art_Theory 30" in said
    assert track.fields.levels == ("id",) and track.fields.id_pattern is not None
    assert [a.label for a in track.aggregates] == list(DISCIPLINES)
    public = tmp_path / "bench" / "release" / track.public.name
    assert "ground_truth" not in public.read_text()
    assert validate_benchmark.main(
        ["--benchmark", str(tmp_path / "bench"), "--private", str(release.key), "--public",
         str(public)]
    ) == 0  # fmt: skip
    assert validate_submission.main(
        ["--benchmark", str(tmp_path / "bench"), "--public", str(public), str(release.outputs)]
    ) == 0  # fmt: skip
    key = evaluator.load_answer_key(track, release.key.read_bytes())
    result = evaluator.score(key, release.outputs.read_bytes())
    tallies = reference_tallies(release)
    assert {k: (c.correct, c.total) for k, c in result.counts.items()} == tallies
    assert result.metrics == reference_numbers(release)  # to the last digit
    assert result.n_abstained == 1
    # The release holds right and wrong responses of both kinds of question.
    rows = json.loads(release.key.read_text())
    outputs = json.loads(release.outputs.read_text())
    for kind in ("multiple-choice", "short-answer"):
        judged = [
            reference_right(kind, row["ground_truth"], outputs[ident])
            for ident, row in rows.items()
            if row["question_type"] == kind
        ]
        assert 0 < sum(judged) < len(judged), kind


def test_a_published_record_holds_the_reference_numbers_and_reproduces(
    release: ShortRelease, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scaffolded(release, tmp_path / "bench")
    board = tmp_path / "board"
    board.mkdir()
    args = [
        "--benchmark", str(tmp_path / "bench"), "--leaderboard-dir", str(board),
        "--submission", str(release.outputs), "--private", str(release.key),
        "--team-name", "Authors", "--method-name", "Their model", "--model-size", "7B",
        "--uses-external", "no", "--uses-frames", "default",
    ]  # fmt: skip
    assert publish_submission.main(args) == 0, capsys.readouterr().err
    [path] = (board / "submissions").glob("*.json")
    record = json.loads(path.read_text())
    assert record["metrics"] == reference_numbers(release)  # exactly, float for float
    assert {k: (c["correct"], c["total"]) for k, c in record["counts"].items()} == (
        reference_tallies(release)
    )
    assert record["track"] == "main" and record["benchmark"] == "shortbench"
    capsys.readouterr()
    assert reproduce_row.main(
        ["--benchmark", str(tmp_path / "bench"), "--leaderboard-dir", str(board), "--record",
         str(path), "--submission", str(release.outputs), "--private", str(release.key)]
    ) == 0  # fmt: skip
    assert "reproduced" in capsys.readouterr().out


def test_the_rotation_script_refuses_letters_whose_options_it_cannot_see(
    release: ShortRelease, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    track = scaffolded(release, tmp_path / "bench")
    public = tmp_path / "bench" / "release" / track.public.name
    salt = tmp_path / "salt.txt"
    salt.write_text("a-secret-salt-of-enough-characters-0123456789")
    code = reshuffle_options.main(
        ["--benchmark", str(tmp_path / "bench"), "--private", str(release.key), "--public",
         str(public), "--salt-file", str(salt), "--key-version", "v2", "--out-dir",
         str(tmp_path / "rotated")]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 1
    assert "shortbench/main is a short_answer track" in err
    assert "no option texts" in err and "cannot be rotated" in err
    assert not (tmp_path / "rotated").exists()


@pytest.mark.slow
def test_the_readme_walk_through_runs_as_written(release: ShortRelease, tmp_path: Path) -> None:
    """README, "Add a benchmark", short answers: its commands through bash, the release and the
    folder in the test's own folder; the last line serves what they wrote."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("**A release of short answers**") :]
    start = section.index("```sh\n") + 6
    block = section[start : section.index("```\n", start)]
    *commands, serve = [line for line in block.replace("\\\n", " ").splitlines() if line.strip()]
    assert serve == "LEADERBOARD_BENCHMARK=benchmarks/shortbench make run"
    script = "\n".join(commands).replace("benchmarks/shortbench", str(tmp_path / "shortbench"))
    script = script.replace("release/answer_dict_val.json", str(release.key))
    done = subprocess.run(
        ["bash", "-e", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "The main release is consistent: 180 rows" in done.stdout
    track = spec.load_benchmark(str(tmp_path / "shortbench")).track()
    assert track.labels["art_and_design"] == "Art and Design" and track.decimals == 1


@pytest.mark.parametrize(
    ("pattern", "said"),
    [
        (r"validation_(.+)_\d+", "has no named group: name the part of the id that is the group"),
        (r"val_(?P<subject>.+)_\d+", "does not match the id 'validation_Art_Theory_1'"),
        (r"validation_(?P<question_type>.+)_\d+", "the rows have a field 'question_type'"),
        (r"validation_(?P<subject>.+", "is not a regular expression"),
    ],
)
def test_a_group_from_id_that_gives_no_group_is_refused_and_leaves_nothing(
    release: ShortRelease,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    pattern: str,
    said: str,
) -> None:
    out = tmp_path / "bench"
    args = ["--id", "x", "--key", str(release.key), "--out", str(out), "--group-from-id", pattern]
    assert new_benchmark.main(args) == 1
    assert said in capsys.readouterr().err
    assert not out.exists()


def test_group_from_id_on_a_multiple_choice_release_is_refused_with_the_flag_to_give(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    published = write_published(tmp_path / "release", "keyed")
    args = ["--id", "x", "--key", str(published.key), "--out", str(tmp_path / "x")]
    assert new_benchmark.main([*args, "--group-from-id", r"q(?P<block>\d)\d+"]) == 1
    err = capsys.readouterr().err
    assert "is read as multiple-choice: give --group FIELD" in err
