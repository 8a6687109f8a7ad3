"""The record schema: one immutable leaderboard row, ``submissions/<uuid>.json``.

A record names its benchmark and track (schema 2); ``check_record`` checks it against the
benchmark's spec (metric keys, input choices, each metric within the range of its display,
metrics that follow from counts). Records of schema 1, written before records named their
benchmark, belong to the track a spec names as ``unnamed_records_track``.

A metric without a value (a decision track's timing means when nothing could be timed) is
absent from ``metrics``, as from the score it comes from. A re-scored record of a decision track
also keeps its ``intervals`` (its F1's bootstrap interval cannot be recomputed from its counts);
a multiple-choice record has none (its Wilson intervals follow from its counts), and its bytes
have no ``intervals`` field at all. ``metric_interval`` gives a row's interval of either kind.

What a record's names, prose and links may say is checked by records.text.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Literal
from uuid import UUID, uuid4

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

import evaluator
from errors import RecordError
from records.text import http_url, repo_id, shown_name, visible_text
from spec import Benchmark, Display, Track

RECORDS_FOLDER = "submissions"
SCHEMA_VERSION = 2
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class Provenance(BaseModel):
    """What a re-scored row was computed from, so anyone can reproduce it.

    ``answers_sha256`` (``evaluator.ScoreResult.answers_sha256``) identifies the answers
    whatever the file's bytes, so a re-indented copy is found as the same submission; rows
    published before it existed have none, and their bytes have no such field.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    submission_sha256: str
    answer_key_sha256: str
    key_version: str | None
    scorer_version: str = Field(min_length=1)
    answers_sha256: str | None = None

    @field_validator("submission_sha256", "answer_key_sha256", "answers_sha256")
    @classmethod
    def _sha256(cls, value: str | None) -> str | None:
        if value is not None and not _SHA256.match(value):
            raise ValueError("must be 64 lowercase hex digits (a sha256)")
        return value


class Record(BaseModel):
    """One immutable leaderboard row: ``submissions/<id>.json`` in the records dataset."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    schema_version: int = SCHEMA_VERSION
    benchmark: str | None = Field(None, description="the spec's id; None only in schema 1")
    track: str | None = Field(None, description="the track's id; None only in schema 1")
    id: UUID = Field(strict=False)
    created_at: datetime = Field(
        strict=False,
        description="UTC, ISO 8601: when the row's result was first published (a paper row: "
        "the paper's date); a row carried onto a rotated key keeps its original's",
    )
    source: Literal["rescored", "paper"]
    team_name: str = Field(min_length=1, max_length=200)
    method_name: str = Field(min_length=1, max_length=200)
    model_size: str = Field(max_length=100, description='e.g. "8B", "API"; "" if unknown')
    uses_external: bool | None = Field(description="None = not reported")
    uses_frames: str | None = Field(
        description="a key of the spec's input choices; None = not reported"
    )
    method_description: str = Field("", max_length=2000)
    project_url: str | None = None
    publication_url: str | None = None
    #: The model's repo on the Hugging Face Hub ("org/name"), where its Eval Results can go.
    model_repo: str | None = None
    metrics: dict[str, float]
    counts: dict[str, evaluator.Count] | None
    #: The score's 95 % intervals, kept by the re-scored records of a decision track only.
    intervals: dict[str, tuple[float, float]] | None = None
    n_abstained: int | None
    provenance: Provenance | None
    supersedes: UUID | None = Field(None, strict=False)
    note: str | None = Field(None, max_length=1000)
    #: A paper row measured on another question set than the key's (the spec's ``[paper]
    #: questions``): how many questions, which its ranking interval is computed over.
    questions: int | None = Field(None, gt=0)

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

    @field_validator("team_name", "method_name", "model_size")
    @classmethod
    def _name(cls, value: str) -> str:
        return shown_name(value)

    @field_validator("method_description", "note")
    @classmethod
    def _prose(cls, value: str | None) -> str | None:
        return None if value is None else visible_text(value, keep="\n")

    @field_validator("project_url", "publication_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return http_url(value)

    @field_validator("model_repo")
    @classmethod
    def _repo(cls, value: str | None) -> str | None:
        return None if value is None else repo_id(value)

    @field_validator("metrics")
    @classmethod
    def _metrics(cls, value: dict[str, float]) -> dict[str, float]:
        # Each metric's range follows from its display in the spec: check_record checks it.
        bad = [k for k, v in value.items() if not math.isfinite(v)]
        if bad:
            raise ValueError(f"must be finite numbers ({', '.join(bad)})")
        return value

    @field_validator("intervals")
    @classmethod
    def _intervals(
        cls, value: dict[str, tuple[float, float]] | None
    ) -> dict[str, tuple[float, float]] | None:
        if value is None:
            return None
        bad = [
            k
            for k, (low, high) in value.items()
            if not (math.isfinite(low) and math.isfinite(high) and low <= high)
        ]
        if bad:
            raise ValueError(f"need finite low <= high ({', '.join(bad)})")
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
            raise ValueError(
                f"a schema 1 record names no benchmark or track; write schema {SCHEMA_VERSION}"
            )
        if self.source == "rescored":
            missing = [
                name
                for name in ("counts", "n_abstained", "provenance")
                if getattr(self, name) is None
            ]
            if missing:
                raise ValueError(f"a rescored record needs {', '.join(missing)}")
        else:
            extra = [
                name
                for name in ("counts", "intervals", "provenance")
                if getattr(self, name) is not None
            ]
            if extra:
                raise ValueError(f"a paper record carries no {' or '.join(extra)}")
        if self.source == "rescored" and self.questions is not None:
            raise ValueError("a rescored record was scored on the key's questions: no questions")
        if self.supersedes == self.id:
            raise ValueError("a record cannot supersede itself")
        return self

    def path(self) -> str:
        """Where the record lives in the dataset: ``submissions/<id>.json``."""
        return f"{RECORDS_FOLDER}/{self.id}.json"

    def to_json(self) -> bytes:
        """The canonical bytes written to disk and to the Hub (no ``intervals`` field when the
        record keeps none, no ``questions`` when the row was measured on the key's, no
        ``model_repo`` when it names none, and no ``provenance.answers_sha256`` when it has
        none, so older records read as they always have)."""
        optional = ("intervals", "questions", "model_repo")
        absent = {name for name in optional if getattr(self, name) is None}
        payload = self.model_dump(mode="json", exclude=absent or None)
        if self.provenance is not None and self.provenance.answers_sha256 is None:
            del payload["provenance"]["answers_sha256"]
        return (json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()

    @property
    def key_version(self) -> str | None:
        """The answer key version a re-scored row was scored on (None: unrecorded, or a paper
        row, which was not scored here)."""
        return self.provenance.key_version if self.provenance is not None else None

    @classmethod
    def from_json(cls, data: bytes) -> Record:
        """Parse and validate record bytes; RecordError says which fields are wrong."""
        try:
            return cls.model_validate_json(data)
        except ValidationError as exc:
            raise RecordError(describe_validation_error(exc)) from None


def describe_validation_error(exc: ValidationError, limit: int = 5) -> str:
    parts = []
    for err in exc.errors()[:limit]:
        where = ".".join(str(p) for p in err["loc"]) or "record"
        message = str(err["msg"]).removeprefix("Value error, ")
        parts.append(f"{where}: {message}")
    more = exc.error_count() - limit
    tail = f" (and {more} more)" if more > 0 else ""
    return "; ".join(parts) + tail


def _keys_problem(value: Mapping[str, object], track: Track, exact: bool) -> str | None:
    """Re-scored (``exact``): every metric of the track but those without a value; paper: the
    paper's ranking metric and any others, the paper-only ones included."""
    known = track.metric_keys if exact else track.all_metric_keys
    # A row lacks the metrics that have no value (a decision row's timing means, untimed).
    absent = track.optional_metric_keys
    missing = [k for k in known if k not in value and k not in absent] if exact else []
    if not exact and track.paper_ranking not in value:
        missing = [track.paper_ranking]
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


#: What each display allows, and how a message says it.
_RANGES: Mapping[Display, tuple[str, Callable[[float], bool]]] = {
    "percent": ("percentages between 0 and 100", lambda v: 0 <= v <= 100),
    "ratio": ("ratios between 0 and 1", lambda v: 0 <= v <= 1),
    "seconds": ("seconds (finite numbers)", math.isfinite),
    "count": ("whole numbers >= 0", lambda v: v >= 0 and v == int(v)),
}


def _range_problems(metrics: Mapping[str, float], track: Track) -> list[str]:
    """Metrics outside the range of their display (unknown keys are reported elsewhere)."""
    out = []
    for display, (words, fits) in _RANGES.items():
        bad = [k for k, v in metrics.items() if track.display.get(k) == display and not fits(v)]
        if bad:
            out.append(f"metrics: must be {words} ({', '.join(bad)})")
    return out


def check_record(record: Record, bench: Benchmark, track: Track) -> None:
    """Check a record against the spec of its track; RecordError says what disagrees.

    A re-scored record carries every metric key of the track (but those without a value), with
    metrics that follow from its counts; a paper record carries the paper's ranking metric and
    any of the others (a paper prints what it prints), the paper-only ones included. Each
    metric lies within the range of its display. A re-scored decision record keeps its
    intervals; no other record does.
    """
    where = record_track(record, bench)
    if where != track.id:
        owner = (
            f"{record.benchmark}/{record.track}"
            if record.benchmark is not None
            else "an unnamed benchmark (schema 1)"
        )
        raise RecordError(f"it belongs to {owner}, not {bench.id}/{track.id}")
    problems = []
    rescored = record.source == "rescored"
    kind = evaluator.kind_of(track)
    problem = _keys_problem(record.metrics, track, exact=rescored)
    if problem:
        problems.append(f"metrics: {problem}")
    if rescored and record.counts is not None:
        problems.extend(kind.counts_problems(track, record.counts))
    if record.uses_frames is not None and record.uses_frames not in bench.input.choices:
        problems.append(
            f"uses_frames: must be one of {', '.join(bench.input.choices)}; "
            f"found {record.uses_frames!r}"
        )
    problems.extend(_range_problems(record.metrics, track))
    keeps = rescored and track.keeps_intervals
    if keeps and record.intervals is None:
        problems.append(f"a re-scored {track.kind} record keeps its intervals")
    elif not keeps and record.intervals is not None:
        problems.append(f"a {record.source} {track.kind} record keeps no intervals")
    if rescored and record.counts is not None and not problems:
        problems.extend(
            kind.record_problems(track, record.metrics, record.counts, record.intervals)
        )
    if problems:
        raise RecordError("; ".join(problems))


def parse_record(data: bytes, bench: Benchmark, track: Track) -> Record:
    """Record bytes validated by the schema and against the track's spec."""
    record = Record.from_json(data)
    check_record(record, bench, track)
    return record


def commit_message(record: Record, track: Track) -> str:
    """The default commit message, naming the method, the team and the ranking metric."""
    ranking = track.ranking_for(record.source)
    value = record.metrics[ranking]
    kind = "paper-reported" if record.source == "paper" else "re-scored"
    label = track.labels[ranking].lower()
    shown = track.format_metric(ranking, value).removesuffix(" %")
    return f"Add {record.method_name} by {record.team_name} ({kind}, {label} {shown})"


def ranking_value(record: Record, track: Track) -> float | None:
    """The value a board ranks a row by: its ranking metric (a paper row's: the paper's
    ranking metric, e.g. a paper-only F1), None if the row lacks it."""
    return record.metrics.get(track.ranking_for(record.source))


def on_other_key(record: Record, key_version: str | None) -> bool:
    """Whether a re-scored row was scored on another key version than ``key_version`` (the
    served key's): its letters are another key's, so a board marks it. A paper row never is
    (it was not scored here); call this only when the served key is known."""
    return record.source == "rescored" and record.key_version != key_version


def metric_interval(record: Record, track: Track, key: str) -> tuple[float, float] | None:
    """A row's 95 % interval of one metric, in its display: the one it keeps (a re-scored
    decision row), else Wilson from its count (multiple choice), else, for the ranking metric
    of a paper row measured on other questions than the key's (``questions``), Wilson over
    those; else None (a paper row's splits, a metric without an interval)."""
    if record.intervals is not None:
        return record.intervals.get(key)
    if record.questions is not None:
        if key != track.ranking_for(record.source) or track.display.get(key) != "percent":
            return None  # the splits' sizes on the paper's question set are unknown
        value = record.metrics.get(key)
        if value is None:
            return None
        return evaluator.wilson_interval(round(value * record.questions / 100), record.questions)
    count = (record.counts or {}).get(key)
    if count is None or track.display.get(key) != "percent":
        return None
    return evaluator.wilson_interval(count.correct, count.total)


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
    model_repo: str | None = None,
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
        model_repo=model_repo or None,
        metrics=dict(result.metrics),
        counts=dict(result.counts),
        intervals=dict(result.intervals) if track.keeps_intervals else None,
        n_abstained=result.n_abstained,
        provenance=Provenance(
            submission_sha256=result.submission_sha256,
            answer_key_sha256=result.answer_key_sha256,
            key_version=result.key_version,
            scorer_version=result.scorer_version,
            answers_sha256=result.answers_sha256,
        ),
        supersedes=supersedes,
        note=note,
    )
    check_record(record, bench, track)
    return record
