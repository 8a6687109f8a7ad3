"""Gradio's upload cache, kept bounded: what the Score tab's promise ("nothing is stored") needs.

Gradio 6.31 alone leaves the cache open-ended: its scheduled cleanup (``delete_cache``) walks the
live set of uploads in a worker thread while uploads add to it, dies of "Set changed size during
iteration" under a burst and never runs again; one ``/gradio_api/upload`` request may carry
1,000 files; a request refused with 400 (a bad file name, a part under another field name)
leaves its files in the cache, untracked; an aborted or stalled upload leaves its partial file.
Here instead (what the cache may hold, its budget and its sweep are guard.upload_cache's):

- ``UploadGuard`` (ASGI middleware in front of the upload route) lets through one ``files``
  part with a file name per request (of any type: the handler that reads a file refuses the
  wrong one, in words every client shows), at most ``max_file_bytes`` of it, within
  the cache's budget of files and bytes and within its client's share of them (429 past it:
  one client cannot fill the cache for everyone); a stalled, trickling (under
  ``MIN_RATE_BPS`` once ``stall_s`` has passed) or cut-off upload is stopped. Every refusal
  is raised inside Gradio's multipart parser, which then deletes the files it had started.
- ``sweep`` deletes every file in the cache folder older than ``max_age_s``, tracked or not,
  but the app's own files (``APP_FILES``: the board's CSV/JSON downloads, which web.board
  writes there, so that Gradio serves them in place instead of copying each into the cache),
  and ``UploadCache.lifespan`` runs it every ``every_s`` for as long as the server runs. A
  pass walks the folder, never Gradio's live sets (it drops what it deleted from them back on
  the event loop, where uploads add to them); an error is logged and the next pass runs
  anyway.

The cache folder must be the app's alone: ``private_upload_folder`` makes one when
``GRADIO_TEMP_DIR`` is not set (Gradio's default, ``<tmp>/gradio``, is shared by every Gradio
app of the user).

Example::

    policy = uploads.cache_policy(ledger.load_config(), max_file_bytes=5 * 2**20)
    cache = uploads.UploadCache(policy)
    demo.launch(app_kwargs={"middleware": [cache.middleware()], "lifespan": cache.lifespan})

A request the guard refuses before its body is read is answered at once:

>>> async def gradio(scope: Scope, receive: Receive, send: Send) -> None:
...     raise AssertionError("never reached: the guard answers first")
>>> async def receive() -> Message:
...     return {"type": "http.request", "body": b"", "more_body": False}
>>> sent: list[Message] = []
>>> async def send(message: Message) -> None:
...     sent.append(message)
>>> upload_guard = UploadGuard(gradio, UploadCache(CachePolicy()))
>>> scope = {"type": "http", "path": UPLOAD_ROUTE, "method": "GET", "headers": []}
>>> asyncio.run(upload_guard(scope, receive, send))
>>> sent[0]["status"], sent[1]["body"]
(400, b'Upload a file as multipart/form-data.')
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import shutil
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from anyio import to_thread
from gradio_client.utils import strip_invalid_filename_characters
from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.formparsers import MultiPartException
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from guard.body import UPLOAD_ROUTE
from guard.clients import ClientIdentity
from guard.upload_cache import (
    APP_FILES,
    MIN_RATE_BPS,
    CacheBudget,
    CachePolicy,
    ClientShares,
    Sweep,
    cache_policy,
    private_upload_folder,
    sweep,
)

__all__ = [
    "FIELD",
    "UPLOAD_S",
    "CachePolicy",
    "Refused",
    "UploadCache",
    "UploadGuard",
    "cache_policy",
    "private_upload_folder",
]

FIELD = "files"  # the multipart field Gradio's upload route reads (the browser and gradio_client)
UPLOAD_S = 300.0  # an upload that takes longer than this is dropped (5 MB at ~17 kB/s)

_log = logging.getLogger(__name__)


# --- the cache of one server: the guard in front, the cleanup behind ---------------------------


class UploadCache:
    """One server's upload cache: its policy, its budget and each client's share of it, the
    guard and the cleanup."""

    def __init__(self, policy: CachePolicy) -> None:
        self.policy = policy
        self.budget = CacheBudget(policy.max_files, policy.max_bytes)
        whole = policy.client_files >= policy.max_files and policy.client_bytes >= policy.max_bytes
        # A share of the whole cache is no share: the budget alone binds (a share's count errs
        # higher than the sweep's, so it would refuse first, with 429 for a full cache).
        files, size = (
            (sys.maxsize, sys.maxsize) if whole else (policy.client_files, policy.client_bytes)
        )
        self.shares = ClientShares(files, size, policy.max_age_s)
        self.passes = 0  # passes completed, failed ones included

    def middleware(self, clients: ClientIdentity | None = None) -> Middleware:
        """The guard, counting shares per client as ``clients`` says (off a Space: the peer)."""
        return Middleware(UploadGuard, cache=self, clients=clients or ClientIdentity())

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Any) -> AsyncIterator[None]:
        """For ``launch(app_kwargs={"lifespan": ...})``: the cleanup runs while the server does;
        on shutdown a last pass deletes everything (Gradio's ``delete_cache`` did too)."""
        task = asyncio.create_task(self.run(app), name="upload-cache-cleanup")
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await self.clean(app, max_age_s=-1.0, app_files=True)  # every file is older

    async def run(self, app: Any) -> None:
        """Forever: a pass every ``every_s``. Nothing but cancellation ends it."""
        while True:
            await asyncio.sleep(self.policy.every_s)
            await self.clean(app)

    async def clean(
        self, app: Any, max_age_s: float | None = None, app_files: bool = False
    ) -> Sweep:
        """One pass over ``app``'s upload folder; errors are logged, never raised. The app's
        own files are left, unless ``app_files`` (the last pass): then they go too."""
        age = self.policy.max_age_s if max_age_s is None else max_age_s
        try:
            blocks = app.get_blocks()
            keep = frozenset(
                path
                for block in list(blocks.blocks.values())
                for path in getattr(block, "keep_in_cache", ())
            )
            root = Path(app.uploaded_file_dir)
            own = [p for t in blocks.temp_file_sets for p in list(t) if _under(p, root)]
            mark = self.budget.mark()
            now = time.time()
            result = await to_thread.run_sync(sweep, root, age, now, keep)
            gone = await to_thread.run_sync(_gone, root, own, app_files)
            # Back on the event loop, where uploads add to these sets: no race with them.
            for tracked in blocks.temp_file_sets:
                tracked.difference_update(result.removed)
                tracked.difference_update(gone)  # downloads web.board replaced
            self.budget.recount(result.kept_files, result.kept_bytes, mark)
            self.shares.swept(now)
            if result.errors:
                _log.warning(
                    "upload cache cleanup: %d entries could not be deleted (first: %s)",
                    len(result.errors),
                    result.errors[0],
                )
        except Exception:  # the cleanup must outlive any one failure
            _log.exception(
                "upload cache cleanup pass failed; the next runs in %g s", self.policy.every_s
            )
            result = Sweep(errors=("the pass failed",))
        self.passes += 1
        return result


def _under(path: str, root: Path) -> bool:
    return path.startswith(os.path.join(root, APP_FILES, ""))


def _gone(root: Path, own: list[str], remove: bool) -> set[str]:
    """Which of the app's own files Gradio tracks are gone (their writer bounds them, and
    replaced these); all of them, deleted, when ``remove``."""
    if remove:
        shutil.rmtree(root / APP_FILES, ignore_errors=True)
    return {path for path in own if not os.path.lexists(path)}


# --- the guard ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Refused:
    """Why the guard stops an upload: the HTTP status and what to tell the client."""

    status: int
    message: str
    retry_after_s: float | None = None


@dataclass
class _Parts:
    """The parts of one multipart body as it streams past: their names, not their data."""

    policy: CachePolicy
    files: int = 0
    _headers: list[tuple[bytes, bytes]] = field(default_factory=list)
    _name: bytes = b""
    _value: bytes = b""
    refusal: Refused | None = None

    def callbacks(self) -> dict[str, Any]:
        def on_header_field(data: bytes, start: int, end: int) -> None:
            self._name += data[start:end]

        def on_header_value(data: bytes, start: int, end: int) -> None:
            self._value += data[start:end]

        def on_header_end() -> None:
            self._headers.append((self._name.lower(), self._value))
            self._name = self._value = b""

        def on_part_begin() -> None:
            self._headers = []

        return {
            "on_header_field": on_header_field,
            "on_header_value": on_header_value,
            "on_header_end": on_header_end,
            "on_part_begin": on_part_begin,
            "on_headers_finished": self._part_starts,
        }

    def _part_starts(self) -> None:
        if self.refusal is not None:
            return
        disposition = dict(self._headers).get(b"content-disposition", b"")
        _, options = parse_options_header(disposition)
        name = options.get(b"name", b"").decode("latin-1")
        if b"filename" not in options or name != FIELD:
            self.refusal = Refused(
                400,
                f"An upload carries files in the {FIELD!r} field only; "
                f"this one has a part named {name[:40]!r}.",
            )
            return
        self.files += 1
        if self.files > 1:
            self.refusal = Refused(400, "Upload one file per request; this request carries more.")
            return
        # Any type of file, within the same bounds: gradio_client shows nothing of a refusal
        # here (it raises a bare HTTPStatusError), so the type is refused by the handler that
        # reads the file, in the words the page gives (web.score_handlers, issue 21).
        filename = options[b"filename"].decode("utf-8", "replace")
        base = Path(filename).name  # Gradio stores an empty one under a made-up name
        if {base.strip(), strip_invalid_filename_characters(base)} & {"", ".", ".."}:
            self.refusal = Refused(400, f"Upload a file with a name; got {filename[:60]!r}.")


class UploadGuard:
    """ASGI middleware: Gradio's upload route takes one named file per request, within the
    cache's budget and its client's share of it, sent without long pauses and not slower than
    ``MIN_RATE_BPS``; other routes pass untouched.

    A request refused before its body is read (not multipart, a declared length over the
    limit, a client over its share, a full cache) is answered here. A refusal while the body
    streams is raised inside Gradio's multipart parser (a ``MultiPartException``, as its own
    refusals are), which then deletes the files it started; the status of Gradio's answer is
    replaced by the refusal's.
    Every refusal is answered with ``Connection: close``: the rest of its body is never read.
    """

    def __init__(
        self,
        app: ASGIApp,
        cache: UploadCache,
        clients: ClientIdentity | None = None,
        path: str = UPLOAD_ROUTE,
    ) -> None:
        self.app = app
        self.cache = cache
        self.clients = clients or ClientIdentity()
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != self.path:
            await self.app(scope, receive, send)
            return
        policy, budget, shares = self.cache.policy, self.cache.budget, self.cache.shares
        headers = {k.lower(): v for k, v in scope["headers"]}
        kind, options = parse_options_header(headers.get(b"content-type", b""))
        declared = headers.get(b"content-length", b"0")
        if (
            scope["method"] != "POST"
            or kind != b"multipart/form-data"
            or b"boundary" not in options
        ):
            refusal = Refused(400, "Upload a file as multipart/form-data.")
        elif not declared.isdigit() or len(declared) > 15 or int(declared) > policy.max_body_bytes:
            refusal = _too_large(policy)
        elif not shares.reserve(client := self.clients.of_scope(scope), int(declared)):
            refusal = _over_share(policy, shares, client)  # before the cache: its own doing
        elif not budget.reserve_file():
            shares.settle(client, 1, int(declared), stored=False, now=time.time())
            refusal = _full(policy)
        elif not budget.reserve_bytes(int(declared)):  # reserved at once: said before the body
            budget.settle(1, 0, stored=False)
            shares.settle(client, 1, int(declared), stored=False, now=time.time())
            refusal = _full(policy)
        else:
            upload = _Upload(self.cache, client, options[b"boundary"], int(declared), receive, send)
            try:
                await self.app(scope, upload.receive, upload.send)
            except MultiPartException:  # raised past Gradio's parser: answered here
                if upload.refusal is None or upload.status:
                    raise
                await _answer(upload.refusal, scope, receive, send)
            finally:
                budget.settle(1, upload.reserved, stored=upload.stored)
                shares.settle(client, 1, upload.reserved, upload.stored, time.time())
            return
        await _answer(refusal, scope, receive, send)


class _Upload:
    """One upload request as it streams to Gradio: checked chunk by chunk, answered as it was
    refused."""

    def __init__(
        self,
        cache: UploadCache,
        client: str,
        boundary: bytes,
        reserved: int,
        receive: Receive,
        send: Send,
    ) -> None:
        self.policy = policy = cache.policy
        self.budget = cache.budget
        self.shares = cache.shares
        self.client = client
        self.reserved = reserved  # bytes of the budget (and of the client's share) it holds
        self.received = 0
        self.refusal: Refused | None = None
        self.status = 0  # of the answer, once it starts
        self._parts = _Parts(policy)
        self._parser = MultipartParser(boundary, self._parts.callbacks())  # type: ignore[arg-type]
        self._started = time.monotonic()
        self._deadline = self._started + UPLOAD_S
        self._body_done = False
        self._receive = receive
        self._send = send

    @property
    def stored(self) -> bool:
        return self.status == 200 and self.refusal is None

    async def receive(self) -> Message:
        if self._body_done or self.refusal is not None:
            return await self._receive()
        now = time.monotonic()
        # A trickle (a large declared length, a few bytes now and then) holds its reservation
        # no longer than it keeps to the minimum rate, once it has had stall_s to start.
        slow_at = self._started + self.policy.stall_s + self.received / MIN_RATE_BPS
        if now >= slow_at:
            self._refuse(_too_slow())
        wait = max(0.001, min(self.policy.stall_s, self._deadline - now, slow_at - now))
        try:
            message = await asyncio.wait_for(self._receive(), wait)
        except TimeoutError:
            if time.monotonic() >= slow_at and wait < self.policy.stall_s:
                self._refuse(_too_slow())
            self._refuse(
                Refused(
                    408,
                    f"The upload paused for {self.policy.stall_s:g} s or "
                    f"took over {UPLOAD_S:g} s and was dropped; send it again.",
                )
            )
        if message["type"] != "http.request":  # the client went away mid-body
            self._refuse(Refused(400, "The upload was cut off before its end."))
        chunk: bytes = message.get("body", b"")
        self.received += len(chunk)
        beyond = self.received - self.reserved  # a body of undeclared length reserves as it comes
        if self.received > self.policy.max_body_bytes:
            self._refuse(_too_large(self.policy))
        if beyond > 0:
            if not self.shares.grow(self.client, beyond):
                self._refuse(_over_share(self.policy, self.shares, self.client))
            if not self.budget.reserve_bytes(beyond):
                self.shares.grow(self.client, -beyond)
                self._refuse(_full(self.policy))
            self.reserved += beyond
        try:
            self._parser.write(chunk)  # before Gradio sees the chunk: a refused part never starts
        except MultipartParseError:
            self._parts.refusal = self._parts.refusal or Refused(
                400, "The upload is not a well-formed multipart body."
            )
        if self._parts.refusal is not None:
            self._refuse(self._parts.refusal)
        self._body_done = not message.get("more_body", False)
        return message

    def _refuse(self, refusal: Refused) -> NoReturn:
        self.refusal = refusal
        raise MultiPartException(refusal.message)

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            extra = [(b"connection", b"close")] if self.status != 200 else []
            if self.refusal is not None:  # Gradio answers 400 or 413: say what happened
                self.status = self.refusal.status
                extra = _refusal_headers(self.refusal)
            message = {
                **message,
                "status": self.status,
                "headers": [*message.get("headers", []), *extra],
            }
        await self._send(message)


def _too_large(policy: CachePolicy) -> Refused:
    return Refused(
        413, f"The upload is over the maximum allowed size of {policy.max_file_bytes / 2**20:g} MB."
    )


def _too_slow() -> Refused:
    return Refused(
        408,
        f"The upload arrived at under {MIN_RATE_BPS // 1024} kB/s and was dropped; "
        "send it again over a faster connection.",
    )


def _over_share(policy: CachePolicy, shares: ClientShares, client: str) -> Refused:
    """A client at its share: it waits for its oldest upload to be deleted (or for its uploads
    in flight to end)."""
    files, held = shares.holding(client)
    oldest = shares.oldest_stored(client)
    if oldest is None:
        wait = policy.stall_s
    else:
        wait = max(1.0, oldest + policy.max_age_s + policy.every_s - time.time())
    return Refused(
        429,
        f"You hold {files} uploads ({held / 2**20:.1f} MB) of the upload cache, the most one "
        f"visitor may hold at once ({policy.client_files} files or "
        f"{policy.client_bytes / 2**20:.1f} MB of the last {policy.max_age_s:g} s); "
        f"try again in {math.ceil(wait)} s.",
        retry_after_s=wait,
    )


def _full(policy: CachePolicy) -> Refused:
    return Refused(
        503,
        f"The upload cache is full ({policy.max_files:,} files or "
        f"{policy.max_bytes / 2**20:,.0f} MB of the last {policy.max_age_s:g} s); "
        f"try again in a minute.",
        retry_after_s=policy.every_s,
    )


def _refusal_headers(refusal: Refused) -> list[tuple[bytes, bytes]]:
    headers = [(b"connection", b"close")]
    if refusal.retry_after_s is not None:
        headers.append((b"retry-after", str(math.ceil(refusal.retry_after_s)).encode()))
    return headers


async def _answer(refusal: Refused, scope: Scope, receive: Receive, send: Send) -> None:
    extra = {k.decode(): v.decode() for k, v in _refusal_headers(refusal)}
    await PlainTextResponse(refusal.message, status_code=refusal.status, headers=extra)(
        scope, receive, send
    )
