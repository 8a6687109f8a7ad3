"""Withdrawing a row: the record that retracts it from its board, checked against the board.

``withdrawal`` finds the row an id names among a board's records (board_checks.read_board) and
makes the ``ledger.Withdrawal`` that retracts it, with its reason, or refuses with a
``BoardError`` that says what to do instead: an id no row has, a withdrawal's own id, a row of
another benchmark, a row already withdrawn, or one its board no longer shows because a newer
row superseded it (the newest is the one to withdraw). ``twin_withdrawal`` is the withdrawal a
``--supersedes`` repair of a row left beside its twin writes (board_checks.twin_repair).
Nothing here writes: the caller publishes.

Example (a row of the demo board, withdrawn; then withdrawn again):

>>> import uuid, ledger, spec
>>> from maintainer import board_checks
>>> bench = spec.load_benchmark("egomemreason")
>>> everything, _ = board_checks.read_board(ledger.LocalStore(bench.demo_board))
>>> row = uuid.UUID("5694e658-3eb0-487c-b1e2-cba563c80b88")
>>> retraction, withdrawn = withdrawal(everything, bench, row, "The team asked.")
>>> withdrawn.method_name, retraction.withdraws == row, retraction.track
('DemoVLM-7B (synthetic)', True, 'memory')
>>> try:
...     withdrawal([*everything, retraction], bench, row, "Again.")
... except BoardError as error:
...     print(error)  # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
5694e658-3eb0-487c-b1e2-cba563c80b88 (DemoVLM-7B (synthetic) by Demo Lab, key demo-1) is
already withdrawn (withdrawn on ... by ...: The team asked.); nothing to do
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

import ledger
import spec
from errors import BoardError, RecordError
from maintainer.board_checks import owner, row_name, rows_of, withdrawals_of, withdrawn_text
from records import history


def find_row(
    everything: Sequence[ledger.Entry], bench: spec.Benchmark, row_id: uuid.UUID
) -> tuple[ledger.Record, spec.Track]:
    """The row ``row_id`` names on ``bench``'s boards, and its track; BoardError if none."""
    found = [e for e in everything if e.id == row_id]
    if not found:
        raise BoardError(
            f"--row {row_id}: no such row among the records of {bench.id}; give the uuid of a "
            "row (the name of its submissions/<uuid>.json, its card's Record id)"
        )
    entry = found[0]
    if isinstance(entry, ledger.Withdrawal):
        raise BoardError(
            f"--row {row_id}: that is a withdrawal record (of {entry.withdraws}), not a row; "
            "records are never removed, so a withdrawal stands"
        )
    track_id = ledger.record_track(entry, bench)
    if track_id is None:
        raise BoardError(
            f"--row {row_id}: that row belongs to {owner(entry)}, not {bench.id}; pass "
            "--benchmark with its benchmark"
        )
    return entry, bench.track(track_id)


def withdrawal(
    everything: Sequence[ledger.Entry],
    bench: spec.Benchmark,
    row_id: uuid.UUID,
    reason: str,
    *,
    record_id: uuid.UUID | None = None,
    created_at: datetime | None = None,
) -> tuple[ledger.Withdrawal, ledger.Record]:
    """The withdrawal of the row ``row_id`` names, for ``reason``, and that row; BoardError if
    the board does not show it (RecordError, from the record, if the reason is no reason).

    Its id is derived from the row and the reason, never drawn: a dry run prints the id the
    real run writes."""
    row, track = find_row(everything, bench, row_id)
    rows = rows_of(everything, bench, track)
    state = history.status(row, rows, withdrawals_of(everything, bench, track))
    if state.withdrawal is not None:
        raise BoardError(
            f"{row_name(row)} is already withdrawn ({withdrawn_text(state.withdrawal)}); "
            "nothing to do"
        )
    if state.superseded_by is not None:
        head = state.history[-1].row
        raise BoardError(
            f"{row_name(row)} is no longer on the board of {bench.id}/{track.id}: "
            f"{state.superseded_by.id} superseded it; withdraw the row the board shows in its "
            f"place instead, {row_name(head)}"
        )
    derived = uuid.uuid5(row.id, f"withdrawn: {reason}")
    withdrawn = ledger.withdrawal_of(
        row, bench, reason, record_id=record_id or derived, created_at=created_at
    )
    return withdrawn, row


def twin_withdrawal(
    kept: ledger.Record, dropped: ledger.Record, bench: spec.Benchmark
) -> ledger.Withdrawal:
    """The withdrawal of ``dropped``, left on the board beside its twin ``kept`` (the same team
    and method on the same key version) by mistake, in ``kept``'s favour."""
    try:
        return ledger.withdrawal_of(
            dropped,
            bench,
            f"Published beside {kept.id}, the same team and method on the same key version, by "
            f"mistake; {kept.id} stays in its place.",
            replaced_by=kept.id,
        )
    except RecordError as exc:  # the reason is ours: a bug, not the maintainer's input
        raise AssertionError(exc) from None
