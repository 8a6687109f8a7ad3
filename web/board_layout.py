"""A track's board laid out, pure: its column groups, headers and number formats.

``board_layout`` turns a track's views into column groups (one per spec view, then Details and
All), names the info columns of the spec's vocabulary, and says how each metric's cells are
formatted (as its spec's ``display`` says: a percent to one decimal, a
0-1 ratio to three, seconds to two, a count whole). board_view builds the board's rows under
these headers; board_table renders them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from errors import LayoutError
from spec import Benchmark, Track

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


@dataclass(frozen=True)
class BoardLayout:
    """How a track's board is shown: its column groups, headers and number formats."""

    groups: Mapping[str, tuple[str, ...]]  # title -> headers; the spec's views, Details, All
    metrics: Mapping[str, str]  # metric key -> header, in display order
    info: Mapping[str, str]  # info column of the spec's vocabulary -> header
    formats: Mapping[str, str]  # metric header -> how its cells are formatted ("{:.1f}")

    @property
    def ranking(self) -> str:
        """The ranking metric's header (it leads every group after Rank and Method, but a
        view of the paper's own columns, which the paper's ranking leads)."""
        return next(iter(self.metrics.values()))

    @property
    def columns(self) -> tuple[str, ...]:
        """Every shown column, in the order of the "All" group."""
        return self.groups["All"]


def board_layout(bench: Benchmark, track: Track) -> BoardLayout:
    """The board's columns for ``track``: one group per spec view (Rank, Method and the ranking
    metric, the paper's for a view of paper-only metrics, then the view's metrics and columns),
    then Details and All; LayoutError if two columns or groups would share a header. Paper-only
    metrics are columns too."""
    metrics = {track.ranking: track.labels[track.ranking]}
    metrics.update({k: track.labels[k] for k in track.all_metric_keys if k != track.ranking})
    info = {**INFO_LABELS, "ci": f"{metrics[track.ranking]} 95% CI", "input": bench.input.label}
    lead = ("Rank", "Method", metrics[track.ranking])
    groups: dict[str, tuple[str, ...]] = {}
    problems: list[str] = []
    for view in track.views:
        if view.title in groups or view.title in ("Details", "All"):
            problems.append(
                f"the column group {view.title!r} is declared twice (Details and All are the app's)"
            )
        ranking = _view_ranking(view.metrics, track)
        groups[view.title] = (
            "Rank",
            "Method",
            metrics[ranking],
            *(metrics[k] for k in view.metrics if k != ranking),
            *(info[c] for c in view.columns),
        )
    groups["Details"] = (*lead, *(info[c] for c in DETAILS))
    groups["All"] = (
        *lead,
        *(info[c] for c in ALL_HEAD),
        *(label for k, label in metrics.items() if k != track.ranking),
        *(info[c] for c in ALL_TAIL),
    )
    for title, headers in groups.items():
        twice = sorted({h for h in headers if headers.count(h) > 1})
        if twice:
            problems.append(
                f"the column group {title!r} has the header(s) "
                f"{', '.join(map(repr, twice))} more than once"
            )
    if problems:
        raise LayoutError(
            f"{bench.id}/{track.id}: the board cannot be laid out: "
            f"{'; '.join(problems)}. Rename the labels or view titles in "
            f"{bench.folder / 'benchmark.toml'}"
        )
    formats = {label: f"{{:.{track.digits(track.display[k])}f}}" for k, label in metrics.items()}
    return BoardLayout(groups, metrics, info, formats)


def _view_ranking(keys: tuple[str, ...], track: Track) -> str:
    """The metric a view leads with: the track's ranking, or the paper's when every metric of
    the view is a paper-only one (a decision board's Table 2 view ranks its paper rows)."""
    paper = set(track.paper_metric_keys)
    if keys and paper.issuperset(keys):
        return track.paper_ranking
    return track.ranking
