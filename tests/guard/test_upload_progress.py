"""Gradio's upload progress, bounded (guard/upload_progress.py): issue 22, finding 3.

In process: BoundedProgress keeps an Event only while a request waits and a bounded number of
trackers; ProgressIds refuses ids the page never makes and ends the progress of a refused
upload; the patch is pinned to the installed Gradio. Over HTTP (the app on a port of this
process, so its structures can be counted): thousands of distinct unknown ids leave nothing
behind, and a page-like upload still streams its progress to "done".
"""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import gradio as gr
import gradio.routes
import httpx
import pytest
from gradio.route_utils import FileUploadProgress
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from errors import GradioMismatch, LeaderboardError
from guard import upload_progress
from guard.upload_progress import BoundedProgress, ProgressIds

pytestmark = pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")

IDS = 3000  # distinct unknown ids over HTTP (Gradio alone keeps an Event for each, for good)
CLIENTS = 16
TIME_LIMIT_S = 60.0


# --- BoundedProgress -----------------------------------------------------------------------------


def test_a_wait_for_an_unknown_id_leaves_no_event_behind() -> None:
    progress = BoundedProgress()

    async def ask() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(progress.is_tracked("abc"), timeout=0.01)

    asyncio.run(ask())
    assert progress.sizes() == {"tracked": 0, "signals": 0, "waiting": 0}
    # Gradio's own keeps it
    gradios = FileUploadProgress()

    async def ask_gradio() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(gradios.is_tracked("abc"), timeout=0.01)

    asyncio.run(ask_gradio())
    assert len(gradios._signals) == 1


def test_a_wait_ends_when_its_upload_begins() -> None:
    progress = BoundedProgress()

    async def both() -> bool:
        waiting = asyncio.create_task(progress.is_tracked("abc"))
        await asyncio.sleep(0)
        assert progress.sizes()["waiting"] == 1
        progress.append("abc", "s.json", b"12345")  # the upload's first chunk
        return await asyncio.wait_for(waiting, timeout=1)

    assert asyncio.run(both()) is True
    assert progress.sizes() == {"tracked": 1, "signals": 0, "waiting": 0}
    assert progress.pop("abc").chunk_size == 5
    progress.set_done("abc")
    assert progress.is_done("abc")
    progress.stop_tracking("abc")
    assert progress.sizes()["tracked"] == 0


def test_waiters_past_the_bound_are_refused_at_once() -> None:
    progress = BoundedProgress(max_waiting=3)

    async def many() -> list[object]:
        tasks = [asyncio.create_task(progress.is_tracked(f"id{i}")) for i in range(5)]
        await asyncio.sleep(0)
        held = progress.sizes()
        for task in tasks[:3]:
            task.cancel()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        return [held, *results]

    held, *results = asyncio.run(many())
    assert held == {"tracked": 0, "signals": 3, "waiting": 3}
    assert [type(r).__name__ for r in results] == ["CancelledError"] * 3 + ["TimeoutError"] * 2
    assert progress.sizes() == {"tracked": 0, "signals": 0, "waiting": 0}


def test_trackers_are_bounded_in_number_and_age() -> None:
    now = [0.0]
    progress = BoundedProgress(max_tracked=4, tracked_for_s=10, clock=lambda: now[0])
    for i in range(10):
        progress.track(f"u{i}")
    assert progress.sizes()["tracked"] == 4
    assert list(progress._statuses) == ["u6", "u7", "u8", "u9"]  # the oldest went first
    now[0] = 11.0
    progress.track("late")
    assert list(progress._statuses) == ["late"]
    progress.append("u1", "s.json", b"x")  # an upload still running is tracked again
    assert "u1" in progress._statuses


# --- ProgressIds ---------------------------------------------------------------------------------


def _run(middleware: ProgressIds, path: str, query: bytes) -> tuple[list[Message], list[str]]:
    sent: list[Message] = []
    reached: list[str] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    scope: Scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "query_string": query,
        "headers": [],
    }
    asyncio.run(middleware(scope, receive, send))
    return sent, reached


def _app(status: int, reached: list[str]) -> ASGIApp:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        reached.append(scope["path"])
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    return app


@pytest.mark.parametrize("bad", [b"x" * 14, b"A" * 5, b"../x", b"", "é".encode()])
@pytest.mark.parametrize("path", [upload_progress.PROGRESS_ROUTE, "/gradio_api/upload"])
def test_an_id_the_page_never_makes_is_a_400_before_gradio(bad: bytes, path: str) -> None:
    reached: list[str] = []
    middleware = ProgressIds(_app(200, reached), BoundedProgress())
    sent, _ = _run(middleware, path, b"upload_id=" + bad)
    assert sent[0]["status"] == 400 and not reached
    assert b"1 to 13 lowercase letters and digits" in sent[1]["body"]


def test_a_refused_upload_s_progress_ends_done_and_a_stored_one_is_gradio_s() -> None:
    progress = BoundedProgress()
    reached: list[str] = []
    _run(ProgressIds(_app(413, reached), progress), "/gradio_api/upload", b"upload_id=abc1")
    assert progress.is_done("abc1")  # a waiting progress stream says "done" at once
    _run(ProgressIds(_app(200, reached), progress), "/gradio_api/upload", b"upload_id=abc2")
    assert "abc2" not in progress._statuses  # Gradio's parser tracks what it reads
    _run(ProgressIds(_app(200, reached), progress), "/gradio_api/upload", b"")
    assert reached == ["/gradio_api/upload"] * 3


# --- pinned to the installed Gradio --------------------------------------------------------------


def test_the_installed_gradio_passes_the_check_and_another_version_is_refused() -> None:
    upload_progress.check()
    with pytest.raises(GradioMismatch) as caught:
        upload_progress.check(version="6.32.0")
    assert isinstance(caught.value, LeaderboardError)
    assert "the version is 6.32.0" in str(caught.value) and "gradio==6.31.0" in str(caught.value)


def _track(self: FileUploadProgress, upload_id: str) -> None:  # another body than 6.31's
    pass


def test_a_changed_progress_class_or_route_is_refused_naming_it() -> None:
    members = {k: v for k, v in vars(FileUploadProgress).items() if not k.startswith("__")}
    changed = type("FileUploadProgress", (), {**members, "track": _track})
    with pytest.raises(GradioMismatch) as caught:
        upload_progress.check(progress_class=changed)
    assert "differs: FileUploadProgress.__init__ is gone; FileUploadProgress.track changed." in (
        str(caught.value)
    )
    with pytest.raises(GradioMismatch, match=r"routes\.get_upload_progress is gone"):
        upload_progress.check(routes_source="")


def test_install_puts_the_bounded_one_in_place_once() -> None:
    installed = upload_progress.install()
    assert gradio.routes.file_upload_statuses is installed
    assert upload_progress.install() is installed


# --- over HTTP -----------------------------------------------------------------------------------


def _ask_unknown(url: str, count: int) -> dict[int | str, int]:
    """``count`` progress requests with distinct ids of the page's form, each given up after a
    moment (as a script would); how many got each status ("gave up" for none)."""
    deadline = time.monotonic() + TIME_LIMIT_S
    answers: dict[int | str, int] = {}
    lock = threading.Lock()

    def client(index: int) -> None:
        with httpx.Client(base_url=url, timeout=0.05) as http:
            for n in range(index, count, CLIENTS):
                if time.monotonic() > deadline:
                    return
                try:
                    key: int | str = http.get(
                        upload_progress.PROGRESS_ROUTE, params={"upload_id": f"z{n:x}"}
                    ).status_code
                except httpx.TimeoutException:
                    key = "gave up"
                with lock:
                    answers[key] = answers.get(key, 0) + 1

    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(client, range(CLIENTS)))
    return answers


@pytest.mark.server
def test_thousands_of_unknown_ids_leave_nothing_behind(
    served_here: tuple[str, gr.Blocks],
) -> None:
    url, _ = served_here
    progress = gradio.routes.file_upload_statuses
    answers = _ask_unknown(url, IDS)
    assert sum(answers.values()) == IDS, answers
    held = len(progress._signals)
    assert held <= upload_progress.MAX_WAITING, (held, answers)
    # The waits still running end within Gradio's 3 s; then nothing is held.
    deadline = time.monotonic() + 30
    while len(progress._signals) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(progress._signals) == 0 and len(progress._statuses) == 0
    with httpx.Client(base_url=url, timeout=10) as http:
        long_id = http.get(upload_progress.PROGRESS_ROUTE, params={"upload_id": "a" * 8000})
    assert long_id.status_code == 400


@pytest.mark.server
def test_a_page_like_upload_streams_its_progress_to_done(
    served_here: tuple[str, gr.Blocks],
) -> None:
    url, _ = served_here
    progress = gradio.routes.file_upload_statuses
    sample = b'[{"example_id": 1, "predicted_answer": "B"}]'
    with httpx.Client(base_url=url, timeout=10) as http:
        stored = http.post(
            "/gradio_api/upload",
            params={"upload_id": "k3j9x0a1b2"},
            files={"files": ("s.json", sample)},
        )
        assert stored.status_code == 200, stored.text
        stream = http.get(upload_progress.PROGRESS_ROUTE, params={"upload_id": "k3j9x0a1b2"})
        assert stream.status_code == 200 and '"msg": "done"' in stream.text
        two = [("files", ("a.json", b"[]")), ("files", ("b.json", b"[]"))]  # one file a request
        refused = http.post("/gradio_api/upload", params={"upload_id": "q1w2e3"}, files=two)
        assert refused.status_code == 400, refused.text
        ended = http.get(upload_progress.PROGRESS_ROUTE, params={"upload_id": "q1w2e3"})
        # Gradio alone: 404 "Upload not found" after 3 s, an error in the page's console
        assert ended.status_code == 200 and '"msg": "done"' in ended.text
    assert len(progress._statuses) == 0 and len(progress._signals) == 0
