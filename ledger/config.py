"""The Space's configuration: every variable read once, by ``load_config``, failing loudly.

Which benchmark is served (``LEADERBOARD_BENCHMARK``), where its key and records come from, the
cache, the score limit, each client's shares of the events and the upload cache, and the upload
folder. ``ledger.variables`` is the table of variables and the one rule that parses them (the
README's table is checked against it); this module is the one place that reads the process's
environment, and checks what a value's type alone cannot (that a path holds what it must, that a
benchmark loads).

Demo mode is what the configuration says, never a guess from a key's contents: the shipped
demo key is in use when no key is configured (no local key, no ``HF_TOKEN``), or when the local
key *is* it (the same bytes as the benchmark's ``demo/`` key: a copy of it). Then the app shows
the demo banner, and its board is the demo board unless a board is named
(``LEADERBOARD_RECORDS_DIR``, or a Hub board through ``LEADERBOARD_RECORDS_REPO`` or
``HF_ENDPOINT``). A local key that merely asks the demo key's questions is a real key: authors
build their demo from their release, so the demo's questions are often the real ones.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from huggingface_hub import constants

import ledger.variables as v
import spec
from errors import ConfigError, UnreadableFileError
from ledger.files import INPUT_LIMIT_BYTES, read_regular_file
from ledger.variables import RENAMED, without_credentials
from spec import Benchmark

__all__ = [
    "CACHE_TTL_S",
    "DEFAULT_BENCHMARK",
    "RENAMED",
    "SCORE_LIMIT",
    "SCORE_WINDOW_S",
    "Config",
    "load_config",
    "redact",
    "value_of",
    "without_credentials",
]

T = TypeVar("T")

CACHE_TTL_S = v.CACHE_TTL_S.default
SCORE_LIMIT = v.SCORE_LIMIT.default
SCORE_WINDOW_S = v.SCORE_WINDOW_S.default
DEFAULT_BENCHMARK = v.BENCHMARK.default


@dataclass(frozen=True)
class Config:
    """Which benchmark, and where its key and its board come from; built by ``load_config``."""

    benchmark: Benchmark
    #: A key file (a one-track benchmark) or a folder holding each track's key by its name.
    answer_key_path: Path | None
    private_repo: str
    token: str | None = field(repr=False)
    records_dir: Path | None
    records_repo: str
    cache_ttl_s: float
    endpoint: str | None = field(repr=False)  # it may hold user:password@
    score_limit: int = SCORE_LIMIT  # scored submissions per client per window (the app's)
    score_window_s: float = SCORE_WINDOW_S
    on_space: bool = False  # SPACE_ID is set: the client address comes from the Space's proxy
    #: Public proxies in front of the Space's own that also append to X-Forwarded-For.
    trusted_proxy_hops: int = v.TRUSTED_PROXY_HOPS.default
    #: The upload cache (guard.upload_cache.cache_policy): an upload's age, the files and
    #: megabytes held at once, and one client's share of them.
    upload_max_age_s: float = v.UPLOAD_MAX_AGE_S.default
    upload_cache_files: int = v.UPLOAD_CACHE_FILES.default
    upload_cache_mb: float = v.UPLOAD_CACHE_MB.default
    upload_client_percent: float = v.UPLOAD_CLIENT_PERCENT.default
    #: Each client's share of the events (guard.event_shares.event_policy).
    event_rate: float = v.EVENT_RATE.default
    event_burst: int = v.EVENT_BURST.default
    #: GRADIO_TEMP_DIR as given (None: the app makes a private one, guard.upload_cache).
    upload_folder: Path | None = None
    #: The local key is the shipped demo key (its bytes are those of the ``demo/`` key file).
    shipped_demo_key: bool = False
    #: LEADERBOARD_RECORDS_REPO or HF_ENDPOINT is set: a board on a Hub is asked for.
    hub_board_named: bool = False

    @property
    def demo(self) -> bool:
        """True when the board is the demo board (unless LEADERBOARD_RECORDS_DIR names one):
        neither a local key nor HF_TOKEN is given (the demo key), or the local key is the shipped
        demo key and no Hub board is named."""
        if self.answer_key_path is None:
            return self.token is None
        return self.shipped_demo_key and not self.hub_board_named

    @property
    def hub_name(self) -> str:
        """The Hub's address as the log shows it: without a ``user:password@`` it may hold."""
        return without_credentials(self.endpoint or constants.ENDPOINT)


def value_of(variable: v.Variable[T], environ: Mapping[str, str] | None = None) -> T:
    """One variable's value, read from ``environ`` (default ``os.environ``) by its rule; for a
    script that needs one or two (``LEADERBOARD_BENCHMARK``, ``HF_ENDPOINT``), not the whole
    configuration. ConfigError on a value its rule refuses.

    >>> value_of(v.BENCHMARK, {"LEADERBOARD_BENCHMARK": " egoargus "})
    'egoargus'
    """
    return variable.read(os.environ if environ is None else environ)


def _is_dir(path: Path) -> bool:
    """Whether ``path`` is a folder; a path the system refuses (too long, say) is none."""
    try:
        return path.is_dir()
    except OSError:
        return False


def _is_file(path: Path) -> bool:
    """Whether ``path`` is a file; a path the system refuses (too long, say) is none."""
    try:
        return path.is_file()
    except OSError:
        return False


def _answer_key(env: Mapping[str, str], given: Path | None, bench: Benchmark) -> Path | None:
    names = ", ".join(t.key.name for t in bench.tracks)
    if given is None:
        # A key file of the benchmark in the working directory is used as a local key.
        cwd = Path.cwd()
        return cwd if any((cwd / t.key.name).is_file() for t in bench.tracks) else None
    raw = env.get(v.ANSWER_KEY.name, "")
    if _is_dir(given):
        if not any(_is_file(given / t.key.name) for t in bench.tracks):
            why = f"a folder without the key file of {bench.id} ({names}): put it there"
            raise ConfigError(v.ANSWER_KEY.refusal(raw, why))
        return given
    if not _is_file(given):
        why = "nothing is there; unset, the key comes from the private repo"
        raise ConfigError(v.ANSWER_KEY.refusal(raw, why))
    if len(bench.tracks) > 1:
        tracks = len(bench.tracks)
        why = f"one file, but {bench.id} has {tracks} tracks: name a folder holding {names}"
        raise ConfigError(v.ANSWER_KEY.refusal(raw, why))
    return given


def _shipped_demo_key(bench: Benchmark, answer_key: Path | None) -> bool:
    """Whether every key file of ``answer_key`` is the shipped demo key of its track, byte for
    byte (a copy of it). Equal questions are not enough: a real key built beside its demo asks
    the same ones. A file that cannot be read is not (loading it says why, later)."""
    if answer_key is None:
        return False
    found = 0
    for track in bench.tracks:
        path = answer_key / track.key.name if answer_key.is_dir() else answer_key
        if not path.is_file() or (not answer_key.is_dir() and track is not bench.tracks[0]):
            continue
        try:
            local = read_regular_file(path, follow_links=True)
            shipped = spec.read_folder_file(bench.folder, bench.demo_key(track), INPUT_LIMIT_BYTES)
        except (OSError, UnreadableFileError, spec.SpecError):
            return False
        if local != shipped:
            return False
        found += 1
    return found > 0


def load_config(environ: Mapping[str, str] | None = None) -> Config:
    """Read the configuration from ``environ`` (default ``os.environ``), once.

    A bad value raises ConfigError naming the variable; see the README for the table.
    """
    env = os.environ if environ is None else environ
    values = v.read(env)
    try:
        bench = spec.load_benchmark(values[v.BENCHMARK])
    except (spec.SpecError, OSError) as exc:
        why = (exc.strerror or "") if isinstance(exc, OSError) else str(exc)  # a name too long
        raise ConfigError(v.BENCHMARK.refusal(env.get(v.BENCHMARK.name, ""), why)) from None

    records_dir = values[v.RECORDS_DIR]
    if records_dir is not None and not _is_dir(records_dir):
        why = "no folder is there; give one laid out like the records dataset: submissions/*.json"
        raise ConfigError(v.RECORDS_DIR.refusal(env.get(v.RECORDS_DIR.name, ""), why))

    endpoint = values[v.ENDPOINT]
    answer_key = _answer_key(env, values[v.ANSWER_KEY], bench)
    return Config(
        benchmark=bench,
        answer_key_path=answer_key,
        private_repo=values[v.PRIVATE_REPO] or bench.hub.private_repo,
        token=values[v.TOKEN],
        records_dir=records_dir,
        records_repo=values[v.RECORDS_REPO] or bench.hub.records_repo,
        cache_ttl_s=values[v.CACHE_TTL_S],
        endpoint=endpoint,
        score_limit=values[v.SCORE_LIMIT],
        score_window_s=values[v.SCORE_WINDOW_S],
        on_space=values[v.SPACE_ID] is not None,
        trusted_proxy_hops=values[v.TRUSTED_PROXY_HOPS],
        shipped_demo_key=_shipped_demo_key(bench, answer_key),
        hub_board_named=values[v.RECORDS_REPO] is not None or endpoint is not None,
        upload_max_age_s=values[v.UPLOAD_MAX_AGE_S],
        upload_cache_files=values[v.UPLOAD_CACHE_FILES],
        upload_cache_mb=values[v.UPLOAD_CACHE_MB],
        upload_client_percent=values[v.UPLOAD_CLIENT_PERCENT],
        event_rate=values[v.EVENT_RATE],
        event_burst=values[v.EVENT_BURST],
        upload_folder=values[v.UPLOAD_FOLDER],
    )


def redact(text: str, token: str | None) -> str:
    """``text`` with every occurrence of the token replaced and the credentials of every
    address taken out (``without_credentials``); messages for the log pass through this."""
    if token:
        text = text.replace(token, "<HF_TOKEN>")
    return without_credentials(text)
