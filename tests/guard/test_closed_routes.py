"""Gradio's own routes that write files or fetch for a visitor are closed (guard.closed_routes):
issue 30, finding 3, against ``python app.py`` over HTTP.

``GET /gradio_api/deep_link`` wrote a ``state.json`` of the session into the upload folder for
each distinct session: one address filled a small cache with them and another visitor's upload
got 503; the same file held a session's score. ``POST /gradio_api/process_recording`` left each
upload in the system's temporary folder for good. ``/gradio_api/file=<URL>`` fetched any URL for
the caller. Gradio's run history recorded each call. Now each is a 404 (the history is off),
nothing is written, and the other visitor's upload works.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import spec
from guard.closed_routes import closed
from tests.support.app_server import AppServer
from tests.support.gradio_http import GradioHTTP, file_data

SAMPLE = (spec.load_benchmark("egomemreason").demo_dir / "sample_submission.json").read_bytes()
CACHE_FILES = 30
MAX_AGE_S = 20  # the cleanup recounts the cache every 5 s

pytestmark = pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")


@pytest.fixture(scope="module")
def server() -> Iterator[AppServer]:
    env = {
        "LEADERBOARD_UPLOAD_CACHE_FILES": str(CACHE_FILES),
        "LEADERBOARD_UPLOAD_MAX_AGE_S": str(MAX_AGE_S),
    }
    with AppServer(env=env) as running:
        yield running


def _files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


@pytest.mark.server
def test_deep_links_cannot_fill_the_upload_cache_for_other_visitors(server: AppServer) -> None:
    answers = set()
    with GradioHTTP(server.url, local_address="127.0.0.2") as http:
        search = http.page_event("board-table", trigger="change")
        for index in range(CACHE_FILES + 10):  # a session each, each its own search
            session = uuid.uuid4().hex
            http.queue_call(search.fn_index, [f"zz{index}", *search.defaults[1:]], session)
            answers.add(http.get(f"/gradio_api/deep_link?session_hash={session}").status_code)
    time.sleep(MAX_AGE_S / 4 + 2)  # a pass of the cleanup counts what the cache holds
    with GradioHTTP(server.url, local_address="127.0.0.3") as visitor:
        upload = visitor.upload_response("submission.json", SAMPLE)
    assert upload.status_code == 200, upload.text  # before: 503, "The upload cache is full"
    assert answers == {404}
    assert not [p for p in _files(server.temp_dir) if "deep_links" in p.parts]


@pytest.mark.server
def test_no_visitor_s_score_is_written_to_disk(server: AppServer) -> None:
    """The page's scoring keeps the score in the session; its deep link wrote it to disk."""
    digest = hashlib.sha256(SAMPLE).hexdigest().encode()
    with GradioHTTP(server.url, local_address="127.0.0.4") as http:
        scoring = http.page_event("score-json", trigger="then")
        session = uuid.uuid4().hex
        path = http.upload("submission.json", SAMPLE)
        assert http.queue_call(scoring.fn_index, [file_data(path)], session).ok
        http.get(f"/gradio_api/deep_link?session_hash={session}")
    assert [p for p in _files(server.temp_dir) if digest in p.read_bytes()] == []


@pytest.mark.server
def test_the_screen_recorder_keeps_nothing(server: AppServer) -> None:
    marker = uuid.uuid4().hex.encode()
    with httpx.Client(base_url=server.url) as http:
        answer = http.post(
            "/gradio_api/process_recording", files={"video": ("v.mp4", marker + b"0" * 1000)}
        )
    assert answer.status_code == 404, answer.status_code  # before: 200, the file served back
    system_tmp = Path(tempfile.gettempdir())
    candidates = [system_tmp / name for name in os.listdir(system_tmp)]
    candidates += _files(server.temp_dir)
    left = [p for p in candidates if p.is_file() and p.stat().st_size < 4096]
    kept = [p for p in left if marker in p.read_bytes()]
    for path in kept:  # before: one file a request, in the system's temporary folder
        path.unlink()
    assert kept == []


@pytest.mark.server
def test_no_url_is_fetched_for_a_visitor_and_no_run_is_recorded(server: AppServer) -> None:
    with httpx.Client(base_url=server.url) as http:
        fetched = [
            http.get(f"/gradio_api/file={url}")
            for url in ("https://example.org/big.bin", "HTTP://198.51.100.7/a")
        ]
        history = http.get("/gradio_api/runs")
        config = http.get("/config").json()
    assert [r.status_code for r in fetched] == [404, 404]
    assert "does not serve" in fetched[0].json()["detail"]
    assert history.status_code == 404 and config["run_history"] is False


def test_only_the_closed_routes_are_closed() -> None:
    assert closed("GET", "/gradio_api/deep_link/")
    assert closed("POST", "/gradio_api/process_recording")
    assert closed("HEAD", "/gradio_api/file/https://example.org/x")
    assert not closed("POST", "/gradio_api/deep_link")  # no such route: Gradio's 405
    assert not closed("GET", "/gradio_api/file=/tmp/gradio/app-files/x/board.csv")
    assert not closed("GET", "/gradio_api/info")
