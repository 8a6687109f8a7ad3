"""validate_benchmark.py catches everything the boot catches, and warns of what the boot would
withhold (issue 28, item 6).

A label given twice passed validate_benchmark.py and then stopped the boot ("the column group
'All' has the header(s) 'order' more than once"): the board's columns were checked by the page
alone. The spec now checks them as it loads (``spec.board_columns``), so the boot and the
script refuse such a folder with the same words. A ``min_rows`` written above a group's size
passed silently, and that group (and through it Overall) was then withheld from every
visitor's score: the script warns, naming the group and the fix, and the boot logs the same.

The script runs through its ``main([...])``; the boot is ``app.build_from_config`` on the folder.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

import app
import evaluator
import ledger
import spec
from errors import LeaderboardError
from tests.support.scripts import run_script

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track()


def _folder(tmp_path: Path, edit: Callable[[str], str]) -> Path:
    """A copy of EgoMemReason's folder with its benchmark.toml edited."""
    folder = tmp_path / "bench"
    shutil.copytree(BENCH.folder, folder)
    toml = folder / spec.SPEC_FILENAME
    text = toml.read_text(encoding="utf-8")
    edited = edit(text)
    assert edited != text
    toml.write_text(edited, encoding="utf-8")
    return folder


def _validate(folder: Path) -> subprocess.CompletedProcess[str]:
    return run_script(
        "validate_benchmark.py",
        *("--benchmark", str(folder)),
        *("--private", str(BENCH.demo_key(TRACK)), "--public", str(BENCH.demo_public(TRACK))),
    )


def _boot(folder: Path) -> str:
    """What the boot says of the folder: the error that stops it ("" if it boots)."""
    try:
        app.build_from_config(ledger.load_config({"LEADERBOARD_BENCHMARK": str(folder)}))
    except LeaderboardError as exc:
        return str(exc)
    return ""


def _label(metric: str, label: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        return re.sub(rf'(key = "{metric}",? *\n?\s*label = )"[^"]*"', rf'\1"{label}"', text)

    return edit


CLASHES: dict[str, tuple[Callable[[str], str], str]] = {
    # The case: two metrics of one track under one label (here Ordering, the group's).
    "a label twice": (
        _label("event", "Ordering"),
        "the column group 'All' has the header 'Ordering' more than once (the label of "
        "event and the label of event_ordering)",
    ),
    "a label an info column has": (
        _label("event_linking", "Source"),
        "the column group 'Query types' has the header 'Source' more than once",
    ),
    "the input label an info column's": (
        lambda text: text.replace('label = "Video input"', 'label = "Team"'),
        "the column group 'All' has the header 'Team' more than once (the info column team "
        "and the input label)",
    ),
    "a view titled as the app's group": (
        lambda text: text.replace('title = "Memory types"', 'title = "All"'),
        "the column group 'All' is declared twice",
    ),
    "two views of one title": (
        lambda text: text.replace('title = "Memory types"', 'title = "Query types"'),
        "the column group 'Query types' is declared twice",
    ),
}


@pytest.mark.parametrize("clash", list(CLASHES))
def test_what_stops_the_boot_stops_validate_in_the_same_words(clash: str, tmp_path: Path) -> None:
    edit, words = CLASHES[clash]
    folder = _folder(tmp_path, edit)
    booted = _boot(folder)
    assert words in booted, booted
    done = _validate(folder)
    assert done.returncode == 1, done.stdout
    assert words in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert f"{folder / spec.SPEC_FILENAME}" in done.stderr  # where to fix it
    assert (
        "give each metric (its label), view and info column a header of its own" in (done.stderr)
        or "give each view a title of its own" in done.stderr
    )


def test_the_shipped_folders_boot_and_validate_with_no_warning() -> None:
    assert _boot(BENCH.folder) == ""
    done = _validate(BENCH.folder)
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr


MIN_ROWS = 60  # above the 50 questions of Spatial and of Activity


def _min_rows(text: str) -> str:
    return text.replace("min_rows = 20", f"min_rows = {MIN_ROWS}")


def test_min_rows_above_a_group_is_a_warning_naming_the_group_and_the_fix(
    tmp_path: Path,
) -> None:
    folder = _folder(tmp_path, _min_rows)
    done = _validate(folder)
    assert done.returncode == 0, done.stderr  # a warning, not a failure
    assert "is consistent" in done.stdout
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 2, done.stderr
    for warning, (label, key) in zip(
        warnings,
        [("Spatial", "spatial_preference"), ("Activity", "activity_pattern")],
        strict=True,
    ):
        assert f"min_rows = {MIN_ROWS} is above the 50 questions of the group {label} ({key})" in (
            warning
        )
        # What it costs: the group, and Overall and Behavior through it, on every score.
        assert "Overall" in warning and "Behavior" in warning, warning
        assert "lower min_rows to 50" in warning and "benchmark.toml" in warning, warning


def test_the_boot_logs_the_same_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = _folder(tmp_path, _min_rows)
    bench = spec.load_benchmark(str(folder))
    track = bench.track(kind=spec.MultipleChoiceTrack)
    key = evaluator.kinds.multiple_choice.load_key(track, BENCH.demo_key(TRACK).read_bytes())
    expected = evaluator.release_warnings(key)
    assert len(expected) == 2
    with caplog.at_level(logging.WARNING):
        assert _boot(folder) == ""
    logged = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    for warning in expected:
        assert any(warning in line for line in logged), (warning, logged)
    # And a visitor's score shows what the warning says: Spatial, Behavior, Overall withheld
    # even from a file that answers every question.
    every = evaluator.score(key, _answer_key_as_submission(key))
    assert {"spatial_preference", "activity_pattern", "behavior", "overall"} <= set(every.withheld)


def _answer_key_as_submission(key: evaluator.AnswerKey) -> bytes:
    f = key.track.fields
    return json.dumps([{f.id: q.id, f.prediction: q.answer} for q in key.questions]).encode()
