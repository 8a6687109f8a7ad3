"""Maintainer scripts and board folders given hostile files: devices, pipes, links, huge files.

Each used to misbehave: ``--private /dev/zero`` ended in a MemoryError traceback, a named pipe
as ``--submission`` hung, and symbolic links inside a board folder were followed (to the key,
to ``/proc/self/environ``). Now each is refused in one line that says why, before any read.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ledger
import spec
from tests.support import ROOT
from tests.support.scripts import run_script, run_script_process

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track()
KEY = BENCH.demo_key(TRACK)
SAMPLE = BENCH.demo_dir / "sample_submission.json"
PUBLISH = [
    "scripts/publish_submission.py",
    "--team-name",
    "T",
    "--method-name",
    "M",
    "--model-size",
    "7B",
    "--uses-external",
    "no",
    "--uses-frames",
    "frames-only",
]


def run(*args: str, timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """A script's ``main([...])`` in this process; with a ``timeout``, as the README runs it
    (a process, so a read that would block fails the test instead of hanging it: ``slow``)."""
    if timeout is None:
        return run_script(*args)
    return run_script_process(*args, timeout=timeout)


def one_line_error(done: subprocess.CompletedProcess[str], *words: str) -> str:
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    first = done.stderr.strip().splitlines()[0]
    for word in words:
        assert word in first, first
    return first


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "submission.json"
    os.mkfifo(path)
    return path


def test_a_device_as_the_key_is_refused_without_reading_it(tmp_path: Path) -> None:
    done = run(*PUBLISH, "--dry-run", "--submission", str(SAMPLE), "--private", "/dev/zero")
    one_line_error(done, "/dev/zero is a character device, not a regular file")


@pytest.mark.slow
def test_a_named_pipe_as_the_submission_is_refused_at_once(fifo: Path) -> None:
    # Nobody writes to the pipe: reading it would block forever (the timeout would fire).
    done = run(*PUBLISH, "--dry-run", "--submission", str(fifo), "--private", str(KEY), timeout=30)
    one_line_error(done, "is a named pipe, not a regular file")


@pytest.mark.slow
def test_reproduce_and_reshuffle_refuse_devices_and_pipes_too(fifo: Path, tmp_path: Path) -> None:
    record = BENCH.demo_board / "submissions" / "5694e658-3eb0-487c-b1e2-cba563c80b88.json"
    one_line_error(
        run(
            "scripts/reproduce_row.py",
            "--record",
            str(record),
            "--submission",
            str(fifo),
            "--private",
            str(KEY),
            timeout=30,
        ),
        "named pipe",
    )
    one_line_error(
        run(
            "scripts/reshuffle_options.py",
            "--private",
            "/dev/zero",
            "--public",
            str(BENCH.demo_public(TRACK)),
            "--salt",
            "x" * 20,
            "--key-version",
            "v9",
            "--out-dir",
            str(tmp_path / "out"),
        ),
        "character device",
    )


def test_a_file_past_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as out:  # sparse: no disk is used
        out.truncate(ledger.files.INPUT_LIMIT_BYTES + 1)
    done = run(*PUBLISH, "--dry-run", "--submission", str(SAMPLE), "--private", str(huge))
    one_line_error(done, "huge.json is 64.0 MB", "at most 64 MB")
    # A submission has the Space's own bound (ledger.submission_file: 5 MB).
    done = run(*PUBLISH, "--dry-run", "--submission", str(huge), "--private", str(KEY))
    one_line_error(done, "huge.json is 64.0 MB", "at most 5 MB")


@pytest.mark.server
def test_the_app_refuses_a_device_as_its_key_in_one_line() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEADERBOARD_")}
    done = subprocess.run(
        [sys.executable, "app.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "LEADERBOARD_ANSWER_KEY": "/dev/zero"},
    )
    assert done.returncode == 1
    assert done.stderr.strip().startswith("error: LEADERBOARD_ANSWER_KEY")
    assert "Traceback" not in done.stderr


def _board_with_links(tmp_path: Path) -> tuple[Path, list[Path]]:
    board = tmp_path / "board"
    store = ledger.LocalStore(board)
    for path in (BENCH.demo_board / "submissions").glob("*.json"):
        store.write(ledger.Record.from_json(path.read_bytes()), "copy")
    links = []
    for name, target in (
        ("11111111-1111-4111-8111-111111111111", KEY),
        ("22222222-2222-4222-8222-222222222222", Path("/proc/self/environ")),
    ):
        link = board / "submissions" / f"{name}.json"
        link.symlink_to(target)
        links.append(link)
    return board, links


def test_links_in_a_board_folder_are_never_followed_by_the_board(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEAKED_SECRET", "do-not-show-this-value")
    board, links = _board_with_links(tmp_path)
    with caplog.at_level(logging.WARNING):
        snap = ledger.BoardCache(ledger.LocalStore(board), BENCH, TRACK).snapshot()
    assert len(snap.records) == 21
    assert {f"submissions/{link.name}" for link in links} <= set(snap.skipped)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert logged.count("is a symbolic link; links are not followed") == 2
    assert "do-not-show-this-value" not in logged and '"samples"' not in logged


def test_links_in_a_board_folder_stop_the_scripts_with_the_reason(tmp_path: Path) -> None:
    board, _ = _board_with_links(tmp_path)
    done = run(
        *PUBLISH,
        "--dry-run",
        "--leaderboard-dir",
        str(board),
        "--submission",
        str(SAMPLE),
        "--private",
        str(KEY),
    )
    line = one_line_error(done, "is a symbolic link")
    assert "correct_answer" not in done.stderr + done.stdout
    assert json.dumps(str(KEY)) not in line
