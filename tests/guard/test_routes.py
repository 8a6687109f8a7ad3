"""Events start only through the queue; a request naming no event is a 404 and one log line
(guard/routes.py): issue 22, findings 1 (the /run part) and 7.

In process: ``judge`` on each kind of route, and ``EventRoutes`` in front of the page (a
TestClient). Over HTTP: more concurrent ``/run/score`` calls than Score's concurrency limit
never run the score more than that limit at once (a counter in the handler), gradio_client and
``/call`` still score, and hostile requests naming no event log a line each, not a traceback.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import gradio as gr
import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.middleware import Middleware

import app
import ledger
from guard.routes import EventRoutes, Route, judge, route_of
from tests.support.app_server import AppServer
from tests.support.gradio_http import GradioHTTP, file_data

SAMPLE = ledger.load_config({}).benchmark.demo_dir / "sample_submission.json"
LOG_LINE_BYTES = 300  # one line of log per hostile request: its time, level, route and reason

pytestmark = pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")


class Fn:
    def __init__(self, api_name: str | None, queue: bool = True) -> None:
        self.api_name, self.queue = api_name, queue


FNS = {0: Fn("score"), 1: Fn("leaderboard"), 2: Fn(None, queue=False)}


# --- judge, pure ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "route"),
    [
        ("POST", "/gradio_api/run/score", Route("direct", "score")),
        ("POST", "/gradio_api/run/score/", Route("direct", "score")),
        ("POST", "/gradio_api/api/score", Route("direct", "score")),
        ("POST", "/gradio_api/call/score", Route("call", "score")),
        ("POST", "/gradio_api/call/v2/score", Route("call", "score")),
        ("POST", "/gradio_api/queue/join", Route("join")),
        ("GET", "/gradio_api/queue/data", Route("data")),
        ("GET", "/gradio_api/call/score/e1", Route("result", "score", "e1")),
        ("GET", "/gradio_api/call/v2/score/e1", Route("result", "score", "e1")),
        ("GET", "/gradio_api/run/score", None),
        ("POST", "/gradio_api/upload", None),
        ("GET", "/gradio_api/info", None),
    ],
)
def test_route_of_names_every_route_that_starts_or_reads_an_event(
    method: str, path: str, route: Route | None
) -> None:
    assert route_of(method, path) == route


@pytest.mark.parametrize("name", ["score", "leaderboard"])
def test_a_direct_call_of_a_queued_event_is_refused_pointing_to_call(name: str) -> None:
    refusal = judge(Route("direct", name), {"data": []}, FNS, [], {})
    assert refusal is not None and refusal.status == 404
    assert f"POST /gradio_api/call/{name}, then GET /gradio_api/call/{name}/" in refusal.detail
    # by its fn_index too, as the page's client names an event
    assert judge(Route("direct", "predict"), {"fn_index": 0}, FNS, [], {}) is not None


def test_a_direct_call_of_an_event_that_never_queues_goes_on() -> None:
    """The page's instant events (queue=False) run by /run/predict, as on a Space."""
    assert judge(Route("direct", "predict"), {"fn_index": 2}, FNS, [], {}) is None


def test_the_queue_s_routes_go_on_for_a_known_event() -> None:
    assert judge(Route("call", "score"), {"data": []}, FNS, [], {}) is None
    assert judge(Route("join"), {"fn_index": 0, "session_hash": "s"}, FNS, [], {}) is None
    assert judge(Route("join"), {"session_hash": "s"}, FNS, [], {}) is None  # Gradio's 400
    assert judge(Route("join"), {"fn_index": "0"}, FNS, [], {}) is None  # Gradio's 422
    assert judge(Route("result", "score", "e1"), {}, FNS, ["s1"], {"e1": "s1"}) is None
    assert judge(Route("data"), {"session_hash": "s1"}, FNS, ["s1"], {}) is None


@pytest.mark.parametrize(
    ("route", "body", "words"),
    [
        (Route("direct", "nope"), {}, "No API endpoint is named 'nope'"),
        (Route("call", "nope"), {}, "No API endpoint is named 'nope'"),
        (Route("join"), {"fn_index": 99, "session_hash": "s"}, "No event has fn_index 99"),
        (Route("join"), {"fn_index": -1, "session_hash": "s"}, "No event has fn_index -1"),
        (Route("direct", "predict"), {"fn_index": 99}, "No event has fn_index 99"),
        (Route("result", "score", "e9"), {}, "The queue holds no event 'e9'"),
        (Route("data"), {"session_hash": "s9"}, "The queue holds no session 's9'"),
    ],
)
def test_a_request_naming_no_event_is_a_404_that_says_so(
    route: Route, body: dict[str, Any], words: str
) -> None:
    refusal = judge(route, body, FNS, ["s1"], {"e1": "s1"})
    assert refusal is not None and refusal.status == 404
    assert words in refusal.detail


def test_a_long_name_is_cut_short_in_the_answer_and_the_log() -> None:
    refusal = judge(Route("call", "x" * 5000), {}, FNS, [], {})
    assert refusal is not None
    assert len(refusal.detail) < 200 and len(refusal.reason) < 120


# --- EventRoutes in front of the page, in process -----------------------------------------------


@pytest.fixture(scope="module")
def guarded() -> Iterator[TestClient]:
    """The page mounted with EventRoutes as launch_kwargs installs it."""
    demo = app.build_from_config(ledger.load_config({}))
    mounted = gr.mount_gradio_app(
        FastAPI(), demo, path="/", app_kwargs={"middleware": [Middleware(EventRoutes)]}
    )
    with TestClient(mounted) as http:
        yield http


def test_run_score_in_process_is_refused_and_call_score_scores(
    guarded: TestClient,
) -> None:
    path = guarded.post(
        "/gradio_api/upload", files={"files": ("s.json", SAMPLE.read_bytes())}
    ).json()[0]
    payload = {"data": [{"path": path, "meta": {"_type": "gradio.FileData"}}]}
    refused = guarded.post("/gradio_api/run/score", json=payload)
    assert refused.status_code == 404
    assert "/gradio_api/call/score" in refused.json()["detail"]
    joined = guarded.post("/gradio_api/call/score", json=payload)
    assert joined.status_code == 200, joined.text
    result = guarded.get(f"/gradio_api/call/score/{joined.json()['event_id']}").text
    assert "event: complete" in result and '"overall"' in result


def test_each_hostile_request_in_process_logs_one_short_line(
    guarded: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    hostile = [
        ("POST", "/gradio_api/run/" + "n" * 2000, {"data": []}),
        ("POST", "/gradio_api/call/nope", {"data": []}),
        ("POST", "/gradio_api/queue/join", {"data": [], "fn_index": 9999, "session_hash": "a"}),
        ("GET", "/gradio_api/call/score/not-an-event", None),
        ("GET", "/gradio_api/queue/data?session_hash=nobody", None),
    ]
    for method, path, body in hostile:
        caplog.clear()
        answer = guarded.request(method, path, json=body)
        assert answer.status_code == 404, (path[:40], answer.text[:200])
        records = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(records) == 1, [r.getMessage()[:200] for r in records]
        assert len(records[0].getMessage()) < LOG_LINE_BYTES


@pytest.mark.parametrize(
    ("raised_in", "level", "traceback_kept"),
    [("package", logging.WARNING, False), ("app", logging.ERROR, True)],
)
def test_an_exception_a_route_lets_out_is_a_500_and_logged_as_refusals_words_it(
    raised_in: str, level: int, traceback_kept: bool
) -> None:
    """What no check foresees: a route that raises is answered 500; the log has one line when
    the error rose in a package's code (here json's), a bounded traceback when in this app's
    own (a test module is the app's code)."""
    log = logging.getLogger(f"test.routes.{raised_in}")
    broken = FastAPI(middleware=[Middleware(EventRoutes, log=log)])  # as Gradio's App has it

    @broken.get("/boom")
    def boom() -> None:
        if raised_in == "package":
            json.loads("{")
        raise KeyError("gone")

    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    log.addHandler(Keep())
    with TestClient(broken, raise_server_exceptions=False) as http:
        answer = http.get("/boom")
    assert answer.status_code == 500
    assert answer.json() == {"detail": "The server failed on this request."}
    [record] = records
    assert record.levelno == level
    assert ("Traceback" in record.getMessage()) is traceback_kept
    if not traceback_kept:
        assert record.getMessage().count("\n") == 0 and "JSONDecodeError" in record.getMessage()


# --- over HTTP ------------------------------------------------------------------------------------


def _count_running(
    demo: gr.Blocks, api_name: str, monkeypatch: pytest.MonkeyPatch
) -> dict[str, int]:
    """Wrap the handler of ``api_name`` so it counts how many of its calls run at once (each
    holds its slot a moment, so calls that may overlap do); the peak, and the calls."""
    [fn] = [f for f in demo.fns.values() if f.api_name == api_name]
    original = fn.fn
    counts = {"running": 0, "peak": 0, "calls": 0}
    lock = threading.Lock()

    @functools.wraps(original)  # type: ignore[arg-type]
    async def counted(*args: Any, **kwargs: Any) -> Any:
        with lock:
            counts["running"] += 1
            counts["calls"] += 1
            counts["peak"] = max(counts["peak"], counts["running"])
        try:
            await asyncio.sleep(0.3)
            return await original(*args, **kwargs)  # type: ignore[misc]
        finally:
            with lock:
                counts["running"] -= 1

    monkeypatch.setattr(fn, "fn", counted)
    return counts


@pytest.mark.server
def test_run_score_never_runs_more_scores_at_once_than_the_score_limit(
    served_here: tuple[str, gr.Blocks], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, demo = served_here
    [fn] = [f for f in demo.fns.values() if f.api_name == "score"]
    limit = fn.concurrency_limit
    assert isinstance(limit, int) and limit >= 1
    counts = _count_running(demo, "score", monkeypatch)
    callers = 3 * limit
    with GradioHTTP(url) as http:
        path = http.upload("s.json", SAMPLE.read_bytes())
    payload = {"data": [file_data(path)]}

    def direct(_: int) -> tuple[int, str]:
        with httpx.Client(base_url=url, timeout=60) as client:
            answer = client.post("/gradio_api/run/score", json=payload)
            return answer.status_code, answer.text

    def queued(_: int) -> str:
        with GradioHTTP(url) as client:
            return client.call("score", [file_data(path)]).kind

    with ThreadPoolExecutor(2 * callers) as pool:
        runs = pool.map(direct, range(callers))
        calls = pool.map(queued, range(callers))
        answers, kinds = list(runs), list(calls)
    assert counts["peak"] <= limit, (counts, limit)
    assert kinds == ["complete"] * callers
    # /run/score is refused, pointing to /call; the calls of the queue all ran
    assert {status for status, _ in answers} == {404}, answers[:2]
    assert all("/gradio_api/call/score" in text for _, text in answers)
    assert counts["calls"] == callers


#: Requests naming no event, each as one client might send it a hundred times.
HOSTILE: list[tuple[str, str, dict[str, Any] | None]] = [
    ("POST", "/gradio_api/run/unknown", {"data": []}),
    ("POST", "/gradio_api/api/unknown", {"data": []}),
    ("POST", "/gradio_api/call/unknown", {"data": []}),
    ("POST", "/gradio_api/call/v2/unknown", {}),
    ("POST", "/gradio_api/queue/join", {"data": [], "fn_index": 9999, "session_hash": "abc"}),
    ("GET", "/gradio_api/call/score/no-such-event", None),
]
REPEAT = 40


@pytest.mark.server
def test_requests_naming_no_event_log_one_short_line_each_on_a_real_server() -> None:
    # Each client's share of the events (guard.event_shares) set past this test's requests.
    shares = {"LEADERBOARD_EVENT_RATE": "100000", "LEADERBOARD_EVENT_BURST": "100000"}
    with AppServer(env=shares) as server, httpx.Client(base_url=server.url, timeout=30) as http:
        before = len(server.log().encode())
        statuses = set()
        for method, path, body in HOSTILE:
            for _ in range(REPEAT):
                answer = http.request(method, path, json=body)
                statuses.add((path, answer.status_code, answer.text[:60]))
        assert http.post("/gradio_api/call/leaderboard", json={"data": []}).status_code == 200
        log = server.log().encode()[before:]
    # Gradio alone: a 500 and ~5 kB of traceback each (2.6-2.8 MB per 1,000 requests).
    assert {status for _, status, _ in statuses} == {404}, statuses
    per_request = len(log) / (len(HOSTILE) * REPEAT)
    assert per_request < LOG_LINE_BYTES, log[-2000:].decode(errors="replace")
    assert b"Traceback" not in log


@pytest.mark.server
def test_gradio_client_and_plain_call_still_score_and_list_on_a_real_server(
    served_here: tuple[str, gr.Blocks],
) -> None:
    from gradio_client import Client, handle_file

    url, _ = served_here
    client = Client(url, verbose=False)
    numbers = client.predict(handle_file(str(SAMPLE)), api_name="/score")
    assert "overall" in numbers["metrics"]
    assert client.predict(api_name="/leaderboard")
    with GradioHTTP(url) as http:
        assert http.call("leaderboard", []).kind == "complete"


#: /call/v2 bodies Gradio cannot map onto /score's parameters (issue 30, finding 8: a bare 500
#: each), and what the 4xx answering each says.
UNMAPPABLE: list[tuple[str, dict[str, Any], int, str]] = [
    ("score", {}, 422, "No value provided for required argument: submission"),
    ("score", {"file": {"path": "x"}}, 422, "Parameter `file` is not a valid key-word argument"),
    ("score", {"submission": None, "extra": 1}, 422, "`extra` is not a valid key-word"),
    ("leaderboard", {"track": "memory"}, 422, "`track` is not a valid key-word argument"),
    ("page_score", {}, 404, "No API endpoint is named 'page_score'"),
]


@pytest.mark.server
def test_a_v2_body_that_names_no_inputs_gets_a_4xx_that_says_which_on_a_real_server(
    served_here: tuple[str, gr.Blocks],
) -> None:
    url, _ = served_here
    with httpx.Client(base_url=url, timeout=30) as http:
        answers = [
            (http.post(f"/gradio_api/call/v2/{name}", json=body), status, words)
            for name, body, status, words in UNMAPPABLE
        ]
        mapped = http.post("/gradio_api/call/v2/leaderboard", json={})
    for answer, status, words in answers:
        assert answer.status_code == status, answer.text  # before: 500
        assert words in answer.json()["detail"], answer.text
    assert "takes its inputs by name: submission" in answers[0][0].json()["detail"]
    assert mapped.status_code == 200 and mapped.json()["event_id"]
