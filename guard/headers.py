"""What every answer of the app says of itself: ``X-Content-Type-Options: nosniff`` (issue 30,
finding 8).

Gradio serves uploads back (``/gradio_api/file=<path>``: a file of another type as an
``application/octet-stream`` attachment) and the board's downloads, but no answer said
``nosniff``, so a browser was free to guess a served file's type from its bytes, and run what
it guessed to be a script or a page. Every answer says it now, the page's own among them (its
scripts and styles are served as ``application/javascript`` and ``text/css``, which nosniff
keeps working).

>>> import asyncio
>>> async def app(scope: Scope, receive: Receive, send: Send) -> None:
...     await send({"type": "http.response.start", "status": 200, "headers": []})
>>> sent: list[Message] = []
>>> async def send(message: Message) -> None:
...     sent.append(message)
>>> asyncio.run(NoSniff(app)({"type": "http"}, None, send))  # type: ignore[arg-type]
>>> sent[0]["headers"]
[(b'x-content-type-options', b'nosniff')]
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

NOSNIFF = (b"x-content-type-options", b"nosniff")


class NoSniff:
    """ASGI middleware: every HTTP answer carries ``X-Content-Type-Options: nosniff``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_nosniff(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0].lower() != NOSNIFF[0]]
                message = {**message, "headers": [*headers, NOSNIFF]}
            await send(message)

        await self.app(scope, receive, with_nosniff)
