"""Gradio's routes that this app never uses and that write files or fetch for a visitor: closed,
each answered 404 before Gradio sees the request (issue 30, finding 3).

Read off Gradio 6.31's ``routes.py``, the routes a visitor can make the server keep something
by, or work for:

- ``GET /gradio_api/deep_link?session_hash=...`` writes ``deep_links/<hash>/state.json`` into
  the upload folder: every component of the session, a score kept server-side among them (its
  sha256 and metrics), on disk. Those files counted in the upload cache's budget but in no
  client's share: one address writing deep links of sessions it varied filled a 300-file
  cache, and every visitor's upload got 503. The page keeps its view in its own address
  (``?track=&q=...``), never in a deep link.
- ``POST /gradio_api/process_recording``, Gradio's screen recorder: each upload is parsed into
  a file of the system's temporary folder that is never deleted (outside the upload cache,
  swept by nothing), copied into Gradio's temporary folder and served back as a video.
- ``GET /gradio_api/file=<http(s) URL>`` (and ``/gradio_api/file/<URL>``): the server fetches
  any public URL for the caller and streams it back. The app serves its own files only.

Gradio's run history is off as well (``launch(run_history=False)``, in app.launch_kwargs): it
would record each call of ``/score`` (the file, the score) in the visitor's browser, or, with a
Hugging Face token the request brings, in a Hub bucket.

>>> closed("GET", "/gradio_api/deep_link"), closed("GET", "/gradio_api/file=https://x.org/a")
(True, True)
>>> closed("GET", "/gradio_api/file=/tmp/gradio/ab/board.csv"), closed("POST", "/config")
(False, False)
"""

from __future__ import annotations

import logging

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

_log = logging.getLogger(__name__)

#: Closed whatever they carry: (method, path), a trailing slash aside.
CLOSED = frozenset(
    {
        ("GET", "/gradio_api/deep_link"),
        ("POST", "/gradio_api/process_recording"),
    }
)
#: Gradio's file routes: closed when what they name is a URL (``is_http_url_like``).
FILE_ROUTES = ("/gradio_api/file=", "/gradio_api/file/")
_DETAIL = "Not found: this Space does not serve this route."


def closed(method: str, path: str) -> bool:
    """Whether a request (its method and URL-decoded path) asks for a closed route."""
    if (method, path.rstrip("/")) in CLOSED:
        return True
    if method in ("GET", "HEAD"):
        for prefix in FILE_ROUTES:
            if path.startswith(prefix):
                return path[len(prefix) :].lower().startswith(("http://", "https://"))
    return False


class ClosedRoutes:
    """ASGI middleware: a request for a closed route (``closed``) is answered 404 with a JSON
    ``detail`` and one line of log; any other passes untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and closed(scope["method"], scope["path"]):
            _log.warning("refused %s %s: a closed route", scope["method"], scope["path"][:60])
            await JSONResponse({"detail": _DETAIL}, status_code=404)(scope, receive, send)
            return
        await self.app(scope, receive, send)
