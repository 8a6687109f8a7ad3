"""A benchmark of two tracks, each released in its authors' own layout (issue 19), served by
``python app.py``: ``/score`` over HTTP with no track named tells each track from the
predictions file its authors' evaluation writes (a JSON object keyed by id, each value
``{"prediction": <index>, "answer": ...}``; the ids' shape tells the tracks apart, both
values being alike) and gives the authors' own numbers (``tests.support.native_releases``).

Before the fix the file told no track ("The file's entries carry no track's fields"): the
puzzles' predictions were read as the first track's, and refused.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.app_server import AppServer
from tests.support.gradio_http import GradioHTTP, file_data
from tests.support.native_releases import authors_numbers, authors_tallies, write_two_tracks


@pytest.mark.server
def test_score_tells_each_track_of_a_native_release_and_gives_the_authors_numbers(
    tmp_path: Path,
) -> None:
    folder, main, puzzles = write_two_tracks(tmp_path)
    with (
        AppServer(env={"LEADERBOARD_BENCHMARK": str(folder)}) as server,
        GradioHTTP(server.url) as http,
    ):
        outcomes = {
            release.layout: http.call(
                "score",
                [
                    file_data(http.upload("predictions.json", release.predictions.read_bytes())),
                    None,
                ],
            )
            for release in (main, puzzles)
        }
    for release, track in ((main, "main"), (puzzles, "puzzles")):
        outcome = outcomes[release.layout]
        assert outcome.ok, outcome.message
        [numbers] = outcome.data
        assert numbers["track"] == track
        counts = {k: (c["correct"], c["total"]) for k, c in numbers["counts"].items()}
        assert counts == authors_tallies(release)
        expected = {k: float(f"{v:.1f}") for k, v in authors_numbers(release).items()}
        assert numbers["metrics"] == expected
