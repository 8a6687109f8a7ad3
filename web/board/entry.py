"""A row's card as JSON: the ``/entry`` endpoint.

``entry_json`` says, for one record id, whether its row is on the board, superseded by a newer
row or withdrawn (when, by which record, why, and which row stands in its place), the chain of
rows it belongs to (records.history), and the record itself as stored, at full precision. A
superseded or withdrawn row is dropped from the board and from ``/leaderboard``, but stays
reachable here and by its card's permalink. ``entry_api`` makes the endpoint's function over
the Leaderboard tab.

Example (a row of the demo board):

>>> import time, ledger, spec
>>> from web.served import Served
>>> from web.board.handlers import board_tab
>>> bench = spec.load_benchmark("egomemreason")
>>> board = ledger.BoardCache(ledger.LocalStore(bench.demo_board), bench, bench.track())
>>> status = ledger.KeyStatus(None, "none", demo=True, error=None)
>>> tab = board_tab(bench, [Served(bench.track(), lambda: status, board)], time.time)
>>> found = entry_api(tab)("5694e658-3eb0-487c-b1e2-cba563c80b88")
>>> found["status"], found["track"], found["record"]["method_name"]
('current', 'memory', 'DemoVLM-7B (synthetic)')
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import gradio as gr

from records import RowStatus, Withdrawal
from web.board.address import entry_id
from web.board.handlers import BoardTab, find_entry
from web.text import quoted


def _withdrawal(w: Withdrawal | None) -> dict[str, Any] | None:
    if w is None:
        return None
    return {
        "record": str(w.id),
        "date": w.created_at.isoformat(),
        "reason": w.reason,
        "replaced_by": None if w.replaced_by is None else str(w.replaced_by),
    }


def entry_json(track: str, status: RowStatus) -> dict[str, Any]:
    """One row's card as JSON: its state, what replaced or retracted it, its history (oldest
    first) and its record as stored."""
    newer = status.superseded_by
    return {
        "id": str(status.row.id),
        "track": track,
        "status": status.state,
        "on_board": status.state == "current",
        "superseded_by": None if newer is None else str(newer.id),
        "withdrawn": _withdrawal(status.withdrawal),
        "history": [
            {
                "id": str(step.row.id),
                "method_name": step.row.method_name,
                "team_name": step.row.team_name,
                "source": step.row.source,
                "key_version": step.row.key_version,
                "created_at": step.row.created_at.isoformat(),
                "supersedes": None if step.row.supersedes is None else str(step.row.supersedes),
                "withdrawn": _withdrawal(step.withdrawal),
            }
            for step in status.history
        ],
        "record": json.loads(status.row.to_json()),
    }


def entry_api(tab: BoardTab) -> Callable[[str], dict[str, Any]]:
    """The ``/entry`` function: a record id in, its row's card as JSON out."""

    def entry(record_id: str) -> dict[str, Any]:
        """One row of the leaderboard by its record id (its card's permalink's ?entry=), on
        the board or not: status ("current", "superseded" or "withdrawn"), what replaced or
        withdrew it and why, its history, and its record at full precision."""
        wanted = entry_id(record_id)
        found = find_entry(tab, wanted, tab.first) if wanted is not None else None
        if found is None:
            raise gr.Error(
                f"No entry of this leaderboard has the id {quoted(record_id)}; give a record "
                "id, as its card's permalink names it (?entry=<id>).",
                print_exception=False,
            )
        s, record, _ = found
        status = s.board.snapshot().status(str(record.id))
        if status is None:  # the board was read again in between, without it
            raise gr.Error("That entry is no longer on this board; try again.")
        return entry_json(s.track.id, status)

    return entry
