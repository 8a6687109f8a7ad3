"""What the line above the board counts and says, pure.

``row_kinds`` and ``row_counts`` count a board's entries (what Score ranks a file against), its
reference rows and the rows ranked apart, of the view and of the whole board; ``status_line``
says how many the view shows and how fresh the board is, ``empty_text`` what a view with no
rows says instead of a table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime

import pandas as pd

from records import REREAD_FLOOR_S, BoardSnapshot
from spec import Track


def row_kinds(frame: pd.DataFrame, track: Track) -> tuple[int, int, int]:
    """(entries, reference rows, rows ranked apart) of a board frame: the entries are what
    Score ranks a file against (``ranks.entries``), the rows ranked apart a decision
    board's paper rows (ranked by the paper's own F1)."""
    references = frame["_reference"] != ""
    apart = frame["_ranked_by"] != track.labels[track.ranking]
    return (
        int((~references & ~apart).sum()),
        int((references & ~apart).sum()),
        int(apart.sum()),
    )


def row_counts(
    shown: tuple[int, int, int], total: tuple[int, int, int], track: Track
) -> tuple[int, int, tuple[str, ...]]:
    """``status_line``'s counts from ``row_kinds`` of the rows shown and of the board: the
    entries shown, the entries, and the other rows in words ("2 reference rows (constant
    policies, not ranked)", "7 paper-reported rows, ranked apart by Paper F1"), "N of M" when
    the filters hide some."""

    def counted(i: int, one: str, many: str) -> str:
        n = f"{shown[i]} of {total[i]}" if shown[i] < total[i] else f"{total[i]}"
        return f"{n} {one if total[i] == 1 else many}"

    others = []
    if total[1]:
        others.append(counted(1, "reference row", "reference rows") + " (not ranked)")
    if total[2]:
        label = track.labels[track.paper_ranking]
        others.append(
            counted(2, "paper-reported row", "paper-reported rows") + f", ranked apart by {label}"
        )
    return shown[0], total[0], tuple(others)


def status_line(
    snapshot: BoardSnapshot,
    shown: int,
    now: float,
    total: int | None = None,
    others: Sequence[str] = (),
    kept_read: float | None = None,
) -> str:
    """The line above the board: "N of M entries" when filters hide rows ("M entries" when
    none are hidden; ``total`` the board's entries, all its rows by default), the ``others``
    (``row_counts``: reference rows, rows ranked apart), when the board was read from its
    records (a clock time and an age: the page shows the cache's copy, so a bare "updated 0 s
    ago" that Refresh turned into "22 s ago" read as a Refresh that did nothing), what Refresh
    does (``kept_read``: when the read a Refresh showed started, for a Refresh that came too
    soon after it to read again: the line says so, and when to try again), and that the board
    is stale when it is. Why it is stale (``snapshot.error``, which names the records' repo and
    the Hub's address) is the log's.

    >>> snapshot = BoardSnapshot((), last_success=3_600.0, stale=False, error=None,
    ...                          skipped=())
    >>> status_line(snapshot, 0, 3_605.0)
    '0 entries · board as of 01:00 UTC, read from its records 5 s ago; Refresh reads them again'
    """
    age = snapshot.age_s(now)
    if age is None or snapshot.last_success is None:
        return (
            "The leaderboard could not be loaded yet: its records could not be read; the "
            "maintainer has been told in the log."
        )
    total = len(snapshot.records) if total is None else total
    noun = "entry" if total == 1 else "entries"
    entries = f"{total} {noun}" if shown >= total else f"{shown} of {total} {noun}"
    refresh = REFRESH_SAYS
    if kept_read is not None:  # a Refresh too soon after the last read: that read, shown again
        wait = max(1, math.ceil(REREAD_FLOOR_S - (now - kept_read)))
        refresh = (
            f"they are read again at most once every {REREAD_FLOOR_S:g} s: try again in {wait} s"
        )
    read = (
        f"board as of {_clock_time(snapshot.last_success)}, read from its records {_ago(age)}; "
        f"{refresh}"
    )
    text = " · ".join([entries, *others, read])
    if snapshot.stale:
        text += f" · the records source could not be reached; showing the board as of {_ago(age)}"
    return text


#: What the Refresh button does, as the status line says it (handlers.reread does it).
REFRESH_SAYS = "Refresh reads them again"


def _clock_time(epoch_s: float) -> str:
    """A time of day in UTC ("14:05 UTC"): a Space's visitors are anywhere."""
    return datetime.fromtimestamp(epoch_s, tz=UTC).strftime("%H:%M UTC")


def _ago(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 120:
        return f"{seconds} s ago"
    if seconds < 7200:
        return f"{seconds // 60} min ago"
    return f"{seconds // 3600} h ago"


def empty_text(shown: int, total: int) -> str | None:
    """What the board says in place of rows when it shows none (None when it shows some):
    that there are none yet, or that the filters and search hide all ``total``."""
    if shown:
        return None
    if not total:
        return "No entries yet. See **About** for how to get listed."
    return f"No entry matches the filters and search; clear them to see all {total} entries."
