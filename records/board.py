"""A board as it was read, pure: its snapshot, the commit that added a record, the Hub's results.

``BoardSnapshot`` is what ``ledger.BoardCache`` last read of a track's records (what to show,
and how fresh it is), ``AddedIn`` the Hub commit that added a record's file
(``ledger.HubStore.added_in``), ``HubResult`` and ``HubResults`` what the Hub's own leaderboard
said for the benchmark (``ledger.HubResultsCache``). The ledger fills them; the pages show them
without importing the ledger.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from records.history import RowStatus
from records.history import status as row_status
from records.record import Record
from records.withdrawals import Withdrawal

#: A visitor's Refresh reads the store again unless a read started this recently (seconds).
REREAD_FLOOR_S = 5.0


@dataclass(frozen=True)
class BoardSnapshot:
    """The board as last loaded: what to show, and how fresh it is."""

    records: tuple[Record, ...]  # valid, of this track, superseded hidden, best first
    last_success: float | None  # clock() time of the last successful refresh
    stale: bool  # the last refresh attempt failed
    error: str | None  # why it failed (no token)
    skipped: tuple[str, ...]  # paths of records that could not be used (not other tracks')
    #: Valid rows of this track a newer row supersedes or a withdrawal retracts (not shown).
    superseded: tuple[Record, ...] = ()
    withdrawals: tuple[Withdrawal, ...] = ()  # this track's, oldest first

    def age_s(self, now: float) -> float | None:
        """Seconds since the last successful refresh, or None if there was none."""
        return None if self.last_success is None else max(0.0, now - self.last_success)

    def status(self, record_id: str) -> RowStatus | None:
        """What became of the row ``record_id`` (shown or not), or None if it is no row here."""
        rows = (*self.records, *self.superseded)
        wanted = record_id.strip().lower()
        row = next((r for r in rows if str(r.id) == wanted), None)
        return None if row is None else row_status(row, rows, self.withdrawals)


@dataclass(frozen=True)
class AddedIn:
    """The commit that added a record's file to the Hub dataset (records are never rewritten)."""

    commit: str  # 40 hex digits
    title: str  # the first line of the commit message
    date: datetime  # timezone-aware, as the Hub reports it
    url: str  # the commit's page on the Hub


@dataclass(frozen=True)
class HubResult:
    """One result of the Hub's leaderboard, as a board shows it: never verified here."""

    rank: int
    model_id: str  # an "org/name" repo id
    value: float
    hub_verified: bool  # the Hub's own badge (a valid verifyToken), not this leaderboard's
    pull_request: int | None  # an open pull request on the model: a "community" result
    source_url: str | None  # an http(s) link, or None
    source_name: str | None
    notes: str | None


@dataclass(frozen=True)
class HubResults:
    """The Hub's results as last read: the rows, and how fresh they are."""

    dataset: str
    rows: tuple[HubResult, ...]
    last_success: float | None  # clock() time of the last good read
    error: str | None  # why the last read failed (None: it did not)
