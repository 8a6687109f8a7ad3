"""The charts draw what the board knows (issue 21, "State, layout and charts").

Observed: no chart drew an interval though every score has one; every axis was fixed at 0-100
(half of each plot empty); two palette entries (#F7F056, #CAE0AB) were hard to see on white;
the date chart's ticks repeated ("May 2026, May 2026, Jun 2026"). Read here through the specs
the Leaderboard tab's handlers give, on both benchmarks' demo boards.
"""

from __future__ import annotations

import datetime as dt
import functools
import time
from typing import Any

import numpy as np
import pytest

import ledger
import spec
from tests.support.demo_keys import demo_key
from tests.support.vega import checked_spec
from web import chart_parts, charts
from web.board import chart_handlers
from web.board import handlers as board_handlers
from web.board import ranks as board_ranks
from web.served import Served

BENCHES = {b: spec.load_benchmark(b) for b in ("egomemreason", "egoargus")}
TRACKS = [(bench, track) for bench in BENCHES.values() for track in bench.tracks]
IDS = [f"{bench.id}-{track.id}" for bench, track in TRACKS]


def _served(bench: spec.Benchmark, track: spec.Track) -> Served:
    key = demo_key(bench, track)
    status = ledger.KeyStatus(key, "synthetic demo key", demo=True, error=None)
    return Served(
        track, lambda: status, ledger.BoardCache(ledger.LocalStore(bench.demo_board), bench, track)
    )


@functools.cache
def _tab(bench_id: str) -> board_handlers.BoardTab:
    """The benchmark's Leaderboard tab on its demo board, built once a test process (the tests
    only read its charts)."""
    bench = BENCHES[bench_id]
    return board_handlers.board_tab(bench, [_served(bench, t) for t in bench.tracks], time.time)


@functools.cache
def _plots(bench_id: str, track_id: str) -> tuple[Any, Any, Any]:
    """The track's split, size and date charts as the tab draws them, drawn once."""
    tab = _tab(bench_id)
    _, _, split, size, date = chart_handlers.charts_of(tab, tab.tracks[track_id])
    return split, size, date


def _charts(bench: spec.Benchmark, track: spec.Track) -> tuple[dict[str, Any], ...]:
    """The track's split, size and date charts' specs (a fresh copy for each test)."""
    return tuple(checked_spec(plot) for plot in _plots(bench.id, track.id))


def _walk(spec_json: dict[str, Any]) -> list[dict[str, Any]]:
    """The spec and every layer in it, however deep."""
    out = [spec_json]
    for layer in spec_json.get("layer", []):
        out += _walk(layer)
    return out


def _domain(spec_json: dict[str, Any], channel: str) -> list[float]:
    domains = [
        layer["encoding"][channel]["scale"]["domain"]
        for layer in _walk(spec_json)
        if "domain" in layer.get("encoding", {}).get(channel, {}).get("scale", {})
    ]
    assert domains, channel
    return list(domains[0])


def _has_interval_layer(spec_json: dict[str, Any], channel: str) -> bool:
    """A layer drawing a rule from Low to High along ``channel``."""
    for layer in _walk(spec_json):
        mark = layer.get("mark")
        mark = mark.get("type") if isinstance(mark, dict) else mark
        enc = layer.get("encoding", {})
        if (
            mark == "rule"
            and enc.get(channel, {}).get("field") == "Low"
            and enc.get(f"{channel}2", {}).get("field") == "High"
        ):
            return True
    return False


@pytest.mark.parametrize(("bench", "track"), TRACKS, ids=IDS)
def test_every_bar_and_point_carries_its_95_interval(
    bench: spec.Benchmark, track: spec.Track
) -> None:
    split, size, date = _charts(bench, track)
    assert _has_interval_layer(split, "x")
    for scatter in (size, date):
        assert _has_interval_layer(scatter, "y")
    records = {
        r.method_name: r
        for r in ledger.BoardCache(ledger.LocalStore(bench.demo_board), bench, track)
        .snapshot()
        .records
    }
    keys = charts.chart_keys(track)
    by_label = {track.labels[k]: k for k in keys}
    drawn = [v for v in split["data"]["values"] if v["Low"] is not None]
    assert drawn
    for value in drawn:
        expected = board_ranks.shown_interval(
            records[value["Entry"]], track, by_label[value["Split"]]
        )
        assert expected is not None
        assert value["Low"] == pytest.approx(expected[0], abs=0.01)
        assert value["High"] == pytest.approx(expected[1], abs=0.01)
    for value in date["data"]["values"]:
        interval = board_ranks.shown_interval(records[value["Method"]], track, track.ranking)
        if interval is not None:
            assert value["Low"] <= value["Value"] <= value["High"]


@pytest.mark.parametrize(("bench", "track"), TRACKS, ids=IDS)
def test_the_axes_fit_the_data_and_its_intervals(bench: spec.Benchmark, track: spec.Track) -> None:
    split, size, date = _charts(bench, track)
    for spec_json, channel in ((split, "x"), (size, "y"), (date, "y")):
        values = spec_json["data"]["values"]
        field = "Value"
        # The levels marked across the plot (chance, reference policies) are on it too.
        levels = [
            v["Level"]
            for layer in _walk(spec_json)
            for v in layer.get("data", {}).get("values", [])
            if "Level" in v
        ]
        lows = [v["Low"] if v.get("Low") is not None else v[field] for v in values] + levels
        highs = [v["High"] if v.get("High") is not None else v[field] for v in values] + levels
        low, high = _domain(spec_json, channel)
        assert low <= min(lows) and high >= max(highs), (channel, low, high, lows, highs)
        # not the whole 0-100 whatever the data: at most a quarter of it beyond the data's span
        full = chart_parts.AXES[track.display[track.ranking]][1]
        if full is not None:
            slack = (high - low) - (max(highs) - min(lows))
            assert slack <= 0.25 * (full[1] - full[0]), (low, high, min(lows), max(highs))


def test_chance_is_marked_and_kept_on_the_axis() -> None:
    track = BENCHES["egomemreason"].track()
    keys = charts.chart_keys(track)
    series = {"A": {k: 60.0 for k in keys}}
    spec_json = checked_spec(charts.split_chart(series, "t", track, chance=20.0))
    low, high = _domain(spec_json, "x")
    assert low <= 20.0 <= high
    rules = [
        layer
        for layer in spec_json["layer"]
        if layer["encoding"].get("x", {}).get("field") == "Level"
        and layer["data"]["values"][0]["Level"] == 20.0
    ]
    assert rules, "no rule at chance"


def _luminance(colour: str) -> float:
    srgb = np.array([int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    linear = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    return float(np.dot([0.2126, 0.7152, 0.0722], linear))


def test_every_colour_is_readable_on_white() -> None:
    contrasts = {c: 1.05 / (_luminance(c) + 0.05) for c in charts.PALETTE}
    assert all(ratio >= 3.0 for ratio in contrasts.values()), contrasts  # WCAG 1.4.11
    assert not {"#F7F056", "#CAE0AB"} & {c.upper() for c in charts.PALETTE}


def _tick_labels(spec_json: dict[str, Any]) -> list[str]:
    """The date axis's tick labels, as its "%b %Y" format writes them (UTC)."""
    axes = [
        layer["encoding"]["x"]["axis"]
        for layer in _walk(spec_json)
        if layer.get("encoding", {}).get("x", {}).get("field") == "Date"
    ]
    assert axes
    values = axes[0]["values"]
    return [dt.datetime.fromtimestamp(v / 1000, dt.UTC).strftime("%b %Y") for v in values]


@pytest.mark.parametrize(("bench", "track"), TRACKS, ids=IDS)
def test_the_date_axis_names_each_month_once(bench: spec.Benchmark, track: spec.Track) -> None:
    _, _, date = _charts(bench, track)
    labels = _tick_labels(date)
    assert labels and len(labels) == len(set(labels)), labels


#: Marks whose length from the axis draws their value: their scale must start at zero.
LENGTH_MARKS = ("bar", "area")


def _mark(layer: dict[str, Any]) -> str | None:
    mark = layer.get("mark")
    return mark.get("type") if isinstance(mark, dict) else mark


@pytest.mark.parametrize(("bench", "track"), TRACKS, ids=IDS)
def test_a_bar_starts_at_zero_and_a_zoomed_axis_draws_dots(
    bench: spec.Benchmark, track: spec.Track
) -> None:
    """Issue 31, item 2: every bar started at a fitted axis' start (10 or 16 % on the boards,
    0.55 on the decision Score chart): a bar twice as long was not twice the score. Every
    length mark's quantitative scale includes zero, and a chart on a zoomed axis (one that
    leaves zero out) draws its values as dots, each with its interval."""
    board = _charts(bench, track)
    records = ledger.BoardCache(ledger.LocalStore(bench.demo_board), bench, track).snapshot()
    keys = charts.chart_keys(track)
    charted = [r for r in records.records if any(k in r.metrics for k in keys)]
    best = {r.method_name: dict(r.metrics) for r in charted[:2]}
    score = checked_spec(charts.split_chart(best, "You vs. the best", track, chance=None))
    for spec_json in (*board, score):
        for layer in _walk(spec_json):
            if _mark(layer) not in LENGTH_MARKS:
                continue
            for channel in ("x", "y"):
                encoding = layer["encoding"].get(channel, {})
                if encoding.get("type") != "quantitative":
                    continue
                scale = encoding.get("scale", {})
                domain = scale.get("domain")
                assert (domain is None and scale.get("zero", True)) or domain[0] <= 0, layer
                start = layer["encoding"].get(f"{channel}2", {}).get("datum", 0)
                assert start == 0, f"a bar from {start}, not from zero"
    for split in (board[0], score):  # on EgoMemReason's demo, from 10 %: zoomed
        values = [layer for layer in _walk(split) if layer.get("encoding", {}).get("x", {})]
        drawn = {_mark(la) for la in values if la["encoding"]["x"].get("field") == "Value"}
        assert drawn == {"point"}, drawn
        assert _has_interval_layer(split, "x")
