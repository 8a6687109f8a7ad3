"""Releases as real benchmarks publish them (issue 28), through the scaffold's flags alone: an
object keyed by id, an object nested by video and dimension, options inside the question with
answers written "B. right" and no category field. Each is scaffolded (``new_benchmark.main``),
its real key and the public file it wrote pass ``validate_benchmark.main``, and the authors'
predictions file, as published, scores the release's official counts (``official_tallies``:
plain Python over the files) per group and overall. The served app is
``tests/app/test_published_releases.py``.

Before issue 28 the scaffold refused the first two ('expected a JSON list of objects or
{"samples": [...]}') and the third ("no column ... has 2 to 12 values ... give --group").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import evaluator
import spec
from scripts import new_benchmark, validate_benchmark
from tests.support.published_releases import (
    LAYOUTS,
    Published,
    official_numbers,
    official_tallies,
    write_published,
)


def scaffolded(release: Published, out: Path) -> spec.Benchmark:
    """The release through new_benchmark.py with its flags only; the folder's spec."""
    args = ["--id", release.layout, "--key", str(release.key), "--out", str(out)]
    assert new_benchmark.main([*args, *release.flags]) == 0
    return spec.load_benchmark(str(out))


@pytest.fixture(params=LAYOUTS)
def release(request: pytest.FixtureRequest, tmp_path: Path) -> Published:
    return write_published(tmp_path / "release", request.param)


def test_the_scaffold_reads_it_and_its_predictions_score_the_official_counts(
    release: Published, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = scaffolded(release, tmp_path / "bench")
    said = capsys.readouterr().out
    track = bench.track(kind=spec.MultipleChoiceTrack)
    public = tmp_path / "bench" / "release" / track.public.name
    assert validate_benchmark.main(
        ["--benchmark", str(tmp_path / "bench"), "--private", str(release.key), "--public",
         str(public)]
    ) == 0  # fmt: skip
    key = evaluator.kinds.multiple_choice.load_key(track, release.key.read_bytes())
    scored = evaluator.score(key, release.predictions.read_bytes())
    tallies = official_tallies(release)
    counted = {k: (c.correct, c.total) for k, c in scored.counts.items() if k != "mean"}
    assert counted == tallies
    assert scored.metrics == pytest.approx(official_numbers(release), abs=0, rel=1e-15)
    if release.layout == "inquestion":
        assert "not grouped" in said and track.groupings == () and track.total == 60
        assert "'vid_name' has a value on fewer than 10 rows" in said
        assert "'split' has 1 value" in said


def test_a_keyed_key_is_declared_by_levels_and_its_public_file_is_keyed_too(
    tmp_path: Path,
) -> None:
    release = write_published(tmp_path / "release", "keyed")
    track = scaffolded(release, tmp_path / "bench").track(kind=spec.MultipleChoiceTrack)
    assert track.fields.levels == ("id",) and track.fields.id == "id"
    assert track.fields.id_type == "string" and track.fields.options == "options"
    # Grouped by its category, not by the numeric width column (three values too).
    assert [g.field for g in track.groupings] == ["category"]
    public = json.loads((tmp_path / "bench" / "release" / track.public.name).read_text())
    assert set(public["q0001"]) == {"question", "options", "category", "width"}


def test_a_nested_key_s_levels_make_the_id_and_its_groups_merge_as_the_flags_say(
    tmp_path: Path,
) -> None:
    release = write_published(tmp_path / "release", "nested")
    track = scaffolded(release, tmp_path / "bench").track(kind=spec.MultipleChoiceTrack)
    assert track.fields.levels == ("video", "dimension")
    assert track.fields.id == "video+dimension+position"
    assert track.fields.options == "events"  # a field holding a JSON list, inferred
    key = evaluator.kinds.multiple_choice.load_key(track, release.key.read_bytes())
    assert key.ids[:3] == ("video_00_color_0", "video_00_color_1", "video_00_count_0")
    assert {g.key: g.values for g in track.groups}["motion"] == ("speed", "direction")
    [mean] = track.aggregates
    assert mean.aggregation == "macro" and track.members(mean) == (
        "color",
        "count",
        "location",
        "motion",
    )


def test_a_group_too_small_to_show_is_refused_with_the_fixes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    release = write_published(tmp_path / "release", "inquestion")
    args = ["--id", "x", "--key", str(release.key), "--out", str(tmp_path / "x")]
    assert new_benchmark.main([*args, "--group", "vid_name"]) == 1
    err = capsys.readouterr().err
    assert "'vid_name' makes 12 of its 12 groups smaller than 10 questions" in err
    assert "--merge" in err and "Overall alone" in err
    assert new_benchmark.main([*args, "--group", "split"]) == 1
    assert "'split' has one value on every row (dev): a group would repeat Overall" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "x").exists()


def test_a_nested_key_needs_its_levels_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    release = write_published(tmp_path / "release", "nested")
    args = ["--id", "x", "--key", str(release.key), "--out", str(tmp_path / "x")]
    assert new_benchmark.main(args) == 1
    assert (
        "test.json is an object nested 2 levels deep down to lists of rows: name its levels "
        "from the top with --id-fields (one name each, e.g. --id-fields video,dimension); got "
        "(none)"
    ) in capsys.readouterr().err
