"""What the board's charts share, pure: the value axes by display and how one is fitted to the
data (``fitted_domain``, ``value_ends``), the levels marked across a plot, the date axis's month
ticks, and the specs built once without data (``without_data``, ``set_domain``). charts and
scatter_charts build the charts on them.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from spec import Display

#: A scatter chart's value axis: the unit its title names after the metric's label.
UNITS: Mapping[Display, str | None] = {
    "percent": "%",
    "ratio": "0–1",
    "seconds": "s",
    "count": None,
}


#: A chart's value axis by the display of its metrics (the spec gives a chart one display).
AXES: Mapping[Display, tuple[str, tuple[float, float] | None]] = {
    "percent": ("Percent", (0, 100)),
    "ratio": ("Ratio (0–1)", (0, 1)),
    "seconds": ("Seconds", None),
    "count": ("Count", None),
}


#: The colour of the chance rule and its label: dark enough on white to read, and no entry's
#: colour.
CHANCE_COLOUR = "#555555"


def fitted_domain(
    values: Sequence[float], display: Display, chance: float | None = None
) -> tuple[float, float]:
    """An axis fitted to ``values`` (the values and their intervals' ends) and ``chance``: from
    a round number below the least to one above the greatest (steps of 1, 2, 2.5 or 5 times a
    power of ten, about eight to the span), never past the display's whole range (0-100 for a
    percent, 0-1 for a ratio; 0 for a count). Fixed 0-100 axes left half of each plot empty."""
    whole = AXES[display][1]
    points = [*values, *([] if chance is None else [chance])]
    if not points:
        return whole or (0.0, 1.0)
    low, high = min(points), max(points)
    scale = (whole[1] - whole[0]) if whole else max(abs(low), abs(high), 1.0)
    span = max(high - low, scale * 0.05)
    raw = span / 8
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    low = math.floor((low - step / 4) / step) * step
    high = math.ceil((high + step / 4) / step) * step
    if whole is not None:
        low, high = max(whole[0], low), min(whole[1], high)
    elif display == "count":
        low = max(0.0, low)
    return (round(low, 6), round(high, 6))


#: A level a chart marks across its plot: its label and its value (chance, a reference policy).
Level = tuple[str, float]


#: A level's label: its font size, and about how wide a character of it is and how tall a line
#: is, in pixels (to keep two labels of close levels apart, ``label_offsets``).
LABEL_FONT_PX, LABEL_CHAR_PX, LABEL_LINE_PX = 11, 6.2, 13


def label_offsets(levels: Sequence[Level], px_per_unit: float | None) -> list[float]:
    """Where each level's label starts from the plot's left, in pixels, so that no two labels
    of close levels are written over each other (chance at 20.7 %, a reference at 21.4 %): a
    label within a line's height of an earlier one (by value) starts after it. Without a scale
    (``px_per_unit`` None) every label starts at the left.

    >>> label_offsets([("Chance: 20.7 %", 20.7), ("Random: 16.8", 16.8), ("A: 21.4", 21.4)], 5.0)
    [0.0, 0.0, 99.2]
    """
    if px_per_unit is None:
        return [0.0] * len(levels)
    placed: list[tuple[float, float, float]] = []  # (y, start, end), px
    offsets: dict[int, float] = {}
    for i in sorted(range(len(levels)), key=lambda j: levels[j][1]):
        label, value = levels[i]
        y, start = value * px_per_unit, 0.0
        for other_y, _, other_end in placed:
            if abs(y - other_y) < LABEL_LINE_PX:
                start = max(start, other_end + 2 * LABEL_CHAR_PX)
        offsets[i] = round(start, 1)
        placed.append((y, start, start + len(label) * LABEL_CHAR_PX))
    return [offsets[i] for i in range(len(levels))]


def level_layers(
    levels: Sequence[Level], channel: str, px_per_unit: float | None = None
) -> list[dict[str, Any]]:
    """Each level as a dashed rule across the plot at its value along ``channel`` ("x" or "y"),
    its label written beside the rule's start, in ``CHANCE_COLOUR`` (7.5:1 on white): two
    Vega-Lite layers with data of their own, to add to a spec's ``layer`` after
    ``without_data`` (none when there is no level). Across a scatter (``channel`` "y", its
    axis ``px_per_unit`` pixels a unit) a label close to another starts after it
    (``label_offsets``).

    >>> rule, text = level_layers([("Chance (20.0 %)", 20.0)], "y")
    >>> rule["mark"]["strokeDash"], text["encoding"]["text"], text["encoding"]["x"]["field"]
    ([5, 3], {'field': 'Label', 'type': 'nominal'}, 'At')
    """
    if not levels:
        return []
    at = {"field": "Level", "type": "quantitative"}
    across = "x" if channel == "y" else "y"
    starts = label_offsets(levels, px_per_unit if channel == "y" else None)
    data = {
        "values": [
            {"Level": value, "Label": label, "At": start}
            for (label, value), start in zip(levels, starts, strict=True)
        ]
    }
    # Above a horizontal rule from its label's start; above the plot beside a vertical one (on
    # a dot plot the rows fill the plot's height).
    beside, place = (
        # In pixels, on no axis of its own (the date chart's time axis would format it).
        ({"dx": 4, "dy": -2}, {"field": "At", "type": "quantitative", "scale": None, "axis": None})
        if channel == "y"
        else ({"dx": 3, "dy": -3}, {"value": 0})
    )
    return [
        {
            "data": data,
            "mark": {
                "type": "rule",
                "color": CHANCE_COLOUR,
                "strokeDash": [5, 3],
                "strokeWidth": 1.5,
            },
            # Across the whole plot, whatever the chart's own encoding of the other channel (a
            # layer inherits it: the date chart's x would put the rule nowhere).
            "encoding": {
                channel: at,
                across: {"value": 0},
                f"{across}2": {"value": "width" if across == "x" else "height"},
            },
        },
        {
            "data": data,
            "mark": {
                "type": "text",
                "color": CHANCE_COLOUR,
                "fontSize": LABEL_FONT_PX,
                "align": "left",
                "baseline": "bottom",
                **beside,
            },
            "encoding": {
                channel: at,
                across: place,
                "text": {"field": "Label", "type": "nominal"},
            },
        },
    ]


def chance_level(chance: float, display: Display, digits: int) -> Level:
    """Chance as a chart labels its rule: "Chance: 20.7 %".

    >>> chance_level(20.665, "percent", 1)
    ('Chance: 20.7 %', 20.665)
    """
    unit = " %" if display == "percent" else ""
    return f"Chance: {chance:.{digits}f}{unit}", chance


def value_ends(values: Sequence[Mapping[str, Any]]) -> list[float]:
    """Every value an axis must show: each mark's ``Value`` and its interval's ends (``Low``,
    ``High``), where given."""
    return [
        v[field] for v in values for field in ("Value", "Low", "High") if v.get(field) is not None
    ]


NOTE_LINE_CHARS = 44  # a note's line, at most: a phone's chart holds about this many


def note_spec(note: str, usermeta: Mapping[str, Any]) -> dict[str, Any]:
    """A chart's place, saying why it has nothing to draw (no entry picked, none yet) rather
    than an empty plot or nothing at all: its text alone, as wide as its block.

    >>> note_spec("No entry picked.", {})["layer"][0]["mark"]["text"]
    ['No entry picked.']
    """
    lines = textwrap.wrap(note, NOTE_LINE_CHARS)  # a phone's width, whole words
    return {
        "description": note,
        "width": "container",
        "height": 24 + 18 * len(lines),
        "usermeta": dict(usermeta),
        "view": {"stroke": None},
        "layer": [
            {
                "data": {"values": [{}]},
                "mark": {"type": "text", "text": lines, "fontSize": 13, "color": CHANCE_COLOUR},
            }
        ],
    }


def walk(spec: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """``spec`` and every layer in it, however deep."""
    yield spec
    for layer in spec.get("layer", ()):
        yield from walk(layer)


def set_domain(spec: dict[str, Any], channel: str, domain: tuple[float, float]) -> None:
    """Every layer's ``channel`` (a field, not a datum) on ``domain``."""
    for layer in walk(spec):
        encoding = layer.get("encoding", {}).get(channel)
        if encoding is not None and "field" in encoding:
            encoding.setdefault("scale", {})["domain"] = list(domain)
            encoding["scale"].pop("zero", None)


def without_data(spec: dict[str, Any]) -> str:
    """A spec as JSON with no data of its own: altair gives each layer of a chart without data
    an empty data set, which would hide the injected one."""
    spec.pop("datasets", None)
    for layer in walk(spec):
        if layer is not spec:
            layer.pop("data", None)
    return json.dumps(spec)


MAX_DATE_TICKS = 6  # a phone's axis holds six "May 2026" labels


def month_ticks(dates: Sequence[dt.date]) -> list[dt.date]:
    """The date axis's ticks: the first of a month, every month from the earliest date's to the
    latest's, or every second, third, ... so that at most MAX_DATE_TICKS are drawn. Each month
    is named once (Vega's own ticks fell a week apart, all labelled with their month: "May
    2026, May 2026, Jun 2026")."""
    if not dates:
        return []
    first, last = min(dates), max(dates)
    months = (last.year - first.year) * 12 + last.month - first.month + 1
    step = math.ceil(months / MAX_DATE_TICKS)
    return [
        dt.date(first.year + (first.month - 1 + i) // 12, (first.month - 1 + i) % 12 + 1, 1)
        for i in range(0, months, step)
    ]


def epoch_ms(day: dt.date) -> int:
    return int(dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp() * 1000)
