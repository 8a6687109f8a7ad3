"""The record schema: one immutable leaderboard row, ``submissions/<uuid>.json``.

A record names its benchmark and track (schema 2); ``check_record`` checks it against the
benchmark's spec (metric keys, input choices, metrics that follow from counts). Records of
schema 1, written before records named their benchmark, belong to the track a spec names as
``unnamed_records_track``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Literal
from uuid import UUID, uuid4

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

import evaluator
from spec import Benchmark, Track

RECORDS_FOLDER = "submissions"
SCHEMA_VERSION = 2
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class RecordError(ValueError):
    """A record file does not validate against the schema; the message says which fields."""
class Provenance(BaseModel):
    """What a re-scored row was computed from, so anyone can reproduce it."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    submission_sha256: str
    answer_key_sha256: str
    key_version: str | None
    scorer_version: str = Field(min_length=1)

    @field_validator("submission_sha256", "answer_key_sha256")
    @classmethod
    def _sha256(cls, value: str) -> str:
        if not _SHA256.match(value):
            raise ValueError("must be 64 lowercase hex digits (a sha256)")
        return value


def _http_url(value: str | None) -> str | None:
    if value is None:
        return None
    if not re.match(r"^https?://[^/\s]+\S*$", value):
        raise ValueError(f"must be an http(s) URL without spaces; found {value!r}")
    return value


class Record(BaseModel):
    """One immutable leaderboard row: ``submissions/<id>.json`` in the records dataset."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    schema_version: int = SCHEMA_VERSION
    benchmark: str | None = Field(None, description="the spec's id; None only in schema 1")
    track: str | None = Field(None, description="the track's id; None only in schema 1")
    id: UUID = Field(strict=False)
    created_at: datetime = Field(strict=False, description="UTC, ISO 8601")
    source: Literal["rescored", "paper"]
    team_name: str = Field(min_length=1, max_length=200)
    method_name: str = Field(min_length=1, max_length=200)
    model_size: str = Field(max_length=100, description='e.g. "8B", "API"; "" if unknown')
    uses_external: bool | None = Field(description="None = not reported")
    uses_frames: str | None = Field(description="a key of the spec's input choices; None = not "
                                                "reported")
    method_description: str = Field("", max_length=2000)
    project_url: str | None = None
    publication_url: str | None = None
    metrics: dict[str, float]
    counts: dict[str, evaluator.Count] | None
    n_abstained: int | None
    provenance: Provenance | None
    supersedes: UUID | None = Field(None, strict=False)
    note: str | None = Field(None, max_length=1000)

    @field_validator("schema_version")
    @classmethod
    def _version(cls, value: int) -> int:
        if value not in (1, SCHEMA_VERSION):
            raise ValueError(
                f"unsupported schema_version {value}; this code reads 1 and {SCHEMA_VERSION}"
            )
        return value

    @field_validator("created_at")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError("must carry a time zone, e.g. 2026-07-13T10:00:00Z")
        return value.astimezone(UTC)

    @field_validator("team_name", "method_name")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @field_validator("project_url", "publication_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return _http_url(value)

    @field_validator("metrics")
    @classmethod
    def _metrics(cls, value: dict[str, float]) -> dict[str, float]:
        bad = [k for k, v in value.items() if not (math.isfinite(v) and 0 <= v <= 100)]
        if bad:
            raise ValueError(f"must be percentages between 0 and 100 ({', '.join(bad)})")
        return value

    @field_validator("counts")
    @classmethod
    def _counts(cls, value: dict[str, evaluator.Count] | None) -> dict[str, evaluator.Count] | None:
        if value is None:
            return None
        bad = [k for k, c in value.items() if not 0 <= c.correct <= c.total or c.total <= 0]
        if bad:
            raise ValueError(f"need 0 <= correct <= total and total > 0 ({', '.join(bad)})")
        return value

    @field_validator("n_abstained")
    @classmethod
    def _abstained(cls, value: int | None) -> int | None:
        if value is not None and value < 0:
            raise ValueError("must be >= 0")
        return value

    @model_validator(mode="after")
    def _by_source(self) -> Record:
        named = self.benchmark is not None and self.track is not None
        if self.schema_version == SCHEMA_VERSION and not named:
            raise ValueError(f"a schema {SCHEMA_VERSION} record names its benchmark and track")
        if self.schema_version == 1 and (self.benchmark is not None or self.track is not None):
            raise ValueError("a schema 1 record names no benchmark or track; write schema "
                             f"{SCHEMA_VERSION}")
        if self.source == "rescored":
            missing = [
                name
                for name in ("counts", "n_abstained", "provenance")
                if getattr(self, name) is None
            ]
            if missing:
                raise ValueError(f"a rescored record needs {', '.join(missing)}")
        else:
            extra = [name for name in ("counts", "provenance") if getattr(self, name) is not None]
            if extra:
                raise ValueError(f"a paper record carries no {' or '.join(extra)}")
        if self.supersedes == self.id:
            raise ValueError("a record cannot supersede itself")
        return self

    def path(self) -> str:
        """Where the record lives in the dataset: ``submissions/<id>.json``."""
        return f"{RECORDS_FOLDER}/{self.id}.json"

    def to_json(self) -> bytes:
        """The canonical bytes written to disk and to the Hub."""
        payload = self.model_dump(mode="json")
        return (json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()

    @classmethod
    def from_json(cls, data: bytes) -> Record:
        """Parse and validate record bytes; RecordError says which fields are wrong."""
        try:
            return cls.model_validate_json(data)
        except ValidationError as exc:
            raise RecordError(_describe_validation_error(exc)) from None


def _describe_validation_error(exc: ValidationError, limit: int = 5) -> str:
    parts = []
    for err in exc.errors()[:limit]:
        where = ".".join(str(p) for p in err["loc"]) or "record"
        message = str(err["msg"]).removeprefix("Value error, ")
        parts.append(f"{where}: {message}")
    more = exc.error_count() - limit
    tail = f" (and {more} more)" if more > 0 else ""
    return "; ".join(parts) + tail


def _keys_problem(value: Mapping[str, object], track: Track, exact: bool) -> str | None:
    known = track.metric_keys
    missing = [k for k in known if k not in value] if exact else []
    if not exact and track.ranking not in value:
        missing = [track.ranking]
    extra = sorted(k for k in value if k not in known)
    if not missing and not extra:
        return None
    found = []
    if missing:
        found.append(f"missing {', '.join(missing)}")
    if extra:
        found.append(f"unexpected {', '.join(extra)}")
    expected = "exactly the keys" if exact else "keys among"
    return f"must have {expected} {', '.join(known)} ({'; '.join(found)})"


def record_track(record: Record, bench: Benchmark) -> str | None:
    """The id of the track of ``bench`` a record belongs to, or None if it is another's."""
    if record.benchmark is None:
        return bench.unnamed_records_track
    return record.track if record.benchmark == bench.id else None


def check_record(record: Record, bench: Benchmark, track: Track) -> None:
    """Check a record against the spec of its track; RecordError says what disagrees.

    A re-scored record carries every metric key of the track, with metrics that follow from
    its counts; a paper record carries the ranking metric and any of the others (a paper
    prints what it prints).
    """
    where = record_track(record, bench)
    if where != track.id:
        owner = (f"{record.benchmark}/{record.track}" if record.benchmark is not None
                 else "an unnamed benchmark (schema 1)")
        raise RecordError(f"it belongs to {owner}, not {bench.id}/{track.id}")
    problems = []
    rescored = record.source == "rescored"
    for name, value in (("metrics", record.metrics), ("counts", record.counts)):
        if value is not None:
            problem = _keys_problem(value, track, exact=rescored)
            if problem:
                problems.append(f"{name}: {problem}")
    if record.uses_frames is not None and record.uses_frames not in bench.input.choices:
        problems.append(f"uses_frames: must be one of {', '.join(bench.input.choices)}; "
                        f"found {record.uses_frames!r}")
    if rescored and record.counts is not None and not problems:
        recomputed = evaluator.metrics_from_counts(track, record.counts)
        off = [k for k in track.metric_keys
               if not math.isclose(record.metrics[k], recomputed[k], rel_tol=1e-9, abs_tol=1e-9)]
        if off:
            problems.append(f"metrics do not match counts for {', '.join(off)}")
    if problems:
        raise RecordError("; ".join(problems))


def parse_record(data: bytes, bench: Benchmark, track: Track) -> Record:
    """Record bytes validated by the schema and against the track's spec."""
    record = Record.from_json(data)
    check_record(record, bench, track)
    return record


def commit_message(record: Record, track: Track) -> str:
    """The default commit message, naming the method, the team and the ranking metric."""
    value = record.metrics[track.ranking]
    kind = "paper-reported" if record.source == "paper" else "re-scored"
    label = track.labels[track.ranking].lower()
    return f"Add {record.method_name} by {record.team_name} ({kind}, {label} {value:.1f})"


def rescored_record(
    result: evaluator.ScoreResult,
    bench: Benchmark,
    track: Track,
    *,
    team_name: str,
    method_name: str,
    model_size: str,
    uses_external: bool | None,
    uses_frames: str | None,
    method_description: str = "",
    project_url: str | None = None,
    publication_url: str | None = None,
    supersedes: UUID | None = None,
    note: str | None = None,
    record_id: UUID | None = None,
    created_at: datetime | None = None,
) -> Record:
    """A ``source="rescored"`` record of ``track`` from a score, with provenance filled in;
    RecordError if it disagrees with the spec (e.g. an unknown input choice)."""
    record = Record(
        benchmark=bench.id,
        track=track.id,
        id=record_id or uuid4(),
        created_at=created_at or datetime.now(UTC),
        source="rescored",
        team_name=team_name,
        method_name=method_name,
        model_size=model_size,
        uses_external=uses_external,
        uses_frames=uses_frames,
        method_description=method_description,
        project_url=project_url or None,
        publication_url=publication_url or None,
        metrics=dict(result.metrics),
        counts=dict(result.counts),
        n_abstained=result.n_abstained,
        provenance=Provenance(
            submission_sha256=result.submission_sha256,
            answer_key_sha256=result.answer_key_sha256,
            key_version=result.key_version,
            scorer_version=result.scorer_version,
        ),
        supersedes=supersedes,
        note=note,
    )
    check_record(record, bench, track)
    return record
