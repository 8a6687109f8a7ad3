"""A short-answer release from release to served board (issue 29): scaffolded with its flags
alone, its authors' row published on a local board, and ``python app.py`` serving both with the
real key. The model's outputs, uploaded as published, score over /score exactly what the
reference scorer (``tests.support.short_answers``, from the issue's statement of the official
rules) gives per subject, per discipline and overall, at the board's precision; /leaderboard
lists the row with the reference's numbers in full; and the About tab says the rules the spec
declares.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests.support.app_server import AppServer
from tests.support.gradio_http import GradioHTTP, file_data
from tests.support.short_answers import reference_numbers, reference_tallies, served_board


@pytest.mark.server
def test_the_app_scores_the_reference_numbers_and_serves_the_row_and_the_rules(
    tmp_path: Path,
) -> None:
    release, env = served_board(tmp_path)
    with AppServer(env=env) as server, GradioHTTP(server.url) as http:
        config = httpx.get(server.url + "/config", timeout=30).text
        rows = http.call("leaderboard", [])
        uploaded = http.upload(release.outputs.name, release.outputs.read_bytes())
        outcome = http.call("score", [file_data(uploaded, release.outputs.name)])
    assert outcome.ok, outcome.message
    [numbers] = outcome.data
    tallies, reference = reference_tallies(release), reference_numbers(release)
    assert {k: (c["correct"], c["total"]) for k, c in numbers["counts"].items()} == tallies
    assert numbers["metrics"] == {k: float(f"{v:.1f}") for k, v in reference.items()}
    assert numbers["withheld"] == {} and numbers["n_abstained"] == 1
    assert numbers["chance"] == pytest.approx(100 * 156 / 9 / 180)
    assert rows.ok
    [listed] = rows.data
    [row] = [r for r in listed if r["method_name"] == "Their model"]
    assert {k: row[k] for k in reference} == reference  # full precision, to the last digit
    about = json.loads(config)
    texts = json.dumps(about)
    assert "How Main scores a response" in texts
    assert "the response must be exactly the answer" in texts
    assert "rounded to 2 decimals" in texts and "on the last line only" in texts
    assert "ground_truth" not in texts.replace('"ground_truth"', "")  # no key values, only names
