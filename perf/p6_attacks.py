"""P6: a visitor's page and score under each attack of the second and third security reviews
(issues 22 and 30).

Each attack runs against its own ``python app.py``, from one attacker's loopback address,
bounded in count and in time (``WINDOW_S``). A visitor, a fresh loopback address each visit
(so no visit meets another's score limit), loads the page (``GET /``, then the board's load
event through the queue, as a browser does) and scores the benchmark's shipped sample (upload,
then ``/call/score``): ``QUIET`` visits before the attack, then one every ``VISIT_EVERY_S``
while it runs. The rows give the median page and score time, quiet and under attack, and how
many visits were refused or failed under attack:

- **slow file, /call**: a 5 MB file of newlines (refused, so it costs no score allowance),
  scored with track ``auto`` again and again by ``CALLERS`` clients (EgoArgus);
- **slow file, /run**: the same through ``/gradio_api/run/score``, Gradio's queue-less route;
- **trickled uploads**: connections declaring a 5 MB body (then smaller ones, until the cache
  has under 1 kB left), each sending one byte every ``TRICKLE_EVERY_S`` (the server's upload
  cache set to ``TRICKLE_CACHE_MB``, at most ``MAX_TRICKLES`` connections);
- **tiny uploads**: ``TINY`` one-byte uploads as fast as ``CALLERS`` clients send them (the
  cache's file budget set to ``TINY_CACHE_FILES``);
- **upload_progress**: ``PROGRESS`` requests for unknown 2 kB upload ids; also the server's
  RSS before and after;
- **board flood**: ``FLOODERS`` clients calling ``/call/leaderboard`` (EgoMemReason);
- **empty lists, /call auto** (issue 30): one 5 MB list of 1.7 million empty lists, uploaded
  once and scored with track ``auto`` again and again by ``CALLERS`` clients (refused, so it
  costs no allowance; EgoArgus); also the server's RSS before and after;
- **deep links** (issue 30): sessions of distinct searches, each's deep link asked for, as fast
  as the client's share of the events allows (the cache's file budget set to
  ``LINKS_CACHE_FILES``, cleaned every ``LINKS_AGE_S / 4``);
- **free probes** (issue 30): decision files that each time one episode at 1,000 times its
  reviewed time, each a new upload (EgoArgus); also how many were answered free of the score
  limit (refused, the slot given back).

Run on the code before a fix (a worktree of the older commit, this file copied into it) and
after it, the rows are BENCHMARKS.md's "before and after" of issues 22 and 30.

Example::

    python -m perf.p6_attacks                       # prints the rows (~3 min on 2 cores)
    python -m perf.p6_attacks "slow file, /run"     # one attack
"""

from __future__ import annotations

import json
import secrets
import socket
import statistics
import threading
import time
import uuid
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from perf.report import Row
from tests.support.gradio_http import GradioHTTP, PageEvent, file_data
from tests.support.procs import ServerProcess, rss_bytes

ROOT = Path(__file__).resolve().parent.parent
WINDOW_S = 20.0  # each attack runs this long at most
QUIET = 3  # visits before each attack
VISIT_EVERY_S = 2.0
VISIT_TIMEOUT_S = 30.0
CALLERS = 4
SLOW_FILE = b"\n" * (5 * 2**20 - 1024)
MAX_TRICKLES = 64
TRICKLE_EVERY_S = 5.0
TRICKLE_CACHE_MB = 64
DECLARED_BYTES = 5_308_416
TINY = 3000
TINY_CACHE_FILES = 300
PROGRESS = 6000
FLOODERS = 16
ATTACKER = "127.0.0.2"
EMPTY_LISTS = b"[" + b"[]," * ((5 * 2**20 - 64 * 1024) // 3) + b"[]]"
LINKS_CACHE_FILES = 100
LINKS_AGE_S = 40

SAMPLES = {
    "egomemreason": ("benchmarks/egomemreason/demo/sample_submission.json", None),
    "egoargus": ("benchmarks/egoargus/demo/sample_submission.json", "understanding"),
}


@dataclass
class Visits:
    """What the visitors saw: seconds per page and per score, and what failed."""

    page_s: list[float] = field(default_factory=list)
    score_s: list[float] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    count: int = 0


class Visitor:
    """A visitor of one server: each visit from a loopback address never used before."""

    def __init__(self, url: str, benchmark: str) -> None:
        self.url = url
        path, self.track = SAMPLES[benchmark]
        self.sample = (ROOT / path).read_bytes()
        self._next = 0
        self._event: PageEvent | None = None

    def _address(self) -> str:
        self._next += 1
        return f"127.0.{1 + self._next // 250}.{1 + self._next % 250}"

    def visit(self, into: Visits) -> None:
        into.count += 1
        with GradioHTTP(self.url, VISIT_TIMEOUT_S, local_address=self._address()) as http:
            try:
                start = time.perf_counter()
                http.get("/").raise_for_status()
                if self._event is None:
                    self._event = http.page_event("board-table")
                http.page_output(self._event)
                into.page_s.append(time.perf_counter() - start)
                start = time.perf_counter()
                path = http.upload("submission.json", self.sample)
                data = [file_data(path)] + ([self.track] if self.track else [])
                outcome = http.call("score", data)
                if not outcome.ok:
                    raise RuntimeError(outcome.message[:120])
                into.score_s.append(time.perf_counter() - start)
            except (httpx.HTTPError, RuntimeError) as exc:
                into.failed.append(f"{type(exc).__name__}: {str(exc).partition(chr(10))[0][:100]}")


#: An attack: (the server's URL, its port, a stop flag) -> what it measured of itself, if any.
Attack = Callable[[str, int, threading.Event], str | None]


def _until(stop: threading.Event, deadline: float) -> bool:
    return not stop.is_set() and time.monotonic() < deadline


def slow_file(route: str, data: bytes = SLOW_FILE) -> Attack:
    """CALLERS clients scoring ``data`` (the newline file) through /call or /run, again and
    again."""

    def attack(url: str, port: int, stop: threading.Event) -> None:
        deadline = time.monotonic() + WINDOW_S
        with GradioHTTP(url, VISIT_TIMEOUT_S, local_address=ATTACKER) as http:
            path = http.upload("slow.json", data)

        def caller(_: int) -> None:
            with GradioHTTP(url, VISIT_TIMEOUT_S, local_address=ATTACKER) as http:
                while _until(stop, deadline):
                    try:
                        if route == "run":
                            http.run("score", [file_data(path), "auto"])
                        else:
                            http.call("score", [file_data(path), "auto"])
                    except (httpx.HTTPError, RuntimeError, ValueError):
                        time.sleep(0.05)

        with ThreadPoolExecutor(CALLERS) as pool:
            list(pool.map(caller, range(CALLERS)))

    return attack


def _trickle_head(port: int, declared: int) -> bytes:
    boundary = "leaderboardbench"
    return (
        f"POST /gradio_api/upload HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
        f"Content-Length: {declared}\r\n\r\n--{boundary}\r\n"
        'Content-Disposition: form-data; name="files"; filename="t.json"\r\n'
        "Content-Type: application/json\r\n\r\n"
    ).encode()


def trickled_uploads(url: str, port: int, stop: threading.Event) -> None:
    """Connections declaring DECLARED_BYTES, then half as much each time the server refuses one
    at once, until what is left of the cache is under 1 kB; each sends a byte now and then."""
    deadline = time.monotonic() + WINDOW_S
    sockets: list[socket.socket] = []
    declared = DECLARED_BYTES
    try:
        while declared >= 1024 and len(sockets) < MAX_TRICKLES:
            conn = socket.create_connection(
                ("127.0.0.1", port), timeout=5, source_address=(ATTACKER, 0)
            )
            conn.sendall(_trickle_head(port, declared))
            conn.settimeout(0.3)
            try:
                conn.recv(1)  # answered at once: refused
                conn.close()
                declared //= 2
            except TimeoutError:
                sockets.append(conn)  # held: the body is awaited
        while _until(stop, deadline):
            stop.wait(TRICKLE_EVERY_S)
            for conn in list(sockets):
                try:
                    conn.sendall(b"0")
                except OSError:
                    sockets.remove(conn)
    finally:
        for conn in sockets:
            conn.close()


def tiny_uploads(url: str, port: int, stop: threading.Event) -> None:
    """TINY one-byte uploads from CALLERS clients, then nothing until the window ends."""
    deadline = time.monotonic() + WINDOW_S

    def sender(index: int) -> None:
        with GradioHTTP(url, VISIT_TIMEOUT_S, local_address=ATTACKER) as http:
            for _ in range(index, TINY, CALLERS):
                if not _until(stop, deadline):
                    return
                with suppress(httpx.HTTPError):
                    http.upload_response("t.json", b"0")

    with ThreadPoolExecutor(CALLERS) as pool:
        list(pool.map(sender, range(CALLERS)))
    stop.wait(max(0.0, deadline - time.monotonic()))


def upload_progress(url: str, port: int, stop: threading.Event) -> None:
    """PROGRESS requests for unknown 2 kB upload ids, each dropped after a few milliseconds."""
    deadline = time.monotonic() + WINDOW_S

    def sender(index: int) -> None:
        with httpx.Client(base_url=url, timeout=0.02) as http:
            for _ in range(index, PROGRESS, CALLERS):
                if not _until(stop, deadline):
                    return
                with suppress(httpx.HTTPError):
                    http.get("/gradio_api/upload_progress", params={"upload_id": _id()})

    with ThreadPoolExecutor(CALLERS) as pool:
        list(pool.map(sender, range(CALLERS)))
    stop.wait(max(0.0, deadline - time.monotonic()))


def _id() -> str:
    return secrets.token_hex(1024)


def board_flood(url: str, port: int, stop: threading.Event) -> None:
    """FLOODERS clients calling /call/leaderboard back to back."""
    deadline = time.monotonic() + WINDOW_S

    def flooder(_: int) -> None:
        with GradioHTTP(url, VISIT_TIMEOUT_S, local_address=ATTACKER) as http:
            while _until(stop, deadline):
                try:
                    http.call("leaderboard", [])
                except (httpx.HTTPError, RuntimeError):
                    time.sleep(0.05)

    with ThreadPoolExecutor(FLOODERS) as pool:
        list(pool.map(flooder, range(FLOODERS)))


def deep_links(url: str, port: int, stop: threading.Event) -> None:
    """A session a search, each with a search of its own, and its deep link asked for."""
    deadline = time.monotonic() + WINDOW_S
    with GradioHTTP(url, VISIT_TIMEOUT_S, local_address=ATTACKER) as http:
        search = http.page_event("board-table", trigger="change")
        index = 0
        while _until(stop, deadline):
            index += 1
            session = uuid.uuid4().hex
            try:
                http.queue_call(search.fn_index, [f"zz{index}", *search.defaults[1:]], session)
                http.get(f"/gradio_api/deep_link?session_hash={session}")
            except (httpx.HTTPError, RuntimeError):
                time.sleep(0.05)


def free_probes(url: str, port: int, stop: threading.Event) -> str:
    """Decision files timing one episode at 1,000 times its reviewed time, each new; how many
    answers came free of the score limit (refused, and not counted)."""
    deadline = time.monotonic() + WINDOW_S
    rows = [
        json.loads(line)
        for line in (ROOT / "benchmarks/egoargus/demo/decision_private.jsonl")
        .read_text()
        .splitlines()
        if line.strip()
    ]
    timed = [r for r in rows if (r["intervention_time_s"] or 0) >= 10]
    free = scored = limited = 0
    with GradioHTTP(url, VISIT_TIMEOUT_S, local_address=ATTACKER) as http:
        for index, probe in enumerate(timed):
            if not _until(stop, deadline):
                break
            times = {probe["example_id"]: probe["intervention_time_s"] * 1000}
            entries = [
                {
                    "example_id": r["example_id"],
                    "assist": False,
                    "intervention_time_s": times.get(r["example_id"]),
                }
                for r in rows
            ]
            data = json.dumps(entries).encode() + b" " * index
            try:
                outcome = http.call("score", [file_data(http.upload("p.json", data)), "decision"])
            except (httpx.HTTPError, RuntimeError):
                time.sleep(0.2)
                continue
            if outcome.ok:
                scored += 1
            elif "Scoring is limited" in outcome.message:
                limited += 1
            elif "counts against your score limit" not in outcome.message:
                free += 1
    total = free + scored + limited
    return f"{free} of {total} free ({scored} scored, {limited} past the limit)"


@contextmanager
def _server(benchmark: str, env: dict[str, str]) -> Iterator[ServerProcess]:
    with ServerProcess(["app.py"], {"LEADERBOARD_BENCHMARK": benchmark, **env}) as server:
        yield server


def _attacked(name: str, benchmark: str, attack: Attack, env: dict[str, str]) -> list[Row]:
    with _server(benchmark, env) as server:
        visitor = Visitor(server.url, benchmark)
        quiet, under = Visits(), Visits()
        for _ in range(QUIET):
            visitor.visit(quiet)
        rss_before = rss_bytes(server.pid)
        stop = threading.Event()
        measured: list[str | None] = []
        attacker = threading.Thread(
            target=lambda: measured.append(attack(server.url, server.port, stop))
        )
        attacker.start()
        time.sleep(min(3.0, WINDOW_S / 4))  # let it take hold
        while attacker.is_alive() and under.count < WINDOW_S / VISIT_EVERY_S:
            started = time.monotonic()
            visitor.visit(under)
            time.sleep(max(0.0, VISIT_EVERY_S - (time.monotonic() - started)))
        stop.set()
        attacker.join(timeout=WINDOW_S + VISIT_TIMEOUT_S)
        rss_after = rss_bytes(server.pid)
    rows = [
        Row("P6", f"{name}: page p50, quiet / under attack", _pair(quiet.page_s, under.page_s)),
        Row("P6", f"{name}: score p50, quiet / under attack", _pair(quiet.score_s, under.score_s)),
        Row(
            "P6",
            f"{name}: visits refused or failed under attack",
            f"{len(under.failed)} of {under.count}"
            + (f" ({under.failed[0]})" if under.failed else ""),
            "0",
            not under.failed,
        ),
    ]
    if name in RSS_ROWS:
        grown = (rss_after - rss_before) / 2**20
        rows.append(Row("P6", f"{name}: server RSS growth", f"{grown:+.0f} MB"))
    if measured and measured[0] is not None:
        rows.append(Row("P6", f"{name}: the attack's answers", measured[0]))
    return rows


def _pair(quiet: list[float], under: list[float]) -> str:
    def p50(values: list[float]) -> str:
        return f"{statistics.median(values) * 1000:.0f} ms" if values else "none"

    return f"{p50(quiet)} / {p50(under)}"


ATTACKS: list[tuple[str, str, Attack, dict[str, str]]] = [
    ("slow file, /call", "egoargus", slow_file("call"), {}),
    ("slow file, /run", "egoargus", slow_file("run"), {}),
    (
        "trickled uploads",
        "egomemreason",
        trickled_uploads,
        {"LEADERBOARD_UPLOAD_CACHE_MB": str(TRICKLE_CACHE_MB)},
    ),
    (
        "tiny uploads",
        "egomemreason",
        tiny_uploads,
        {"LEADERBOARD_UPLOAD_CACHE_FILES": str(TINY_CACHE_FILES)},
    ),
    ("upload_progress", "egomemreason", upload_progress, {}),
    ("board flood", "egomemreason", board_flood, {}),
    ("empty lists, /call auto", "egoargus", slow_file("call", EMPTY_LISTS), {}),
    (
        "deep links",
        "egomemreason",
        deep_links,
        {
            "LEADERBOARD_UPLOAD_CACHE_FILES": str(LINKS_CACHE_FILES),
            "LEADERBOARD_UPLOAD_MAX_AGE_S": str(LINKS_AGE_S),
        },
    ),
    ("free probes", "egoargus", free_probes, {}),
]
#: The attacks whose rows say how the server's RSS grew over them.
RSS_ROWS = ("upload_progress", "empty lists, /call auto")


def run(only: Collection[str] = ()) -> list[Row]:
    """Every attack's rows, or those of the attacks named in ``only``."""
    rows: list[Row] = []
    for name, benchmark, attack, env in ATTACKS:
        if only and name not in only:
            continue
        print(f"  P6 {name} ...", flush=True)
        rows += _attacked(name, benchmark, attack, env)
    return rows


if __name__ == "__main__":
    import sys

    from perf.report import table

    print(table(run(sys.argv[1:])))
