"""What the board's charts share, pure: the value axes by display and how one is fitted to the
data (``fitted_domain``, ``value_ends``), the levels marked across a plot, the date axis's month
ticks, and the specs built once without data (``without_data``, ``set_domain``). charts and
scatter_charts build the charts on them.
"""

from __future__ import annotations

import datetime as dt
import json
import math
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


def level_layers(levels: Sequence[Level], channel: str) -> list[dict[str, Any]]:
    """Each level as a dashed rule across the plot at its value along ``channel`` ("x" or "y"),
    its label written beside the rule's start, in ``CHANCE_COLOUR`` (7.5:1 on white): two
    Vega-Lite layers with data of their own, to add to a spec's ``layer`` after
    ``without_data`` (none when there is no level).

    >>> rule, text = level_layers([("Chance (20.0 %)", 20.0)], "y")
    >>> rule["mark"]["strokeDash"], text["encoding"]["text"], text["encoding"]["x"]
    ([5, 3], {'field': 'Label', 'type': 'nominal'}, {'value': 0})
    """
    if not levels:
        return []
    data = {"values": [{"Level": value, "Label": label} for label, value in levels]}
    at = {"field": "Level", "type": "quantitative"}
    across = "x" if channel == "y" else "y"
    # Above a horizontal rule at the plot's left; above the plot beside a vertical one (on a
    # dot plot the rows fill the plot's height).
    beside = (
        {"align": "left", "baseline": "bottom", "dx": 4, "dy": -2}
        if channel == "y"
        else {"align": "left", "baseline": "bottom", "dx": 3, "dy": -3}
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
            "mark": {"type": "text", "color": CHANCE_COLOUR, "fontSize": 11, **beside},
            "encoding": {
                channel: at,
                across: {"value": 0},
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
