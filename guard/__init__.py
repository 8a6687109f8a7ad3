"""What protects the Space from its visitors: a score limit per client, who a client is behind
the Space's proxy, bounded request bodies, and brief log lines for refused payloads.

Every event handler is reachable by anyone (hiding an event is not access control), so these
are the app's only defences besides the evaluator's own validation; none of them knows a
benchmark.
"""

from __future__ import annotations

import collections
import ipaddress
import itertools
import logging
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import gradio as gr
import gradio.queueing
import gradio.routes
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import ledger
from errors import RateLimited

MAX_FILE_SIZE = "5mb"


MAX_UPLOAD_BYTES = 5 * 1024 * 1024


# What a request may carry: every handler is reachable by anyone, with any input.
MAX_REQUEST_BYTES = 256 * 1024  # a body that is not an upload; an event's inputs are a few kB


UPLOAD_ROUTE = "/gradio_api/upload"


MAX_UPLOAD_BODY = MAX_UPLOAD_BYTES + 64 * 1024  # one file of MAX_FILE_SIZE and its framing


MAX_TRACEBACK_CHARS = 8000  # of an error of the app's own code, in the log


#: Addresses of no visitor, besides loopback, link-local, multicast, unspecified and reserved
#: ones: private (RFC 1918), shared (RFC 6598, carrier and cloud NAT) and unique local IPv6.
#: The documentation ranges (RFC 5737) stand for public addresses, as in the tests.
INTERNAL_NETWORKS = tuple(
    ipaddress.ip_network(net)
    for net in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7")
)


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
    if seconds % 86400 == 0:
        days = int(seconds // 86400)
        return "day" if days == 1 else f"{days} days"
    if seconds % 3600 == 0:
        hours = int(seconds // 3600)
        return "hour" if hours == 1 else f"{hours} hours"
    return f"{seconds:g} s"


Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def client_address(request: gr.Request | None, on_space: bool, trusted_hops: int = 0) -> str:
    """Who is scoring, as the limit counts them: an IPv4 address, or an IPv6 address's /64.

    Behind the Space proxy: the rightmost public address of all X-Forwarded-For lines in
    order, past ``trusted_hops`` more public ones. A client can write the entries to the left
    of those its proxies append, in the same line or a line of its own; internal hops and
    entries that are no address are skipped. Without such an entry, or off a Space: the peer
    address (on a Space an internal one, so such requests share one allowance).
    """
    if request is None:
        return "unknown"
    if on_space:
        entries = reversed(_forwarded_entries(request))
        public = (a for a in map(_hop_address, entries) if a is not None and _is_public(a))
        client = next(itertools.islice(public, trusted_hops, None), None)
        if client is not None:
            return _client_key(client)
    host = _peer_host(request)
    peer = _hop_address(host) if host else None
    return _client_key(peer) if peer is not None else host or "unknown"


def forwarded_summary(request: gr.Request) -> str:
    """How a request's X-Forwarded-For is laid out, for the log: counts and kinds, no address."""
    lines = _forwarded_lines(request)
    entries = _forwarded_entries(request)
    kinds = [_kind(_hop_address(e)) for e in entries]
    shown = ", ".join(kinds[-8:]) if len(kinds) <= 8 else "…, " + ", ".join(kinds[-8:])
    host = _peer_host(request)
    return (
        f"{len(lines)} X-Forwarded-For line{'s' if len(lines) != 1 else ''} with "
        f"{len(entries)} entr{'ies' if len(entries) != 1 else 'y'} ({shown or 'none'}), "
        f"peer address: {_kind(_hop_address(host) if host else None)}"
    )


def _forwarded_lines(request: gr.Request) -> list[str]:
    """Every X-Forwarded-For line in order (Starlette's ``headers.get`` gives the first only)."""
    raw = request.request  # the Starlette request, unless Gradio serialised it
    headers: Any = raw.headers if raw is not None else request.headers
    if hasattr(headers, "getlist"):
        return [str(line) for line in headers.getlist("x-forwarded-for")]
    line = headers.get("x-forwarded-for")  # serialised: one value per header name
    return [] if line is None else [str(line)]


def _forwarded_entries(request: gr.Request) -> list[str]:
    return [entry for line in _forwarded_lines(request) for entry in line.split(",")]


def _peer_host(request: gr.Request) -> str | None:
    client = request.client
    host = getattr(client, "host", None) if client is not None else None
    return str(host) if host else None


def _hop_address(entry: str) -> Address | None:
    """An X-Forwarded-For entry as an address (quotes, brackets and a port dropped); None if
    it is none."""
    text = entry.strip().strip('"')
    if text.startswith("["):
        text, bracket, _ = text[1:].partition("]")
        if not bracket:
            return None
    elif text.count(":") == 1:  # IPv4 with a port
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _is_public(address: Address) -> bool:
    return not (
        address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_unspecified
        or address.is_reserved
        or any(address in net for net in INTERNAL_NETWORKS)
    )


def _kind(address: Address | None) -> str:
    return "garbage" if address is None else "public" if _is_public(address) else "internal"


def _client_key(address: Address) -> str:
    """One IPv4 address, or one IPv6 /64 (what a single subscriber is usually given)."""
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((int(address), 64), strict=False))
    return str(address)


class BodyLimit:
    """ASGI middleware bounding every request body before the app reads any of it.

    An upload (``upload_path``) must declare its length, at most ``upload_limit``: one file of
    MAX_FILE_SIZE and its framing (Gradio itself bounds each file, not how many one request
    carries). It is then streamed on as Gradio reads it. Any other body is at most ``limit``:
    a larger Content-Length is refused at once, and a chunked body is read up to the limit
    and handed on whole.
    """

    def __init__(
        self,
        app: ASGIApp,
        limit: int = MAX_REQUEST_BYTES,
        upload_path: str = UPLOAD_ROUTE,
        upload_limit: int = MAX_UPLOAD_BODY,
    ) -> None:
        self.app = app
        self.limit = limit
        self.upload_path = upload_path
        self.upload_limit = upload_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if scope["path"] == self.upload_path:
            if declared is None:
                await _refuse(
                    scope, receive, send, 411, "An upload must declare its Content-Length."
                )
            elif declared > self.upload_limit:
                await _refuse(
                    scope,
                    receive,
                    send,
                    413,
                    f"An upload is one file of at most "
                    f"{MAX_FILE_SIZE}; this request declares {declared} bytes.",
                )
            else:
                await self.app(scope, receive, send)
            return
        if declared is not None and declared > self.limit:
            await self._too_large(scope, receive, send)
            return
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._too_large(scope, receive, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # e.g. the disconnect a streamed response waits for
            replayed = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        await self.app(scope, replay, send)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        await _refuse(
            scope,
            receive,
            send,
            413,
            f"The request body is too large: at most "
            f"{self.limit} bytes are accepted (files go to {self.upload_path}, one "
            f"of at most {MAX_FILE_SIZE} per request).",
        )


def _content_length(scope: Scope) -> int | None:
    """The declared body length; None if none is declared, a huge one if it is no number."""
    raw = dict(scope["headers"]).get(b"content-length")
    if raw is None:
        return None
    return int(raw) if raw.isdigit() and len(raw) <= 18 else 2**63


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, detail: str) -> None:
    # Connection: close, so the rest of a refused body is never read as the next request.
    response = JSONResponse({"detail": detail}, status_code=status, headers={"Connection": "close"})
    await response(scope, receive, send)


class RefusalLog:
    """Stands in for ``traceback`` in the Gradio modules that report failed requests.

    Gradio prints each event input it refuses before the handler runs (a bare string for a
    File, a path outside the upload folder, a value no choice has, too few inputs) with
    ``traceback.print_exc()``, straight to stderr: ~25 lines that echo the payload, 100 kB of
    log for a 100 kB "path". Here such a refusal is one short line without the payload. Any
    other failure, an error of the app's own code above all, keeps its traceback, each line
    and the whole cut short (MAX_TRACEBACK_CHARS).
    """

    def __init__(self, log: logging.Logger) -> None:
        self._log = log

    def __getattr__(self, name: str) -> Any:
        return getattr(traceback, name)

    def print_exc(self, limit: int | None = None, file: Any = None, chain: bool = True) -> None:
        exc = sys.exception()
        if exc is None:
            return
        frames = traceback.extract_tb(exc.__traceback__)
        refused = any(f.name == "preprocess_data" for f in frames) and not any(
            _own_code(f.filename) for f in frames
        )
        if refused:
            where = next(
                (
                    f"{Path(f.filename).stem}.{f.name}"
                    for f in reversed(frames)
                    if "gradio" in Path(f.filename).parts
                ),
                "gradio",
            )
            self._log.warning(
                "refused an event's input before its handler ran: %s in %s",
                type(exc).__name__,
                where,
            )
            return
        lines = [
            line if len(line) <= 300 else line[:300] + "…"
            for line in "".join(traceback.format_exception(exc)).splitlines()
        ]
        text = "\n".join(lines)
        if len(text) > MAX_TRACEBACK_CHARS:
            half = MAX_TRACEBACK_CHARS // 2
            text = f"{text[:half]}\n[… {len(text) - 2 * half} characters …]\n{text[-half:]}"
        self._log.error("an event failed:\n%s", text)


_APP_DIR = Path(__file__).resolve().parent.parent


def _own_code(filename: str) -> bool:
    """A file of this app (app.py, ledger, evaluator, ...), not of an installed package."""
    path = Path(filename)
    return path.is_relative_to(_APP_DIR) and not {"site-packages", "dist-packages"} & set(
        path.parts
    )


def log_refusals_briefly(log: logging.Logger) -> None:
    """Route Gradio's tracebacks of failed requests through RefusalLog into ``log``."""
    for module in (gradio.queueing, gradio.routes):
        vars(module)["traceback"] = RefusalLog(log)  # each calls traceback.print_exc()
