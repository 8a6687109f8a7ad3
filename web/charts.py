"""The board's side-by-side chart, pure: a Vega-Lite spec built once with altair, its data
injected per call, and what every chart of the board shares (the palette, the chart's metrics
and axis, its texts).

``split_chart`` compares the picked entries split by split (the Leaderboard's "Side by side",
and the Score tab's chart), a dot per entry with its 95 % interval on an axis fitted to them;
scatter_charts places every row against its model size and its date. Each returns the
``PlotData`` a ``gr.Plot`` shows, as wide as its block (phones and laptops alike), drawn as SVG
(its texts readable by a screen reader and a test).

Example:

>>> import spec
>>> track = spec.load_benchmark("egomemreason").track()
>>> plot = split_chart({"A": {"overall": 40.0}}, "Accuracy per split", track)
>>> plot.type, chart_texts(track)
('altair', ('### Compare entries per split', 'Accuracy per split'))
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping

import altair as alt
from gradio.components.plot import PlotData

from spec import Track
from web.chart_parts import (
    AXES,
    UNITS,
    chance_level,
    fitted_domain,
    level_layers,
    note_spec,
    set_domain,
    value_ends,
    without_data,
)

#: The entries' colours, each readable on white (a contrast of 3:1 at least, WCAG 1.4.11 for a
#: chart's marks): picked from Paul Tol's schemes (P. Tol, "Colour Schemes", SRON/EPS/TN/09-002,
#: his rainbow, bright, vibrant, muted and dark sets; https://personal.sron.nl/~pault/) those of
#: that contrast, then one at a time the farthest, in normal, deuteranope and protanope vision,
#: from those before it, so two or three entries get the most distinct colours. MAX_PICKS (12)
#: entries never share one; tests/web/test_charts.py measures how far apart they stay, and
#: tests/web/test_chart_intervals.py their contrast. (The rainbow's pale #F7F056 and #CAE0AB,
#: 1.1:1 and 1.3:1 on white, were hard to see.)
PALETTE = (
    "#1965B0",
    "#DC050C",
    "#009988",
    "#663333",
    "#882E72",
    "#6195CF",
    "#EE3377",
    "#332288",
    "#72190E",
    "#228833",
    "#882255",
    "#A5170E",
)


def chart_keys(track: Track) -> tuple[str, ...]:
    """The metrics a split chart shows: the spec's ``chart``, else the ranking metric and the
    groups of the first grouping."""
    first = track.groupings[0].groups if track.groupings else ()
    return track.chart or (track.ranking, *(g.key for g in first))


def chart_axis(track: Track) -> tuple[str, tuple[float, float] | None]:
    """The value axis of a track's split chart: its title and fixed domain (None: from 0 to
    the data). Accuracies are "Accuracy (%)" (or "Accuracy (0–1)" where they are ratios)."""
    keys = chart_keys(track)
    display = track.display[keys[0]]
    accuracy = all(k in track.accuracy_keys for k in keys)
    title, domain = AXES[display]
    unit = UNITS[display]
    return (f"Accuracy ({unit})" if accuracy and unit else title), domain


def chart_groups(track: Track) -> str:
    """What a split chart's rows are: "split" (multiple choice), a decision track's
    scenario field ("scenario")."""
    return track.chart_groups


def chart_texts(track: Track) -> tuple[str, str]:
    """The board chart's heading and title: "### Compare entries per split", "Accuracy per
    split" (per scenario on a decision board)."""
    per = chart_groups(track)
    noun = chart_axis(track)[0].split(" (")[0]
    return f"### Compare entries per {per}", f"{noun} per {per}"


#: How vega-embed draws every chart (the spec's ``usermeta``): as SVG, whose texts a screen
#: reader, the browser's contrast checks and a test can read (a canvas is a picture), and
#: without its "..." actions menu, a <summary> holding an unlabelled icon that a screen reader
#: announces as a nameless control (axe summary-name); the CSV and JSON downloads give the data.
EMBED_OPTIONS = {"embedOptions": {"actions": False, "renderer": "svg"}}

#: The value axis of a split chart: about one tick every this many pixels of its width, so that
#: its labels never meet (31 labels, 0.55 to 0.85, ran into each other on the Score tab).
TICK_PX = 80


@functools.lru_cache(maxsize=128)
def _chart_spec(
    entries: tuple[str, ...],
    order: tuple[str, ...],
    title: str,
    axis: str,
    digits: int,
    labelled_above: bool,
) -> str:
    """The Vega-Lite spec of a split chart without its data, domain or chance rule (altair is
    slow: build it once): a dot per entry and split, and its interval a rule in the dot's
    colour (a dot plot: its axis is fitted to the data, where a bar's length from the axis'
    start would misstate the value); room above the plot for the chance rule's label when
    ``labelled_above``."""
    colour = alt.Color(
        "Entry:N",
        sort=list(entries),
        scale=alt.Scale(range=list(PALETTE)),
        legend=alt.Legend(orient="bottom", direction="vertical", title=None, labelLimit=320),
    )
    base = alt.Chart().encode(
        y=alt.Y("Split:N", sort=list(order), title=None),
        yOffset=alt.YOffset("Entry:N", sort=list(entries)),
        color=colour,
    )
    dots = base.mark_point(filled=True, size=64, opacity=1).encode(
        x=alt.X(
            "Value:Q",
            title=axis,
            scale=alt.Scale(domain=[0, 1]),
            axis=alt.Axis(tickCount={"expr": f"ceil(width / {TICK_PX})"}, labelOverlap=True),
        ),
        tooltip=[
            "Entry:N",
            "Split:N",
            alt.Tooltip("Value:Q", title=axis, format=f".{digits}f"),
            alt.Tooltip("Low:Q", title="95 % CI from", format=f".{digits}f"),
            alt.Tooltip("High:Q", title="95 % CI to", format=f".{digits}f"),
        ],
    )
    rules = (
        base.mark_rule(strokeWidth=2, aria=False)  # each dot's own label gives its interval
        .encode(x=alt.X("Low:Q"), x2=alt.X2("High:Q"))
        .transform_filter("isValid(datum.Low)")
    )
    # Chance is labelled on its rule, above the plot (a subtitle naming it ran off a phone).
    chart = (
        alt.layer(rules, dots)
        # As wide as its block (see CSS): it fits phones and laptops alike.
        .properties(
            title=alt.TitleParams(
                text=title,
                subtitle=["Dots: the scores; lines: their 95 % intervals"],
                offset=16 if labelled_above else 4,
            ),
            width="container",
            height=alt.Step(11 if len(entries) > 3 else 16),
            usermeta=EMBED_OPTIONS,
        )
        .configure_axis(labelFontSize=12, titleFontSize=12)
        .configure_legend(labelFontSize=12)
        .configure_title(fontSize=14, subtitleFontSize=12)
    )
    return without_data(chart.to_dict())


def note_chart(note: str) -> PlotData:
    """A chart's place saying why there is nothing to draw (``chart_parts.note_spec``)."""
    spec = {"$schema": alt.SCHEMA_URL, **note_spec(note, EMBED_OPTIONS)}
    return PlotData(type="altair", plot=json.dumps(spec))


def split_chart(
    series: Mapping[str, Mapping[str, float]],
    title: str,
    track: Track,
    intervals: Mapping[str, Mapping[str, tuple[float, float] | None]] | None = None,
    chance: float | None = None,
) -> PlotData:
    """A dot plot: a row per split of ``chart_keys(track)``, in it a dot per series with its
    95 % interval (``intervals``: series -> metric -> interval, where known), on an axis of
    their display fitted to the dots, their intervals and ``chance`` (a dashed rule labelled
    with it, ``chance_level``), each series in a colour of ``PALETTE``. A series carrying none
    of the chart's metrics (a paper row of other columns) is left out. Dots, not bars: a bar
    from a fitted axis' start (16 %, say) is not as long as its value, and one from 0 would
    leave the differences too small to see.

    Horizontal, so the chart fits the width of any screen and only grows in height.
    """
    keys = chart_keys(track)
    labels = track.labels
    series = {name: metrics for name, metrics in series.items() if any(k in metrics for k in keys)}
    if not series:
        return note_chart(f"{title}: no entry picked. Pick entries above to compare them.")
    axis, _ = chart_axis(track)
    display = track.display[keys[0]]
    digits = track.digits(display) + 1
    values = []
    for name, metrics in series.items():
        for k in keys:
            if k not in metrics:
                continue
            interval = (intervals or {}).get(name, {}).get(k)
            low, high = (None, None) if interval is None else interval
            values.append(
                {
                    "Split": labels[k],
                    "Value": round(metrics[k], digits),
                    "Low": None if low is None else round(low, digits),
                    "High": None if high is None else round(high, digits),
                    "Entry": name,
                }
            )
    spec = json.loads(
        _chart_spec(
            tuple(series), tuple(labels[k] for k in keys), title, axis, digits, chance is not None
        )
    )
    spec["layer"] += level_layers(  # labelled as the board shows a value
        [] if chance is None else [chance_level(chance, display, track.digits(display))], "x"
    )
    set_domain(spec, "x", fitted_domain(value_ends(values), display, chance))
    spec["data"] = {"values": values}
    # What a screen reader says of the chart as a whole (Vega's aria-label of its container).
    spec["description"] = f"{title}: {', '.join(series)}"
    return PlotData(type="altair", plot=json.dumps(spec))
