"""Releases as real benchmarks publish them (issue 28), from release to served board: each
layout of ``tests.support.published_releases`` is scaffolded with its flags alone, served by
``python app.py`` with its real key, and the authors' predictions file, uploaded under its own
name (``preds.jsonl`` is JSON Lines), scores the release's official counts over /score, its
metrics at the precision of the release's own table (``--decimals``); the authors' row, listed
by ``publish_submission.py``, is on the served board with their numbers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.app_server import AppServer
from tests.support.gradio_http import GradioHTTP, file_data
from tests.support.published_releases import (
    LAYOUTS,
    official_numbers,
    official_tallies,
    write_published,
)
from tests.support.readme_steps import served_release


@pytest.mark.server
@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_app_serves_it_and_scores_the_official_numbers(layout: str, tmp_path: Path) -> None:
    release = write_published(tmp_path / "release", layout)
    env = served_release(tmp_path, layout, release.key, release.predictions, release.flags)
    with AppServer(env=env) as server, GradioHTTP(server.url) as http:
        page = http.get("/")
        rows = http.call("leaderboard", [])
        uploaded = http.upload(release.predictions.name, release.predictions.read_bytes())
        outcome = http.call("score", [file_data(uploaded, release.predictions.name)])
    assert page.status_code == 200 and rows.ok
    [[row]] = rows.data  # the authors' row, at full precision
    assert row["method_name"] == "Their model"
    assert row["overall"] == official_numbers(release)["overall"]
    assert outcome.ok, outcome.message
    [numbers] = outcome.data
    tallies = official_tallies(release)
    counted = {k: (c["correct"], c["total"]) for k, c in numbers["counts"].items() if k != "mean"}
    assert counted == tallies
    places = release.decimals  # the release's own table's: 2 for the nested one
    shown = {k: float(f"{v:.{places}f}") for k, v in official_numbers(release).items()}
    assert numbers["metrics"] == shown
    assert numbers["n_questions"] == tallies["overall"][1]
    assert numbers["withheld"] == {}
    assert json.loads(json.dumps(numbers))["answer_key_sha256"]
