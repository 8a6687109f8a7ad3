"""The only module that touches the Hugging Face Hub or the disk for data.

It gives the app and the maintainer scripts two things: the answer key (``load_key``) and the
leaderboard records (``Record``, a ``RecordStore`` to read and write them, and ``BoardCache``,
the app's time-to-live cache over a store). Configuration is read once, by ``load_config``.

Example::

    config = load_config()                    # reads the environment, fails loudly on bad values
    status = load_key(config)                 # status.key is None when Score must be disabled
    board = BoardCache(board_store(config))   # owned by the app, one per process
    snap = board.snapshot()                   # cached for CACHE_TTL_S, stale-while-error
    [r.method_name for r in snap.records]

Nothing here runs at import: no network, no file reads, no clients built.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, Protocol, TypeVar, runtime_checkable
from uuid import UUID, uuid4

import httpx2
from huggingface_hub import (
    CommitOperationAdd,
    HfApi,
    constants,
    get_hf_file_metadata,
    get_session,
    hf_hub_download,
    hf_hub_url,
    hf_raise_for_status,
)
from huggingface_hub.errors import (
    HfHubHTTPError,
    OfflineModeIsEnabled,
    RemoteEntryNotFoundError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)
from huggingface_hub.utils._headers import build_hf_headers
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

import evaluator

CACHE_TTL_S = 60
SCORE_LIMIT = 20
SCORE_WINDOW_S = 86400.0
DEFAULT_PRIVATE_REPO = "Ted412/EgoMemReason-Private"
DEFAULT_LEADERBOARD_REPO = "Ted412/EgoMemReason-Leaderboard"
DEFAULT_TIMEOUT_S = 10.0
KEY_FILENAME = "annotations_private.json"
RECORDS_FOLDER = "submissions"
SCHEMA_VERSION = 1
DEMO_DIR = Path(__file__).resolve().parent / "demo"
DEMO_KEY = DEMO_DIR / KEY_FILENAME
DEMO_BOARD_DIR = DEMO_DIR / "leaderboard"

#: Allowed ``uses_frames`` values (what the model saw of the video) and their labels.
VIDEO_INPUTS: dict[str, str] = {
    "frames-only": "Frames only",
    "frames+audio": "Frames + audio",
    "frames+subtitles": "Frames + subtitles/narration",
    "captions-only": "Captions / text only",
    "other": "Other",
}

_DOWNLOAD_WORKERS = 8  # parallel record downloads on a cold board
_COMMIT_ATTEMPTS = 3  # a concurrent commit (HTTP 412) is retried this many times in all
_RECORD_PATH = re.compile(r"^submissions/(?!\.)[A-Za-z0-9._-]+\.json$")
_REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_LIBRARY = "egomemreason-leaderboard"

log = logging.getLogger(__name__)
_T = TypeVar("_T")


class ConfigError(ValueError):
    """A configuration variable has a bad value; the message names it."""


class LedgerError(RuntimeError):
    """Reading or writing the Hub or the records folder failed."""


class HubUnreachableError(LedgerError):
    """The Hub did not answer: connection refused, timed out, or offline mode."""


class RecordExistsError(LedgerError):
    """A record with that id (path) already exists; records are immutable."""


class RecordError(ValueError):
    """A record file does not validate against the schema; the message says which fields."""


# --- configuration ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    """Where the key and the board come from; built by ``load_config``."""

    answer_key_path: Path | None
    private_repo: str
    token: str | None = field(repr=False)
    leaderboard_dir: Path | None
    leaderboard_repo: str
    cache_ttl_s: float
    endpoint: str | None
    score_limit: int = SCORE_LIMIT  # scored submissions per client per window (the app's)
    score_window_s: float = SCORE_WINDOW_S
    on_space: bool = False  # SPACE_ID is set: the client address comes from the Space's proxy

    @property
    def demo(self) -> bool:
        """True when neither a local key nor HF_TOKEN is given: demo key and demo board."""
        return self.answer_key_path is None and self.token is None

    @property
    def hub_name(self) -> str:
        """The Hub's address as shown in messages."""
        return self.endpoint or constants.ENDPOINT


def _env(environ: Mapping[str, str], name: str) -> str | None:
    """A variable's value, stripped; unset and empty both mean "not set"."""
    value = environ.get(name, "").strip()
    return value or None


def _repo_id(environ: Mapping[str, str], name: str, default: str) -> str:
    value = _env(environ, name) or default
    if not _REPO_ID.match(value):
        raise ConfigError(
            f"{name} must be a Hub repo id like {default!r} (namespace/name); found {value!r}"
        )
    return value


def _number(environ: Mapping[str, str], name: str, default: float, minimum: float,
            whole: bool = False) -> float:
    """A numeric variable: finite, at least ``minimum``, whole if asked; else ConfigError."""
    raw = _env(environ, name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < minimum or (whole and value != int(value)):
        kind = "a whole number" if whole else "a number"
        raise ConfigError(
            f"{name} must be {kind} >= {minimum:g}; found {raw!r}. Unset it for the default "
            f"of {default:g}"
        )
    return value


def load_config(environ: Mapping[str, str] | None = None) -> Config:
    """Read the configuration from ``environ`` (default ``os.environ``), once.

    A bad value raises ConfigError naming the variable; see the README for the table.
    """
    env = os.environ if environ is None else environ

    key_path: Path | None
    raw_key = _env(env, "EGOMEM_ANSWER_KEY")
    if raw_key is not None:
        key_path = Path(raw_key).expanduser()
        if not key_path.is_file():
            found = "a directory" if key_path.is_dir() else "nothing"
            raise ConfigError(
                f"EGOMEM_ANSWER_KEY={raw_key!r} must be the path of an annotations_private.json "
                f"file; found {found} there. Fix the path, or unset it to use the private repo"
            )
    else:
        default = Path.cwd() / KEY_FILENAME
        key_path = default if default.is_file() else None

    board_dir: Path | None = None
    raw_dir = _env(env, "EGOMEM_LEADERBOARD_DIR")
    if raw_dir is not None:
        board_dir = Path(raw_dir).expanduser()
        if not board_dir.is_dir():
            raise ConfigError(
                f"EGOMEM_LEADERBOARD_DIR={raw_dir!r} must be an existing directory laid out like "
                "the leaderboard dataset (submissions/<uuid>.json); it is not a directory"
            )

    ttl = _number(env, "EGOMEM_CACHE_TTL_S", CACHE_TTL_S, 0)

    endpoint = _env(env, "HF_ENDPOINT")
    if endpoint is not None:
        if not re.match(r"^https?://[^/\s]+", endpoint):
            raise ConfigError(
                f"HF_ENDPOINT must be an http(s) URL such as https://huggingface.co; "
                f"found {endpoint!r}"
            )
        endpoint = endpoint.rstrip("/")

    return Config(
        answer_key_path=key_path,
        private_repo=_repo_id(env, "EGOMEM_PRIVATE_REPO", DEFAULT_PRIVATE_REPO),
        token=_env(env, "HF_TOKEN"),
        leaderboard_dir=board_dir,
        leaderboard_repo=_repo_id(env, "EGOMEM_LEADERBOARD_REPO", DEFAULT_LEADERBOARD_REPO),
        cache_ttl_s=ttl,
        endpoint=endpoint,
        score_limit=int(_number(env, "EGOMEM_SCORE_LIMIT", SCORE_LIMIT, 1, whole=True)),
        score_window_s=_number(env, "EGOMEM_SCORE_WINDOW_S", SCORE_WINDOW_S, 1),
        on_space=_env(env, "SPACE_ID") is not None,
    )


def _redact(text: str, token: str | None) -> str:
    """``text`` with every occurrence of the token replaced; messages pass through this."""
    if token:
        text = text.replace(token, "<HF_TOKEN>")
    return text


# --- the record schema ------------------------------------------------------------------------


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
    """One immutable leaderboard row: ``submissions/<id>.json`` in the leaderboard dataset."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    schema_version: int = SCHEMA_VERSION
    id: UUID = Field(strict=False)
    created_at: datetime = Field(strict=False, description="UTC, ISO 8601")
    source: Literal["rescored", "paper"]
    team_name: str = Field(min_length=1, max_length=200)
    method_name: str = Field(min_length=1, max_length=200)
    model_size: str = Field(max_length=100, description='e.g. "8B", "API"; "" if unknown')
    uses_external: bool | None = Field(description="None = not reported")
    uses_frames: str | None = Field(description="a VIDEO_INPUTS key; None = not reported")
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
        if value != SCHEMA_VERSION:
            raise ValueError(
                f"unsupported schema_version {value}; this code reads {SCHEMA_VERSION}"
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

    @field_validator("uses_frames")
    @classmethod
    def _video_input(cls, value: str | None) -> str | None:
        if value is not None and value not in VIDEO_INPUTS:
            raise ValueError(f"must be one of {', '.join(VIDEO_INPUTS)}; found {value!r}")
        return value

    @field_validator("project_url", "publication_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return _http_url(value)

    @field_validator("metrics")
    @classmethod
    def _metrics(cls, value: dict[str, float]) -> dict[str, float]:
        _check_metric_keys(value)
        bad = [k for k, v in value.items() if not (math.isfinite(v) and 0 <= v <= 100)]
        if bad:
            raise ValueError(f"must be percentages between 0 and 100 ({', '.join(bad)})")
        return {k: value[k] for k in evaluator.METRIC_KEYS}

    @field_validator("counts")
    @classmethod
    def _counts(cls, value: dict[str, evaluator.Count] | None) -> dict[str, evaluator.Count] | None:
        if value is None:
            return None
        _check_metric_keys(value)
        bad = [k for k, c in value.items() if not 0 <= c.correct <= c.total or c.total <= 0]
        if bad:
            raise ValueError(f"need 0 <= correct <= total and total > 0 ({', '.join(bad)})")
        return {k: value[k] for k in evaluator.METRIC_KEYS}

    @field_validator("n_abstained")
    @classmethod
    def _abstained(cls, value: int | None) -> int | None:
        if value is not None and value < 0:
            raise ValueError("must be >= 0")
        return value

    @model_validator(mode="after")
    def _by_source(self) -> Record:
        if self.source == "rescored":
            missing = [
                name
                for name in ("counts", "n_abstained", "provenance")
                if getattr(self, name) is None
            ]
            if missing:
                raise ValueError(f"a rescored record needs {', '.join(missing)}")
            assert self.counts is not None
            recomputed = evaluator.metrics_from_counts(self.counts)
            off = [
                k
                for k in evaluator.METRIC_KEYS
                if not math.isclose(self.metrics[k], recomputed[k], rel_tol=1e-9, abs_tol=1e-9)
            ]
            if off:
                raise ValueError(f"metrics do not match counts for {', '.join(off)}")
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


def _check_metric_keys(value: Mapping[str, object]) -> None:
    missing = [k for k in evaluator.METRIC_KEYS if k not in value]
    extra = sorted(k for k in value if k not in evaluator.METRIC_KEYS)
    if missing or extra:
        found = []
        if missing:
            found.append(f"missing {', '.join(missing)}")
        if extra:
            found.append(f"unexpected {', '.join(extra)}")
        raise ValueError(
            f"must have exactly the keys {', '.join(evaluator.METRIC_KEYS)} ({'; '.join(found)})"
        )


def _describe_validation_error(exc: ValidationError, limit: int = 5) -> str:
    parts = []
    for err in exc.errors()[:limit]:
        where = ".".join(str(p) for p in err["loc"]) or "record"
        message = str(err["msg"]).removeprefix("Value error, ")
        parts.append(f"{where}: {message}")
    more = exc.error_count() - limit
    tail = f" (and {more} more)" if more > 0 else ""
    return "; ".join(parts) + tail


def commit_message(record: Record) -> str:
    """The default commit message, naming the method and the team."""
    overall = record.metrics["overall"]
    kind = "paper-reported" if record.source == "paper" else "re-scored"
    return f"Add {record.method_name} by {record.team_name} ({kind}, overall {overall:.1f})"


def rescored_record(
    result: evaluator.ScoreResult,
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
    """A ``source="rescored"`` record from a score, with provenance filled in."""
    return Record(
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


# --- Hub helpers ------------------------------------------------------------------------------

_TRANSPORT_ERRORS = (httpx2.TransportError, OfflineModeIsEnabled)


def _describe_hub_error(exc: BaseException, where: str) -> LedgerError:
    """A LedgerError with a one-line reason for a huggingface_hub / httpx failure."""
    if isinstance(exc, HfHubHTTPError) and exc.response is not None:
        status = exc.response.status_code
        reason = exc.server_message or exc.response.reason_phrase or "error"
        reason = reason.splitlines()[0] if reason else "error"
        if isinstance(exc, RepositoryNotFoundError):
            return LedgerError(
                f"{where}: HTTP {status}, the repository was not found or the token has no "
                "access to it"
            )
        if isinstance(exc, RevisionNotFoundError):
            return LedgerError(f"{where}: HTTP {status}, revision not found")
        if isinstance(exc, RemoteEntryNotFoundError):
            return LedgerError(f"{where}: HTTP {status}, file not found")
        return LedgerError(f"{where}: HTTP {status} {reason}")
    if isinstance(exc, _TRANSPORT_ERRORS):
        detail = str(exc).splitlines()[0] if str(exc) else ""
        return HubUnreachableError(f"{where}: no answer ({type(exc).__name__}: {detail})")
    if isinstance(exc, RuntimeError) and "closed" in str(exc):
        # huggingface_hub's back-off closes the shared client on connection errors.
        return HubUnreachableError(f"{where}: connection reset, the HTTP client was closed")
    return LedgerError(f"{where}: unexpected answer ({type(exc).__name__}: {exc})")


def _run_bounded(fn: Callable[[], _T], timeout_s: float, what: str) -> _T:
    """``fn()`` in a daemon thread; HubUnreachableError if it has not returned in time.

    huggingface_hub retries unreachable endpoints with back-off for tens of seconds; this keeps
    the caller's wait bounded. The abandoned thread ends by its own (finite) timeouts.
    """
    outcome: dict[str, object] = {}
    done = threading.Event()

    def run() -> None:
        try:
            outcome["value"] = fn()
        except BaseException as exc:  # handed to the caller below
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name=f"ledger: {what}", daemon=True).start()
    if not done.wait(timeout_s):
        raise HubUnreachableError(f"{what}: no answer within {timeout_s:g} s")
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


# --- the answer key ---------------------------------------------------------------------------


@dataclass(frozen=True)
class KeyStatus:
    """The answer key the app scores with, or why Score is disabled."""

    key: evaluator.AnswerKey | None  # None => Score is disabled
    origin: str
    demo: bool
    error: str | None

    def __repr__(self) -> str:  # the key itself is long and private
        questions = len(self.key) if self.key is not None else None
        return (
            f"KeyStatus(origin={self.origin!r}, demo={self.demo}, questions={questions}, "
            f"error={self.error!r})"
        )


def load_key(config: Config, timeout_s: float = DEFAULT_TIMEOUT_S) -> KeyStatus:
    """The answer key: local file, else the private repo (with HF_TOKEN), else the demo key.

    A bad local file raises ConfigError naming EGOMEM_ANSWER_KEY. A Hub failure does not
    raise: it returns a KeyStatus with ``key=None`` and the reason, within about ``timeout_s``.
    """
    if config.answer_key_path is not None:
        path = config.answer_key_path
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ConfigError(
                f"EGOMEM_ANSWER_KEY: cannot read {path} ({exc.strerror or exc})"
            ) from None
        try:
            key = evaluator.load_answer_key(data)
        except evaluator.AnswerKeyError as exc:
            raise ConfigError(
                f"EGOMEM_ANSWER_KEY: {path} is not a valid answer key: {exc}"
            ) from None
        return KeyStatus(key, f"local file {path}", demo=False, error=None)

    if config.token is not None:
        origin = f"{config.private_repo} on the Hub"
        try:
            data = _download_key(config, timeout_s)
            key = evaluator.load_answer_key(data)
        except LedgerError as exc:
            reason = _redact(str(exc), config.token)
            return KeyStatus(None, origin, demo=False, error=reason)
        except evaluator.AnswerKeyError as exc:
            reason = _redact(
                f"{KEY_FILENAME} in {config.private_repo} is not a valid answer key: {exc}",
                config.token,
            )
            return KeyStatus(None, origin, demo=False, error=reason)
        return KeyStatus(key, origin, demo=False, error=None)

    try:
        key = evaluator.load_answer_key(DEMO_KEY.read_bytes())
    except (OSError, evaluator.AnswerKeyError) as exc:
        raise LedgerError(f"the shipped demo key {DEMO_KEY} is unusable: {exc}") from None
    return KeyStatus(key, "synthetic demo key", demo=True, error=None)


class KeyLoader:
    """The app's answer key: loaded at boot; after a Hub failure, tried again at most once per
    ``retry_s`` by whichever request asks first, so a Hub hiccup at boot heals without a restart.

    Calling it returns the current KeyStatus; concurrent callers never wait on a retry.
    """

    def __init__(self, config: Config, retry_s: float = CACHE_TTL_S,
                 timeout_s: float = DEFAULT_TIMEOUT_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._config, self._retry_s, self._timeout_s, self._clock = (
            config, retry_s, timeout_s, clock)
        self._lock = threading.Lock()
        self._status = load_key(config, timeout_s)
        self._tried = clock()

    def __call__(self) -> KeyStatus:
        status = self._status
        if status.key is not None or self._clock() - self._tried < self._retry_s:
            return status
        if not self._lock.acquire(blocking=False):
            return status  # another request is retrying right now
        try:
            if self._status.key is None and self._clock() - self._tried >= self._retry_s:
                self._status = load_key(self._config, self._timeout_s)
                self._tried = self._clock()
                if self._status.key is not None:
                    log.info("answer key loaded from %s after an earlier failure",
                             self._status.origin)
            return self._status
        finally:
            self._lock.release()


def _download_key(config: Config, timeout_s: float) -> bytes:
    """The key's bytes from the private repo, within about ``timeout_s`` seconds."""
    assert config.token is not None
    repo, token, endpoint = config.private_repo, config.token, config.endpoint
    where = f"downloading {KEY_FILENAME} from {repo} at {config.hub_name}"
    deadline = time.monotonic() + timeout_s
    # One HEAD without retries first: a refused or unreachable Hub answers fast and clearly,
    # instead of inside hf_hub_download's back-off.
    url = hf_hub_url(repo, KEY_FILENAME, repo_type="dataset", endpoint=endpoint)
    try:
        get_hf_file_metadata(url, token=token, timeout=timeout_s, endpoint=endpoint)
    except HfHubHTTPError as exc:
        status = exc.response.status_code if exc.response is not None else 0
        if isinstance(exc, RemoteEntryNotFoundError):
            raise LedgerError(f"{where}: the repository has no {KEY_FILENAME}") from None
        if isinstance(exc, RepositoryNotFoundError):
            raise LedgerError(
                f"{where}: HTTP {status}, the repository was not found or HF_TOKEN has no read "
                f"access to it. Give HF_TOKEN read access to {repo}, or set EGOMEM_ANSWER_KEY "
                "to a local copy of the key"
            ) from None
        if status == 401:
            raise LedgerError(
                f"{where}: HTTP 401, the Hub refused HF_TOKEN (invalid or expired). "
                "Create a new read token and set it as HF_TOKEN"
            ) from None
        raise _describe_hub_error(exc, where) from None
    except Exception as exc:
        raise _describe_hub_error(exc, where) from None

    def fetch() -> bytes:
        with tempfile.TemporaryDirectory(prefix="egomem-key-") as cache:
            # A private cache folder: the key is not left behind in the shared HF cache.
            local = hf_hub_download(
                repo,
                KEY_FILENAME,
                repo_type="dataset",
                endpoint=endpoint,
                token=token,
                cache_dir=cache,
                etag_timeout=max(deadline - time.monotonic(), 0.1),
            )
            return Path(str(local)).read_bytes()

    try:
        return _run_bounded(fetch, max(deadline - time.monotonic(), 0.1), where)
    except LedgerError:
        raise
    except Exception as exc:
        raise _describe_hub_error(exc, where) from None


# --- record stores ----------------------------------------------------------------------------


class RecordStore(Protocol):
    """Where records live: a folder or a Hub dataset, laid out as ``submissions/<id>.json``."""

    def list_paths(self) -> list[str]: ...

    def read(self, path: str) -> bytes: ...

    def write(self, record: Record, message: str) -> str: ...


@runtime_checkable
class VersionedStore(Protocol):
    """A store that can tell cheaply whether anything changed, so a refresh costs O(changes)."""

    def head(self) -> str | None:
        """A token that changes whenever the store changes (one request); None = unknown."""
        ...

    def list_versions(self, revision: str | None = None) -> dict[str, str]:
        """Every record path with a content version (git blob id, mtime+size)."""
        ...

    def read(self, path: str, revision: str | None = None) -> bytes: ...


def _check_record_path(path: str) -> None:
    if not _RECORD_PATH.match(path):
        raise LedgerError(f"{path!r} is not a record path; expected submissions/<uuid>.json")


class LocalStore:
    """A folder laid out like the leaderboard dataset (``submissions/<uuid>.json``).

    A missing folder reads as an empty board; writing creates it.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"LocalStore({str(self.root)!r})"

    def head(self) -> str | None:
        return None  # listing a folder is cheap: always list

    def list_versions(self, revision: str | None = None) -> dict[str, str]:
        folder = self.root / RECORDS_FOLDER
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise LedgerError(f"cannot list {folder}: {exc.strerror or exc}") from None
        versions: dict[str, str] = {}
        for entry in entries:
            path = f"{RECORDS_FOLDER}/{entry.name}"
            if _RECORD_PATH.match(path) and entry.is_file():
                stat = entry.stat()
                versions[path] = f"{stat.st_mtime_ns}:{stat.st_size}"
        return dict(sorted(versions.items()))

    def list_paths(self) -> list[str]:
        return list(self.list_versions())

    def read(self, path: str, revision: str | None = None) -> bytes:
        _check_record_path(path)
        try:
            return (self.root / path).read_bytes()
        except OSError as exc:
            raise LedgerError(f"cannot read {self.root / path}: {exc.strerror or exc}") from None

    def write(self, record: Record, message: str | None = None) -> str:
        """Create the record's file; RecordExistsError if it exists. Returns the file path."""
        folder = self.root / RECORDS_FOLDER
        dest = self.root / record.path()
        data = record.to_json()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            # Write aside, then link into place: readers never see a half-written record, and
            # the link fails if the name exists, so nothing is ever overwritten.
            tmp = folder / f".{record.id}.{os.getpid()}.{threading.get_ident()}.tmp"
            tmp.write_bytes(data)
            try:
                os.link(tmp, dest)
            except FileExistsError:
                raise self._exists(dest) from None
            except OSError:  # a file system without hard links
                try:
                    with open(dest, "xb") as out:
                        out.write(data)
                except FileExistsError:
                    raise self._exists(dest) from None
            finally:
                tmp.unlink(missing_ok=True)
        except OSError as exc:
            raise LedgerError(f"cannot write {dest}: {exc.strerror or exc}") from None
        return str(dest)

    @staticmethod
    def _exists(dest: Path) -> RecordExistsError:
        return RecordExistsError(
            f"{dest} already exists; records are immutable: publish a new record with "
            "supersedes=<its id> to correct it"
        )


def _git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


class HubStore:
    """A Hub dataset repo holding ``submissions/<uuid>.json`` records.

    Reads are single requests with a bounded timeout and no retries (the cache retries on its
    next refresh); the write is a commit that refuses to overwrite.
    """

    def __init__(
        self,
        repo_id: str,
        *,
        endpoint: str | None = None,
        token: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.repo_id = repo_id
        self.endpoint = endpoint
        self.timeout_s = timeout_s
        self._token = token
        self._api = HfApi(endpoint=endpoint, token=token, library_name=_LIBRARY)
        self._blob_ids: dict[str, str] = {}  # path -> git blob id, from the last listing

    def __repr__(self) -> str:
        return f"HubStore({self.repo_id!r}, endpoint={self.endpoint!r})"

    @property
    def _hub(self) -> str:
        return self.endpoint or constants.ENDPOINT

    def _error(self, exc: BaseException, what: str) -> LedgerError:
        error = _describe_hub_error(exc, f"{what} {self.repo_id} at {self._hub}")
        return type(error)(_redact(str(error), self._token))

    def _get(self, url: str, params: Mapping[str, str] | None = None) -> httpx2.Response:
        headers = build_hf_headers(token=self._token, library_name=_LIBRARY)
        try:
            response = get_session().get(
                url, params=params, headers=headers, timeout=self.timeout_s
            )
        except RuntimeError:
            # The shared client was closed under us (huggingface_hub does that on connection
            # errors elsewhere in the process); the next get_session() builds a new one.
            response = get_session().get(
                url, params=params, headers=headers, timeout=self.timeout_s
            )
        hf_raise_for_status(response)
        return response

    def head(self) -> str:
        """The repo's current commit: one request."""
        try:
            info = self._api.dataset_info(self.repo_id, expand=["sha"], timeout=self.timeout_s)
        except Exception as exc:
            raise self._error(exc, "reading the head commit of") from None
        if not info.sha:
            raise LedgerError(f"the Hub gave no commit id for {self.repo_id}")
        return info.sha

    def list_versions(self, revision: str | None = None) -> dict[str, str]:
        """Record paths with their git blob ids, at ``revision`` (default main); paged."""
        rev = revision or constants.DEFAULT_REVISION
        url: str | None = (
            f"{self._hub}/api/datasets/{self.repo_id}/tree/{rev}/{RECORDS_FOLDER}"
        )
        params: dict[str, str] | None = {"recursive": "false", "expand": "false"}
        versions: dict[str, str] = {}
        try:
            while url is not None:
                response = self._get(url, params)
                for entry in response.json():
                    path = entry.get("path", "")
                    if entry.get("type") == "file" and _RECORD_PATH.match(path):
                        lfs = entry.get("lfs")
                        versions[path] = f"sha256:{lfs['oid']}" if lfs else str(entry["oid"])
                url = response.links.get("next", {}).get("url")
                params = None  # the next link carries them
        except RemoteEntryNotFoundError:
            return {}  # no submissions/ folder yet: an empty board
        except Exception as exc:
            raise self._error(exc, "listing the records of") from None
        self._blob_ids = versions
        return dict(sorted(versions.items()))

    def list_paths(self) -> list[str]:
        return list(self.list_versions())

    def read(self, path: str, revision: str | None = None) -> bytes:
        """One record's bytes, checked against the blob id of the last listing."""
        _check_record_path(path)
        url = hf_hub_url(
            self.repo_id,
            path,
            repo_type="dataset",
            revision=revision or constants.DEFAULT_REVISION,
            endpoint=self.endpoint,
        )
        try:
            data = self._get(url).content
        except Exception as exc:
            raise self._error(exc, f"downloading {path} from") from None
        expected = self._blob_ids.get(path)
        actual = (
            "sha256:" + hashlib.sha256(data).hexdigest()
            if expected is not None and expected.startswith("sha256:")
            else _git_blob_id(data)
        )
        if expected is not None and actual != expected:
            raise LedgerError(
                f"{path} from {self.repo_id}: the downloaded bytes do not match the listed "
                f"content id {expected[:12]} (got {actual[:12]}); the transfer was corrupted"
            )
        return data

    def write(self, record: Record, message: str | None = None) -> str:
        """Commit the record as a new file; RecordExistsError if it exists. Returns the commit URL.

        The existence check and the commit are tied by ``parent_commit``: if anything lands in
        between, the Hub refuses the commit (HTTP 412) and the check runs again.
        """
        path, data = record.path(), record.to_json()
        summary = message or commit_message(record)
        for attempt in range(_COMMIT_ATTEMPTS):
            head = self.head()
            try:
                present = self._api.get_paths_info(
                    self.repo_id, [path], repo_type="dataset", revision=head
                )
            except Exception as exc:
                raise self._error(exc, "checking for an existing record in") from None
            if present:
                raise RecordExistsError(
                    f"{path} already exists in {self.repo_id}; records are immutable: publish a "
                    "new record with supersedes=<its id> to correct it"
                )
            addition = CommitOperationAdd(path_in_repo=path, path_or_fileobj=data)
            try:
                info = self._api.create_commit(
                    self.repo_id,
                    [addition],
                    commit_message=summary,
                    commit_description=f"Record {record.id} ({record.source}).",
                    repo_type="dataset",
                    parent_commit=head,
                )
            except HfHubHTTPError as exc:
                status = exc.response.status_code if exc.response is not None else 0
                if status == 412 and attempt + 1 < _COMMIT_ATTEMPTS:
                    continue  # someone committed in between: check again on the new head
                if status in (401, 403):
                    raise LedgerError(
                        f"the Hub refused the commit to {self.repo_id} (HTTP {status}); log in "
                        "with a token that can write to it (hf auth login)"
                    ) from None
                raise self._error(exc, "committing to") from None
            except Exception as exc:
                raise self._error(exc, "committing to") from None
            if addition._remote_oid is not None:
                # The preupload found the file: it landed after our check. With other content
                # the commit is refused (412, parent_commit); with the same content
                # huggingface_hub skips the commit as a no-op. Either way, nothing of ours.
                raise RecordExistsError(
                    f"{path} was created in {self.repo_id} by someone else while publishing"
                )
            return str(info.commit_url)
        raise LedgerError(f"{self.repo_id} kept changing during the commit; try again")


def board_store(config: Config) -> RecordStore:
    """The records folder if set; the demo board in demo mode; else the public Hub dataset."""
    if config.leaderboard_dir is not None:
        return LocalStore(config.leaderboard_dir)
    if config.demo:
        return LocalStore(DEMO_BOARD_DIR)
    return HubStore(config.leaderboard_repo, endpoint=config.endpoint, token=config.token)


# --- the board cache --------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardSnapshot:
    """The board as last loaded: what to show, and how fresh it is."""

    records: tuple[Record, ...]  # valid, superseded hidden, by overall descending
    last_success: float | None  # clock() time of the last successful refresh
    stale: bool  # the last refresh attempt failed
    error: str | None  # why it failed (no token)
    skipped: tuple[str, ...]  # paths of records that could not be used

    def age_s(self, now: float) -> float | None:
        """Seconds since the last successful refresh, or None if there was none."""
        return None if self.last_success is None else max(0.0, now - self.last_success)


_EMPTY = BoardSnapshot(records=(), last_success=None, stale=False, error=None, skipped=())


@dataclass(frozen=True)
class _Parsed:
    version: str  # of the bytes parsed
    record: Record | None  # None: they did not validate


class BoardCache:
    """The app's view of the board: refreshed at most once per ``ttl_s``, O(changes) per refresh.

    Thread-safe. One refresh runs at a time; callers arriving meanwhile get the current snapshot
    (or, before the very first load, wait for it). When a refresh fails, the last good records
    stay served, marked stale, and the failure is logged once until a refresh succeeds again.
    """

    def __init__(
        self,
        store: RecordStore,
        ttl_s: float = CACHE_TTL_S,
        clock: Callable[[], float] = time.time,
        log: logging.Logger | None = None,
    ) -> None:
        self._store = store
        self._ttl_s = ttl_s
        self._clock = clock
        self._log = log or logging.getLogger(__name__)
        self._lock = threading.Lock()
        self._snapshot = _EMPTY
        self._last_attempt: float | None = None  # when the last refresh started
        self._first_done = threading.Event()  # set once the first refresh has finished
        self._head: str | None = None  # store head at the last complete listing
        self._listing: dict[str, str] = {}  # path -> version at that listing
        self._parsed: dict[str, _Parsed] = {}  # path -> what its bytes gave; absent: fetch it
        self._failing = False
        self._logged: set[tuple[str, str]] = set()

    def _due(self) -> bool:
        last = self._last_attempt
        return last is None or self._clock() - last >= self._ttl_s

    def snapshot(self) -> BoardSnapshot:
        """The current board, refreshed first if it is older than the TTL."""
        if not self._first_done.is_set():
            with self._lock:  # the first load: everyone waits for it rather than show nothing
                if not self._first_done.is_set():
                    self._refresh_locked()
            return self._snapshot
        if not self._due():
            return self._snapshot
        if self._lock.acquire(blocking=False):
            try:
                if self._due():
                    self._refresh_locked()
            finally:
                self._lock.release()
        return self._snapshot  # a refresh is under way elsewhere: the current board meanwhile

    def refresh(self) -> BoardSnapshot:
        """Refresh now, whatever the TTL (waits for a refresh already under way)."""
        with self._lock:
            self._refresh_locked()
        return self._snapshot

    def _refresh_locked(self) -> None:
        try:
            self._refresh_attempt()
        finally:
            self._first_done.set()

    def _refresh_attempt(self) -> None:
        started = self._clock()
        self._last_attempt = started
        try:
            records, skipped = self._load()
        except Exception as exc:
            reason = str(exc) if isinstance(exc, LedgerError) else f"{type(exc).__name__}: {exc}"
            if not self._failing:  # once per outage, not once per attempt
                kept = self._snapshot
                self._log.warning(
                    "leaderboard refresh failed: %s; %s until a refresh succeeds (retried every "
                    "%g s, not logged again)",
                    reason,
                    "no board to show"
                    if kept.last_success is None
                    else f"serving the {len(kept.records)} records of the last good refresh",
                    self._ttl_s,
                    exc_info=not isinstance(exc, LedgerError),
                )
            self._failing = True
            self._snapshot = replace(self._snapshot, stale=True, error=reason)
            return
        if self._failing:
            self._log.info("leaderboard refresh succeeded again (%d records)", len(records))
        self._failing = False
        self._snapshot = BoardSnapshot(
            records=records, last_success=started, stale=False, error=None, skipped=skipped
        )

    def _load(self) -> tuple[tuple[Record, ...], tuple[str, ...]]:
        store = self._store
        head: str | None = None
        if isinstance(store, VersionedStore):
            head = store.head()
            if head is not None and head == self._head:
                listing = self._listing  # nothing changed: only retry failed downloads
            else:
                listing = store.list_versions(head)
        else:
            listing = {path: "" for path in store.list_paths()}

        for path in [p for p in self._parsed if p not in listing]:
            del self._parsed[path]
        wanted = [
            path
            for path, version in listing.items()
            if path not in self._parsed or self._parsed[path].version != version
        ]
        self._fetch(wanted, listing, head)  # raises when the store stops answering
        self._head, self._listing = head, listing

        valid: list[Record] = []
        skipped: list[str] = []
        for path in listing:
            parsed = self._parsed.get(path)
            if parsed is not None and parsed.record is not None:
                valid.append(parsed.record)
            else:
                skipped.append(path)
        hidden = {r.supersedes for r in valid if r.supersedes is not None}
        shown = [r for r in valid if r.id not in hidden]
        shown.sort(key=lambda r: (-r.metrics["overall"], r.created_at, str(r.id)))
        return tuple(shown), tuple(skipped)

    def _fetch(self, paths: list[str], listing: Mapping[str, str], head: str | None) -> None:
        """Download and parse ``paths`` into ``self._parsed``, in parallel.

        A record-level failure (HTTP error, corrupted transfer) skips that record and retries it
        next refresh; a store that stops answering aborts the refresh. Either way, what was
        downloaded is kept, so the next refresh continues where this one stopped.
        """
        if not paths:
            return
        store = self._store

        def read(path: str) -> bytes:
            if isinstance(store, VersionedStore):
                return store.read(path, head)
            return store.read(path)

        abort: BaseException | None = None
        workers = min(_DOWNLOAD_WORKERS, len(paths))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ledger-read") as pool:
            futures = {pool.submit(read, path): path for path in paths}
            for future in as_completed(futures):
                error = future.exception()
                if error is not None and (
                    isinstance(error, HubUnreachableError) or not isinstance(error, LedgerError)
                ):
                    abort = error
                    for other in futures:
                        other.cancel()
                    break
        for future, path in futures.items():
            if not future.done() or future.cancelled():
                continue
            error = future.exception()
            if error is None:
                self._parsed[path] = self._parse(path, listing[path], future.result())
            elif isinstance(error, LedgerError) and not isinstance(error, HubUnreachableError):
                self._parsed.pop(path, None)  # so the next refresh fetches it again
                self._note_skip(path, str(error))
        if abort is not None:
            raise abort

    def _parse(self, path: str, version: str, data: bytes) -> _Parsed:
        try:
            record = Record.from_json(data)
            if record.path() != path:
                raise RecordError(f"its id {record.id} does not match the file name")
        except RecordError as exc:
            self._note_skip(path, str(exc))
            return _Parsed(version, None)
        if self._logged:
            self._logged = {logged for logged in self._logged if logged[0] != path}
        return _Parsed(version, record)

    def _note_skip(self, path: str, reason: str) -> None:
        if (path, reason) not in self._logged:
            self._logged.add((path, reason))
            self._log.warning("skipped leaderboard record %s: %s", path, reason)


def records_of(store: RecordStore) -> Iterable[tuple[str, Record | RecordError]]:
    """Every record of a store with its path, or the RecordError it raised (for the scripts)."""
    for path in store.list_paths():
        try:
            yield path, Record.from_json(store.read(path))
        except RecordError as exc:
            yield path, exc
