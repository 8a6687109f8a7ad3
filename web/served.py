"""One track as the page serves it (its spec, its answer key and its board), and what a tab
serving several knows of them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import ledger
from spec import Benchmark, Track


@dataclass(frozen=True)
class Served:
    """One track as the page serves it: its spec, its answer key and its board."""

    track: Track
    #: The current key (ledger.KeyLoader retries one that failed at boot).
    keys: Callable[[], ledger.KeyStatus]
    board: ledger.BoardCache
    #: The Hub's own results for the benchmark, shown apart and unverified (spec
    #: hub.show_hub_results; the first track's alone): None when not shown.
    hub_results: ledger.HubResultsCache | None = None


@dataclass(frozen=True)
class Tab:
    """What a tab's handlers know of the tracks it serves (each tab's context extends it)."""

    bench: Benchmark
    served: tuple[Served, ...]  # in the page's order: the first is shown first

    @property
    def tracks(self) -> dict[str, Served]:
        """The served tracks by id."""
        return {s.track.id: s for s in self.served}

    @property
    def first(self) -> Served:
        return self.served[0]

    @property
    def many(self) -> bool:
        """Whether the page serves several tracks (and so offers a choice between them)."""
        return len(self.served) > 1
