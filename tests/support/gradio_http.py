"""Plain HTTP against a running Gradio 6 app: upload, then call an event through the queue.

gradio_client spends ~80 ms of client CPU per call, too much to be the load itself; this is
one persistent ``httpx.Client`` per thread speaking the same queue protocol a browser uses.

Example::

    with GradioHTTP("http://127.0.0.1:7860") as http:
        path = http.upload("submission.json", data)
        outcome = http.call("score", [file_data(path)])
        outcome.kind, outcome.data          # "complete", [summary, table, chart, numbers]
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import httpx

DEFAULT_TIMEOUT_S = 60.0


class GradioProtocolError(RuntimeError):
    """The server answered outside Gradio's queue protocol (no event id, stream cut short)."""


@dataclass(frozen=True)
class Outcome:
    """How one event ended: ``complete`` with its outputs, or ``error`` with the error payload."""

    kind: str  # "complete" | "error"
    data: Any
    elapsed_s: float

    @property
    def ok(self) -> bool:
        """Whether the event completed."""
        return self.kind == "complete"

    @property
    def message(self) -> str:
        """The error text a visitor would see (empty for a completed event)."""
        if self.kind == "complete":
            return ""
        if isinstance(self.data, dict):
            return str(self.data.get("error") or self.data)
        return str(self.data)


def file_data(path: str, name: str = "submission.json") -> dict[str, Any]:
    """The FileData payload a gr.File input takes, for a path returned by ``upload``."""
    return {"path": path, "orig_name": name, "meta": {"_type": "gradio.FileData"}}


class GradioHTTP:
    """One keep-alive connection pool to one app; not thread-safe (one per thread)."""

    def __init__(
        self,
        base_url: str,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        local_address: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        """``local_address`` (e.g. "127.0.0.2") is the loopback address to send from: the app
        counts its score limit per client address, so each one is a fresh visitor. ``headers``
        go with every request (an X-Forwarded-For naming the visitor, behind a Space's proxy)."""
        self.base_url = base_url.rstrip("/")
        transport = httpx.HTTPTransport(local_address=local_address) if local_address else None
        self._http = httpx.Client(
            base_url=self.base_url, timeout=timeout_s, transport=transport, headers=headers
        )

    def __enter__(self) -> GradioHTTP:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def get(self, path: str) -> httpx.Response:
        return self._http.get(path)

    def upload_response(self, name: str, data: bytes) -> httpx.Response:
        """POST /gradio_api/upload as a browser does; the raw response (413 over the limit)."""
        return self._http.post("/gradio_api/upload", files={"files": (name, data)})

    def upload(self, name: str, data: bytes) -> str:
        """Upload one file; returns the server-side path to pass to an event."""
        response = self.upload_response(name, data)
        response.raise_for_status()
        paths = response.json()
        if not isinstance(paths, list) or len(paths) != 1:
            raise GradioProtocolError(f"upload answered {paths!r}; expected one path")
        return str(paths[0])

    def call(self, api_name: str, data: list[Any]) -> Outcome:
        """POST /gradio_api/call/<api_name>, then read its event stream to the end."""
        start = time.perf_counter()
        joined = self._http.post(f"/gradio_api/call/{api_name}", json={"data": data})
        joined.raise_for_status()
        event_id = joined.json().get("event_id")
        if not event_id:
            raise GradioProtocolError(f"/call/{api_name} gave no event id: {joined.text[:200]}")
        url = f"/gradio_api/call/{api_name}/{event_id}"
        with self._http.stream("GET", url) as stream:
            stream.raise_for_status()
            event = ""
            for line in stream.iter_lines():
                if line.startswith("event:"):
                    event = line.partition(":")[2].strip()
                elif line.startswith("data:") and event in ("complete", "error"):
                    payload = json.loads(line.partition(":")[2].strip() or "null")
                    return Outcome(event, payload, time.perf_counter() - start)
        raise GradioProtocolError(f"the event stream of {url} ended without a result")

    def run(self, api_name: str, data: list[Any]) -> Outcome:
        """POST /gradio_api/run/<api_name>: one request, past the queue (off on a Space)."""
        start = time.perf_counter()
        response = self._http.post(f"/gradio_api/run/{api_name}", json={"data": data})
        elapsed = time.perf_counter() - start
        body = response.json()
        if response.status_code == 200:
            return Outcome("complete", body.get("data"), elapsed)
        return Outcome("error", body, elapsed)

    def queue_call(self, fn_index: int, data: list[Any], session: str | None = None) -> Outcome:
        """Call any event by its index, as the browser does (hidden events included).

        ``session`` is the page's session hash: a browser tab keeps one for all its events;
        None makes a new one (a new visitor, as each /call request is)."""
        start = time.perf_counter()
        session = session or uuid.uuid4().hex
        joined = self._http.post(
            "/gradio_api/queue/join",
            json={
                "data": data,
                "fn_index": fn_index,
                "session_hash": session,
                "event_data": None,
                "trigger_id": None,
            },
        )
        joined.raise_for_status()
        with self._http.stream(
            "GET", "/gradio_api/queue/data", params={"session_hash": session}
        ) as stream:
            stream.raise_for_status()
            for line in stream.iter_lines():
                if not line.startswith("data:"):
                    continue
                message = json.loads(line.partition(":")[2])
                if message.get("msg") == "process_completed":
                    output = message.get("output") or {}
                    kind = "complete" if message.get("success") else "error"
                    payload = output.get("data") if kind == "complete" else output
                    return Outcome(kind, payload, time.perf_counter() - start)
        raise GradioProtocolError(f"the queue stream of fn_index {fn_index} ended early")

    def fn_index_of(self, api_name: str) -> int:
        """The index of the event with that api_name, as /config lists it."""
        config = self._http.get("/config").json()
        for index, dep in enumerate(config["dependencies"]):
            if dep.get("api_name") == api_name:
                return int(dep.get("id", index))
        raise LookupError(f"no event named {api_name!r}")

    def page_event(self, output_elem_id: str, trigger: str = "load") -> PageEvent:
        """The page event (e.g. the board's ``load``) that writes to ``#output_elem_id``."""
        config = self._http.get("/config").json()
        components = {c["id"]: c for c in config["components"]}
        for index, dep in enumerate(config["dependencies"]):
            if trigger not in [event for _, event in dep.get("targets", [])]:
                continue
            elem_ids = [
                components.get(out, {}).get("props", {}).get("elem_id")
                for out in dep.get("outputs", [])
            ]
            if output_elem_id in elem_ids:
                defaults = [
                    components.get(i, {}).get("props", {}).get("value")
                    for i in dep.get("inputs", [])
                ]
                return PageEvent(
                    int(dep.get("id", index)), defaults, elem_ids.index(output_elem_id)
                )
        raise LookupError(f"no {trigger} event writes to #{output_elem_id}")

    def page_output(self, event: PageEvent) -> Any:
        """Run a page event with its inputs at their defaults, as a fresh page load does; returns
        the value it gives the component it was looked up by."""
        outcome = self.queue_call(event.fn_index, event.defaults)
        if outcome.kind != "complete":
            raise GradioProtocolError(f"event {event.fn_index} failed: {outcome.message}")
        return outcome.data[event.position]


@dataclass(frozen=True)
class PageEvent:
    """An event of the page found in /config: its index, default inputs, one output's position."""

    fn_index: int
    defaults: list[Any]
    position: int
