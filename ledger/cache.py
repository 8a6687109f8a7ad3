"""The app's view of the board: a time-to-live cache over a record store.

It shows only the records of its benchmark's track (others are skipped with a log line; those
of the benchmark's other tracks, which share the store, quietly), each checked against the
spec, superseded and withdrawn rows hidden (records.history), best first.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from datetime import datetime

from errors import HubUnreachableError, LedgerError, RecordError
from ledger.config import CACHE_TTL_S
from ledger.stores import CommitStore, RecordStore, VersionedStore
from records.board import REREAD_FLOOR_S, AddedIn, BoardSnapshot
from records.history import hidden
from records.record import Record, check_record, ranking_value, record_track
from records.withdrawals import Entry, Withdrawal, read_entry, withdrawal_track
from spec import Benchmark, Track

_DOWNLOAD_WORKERS = 8  # parallel record downloads on a cold board


_EMPTY = BoardSnapshot(records=(), last_success=None, stale=False, error=None, skipped=())


@dataclass(frozen=True)
class _Parsed:
    version: str  # of the bytes parsed
    record: Entry | None  # None: they did not validate, or are a sibling track's
    sibling: bool = False  # a record of another track of the benchmark: not this board's


class BoardCache:
    """The app's view of the board: refreshed at most once per ``ttl_s``, O(changes) per refresh.

    Thread-safe. One refresh runs at a time; callers arriving meanwhile get the current snapshot
    (or, before the very first load, wait for it). When a refresh fails, the last good records
    stay served, marked stale, and the failure is logged once until a refresh succeeds again.
    """

    def __init__(
        self,
        store: RecordStore,
        bench: Benchmark,
        track: Track,
        ttl_s: float = CACHE_TTL_S,
        clock: Callable[[], float] = time.time,
        log: logging.Logger | None = None,
    ) -> None:
        self._store = store
        self._bench, self._track = bench, track
        self._siblings = {t.id for t in bench.tracks if t.id != track.id}
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

    @property
    def store(self) -> RecordStore:
        """Where the board's records are read from."""
        return self._store

    def added_in(self, record_id: str) -> AddedIn | None:
        """The commit that added this board's record ``record_id`` to the Hub, for its card.

        None for an id the board does not show (superseded and withdrawn rows count), a store
        without commits (a folder), or a Hub that could not tell; never raises. The store asks
        lazily, once per record, and remembers (``HubStore.added_in``).

        >>> import spec
        >>> from ledger.stores import LocalStore
        >>> bench = spec.load_benchmark("egomemreason")
        >>> board = BoardCache(LocalStore(bench.demo_board), bench, bench.track())
        >>> record = board.snapshot().records[0]
        >>> board.added_in(str(record.id)) is None  # a folder has no commits
        True
        """
        store = self._store
        if not isinstance(store, CommitStore):
            return None
        snap = self.snapshot()
        for record in (*snap.records, *snap.superseded):
            if str(record.id) == record_id.strip().lower():
                return store.added_in(record.path(), self._head)
        return None

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

    @property
    def last_read_started(self) -> float | None:
        """When the last read of the store started (clock() time; None before the first): a
        Refresh after which it is the same was not read again (``reread``'s floor)."""
        return self._last_attempt

    def reread(self, floor_s: float = REREAD_FLOOR_S) -> BoardSnapshot:
        """A visitor's Refresh: the store read now, whatever the TTL, unless a read started
        less than ``floor_s`` ago (then that read's board: however many visitors click, the
        store is read once per ``floor_s`` at most); waits for a read under way.

        >>> import spec
        >>> from ledger.stores import LocalStore
        >>> bench = spec.load_benchmark("egomemreason")
        >>> now = [0.0]
        >>> board = BoardCache(LocalStore(bench.demo_board), bench, bench.track(),
        ...                    clock=lambda: now[0])
        >>> board.snapshot().last_success, board.reread().last_success  # read 0 s ago: kept
        (0.0, 0.0)
        >>> now[0] = 10.0
        >>> board.snapshot().last_success, board.reread().last_success  # the TTL's 60 s aside
        (0.0, 10.0)
        """
        with self._lock:
            last = self._last_attempt
            if last is None or self._clock() - last >= floor_s:
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
            records, skipped, superseded, withdrawals = self._load()
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
            records=records,
            last_success=started,
            stale=False,
            error=None,
            skipped=skipped,
            superseded=superseded,
            withdrawals=withdrawals,
        )

    def _load(
        self,
    ) -> tuple[tuple[Record, ...], tuple[str, ...], tuple[Record, ...], tuple[Withdrawal, ...]]:
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
        withdrawals: list[Withdrawal] = []
        skipped: list[str] = []
        for path in listing:
            parsed = self._parsed.get(path)
            entry = parsed.record if parsed is not None else None
            if isinstance(entry, Withdrawal):
                withdrawals.append(entry)
            elif entry is not None:
                valid.append(entry)
            elif parsed is None or not parsed.sibling:
                skipped.append(path)
        gone_ids = hidden(valid, withdrawals)
        shown = [r for r in valid if r.id not in gone_ids]
        shown.sort(key=lambda r: self._rank_key(r))
        withdrawals.sort(key=lambda w: (w.created_at, str(w.id)))
        gone = tuple(r for r in valid if r.id in gone_ids)
        return tuple(shown), tuple(skipped), gone, tuple(withdrawals)

    def _rank_key(self, record: Record) -> tuple[bool, float, datetime, str]:
        """Best first by the track's ranking metric (its direction), rows without it last."""
        value = ranking_value(record, self._track)
        better = self._track.higher_is_better.get(self._track.ranking_for(record.source))
        signed = 0.0 if value is None else -value if better is not False else value
        return (value is None, signed, record.created_at, str(record.id))

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
            record = read_entry(data)
            if record.path() != path:
                raise RecordError(f"its id {record.id} does not match the file name")
            if isinstance(record, Withdrawal):
                where = withdrawal_track(record, self._bench)
                if where in self._siblings:
                    return _Parsed(version, None, sibling=True)
                if where != self._track.id:
                    raise RecordError(
                        f"a withdrawal of {record.benchmark}/{record.track}, not "
                        f"{self._bench.id}/{self._track.id}"
                    )
            elif record_track(record, self._bench) in self._siblings:
                return _Parsed(version, None, sibling=True)  # another board shows it
            else:
                check_record(record, self._bench, self._track)
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


def records_of(store: RecordStore) -> Iterable[tuple[str, Entry | RecordError]]:
    """Every record of a store (a row or a withdrawal) with its path, or the RecordError it
    raised (for the scripts).

    The records of every benchmark and track: the caller picks (``records.record_track``).
    """
    for path in store.list_paths():
        try:
            yield path, read_entry(store.read(path))
        except RecordError as exc:
            yield path, exc
