"""A release taken through the README's steps for a benchmark's authors, in process: the
folder scaffolded from its key (``new_benchmark.py``), the authors' row published on a board of
its own (``publish_submission.py``), and the environment that serves the benchmark with its
real key and that board."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from scripts import new_benchmark, publish_submission


def served_release(
    root: Path, bench_id: str, key: Path, outputs: Path, flags: Sequence[str]
) -> dict[str, str]:
    """Scaffold ``root/<bench_id>`` from ``key`` with the scaffold's ``flags``, publish
    ``outputs`` as the authors' row on ``root/board``; the app's environment for them."""
    out = root / bench_id
    args = ["--id", bench_id, "--key", str(key), "--out", str(out), *flags]
    assert new_benchmark.main(args) == 0
    board = root / "board"
    board.mkdir()
    # The maintainer lists the authors' row, as the README's maintainer does.
    assert publish_submission.main(
        ["--benchmark", str(out), "--leaderboard-dir", str(board), "--submission",
         str(outputs), "--private", str(key), "--team-name", "Authors",
         "--method-name", "Their model", "--model-size", "7B", "--uses-external", "no",
         "--uses-frames", "default"]
    ) == 0  # fmt: skip
    return {
        "LEADERBOARD_BENCHMARK": str(out),
        "LEADERBOARD_ANSWER_KEY": str(key),
        "LEADERBOARD_RECORDS_DIR": str(board),
    }
