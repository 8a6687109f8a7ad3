"""The board as a table, pure: its columns from the spec, ranks, filters, exports and the chart.

``board_layout`` turns a track's views into column groups; ``board_frame`` turns records into
the whole board (best first, unrounded, with rank ranges from the ranking metric's intervals);
``board_filter`` checks what a visitor asked to see before any work; ``export_rows`` and
``export_csv`` are what Download and ``/leaderboard`` give.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import altair as alt
import pandas as pd
from gradio.components.plot import PlotData

import evaluator
import ledger
from evaluator import Count
from spec import Benchmark, Track

MAX_SEARCH_CHARS = 200  # the longest method name a record may have


MAX_SEARCH_WORDS = 20  # each word is one pass over the board (~0.2 ms)


MAX_PICKS = 12  # entries the chart compares


#: Text a spreadsheet would run as a formula when the CSV export is opened (OWASP).
CSV_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


SOURCE_LABELS = {"rescored": "Re-scored", "paper": "Paper"}


#: How the Source column shows them: re-scored rows stand out from paper-reported ones.
SOURCE_BADGES = {"rescored": "**✓ Re-scored**", "paper": "*Paper-reported*"}


NOT_REPORTED = "Not reported"


SIZE_BUCKETS = ("< 10B", "10B – 40B", "≥ 40B", "API / not stated")


EXTERNAL_CHOICES = ("Yes", "No", NOT_REPORTED)


#: The info columns of the spec's vocabulary (spec.BoardColumn) and their headers; "ci" and
#: "input" are named by the track's ranking metric and the benchmark's input label.
INFO_LABELS = {"rank_range": "Rank range", "source": "Source", "team": "Team", "size": "Size",
               "date": "Date", "external": "External data", "links": "Links", "note": "Note"}


#: The generic groups after the spec's views, as info columns in order.
DETAILS = ("ci", "rank_range", "team", "size", "external", "input", "source", "date", "links",
           "note")


ALL_HEAD = ("rank_range", "team", "size", "external", "input", "source")  # then the metrics


ALL_TAIL = ("ci", "date", "links", "note")


WIDTHS = {"rank_range": "86px", "team": "200px", "size": "80px", "source": "136px",
          "date": "108px", "links": "140px", "note": "260px", "ci": "120px",
          "external": "96px", "input": "150px"}


DEFAULT_WIDTH_PX = 84


DEFAULT_WIDTH = f"{DEFAULT_WIDTH_PX}px"
#: A metric column is as wide as its header's longest word needs, at least the default width
#: (which holds 8 characters).
HEADER_CHAR_PX, HEADER_PAD_PX = 9, 12


#: Columns of the board frame that are never shown: ids and what filters and search read.
HIDDEN_COLUMNS = ["_id", "_name", "_source", "_size", "_external", "_input", "_text"]


class LayoutError(ValueError):
    """A spec's board would show two columns, or two column groups, under one header."""


@dataclass(frozen=True)
class BoardLayout:
    """How a track's board is shown: its column groups, headers, cell types and widths."""

    groups: Mapping[str, tuple[str, ...]]  # title -> headers; the spec's views, Details, All
    metrics: Mapping[str, str]  # metric key -> header, in display order
    info: Mapping[str, str]  # info column of the spec's vocabulary -> header
    datatypes: Mapping[str, Literal["str", "number", "markdown"]]
    widths: Mapping[str, str]

    @property
    def ranking(self) -> str:
        """The ranking metric's header (it leads every group after Rank and Method)."""
        return next(iter(self.metrics.values()))

    @property
    def columns(self) -> tuple[str, ...]:
        """Every shown column, in the order of the "All" group."""
        return self.groups["All"]


def board_layout(bench: Benchmark, track: Track) -> BoardLayout:
    """The board's columns for ``track``: one group per spec view (Rank, Method and the ranking
    metric, then the view's metrics and columns), then Details and All; LayoutError if two
    columns or groups would share a header."""
    metrics = {track.ranking: track.labels[track.ranking]}
    metrics.update({k: track.labels[k] for k in track.metric_keys if k != track.ranking})
    info = {**INFO_LABELS, "ci": f"{metrics[track.ranking]} 95% CI", "input": bench.input.label}
    lead = ("Rank", "Method", metrics[track.ranking])
    groups: dict[str, tuple[str, ...]] = {}
    problems: list[str] = []
    for view in track.views:
        if view.title in groups or view.title in ("Details", "All"):
            problems.append(f"the column group {view.title!r} is declared twice (Details and "
                            "All are the app's)")
        groups[view.title] = (*lead, *(metrics[k] for k in view.metrics if k != track.ranking),
                              *(info[c] for c in view.columns))
    groups["Details"] = (*lead, *(info[c] for c in DETAILS))
    groups["All"] = (*lead, *(info[c] for c in ALL_HEAD),
                     *(label for k, label in metrics.items() if k != track.ranking),
                     *(info[c] for c in ALL_TAIL))
    for title, headers in groups.items():
        twice = sorted({h for h in headers if headers.count(h) > 1})
        if twice:
            problems.append(f"the column group {title!r} has the header(s) "
                            f"{', '.join(map(repr, twice))} more than once")
    if problems:
        raise LayoutError(f"{bench.id}/{track.id}: the board cannot be laid out: "
                          f"{'; '.join(problems)}. Rename the labels or view titles in "
                          f"{bench.folder / 'benchmark.toml'}")
    datatypes: dict[str, Literal["str", "number", "markdown"]] = {
        "Rank": "number", "Method": "markdown", info["source"]: "markdown",
        info["links"]: "markdown", **{label: "number" for label in metrics.values()}}
    widths = {"Rank": "62px", "Method": "200px", **{info[c]: w for c, w in WIDTHS.items()},
              **{label: _metric_width(label) for label in metrics.values()}}
    return BoardLayout(groups, metrics, info, datatypes, widths)


def _metric_width(label: str) -> str:
    """Wide enough that a header breaks between words, not inside one ("Contradi-ctory")."""
    longest = max((len(word) for word in label.split()), default=0)
    return f"{max(DEFAULT_WIDTH_PX, HEADER_PAD_PX + HEADER_CHAR_PX * longest)}px"


def macro_keys(track: Track) -> set[str]:
    return {a.key for a in track.summaries if a.aggregation == "macro"}


def record_counts(record: ledger.Record, track: Track) -> dict[str, Count]:
    """A record's counts; for paper rows, its percentages over the track's sizes (a macro mean
    has no count of its own to recover, so it gets none)."""
    if record.counts is not None:
        return dict(record.counts)
    macro = macro_keys(track)
    return {
        key: Count(correct=round(record.metrics[key] * total / 100), total=total)
        for key, total in track.sizes.items()
        if key in record.metrics and key not in macro
    }


def rank_ranges(intervals: Sequence[tuple[float, float]]) -> list[tuple[int, int]]:
    """Per row: 1 + rows whose interval lies entirely above it, and the worst rank it could hold."""
    lows = sorted(low for low, _ in intervals)
    highs = sorted(high for _, high in intervals)
    n = len(intervals)
    out = []
    for low, high in intervals:
        above = n - bisect.bisect_right(lows, high)
        below = bisect.bisect_left(highs, low)
        out.append((1 + above, n - below))
    return out


_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([BbMmTt])\b")


def size_in_billions(model_size: str) -> float | None:
    """"8B" -> 8, "30B-A3B" -> 30, "API" or "" -> None."""
    match = _SIZE.search(model_size)
    if not match:
        return None
    value = float(match.group(1))
    return value * {"b": 1.0, "m": 1e-3, "t": 1e3}[match.group(2).lower()]


def size_bucket(model_size: str) -> str:
    size = size_in_billions(model_size)
    if size is None:
        return SIZE_BUCKETS[3]
    return SIZE_BUCKETS[0] if size < 10 else SIZE_BUCKETS[1] if size < 40 else SIZE_BUCKETS[2]


def _yes_no(value: bool | None) -> str:
    return NOT_REPORTED if value is None else "Yes" if value else "No"


def input_label(value: str | None, bench: Benchmark) -> str:
    """How the board shows a record's ``uses_frames``: its label among the spec's choices."""
    return NOT_REPORTED if value is None else bench.input.choices.get(value, value)


def md_escape(text: str) -> str:
    return re.sub(r"([\\`*_{}\[\]()#+!|<>])", r"\\\1", text)


def _links(record: ledger.Record) -> str:
    parts = []
    if record.publication_url:
        parts.append(f"[paper]({record.publication_url})")
    if record.project_url:
        parts.append(f"[project]({record.project_url})")
    return " · ".join(parts)


def _ranking_count(record: ledger.Record, track: Track) -> Count:
    return record_counts(record, track)[track.ranking]


def board_frame(records: Sequence[ledger.Record], bench: Benchmark,
                track: Track) -> pd.DataFrame:
    """The whole board, best ranking metric first, with unrounded metrics and the rank columns
    (the "All" group's columns, then the hidden ones)."""
    layout = board_layout(bench, track)
    info, ranking = layout.info, track.ranking
    rows = sorted(records, key=lambda r: (-r.metrics.get(ranking, 0.0), r.method_name))
    counts = [_ranking_count(r, track) for r in rows]
    intervals = [evaluator.wilson_interval(c.correct, c.total) for c in counts]
    ranks = rank_ranges(intervals)
    table = []
    for record, (best, worst), (low, high) in zip(rows, ranks, intervals, strict=True):
        method = md_escape(record.method_name) + (" †" if record.note else "")
        if record.project_url:
            method = f"[{method}]({record.project_url})"
        shown_input = input_label(record.uses_frames, bench)
        external = _yes_no(record.uses_external)
        row: dict[str, Any] = {
            "Rank": best,
            info["rank_range"]: f"{best}" if best == worst else f"{best}–{worst}",
            "Method": method,
            info["team"]: record.team_name,
            info["size"]: record.model_size or "—",
            info["external"]: external,
            info["input"]: shown_input,
            info["source"]: SOURCE_BADGES[record.source],
        }
        row.update({label: record.metrics.get(k) for k, label in layout.metrics.items()})
        row.update({
            info["ci"]: f"{low:.1f}–{high:.1f}",
            info["date"]: record.created_at.date().isoformat(),
            info["links"]: _links(record),
            info["note"]: record.note or "",
            "_id": str(record.id),
            "_name": record.method_name,
            "_source": record.source,
            "_size": size_bucket(record.model_size),
            "_external": external,
            "_input": shown_input,
            "_text": " ".join([record.method_name, record.team_name, record.model_size,
                               record.method_description]).lower(),
        })
        table.append(row)
    return pd.DataFrame(table, columns=[*layout.columns, *HIDDEN_COLUMNS])


@dataclass(frozen=True)
class BoardFilter:
    """What the visitor asked to see."""

    search: str = ""
    sources: tuple[str, ...] = tuple(SOURCE_LABELS.values())
    external: tuple[str, ...] = EXTERNAL_CHOICES
    inputs: tuple[str, ...] = ()  # labels of the spec's input choices; empty: any
    sizes: tuple[str, ...] = SIZE_BUCKETS

    def apply(self, frame: pd.DataFrame) -> pd.DataFrame:
        sources = {key for key, label in SOURCE_LABELS.items() if label in self.sources}
        keep = frame["_source"].isin(sources) & frame["_external"].isin(self.external)
        keep &= frame["_size"].isin(self.sizes)
        if self.inputs:
            keep &= frame["_input"].isin(self.inputs)
        for word in self.search.lower().split():
            keep &= frame["_text"].str.contains(word, regex=False)
        return frame[keep]


class BadInput(ValueError):
    """An event got an input no page sends: too long, too many values, or not a choice."""


#: The filters' labels on the page, as a refusal names them.
FILTER_LABELS = {"sources": "Source", "external": "Uses external data", "sizes": "Model size"}


def board_filter(search: object, sources: object, external: object, inputs: object,
                 sizes: object, bench: Benchmark) -> BoardFilter:
    """What a visitor asked to see, checked before any work is done for it.

    BadInput if the search is not text of at most MAX_SEARCH_CHARS characters and
    MAX_SEARCH_WORDS words (each word costs a pass over the board), or a selection is not a
    list of at most as many values as it has choices, each one of them. None ticks nothing.
    """
    if search is None:
        search = ""
    if not isinstance(search, str):
        raise BadInput(f"The search must be text; got {quoted(search)}.")
    if len(search) > MAX_SEARCH_CHARS:
        raise BadInput(f"The search is {len(search)} characters long; search for at most "
                       f"{MAX_SEARCH_CHARS} characters ({MAX_SEARCH_WORDS} words).")
    words = len(search.split())
    if words > MAX_SEARCH_WORDS:
        raise BadInput(f"The search has {words} words; search for at most {MAX_SEARCH_WORDS} "
                       "words.")
    return BoardFilter(
        search,
        _selection(FILTER_LABELS["sources"], sources, tuple(SOURCE_LABELS.values())),
        _selection(FILTER_LABELS["external"], external, EXTERNAL_CHOICES),
        _selection(bench.input.label, inputs, (*bench.input.choices.values(), NOT_REPORTED)),
        _selection(FILTER_LABELS["sizes"], sizes, SIZE_BUCKETS))


def _selection(label: str, value: object, choices: Sequence[str]) -> tuple[str, ...]:
    """Ticked values of ``choices`` as a tuple; BadInput naming ``label`` if they are not."""
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise BadInput(f"{label}: expected a list of its choices; got {quoted(value)}.")
    if len(value) > len(choices):
        raise BadInput(f"{label}: expected at most {len(choices)} of {listed(choices)}; got "
                       f"{len(value)} values.")
    for item in value:
        if not isinstance(item, str) or item not in choices:
            raise BadInput(f"{label}: {quoted(item)} is not one of {listed(choices)}.")
    return tuple(value)


def quoted(value: object, limit: int = 40) -> str:
    """A refused value as a message quotes it: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def listed(choices: Sequence[str]) -> str:
    return ", ".join(map(repr, choices))


def visible_columns(frame: pd.DataFrame, group: str, bench: Benchmark,
                    track: Track) -> pd.DataFrame:
    """The columns of one column group, the first if unknown (metrics unrounded:
    ``one_decimal`` formats them)."""
    groups = board_layout(bench, track).groups
    return frame[list(groups.get(group, next(iter(groups.values()))))]


def one_decimal(frame: pd.DataFrame, columns: Sequence[str]) -> Any:
    """A Styler showing ``columns`` to one decimal; the cells stay numbers, so sorting works."""
    present: list[Hashable] = [c for c in columns if c in frame.columns]
    return frame.style.format("{:.1f}", subset=present, na_rep="—")


def export_rows(frame: pd.DataFrame, records: Sequence[ledger.Record],
                track: Track) -> list[dict[str, Any]]:
    """Rows for CSV/JSON/API: full precision, plain names, counts and intervals included."""
    by_id = {str(r.id): r for r in records}
    ranking = track.ranking
    rows = []
    for _, row in frame.iterrows():
        record = by_id[row["_id"]]
        count = _ranking_count(record, track)
        low, high = evaluator.wilson_interval(count.correct, count.total)
        out: dict[str, Any] = {
            "rank": int(row["Rank"]),
            "rank_range": row[INFO_LABELS["rank_range"]],
            "id": row["_id"],
            "method_name": record.method_name,
            "team_name": record.team_name,
            "model_size": record.model_size,
            "uses_external": record.uses_external,
            "uses_frames": record.uses_frames,
            "source": record.source,
        }
        out.update({k: record.metrics.get(k) for k in track.metric_keys})
        out.update({
            f"{ranking}_ci_low": low,
            f"{ranking}_ci_high": high,
            # In the track's display order, whatever order the record file has.
            "counts": None if record.counts is None
            else {k: record.counts[k].model_dump() for k in track.metric_keys
                  if k in record.counts},
            "n_abstained": record.n_abstained,
            "created_at": record.created_at.isoformat(),
            "project_url": record.project_url,
            "publication_url": record.publication_url,
            "method_description": record.method_description,
            "note": record.note,
        })
        rows.append(out)
    return rows


def export_csv(rows: Sequence[Mapping[str, Any]]) -> bytes:
    """``export_rows`` as CSV, counts left out. A text cell a spreadsheet would run as a
    formula (one starting with =, +, -, @, a tab or a carriage return) gets a leading
    apostrophe, as OWASP advises; numbers stay numbers, and the JSON export keeps the text."""
    frame = pd.DataFrame(list(rows)).drop(columns=["counts"], errors="ignore")
    return frame.map(_inert_cell).to_csv(index=False).encode()


def _inert_cell(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(CSV_FORMULA_STARTS):
        return "'" + value
    return value


def chart_keys(track: Track) -> tuple[str, ...]:
    """The metrics a split chart shows: the spec's ``chart``, else the ranking metric and the
    groups of the first grouping."""
    return track.chart or (track.ranking, *(g.key for g in track.groupings[0].groups))


@functools.lru_cache(maxsize=128)
def _chart_spec(entries: tuple[str, ...], order: tuple[str, ...], title: str) -> str:
    """The Vega-Lite spec of a split chart without its data (altair is slow: build it once)."""
    chart = (
        alt.Chart(title=title)
        .mark_bar(cornerRadiusEnd=2)
        .encode(
            y=alt.Y("Split:N", sort=list(order), title=None),
            yOffset=alt.YOffset("Entry:N", sort=list(entries)),
            x=alt.X("Accuracy (%):Q", scale=alt.Scale(domain=[0, 100])),
            color=alt.Color("Entry:N", sort=list(entries),
                            legend=alt.Legend(orient="bottom", direction="vertical",
                                              title=None, labelLimit=320)),
            tooltip=["Entry:N", "Split:N", "Accuracy (%):Q"],
        )
        # As wide as its block (see CSS): it fits phones and laptops alike.
        .properties(width="container", height=alt.Step(8 if len(entries) > 3 else 14))
        .configure_axis(labelFontSize=12, titleFontSize=12)
        .configure_legend(labelFontSize=12)
        .configure_title(fontSize=14)
    )
    return str(chart.to_json())


def split_chart(series: dict[str, dict[str, float]], title: str, track: Track) -> PlotData:
    """Grouped horizontal bars: a group per split of ``chart_keys(track)``, a bar per series.

    Horizontal, so the chart fits the width of any screen and only grows in height.
    """
    keys = chart_keys(track)
    labels = track.labels
    spec = json.loads(_chart_spec(tuple(series), tuple(labels[k] for k in keys), title))
    spec.pop("datasets", None)
    spec["data"] = {"values": [
        {"Split": labels[k], "Accuracy (%)": round(metrics[k], 2), "Entry": name}
        for name, metrics in series.items() for k in keys if k in metrics
    ]}
    return PlotData(type="altair", plot=json.dumps(spec))
