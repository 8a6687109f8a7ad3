"""The Space's configuration: every variable read once, by ``load_config``, failing loudly.

Which benchmark is served (``LEADERBOARD_BENCHMARK``), where its key and records come from, the
cache and the score limit. The table of variables is in the README.

Demo mode is what the configuration says, never a guess from a key's contents: the shipped
demo key is in use when no key is configured (no local key, no ``HF_TOKEN``), or when the local
key *is* it (the same bytes as the benchmark's ``demo/`` key: a copy of it). Then the app shows
the demo banner, and its board is the demo board unless a board is named
(``LEADERBOARD_RECORDS_DIR``, or a Hub board through ``LEADERBOARD_RECORDS_REPO`` or
``HF_ENDPOINT``). A local key that merely asks the demo key's questions is a real key: authors
build their demo from their release, so the demo's questions are often the real ones.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from huggingface_hub import constants

import spec
from errors import ConfigError, UnreadableFileError
from ledger.files import INPUT_LIMIT_BYTES, read_regular_file
from spec import Benchmark

CACHE_TTL_S = 60
SCORE_LIMIT = 20
SCORE_WINDOW_S = 86400.0
DEFAULT_BENCHMARK = "egomemreason"
_REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")
#: The variables of the single-benchmark releases, and what they are called now.
RENAMED = {
    "EGOMEM_ANSWER_KEY": "LEADERBOARD_ANSWER_KEY",
    "EGOMEM_PRIVATE_REPO": "LEADERBOARD_PRIVATE_REPO",
    "EGOMEM_LEADERBOARD_DIR": "LEADERBOARD_RECORDS_DIR",
    "EGOMEM_LEADERBOARD_REPO": "LEADERBOARD_RECORDS_REPO",
    "EGOMEM_CACHE_TTL_S": "LEADERBOARD_CACHE_TTL_S",
    "EGOMEM_SCORE_LIMIT": "LEADERBOARD_SCORE_LIMIT",
    "EGOMEM_SCORE_WINDOW_S": "LEADERBOARD_SCORE_WINDOW_S",
}


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
    trusted_proxy_hops: int = 0
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


def _number(
    environ: Mapping[str, str], name: str, default: float, minimum: float, whole: bool = False
) -> float:
    """A numeric variable: finite, at least ``minimum``, whole if asked; else ConfigError."""
    raw = _env(environ, name)
    if raw is None:
        return default
    try:
        # A whole number is written in ASCII digits: "1e3", "２" and "20.0" are typos here.
        value = float(raw) if not whole or (raw.isascii() and raw.isdigit()) else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < minimum or (whole and value != int(value)):
        kind = "a whole number" if whole else "a number"
        raise ConfigError(
            f"{name} must be {kind} >= {minimum:g}; found {raw!r}. Unset it for the default "
            f"of {default:g}"
        )
    return value


def _answer_key(env: Mapping[str, str], bench: Benchmark) -> Path | None:
    names = ", ".join(t.key.name for t in bench.tracks)
    raw = _env(env, "LEADERBOARD_ANSWER_KEY")
    if raw is None:
        # A key file of the benchmark in the working directory is used as a local key.
        cwd = Path.cwd()
        return cwd if any((cwd / t.key.name).is_file() for t in bench.tracks) else None
    path = Path(raw).expanduser()
    if path.is_dir():
        present = [t.key.name for t in bench.tracks if (path / t.key.name).is_file()]
        if not present:
            raise ConfigError(
                f"LEADERBOARD_ANSWER_KEY={raw!r} is a folder without the key file of "
                f"{bench.id} ({names}); put it there, or point at the file itself"
            )
        return path
    if not path.is_file():
        raise ConfigError(
            f"LEADERBOARD_ANSWER_KEY={raw!r} must be the path of {bench.id}'s answer key "
            f"({names}) or of a folder holding it; found nothing there. Fix the path, or unset "
            "it to use the private repo"
        )
    if len(bench.tracks) > 1:
        raise ConfigError(
            f"LEADERBOARD_ANSWER_KEY={raw!r} is one file, but {bench.id} has "
            f"{len(bench.tracks)} tracks; point it at a folder holding {names}"
        )
    return path


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
    old = [name for name in RENAMED if _env(env, name) is not None]
    if old:
        renames = "; ".join(f"{name} is now {RENAMED[name]}" for name in old)
        raise ConfigError(
            f"{renames}. Rename the variable{'s' if len(old) > 1 else ''} "
            "(the values mean the same), then start again"
        )

    try:
        bench = spec.load_benchmark(_env(env, "LEADERBOARD_BENCHMARK") or DEFAULT_BENCHMARK)
    except spec.SpecError as exc:
        raise ConfigError(f"LEADERBOARD_BENCHMARK: {exc}") from None

    records_dir: Path | None = None
    raw_dir = _env(env, "LEADERBOARD_RECORDS_DIR")
    if raw_dir is not None:
        records_dir = Path(raw_dir).expanduser()
        if not records_dir.is_dir():
            raise ConfigError(
                f"LEADERBOARD_RECORDS_DIR={raw_dir!r} must be an existing directory laid out "
                "like the records dataset (submissions/<uuid>.json); it is not a directory"
            )

    endpoint = _env(env, "HF_ENDPOINT")
    if endpoint is not None:
        if not re.match(r"^https?://[^/\s]+", endpoint):
            raise ConfigError(
                f"HF_ENDPOINT must be an http(s) URL such as https://huggingface.co; "
                f"found {endpoint!r}"
            )
        endpoint = endpoint.rstrip("/")

    answer_key = _answer_key(env, bench)
    return Config(
        benchmark=bench,
        answer_key_path=answer_key,
        private_repo=_repo_id(env, "LEADERBOARD_PRIVATE_REPO", bench.hub.private_repo),
        token=_env(env, "HF_TOKEN"),
        records_dir=records_dir,
        records_repo=_repo_id(env, "LEADERBOARD_RECORDS_REPO", bench.hub.records_repo),
        cache_ttl_s=_number(env, "LEADERBOARD_CACHE_TTL_S", CACHE_TTL_S, 0),
        endpoint=endpoint,
        score_limit=int(_number(env, "LEADERBOARD_SCORE_LIMIT", SCORE_LIMIT, 1, whole=True)),
        score_window_s=_number(env, "LEADERBOARD_SCORE_WINDOW_S", SCORE_WINDOW_S, 1),
        on_space=_env(env, "SPACE_ID") is not None,
        trusted_proxy_hops=int(_number(env, "LEADERBOARD_TRUSTED_PROXY_HOPS", 0, 0, whole=True)),
        shipped_demo_key=_shipped_demo_key(bench, answer_key),
        hub_board_named=(_env(env, "LEADERBOARD_RECORDS_REPO") is not None or endpoint is not None),
    )


#: The ``user:password@`` of an address (``HF_ENDPOINT`` may hold one).
_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]*@")


def without_credentials(text: str) -> str:
    """``text`` with the ``user:password@`` of every address in it taken out.

    >>> without_credentials("no answer from http://user:secretpw@127.0.0.1:8080/api")
    'no answer from http://127.0.0.1:8080/api'
    """
    return _CREDENTIALS.sub(r"\1", text)


def redact(text: str, token: str | None) -> str:
    """``text`` with every occurrence of the token replaced and the credentials of every
    address taken out (``without_credentials``); messages for the log pass through this."""
    if token:
        text = text.replace(token, "<HF_TOKEN>")
    return without_credentials(text)
