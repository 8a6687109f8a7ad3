"""P5: what hostile bursts leave on a real server: the upload cache, and the memory of results
nobody reads (findings 2 and 7 of the security review; guard.uploads with guard.upload_cache,
and guard.queue_limits).

Against ``python app.py``, every burst bounded in count and in time:

- a mixed burst (2-file requests, names Gradio refuses with 400, parts under another field,
  Score calls, aborted uploads): the files each kind wrote, right after it, and what is left
  once the cleanup age has passed (the server runs with LEADERBOARD_UPLOAD_MAX_AGE_S=5);
- a burst of more plain uploads than the cache's file budget (defaults: 2,000 files, 1 GB):
  the most files and bytes the cache held at any moment;
- /gradio_api/call/leaderboard requests whose results are never read, from 32 clients: the
  server's RSS after N and after 2N of them, and whether it still serves.

Example::

    python -m perf.p5_uploads      # prints the rows
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from perf.report import Row
from tests.support.procs import ONE_CLIENT, ServerProcess, rss_bytes

UPLOAD = "/gradio_api/upload"
AGE_S = 5.0  # the mixed burst's server: a short cleanup age, so the bench sees it act
CLIENTS = 8
MIXED = 400  # requests of each kind in the mixed burst
ABORTED = 20
BUDGET_BURST = 3000  # plain uploads, over the default budget of 2,000 files
UNREAD = 1500  # unread /call requests per step (N, then N more)
UNREAD_CLIENTS = 32
TIME_LIMIT_S = 120.0
SAMPLE = (
    Path(__file__).resolve().parent.parent / "benchmarks/egomemreason/demo/sample_submission.json"
)


def _files(root: Path, since: float = 0.0) -> tuple[int, int]:
    """Files under ``root`` (and their bytes) last written at ``since`` or later; by inode, as
    a file renamed into its folder during the walk is seen twice by path."""
    sizes: dict[int, int] = {}
    for folder, _, names in os.walk(root):
        for name in names:
            try:
                info = (Path(folder) / name).lstat()
            except FileNotFoundError:
                continue
            if max(info.st_ctime, info.st_mtime) >= since:
                sizes[info.st_ino] = info.st_size
    return len(sizes), sum(sizes.values())


def _spread(
    url: str, count: int, clients: int, task: Callable[[httpx.Client, int], object]
) -> None:
    deadline = time.monotonic() + TIME_LIMIT_S

    def client(index: int) -> None:
        with httpx.Client(base_url=url, timeout=60) as http:
            for i in range(index, count, clients):
                if time.monotonic() > deadline:
                    return
                task(http, i)

    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(client, range(clients)))


def _abort(url: str) -> None:
    """Half of a 1 MB multipart upload, then the socket is closed."""
    host, port = url.removeprefix("http://").split(":")
    head = (
        b'--b\r\nContent-Disposition: form-data; name="files"; filename="half.json"\r\n'
        b"Content-Type: application/json\r\n\r\n"
    )
    body = head + b" " * 2**20 + b"\r\n--b--\r\n"
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(
            (
                f"POST {UPLOAD} HTTP/1.1\r\nHost: {host}\r\nContent-Type: "
                f"multipart/form-data; boundary=b\r\nContent-Length: {len(body)}\r\n\r\n"
            ).encode()
            + body[: len(body) // 2]
        )
        time.sleep(0.2)


def _kinds(path: str) -> dict[str, Callable[[httpx.Client, int], object]]:
    """The mixed burst's kinds of request, by what a row calls them."""
    score = {"data": [{"path": path, "meta": {"_type": "gradio.FileData"}}]}

    def two_files(http: httpx.Client, i: int) -> object:
        return http.post(
            UPLOAD,
            files=[("files", (f"a{i}.json", b"[%d]" % i)), ("files", (f"b{i}.json", b"[-%d]" % i))],
        )

    def bad_name(http: httpx.Client, i: int) -> object:
        return http.post(UPLOAD, files={"files": ("..", b"[%d]" % i)})

    def other_field(http: httpx.Client, i: int) -> object:
        return http.post(UPLOAD, files={"other": (f"o{i}.json", b"[%d]" % i)})

    def scored(http: httpx.Client, i: int) -> object:
        event = http.post("/gradio_api/call/score", json=score).json()["event_id"]
        return http.get(f"/gradio_api/call/score/{event}")

    return {
        f"{MIXED} requests of 2 files each": two_files,
        f"{MIXED} uploads named '..' (Gradio 6.31: 400)": bad_name,
        f"{MIXED} uploads under another field (Gradio 6.31: 200, no path)": other_field,
        f"{MIXED} Score calls of one upload": scored,
    }


def mixed_rows() -> list[Row]:
    """What each kind of request adds to the cache, then what is left after the cleanup age."""
    env = {
        "LEADERBOARD_SCORE_LIMIT": "1000000",
        "LEADERBOARD_UPLOAD_MAX_AGE_S": str(AGE_S),
        **ONE_CLIENT,
    }
    rows = []
    with ServerProcess(["app.py"], env=env) as server:
        root = Path(server.env["GRADIO_TEMP_DIR"])
        with httpx.Client(base_url=server.url, timeout=60) as http:
            path = http.post(UPLOAD, files={"files": ("s.json", SAMPLE.read_bytes())}).json()[0]
        for what, task in [*_kinds(path).items(), (f"{ABORTED} aborted 1 MB uploads", None)]:
            time.sleep(0.05)  # file times are coarser than the clock: no overlap with before
            started = time.time() - 0.01
            if task is None:
                for _ in range(ABORTED):
                    _abort(server.url)
                time.sleep(1.0)
            else:
                _spread(server.url, MIXED, CLIENTS, task)
            added = _files(root, since=started)
            rows.append(
                Row(
                    "P5",
                    f"upload cache: files written by {what}, right after",
                    f"{added[0]:,} files, {added[1] / 2**10:,.0f} kB",
                )
            )
        wait = AGE_S * 1.25 + 2 * min(30.0, AGE_S / 4) + 3.0
        time.sleep(wait)
        later = _files(root)
    rows.append(
        Row(
            "P5",
            f"upload cache {wait:g} s after all of them (cleanup age {AGE_S:g} s)",
            f"{later[0]:,} files, {later[1] / 2**10:,.0f} kB",
            "0 files",
            later[0] == 0,
        )
    )
    return rows


def budget_rows() -> list[Row]:
    env = {"LEADERBOARD_SCORE_LIMIT": "1000000", **ONE_CLIENT}
    peak = [0, 0]
    codes: dict[int, int] = {}
    lock = threading.Lock()
    with ServerProcess(["app.py"], env=env) as server:
        root = Path(server.env["GRADIO_TEMP_DIR"])
        done = threading.Event()

        def watch() -> None:
            while not done.is_set():
                files, size = _files(root)
                peak[0], peak[1] = max(peak[0], files), max(peak[1], size)
                time.sleep(0.05)

        def task(http: httpx.Client, i: int) -> None:
            code = http.post(
                UPLOAD, files={"files": (f"u{i}.json", json.dumps([i]).encode().ljust(64 * 1024))}
            ).status_code
            with lock:
                codes[code] = codes.get(code, 0) + 1

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            _spread(server.url, BUDGET_BURST, CLIENTS, task)
        finally:
            done.set()
            watcher.join()
        files, size = _files(root)
        peak = [max(peak[0], files), max(peak[1], size)]
    answered = ", ".join(f"{n:,} x {code}" for code, n in sorted(codes.items()))
    return [
        Row("P5", f"{BUDGET_BURST:,} uploads of 64 kB from {CLIENTS} clients: answers", answered),
        Row(
            "P5",
            "most the upload cache held during them (default budget 2,000 files, 1 GB)",
            f"{peak[0]:,} files, {peak[1] / 2**20:,.1f} MB",
            "<= 2,000 files",
            peak[0] <= 2000,
        ),
    ]


def _unread(url: str, count: int) -> dict[int, int]:
    codes: dict[int, int] = {}
    lock = threading.Lock()

    def task(http: httpx.Client, i: int) -> None:
        code = http.post("/gradio_api/call/leaderboard", json={"data": []}).status_code
        with lock:
            codes[code] = codes.get(code, 0) + 1

    _spread(url, count, UNREAD_CLIENTS, task)
    return codes


def _serves(url: str) -> bool:
    with httpx.Client(base_url=url, timeout=30) as http:
        joined = http.post("/gradio_api/call/leaderboard", json={"data": []})
        if joined.status_code != 200:
            return False
        stream = http.get(f"/gradio_api/call/leaderboard/{joined.json()['event_id']}").text
        return "event: complete" in stream


def memory_rows() -> list[Row]:
    with ServerProcess(["app.py"], env=ONE_CLIENT) as server:
        _unread(server.url, 100)
        time.sleep(3)
        base = rss_bytes(server.pid)
        first = _unread(server.url, UNREAD)
        time.sleep(3)
        after_n = rss_bytes(server.pid)
        second = _unread(server.url, UNREAD)
        time.sleep(3)
        after_2n = rss_bytes(server.pid)
        serves = _serves(server.url)
        time.sleep(30)
        later = rss_bytes(server.pid)
    growth_n, growth_2n = (after_n - base) / 2**20, (after_2n - base) / 2**20
    answered = {code: first.get(code, 0) + second.get(code, 0) for code in {*first, *second}}
    codes = ", ".join(f"{n:,} x {code}" for code, n in sorted(answered.items()))
    return [
        Row(
            "P5",
            f"{2 * UNREAD:,} unread /call/leaderboard from {UNREAD_CLIENTS} clients: answers",
            codes,
        ),
        Row(
            "P5",
            f"server RSS: before, after {UNREAD:,}, after {2 * UNREAD:,} (30 s later)",
            f"{base / 2**20:.0f} / {after_n / 2**20:.0f} / {after_2n / 2**20:.0f} MB "
            f"({later / 2**20:.0f} MB)",
        ),
        Row(
            "P5",
            f"RSS growth for {2 * UNREAD:,} / for {UNREAD:,}",
            f"{growth_2n:+.0f} MB / {growth_n:+.0f} MB",
            "< 1.5x (bounded)",
            growth_2n < 1.5 * max(growth_n, 20.0),
        ),
        Row(
            "P5",
            "the server still serves /leaderboard after them",
            "yes" if serves else "no",
            "yes",
            serves,
        ),
    ]


def run() -> list[Row]:
    return [*mixed_rows(), *budget_rows(), *memory_rows()]


if __name__ == "__main__":
    from perf.report import table

    print(table(run()))
