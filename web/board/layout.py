"""A track's board laid out, pure: its column groups, headers and number formats.

``board_layout`` takes a track's column groups as the spec lays them out
(``spec.board_columns``: one per spec view, then Details and All, the info columns of the
spec's vocabulary named) and says how each metric's cells are formatted (as its spec's
``display`` says: a percent to one decimal, a 0-1 ratio to three, seconds to two, a count
whole). ``rows`` builds the board's rows under these headers; ``table`` renders them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from errors import LayoutError
from spec import Benchmark, Track
from spec.board_columns import column_groups, column_problems


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
    """The board's columns for ``track`` (``spec.board_columns``: one group per spec view, then
    Details and All) and how each metric's cells are formatted; LayoutError if two columns or
    groups would share a header (the spec refuses such a benchmark.toml as it loads: this is
    the same check, for a model made otherwise)."""
    problems = column_problems(track, bench.input.label, f"{bench.id}/{track.id}")
    if problems:
        raise LayoutError(
            f"the board cannot be laid out: {'; '.join(problems)}. Rename the labels or view "
            f"titles in {bench.folder / 'benchmark.toml'}"
        )
    columns = column_groups(track, bench.input.label)
    metrics = columns.metrics
    formats = {label: f"{{:.{track.digits(track.display[k])}f}}" for k, label in metrics.items()}
    return BoardLayout(columns.groups, metrics, columns.info, formats)
