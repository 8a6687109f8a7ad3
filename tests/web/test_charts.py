"""charts.py: the palette measured in normal and colour-blind vision, and the Vega-Lite specs of
the split, size and date charts on both benchmarks' demo boards, each validated by altair."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import ledger
import spec
from spec import Benchmark, Track
from tests.support.vega import checked_spec
from web import charts, scatter_charts
from web.board.chart_handlers import MAX_PICKS

BENCHES = {b: spec.load_benchmark(b) for b in ("egomemreason", "egoargus")}
TRACKS = [(bench, track) for bench in BENCHES.values() for track in bench.tracks]
TRACK_IDS = [f"{bench.id}-{track.id}" for bench, track in TRACKS]


def _board(bench: Benchmark, track: Track) -> tuple[ledger.Record, ...]:
    """The demo board as the app shows it (superseded records hidden)."""
    return ledger.BoardCache(ledger.LocalStore(bench.demo_board), bench, track).snapshot().records


def _layers(spec_json: dict[str, Any]) -> list[dict[str, Any]]:
    return list(spec_json.get("layer", [spec_json]))


def _marks(spec_json: dict[str, Any], mark: str) -> list[dict[str, Any]]:
    """The layers, however deep, drawing ``mark`` (the points, the bars; not the interval
    rules or the chance rule)."""
    found = []
    for layer in spec_json.get("layer", []):
        found += _marks(layer, mark)
    drawn = spec_json.get("mark")
    if (drawn.get("type") if isinstance(drawn, dict) else drawn) == mark:
        found.append(spec_json)
    return found


# --- the palette, as people with and without colour-vision deficiencies see it -----------------

#: Machado, Oliveira and Fernandes 2009, "A Physiologically-based Model for Simulation of Color
#: Vision Deficiency" (IEEE TVCG 15(6)), severity 1.0; applied to linear RGB.
DEFICIENCIES = {
    "deuteranopia": np.array(
        [
            [0.367322, 0.860646, -0.227968],
            [0.280085, 0.672501, 0.047413],
            [-0.011820, 0.042940, 0.968881],
        ]
    ),
    "protanopia": np.array(
        [
            [0.152286, 1.052583, -0.204868],
            [0.114503, 0.786281, 0.099216],
            [-0.003882, -0.048116, 1.051998],
        ]
    ),
}
VISIONS = ("normal", *DEFICIENCIES)

#: sRGB (D65) to XYZ, and the D65 white point (IEC 61966-2-1).
SRGB_TO_XYZ = np.array(
    [
        [0.4124564, 0.3575761, 0.1804375],
        [0.2126729, 0.7151522, 0.0721750],
        [0.0193339, 0.1191920, 0.9503041],
    ]
)
D65 = np.array([0.95047, 1.0, 1.08883])

#: The least CIELAB ΔE76 between two entries' colours. A just-noticeable difference is about
#: 2.3 (Sharma 2003), measured on large patches side by side; chart marks are small, thin bars
#: and legend swatches, and Szafir 2018 ("Modelling Color Difference for Visualization Design",
#: IEEE TVCG 24(1)) finds marks that size need several times that to be told apart. 10 is about
#: four just-noticeable differences: told apart at a glance, not on close comparison. Tol's
#: twelve keep at least 11.4 (orange and red in deuteranope vision); Vega's category10 falls to
#: 4.6 in protanope vision even before it repeats.
MIN_DELTA_E = 10.0

#: Vega's schemes: "category10" (d3's), and "tableau10", Vega-Lite's default since v4.
CATEGORY10 = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
TABLEAU10 = (
    "#4c78a8",
    "#f58518",
    "#e45756",
    "#72b7b2",
    "#54a24b",
    "#eeca3b",
    "#b279a2",
    "#ff9da6",
    "#9d755d",
    "#bab0ac",
)


def _lab(hex_colour: str, vision: str = "normal") -> np.ndarray:
    """CIELAB (D65) of an sRGB colour as a person of ``vision`` sees it."""
    srgb = np.array([int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    linear = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    if vision != "normal":
        linear = np.clip(DEFICIENCIES[vision] @ linear, 0, 1)
    t = SRGB_TO_XYZ @ linear / D65
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _closest(colours: Sequence[str], vision: str) -> tuple[float, str, str]:
    """The least ΔE76 between two of ``colours`` in ``vision``, and the two."""
    return min(
        (float(np.linalg.norm(_lab(a, vision) - _lab(b, vision))), a, b)
        for a, b in itertools.combinations(colours, 2)
    )


def _palette_problems(colours: Sequence[str]) -> list[str]:
    """Why the first MAX_PICKS of ``colours`` would not tell MAX_PICKS entries apart."""
    picked = [c.lower() for c in colours[:MAX_PICKS]]
    problems = []
    if len(picked) < MAX_PICKS:
        problems.append(f"{len(picked)} colours for {MAX_PICKS} entries")
    twice = sorted({c for c in picked if picked.count(c) > 1})
    if twice:
        problems.append(f"{', '.join(twice)} more than once")
    for vision in VISIONS:
        distance, a, b = _closest(picked, vision)
        if distance < MIN_DELTA_E:
            problems.append(
                f"{a} and {b} are ΔE76 {distance:.1f} apart in {vision} vision; "
                f"expected at least {MIN_DELTA_E}"
            )
    return problems


def test_the_colour_maths_matches_published_values() -> None:
    assert np.allclose(_lab("#FF0000"), [53.24, 80.09, 67.20], atol=0.01)  # sRGB red
    assert np.allclose(_lab("#FFFFFF"), [100, 0, 0], atol=0.01)
    assert np.allclose(_lab("#808080", "deuteranopia"), _lab("#808080"), atol=0.1)  # greys stay
    # Red and green, far apart in normal vision, come close in red-green deficient vision.
    normal = _closest(["#D62728", "#2CA02C"], "normal")[0]
    assert all(_closest(["#D62728", "#2CA02C"], v)[0] < normal / 3 for v in DEFICIENCIES)


def test_the_palette_tells_twelve_entries_apart_in_colour_blind_vision() -> None:
    assert len(charts.PALETTE) >= MAX_PICKS
    assert _palette_problems(charts.PALETTE) == []


@pytest.mark.parametrize("scheme", [CATEGORY10, TABLEAU10], ids=["category10", "tableau10"])
def test_the_palette_check_refuses_vega_s_ten_colours_repeated(scheme: tuple[str, ...]) -> None:
    repeated = (scheme * 2)[:MAX_PICKS]
    problems = _palette_problems(repeated)
    assert f"{scheme[0].lower()}, {scheme[1].lower()} more than once" in problems
    # Even the ten, unrepeated, come too close for deuteranopes or protanopes.
    assert any("deuteranopia" in p or "protanopia" in p for p in _palette_problems(scheme))


def test_the_split_chart_colours_its_twelve_entries_from_the_palette() -> None:
    track = BENCHES["egomemreason"].track()
    keys = charts.chart_keys(track)
    series = {f"Entry {i}": {k: 30.0 + i for k in keys} for i in range(MAX_PICKS)}
    spec_json = checked_spec(charts.split_chart(series, "Twelve", track))
    (dots,) = _marks(spec_json, "point")
    color = dots["encoding"]["color"]
    assert color["scale"]["range"] == list(charts.PALETTE)
    assert color["sort"] == list(series)  # the legend in the order of the picks
    assert {v["Entry"] for v in spec_json["data"]["values"]} == set(series)


# --- the ranking metric against size and date ---------------------------------------------------


def _by_x(spec_json: dict[str, Any], field: str) -> dict[str, Any]:
    (layer,) = [
        la for la in _layers(spec_json) if la["encoding"].get("x", {}).get("field") == field
    ]
    return layer


def _right_offset(expr: dict[str, str]) -> int:
    """How far left of the plot's right edge a range end lies: "width - 64" -> 64."""
    match = re.fullmatch(r"width(?: - (\d+))?", expr["expr"])
    assert match, expr
    return int(match.group(1) or 0)


@pytest.mark.parametrize(("bench", "track"), TRACKS, ids=TRACK_IDS)
def test_the_size_chart_of_a_demo_board(bench: Benchmark, track: Track) -> None:
    records = _board(bench, track)
    spec_json = checked_spec(scatter_charts.size_chart(records, track))
    assert spec_json["width"] == "container"
    values = spec_json["data"]["values"]
    # The reference policies are levels across the plot, not points (test_chart_levels).
    shown = [
        r
        for r in records
        if track.ranking in r.metrics and track.reference_of(r.method_name, r.metrics) is None
    ]
    assert len(values) == len(shown) > 0
    # A paper row ranked by a paper-only metric (another quantity) is left out.
    assert {v["Method"] for v in values} == {r.method_name for r in shown}
    assert {r.method_name for r in records} - {r.method_name for r in shown} == {
        r.method_name
        for r in records
        if track.ranking not in r.metrics
        or track.reference_of(r.method_name, r.metrics) is not None
    }

    sized = _by_x(spec_json, "Billions")
    assert sized["encoding"]["x"]["scale"]["type"] == "log"
    assert "billions" in sized["encoding"]["x"]["title"]
    assert sized["transform"] == [{"filter": "isValid(datum.Billions)"}]
    size_end = _right_offset(sized["encoding"]["x"]["scale"]["range"][1])
    if all(v["Billions"] for v in values):  # no strip: the sized rows across the whole plot
        assert not [la for la in _layers(spec_json) if "Slot" in json.dumps(la)]
        assert size_end == 0 and "resolve" not in spec_json
    else:
        strip = _by_x(spec_json, "Slot")
        assert strip["transform"] == [{"filter": "!isValid(datum.Billions)"}]
        assert strip["encoding"]["x"]["title"] == list(scatter_charts.STRIP_TITLE)
        assert spec_json["resolve"] == {"scale": {"x": "independent"}}
        # The strip lies right of the size axis, which ends before it.
        ends = strip["encoding"]["x"]["scale"]["range"]
        strip_start, strip_end = (_right_offset(e) for e in ends)
        assert size_end > strip_start > strip_end == 0
    by_method = {r.method_name: r for r in shown}
    for value in values:
        record = by_method[value["Method"]]
        if record.model_size in ("API", ""):  # the demo boards' sizes not in billions
            assert value["Billions"] is None and 0 < value["Slot"] < 1
        else:
            assert value["Billions"] > 0 and value["Slot"] is None
        assert value["Size"] == (record.model_size or scatter_charts.NOT_STATED)
        assert value["Date"] == record.created_at.date().isoformat()
    if len(values) > 1:  # the decision demo's one entry has a size; its policies are levels
        assert any(v["Billions"] is None for v in values) and any(v["Billions"] for v in values)


@pytest.mark.parametrize(("bench", "track"), TRACKS, ids=TRACK_IDS)
def test_the_date_chart_of_a_demo_board(bench: Benchmark, track: Track) -> None:
    records = _board(bench, track)
    spec_json = checked_spec(scatter_charts.date_chart(records, track))
    assert spec_json["width"] == "container"
    x = spec_json["encoding"]["x"]
    assert (x["field"], x["type"], x["scale"]["type"]) == ("Date", "temporal", "utc")
    values = spec_json["data"]["values"]
    assert sorted(v["Date"] for v in values) == sorted(
        r.created_at.date().isoformat()
        for r in records
        if track.ranking in r.metrics and track.reference_of(r.method_name, r.metrics) is None
    )


@pytest.mark.parametrize(("bench", "track"), TRACKS, ids=TRACK_IDS)
@pytest.mark.parametrize("chart", [scatter_charts.size_chart, scatter_charts.date_chart])
def test_rows_are_marked_by_source_and_rounded_as_the_board_shows(
    bench: Benchmark, track: Track, chart: Any
) -> None:
    board = _board(bench, track)
    rescored = next(r for r in board if r.source == "rescored" and track.ranking in r.metrics)
    odd = rescored.metrics[track.ranking] * 0.987654321  # many decimals
    paper = rescored.model_copy(
        update={
            "source": "paper",
            "method_name": "Paper row",
            "model_size": "API",
            "metrics": {**rescored.metrics, track.ranking: odd},
        }
    )
    spec_json = checked_spec(chart([rescored, paper], track))
    display = track.display[track.ranking]
    digits = {"percent": 1, "ratio": 3, "seconds": 2, "count": 0}[display]
    for layer in _marks(spec_json, "point"):
        encoding = layer["encoding"]
        shapes = dict(
            zip(
                encoding["shape"]["scale"]["domain"],
                encoding["shape"]["scale"]["range"],
                strict=True,
            )
        )
        colours = dict(
            zip(
                encoding["color"]["scale"]["domain"],
                encoding["color"]["scale"]["range"],
                strict=True,
            )
        )
        assert set(shapes) == set(colours) == {"Re-scored", "Paper-reported"}
        assert shapes["Re-scored"] != shapes["Paper-reported"]
        assert colours["Re-scored"] != colours["Paper-reported"]
        tips = {t["field"]: t for t in encoding["tooltip"]}
        assert {"Method", "Size", "Date", "Value"} <= set(tips)
        assert tips["Value"]["format"] == f".{digits}f"
        y = encoding["y"]
        label = track.labels[track.ranking]
        assert y["title"] == tips["Value"]["title"] and y["title"].startswith(label)
        low, high = y["scale"]["domain"]  # fitted to the points (test_chart_intervals)
        shown = [v["Value"] for v in spec_json["data"]["values"]]
        assert low <= min(shown) <= max(shown) <= high
    values = {v["Method"]: v for v in spec_json["data"]["values"]}
    assert values["Paper row"]["Source"] == "Paper-reported"
    assert values[rescored.method_name]["Source"] == "Re-scored"
    assert values["Paper row"]["Value"] == round(odd, digits) != odd


def test_a_size_chart_whose_rows_are_all_in_one_part_draws_that_part_alone() -> None:
    """An empty part's marks were an SVG group with no name (axe svg-img-alt, serious)."""
    bench, track = TRACKS[0]
    records = [r for r in _board(bench, track) if track.ranking in r.metrics]
    api = [r for r in records if r.model_size == "API"]
    assert api, "the demo board should carry API rows"
    spec_json = checked_spec(scatter_charts.size_chart(api, track))
    strip = _by_x(spec_json, "Slot")
    assert strip["encoding"]["x"]["scale"]["range"] == [0, {"expr": "width"}]
    assert not [la for la in _layers(spec_json) if "Billions" in json.dumps(la.get("encoding"))]


def test_a_ratio_axis_names_its_range() -> None:
    decision = BENCHES["egoargus"].track("decision")
    assert decision.display[decision.ranking] == "ratio"
    assert scatter_charts.value_axis(decision) == (
        f"{decision.labels[decision.ranking]} (0–1)",
        (0, 1),
    )


@pytest.mark.parametrize("chart", [scatter_charts.size_chart, scatter_charts.date_chart])
def test_an_empty_board_gives_a_chart_without_points(chart: Any) -> None:
    track = BENCHES["egomemreason"].track()
    assert scatter_charts.plotted([], track) == []
    spec_json = checked_spec(chart([], track))
    assert spec_json["data"] == {"values": []}


def test_the_specs_are_built_once_and_the_data_injected() -> None:
    bench, track = TRACKS[0]
    records = _board(bench, track)
    scatter_charts.size_chart(records, track)
    before = scatter_charts._size_spec.cache_info()
    again = checked_spec(scatter_charts.size_chart(records[:2], track))
    after = scatter_charts._size_spec.cache_info()
    assert (after.hits, after.misses) == (before.hits + 1, before.misses)
    assert len(again["data"]["values"]) == len(scatter_charts.plotted(records[:2], track))
    assert "datasets" not in again and all("data" not in la for la in again["layer"])


@pytest.mark.parametrize(("bench", "track"), TRACKS, ids=TRACK_IDS)
def test_every_chart_says_what_it_shows_to_a_screen_reader(bench: Benchmark, track: Track) -> None:
    """A chart says what it is as a whole: its Vega description (the aria-label of its
    container) names its title and the entries it draws."""
    records = [r for r in _board(bench, track) if track.ranking in r.metrics][:3]
    names = [r.method_name for r in records]
    split = checked_spec(
        charts.split_chart({r.method_name: dict(r.metrics) for r in records}, "T", track)
    )
    assert split["description"] == f"T: {', '.join(names)}"
    # With none picked, the chart's place says so (it was an empty plot).
    said = checked_spec(charts.split_chart({}, "T", track))
    assert said["description"] == "T: no entry picked. Pick entries above to compare them."
    assert " ".join(said["layer"][0]["mark"]["text"]) == said["description"]
    for chart in (scatter_charts.size_chart, scatter_charts.date_chart):
        spec_json = checked_spec(chart(records, track))
        said = spec_json["description"]
        assert said.startswith(spec_json["title"]["text"] + ": ")
        assert all(v["Method"] in said for v in spec_json["data"]["values"])


def test_every_chart_is_drawn_as_svg_without_an_actions_menu() -> None:
    """SVG: a chart's texts are the page's own, which a screen reader, the contrast checks and
    the browser tests read (a canvas is a picture)."""
    bench, track = TRACKS[0]
    records = _board(bench, track)
    for plot in (
        charts.split_chart({"A": {track.ranking: 40.0}}, "T", track),
        scatter_charts.size_chart(records, track),
        scatter_charts.date_chart(records, track),
    ):
        assert checked_spec(plot)["usermeta"] == {
            "embedOptions": {"actions": False, "renderer": "svg"}
        }


def test_the_schema_check_refuses_a_spec_vega_lite_does_not_accept() -> None:
    """checked_spec (tests.support.vega), which every chart test reads its spec through, is
    altair's schema check: a width Vega-Lite has no meaning for, or a mark it does not draw,
    is refused, every time it is asked."""
    bench, track = TRACKS[0]
    plot = scatter_charts.size_chart(_board(bench, track), track)
    wide = {**json.loads(plot.plot), "width": "wide"}
    nonsense = json.loads(plot.plot)
    nonsense["layer"][0]["mark"] = "nonsense"
    for broken, word in ((wide, "'wide'"), (nonsense, "'nonsense'")):
        for _ in range(2):
            with pytest.raises(Exception, match=word):
                checked_spec({"plot": json.dumps(broken)})
    assert checked_spec(plot) == json.loads(plot.plot)
