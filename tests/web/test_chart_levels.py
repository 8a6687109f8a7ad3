"""The charts mark the levels entries are read against (issue 21: "fit the axis to the data (with
chance marked)").

Observed: the board's size and date charts drew no chance line, and the decision board's
constant policies ("Always-assist", "Never-assist") were drawn as entries, points among the
models. Here chance (the key's, exact: ``evaluator.chance``) is a labelled dashed rule on the
multiple-choice tracks' charts, and a decision track's reference rows are labelled rules at
their level, not points; both readable on white (3:1 at least) and kept inside the fitted axis.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import evaluator
import ledger
import spec
from tests.support.demo_keys import demo_key
from tests.support.vega import checked_spec
from web import chart_parts, charts, scatter_charts

BENCHES = {b: spec.load_benchmark(b) for b in ("egomemreason", "egoargus")}
CHOICE = [
    (bench, track)
    for bench in BENCHES.values()
    for track in bench.tracks
    if track.kind == "multiple_choice"
]
DECISION_BENCH = BENCHES["egoargus"]
DECISION = DECISION_BENCH.track("decision")


def _records(bench: spec.Benchmark, track: spec.Track) -> tuple[ledger.Record, ...]:
    return ledger.BoardCache(ledger.LocalStore(bench.demo_board), bench, track).snapshot().records


def _layers(spec_json: dict[str, Any]) -> list[dict[str, Any]]:
    return list(chart_parts.walk(spec_json))


def _mark(layer: dict[str, Any]) -> dict[str, Any]:
    mark = layer.get("mark", {})
    return mark if isinstance(mark, dict) else {"type": mark}


def _levels(spec_json: dict[str, Any], channel: str) -> dict[str, float]:
    """The labelled dashed rules along ``channel``: label -> value (the rules and their labels
    are layers of the same data, the labels in one layer or split between the plot's ends)."""
    rules = [
        layer
        for layer in _layers(spec_json)
        if _mark(layer).get("type") == "rule"
        and _mark(layer).get("strokeDash")
        and layer["encoding"].get(channel, {}).get("field") == "Level"
    ]
    texts = [
        layer
        for layer in _layers(spec_json)
        if _mark(layer).get("type") == "text"
        and layer["encoding"].get(channel, {}).get("field") == "Level"
    ]
    labelled = [(v["Label"], v["Level"]) for t in texts for v in t["data"]["values"]]
    across = "x" if channel == "y" else "y"
    out: dict[str, float] = {}
    for rule in rules:
        drawn = [(v["Label"], v["Level"]) for v in rule["data"]["values"]]
        assert sorted(drawn) == sorted(labelled), "a rule without its label, or twice"
        # Across the whole plot, its own: the date chart's x, inherited, drew the rule nowhere.
        assert rule["encoding"][across] == {"value": 0}
        assert rule["encoding"][f"{across}2"] == {"value": "width" if across == "x" else "height"}
        out |= {v["Label"]: v["Level"] for v in rule["data"]["values"]}
    return out


def _domain(spec_json: dict[str, Any], channel: str) -> list[float]:
    return next(
        layer["encoding"][channel]["scale"]["domain"]
        for layer in _layers(spec_json)
        if "domain" in layer.get("encoding", {}).get(channel, {}).get("scale", {})
    )


def _contrast_on_white(colour: str) -> float:
    srgb = np.array([int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    linear = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    return 1.05 / (float(np.dot([0.2126, 0.7152, 0.0722], linear)) + 0.05)


def _colours(spec_json: dict[str, Any]) -> set[str]:
    return {
        _mark(layer)["color"]
        for layer in _layers(spec_json)
        if "Level" in json.dumps(layer.get("encoding", {})) and "color" in _mark(layer)
    }


@pytest.mark.parametrize(("bench", "track"), CHOICE, ids=[f"{b.id}-{t.id}" for b, t in CHOICE])
@pytest.mark.parametrize("chart", [scatter_charts.size_chart, scatter_charts.date_chart])
def test_the_scatters_of_a_multiple_choice_track_mark_its_chance(
    bench: spec.Benchmark, track: spec.Track, chart: Any
) -> None:
    key = demo_key(bench, track)
    assert isinstance(key, evaluator.AnswerKey)
    chance = evaluator.chance(key)  # exact: EgoMemReason's 4 to 10 options give 20.67 %
    assert chance is not None
    records = _records(bench, track)
    spec_json = checked_spec(chart(scatter_charts.plotted(records, track), track, chance))
    # chance, and the spec's reference policies (the paper's Random, an Always-A run)
    references = {
        f"{r.method_name}: {r.metrics[track.ranking]:.1f}": r.metrics[track.ranking]
        for r in records
        if track.reference_of(r.method_name, r.metrics)
    }
    assert references
    assert _levels(spec_json, "y") == {f"Chance: {chance:.1f} %": chance, **references}
    low, high = _domain(spec_json, "y")
    assert low <= chance <= high
    assert "chance" in spec_json["title"]["subtitle"][0]
    assert all(_contrast_on_white(c) >= 3.0 for c in _colours(spec_json))


def test_the_split_chart_labels_its_chance_rule() -> None:
    track = BENCHES["egomemreason"].track()
    series = {"A": {k: 60.0 for k in charts.chart_keys(track)}}
    spec_json = checked_spec(charts.split_chart(series, "t", track, chance=20.0))
    assert _levels(spec_json, "x") == {"Chance: 20.0 %": 20.0}  # as the board shows values
    low, high = _domain(spec_json, "x")
    assert low <= 20.0 <= high
    assert all(_contrast_on_white(c) >= 3.0 for c in _colours(spec_json))


@pytest.mark.parametrize("chart", [scatter_charts.size_chart, scatter_charts.date_chart])
def test_the_decision_scatters_draw_the_reference_policies_as_levels(chart: Any) -> None:
    records = _records(DECISION_BENCH, DECISION)
    references = {
        r.method_name: r.metrics[DECISION.ranking]
        for r in records
        if DECISION.reference_of(r.method_name, r.metrics) is not None
    }
    assert set(references) == {"Always-assist (synthetic)", "Never-assist (synthetic)"}
    spec_json = checked_spec(chart(scatter_charts.plotted(records, DECISION), DECISION))
    assert _levels(spec_json, "y") == {f"{m}: {v:.3f}": v for m, v in references.items()}
    points = {v["Method"] for v in spec_json["data"]["values"]}
    assert points and not points & set(references)  # a floor, not an entry
    low, high = _domain(spec_json, "y")
    assert low <= min(references.values()) and max(references.values()) <= high
    assert "reference policies" in spec_json["title"]["subtitle"][0]


def test_a_chart_without_levels_draws_no_level() -> None:
    bench = BENCHES["egomemreason"]
    track = bench.track()
    entries = [
        r for r in _records(bench, track) if not track.reference_of(r.method_name, r.metrics)
    ]
    spec_json = checked_spec(
        scatter_charts.size_chart(scatter_charts.plotted(entries, track), track)
    )
    assert _levels(spec_json, "y") == {}
    assert spec_json["title"]["subtitle"] == ["Lines: 95 % intervals"]
