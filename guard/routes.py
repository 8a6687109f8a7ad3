"""Which routes may start an event, and how a request naming no event is answered: issue 22.

Gradio 6.31 runs an event by several routes. The queue's (``/queue/join``, the page's;
``/call/<api>`` and ``/call/v2/<api>``, gradio_client's and curl's) hold each event to its
concurrency limit and the queue to its size. The direct ones (``/run/<api>``, ``/api/<api>``)
call the handler at once, past both: eight concurrent ``/run/score`` calls took a visitor's
page load from 0.06 s to 3.7-7.1 s. Gradio refuses them itself for queued events, but only on a
Space (``Blocks.api_open`` is False when ``SYSTEM=spaces``); ``EventRoutes`` refuses them
everywhere, with a 404 that says to call ``/call/<api>``, and lets through only the events that
never queue (the page's instant ones, ``queue=False``), as Gradio on a Space does.

A request naming no event (an unknown API name or ``fn_index``, an event id or session the
queue does not hold) makes Gradio raise deep in a route: a 500 and a ~70-line traceback,
~5 kB of log per request. ``EventRoutes`` answers it 404 before Gradio sees it, with one line of
log; any other exception a route lets out is logged as guard.refusals words it (one line when
it rose in a package, a bounded traceback when in this app's code). ``/call/v2/<api>`` takes
the inputs by parameter name (``{"submission": ..., "track": "auto"}``); a body Gradio cannot
map onto the endpoint's parameters (a name it lacks, a required one missing) or naming an
event with no API page was a bare 500 (issue 30, finding 8): ``unmappable`` says what is wrong
first, 422 (404 for a private event).

>>> route_of("POST", "/gradio_api/run/score"), route_of("POST", "/gradio_api/call/v2/score")
(Route(family='direct', name='score', event_id=None), Route(family='call', name='score', \
event_id=None))
>>> route_of("GET", "/gradio_api/call/score/abc"), route_of("GET", "/gradio_api/info")
(Route(family='result', name='score', event_id='abc'), None)
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qs

from gradio_client.utils import construct_args
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from guard.refusals import failure_report

__all__ = ["API_PREFIX", "EventRoutes", "Refusal", "Route", "judge", "route_of", "unmappable"]

API_PREFIX = "/gradio_api"
_log = logging.getLogger(__name__)

_DIRECT = re.compile(rf"{API_PREFIX}/(?:run|api)/([^/]+)/?")
_CALL = re.compile(rf"{API_PREFIX}/call/(?:v2/)?([^/]+)/?")
_CALL_V2 = f"{API_PREFIX}/call/v2/"
_RESULT = re.compile(rf"{API_PREFIX}/call/(?:v2/)?([^/]+)/([^/]+)/?")
_JOIN = f"{API_PREFIX}/queue/join"
_DATA = f"{API_PREFIX}/queue/data"
_SHOWN = 60  # characters of a visitor's name or id echoed in an answer or the log

Family = Literal["direct", "call", "join", "result", "data"]


@dataclass(frozen=True)
class Route:
    """What a request asks of the events: run one directly, call or join the queue for one, or
    read an event's results (``result``: /call/<api>/<event_id>; ``data``: /queue/data)."""

    family: Family
    name: str | None = None
    event_id: str | None = None


@dataclass(frozen=True)
class Refusal:
    """The answer to a request that names no event or skips the queue, and why (logged)."""

    status: int
    detail: str
    reason: str


def route_of(method: str, path: str) -> Route | None:
    """The event route a request takes, None for any other."""
    if method == "POST":
        if path.rstrip("/") == _JOIN:
            return Route("join")
        if found := _DIRECT.fullmatch(path):
            return Route("direct", found[1])
        if found := _CALL.fullmatch(path):
            return Route("call", found[1])
    elif method == "GET":
        if path.rstrip("/") == _DATA:
            return Route("data")
        if found := _RESULT.fullmatch(path):
            return Route("result", found[1], found[2])
    return None


def _shown(value: object) -> str:
    text = str(value)
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "…")


def judge(
    route: Route,
    body: Mapping[str, Any],
    fns: Mapping[int, Any],
    sessions: Container[str],
    events: Mapping[str, Any],
) -> Refusal | None:
    """None if Gradio may take the request; else how to refuse it. Pure: ``fns`` are the
    events by fn_index (each with ``api_name`` and ``queue``), ``sessions`` the queue's
    sessions with messages pending, ``events`` the event ids it holds (to their session ids).

    A direct route may run only an event that never queues; a name or fn_index no event has,
    and a result or stream of a session the queue does not hold, are 404.

    >>> class Fn:
    ...     def __init__(self, name, queue=True): self.api_name, self.queue = name, queue
    >>> fns = {0: Fn("score"), 1: Fn(None, queue=False)}
    >>> judge(Route("direct", "score"), {}, fns, [], {}).detail  # doctest: +ELLIPSIS
    'Events run through the queue here: POST /gradio_api/call/score, then GET .../{event_id}...'
    >>> judge(Route("direct", "predict"), {"fn_index": 1}, fns, [], {}) is None
    True
    >>> judge(Route("join"), {"fn_index": 7, "session_hash": "s"}, fns, [], {}).reason
    'no event has fn_index 7'
    """
    if route.family == "data":
        session = str(body.get("session_hash", ""))
        if session in sessions:
            return None
        return _unheld(f"session {_shown(session)}")
    if route.family == "result":
        event_id = route.event_id or ""
        session = events.get(event_id, event_id)
        if session in sessions:
            return None
        return _unheld(f"event {_shown(event_id)}")
    fn_index = body.get("fn_index")
    if route.family == "join" and fn_index is None:
        return None  # Gradio answers 400 "No function index provided." itself
    if isinstance(fn_index, int) and not isinstance(fn_index, bool):
        fn = fns.get(fn_index)
        if fn is None:
            return Refusal(
                404,
                f"No event has fn_index {_shown(fn_index)[1:-1]}.",
                f"no event has fn_index {_shown(fn_index)[1:-1]}",
            )
    elif fn_index is not None:
        return None  # not an index: Gradio's own validation answers 422
    else:
        fn = next((f for f in fns.values() if f.api_name == route.name), None)
        if fn is None:
            name = _shown(route.name)
            return Refusal(
                404,
                f"No API endpoint is named {name}: /gradio_api/info lists them.",
                f"no endpoint is named {name}",
            )
    if route.family == "direct" and fn.queue:
        api = str(fn.api_name or route.name)
        return Refusal(
            404,
            f"Events run through the queue here: POST {API_PREFIX}/call/{api}, then GET "
            f"{API_PREFIX}/call/{api}/{{event_id}} for the result (gradio_client does both). "
            f"{API_PREFIX}/run/ and {API_PREFIX}/api/ skip the queue and are not served.",
            "a direct call of a queued event",
        )
    return None


def unmappable(endpoints: Mapping[str, Any], name: str, body: Mapping[str, Any]) -> Refusal | None:
    """How to refuse a ``/call/v2/<name>`` body that Gradio cannot map onto the endpoint's
    parameters (``endpoints`` are its API page's ``named_endpoints``); None if it can.

    >>> endpoints = {"/score": {"parameters": [
    ...     {"parameter_name": "submission", "parameter_has_default": False},
    ...     {"parameter_name": "track", "parameter_has_default": True,
    ...      "parameter_default": "auto"}]}}
    >>> unmappable(endpoints, "score", {"submission": {"path": "x"}}) is None
    True
    >>> print(unmappable(endpoints, "score", {"file": 1}).detail)  # doctest: +NORMALIZE_WHITESPACE
    /gradio_api/call/v2/score takes its inputs by name: submission, track (track optional);
    Parameter `file` is not a valid key-word argument.
    >>> unmappable(endpoints, "page_score", {}).status
    404
    """
    endpoint = endpoints.get(f"/{name}")
    if endpoint is None:
        shown = _shown(name)
        return Refusal(
            404,
            f"No API endpoint is named {shown}: /gradio_api/info lists them.",
            f"no API endpoint is named {shown}",
        )
    parameters = endpoint.get("parameters") or []
    given = {k: v for k, v in body.items() if k != "oauth_token"}  # Gradio's own, apart
    try:
        construct_args(parameters, (), given)
    except (TypeError, ValueError) as exc:
        why = str(exc).partition(" Please click on")[0]
        names = [str(p.get("parameter_name", "?")) for p in parameters]
        optional = [
            n for n, p in zip(names, parameters, strict=True) if p.get("parameter_has_default")
        ]
        shown = ", ".join(names) + (f" ({', '.join(optional)} optional)" if optional else "")
        return Refusal(
            422,
            f"{_CALL_V2}{name} takes its inputs by name: {shown}; {why}",
            f"a body that names no inputs of {_shown(name)}",
        )
    return None


def _unheld(what: str) -> Refusal:
    return Refusal(
        404,
        f"The queue holds no {what}: it ended, was never started, or its result was read.",
        f"the queue holds no {what}",
    )


class EventRoutes:
    """ASGI middleware in front of Gradio's event routes (see the module's docstring).

    It reads the request's body (bounded before it by guard.body's BodyLimit), judges it
    against the Gradio app's events (``scope["app"]``, set by Starlette) and either answers
    404 with a JSON ``detail`` and one line of log, or hands the request on with its body.
    Whatever the request, an exception a route lets out is logged as
    ``guard.refusals.failure_report`` words it and answered 500 if nothing was sent yet.
    """

    def __init__(self, app: ASGIApp, log: logging.Logger = _log) -> None:
        self.app = app
        self._log = log
        self._api: tuple[int, Mapping[str, Any]] | None = None  # (id of the Blocks, endpoints)

    def _endpoints(self, blocks: Any) -> Mapping[str, Any]:
        """The page's named API endpoints (its API page's), read once: they never change."""
        if self._api is None or self._api[0] != id(blocks):
            self._api = (id(blocks), blocks.get_api_info()["named_endpoints"])
        return self._api[1]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        route = route_of(scope["method"], scope["path"])
        blocks = _blocks(scope)
        if route is not None and blocks is not None:
            body: Mapping[str, Any]
            if route.family in ("direct", "call", "join"):
                raw, receive = await _buffered(receive)
                body = _json_object(raw)
            else:
                query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
                body = {k: v[0] for k, v in query.items()}
            queue = blocks._queue
            refusal = judge(
                route,
                body,
                _fns(blocks, body.get("session_hash")),
                queue.pending_messages_per_session,
                _events(queue) if route.family == "result" else {},
            )
            if refusal is None and scope["path"].startswith(_CALL_V2) and route.name:
                refusal = unmappable(self._endpoints(blocks), route.name, body)
            if refusal is not None:
                self._log.warning(
                    "refused %s %s: %s", scope["method"], _shown(scope["path"]), refusal.reason
                )
                response = JSONResponse({"detail": refusal.detail}, status_code=refusal.status)
                await response(scope, receive, send)
                return
        await self._guarded(scope, receive, send)

    async def _guarded(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            level, text = failure_report(exc)
            self._log.log(level, "%s %s failed: %s", scope["method"], scope["path"][:80], text)
            if not started:
                await JSONResponse({"detail": "The server failed on this request."}, 500)(
                    scope, receive, send
                )


def _blocks(scope: Scope) -> Any:
    app = scope.get("app")
    get_blocks = getattr(app, "get_blocks", None)
    return get_blocks() if get_blocks is not None else None


def _fns(blocks: Any, session_hash: object) -> Mapping[int, Any]:
    """The events as Gradio's route_utils.get_fn finds them: a known session's own, else the
    page's (a new session starts with the page's), without making a session for the look-up."""
    holder = blocks.state_holder
    if isinstance(session_hash, str) and session_hash in holder:
        fns: Mapping[int, Any] = holder.session_data[session_hash].blocks_config.fns
        return fns
    page_fns: Mapping[int, Any] = blocks.fns
    return page_fns


def _events(queue: Any) -> dict[str, str]:
    """The event ids the queue holds, to their session, as Gradio's /call result route finds
    them: a running or waiting event's, then one whose result is still to be delivered."""
    pending: Mapping[str, Iterable[str]] = queue.pending_event_ids_session
    found = {event_id: session for session, ids in pending.items() for event_id in ids}
    found.update({e: event.session_hash for e, event in queue.event_ids_to_events.items()})
    return found


async def _buffered(receive: Receive) -> tuple[bytes, Receive]:
    """The whole body (BodyLimit, in front, bounds it) and a ``receive`` that replays it."""
    chunks: list[bytes] = []
    more = True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    body = b"".join(chunks)
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if replayed:
            return await receive()
        replayed = True
        return {"type": "http.request", "body": body, "more_body": False}

    return body, replay


def _json_object(raw: bytes) -> Mapping[str, Any]:
    """The body's JSON object, or an empty one (Gradio's validation answers anything else)."""
    try:
        value = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return {}
    return value if isinstance(value, dict) else {}
