"""The answer key of a track: a local file, the private Hub repo, or the shipped demo key.

The app loads it at boot and checks it against the spec (group sizes, flagged rows): a key that
disagrees with its spec disables Score instead of serving wrong numbers.

Why a key is unavailable is said twice: ``KeyStatus.error`` in full for the log (the file's
path, the repo, the Hub's address without credentials, the difference from the spec), and
``KeyStatus.unavailable`` for visitors, which says what is unavailable and never where: a path
or an endpoint tells a visitor about the machine, and an endpoint may carry a password.
"""

from __future__ import annotations

import logging
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from huggingface_hub import get_hf_file_metadata, hf_hub_download, hf_hub_url
from huggingface_hub.errors import (
    HfHubHTTPError,
    RemoteEntryNotFoundError,
    RepositoryNotFoundError,
)

import evaluator
from errors import ConfigError, HubUnreachableError, LedgerError, SpecError, UnreadableFileError
from ledger.config import CACHE_TTL_S, Config, redact
from ledger.files import INPUT_LIMIT_BYTES, read_regular_file
from ledger.hub import DEFAULT_TIMEOUT_S, describe_hub_error, run_bounded
from spec import Track, read_folder_file

log = logging.getLogger(__name__)

#: What a visitor reads of a key that is unavailable (``KeyStatus.unavailable``), by cause.
KEY_UNAVAILABLE = "the answer key could not be loaded; the maintainer has been told in the log"
KEY_HUB_SILENT = (
    "the answer key could not be downloaded (the Hub did not answer); it is tried again a "
    "minute after each failure, and the maintainer has been told in the log"
)
KEY_DISAGREES = (
    "the answer key disagrees with the benchmark's spec, so Score is off rather than give "
    "wrong numbers; the maintainer has been told in the log"
)


@dataclass(frozen=True)
class KeyStatus:
    """The answer key the app scores with, or why Score is disabled."""

    key: evaluator.AnyKey | None  # None => Score is disabled
    origin: str  # where the key comes from, for the log (it may name a path)
    #: The key is the shipped demo key (loaded as the default, or a local copy of it:
    #: ``Config.shipped_demo_key``); the app shows the demo banner.
    demo: bool
    error: str | None  # why Score is disabled, in full: for the log, never for a visitor
    #: What a visitor reads of ``error`` (default ``KEY_UNAVAILABLE``): no path, no endpoint.
    notice: str | None = None

    @property
    def unavailable(self) -> str | None:
        """Why Score is disabled, as a visitor reads it (None when it is not): what is
        unavailable, never the path, repo address or credentials ``error`` may name."""
        if self.key is not None:
            return None
        return self.notice or KEY_UNAVAILABLE

    def __repr__(self) -> str:  # the key itself is long and private
        questions = len(self.key) if self.key is not None else None
        return (
            f"KeyStatus(origin={self.origin!r}, demo={self.demo}, questions={questions}, "
            f"error={self.error!r})"
        )


def _checked(key: evaluator.AnyKey, origin: str, demo: bool, config: Config) -> KeyStatus:
    """The key, or Score disabled when it disagrees with the sizes its spec declares."""
    problems = evaluator.size_problems(key)
    if not problems:
        for warning in evaluator.release_warnings(key):  # as validate_benchmark.py warns
            log.warning("the answer key (%s): %s", origin, warning)
        return KeyStatus(key, origin, demo=demo, error=None)
    spec_file = config.benchmark.folder / "benchmark.toml"
    reason = (
        f"the answer key ({origin}) disagrees with {spec_file}: {'; '.join(problems)}. "
        "Scores would be wrong, so Score is disabled: fix the key or the spec "
        "(scripts/validate_benchmark.py lists every difference)"
    )
    log.error("%s", reason)
    return KeyStatus(None, origin, demo=demo, error=reason, notice=KEY_DISAGREES)


def load_key(config: Config, track: Track, timeout_s: float = DEFAULT_TIMEOUT_S) -> KeyStatus:
    """The track's answer key: local file, else the private repo (with HF_TOKEN), else the demo
    key. Score is disabled (``key=None``) when the key disagrees with the spec. ``demo`` is
    True for the demo key and for a local copy of it (``Config.shipped_demo_key``).

    A bad local file raises ConfigError naming LEADERBOARD_ANSWER_KEY. A Hub failure does not
    raise: it returns a KeyStatus with ``key=None`` and the reason, within about ``timeout_s``.
    """
    if config.answer_key_path is not None:
        path = config.answer_key_path
        if path.is_dir():
            path = path / track.key.name
        try:
            # The maintainer's own path (LEADERBOARD_ANSWER_KEY), which may be a link.
            data = read_regular_file(path, follow_links=True)
        except UnreadableFileError as exc:
            raise ConfigError(f"LEADERBOARD_ANSWER_KEY: {exc}") from None
        try:
            key = evaluator.load_answer_key(track, data)
        except evaluator.AnswerKeyError as exc:
            raise ConfigError(
                f"LEADERBOARD_ANSWER_KEY: {path} is not a valid answer key: {exc}"
            ) from None
        return _checked(key, f"local file {path}", config.shipped_demo_key, config)

    if config.token is not None:
        origin = f"{config.private_repo} on the Hub"
        try:
            data = _download_key(config, track, timeout_s)
            key = evaluator.load_answer_key(track, data)
        except LedgerError as exc:
            reason = redact(str(exc), config.token)
            silent = KEY_HUB_SILENT if isinstance(exc, HubUnreachableError) else None
            return KeyStatus(None, origin, demo=False, error=reason, notice=silent)
        except evaluator.AnswerKeyError as exc:
            reason = redact(
                f"{track.key.name} in {config.private_repo} is not a valid answer key: {exc}",
                config.token,
            )
            return KeyStatus(None, origin, demo=False, error=reason)
        return _checked(key, origin, False, config)

    bench = config.benchmark
    demo_key = bench.demo_key(track)
    try:
        # A benchmark folder's file: a regular file inside it, no link on the way (spec).
        data = read_folder_file(bench.folder, demo_key, INPUT_LIMIT_BYTES)
        key = evaluator.load_answer_key(track, data)
    except (OSError, SpecError, evaluator.AnswerKeyError) as exc:
        raise LedgerError(f"the shipped demo key {demo_key} is unusable: {exc}") from None
    return _checked(key, "synthetic demo key", True, config)


class KeyLoader:
    """The app's answer key of one track: loaded at boot; after a failure, tried again at most
    once per ``retry_s`` by whichever request asks first, so a Hub hiccup at boot heals without
    a restart.

    Calling it returns the current KeyStatus; concurrent callers never wait on a retry.
    """

    def __init__(
        self,
        config: Config,
        track: Track,
        retry_s: float = CACHE_TTL_S,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._config, self._track, self._retry_s, self._timeout_s, self._clock = (
            config,
            track,
            retry_s,
            timeout_s,
            clock,
        )
        self._lock = threading.Lock()
        self._status = load_key(config, track, timeout_s)
        self._tried = clock()

    def __call__(self) -> KeyStatus:
        status = self._status
        if status.key is not None or self._clock() - self._tried < self._retry_s:
            return status
        if not self._lock.acquire(blocking=False):
            return status  # another request is retrying right now
        try:
            if self._status.key is None and self._clock() - self._tried >= self._retry_s:
                before = self._status.error
                self._status = load_key(self._config, self._track, self._timeout_s)
                self._tried = self._clock()
                if self._status.key is not None:
                    log.info(
                        "answer key loaded from %s after an earlier failure", self._status.origin
                    )
                elif self._status.error != before:  # what visitors are told is in the log
                    log.warning("answer key still unavailable: %s", self._status.error)
            return self._status
        finally:
            self._lock.release()


def _download_key(config: Config, track: Track, timeout_s: float) -> bytes:
    """The key's bytes from the private repo, within about ``timeout_s`` seconds."""
    assert config.token is not None
    repo, token, endpoint = config.private_repo, config.token, config.endpoint
    name = track.key.name
    where = f"downloading {name} from {repo} at {config.hub_name}"
    deadline = time.monotonic() + timeout_s
    # One HEAD without retries first: a refused or unreachable Hub answers fast and clearly,
    # instead of inside hf_hub_download's back-off.
    url = hf_hub_url(repo, name, repo_type="dataset", endpoint=endpoint)
    try:
        get_hf_file_metadata(url, token=token, timeout=timeout_s, endpoint=endpoint)
    except HfHubHTTPError as exc:
        status = exc.response.status_code if exc.response is not None else 0
        if isinstance(exc, RemoteEntryNotFoundError):
            raise LedgerError(f"{where}: the repository has no {name}") from None
        if isinstance(exc, RepositoryNotFoundError):
            raise LedgerError(
                f"{where}: HTTP {status}, the repository was not found or HF_TOKEN has no read "
                f"access to it. Give HF_TOKEN read access to {repo}, or set LEADERBOARD_ANSWER_KEY "
                "to a local copy of the key"
            ) from None
        if status == 401:
            raise LedgerError(
                f"{where}: HTTP 401, the Hub refused HF_TOKEN (invalid or expired). "
                "Create a new read token and set it as HF_TOKEN"
            ) from None
        raise describe_hub_error(exc, where) from None
    except Exception as exc:
        raise describe_hub_error(exc, where) from None

    def fetch() -> bytes:
        with tempfile.TemporaryDirectory(prefix="leaderboard-key-") as cache:
            # A private cache folder: the key is not left behind in the shared HF cache.
            local = hf_hub_download(
                repo,
                name,
                repo_type="dataset",
                endpoint=endpoint,
                token=token,
                cache_dir=cache,
                etag_timeout=max(deadline - time.monotonic(), 0.1),
            )
            return Path(str(local)).read_bytes()

    try:
        return run_bounded(fetch, max(deadline - time.monotonic(), 0.1), where)
    except LedgerError:
        raise
    except Exception as exc:
        raise describe_hub_error(exc, where) from None
