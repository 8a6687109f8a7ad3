"""/score at the precision a benchmark publishes (issue 28, item 4), through ``python app.py``.

A release scaffolded with ``new_benchmark.py --decimals 2`` (``tests.support.two_decimals``)
is served with its real key and the board its authors' row was published on: /score returns
67.55, not the 67.5 a percent was fixed at, and its intervals at two decimals; /leaderboard
keeps the record's full value.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import evaluator
from tests.support.app_server import AppServer
from tests.support.gradio_http import GradioHTTP, file_data
from tests.support.two_decimals import CHANCE, OVERALL, RIGHT, write_release


@pytest.mark.server
def test_score_returns_the_published_precision_and_the_board_keeps_full_values(
    tmp_path: Path,
) -> None:
    release = write_release(tmp_path)
    env = {
        "LEADERBOARD_BENCHMARK": str(release.folder),
        "LEADERBOARD_ANSWER_KEY": str(release.key),
        "LEADERBOARD_RECORDS_DIR": str(release.board),
    }
    with AppServer(env=env) as server, GradioHTTP(server.url) as http:
        uploaded = http.upload("predictions.json", release.predictions.read_bytes())
        scored = http.call("score", [file_data(uploaded)])
        board = http.call("leaderboard", [])
    assert scored.ok, scored.message
    [numbers] = scored.data
    assert numbers["metrics"] == {"overall": 67.55, "perception": 67.11, "reasoning": 68.0}
    low, high = evaluator.wilson_interval(sum(RIGHT.values()), 151)
    assert numbers["intervals"]["overall"] == [round(low, 2), round(high, 2)]
    assert numbers["counts"]["overall"] == {"correct": 102, "total": 151}
    assert numbers["chance"] == CHANCE  # exact, as always
    assert board.ok, board.message
    [rows] = board.data
    [row] = rows
    assert row["overall"] == OVERALL and row["overall_ci_low"] == low
