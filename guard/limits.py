"""The score limit: how many files one client may score per window, counted in memory.

``score_limits`` reads the limit and the proxy trust from the configuration; ``ScoreLimiter``
counts. Who a client is, behind the Space's proxy, is guard.clients' business.

>>> now = [0.0]
>>> limiter = ScoreLimiter(ScoreLimits(limit=1, window_s=3600), clock=lambda: now[0])
>>> stamp = limiter.acquire("198.51.100.7")
>>> limiter.acquire("198.51.100.7")  # doctest: +ELLIPSIS
Traceback (most recent call last):
  ...
errors.RateLimited: Scoring is limited to 1 files per hour per visitor, ... 01:00:00 UTC.
>>> limiter.release("198.51.100.7", stamp)  # validation refused the file: the slot is free
>>> limiter.acquire("198.51.100.7")
0.0
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import ledger
from errors import RateLimited


@dataclass(frozen=True)
class ScoreLimits:
    """How many scored submissions one client may make per window, and who a client is
    (LEADERBOARD_SCORE_*, SPACE_ID, LEADERBOARD_TRUSTED_PROXY_HOPS)."""

    limit: int = ledger.SCORE_LIMIT
    window_s: float = ledger.SCORE_WINDOW_S
    on_space: bool = False  # behind the Space proxy: the client comes from X-Forwarded-For
    trusted_hops: int = 0  # public proxies in front of it that append to X-Forwarded-For too


def score_limits(config: ledger.Config) -> ScoreLimits:
    """The limits and the proxy trust ``config`` read."""
    return ScoreLimits(
        config.score_limit, config.score_window_s, config.on_space, config.trusted_proxy_hops
    )


class ScoreLimiter:
    """A sliding-window count of scored submissions per client, in memory only.

    ``acquire`` checks and reserves a slot under one lock, so simultaneous uploads cannot
    slip past the limit; ``release`` gives the slot back when validation refused the file.
    """

    def __init__(self, limits: ScoreLimits, clock: Callable[[], float] = time.time) -> None:
        self.limits = limits
        self._clock = clock
        self._lock = threading.Lock()
        self._stamps: dict[str, collections.deque[float]] = {}

    def acquire(self, client: str) -> float:
        with self._lock:
            now = self._clock()
            stamps = self._stamps.setdefault(client, collections.deque())
            while stamps and stamps[0] <= now - self.limits.window_s:
                stamps.popleft()
            if len(stamps) >= self.limits.limit:
                frees = datetime.fromtimestamp(stamps[0] + self.limits.window_s, UTC)
                raise RateLimited(
                    f"Scoring is limited to {self.limits.limit} files per "
                    f"{_duration(self.limits.window_s)} per visitor, and this limit is reached. "
                    f"The next one frees at {frees:%Y-%m-%d %H:%M:%S} UTC."
                )
            stamps.append(now)
            if len(self._stamps) > 10_000:
                self._forget_idle(now)
            return now

    def release(self, client: str, stamp: float) -> None:
        with self._lock:
            stamps = self._stamps.get(client)
            if stamps is not None and stamp in stamps:
                stamps.remove(stamp)

    def _forget_idle(self, now: float) -> None:
        idle = [c for c, s in self._stamps.items() if not s or s[-1] <= now - self.limits.window_s]
        for client in idle:
            del self._stamps[client]


def _duration(seconds: float) -> str:
    """A window as the limit's message says it.

    >>> _duration(86400), _duration(3 * 86400), _duration(3600), _duration(90)
    ('day', '3 days', 'hour', '90 s')
    """
    if seconds % 86400 == 0:
        days = int(seconds // 86400)
        return "day" if days == 1 else f"{days} days"
    if seconds % 3600 == 0:
        hours = int(seconds // 3600)
        return "hour" if hours == 1 else f"{hours} hours"
    return f"{seconds:g} s"
