"""A withdrawal: the immutable record that retracts a row from its board, with its reason.

Records are never deleted or rewritten. A row that must leave the board (a team's request, a
row published beside its twin by mistake, a submission found to break the rules) is retracted
by a record of its own, ``submissions/<uuid>.json`` like any other, whose ``source`` is
``"withdrawal"``: it names its benchmark and track, the row it ``withdraws``, the ``reason``
(shown on the row's card) and, when another row of the board stays in its place, that row
(``replaced_by``). The withdrawn row's own file stays as it was, so its card (reached by its
permalink) and ``scripts/reproduce_row.py`` still find it.

``read_entry`` reads the bytes of either kind of record of a store.

>>> import uuid
>>> from datetime import UTC, datetime
>>> w = Withdrawal(benchmark="egomemreason", track="memory",
...                id=uuid.UUID("6f1c2d1e-0000-4000-8000-000000000001"),
...                created_at=datetime(2026, 7, 1, tzinfo=UTC),
...                withdraws=uuid.UUID("5694e658-3eb0-487c-b1e2-cba563c80b88"),
...                reason="The team asked to withdraw it: a bug in their frame sampler.")
>>> entry = read_entry(w.to_json())
>>> type(entry).__name__, entry == w, entry.path()
('Withdrawal', True, 'submissions/6f1c2d1e-0000-4000-8000-000000000001.json')
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Literal
from uuid import UUID, uuid4

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from errors import RecordError
from records.record import RECORDS_FOLDER, Record, describe_validation_error
from records.text import visible_text
from spec import Benchmark

#: The ``source`` of a withdrawal record (a row's is "rescored" or "paper").
WITHDRAWAL = "withdrawal"
REASON_MAX_CHARS = 1000


class Withdrawal(BaseModel):
    """An immutable record that retracts one row of its benchmark and track, with its reason."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    schema_version: Literal[2] = 2  # SCHEMA_VERSION: withdrawals came with schema 2
    benchmark: str = Field(min_length=1)
    track: str = Field(min_length=1)
    id: UUID = Field(strict=False)
    created_at: datetime = Field(strict=False, description="UTC: when the row was withdrawn")
    source: Literal["withdrawal"] = "withdrawal"
    withdraws: UUID = Field(strict=False, description="the id of the row it retracts")
    reason: str = Field(min_length=1, max_length=REASON_MAX_CHARS)
    #: The row the board shows in the withdrawn row's place, if any (a twin left by mistake).
    replaced_by: UUID | None = Field(None, strict=False)

    @field_validator("created_at")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError("must carry a time zone, e.g. 2026-07-13T10:00:00Z")
        return value.astimezone(UTC)

    @field_validator("reason")
    @classmethod
    def _reason(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must say why the row is withdrawn")
        return visible_text(value, keep="\n")

    @model_validator(mode="after")
    def _others(self) -> Withdrawal:
        if self.id in (self.withdraws, self.replaced_by):
            raise ValueError("a withdrawal is a record of its own: its id is no row's")
        if self.replaced_by == self.withdraws:
            raise ValueError("a row cannot be withdrawn in favour of itself")
        return self

    def path(self) -> str:
        """Where the record lives in the dataset: ``submissions/<id>.json``."""
        return f"{RECORDS_FOLDER}/{self.id}.json"

    def to_json(self) -> bytes:
        """The canonical bytes written to disk and to the Hub (no ``replaced_by`` when none)."""
        absent = {"replaced_by"} if self.replaced_by is None else None
        payload = self.model_dump(mode="json", exclude=absent)
        return (json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()

    @classmethod
    def from_json(cls, data: bytes) -> Withdrawal:
        """Parse and validate withdrawal bytes; RecordError says which fields are wrong."""
        try:
            return cls.model_validate_json(data)
        except ValidationError as exc:
            raise RecordError(describe_validation_error(exc)) from None


#: What a records folder holds: rows, and the withdrawals that retract some of them.
Entry = Record | Withdrawal


def read_entry(data: bytes) -> Entry:
    """A record's bytes as a row or a withdrawal (its ``source`` says which); RecordError if
    they are neither."""
    try:
        payload = json.loads(data)
    except ValueError:
        payload = None  # Record.from_json says what is wrong with them
    if isinstance(payload, dict) and payload.get("source") == WITHDRAWAL:
        return Withdrawal.from_json(data)
    return Record.from_json(data)


def withdrawal_of(
    row: Record,
    bench: Benchmark,
    reason: str,
    *,
    replaced_by: UUID | None = None,
    record_id: UUID | None = None,
    created_at: datetime | None = None,
) -> Withdrawal:
    """The withdrawal of ``row`` (a row of ``bench``); RecordError if the reason is not one."""
    track = row.track if row.benchmark is not None else bench.unnamed_records_track
    if track is None:
        raise RecordError(f"{row.id} names no track of {bench.id}: it cannot be withdrawn here")
    try:
        return Withdrawal(
            benchmark=bench.id,
            track=track,
            id=record_id or uuid4(),
            created_at=created_at or datetime.now(UTC),
            withdraws=row.id,
            reason=reason,
            replaced_by=replaced_by,
        )
    except ValidationError as exc:
        raise RecordError(describe_validation_error(exc)) from None


def withdrawal_track(withdrawal: Withdrawal, bench: Benchmark) -> str | None:
    """The id of the track of ``bench`` a withdrawal belongs to, or None if another's."""
    return withdrawal.track if withdrawal.benchmark == bench.id else None
