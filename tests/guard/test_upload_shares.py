"""One client cannot take more than its share of the upload cache: issue 22, finding 2.

Reproduced through a real server (``python app.py`` behind a pretend Space proxy: SPACE_ID and
LEADERBOARD_TRUSTED_PROXY_HOPS=1, each visitor named by the X-Forwarded-For it sends):

- (a) trickling uploads (a declared length of one full body, a byte now and then) held the
  whole byte budget for up to 300 s: every other visitor got 503. Now one client holds at most
  its share (two full bodies here), the rest get 429 at once, and a trickle is dropped once it
  falls under the minimum rate;
- (b) a burst of tiny uploads filled the file budget until the next cleanup pass. Now the
  burst stops at the client's share;
- the board's CSV/JSON downloads landed in the same cache, two files per distinct view. Now
  they live in a bounded folder of their own, outside the visitors' budget.

In process: the per-client accounting (``ClientShares``), the share the policy gives, the
variable, and the sweep leaving the app's own files.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

import ledger
from guard import UPLOAD_ROUTE, upload_cache, uploads
from ledger import variables
from tests.support.app_server import AppServer
from tests.support.gradio_http import GradioHTTP

AGE_VAR = variables.UPLOAD_MAX_AGE_S.name
FILES_VAR = variables.UPLOAD_CACHE_FILES.name
MB_VAR = variables.UPLOAD_CACHE_MB.name
CLIENT_VAR = variables.UPLOAD_CLIENT_PERCENT.name

PROXY = "198.51.100.250"  # the public proxy the Space trusts (LEADERBOARD_TRUSTED_PROXY_HOPS=1)
ATTACKER, VISITOR = "203.0.113.66", "203.0.113.7"
VISITOR_FILE = json.dumps([{"example_id": i, "predicted_answer": "A"} for i in range(600)])
BOUNDARY = "share-test-boundary"
ANSWER_REST_S = 0.5  # a pause that ends an answer the server has not closed


def forwarded(client: str) -> dict[str, str]:
    return {"X-Forwarded-For": f"{client}, {PROXY}"}


def space_env(**extra: str) -> dict[str, str]:
    return {
        "SPACE_ID": "shares/test",
        "LEADERBOARD_TRUSTED_PROXY_HOPS": "1",
        "LEADERBOARD_SCORE_LIMIT": "100000",
        **extra,
    }


def upload(url: str, client: str, name: str, data: bytes) -> httpx.Response:
    with httpx.Client(base_url=url, timeout=30, headers=forwarded(client)) as http:
        return http.post(UPLOAD_ROUTE, files={"files": (name, data)})


def in_cache(server: AppServer) -> list[Path]:
    """The files of the upload cache outside the app's own folder: what visitors' uploads and
    Gradio's copies take of the budget."""
    out = []
    for folder, dirs, names in os.walk(server.temp_dir):
        dirs[:] = [d for d in dirs if d != upload_cache.APP_FILES or folder != str(server.temp_dir)]
        out += [Path(folder) / n for n in names]
    return out


# --- (b) a burst of tiny uploads -----------------------------------------------------------------


@pytest.mark.server
def test_a_burst_of_tiny_uploads_stops_at_its_share_and_others_still_upload() -> None:
    policy = upload_cache.cache_policy(ledger.load_config({FILES_VAR: "100"}))
    with AppServer(env=space_env(**{FILES_VAR: "100"})) as server:
        lock = threading.Lock()
        answers: list[httpx.Response] = []

        def attack(index: int) -> None:
            with httpx.Client(base_url=server.url, timeout=30, headers=forwarded(ATTACKER)) as h:
                for i in range(index, 300, 4):
                    answer = h.post(UPLOAD_ROUTE, files={"files": (f"t{i}.json", b"[%d]" % i)})
                    with lock:
                        answers.append(answer)

        with ThreadPoolExecutor(4) as pool:
            list(pool.map(attack, range(4)))
        codes = Counter(a.status_code for a in answers)
        # Before: all 100 files of the cache went to this one client, then 503 for everyone.
        assert codes == {200: policy.client_files, 429: 300 - policy.client_files}, codes
        refused = next(a for a in answers if a.status_code == 429)
        assert "the most one visitor may hold at once" in refused.text
        assert "try again in" in refused.text and int(refused.headers["retry-after"]) >= 1
        assert refused.headers["connection"] == "close"
        # Another visitor's uploads are taken while the first holds its whole share.
        visitor = [
            upload(server.url, VISITOR, f"v{i}.json", VISITOR_FILE.encode()) for i in range(3)
        ]
        assert [a.status_code for a in visitor] == [200] * 3, visitor[0].text


# --- (a) trickling uploads ----------------------------------------------------------------------


def _trickle(url: str, client: str, declared: int) -> socket.socket:
    """An upload declaring ``declared`` bytes that sends its headers and its part's start only."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    sock.sendall(
        (
            f"POST {UPLOAD_ROUTE} HTTP/1.1\r\nHost: {host}\r\n"
            f"X-Forwarded-For: {client}, {PROXY}\r\n"
            f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n"
            f"Content-Length: {declared}\r\n\r\n"
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="files"; '
            f'filename="slow.json"\r\nContent-Type: application/json\r\n\r\n['
        ).encode()
    )
    return sock


def _answered(sock: socket.socket, wait_s: float) -> bytes:
    """What the server answered, if it began to within ``wait_s`` (b"" if not): read on
    until it closes the connection or pauses for ``ANSWER_REST_S`` (a busy server may send an
    answer's head and body in two packets)."""
    sock.settimeout(wait_s)
    try:
        answer = sock.recv(4096)
    except TimeoutError:
        return b""
    sock.settimeout(ANSWER_REST_S)
    with contextlib.suppress(TimeoutError, ConnectionError):
        while answer and (more := sock.recv(4096)):
            answer += more
    return answer


@pytest.mark.server
def test_trickling_uploads_hold_one_share_briefly_and_others_still_upload() -> None:
    age_s = 8.0  # a pass every 2 s; an upload may take stall_s (4 s) to start
    env = {MB_VAR: "32", AGE_VAR: str(age_s)}
    policy = upload_cache.cache_policy(ledger.load_config(env))
    declared = policy.max_body_bytes  # 5,308,416 bytes, as in the report
    admitted = policy.client_bytes // declared
    assert 1 <= admitted < policy.max_bytes // declared  # one share is less than the cache
    with AppServer(env=space_env(**env)) as server:
        socks = [_trickle(server.url, ATTACKER, declared) for _ in range(24)]
        try:
            first = [_answered(s, 1.0 if i < admitted + 1 else 0.2) for i, s in enumerate(socks)]
            held = [s for s, a in zip(socks, first, strict=True) if not a]
            refused = [a for a in first if a]
            # Before: six of them held the 32 MB cache (each for up to 300 s), and the other
            # 18 were answered 503 "The upload cache is full".
            assert len(held) == admitted, first
            assert all(a.startswith(b"HTTP/1.1 429") for a in refused), refused[:1]
            assert b"the most one visitor may hold at once" in refused[0]
            visitor = upload(server.url, VISITOR, "v.json", VISITOR_FILE.encode())
            assert visitor.status_code == 200, visitor.text
            # The held ones trickle a byte a second (never a stall), under the minimum rate:
            # each is dropped soon after its first stall_s, not held for 300 s.
            started = time.monotonic()
            answers = [b""] * len(held)
            while not all(answers) and time.monotonic() - started < 4 * policy.stall_s:
                for i, sock in enumerate(held):
                    if not answers[i]:
                        sock.sendall(b" ")
                        answers[i] = _answered(sock, 1.0 / len(held))
            assert all(a.startswith(b"HTTP/1.1 408") for a in answers), answers
            assert b"under 16 kB/s" in answers[0]
            # And the client's share is free again.
            assert upload(server.url, ATTACKER, "a.json", b"[1]").status_code == 200
        finally:
            for sock in socks:
                sock.close()


# --- the board's downloads -----------------------------------------------------------------------


@pytest.mark.server
def test_board_downloads_stay_out_of_the_visitors_upload_budget() -> None:
    env = {FILES_VAR: "20", AGE_VAR: "20"}
    policy = upload_cache.cache_policy(ledger.load_config(env))  # a pass every 5 s
    with AppServer(env=space_env(**env)) as server:
        with GradioHTTP(server.url, headers=forwarded(ATTACKER)) as http:
            search = http.page_event("board-table", trigger="change")
            rows = http.call("leaderboard", []).data[0]
            views = set()
            for row in rows:  # a search for each method: a view of its own, a CSV and a JSON
                outcome = http.queue_call(
                    search.fn_index, [row["method_name"], *search.defaults[1:]]
                )
                assert outcome.kind == "complete", outcome.message
                views.add(outcome.data[3]["url"])
            assert len(views) >= 15, "too few distinct views to fill the cache's 20 files"
            assert http.get(outcome.data[3]["url"].removeprefix(server.url)).status_code == 200
        time.sleep(policy.every_s + 0.5)  # a pass of the cleanup counts the cache again
        # Before: Gradio copied every download into the cache, which its 20 files filled:
        # this was 503 "The upload cache is full".
        visitor = upload(server.url, VISITOR, "v.json", VISITOR_FILE.encode())
        assert visitor.status_code == 200, visitor.text
        assert in_cache(server) == [Path(visitor.json()[0])]
        own = list((server.temp_dir / upload_cache.APP_FILES).rglob("*.csv"))
        assert 0 < len(own) <= 64, len(own)


# --- in process --------------------------------------------------------------------------------


def test_each_client_holds_at_most_its_share_until_the_sweep_deletes_its_uploads() -> None:
    shares = upload_cache.ClientShares(max_files=3, max_bytes=1000, max_age_s=60)
    assert [shares.reserve("a", 100) for _ in range(4)] == [True, True, True, False]
    assert not shares.reserve("a", 0) and shares.reserve("b", 1000)
    assert not shares.grow("b", 1)  # a body longer than it declared: past the share
    shares.settle("a", 1, 100, stored=True, now=10.0)
    shares.settle("a", 1, 100, stored=False, now=10.0)  # refused: given back
    assert shares.holding("a") == (2, 200) and shares.oldest_stored("a") == 10.0
    shares.settle("a", 1, 100, stored=True, now=30.0)
    shares.swept(now=71.0)  # more than 60 s after the first upload: deleted, not the second
    assert shares.holding("a") == (1, 100) and shares.oldest_stored("a") == 30.0
    shares.settle("b", 1, 1000, stored=False, now=70.0)
    shares.swept(now=91.0)
    assert shares.holding("a") == shares.holding("b") == (0, 0)
    assert shares._clients == {}  # a client holding nothing is forgotten


@pytest.mark.parametrize(
    ("env", "files", "megabytes"),
    [
        ({}, 40, 20.48),  # 2 % of 2,000 files and 1,024 MB
        ({FILES_VAR: "100", MB_VAR: "32"}, 10, 10.125),  # the floors
        ({CLIENT_VAR: "50"}, 1000, 512),
        ({FILES_VAR: "4", MB_VAR: "4"}, 4, 4),  # never past the cache
    ],
)
def test_the_policy_gives_each_client_a_share_with_floors(
    env: dict[str, str], files: int, megabytes: float
) -> None:
    policy = upload_cache.cache_policy(ledger.load_config(env))
    assert policy.client_files == files
    assert policy.client_bytes / 2**20 == pytest.approx(megabytes, abs=0.01)


@pytest.mark.parametrize("raw", ["0", "101", "half", "nan"])
def test_a_bad_client_share_is_refused_by_name(raw: str) -> None:
    with pytest.raises(ledger.ConfigError, match=f"{CLIENT_VAR} must be a number"):
        upload_cache.cache_policy(ledger.load_config({CLIENT_VAR: raw}))


@pytest.fixture
def app_files(tmp_path: Path, cached_uploads: list[Path]) -> Iterator[Path]:
    own = tmp_path / upload_cache.APP_FILES / "bench-exports-x" / "0123"
    own.mkdir(parents=True)
    (own / "bench.csv").write_bytes(b"a,b\n")
    yield own / "bench.csv"


def test_the_sweep_leaves_the_apps_own_files_uncounted(tmp_path: Path, app_files: Path) -> None:
    result = upload_cache.sweep(tmp_path, 60, time.time() + 120)
    assert app_files.exists() and result.kept_files == 0
    assert str(app_files) not in result.removed and len(result.removed) == 4
    young = upload_cache.sweep(tmp_path, 60, time.time())
    assert young.kept_files == 0  # the folder is empty of uploads; the app's file not counted


class _Blocks:
    def __init__(self, tracked: set[str]) -> None:
        self.blocks: dict[int, object] = {}
        self.temp_file_sets = [tracked]


class _App:
    def __init__(self, root: Path, tracked: set[str]) -> None:
        self.uploaded_file_dir = str(root)
        self._blocks = _Blocks(tracked)

    def get_blocks(self) -> _Blocks:
        return self._blocks


def test_gradio_forgets_replaced_downloads_and_the_last_pass_deletes_the_rest(
    tmp_path: Path, app_files: Path
) -> None:
    replaced = str(tmp_path / upload_cache.APP_FILES / "bench-exports-x" / "4567" / "bench.csv")
    tracked = {str(app_files), replaced}
    cache = uploads.UploadCache(upload_cache.CachePolicy())
    asyncio.run(cache.clean(_App(tmp_path, tracked)))
    assert tracked == {str(app_files)} and app_files.exists()
    asyncio.run(cache.clean(_App(tmp_path, tracked), max_age_s=-1.0, app_files=True))
    assert list(tmp_path.iterdir()) == [] and tracked == set()


def test_a_share_of_the_whole_cache_leaves_the_budget_alone_to_bind() -> None:
    whole = uploads.UploadCache(upload_cache.cache_policy(ledger.load_config({CLIENT_VAR: "100"})))
    assert all(whole.shares.reserve("a", 2**20) for _ in range(3000))  # the budget's to refuse
    policy = upload_cache.cache_policy(ledger.load_config({}))
    shared = uploads.UploadCache(policy).shares
    assert (shared.max_files, shared.max_bytes) == (policy.client_files, policy.client_bytes)
