"""Each client's share of the events: one client's flood cannot take the queue from everyone.

Every event of the page (the board's load, search, sort and filters, Score) and every API call
(``/leaderboard``, ``/score``) starts with one POST: ``/gradio_api/queue/join`` from the
browser, ``/gradio_api/call/<api>`` from gradio_client and curl, ``/gradio_api/run/<api>`` (or
its older name ``/gradio_api/api/<api>``) for an event outside the queue. Gradio bounds the queue
as a whole (guard.queue_limits: 256 waiting events), not per client, so 16 threads calling
``/call/leaderboard`` filled it: other visitors' events were refused with 503 and page loads
took 10-20 times as long. Here instead:

- ``EventPolicy`` (``event_policy``: as LEADERBOARD_EVENT_RATE and LEADERBOARD_EVENT_BURST
  say, read by ledger.config): each client may start ``rate_per_s`` events a second on
  average, in bursts of up to ``burst`` (a page load starts a handful, a typed search one per
  pause).
- ``EventBuckets``: a token bucket per client (guard.clients' address), in memory.
- ``EventShare``: ASGI middleware in front of those routes; a client past its share is
  answered 429 at once, before its body is read or an event is made, with a message saying
  when to try again (the browser shows it). The upload route (its own share, guard.uploads)
  passes untouched. The score limit (guard.limits) is counted apart, as before.
- A client's GETs are counted too (issue 30): a ``/config`` flood from one address took others'
  page loads from 0.05 to 0.3-0.55 s. A page load is ~110 GETs: the page (or its config), which
  costs what an event does (it renders the page's whole config, ~5 ms), and ~100 scripts,
  styles and fonts, ~1 ms each. So a GET of the page, its config or its API page
  (``PAGE_ROUTES``) takes a token of the client's events, as an event does (a page load then
  takes ~9 of the 60), and any other GET a token of a share of files of its own,
  ``FILES_PER_EVENT`` times the events' rate and burst (by default 150 a second and 1,500 at
  once: a dozen page loads at once, more than one a second on and on). No visitor's page is
  refused, and the variables that lift the events' share lift both. The streams of events
  already counted (results, the queue's data, the heartbeat) and the upload progress
  (guard.upload_progress, bounded apart) are not counted.

>>> now = [0.0]
>>> buckets = EventBuckets(EventPolicy(rate_per_s=2, burst=3), clock=lambda: now[0])
>>> [buckets.take("198.51.100.7") for _ in range(4)]  # the burst, then 0.5 s to wait
[0.0, 0.0, 0.0, 0.5]
>>> buckets.take("203.0.113.9")  # another client has a share of its own
0.0
>>> now[0] = 1.0  # two more events a second later
>>> [buckets.take("198.51.100.7") for _ in range(3)]
[0.0, 0.0, 0.5]
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from starlette.middleware import Middleware
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

import ledger
from guard.clients import ClientIdentity
from ledger import variables

RATE_PER_S = variables.EVENT_RATE.default  # events one client may start per second, on average
BURST = variables.EVENT_BURST.default  # and at once
MAX_CLIENTS = 10_000  # buckets kept before full ones (idle clients) are forgotten

#: The POST routes that start an event (Gradio 6.31's router, under its /gradio_api prefix).
EVENT_ROUTES = (
    "/gradio_api/queue/join",
    "/gradio_api/call/",
    "/gradio_api/run/",
    "/gradio_api/api/",
)
#: GETs counted as events: the page, its config and its API page, each the whole config.
PAGE_ROUTES = frozenset({"/", "/config", "/gradio_api/info", "/gradio_api/openapi.json"})
#: GETs not counted: streams of events counted when they started, the upload progress.
STREAM_ROUTES = (
    "/gradio_api/queue/data",
    "/gradio_api/heartbeat/",
    "/gradio_api/call/",
    "/gradio_api/upload_progress",
)
FILES_PER_EVENT = 25  # the files' share (its rate and burst), in the events'


@dataclass(frozen=True)
class EventPolicy:
    """How many events one client may start: ``rate_per_s`` on average, ``burst`` at once."""

    rate_per_s: float = RATE_PER_S
    burst: int = BURST


def event_policy(config: ledger.Config) -> EventPolicy:
    """The policy ``config`` read (LEADERBOARD_EVENT_RATE and LEADERBOARD_EVENT_BURST).

    >>> event_policy(ledger.load_config({"LEADERBOARD_EVENT_RATE": "2.5"}))
    EventPolicy(rate_per_s=2.5, burst=60)
    """
    return EventPolicy(config.event_rate, config.event_burst)


class EventBuckets:
    """A token bucket per client: ``burst`` tokens, refilled at ``rate_per_s``; an event takes
    one. Used on the event loop only (the middleware); a full bucket is an idle client's, and
    is forgotten once MAX_CLIENTS are kept."""

    def __init__(self, policy: EventPolicy, clock: Callable[[], float] = time.monotonic) -> None:
        self.policy = policy
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # client: (tokens, when counted)

    def take(self, client: str) -> float:
        """0.0 if ``client`` may start an event now (one token taken), else the seconds until
        it may."""
        now = self._clock()
        rate, burst = self.policy.rate_per_s, float(self.policy.burst)
        tokens, then = self._buckets.get(client, (burst, now))
        tokens = min(burst, tokens + (now - then) * rate)
        if tokens < 1.0:
            self._buckets[client] = (tokens, now)
            return (1.0 - tokens) / rate
        if client not in self._buckets and len(self._buckets) >= MAX_CLIENTS:
            self._forget_idle(now)
        self._buckets[client] = (tokens - 1.0, now)
        return 0.0

    def _forget_idle(self, now: float) -> None:
        rate, burst = self.policy.rate_per_s, self.policy.burst
        for client, (tokens, then) in list(self._buckets.items()):
            if tokens + (now - then) * rate >= burst:
                del self._buckets[client]


def share_of(method: str, path: str) -> str | None:
    """Which of its client's shares a request takes a token of: "events" (an event's POST, or
    a GET of the page), "files" (any other GET) or None (not counted).

    >>> share_of("GET", "/config"), share_of("GET", "/assets/index.js")
    ('events', 'files')
    >>> share_of("GET", "/gradio_api/queue/data"), share_of("POST", "/config")
    (None, None)
    """
    if method == "POST":
        return "events" if path.startswith(EVENT_ROUTES) else None
    if method not in ("GET", "HEAD") or path.startswith(STREAM_ROUTES):
        return None
    return "events" if (path.rstrip("/") or "/") in PAGE_ROUTES else "files"


class EventShare:
    """ASGI middleware: a POST that starts an event (``EVENT_ROUTES``) or a GET of the page is
    let through within its client's share of the events (``EventBuckets``), any other GET
    within its share of files (``share_of``), else answered 429 with ``detail`` and ``error``
    (what the browser shows of a refused queue join, and of a refused ``/run``),
    ``Retry-After`` and, for a POST, ``Connection: close`` (its body is never read)."""

    def __init__(
        self,
        app: ASGIApp,
        policy: EventPolicy | None = None,
        clients: ClientIdentity | None = None,
    ) -> None:
        self.app = app
        policy = policy or EventPolicy()
        self.buckets = EventBuckets(policy)
        self.files = EventBuckets(
            EventPolicy(policy.rate_per_s * FILES_PER_EVENT, policy.burst * FILES_PER_EVENT)
        )
        self.clients = clients or ClientIdentity()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        share = share_of(method, scope["path"])
        if share is None:
            await self.app(scope, receive, send)
            return
        buckets = self.buckets if share == "events" else self.files
        wait = buckets.take(self.clients.of_scope(scope))
        if not wait:
            await self.app(scope, receive, send)
            return
        policy = buckets.policy
        seconds = max(1, math.ceil(wait))
        what = "events and page loads" if share == "events" else "files"
        message = (
            f"Too many requests from your address: at most {policy.burst} {what} at once and "
            f"{policy.rate_per_s:g} a second on average. Try again in {seconds} s."
        )
        # An event's POST is answered before its body is read: the connection must close.
        # A GET has no body, and its client keeps the connection: a new one per refusal cost
        # the server more than the refusal.
        headers = {"Retry-After": str(seconds)}
        if method == "POST":
            headers["Connection"] = "close"
        response = JSONResponse({"detail": message, "error": message}, 429, headers)
        await response(scope, receive, send)


def event_share(policy: EventPolicy, clients: ClientIdentity | None = None) -> Middleware:
    """The middleware for ``launch(app_kwargs={"middleware": [...]})``: ``policy`` for each
    client, clients as ``clients`` says (off a Space: the peer)."""
    return Middleware(EventShare, policy=policy, clients=clients)
