"""What a request may carry: ``BodyLimit`` bounds every request body before the app reads any
of it, one file of ``MAX_FILE_SIZE`` on the upload route, a few kB of event inputs elsewhere.

Every handler is reachable by anyone, with any input. A refused request is answered with a
JSON ``detail`` and ``Connection: close``:

>>> import asyncio
>>> async def app(scope: Scope, receive: Receive, send: Send) -> None:
...     raise AssertionError("never reached: the body is refused first")
>>> async def receive() -> Message:
...     return {"type": "http.request", "body": b"{}", "more_body": False}
>>> sent: list[Message] = []
>>> async def send(message: Message) -> None:
...     sent.append(message)
>>> scope = {"type": "http", "path": "/gradio_api/call/score",
...          "headers": [(b"content-length", b"300000")]}
>>> asyncio.run(BodyLimit(app)(scope, receive, send))
>>> sent[0]["status"], dict(sent[0]["headers"])[b"connection"]
(413, b'close')
>>> sent[1]["body"]  # doctest: +ELLIPSIS
b'{"detail":"The request body is too large: at most 262144 bytes are accepted (files go ...'
"""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ledger.submission_file import LIMIT_BYTES

MAX_UPLOAD_BYTES = LIMIT_BYTES  # a submission's bound (ledger.submission_file), in bytes
MAX_FILE_SIZE = f"{MAX_UPLOAD_BYTES // 2**20}mb"  # the same, as launch(max_file_size=) takes it
MAX_REQUEST_BYTES = 256 * 1024  # a body that is not an upload; an event's inputs are a few kB
UPLOAD_ROUTE = "/gradio_api/upload"
MAX_UPLOAD_BODY = MAX_UPLOAD_BYTES + 64 * 1024  # one file of MAX_FILE_SIZE and its framing


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
    """The declared body length; None if none is declared, a huge one if it is no number.

    >>> [_content_length({"headers": h}) for h in ([(b"content-length", b"12")], [])]
    [12, None]
    >>> _content_length({"headers": [(b"content-length", b"-1")]}) == 2**63
    True
    """
    raw = dict(scope["headers"]).get(b"content-length")
    if raw is None:
        return None
    return int(raw) if raw.isdigit() and len(raw) <= 18 else 2**63


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, detail: str) -> None:
    # Connection: close, so the rest of a refused body is never read as the next request.
    response = JSONResponse({"detail": detail}, status_code=status, headers={"Connection": "close"})
    await response(scope, receive, send)
