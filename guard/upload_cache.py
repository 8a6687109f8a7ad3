"""What Gradio's upload cache may hold, how much it holds, and the pass that empties it.

- ``CachePolicy`` (``cache_policy``: as LEADERBOARD_UPLOAD_MAX_AGE_S, _CACHE_FILES, _CACHE_MB and
  _CLIENT_PERCENT say, read by ledger.config): how many files and bytes the cache may hold, and
  for how long.
- ``CacheBudget``: files and bytes in the cache, counted by the last sweep, plus what uploads
  reserved since; guard.uploads reserves against it before a body is read.
- ``ClientShares``: what each client holds of it (uploads in flight, and stored ones the sweep
  has not deleted yet), at most ``client_files`` and ``client_bytes`` each
  (LEADERBOARD_UPLOAD_CLIENT_PERCENT of the cache, and never less than a few uploads), so no one
  client can fill the cache for everyone.
- ``sweep``: one pass over the cache folder, deleting every file older than ``max_age_s``,
  tracked or not, but the app's own files (``APP_FILES``, bounded by their writer: the board's
  downloads, web.board); guard.uploads runs it on a schedule for as long as the server runs.
- ``private_upload_folder``: a cache folder of the app's own (Gradio's default,
  ``<tmp>/gradio``, is shared by every Gradio app of the user, and a sweep deletes whatever is
  old in it).

>>> import ledger
>>> policy = cache_policy(ledger.load_config({"LEADERBOARD_UPLOAD_MAX_AGE_S": "60"}))
>>> policy.max_age_s, policy.every_s, policy.stall_s, policy.max_files
(60.0, 15.0, 30.0, 2000)
>>> policy.client_files, round(policy.client_bytes / 2**20, 1)  # one client's share: 2 %
(40, 20.5)
>>> import tempfile, time
>>> with tempfile.TemporaryDirectory() as tmp:
...     upload = Path(tmp, "0" * 64, "s.json")
...     upload.parent.mkdir()
...     _ = upload.write_bytes(b"[1]")
...     young, old = sweep(Path(tmp), 60, time.time()), sweep(Path(tmp), 60, time.time() + 120)
...     left = list(Path(tmp).iterdir())
>>> (young.kept_files, young.removed), (old.kept_files, len(old.removed)), left
((1, frozenset()), (0, 1), [])
"""

from __future__ import annotations

import collections
import errno
import math
import os
import stat
import tempfile
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import ledger
from ledger import variables

#: The defaults of the variables (ledger.variables): an upload is deleted this long after its
#: last write; the files the cache may hold, uploads of the last MAX_AGE_S included; megabytes.
MAX_AGE_S = variables.UPLOAD_MAX_AGE_S.default
MAX_FILES = variables.UPLOAD_CACHE_FILES.default
MAX_MB = variables.UPLOAD_CACHE_MB.default
STALL_S = 30.0  # an upload that sends nothing for this long is dropped
MIN_RATE_BPS = 16 * 1024  # past its first stall_s, an upload arriving slower is dropped
PART_OVERHEAD_BYTES = 64 * 1024  # a body's boundaries and part headers beyond its file
CLIENT_PERCENT = variables.UPLOAD_CLIENT_PERCENT.default  # of the cache, one client's at once
CLIENT_MIN_FILES = 10  # but never fewer files than this
CLIENT_MIN_UPLOADS = 2  # nor fewer bytes than this many uploads of the largest size

#: The app's own files in the upload folder (the board's downloads): their writer bounds them,
#: the cleanup's passes leave them and the budget does not count them; the last pass, when the
#: server stops, deletes them with the rest. A visitor's upload never lands there: Gradio
#: stores each in a folder named by its sha256.
APP_FILES = "app-files"


@dataclass(frozen=True)
class CachePolicy:
    """How much the upload cache may hold, and for how long."""

    max_age_s: float = MAX_AGE_S
    max_files: int = MAX_FILES
    max_bytes: int = int(MAX_MB * 2**20)
    max_file_bytes: int = 5 * 2**20
    client_percent: float = CLIENT_PERCENT  # of the files and bytes, one client's share

    @property
    def every_s(self) -> float:
        """How often the cleanup runs: a file is gone at most 1.25 x ``max_age_s`` after its
        last write."""
        return min(30.0, self.max_age_s / 4)

    @property
    def stall_s(self) -> float:
        """Below ``max_age_s``, so the partial file of an upload still arriving is never old."""
        return min(STALL_S, self.max_age_s / 2)

    @property
    def max_body_bytes(self) -> int:
        return self.max_file_bytes + PART_OVERHEAD_BYTES

    @property
    def client_files(self) -> int:
        """Files one client may hold at once: its share of the cache, at least a few."""
        share = math.floor(self.max_files * self.client_percent / 100)
        return min(self.max_files, max(CLIENT_MIN_FILES, share))

    @property
    def client_bytes(self) -> int:
        """Bytes one client may hold at once: its share, at least a few uploads of the
        largest size."""
        share = math.floor(self.max_bytes * self.client_percent / 100)
        return min(self.max_bytes, max(CLIENT_MIN_UPLOADS * self.max_body_bytes, share))


def cache_policy(config: ledger.Config, *, max_file_bytes: int = 5 * 2**20) -> CachePolicy:
    """The policy ``config`` read (LEADERBOARD_UPLOAD_MAX_AGE_S, _CACHE_FILES, _CACHE_MB and
    _CLIENT_PERCENT), for files of ``max_file_bytes`` at most."""
    return CachePolicy(
        config.upload_max_age_s,
        config.upload_cache_files,
        int(config.upload_cache_mb * 2**20),
        max_file_bytes,
        config.upload_client_percent,
    )


def private_upload_folder(given: Path | None) -> Path:
    """The upload folder: ``given`` (GRADIO_TEMP_DIR, as ledger.config read it), else a new
    folder of this process's own. The caller hands it to Gradio (app.main sets GRADIO_TEMP_DIR,
    which each block reads when it is created: before the page is built)."""
    return given if given is not None else Path(tempfile.mkdtemp(prefix="leaderboard-uploads-"))


# --- what is in the cache, and how much more it may take ----------------------------------------


@dataclass
class CacheBudget:
    """Files and bytes in the cache: what the last sweep counted, plus what uploads reserved
    since. Used on the event loop only (the middleware and the cleanup's bookkeeping).

    An upload reserves one file and its declared length (a body of undeclared length: its
    bytes as they arrive), and gives them back if it fails; a pass of the cleanup replaces the
    count with what it found plus what was stored meanwhile, so the count errs high, never low.

    >>> budget = CacheBudget(max_files=1, max_bytes=100)
    >>> budget.reserve_file(), budget.reserve_bytes(60), budget.reserve_bytes(41)
    (True, True, False)
    >>> budget.settle(1, 60, stored=True)  # the upload is in the cache now
    >>> budget.used_files, budget.used_bytes, budget.reserve_file()
    (1, 60, False)
    """

    max_files: int
    max_bytes: int
    files: int = 0  # at the last recount, plus uploads committed since
    bytes: int = 0
    in_flight_files: int = 0
    in_flight_bytes: int = 0
    committed_files: int = 0  # running totals of finished uploads, for the recount
    committed_bytes: int = 0

    def reserve_file(self) -> bool:
        if self.used_files + 1 > self.max_files:
            return False
        self.in_flight_files += 1
        return True

    def reserve_bytes(self, size: int) -> bool:
        if self.used_bytes + size > self.max_bytes:
            return False
        self.in_flight_bytes += size
        return True

    def settle(self, files: int, size: int, stored: bool) -> None:
        """An upload ended: its reservation is in the cache now, or given back."""
        self.in_flight_files -= files
        self.in_flight_bytes -= size
        if stored:
            self.files += files
            self.bytes += size
            self.committed_files += files
            self.committed_bytes += size

    def mark(self) -> tuple[int, int]:
        """Taken when a sweep starts; ``recount`` adds what was committed after it."""
        return self.committed_files, self.committed_bytes

    def recount(self, files: int, size: int, mark: tuple[int, int]) -> None:
        self.files = files + self.committed_files - mark[0]
        self.bytes = size + self.committed_bytes - mark[1]

    @property
    def used_files(self) -> int:
        return self.files + self.in_flight_files

    @property
    def used_bytes(self) -> int:
        return self.bytes + self.in_flight_bytes


@dataclass
class _Holding:
    """What one client holds: uploads in flight, and stored ones not yet swept."""

    files: int = 0  # in flight
    bytes: int = 0
    stored: collections.deque[tuple[float, int]] = field(default_factory=collections.deque)
    stored_bytes: int = 0

    @property
    def empty(self) -> bool:
        return not (self.files or self.bytes or self.stored)


class ClientShares:
    """What each client holds of the cache, at most ``max_files`` and ``max_bytes`` each:
    their uploads in flight (reserved before the body is read, as CacheBudget's), plus those
    stored and not yet deleted. A stored upload counts until the pass of the cleanup that
    deletes it (``swept``: the first pass more than ``max_age_s`` after it was stored), so a
    client's count errs high, never low. Used on the event loop only; a client holding nothing
    is forgotten, so the map holds at most as many clients as the cache holds files.

    >>> shares = ClientShares(max_files=2, max_bytes=100, max_age_s=60)
    >>> shares.reserve("a", 60), shares.reserve("a", 41), shares.reserve("b", 41)
    (True, False, True)
    >>> shares.settle("a", 1, 60, stored=True, now=0.0)
    >>> shares.reserve("a", 10), shares.reserve("a", 10)  # two files: one stored, one new
    (True, False)
    >>> shares.settle("a", 1, 10, stored=False, now=1.0)
    >>> shares.swept(now=61.0)  # the pass that deletes "a"'s upload
    >>> shares.holding("a"), shares.holding("b")
    ((0, 0), (1, 41))
    """

    def __init__(self, max_files: int, max_bytes: int, max_age_s: float) -> None:
        self.max_files = max_files
        self.max_bytes = max_bytes
        self.max_age_s = max_age_s
        self._clients: dict[str, _Holding] = {}

    def holding(self, client: str) -> tuple[int, int]:
        """The files and bytes ``client`` holds now."""
        held = self._clients.get(client)
        if held is None:
            return 0, 0
        return held.files + len(held.stored), held.bytes + held.stored_bytes

    def reserve(self, client: str, size: int) -> bool:
        """One file of ``size`` bytes for ``client``, if it stays within its share."""
        files, held = self.holding(client)
        if files + 1 > self.max_files or held + size > self.max_bytes:
            return False
        holding = self._clients.setdefault(client, _Holding())
        holding.files += 1
        holding.bytes += size
        return True

    def grow(self, client: str, size: int) -> bool:
        """``size`` more bytes of an upload in flight (a body longer than it declared)."""
        if self.holding(client)[1] + size > self.max_bytes:
            return False
        self._clients.setdefault(client, _Holding()).bytes += size
        return True

    def settle(self, client: str, files: int, size: int, stored: bool, now: float) -> None:
        """An upload of ``client`` ended: stored at ``now``, or given back."""
        holding = self._clients.setdefault(client, _Holding())
        holding.files -= files
        holding.bytes -= size
        if stored:
            holding.stored.append((now, size))
            holding.stored_bytes += size
        if holding.empty:
            del self._clients[client]

    def swept(self, now: float) -> None:
        """A pass of the cleanup at ``now`` deleted every upload stored before
        ``now - max_age_s``."""
        for client, holding in list(self._clients.items()):
            while holding.stored and now - holding.stored[0][0] > self.max_age_s:
                holding.stored_bytes -= holding.stored.popleft()[1]
            if holding.empty:
                del self._clients[client]

    def oldest_stored(self, client: str) -> float | None:
        """When ``client``'s oldest upload still counted was stored."""
        held = self._clients.get(client)
        return held.stored[0][0] if held is not None and held.stored else None


# --- the cleanup's pass -------------------------------------------------------------------------


@dataclass(frozen=True)
class Sweep:
    """What one pass over the cache folder found: deleted, kept, and what went wrong."""

    removed: frozenset[str] = frozenset()
    kept_files: int = 0
    kept_bytes: int = 0
    errors: tuple[str, ...] = ()


def sweep(
    root: Path,
    max_age_s: float,
    now: float,
    keep: Collection[str] = frozenset(),
    skip: Collection[str] = (APP_FILES,),
) -> Sweep:
    """Delete every file under ``root`` last written more than ``max_age_s`` before ``now``
    (ctime or mtime, whichever is later), then every empty folder as old; links are deleted,
    never followed. ``keep`` are paths never deleted; ``skip`` are names of folders in ``root``
    the pass neither enters nor counts (the app's own, ``APP_FILES``). An entry that cannot be
    handled is reported in ``errors`` and left; it never stops the pass."""
    removed: set[str] = set()
    kept_files = kept_bytes = 0
    errors: list[str] = []
    skipped = {os.path.join(root, name) for name in skip}

    def failed(exc: OSError) -> None:
        if not isinstance(exc, FileNotFoundError):  # gone meanwhile: nothing to do
            errors.append(f"{type(exc).__name__}: {exc}")

    def walk() -> Iterator[tuple[str, list[str], list[str]]]:
        """os.walk bottom-up without the skipped folders (a top-down walk prunes them)."""
        folders = []
        for folder, dirs, files in os.walk(root, onerror=failed):
            dirs[:] = [d for d in dirs if os.path.join(folder, d) not in skipped]
            folders.append((folder, dirs, files))
        return reversed(folders)

    for folder, dirs, files in walk():
        for name in [*files, *(d for d in dirs if os.path.islink(os.path.join(folder, d)))]:
            path = os.path.join(folder, name)
            try:
                info = os.lstat(path)
                if path in keep or now - max(info.st_ctime, info.st_mtime) <= max_age_s:
                    kept_files += 1
                    kept_bytes += info.st_size
                    continue
                os.unlink(path)
            except OSError as exc:
                failed(exc)
                continue
            removed.add(path)
        if folder == str(root):
            continue
        try:
            info = os.lstat(folder)
            # An upload makes its folder, then renames its file in: a young folder may be
            # about to get one.
            if stat.S_ISDIR(info.st_mode) and now - info.st_mtime > max_age_s:
                os.rmdir(folder)
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):  # a file is still in it
                failed(exc)
    return Sweep(frozenset(removed), kept_files, kept_bytes, tuple(errors))
