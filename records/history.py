"""What a board shows of its records, and what became of each row it no longer shows.

Records are immutable, so a row leaves its board by a newer record: a row that ``supersedes``
it (a correction, or its carry onto a rotated key) or a withdrawal that retracts it
(``records.withdrawals``). ``shown`` is what a board shows; ``status`` says what became of one
row (current, superseded or withdrawn) with its ``history``: the chain of rows it belongs to,
the rows it replaced first and those that replaced it after, each with the withdrawal that
retracted it, if one did. Every function here takes the rows and withdrawals of one benchmark
and track.

Example (two rows of the demo board: the second made a correction of the first, then withdrawn):

>>> import uuid, spec
>>> from datetime import UTC, datetime
>>> bench = spec.load_benchmark("egomemreason")
>>> files = sorted((bench.demo_board / "submissions").glob("*.json"))[:2]
>>> old, other = [Record.from_json(path.read_bytes()) for path in files]
>>> new = other.model_copy(update={"supersedes": old.id})
>>> gone = Withdrawal(benchmark=bench.id, track="memory", id=uuid.uuid4(),
...                   created_at=datetime(2026, 7, 20, tzinfo=UTC), withdraws=new.id,
...                   reason="a wrong file")
>>> shown([old, new], []) == [new], shown([old, new], [gone])
(True, [])
>>> status(old, [old, new], [gone]).state, status(new, [old, new], [gone]).state
('superseded', 'withdrawn')
>>> [(s.row is new, s.withdrawal is gone) for s in status(old, [old, new], [gone]).history]
[(False, False), (True, True)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal
from uuid import UUID

from records.record import Record
from records.withdrawals import Withdrawal

State = Literal["current", "superseded", "withdrawn"]


@dataclass(frozen=True)
class Step:
    """One row of a history, and the withdrawal that retracted it (None: not withdrawn)."""

    row: Record
    withdrawal: Withdrawal | None


@dataclass(frozen=True)
class RowStatus:
    """What became of a row: the row that replaced it, the withdrawal that retracted it, and
    the chain of rows it belongs to, oldest first (the row itself among them)."""

    row: Record
    superseded_by: Record | None
    withdrawal: Withdrawal | None
    history: tuple[Step, ...]

    @property
    def state(self) -> State:
        """ "withdrawn" (whether or not a row replaced it), "superseded" or "current"."""
        if self.withdrawal is not None:
            return "withdrawn"
        return "superseded" if self.superseded_by is not None else "current"


def withdrawn(withdrawals: Iterable[Withdrawal]) -> dict[UUID, Withdrawal]:
    """Each withdrawn row's id and the withdrawal that retracted it (the first, if several)."""
    out: dict[UUID, Withdrawal] = {}
    for w in sorted(withdrawals, key=lambda w: (w.created_at, str(w.id))):
        out.setdefault(w.withdraws, w)
    return out


def successors(rows: Iterable[Record]) -> dict[UUID, Record]:
    """Each superseded row's id and the row that superseded it (the first, if several)."""
    out: dict[UUID, Record] = {}
    for r in sorted(rows, key=lambda r: (r.created_at, str(r.id))):
        if r.supersedes is not None:
            out.setdefault(r.supersedes, r)
    return out


def hidden(rows: Iterable[Record], withdrawals: Iterable[Withdrawal]) -> set[UUID]:
    """The ids of the rows a board does not show: superseded or withdrawn."""
    return {r.supersedes for r in rows if r.supersedes is not None} | set(withdrawn(withdrawals))


def shown(rows: Sequence[Record], withdrawals: Iterable[Withdrawal]) -> list[Record]:
    """The rows a board shows: those no row supersedes and no withdrawal retracts, in order."""
    gone = hidden(rows, withdrawals)
    return [r for r in rows if r.id not in gone]


def status(row: Record, rows: Sequence[Record], withdrawals: Iterable[Withdrawal]) -> RowStatus:
    """What became of ``row`` among ``rows`` (its board's, superseded and withdrawn included)."""
    by_id = {r.id: r for r in rows}
    after = successors(rows)
    retracted = withdrawn(withdrawals)
    return RowStatus(
        row=row,
        superseded_by=after.get(row.id),
        withdrawal=retracted.get(row.id),
        history=tuple(Step(r, retracted.get(r.id)) for r in _chain(row, by_id, after)),
    )


def _chain(row: Record, by_id: Mapping[UUID, Record], after: Mapping[UUID, Record]) -> list[Record]:
    """The rows ``row`` replaced, oldest first, then itself and those that replaced it."""
    before: list[Record] = []
    seen = {row.id}
    at = row
    while at.supersedes is not None and at.supersedes in by_id and at.supersedes not in seen:
        at = by_id[at.supersedes]
        seen.add(at.id)
        before.append(at)
    chain = [*reversed(before), row]
    at = row
    while at.id in after and after[at.id].id not in seen:
        at = after[at.id]
        seen.add(at.id)
        chain.append(at)
    return chain
