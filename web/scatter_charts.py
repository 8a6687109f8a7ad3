"""The board's scatters, pure: the ranking metric of every row against its model size and its
date, Vega-Lite specs built once with altair, their data injected per call.

``size_chart`` and ``date_chart`` place every row carrying the track's ranking metric against
its model size (a log scale, the API and not-stated sizes in a strip of their own at the right)
and against its date, re-scored and paper-reported rows in shapes and colours of their own,
chance and a track's reference rows as labelled dashed levels. Each returns the ``PlotData`` a
``gr.Plot`` shows, as wide as its block (phones and laptops alike).

Example:

>>> import ledger, spec
>>> bench = spec.load_benchmark("egomemreason")
>>> track = bench.track()
>>> snapshot = ledger.BoardCache(ledger.LocalStore(bench.demo_board), bench, track).snapshot()
>>> rows = plotted(snapshot.records, track)  # empty: hide the plots
>>> size_plot, date_plot = size_chart(rows, track), date_chart(rows, track)
>>> size_plot.type, len(rows) == len(snapshot.records)
('altair', True)
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

import altair as alt
from gradio.components.plot import PlotData

from records import Record
from spec import Track
from web.board.ranks import reference, shown_interval
from web.board.rows import SOURCE_TEXT, size_in_billions
from web.chart_parts import (
    AXES,
    UNITS,
    Level,
    chance_level,
    epoch_ms,
    fitted_domain,
    level_layers,
    month_ticks,
    set_domain,
    value_ends,
    walk,
    without_data,
)
from web.charts import EMBED_OPTIONS, PALETTE

#: How the scatter charts mark a row's source (shape and colour; the legend in this order,
#: named as board.rows.SOURCE_TEXT names them).
SOURCE_SHAPES = {"rescored": "circle", "paper": "triangle-up"}
SOURCE_COLORS = {"rescored": PALETTE[0], "paper": PALETTE[1]}


NOT_STATED = "not stated"  # a row's size in a tooltip when its record gives none


#: The size chart's strip of API and not-stated sizes: its title, and its width at the right of
#: the plot (px, the gap before it included), narrow enough to leave a phone room for the rest.
STRIP_TITLE = ("API /", "not stated")
STRIP_PX, STRIP_GAP_PX = 64, 12


SIZE_TITLE, DATE_TITLE = "Parameters (billions, log scale)", "Date"


SCATTER_HEIGHT_PX = 280


EDGE_PX = 12  # between a scatter's x axis ends and its outermost points, which are not cut


def reference_levels(records: Sequence[Record], track: Track, digits: int) -> list[Level]:
    """The track's reference rows (``Track.reference_of``: the spec's reference policies)
    carrying its ranking metric, as levels labelled with their name and value: levels to read
    the entries against, not entries."""
    return [
        (f"{r.method_name}: {r.metrics[track.ranking]:.{digits}f}", r.metrics[track.ranking])
        for r in plotted(records, track)
        if reference(r, track) is not None
    ]


def plotted(records: Sequence[Record], track: Track) -> list[Record]:
    """The rows the size and date charts show: those carrying the track's ranking metric (a
    paper row ranked by a paper-only metric has another quantity, so it is left out), the
    entries as points and the reference rows as levels."""
    return [r for r in records if track.ranking in r.metrics]


def value_axis(track: Track) -> tuple[str, tuple[float, float] | None]:
    """The ranking metric's axis: its label and unit ("Overall (%)", "F1 (0–1)") and the whole
    range of its display (None: none); the charts fit the axis inside it (``fitted_domain``)."""
    display = track.display[track.ranking]
    label, unit = track.labels[track.ranking], UNITS[display]
    return (label if unit is None else f"{label} ({unit})"), AXES[display][1]


def _points(y_title: str, digits: int, x: Any) -> Any:
    """The scatter layers both charts share: a point per row, its source in shape and colour,
    and its 95 % interval as a rule of the same colour."""
    names = [SOURCE_TEXT[s] for s in SOURCE_TEXT]
    colour = alt.Color(
        "Source:N",
        scale=alt.Scale(domain=names, range=[SOURCE_COLORS[s] for s in SOURCE_TEXT]),
        legend=alt.Legend(orient="bottom", direction="horizontal", title=None),
    )
    base = alt.Chart()
    points = base.mark_point(filled=True, size=70, opacity=0.85).encode(
        y=alt.Y("Value:Q", title=y_title, scale=alt.Scale(domain=[0, 1])),
        color=colour,
        shape=alt.Shape(
            "Source:N",
            scale=alt.Scale(domain=names, range=[SOURCE_SHAPES[s] for s in SOURCE_TEXT]),
        ),
        tooltip=[
            alt.Tooltip("Method:N"),
            alt.Tooltip("Size:N"),
            alt.Tooltip("Date:N"),
            alt.Tooltip("Value:Q", title=y_title, format=f".{digits}f"),
            alt.Tooltip("Low:Q", title="95 % CI from", format=f".{digits}f"),
            alt.Tooltip("High:Q", title="95 % CI to", format=f".{digits}f"),
            alt.Tooltip("Source:N"),
        ],
    )
    rules = (
        # Hidden from a screen reader: each point's own label gives its interval.
        base.mark_rule(strokeWidth=1.5, opacity=0.7, aria=False)
        .encode(y=alt.Y("Low:Q"), y2=alt.Y2("High:Q"), color=colour)
        .transform_filter("isValid(datum.Low)")
    )
    return alt.layer(rules, points).encode(x=x)


def _configured(chart: Any, title: str) -> str:
    """``chart`` as wide as its block, its data left to inject."""
    return without_data(
        chart.properties(
            title=alt.TitleParams(text=title, subtitle=["Lines: 95 % intervals"]),
            width="container",
            height=SCATTER_HEIGHT_PX,
            usermeta=EMBED_OPTIONS,
        )
        .configure_axis(labelFontSize=12, titleFontSize=12)
        .configure_legend(labelFontSize=12)
        .configure_title(fontSize=14, subtitleFontSize=12)
        .to_dict()
    )


@functools.lru_cache(maxsize=32)
def _size_spec(title: str, y_title: str, digits: int) -> str:
    """The size chart without its data: sized rows on a log axis; API and not-stated sizes in
    a strip at the right, their x a spread (``Slot``) only there to keep them apart."""
    sized = _points(
        y_title,
        digits,
        alt.X(
            "Billions:Q",
            title=SIZE_TITLE,
            scale=alt.Scale(
                type="log", range=[0, {"expr": f"width - {STRIP_PX}"}], padding=EDGE_PX
            ),
            # Labels at 1, 2 and 5 of each decade only, so that a phone's axis stays legible.
            axis=alt.Axis(
                format="~g",
                labelOverlap=True,
                labelExpr=("test(regexp('^(0[.]0*)?[125]0*$'), datum.label) ? datum.label : ''"),
            ),
        ),
    ).transform_filter("isValid(datum.Billions)")
    strip = _points(
        y_title,
        digits,
        alt.X(
            "Slot:Q",
            title=list(STRIP_TITLE),
            scale=alt.Scale(
                domain=[0, 1],
                range=[{"expr": f"width - {STRIP_PX - STRIP_GAP_PX}"}, {"expr": "width"}],
            ),
            # On top, where no title of the size axis can run into it.
            axis=alt.Axis(
                orient="top",
                labels=False,
                ticks=False,
                domain=False,
                grid=False,
                titleFontWeight="normal",
            ),
        ),
    ).transform_filter("!isValid(datum.Billions)")
    return _configured(alt.layer(sized, strip).resolve_scale(x="independent"), title)


@functools.lru_cache(maxsize=32)
def _date_spec(title: str, y_title: str, digits: int) -> str:
    """The date chart without its data, its ticks or its domain."""
    return _configured(
        _points(
            y_title,
            digits,
            alt.X(
                "Date:T",
                title=DATE_TITLE,
                scale=alt.Scale(type="utc", padding=EDGE_PX),
                axis=alt.Axis(format="%b %Y", labelOverlap=True),
            ),
        ),
        title,
    )


def _row(record: Record, track: Track, digits: int) -> dict[str, Any]:
    interval = shown_interval(record, track, track.ranking)
    low, high = (None, None) if interval is None else interval
    return {
        "Method": record.method_name,
        "Size": record.model_size or NOT_STATED,
        "Date": record.created_at.date().isoformat(),
        "Value": round(record.metrics[track.ranking], digits),
        "Low": None if low is None else round(low, digits),
        "High": None if high is None else round(high, digits),
        "Source": SOURCE_TEXT[record.source],
    }


def _with_data(
    spec_json: str,
    values: list[dict[str, Any]],
    records: Sequence[Record],
    track: Track,
    chance: float | None,
) -> dict[str, Any]:
    """A scatter's spec with its data, its value axis fitted to the points, their intervals,
    ``chance`` and the reference rows of ``records``, each of those a labelled dashed rule."""
    spec: dict[str, Any] = json.loads(spec_json)
    display = track.display[track.ranking]
    digits = track.digits(display)
    own = [] if chance is None else [chance_level(chance, display, digits)]
    references = reference_levels(records, track, digits)
    levels = own + references
    ends = [*value_ends(values), *(value for _, value in levels)]
    low, high = fitted_domain(ends, track.display[track.ranking])
    spec["layer"] += level_layers(levels, "y", SCATTER_HEIGHT_PX / (high - low))
    set_domain(spec, "y", (low, high))
    if levels:
        dashed = ["chance"] * len(own) + ["reference policies"] * bool(references)
        spec["title"]["subtitle"] = [f"Lines: 95 % intervals; dashed: {' and '.join(dashed)}"]
    spec["data"] = {"values": values}
    spec["description"] = f"{spec['title']['text']}: {', '.join(v['Method'] for v in values)}"
    return spec


def _entries(records: Sequence[Record], track: Track) -> list[Record]:
    """The rows a scatter draws as points: those ``plotted`` but the reference rows (levels)."""
    return [r for r in plotted(records, track) if reference(r, track) is None]


def size_chart(records: Sequence[Record], track: Track, chance: float | None = None) -> PlotData:
    """The ranking metric of every entry carrying it (``plotted``), with its 95 % interval,
    against its model size in billions of parameters, on a log scale; the rows of API models and
    of sizes not stated in a strip of their own at the right. Re-scored and paper-reported rows
    differ in shape and colour; a tooltip names the method, its size, date, value and interval
    (as the board rounds them). ``chance`` (a multiple-choice track's: the key's) and the
    reference rows (``reference_levels``) are labelled dashed rules across the plot. The value
    axis is fitted to the points, their intervals and those levels."""
    y_title, _ = value_axis(track)
    digits = track.digits(track.display[track.ranking])
    rows = [
        (_row(r, track, digits), size_in_billions(r.model_size)) for r in _entries(records, track)
    ]
    values = [
        {**row, "Billions": size if size and size > 0 else None, "Slot": None} for row, size in rows
    ]
    apart = sorted((v for v in values if v["Billions"] is None), key=lambda v: v["Value"])
    for i, value in enumerate(apart):
        # Rows of near values land far apart in the strip (a golden-ratio sequence).
        value["Slot"] = 0.15 + 0.7 * ((i * 0.618034) % 1)
    title = f"{track.labels[track.ranking]} by model size"
    spec = _with_data(_size_spec(title, y_title, digits), values, records, track, chance)
    _one_part_alone(spec, sized=len(apart) < len(values), strip=bool(apart))
    return PlotData(type="altair", plot=json.dumps(spec))


def _one_part_alone(spec: dict[str, Any], sized: bool, strip: bool) -> None:
    """The size chart without the part (sized rows, or the strip of the others) no row is in,
    the other one across the whole plot: an empty part's marks were an SVG group a screen
    reader is given with no name (axe svg-img-alt), and its room was left blank."""
    if sized == strip:
        return
    sized_layer, strip_layer = spec["layer"][:2]
    kept = sized_layer if sized else strip_layer
    spec["layer"][:2] = [kept]
    for layer in walk(kept):
        x = layer.get("encoding", {}).get("x")
        if x is not None and "range" in x.get("scale", {}):
            x["scale"]["range"] = [0, {"expr": "width"}]
    spec.pop("resolve", None)


def date_chart(records: Sequence[Record], track: Track, chance: float | None = None) -> PlotData:
    """The ranking metric of every entry carrying it (``plotted``), with its 95 % interval,
    against the date of its entry, re-scored and paper-reported rows marked, and chance and
    the reference rows drawn, as on the size chart; one tick a month at most
    (``month_ticks``), each month named once."""
    y_title, _ = value_axis(track)
    digits = track.digits(track.display[track.ranking])
    shown = _entries(records, track)
    values = [_row(r, track, digits) for r in shown]
    title = f"{track.labels[track.ranking]} by date"
    spec = _with_data(_date_spec(title, y_title, digits), values, records, track, chance)
    ticks = month_ticks([r.created_at.date() for r in shown])
    for layer in walk(spec):
        x = layer.get("encoding", {}).get("x")
        if x is not None and x.get("field") == "Date":
            x["axis"] = {**x.get("axis", {}), "values": [epoch_ms(t) for t in ticks]}
            if ticks:  # from the first tick's month, so that it is drawn
                last = max(r.created_at.date() for r in shown)
                x["scale"]["domain"] = [epoch_ms(ticks[0]), epoch_ms(last) + 86_400_000]
    return PlotData(type="altair", plot=json.dumps(spec))
