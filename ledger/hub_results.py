"""The Hub's own results for a benchmark: its Eval Results leaderboard, read bounded and cached.

The Hugging Face Hub ranks the results model repos report for a benchmark dataset (their
``.eval_results/*.yaml`` files: hub-docs, docs/hub/eval-results.md). None of them is re-scored
here, so a board shows them apart from its own rows, marked unverified, and only when the spec
asks (``hub.show_hub_results``). ``read_leaderboard`` asks for them as huggingface_hub's
``HfApi.get_dataset_leaderboard`` does (``GET /api/datasets/<id>/leaderboard``) and parses each
entry as it does (``DatasetLeaderboardEntry``), but reads the answer bounded: at most
``MAX_BYTES``, within the ledger's timeout, ``MAX_ROWS`` kept, every link and model id checked
as a record's are. ``HubResultsCache`` keeps them as ``BoardCache`` keeps records: read at most
once per time-to-live, the last good answer kept (marked stale) when the Hub fails, the failure
logged once; a read never takes longer than its bound, so the Hub can delay nothing but its own
section, and never hides the board.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable

from huggingface_hub import DatasetLeaderboardEntry, constants, get_session, hf_raise_for_status
from huggingface_hub.utils._headers import build_hf_headers

from errors import LedgerError
from ledger.config import CACHE_TTL_S, redact
from ledger.hub import DEFAULT_TIMEOUT_S, describe_hub_error, run_bounded
from records.board import HubResult, HubResults
from records.text import http_url, repo_id, visible_text

MAX_BYTES = 2 * 1024 * 1024  # the answer read at most (a row is ~300 bytes)
MAX_ROWS = 200  # rows kept, best first
_TEXT_CHARS = 300  # a note or a source's name, cut
_LIBRARY = "benchmark-leaderboard"


def _text(value: object) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return visible_text(value[:_TEXT_CHARS].replace("\n", " "))
    except ValueError:
        return None


def _result(entry: DatasetLeaderboardEntry) -> HubResult | None:
    """An entry as a board may show it, or None for one it cannot show safely."""
    try:
        model = repo_id(str(entry.model_id))
        value = float(entry.value)
    except (TypeError, ValueError):
        return None
    source = entry.source if isinstance(entry.source, dict) else {}
    try:
        url = http_url(source.get("url")) if isinstance(source.get("url"), str) else None
    except ValueError:
        url = None
    pull = entry.pull_request
    return HubResult(
        rank=int(entry.rank) if isinstance(entry.rank, int) else 0,
        model_id=model,
        value=value,
        hub_verified=entry.verified is True,
        pull_request=pull if isinstance(pull, int) and not isinstance(pull, bool) else None,
        source_url=url,
        source_name=_text(source.get("name")),
        notes=_text(entry.notes),
    )


def read_leaderboard(
    dataset: str,
    *,
    endpoint: str | None = None,
    token: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> tuple[HubResult, ...]:
    """The Hub's leaderboard of ``dataset``, best first; LedgerError (one line, no token) if
    the Hub does not answer, refuses, or answers more than MAX_BYTES or no list of entries."""
    hub = endpoint or constants.ENDPOINT
    url = f"{hub}/api/datasets/{dataset}/leaderboard"
    where = f"reading the Hub's results for {dataset} at {hub}"
    headers = build_hf_headers(token=token, library_name=_LIBRARY)
    deadline = time.monotonic() + timeout_s  # in all: a trickling answer is cut, too
    try:
        with get_session().stream("GET", url, headers=headers, timeout=timeout_s) as response:
            if response.status_code >= 400:
                response.read()
                hf_raise_for_status(response)
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_BYTES:
                    raise LedgerError(
                        f"{where}: the answer is over {MAX_BYTES // 2**20} MB; not read"
                    )
                if time.monotonic() > deadline:
                    raise LedgerError(f"{where}: no whole answer within {timeout_s:g} s")
    except LedgerError:
        raise
    except Exception as exc:
        error = describe_hub_error(exc, where)
        raise type(error)(redact(str(error), token)) from None
    try:
        data = json.loads(bytes(body))
        if not isinstance(data, list):
            raise ValueError("not a list")
        entries = [DatasetLeaderboardEntry(**e) for e in data if isinstance(e, dict)]
    except (ValueError, TypeError, KeyError) as exc:
        raise LedgerError(f"{where}: expected a JSON list of entries ({exc})") from None
    rows = [r for r in map(_result, entries) if r is not None]
    return tuple(sorted(rows, key=lambda r: (r.rank <= 0, r.rank))[:MAX_ROWS])


class HubResultsCache:
    """The Hub's results of ``dataset``, read at most once per ``ttl_s`` (``reader``: by default
    ``read_leaderboard``, bounded by ``timeout_s`` in all), thread-safe: a caller arriving while a
    read is under way gets the results as they are."""

    def __init__(
        self,
        dataset: str,
        *,
        endpoint: str | None = None,
        token: str | None = None,
        ttl_s: float = CACHE_TTL_S,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        clock: Callable[[], float] = time.time,
        reader: Callable[[], tuple[HubResult, ...]] | None = None,
        log: logging.Logger | None = None,
        site: str | None = None,
    ) -> None:
        self.dataset = dataset
        #: The Hub's address for a visitor's links (never one holding credentials).
        self.site = (site or constants.ENDPOINT).rstrip("/")
        self._read = reader or (
            lambda: read_leaderboard(dataset, endpoint=endpoint, token=token, timeout_s=timeout_s)
        )
        self._ttl_s, self._timeout_s, self._clock = ttl_s, timeout_s, clock
        self._log = log or logging.getLogger(__name__)
        self._lock = threading.Lock()
        self._results = HubResults(dataset, (), None, None)
        self._last_attempt: float | None = None
        self._failing = False

    def results(self, floor_s: float | None = None) -> HubResults:
        """The results, read again first if the last read is older than the TTL (or than
        ``floor_s``, for a visitor's Refresh); never waits for another caller's read."""
        wait = self._ttl_s if floor_s is None else floor_s
        last = self._last_attempt
        if (last is None or self._clock() - last >= wait) and self._lock.acquire(blocking=False):
            try:
                last = self._last_attempt
                if last is None or self._clock() - last >= wait:
                    self._refresh()
            finally:
                self._lock.release()
        return self._results

    def _refresh(self) -> None:
        started = self._last_attempt = self._clock()
        try:
            rows = run_bounded(self._read, self._timeout_s, f"the Hub's results for {self.dataset}")
        except Exception as exc:
            reason = str(exc) if isinstance(exc, LedgerError) else f"{type(exc).__name__}: {exc}"
            if not self._failing:
                self._log.warning(
                    "the Hub's results for %s could not be read: %s; the board shows %s until a "
                    "read succeeds (not logged again)",
                    self.dataset,
                    reason,
                    "none" if self._results.last_success is None else "the last ones read",
                )
            self._failing = True
            self._results = HubResults(
                self.dataset, self._results.rows, self._results.last_success, reason
            )
            return
        if self._failing:
            self._log.info("the Hub's results for %s are read again", self.dataset)
        self._failing = False
        self._results = HubResults(self.dataset, rows, started, None)
