"""One track as the page serves it: its spec, its answer key and its board (app, score_page)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import ledger
from spec import Track


@dataclass(frozen=True)
class Served:
    """One track as the page serves it: its spec, its answer key and its board."""

    track: Track
    #: The current key (ledger.KeyLoader retries one that failed at boot).
    keys: Callable[[], ledger.KeyStatus]
    board: ledger.BoardCache
