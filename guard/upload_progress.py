"""Gradio's upload progress, bounded: issue 22, finding 3.

While the page uploads a file it posts it to ``/gradio_api/upload?upload_id=<id>`` and reads
``GET /gradio_api/upload_progress?upload_id=<id>`` (an event stream of chunk sizes, then
"done"). Gradio 6.31's ``FileUploadProgress`` keeps an ``asyncio.Event`` in a defaultdict for
every id ever asked about, known or not, for good, and a tracker for every upload posted with
an id until a progress stream ends: 30,000 requests with 2 kB ids took a server from 177 to
292 MB, never given back, at ~230 requests/s from one client.

Here instead:

- ``BoundedProgress`` (``install`` puts it in place of Gradio's ``file_upload_statuses``) holds
  an Event only while a progress request waits for its upload to begin (at most
  ``MAX_WAITING`` at once; one more is answered Gradio's own 404 at once), and at most
  ``MAX_TRACKED`` trackers, each for ``TRACKED_FOR_S`` at most, the oldest dropped first
  (an upload still running is tracked again by its next chunk, as Gradio does).
- ``ProgressIds`` (ASGI middleware) refuses an ``upload_id`` that is not of the form the page
  makes (1-13 of ``0-9a-z``: ``Math.random().toString(36).substring(2, 15)`` in Gradio's
  Upload component) on both routes, and marks an upload the guards refused (any answer but
  200) done, so the page's progress stream ends with "done" at once instead of a 404 three
  seconds later in the browser's console.

The subclass is written against Gradio's source: ``check`` refuses any Gradio but the pinned
version, and a ``FileUploadProgress`` or progress route other than the ones read here.

>>> valid_id("k3j9x0a1b2c3d"), valid_id("x" * 14), valid_id("../etc"), valid_id("")
(True, False, False, False)
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import re
import textwrap
import time
from collections import deque
from collections.abc import Callable
from urllib.parse import parse_qs

import gradio
import gradio.routes
from gradio.route_utils import FileUploadProgress, FileUploadProgressTracker
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from errors import GradioMismatch
from guard.body import UPLOAD_ROUTE
from guard.sessions import PINNED_VERSION

__all__ = [
    "MAX_TRACKED",
    "MAX_WAITING",
    "PROGRESS_ROUTE",
    "TRACKED_FOR_S",
    "BoundedProgress",
    "ProgressIds",
    "check",
    "install",
    "valid_id",
]

PROGRESS_ROUTE = "/gradio_api/upload_progress"
MAX_WAITING = 256  # progress requests waiting for their upload to begin, at once
MAX_TRACKED = 512  # uploads whose progress is kept, at once
TRACKED_FOR_S = 300.0  # a tracker nobody reads goes after this long
_ID = re.compile(r"[0-9a-z]{1,13}")  # what Gradio's Upload component makes

#: sha256 (first 16 hex digits) of the dedented source of each member of FileUploadProgress
#: (the subclass replaces or relies on every one), and of the progress route in gradio.routes
#: (it waits for ``is_tracked`` and answers 404 on a TimeoutError).
PINNED: dict[str, str] = {
    "FileUploadProgress.__init__": "3dda00875e1a880a",
    "FileUploadProgress.track": "54afc46d6cf8ee28",
    "FileUploadProgress.is_tracked": "5de1a31732c961b5",
    "FileUploadProgress.append": "19309bbf9fd5b187",
    "FileUploadProgress.set_done": "e454442b2138afff",
    "FileUploadProgress.is_done": "acb508f9b030c514",
    "FileUploadProgress.stop_tracking": "db8cb434be61fd81",
    "FileUploadProgress.pop": "2ca3520b2c3c9cac",
    "routes.get_upload_progress": "8b944bf38089ff1a",
}


def valid_id(upload_id: str) -> bool:
    """An upload id of the form Gradio's page makes."""
    return _ID.fullmatch(upload_id) is not None


class BoundedProgress(FileUploadProgress):
    """Gradio's FileUploadProgress with its Events and trackers bounded (module docstring)."""

    def __init__(
        self,
        max_waiting: int = MAX_WAITING,
        max_tracked: int = MAX_TRACKED,
        tracked_for_s: float = TRACKED_FOR_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self._signals: dict[str, asyncio.Event] = {}  # type: ignore[assignment]
        self._waiters: dict[str, int] = {}
        self._since: dict[str, float] = {}  # when each tracker began, oldest first
        self.max_waiting, self.max_tracked = max_waiting, max_tracked
        self.tracked_for_s, self._clock = tracked_for_s, clock

    def track(self, upload_id: str) -> None:
        if upload_id in self._statuses:
            return
        self._make_room()
        self._statuses[upload_id] = FileUploadProgressTracker(deque(), False)
        self._since[upload_id] = self._clock()
        signal = self._signals.get(upload_id)
        if signal is not None:
            signal.set()

    async def is_tracked(self, upload_id: str) -> bool:
        if upload_id in self._statuses:
            return True
        if upload_id not in self._signals and len(self._signals) >= self.max_waiting:
            raise TimeoutError  # Gradio's route answers "Upload not found" (404) at once
        signal = self._signals.setdefault(upload_id, asyncio.Event())
        self._waiters[upload_id] = self._waiters.get(upload_id, 0) + 1
        try:
            return await signal.wait()
        finally:
            self._waiters[upload_id] -= 1
            if not self._waiters[upload_id]:
                del self._waiters[upload_id], self._signals[upload_id]

    def stop_tracking(self, upload_id: str) -> None:
        super().stop_tracking(upload_id)
        self._since.pop(upload_id, None)

    def _make_room(self) -> None:
        too_old = self._clock() - self.tracked_for_s
        while self._since:
            oldest, since = next(iter(self._since.items()))
            if since > too_old and len(self._since) < self.max_tracked:
                return
            self.stop_tracking(oldest)

    def sizes(self) -> dict[str, int]:
        """What it holds: trackers, Events and waiting requests (for tests and the bench)."""
        return {
            "tracked": len(self._statuses),
            "signals": len(self._signals),
            "waiting": sum(self._waiters.values()),
        }


class ProgressIds:
    """ASGI middleware on the upload and progress routes (module docstring): a malformed
    ``upload_id`` is a 400; an upload with an id that is answered anything but 200 (a guard
    refused it) is marked done in ``progress`` (Gradio's, by default)."""

    def __init__(self, app: ASGIApp, progress: FileUploadProgress | None = None) -> None:
        self.app = app
        self._progress = progress

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] not in (UPLOAD_ROUTE, PROGRESS_ROUTE):
            await self.app(scope, receive, send)
            return
        raw = scope.get("query_string", b"").decode("latin-1")
        ids = parse_qs(raw, keep_blank_values=True).get("upload_id")
        if ids is None:
            await self.app(scope, receive, send)
            return
        if len(ids) != 1 or not valid_id(ids[0]):
            shown = ids[0][:20] + ("…" if len(ids[0]) > 20 else "")
            response = PlainTextResponse(
                f"upload_id {shown!r}: an upload id is 1 to 13 lowercase letters and digits, "
                "as the page makes them.",
                status_code=400,
            )
            await response(scope, receive, send)
            return
        if scope["path"] == PROGRESS_ROUTE:
            await self.app(scope, receive, send)
            return
        status = 0

        async def watched(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            if status != 200:
                progress = self._progress or gradio.routes.file_upload_statuses
                progress.set_done(ids[0])


def _digest(source: str) -> str:
    return hashlib.sha256(textwrap.dedent(source).encode("utf-8")).hexdigest()[:16]


def _route_source(routes_source: str) -> str:
    """The text of Gradio's progress route, from its decorator to the next route's helper."""
    start = routes_source.find('@router.get("/upload_progress"')
    end = routes_source.find("def set_upload_trace", start)
    return routes_source[start:end] if start >= 0 and end >= 0 else ""


def _members(progress_class: type, routes_source: str) -> dict[str, str]:
    found = {}
    for qualified in PINNED:
        owner, name = qualified.split(".")
        if owner == "routes":
            text = _route_source(routes_source)
            if text:
                found[qualified] = _digest(text)
        elif name in vars(progress_class):
            found[qualified] = _digest(inspect.getsource(vars(progress_class)[name]))
    return found


def check(
    version: str | None = None,
    progress_class: type = FileUploadProgress,
    routes_source: str | None = None,
) -> None:
    """GradioMismatch unless Gradio (``version``, the installed one by default) is the pinned
    one, with the FileUploadProgress and progress route this patch was written for."""
    version = gradio.__version__ if version is None else version
    routes_source = inspect.getsource(gradio.routes) if routes_source is None else routes_source
    changes = [] if version == PINNED_VERSION else [f"the version is {version}"]
    members = _members(progress_class, routes_source)
    for qualified, pinned in PINNED.items():
        if qualified not in members:
            changes.append(f"{qualified} is gone")
        elif members[qualified] != pinned:
            changes.append(f"{qualified} changed")
    if changes:
        raise GradioMismatch(
            f"guard.upload_progress replaces gradio.routes.file_upload_statuses as Gradio "
            f"{PINNED_VERSION} wrote it, but the installed Gradio differs: "
            f"{'; '.join(changes)}. Read Gradio's FileUploadProgress (route_utils.py) and its "
            "upload_progress route (routes.py), then update guard/upload_progress.py and its "
            f"PINNED digests, or install gradio=={PINNED_VERSION} (requirements.txt)."
        )


def install() -> BoundedProgress:
    """Gradio's upload progress bounded from here on (GradioMismatch first if the installed
    Gradio is not the one this was written for); the one in place, if already installed."""
    current = gradio.routes.file_upload_statuses
    if isinstance(current, BoundedProgress):
        return current
    check()
    bounded = BoundedProgress()
    gradio.routes.file_upload_statuses = bounded
    return bounded
