"""The Score tab's own path through HTTP, as the browser runs it after an upload.

The page does not call ``/score``: its private scoring event keeps the score server-side (a
``gr.State``) and returns the JSON and a refusal; a private render chained after it shows the
summary, table, chart, sha256, rank and listing link. Both run here through Gradio's queue
protocol, in one session (the state is the session's), found in ``/config`` by the elements
they write.

Example::

    shown = page_path(http, {"path": uploaded, "meta": {"_type": "gradio.FileData"}})
    shown.numbers["metrics"], shown.summary, shown.table["data"]
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from starlette.testclient import TestClient


@dataclass(frozen=True)
class Shown:
    """What the Score tab shows after one file: the JSON, the refusal, the rendered parts."""

    numbers: dict[str, Any] | None
    error: str  # the refusal under the upload, Markdown ("" when scored)
    rendered: dict[str, Any]  # elem_id -> the render's output for it

    @property
    def summary(self) -> str:
        value: str = self.rendered["score-summary"]
        return value

    @property
    def table(self) -> dict[str, Any]:
        value: dict[str, Any] = self.rendered["score-table"]["value"]
        return value

    @property
    def chart(self) -> dict[str, Any]:
        value: dict[str, Any] = self.rendered["score-chart"]["value"]
        return value

    def value(self, elem_id: str) -> Any:
        return self.rendered[elem_id].get("value")


def queue_event(http: TestClient, fn_index: int, data: list[Any], session: str) -> Any:
    joined = http.post(
        "/gradio_api/queue/join",
        json={
            "fn_index": fn_index,
            "data": data,
            "session_hash": session,
            "event_data": None,
            "trigger_id": None,
        },
    )
    assert joined.status_code == 200, joined.text
    result: Any = None
    with http.stream("GET", f"/gradio_api/queue/data?session_hash={session}") as events:
        for line in events.iter_lines():
            if not line.startswith("data:"):
                continue
            message = json.loads(line[5:])
            if message.get("msg") == "process_completed":
                assert message.get("success"), message
                result = message["output"]["data"]
            elif message.get("msg") == "close_stream":
                break
    assert result is not None, "the event stream ended without a result"
    return result


def page_path(
    http: TestClient, file_data: dict[str, Any] | None, track: str | None = None
) -> Shown:
    """One file through the page's scoring event and the render after it (``track``: the
    Score tab's track choice, on a several-track benchmark)."""
    config = http.get("/config").json()
    names = {c["id"]: c.get("props", {}).get("elem_id") for c in config["components"]}
    deps = config["dependencies"]
    scoring = next(
        d
        for d in deps
        if d["inputs"]
        and "score-json" in [names[o] for o in d["outputs"]]
        and d.get("trigger_after") is not None
    )
    render = next(d for d in deps if d.get("trigger_after") == scoring["id"])
    session = f"page-{uuid.uuid4().hex[:12]}"
    inputs = [file_data] if len(scoring["inputs"]) == 1 else [file_data, track]
    kept, numbers, error = queue_event(http, scoring["id"], inputs, session)
    del kept  # the state: kept server-side, never sent
    outputs = queue_event(http, render["id"], [None], session)
    rendered = dict(zip([names[o] for o in render["outputs"]], outputs, strict=True))
    return Shown(
        numbers, error.get("value", "") if isinstance(error, dict) else error or "", rendered
    )
