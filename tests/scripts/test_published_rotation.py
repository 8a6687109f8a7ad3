"""Rotating a release in the layouts of issue 28 (a key keyed by id, a key nested by video and
dimension, options inside the question with answers written "B. right", no groups), through
``reshuffle_options.main`` in process: the rotated key and public file are written in the
release's own layout, validate, and keep every answer's text; the authors' predictions file
remapped with the letter map scores on the rotated key exactly what it scored on the old one,
in its own shape, without a joined id field of its own.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import evaluator
import spec
from scripts import new_benchmark, reshuffle_options, validate_benchmark
from tests.support.published_releases import LAYOUTS, Published, write_published

SALT = "a salt of sixteen or more characters"


def _scaffold(release: Published, out: Path) -> spec.MultipleChoiceTrack:
    args = ["--id", release.layout, "--key", str(release.key), "--out", str(out)]
    assert new_benchmark.main([*args, *release.flags]) == 0
    return spec.load_benchmark(str(out)).track(kind=spec.MultipleChoiceTrack)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_published_layout_rotates_in_its_own_layout_and_its_predictions_follow(
    layout: str, tmp_path: Path
) -> None:
    release = write_published(tmp_path / "release", layout)
    bench = tmp_path / "bench"
    track = _scaffold(release, bench)
    public = bench / "release" / track.public.name
    rotated = tmp_path / "rotated"
    common = ["--benchmark", str(bench)]
    assert reshuffle_options.main(
        [*common, "--private", str(release.key), "--public", str(public), "--salt", SALT,
         "--key-version", "v2", "--out-dir", str(rotated)]
    ) == 0  # fmt: skip
    new_key_path, new_public = rotated / release.key.name, rotated / public.name
    assert validate_benchmark.main(
        [*common, "--private", str(new_key_path), "--public", str(new_public)]
    ) == 0  # fmt: skip
    old = evaluator.kinds.multiple_choice.load_key(track, release.key.read_bytes())
    new = evaluator.kinds.multiple_choice.load_key(track, new_key_path.read_bytes())
    assert new.key_version == "v2" and old.ids == new.ids
    texts = {q.id: q.options[q.answer] for q in old.questions}
    assert {q.id: q.options[q.answer] for q in new.questions} == texts
    moved = [q.answer != n.answer for q, n in zip(old.questions, new.questions, strict=True)]
    assert sum(moved) > len(old) / 2
    if layout != "inquestion":  # a JSON object by levels stays one, no "samples" list
        written = json.loads(new_key_path.read_text())
        assert set(written) == set(json.loads(release.key.read_text()))
    remapped = tmp_path / f"remapped{release.predictions.suffix}"
    assert reshuffle_options.main(
        [*common, "--remap-submission", str(release.predictions), "--letter-map",
         str(rotated / "letter_map.json"), "--out", str(remapped)]
    ) == 0  # fmt: skip
    before = evaluator.score(old, release.predictions.read_bytes())
    after = evaluator.score(new, remapped.read_bytes())
    assert after.counts == before.counts and after.metrics == before.metrics
    assert "+" not in remapped.read_text()  # no "video+dimension+position" field
