"""Which track a submission keyed by id is written for (issue 19): a JSON object
``{"<id>": {"prediction": 2, ...}, ...}`` or ``{"<id>": "B", ...}``, what a benchmark's own
evaluation often writes, is told by its keys (the shape of a track's ids: an integer id is
decimal digits, an id of several fields holds their join) and by its values (the prediction's
fields, or a prediction written as the track writes its answers), each track's kind reading
them (``Kind.keyed_entry``); only the first ``SHAPE_SAMPLE`` entries are read.

Before the fix ``fitting_track`` read such an object as one entry whose fields are its ids, so
it told no track: "Detect from the file" and the scripts without ``--track`` fell back to the
first track.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import spec
from evaluator.track_fit import SHAPE_SAMPLE, fitting_track
from tests.support.native_releases import write_two_tracks
from tests.support.scripts import run_script

EGOARGUS = spec.load_benchmark("egoargus")


def _understanding_ids() -> list[str]:
    track = EGOARGUS.track("understanding")
    public = EGOARGUS.demo_public(track).read_text().splitlines()
    return [line.split(",", 1)[0] for line in public[1:6]]


def _data(value: Any) -> bytes:
    return json.dumps(value).encode()


@pytest.mark.parametrize(
    "value",
    [
        {"prediction": "B", "raw": "..."},  # an object holding the prediction under an alias
        {"predicted_answer": "B"},
        "B",  # the prediction itself
        None,  # an abstention
    ],
    ids=["alias", "prediction field", "letter", "null"],
)
def test_an_egoargus_file_keyed_by_id_is_the_understanding_track_s(value: object) -> None:
    keyed = {ident: value for ident in _understanding_ids()}
    fits = fitting_track(EGOARGUS, _data(keyed))
    assert fits is not None and fits.id == "understanding"


def test_a_keyed_object_whose_values_are_no_predictions_tells_no_track() -> None:
    ids = _understanding_ids()
    assert fitting_track(EGOARGUS, _data({i: "not a letter" for i in ids})) is None
    assert fitting_track(EGOARGUS, _data({i: {"score": 1} for i in ids})) is None
    # One decision entry written as an object on its own is still the decision track's.
    one = {"example_id": "ep-000001", "assist": True, "intervention_time_s": 3.0}
    fits = fitting_track(EGOARGUS, _data(one))
    assert fits is not None and fits.id == "decision"


def test_only_the_first_entries_of_a_keyed_object_are_read() -> None:
    first = _understanding_ids()[0]
    keyed: dict[str, Any] = {f"{first}-{n}": {"score": 1} for n in range(SHAPE_SAMPLE)}
    assert fitting_track(EGOARGUS, _data({**keyed, first: "B"})) is None  # past the sample
    assert fitting_track(EGOARGUS, _data({first: "B", **keyed})) is not None


@pytest.fixture
def two_tracks(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """A native release of two tracks (``write_two_tracks``): the folder, each track's
    predictions as its authors' evaluation writes them, and the puzzles' public file."""
    folder, main, puzzles = write_two_tracks(tmp_path)
    return folder, main.predictions, puzzles.predictions, folder / "demo" / puzzles.public.name


def test_a_native_release_s_keyed_predictions_tell_their_track(
    two_tracks: tuple[Path, Path, Path, Path],
) -> None:
    folder, main_predictions, puzzle_predictions, _ = two_tracks
    bench = spec.load_benchmark(str(folder))
    assert [t.id for t in bench.tracks] == ["main", "puzzles"]
    for path, track in ((main_predictions, "main"), (puzzle_predictions, "puzzles")):
        keyed = json.loads(path.read_text())
        # Both tracks' values carry "prediction": the ids' shape tells them apart.
        fits = fitting_track(bench, path.read_bytes())
        assert fits is not None and fits.id == track
        bare = {ident: value["prediction"] for ident, value in keyed.items()}
        fits = fitting_track(bench, _data(bare))
        assert fits is not None and fits.id == track


def test_validate_submission_without_track_checks_keyed_predictions_on_their_track(
    two_tracks: tuple[Path, Path, Path, Path],
) -> None:
    folder, _, puzzle_predictions, puzzle_public = two_tracks
    done = run_script(
        "validate_submission.py",
        *("--benchmark", str(folder), "--public", str(puzzle_public), str(puzzle_predictions)),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("valid: an entry for each of the 30 "), done.stdout
    assert done.stdout.endswith(": 30 answered, 0 without an answer\n"), done.stdout
