"""A track's board as columns: its column groups and their headers, and what makes them clash.

The board shows one column group per view of the spec, then Details and All (the app's own);
each header is a metric's label, an info column's name (``INFO_LABELS``: the spec's vocabulary
of ``BoardColumn``, the ranking metric's interval and the benchmark's input label) or Rank and
Method. Two columns of one group under one header, or a view titled like another group, would
make a board nobody can read (and sort or address by header), so the spec refuses it
(``column_problems``, in ``Benchmark.problems``: the boot and every script, validate_benchmark.py
included, stop on it alike); ``web.board.layout`` lays the board out from ``column_groups``.

>>> from spec import load_benchmark
>>> bench = load_benchmark("egomemreason")
>>> groups = column_groups(bench.track(), bench.input.label).groups
>>> list(groups), groups["Memory types"][:4]
(['Memory types', 'Query types', 'Details', 'All'], ('Rank', 'Method', 'Overall', 'Entity'))
>>> for problem in column_problems(bench.track(), "Source", "tracks[0]"):
...     print(problem)  # doctest: +NORMALIZE_WHITESPACE
tracks[0]: the column group 'Details' has the header 'Source' more than once (the info column
source and the input label); give each metric (its label), view and info column a header of
its own
tracks[0]: the column group 'All' has the header 'Source' more than once (the info column
source and the input label); give each metric (its label), view and info column a header of
its own
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from spec.tracks import Track

#: The info columns of the spec's vocabulary (spec.BoardColumn) and their headers; "ci" and
#: "input" are named by the track's ranking metric and the benchmark's input label.
INFO_LABELS = {
    "rank_range": "Rank range",
    "source": "Source",
    "team": "Team",
    "size": "Size",
    "date": "Date",
    "external": "External data",
    "links": "Links",
    "note": "Note",
    "key": "Key version",
}

#: The generic groups after the spec's views, as info columns in order.
DETAILS = (
    "ci",
    "rank_range",
    "team",
    "size",
    "external",
    "input",
    "source",
    "date",
    "key",
    "links",
    "note",
)
ALL_HEAD = ("rank_range", "team", "size", "external", "input", "source")  # then the metrics
ALL_TAIL = ("ci", "date", "key", "links", "note")
#: The groups every board has after the spec's views.
APP_GROUPS = ("Details", "All")
#: The columns every group leads with (then the ranking metric).
LEAD = ("Rank", "Method")


@dataclass(frozen=True)
class ColumnGroups:
    """A track's column groups (title -> headers: the spec's views, then Details and All), its
    metrics' headers (key -> label, in display order, the ranking first) and its info columns'
    (column -> header)."""

    groups: Mapping[str, tuple[str, ...]]
    metrics: Mapping[str, str]
    info: Mapping[str, str]


def column_groups(track: Track, input_label: str) -> ColumnGroups:
    """The board's columns for ``track`` (``input_label``: the benchmark's, which heads its
    input column): one group per spec view (Rank, Method and the ranking metric, the paper's for
    a view of paper-only metrics, then the view's metrics and columns), then Details and All.
    Paper-only metrics are columns too. A view titled like another group is the last of them."""
    metrics = {track.ranking: track.labels[track.ranking]}
    metrics.update({k: track.labels[k] for k in track.all_metric_keys if k != track.ranking})
    info = {**INFO_LABELS, "ci": f"{metrics[track.ranking]} 95% CI", "input": input_label}
    groups: dict[str, tuple[str, ...]] = {}
    for view in track.views:
        ranking = _view_ranking(view.metrics, track)
        groups[view.title] = (
            *LEAD,
            metrics[ranking],
            *(metrics[k] for k in view.metrics if k != ranking),
            *(info[c] for c in view.columns),
        )
    groups["Details"] = (*LEAD, metrics[track.ranking], *(info[c] for c in DETAILS))
    groups["All"] = (
        *LEAD,
        metrics[track.ranking],
        *(info[c] for c in ALL_HEAD),
        *(label for k, label in metrics.items() if k != track.ranking),
        *(info[c] for c in ALL_TAIL),
    )
    return ColumnGroups(groups, metrics, info)


def column_problems(track: Track, input_label: str, where: str) -> list[str]:
    """What makes the board of ``track`` unreadable, each with the track's TOML path
    (``where``): a view declared twice or titled like the app's groups, a header shown twice in
    one group, each clash naming what gives it that header."""
    problems = []
    titles = [view.title for view in track.views]
    for title in dict.fromkeys(titles):
        if titles.count(title) > 1 or title in APP_GROUPS:
            problems.append(
                f"{where}.views: the column group {title!r} is declared twice (Details and All "
                "are the app's); give each view a title of its own"
            )
    columns = column_groups(track, input_label)
    givers = _givers(columns)
    for title, headers in columns.groups.items():
        for header in sorted({h for h in headers if headers.count(h) > 1}):
            named = " and ".join(givers.get(header, [repr(header)]))
            problems.append(
                f"{where}: the column group {title!r} has the header {header!r} more than once "
                f"({named}); give each metric (its label), view and info column a header of "
                "its own"
            )
    return problems


def _givers(columns: ColumnGroups) -> dict[str, list[str]]:
    """Header -> what gives it, in words: a metric's label, an info column, the input label."""
    out: dict[str, list[str]] = {}
    for header in LEAD:
        out.setdefault(header, []).append(f"the app's {header} column")
    for key, label in columns.metrics.items():
        out.setdefault(label, []).append(f"the label of {key}")
    for column, header in columns.info.items():
        name = "the input label" if column == "input" else f"the info column {column}"
        out.setdefault(header, []).append(name)
    return out


def _view_ranking(keys: tuple[str, ...], track: Track) -> str:
    """The metric a view leads with: the track's ranking, or the paper's when every metric of
    the view is a paper-only one (a decision board's Table 2 view ranks its paper rows)."""
    paper = set(track.paper_metric_keys)
    if keys and paper.issuperset(keys):
        return track.paper_ranking
    return track.ranking
