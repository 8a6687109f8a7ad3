"""The upload cache stays bounded (guard/uploads.py): finding 2 of the security review,
reproduced; its policy, budget and sweep alone are tests/guard/test_upload_cache.py.

Through a real server (``python app.py``, its ``temp_dir`` is Gradio's cache): a burst of
uploads while the cleanup runs, a 2-file request, requests Gradio refuses with 400, an aborted
and a stalled upload, scoring, and the cache's size under a bounded burst. The servers run with
a cleanup age of a few seconds (LEADERBOARD_UPLOAD_MAX_AGE_S) so the tests can see it act;
every loop is bounded in count and in time. In process: the cleanup outlives a failing pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

import guard
from guard import upload_cache, uploads
from ledger import variables
from tests.support.app_server import ROOT, AppServer
from tests.support.gradio_http import GradioHTTP, file_data

AGE_VAR = variables.UPLOAD_MAX_AGE_S.name
FILES_VAR = variables.UPLOAD_CACHE_FILES.name
MB_VAR = variables.UPLOAD_CACHE_MB.name
CLIENT_VAR = variables.UPLOAD_CLIENT_PERCENT.name

SAMPLE = (ROOT / "benchmarks" / "egomemreason" / "demo" / "sample_submission.json").read_bytes()
AGE_S = 3.0  # the servers' cleanup age: a pass every 0.75 s, a partial upload stalls at 1.5 s
POLICY = upload_cache.CachePolicy(max_age_s=AGE_S)
BOUNDARY = "leaderboard-test-boundary"


def server_env(**extra: str) -> dict[str, str]:
    """These tests upload from one client: its share is the whole cache (one client's share of
    it is tests/guard/test_upload_shares.py's)."""
    return {
        "LEADERBOARD_SCORE_LIMIT": "100000",
        AGE_VAR: str(AGE_S),
        CLIENT_VAR: "100",
        **extra,
    }


@pytest.fixture(scope="module")
def server() -> Iterator[AppServer]:
    # No file budget to speak of: the burst below is about the cleanup, not the budget.
    with AppServer(env=server_env(**{FILES_VAR: "100000"})) as running:
        yield running


def cached(server: AppServer) -> list[tuple[Path, int, float]]:
    """Every file in the server's upload cache: path, size, seconds since its last write."""
    now = time.time()
    out = []
    for folder, _, names in os.walk(server.temp_dir):
        for name in names:
            path = Path(folder) / name
            try:
                info = path.lstat()
            except FileNotFoundError:
                continue
            out.append((path, info.st_size, now - max(info.st_mtime, info.st_ctime)))
    return out


def by_inode(server: AppServer) -> dict[int, int]:
    """The cache's files as inode -> size: a file renamed into its folder while the folder is
    walked is seen twice by path, once by inode."""
    out = {}
    for folder, _, names in os.walk(server.temp_dir):
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                info = (Path(folder) / name).lstat()
                out[info.st_ino] = info.st_size
    return out


def wait_until(condition: Callable[[], bool], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def wait_empty(server: AppServer) -> None:
    """The cache empties within the age plus two passes once nothing is uploaded."""
    limit = AGE_S + 2 * POLICY.every_s + 3.0
    assert wait_until(lambda: not cached(server), limit), (
        f"{len(cached(server))} files still cached {limit:g} s later: {cached(server)[:3]}"
    )


def multipart(parts: list[tuple[str, str | None, bytes]]) -> bytes:
    """A multipart/form-data body with these (field, filename or None, data) parts."""
    out = b""
    for name, filename, data in parts:
        disposition = f'form-data; name="{name}"' + (
            f'; filename="{filename}"' if filename is not None else ""
        )
        out += (
            (
                f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n"
                "Content-Type: application/json\r\n\r\n"
            ).encode()
            + data
            + b"\r\n"
        )
    return out + f"--{BOUNDARY}--\r\n".encode()


def post_upload(url: str, body: bytes, content_type: str | None = None) -> httpx.Response:
    headers = {"Content-Type": content_type or f"multipart/form-data; boundary={BOUNDARY}"}
    with httpx.Client(base_url=url, timeout=30) as http:
        return http.post(guard.UPLOAD_ROUTE, content=body, headers=headers)


def burst(
    url: str, count: int, size: int = 16, clients: int = 8, time_limit_s: float = 90.0
) -> list[httpx.Response]:
    """``count`` uploads of distinct files of ``size`` bytes from ``clients`` threads, each with
    its own keep-alive connection; stops at the count or the time limit."""
    deadline = time.monotonic() + time_limit_s
    answers: list[httpx.Response] = []
    lock = threading.Lock()

    def client(index: int) -> None:
        with httpx.Client(base_url=url, timeout=30) as http:
            for i in range(index, count, clients):
                if time.monotonic() > deadline:
                    return
                data = json.dumps([i]).encode().ljust(size, b" ")
                answer = http.post(guard.UPLOAD_ROUTE, files={"files": (f"u{i}.json", data)})
                with lock:
                    answers.append(answer)

    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(client, range(clients)))
    return answers


# --- through a real server ----------------------------------------------------------------------


@pytest.mark.server
def test_a_burst_of_uploads_does_not_stop_the_cleanup(server: AppServer) -> None:
    started = time.monotonic()
    answers = burst(server.url, 4000)
    took = time.monotonic() - started
    assert [a.status_code for a in answers] == [200] * 4000
    assert took > 3 * POLICY.every_s, "the burst was too short to overlap the cleanup"
    # Gradio's own cleanup died here, of "Set changed size during iteration", and left them all.
    wait_empty(server)
    assert "Set changed size" not in server.log()
    # And it still runs: a later upload goes the same way.
    with GradioHTTP(server.url) as http:
        http.upload("later.json", b"[1]")
    assert len(cached(server)) == 1
    wait_empty(server)


@pytest.mark.server
def test_an_upload_request_carries_one_file(server: AppServer) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        two = http.post(
            guard.UPLOAD_ROUTE, files=[("files", ("a.json", b"[1]")), ("files", ("b.json", b"[2]"))]
        )
        assert two.status_code == 400 and "one file per request" in two.text
        assert cached(server) == []
        one = http.post(guard.UPLOAD_ROUTE, files={"files": ("a.json", b"[1]")})
        assert one.status_code == 200 and len(one.json()) == 1
    wait_empty(server)


REFUSED = [
    # Gradio answers 400 "Invalid file name" after storing the file, and keeps it untracked.
    ("a name Gradio refuses", multipart([("files", "..", b"[1]")]), None, 400),
    ("a name that is only a folder", multipart([("files", "x/..", b"[1]")]), None, 400),
    # Gradio stores parts of any other field as tmp files and answers 200 with no path.
    ("a file under another field", multipart([("other", "a.json", b"[1]")]), None, 400),
    ("a plain field", multipart([("files", None, b"[1]")]), None, 400),
    ("an empty file name", multipart([("files", "", b"[1]")]), None, 400),
    (
        "a second file after a good one",
        multipart([("files", "a.json", b"[1]"), ("files", "b.json", b"[2]")]),
        None,
        400,
    ),
    ("1,000 files", multipart([("files", f"f{i}.json", b"[1]") for i in range(1000)]), None, 400),
    ("a file over 5 MB", multipart([("files", "big.json", b" " * (5 * 2**20 + 1))]), None, 413),
    ("a broken body", f"--{BOUNDARY}\r\nno headers here".encode() * 3, None, 400),
    ("not multipart", b'{"files": []}', "application/json", 400),
    ("no boundary", multipart([("files", "a.json", b"[1]")]), "multipart/form-data", 400),
]


@pytest.mark.server
@pytest.mark.parametrize(
    ("body", "content_type", "status"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_a_refused_upload_leaves_nothing(
    server: AppServer, body: bytes, content_type: str | None, status: int
) -> None:
    answer = post_upload(server.url, body, content_type)
    assert answer.status_code == status, answer.text[:200]
    assert answer.headers.get("connection") == "close"
    assert cached(server) == []  # at once, not after the cleanup age
    with GradioHTTP(server.url) as http:  # and the server takes the next upload
        assert http.upload_response("ok.json", b"[1]").status_code == 200
    wait_empty(server)


def _raw_post(url: str, body: bytes, declared: int) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    sock.sendall(
        (
            f"POST {guard.UPLOAD_ROUTE} HTTP/1.1\r\nHost: {host}\r\n"
            f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n"
            f"Content-Length: {declared}\r\n\r\n"
        ).encode()
        + body
    )
    return sock


@pytest.mark.server
def test_an_aborted_upload_leaves_nothing(server: AppServer) -> None:
    body = multipart([("files", "half.json", b" " * 2**20)])
    sock = _raw_post(server.url, body[: len(body) // 2], len(body))
    assert wait_until(lambda: len(cached(server)) == 1, 10), "the partial file never appeared"
    sock.close()
    # Gradio kept the partial file; the guard turns the disconnect into a refusal that its
    # parser cleans up after.
    assert wait_until(lambda: not cached(server), 5), cached(server)


@pytest.mark.server
def test_a_stalled_upload_is_dropped_and_leaves_nothing(server: AppServer) -> None:
    body = multipart([("files", "stalled.json", b" " * 2**20)])
    with _raw_post(server.url, body[: len(body) // 2], len(body)) as sock:
        assert wait_until(lambda: len(cached(server)) == 1, 10)
        sock.settimeout(AGE_S * 4)
        answer = b""  # nothing more is sent: the server gives up after stall_s, and closes
        while chunk := sock.recv(4096):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 408"), answer[:100]
    assert b"paused" in answer
    assert cached(server) == []


@pytest.mark.server
def test_scoring_leaves_nothing_in_the_cache_but_the_upload(server: AppServer) -> None:
    with GradioHTTP(server.url) as http:
        path = http.upload("s.json", SAMPLE)
        bad = http.upload("bad.json", b'[{"example_id": 1, "pred": "A"}]')
        before = {p for p, _, _ in cached(server)}
        assert before == {Path(path), Path(bad)}
        outcomes = [
            http.call("score", [file_data(path)]),
            http.call("score", [file_data(bad)]),
            http.call("score", [None]),
            http.call("score", [file_data("/etc/passwd")]),
        ]
    assert [o.kind for o in outcomes] == ["complete", "error", "error", "error"]
    # Gradio's gr.File(type="filepath") left an empty tmpXXXX file per call in the cache root.
    assert {p for p, _, _ in cached(server)} == before
    wait_empty(server)


@pytest.mark.server
@pytest.mark.parametrize(
    ("caps", "size", "count"),
    [
        ({FILES_VAR: "40"}, 64, 240),  # many small files: the file count binds
        ({MB_VAR: "2"}, 200_000, 80),  # fewer large ones: the bytes bind
    ],
    ids=["files", "bytes"],
)
def test_the_cache_stays_within_its_budget_under_a_burst(
    caps: dict[str, str], size: int, count: int
) -> None:
    max_files = int(caps.get(FILES_VAR, upload_cache.MAX_FILES))
    max_bytes = int(caps.get(MB_VAR, upload_cache.MAX_MB)) * 2**20
    peak = [0, 0]
    done = threading.Event()
    with AppServer(env=server_env(**caps)) as srv:

        def watch() -> None:
            while not done.is_set():
                files = by_inode(srv)
                peak[0] = max(peak[0], len(files))
                peak[1] = max(peak[1], sum(files.values()))
                time.sleep(0.01)

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            answers = burst(srv.url, count, size=size)
        finally:
            done.set()
            watcher.join()
        codes = [a.status_code for a in answers]
        accepted = codes.count(200)
        assert set(codes) <= {200, 503} and len(codes) == count
        assert 0 < accepted < count, codes
        full = next(a for a in answers if a.status_code == 503)
        assert "upload cache is full" in full.text and full.headers["retry-after"] == "1"
        assert peak[0] <= max_files and peak[1] <= max_bytes, peak
        wait_empty(srv)  # then uploads are taken again
        with GradioHTTP(srv.url) as http:
            assert http.upload_response("again.json", b"[1]").status_code == 200


# --- in process ---------------------------------------------------------------------------------


class _Blocks:
    def __init__(self, tracked: set[str]) -> None:
        self.blocks: dict[int, Any] = {}
        self.temp_file_sets = [tracked]


class _App:
    def __init__(self, root: Path, tracked: set[str]) -> None:
        self.uploaded_file_dir = str(root)
        self._blocks = _Blocks(tracked)

    def get_blocks(self) -> _Blocks:
        return self._blocks


def test_the_cleanup_outlives_a_failing_pass(
    tmp_path: Path,
    cached_uploads: list[Path],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    files = cached_uploads
    tracked = {str(f) for f in files}
    real = upload_cache.sweep
    calls = []

    def flaky(root: Path, age: float, now: float, keep: Any) -> upload_cache.Sweep:
        calls.append(now)
        if len(calls) == 1:  # what killed Gradio's cleanup for good
            raise RuntimeError("Set changed size during iteration")
        return real(root, age, now + 120, keep)

    monkeypatch.setattr(uploads, "sweep", flaky)
    cache = uploads.UploadCache(upload_cache.CachePolicy(max_age_s=1.0))

    async def run() -> None:
        async with cache.lifespan(_App(tmp_path, tracked)):
            deadline = time.monotonic() + 10
            while cache.passes < 3 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)

    with caplog.at_level(logging.ERROR, logger="uploads"):
        asyncio.run(run())
    assert cache.passes >= 3
    assert "Set changed size during iteration" in caplog.text
    assert list(tmp_path.iterdir()) == [] and tracked == set()
