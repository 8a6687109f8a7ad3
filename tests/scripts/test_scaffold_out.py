"""scripts/new_benchmark.py's --out (issue 28, item 1): relative or absolute, and never a
half-written folder.

Observed: any relative --out (the README writes ``--out benchmarks/mybench``) ended in a
``KeyError: PosixPath(...)`` traceback from maintainer/scaffold.py and left a half-written
folder that a rerun refused ("not empty").
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

import spec
from errors import ScaffoldError
from maintainer import scaffold
from scripts import new_benchmark
from tests.support import ROOT
from tests.support.published_releases import LAYOUTS, write_published
from tests.test_docs import _project_code, benchmark_facts_in

DEMO_KEY = ROOT / "benchmarks" / "egomemreason" / "demo" / "annotations_private.json"


def test_a_relative_out_writes_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(DEMO_KEY, tmp_path / "annotations_private.json")
    code = new_benchmark.main(
        ["--id", "x", "--key", "annotations_private.json", "--out", "benchmarks/x"]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Traceback" not in err
    assert spec.load_benchmark(str(tmp_path / "benchmarks" / "x")).id == "x"


def test_a_folder_that_does_not_check_is_not_left_half_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A release whose written folder does not check (forced here) leaves nothing behind, so
    the rerun is not refused as "not empty"."""
    folder = tmp_path / "work"
    folder.mkdir()
    key = folder / "key.jsonl"
    rows = [
        {"example_id": n, "question": f"q{n}?", "options": {"A": "a", "B": "b"},
         "correct_answer": "A", "kind": "xy"[n % 2]}
        for n in range(40)
    ]  # fmt: skip
    key.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = folder / "bench"

    def failing_check(*args: object) -> None:
        raise ScaffoldError("the folder does not check (forced)")

    with monkeypatch.context() as patched:
        patched.setattr(scaffold, "_check", failing_check)
        code = new_benchmark.main(["--id", "x", "--key", str(key), "--out", str(out)])
    assert code == 1
    assert "forced" in capsys.readouterr().err
    assert not out.exists()
    assert list(folder.iterdir()) == [key]
    assert new_benchmark.main(["--id", "x", "--key", str(key), "--out", str(out)]) == 0


# --- a new folder never breaks the tests that read every folder ------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_scaffolded_folder_passes_the_checks_every_folder_gets(
    layout: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In a repository (a new one, with a copy of the project's .gitignore), a
    folder written into benchmarks/ has its key's lines added to .gitignore, scoped to where a
    maintainer drops the key (the demo's key stays in git), and leaves no placeholder that the
    code's own strings hold (tests/test_docs.py's check of every folder; observed: the
    scaffold's 'maintainers@example.org' and 'As the benchmark gives it' failed it)."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    shutil.copy(ROOT / ".gitignore", repo / ".gitignore")
    release = write_published(tmp_path / "release", layout)
    out = repo / "benchmarks" / "mine"
    args = ["--id", "mine", "--key", str(release.key), "--out", str(out), *release.flags]
    assert new_benchmark.main(args) == 0
    name = release.key.name
    assert f"{repo / '.gitignore'} now ignores /{name} /release/{name}" in capsys.readouterr().out
    places = [name, f"release/{name}", f"benchmarks/mine/{name}", f"rotated/{name}"]
    others = [f"some/where/{name}", f"benchmarks/mine/demo/{name}"]
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", *places, *others],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert done.stdout.split() == places, done.stdout
    assert benchmark_facts_in([out], _project_code()) == []
    # A second folder with a key of the same name adds only its own folder's line.
    again = repo / "benchmarks" / "again"
    args = ["--id", "again", "--key", str(release.key), "--out", str(again), *release.flags]
    assert new_benchmark.main(args) == 0
    lines = (repo / ".gitignore").read_text().splitlines()
    assert lines.count(f"/release/{name}") == 1 and f"/benchmarks/again/{name}" in lines


def test_the_next_commands_it_prints_run_from_a_folder_with_spaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The "next:" commands name the folder, the key and the public file as a shell reads
    them: unquoted, a path with a space was two words (the copied command failed)."""
    folder = tmp_path / "with space-folder"
    folder.mkdir()
    monkeypatch.chdir(folder)
    key = folder / "the keys" / "annotations_private.json"  # a file's name takes no space
    key.parent.mkdir()
    shutil.copy(DEMO_KEY, key)
    out = folder / "benchmarks" / "my bench"
    assert new_benchmark.main(["--id", "x", "--key", str(key), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    validate, run = printed.split("next: check benchmark.toml, then\n")[1].strip().splitlines()
    words = shlex.split(validate)
    assert words[words.index("--benchmark") + 1] == str(out)
    assert words[words.index("--private") + 1] == str(key)
    assert Path(words[words.index("--public") + 1]).is_file()
    assert shlex.split(run) == [f"LEADERBOARD_BENCHMARK={out}", "make", "run"]
