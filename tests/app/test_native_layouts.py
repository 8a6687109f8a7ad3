"""A benchmark as its authors publish it (issue 19): releases written in the authors' own
layouts and predictions in their own evaluation's shape, served by ``python app.py`` and checked
by the scripts, with no converter and no Python change, giving the authors' own numbers.

The layouts (``tests.support.native_releases``): a CSV with a two-column id, options in
``a0`` ... ``a4`` and 0-based index answers, one group covering two type codes; a JSON key with
option lists and text answers; a JSON Lines key with 1-based index answers. Each predictions
file is a JSON object keyed by id, each value ``{"prediction": ..., "answer": ...}``. The
authors' numbers are computed from the files by a few lines of plain Python
(``authors_tallies``), not by the evaluator.

Before issue 19 every one of these stopped at the spec (``fields.id: expected a string``,
``fields.answer_format: unknown field``, a group value that is a list) or, with a converted
spec, at the predictions ("the top level is a JSON object").
"""

from __future__ import annotations

import json
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from tests.support.app_server import AppServer
from tests.support.gradio_http import GradioHTTP, file_data
from tests.support.native_releases import (
    LAYOUTS,
    Release,
    authors_numbers,
    authors_tallies,
    publish_args,
    write_release,
)
from tests.support.scripts import run_script

#: What answering at random scores on each release, the float nearest the exact value (the
#: option counts are the builder's: videoqa has every third of its 60 questions with four
#: options, textqa every fourth of its 40 with three), not a sum of floats' rounding.
CHANCE = {
    "videoqa": float(100 * (Fraction(20, 4) + Fraction(40, 5)) / 60),
    "textqa": float(100 * (Fraction(10, 3) + Fraction(30, 4)) / 40),
    "onebased": 25.0,
}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    """A script's ``main([...])`` in this process (``args[0]`` the script's path)."""
    return run_script(*args)


@pytest.fixture(params=LAYOUTS)
def release(request: pytest.FixtureRequest, tmp_path: Path) -> Release:
    return write_release(tmp_path, request.param)


@pytest.mark.server
def test_the_app_serves_and_scores_it_with_the_authors_numbers(release: Release) -> None:
    with (
        AppServer(env={"LEADERBOARD_BENCHMARK": str(release.folder)}) as server,
        GradioHTTP(server.url) as http,
    ):
        uploaded = http.upload("predictions.json", release.predictions.read_bytes())
        outcome = http.call("score", [file_data(uploaded)])
        assert outcome.ok, outcome.message
        [numbers] = outcome.data
        # A refused file gets the messages in the release's own names and formats.
        wrong = json.loads(release.predictions.read_text())
        first = next(iter(wrong))
        bad = "nope" if release.layout == "textqa" else 99
        wrong[first] = {"prediction": bad, "answer": 0}
        refused = http.call("score", [file_data(http.upload("w.json", json.dumps(wrong).encode()))])
    tallies = authors_tallies(release)
    # Counts exact, metrics at the board's precision (one decimal), chance exact.
    assert {k: (c["correct"], c["total"]) for k, c in numbers["counts"].items()} == tallies
    assert numbers["metrics"] == {k: float(f"{v:.1f}") for k, v in authors_numbers(release).items()}
    assert numbers["chance"] == CHANCE[release.layout]
    assert numbers["n_questions"] == tallies["overall"][1] and numbers["n_abstained"] == 0
    assert not refused.ok
    assert "1 answer is not among their question's options" in refused.message
    if release.layout == "textqa":
        assert "valid an option's text or A-" in refused.message
    else:
        assert "(valid 0-" in refused.message or "(valid 1-" in refused.message


def test_validate_benchmark_and_validate_submission_take_it_as_it_is(release: Release) -> None:
    checked = _run(
        "scripts/validate_benchmark.py",
        "--benchmark",
        str(release.folder),
        "--private",
        str(release.key),
        "--public",
        str(release.public),
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "release is consistent" in checked.stdout
    if release.layout == "videoqa":
        assert "CW + CH 24" in checked.stdout  # the merged group, with its size
    valid = _run(
        "scripts/validate_submission.py",
        "--benchmark",
        str(release.folder),
        "--public",
        str(release.public),
        str(release.predictions),
    )
    assert valid.returncode == 0, valid.stdout + valid.stderr
    rows = authors_tallies(release)["overall"][1]
    assert valid.stdout.startswith(f"valid: an entry for each of the {rows} "), valid.stdout
    assert valid.stdout.endswith(f": {rows} answered, 0 without an answer\n"), valid.stdout


def test_a_published_record_holds_the_authors_numbers_to_the_last_digit(
    release: Release, tmp_path: Path
) -> None:
    board = tmp_path / "board"
    board.mkdir()
    done = _run(
        "scripts/publish_submission.py",
        *publish_args(release, board),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [path] = (board / "submissions").glob("*.json")
    record = json.loads(path.read_text())
    assert record["metrics"] == authors_numbers(release)  # exactly, float for float
