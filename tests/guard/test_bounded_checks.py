"""Issue 30, finding 2: bounded work before the refusal memo, against ``python app.py`` over HTTP.

EgoArgus' "Detect from the file" parsed the whole file to guess its track before the memo of
refused files was read: one 5 MB upload (a list of ~1.7 million empty lists), sent again and
again without spending a score slot, cost a second of parsing per call; visitors' page loads
went from 0.05 s to seconds, and the process grew by ~130 MB a file and kept it. A 256 kB file
of the same kind stopped the event loop for a full garbage collection of the server's heap.

Now the memo is read by the file's sha256 before anything parses it, a guess reads at most the
file's first ``track_fit.SAMPLE_BYTES``, a file over ``THREAD_SCORE_BYTES`` is hashed, guessed
and scored in a worker thread, only a refusal's words leave that thread, the heap built at
boot is frozen and glibc returns what a check freed (``guard.heap``). Each page load is timed
during the attack against the same visitor's quiet ones, as a ratio.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from tests.support.app_server import AppServer
from tests.support.gradio_http import GradioHTTP, PageEvent, file_data
from tests.support.procs import rss_bytes

UNDER = 5 * 2**20 - 64 * 1024  # inside the upload limit
ATTACKER = "127.0.0.2"
VISITS = 6  # page loads quiet, and as many under attack
ATTACK_LIMIT_S = 60.0  # an attack stops by then, whatever the visits
#: A page load during an attack may take this many times its quiet median (before: ~50x).
SLOWER_AT_MOST = 3.0


def empty_lists(size: int, variant: int = 0) -> bytes:
    """A JSON list of empty lists, ``size`` bytes or so; ``variant`` spaces make its bytes new."""
    return b"[" + b"[]," * (size // 3 - 1) + b"[]]" + b" " * variant


@pytest.fixture(scope="module")
def server() -> Iterator[AppServer]:
    with AppServer(env={"LEADERBOARD_BENCHMARK": "egoargus"}) as running:
        yield running


def page_loads(url: str, event: PageEvent, count: int, first: int) -> list[float]:
    """``count`` fresh visitors' page loads (the page, then the board's load event), each from
    a loopback address of its own; seconds each."""
    times = []
    for index in range(first, first + count):
        with GradioHTTP(url, local_address=f"127.0.1.{index}") as http:
            start = time.perf_counter()
            http.get("/").raise_for_status()
            outcome = http.queue_call(event.fn_index, event.defaults)
            assert outcome.ok, outcome.message
            times.append(time.perf_counter() - start)
    return times


def under_attack(url: str, attack: Callable[[threading.Event], None]) -> float:
    """The median of ``VISITS`` page loads while ``attack(stop)`` runs (until ``stop`` is set),
    over the median of as many quiet ones."""
    with GradioHTTP(url) as http:
        board = http.page_event("board-table")
    quiet = page_loads(url, board, VISITS, 1)
    stop = threading.Event()
    attacker = threading.Thread(target=attack, args=(stop,))
    attacker.start()
    try:
        time.sleep(2.5)  # under way: a new file's one check (~1.5 s of parsing) is done
        during = page_loads(url, board, VISITS, 10)
    finally:
        stop.set()
        attacker.join(timeout=60)
    ratio = statistics.median(during) / statistics.median(quiet)
    print(f"page loads: quiet {quiet}, under attack {during}, x{ratio:.1f}")
    return ratio


def call_until(http: GradioHTTP, path: str, stop: threading.Event | float) -> int:
    """/score with track "auto" on the uploaded ``path``, again and again until ``stop`` (an
    event set, or a time passed); how many were made (past the client's share of the events
    they are refused 429, then tried again)."""
    made = 0

    def going() -> bool:
        if isinstance(stop, float):
            return time.monotonic() < stop
        return not stop.is_set() and time.monotonic() < deadline

    deadline = time.monotonic() + ATTACK_LIMIT_S
    while going():
        try:
            outcome = http.call("score", [file_data(path), "auto"])
            assert outcome.kind == "error" and "cannot be scored" in outcome.message
            made += 1
        except httpx.HTTPStatusError as exc:
            assert exc.response.status_code == 429
            time.sleep(0.1)
    return made


@pytest.mark.server
def test_one_hostile_file_sent_again_and_again_leaves_page_loads_as_they_were(
    server: AppServer,
) -> None:
    def attack(stop: threading.Event) -> None:
        with GradioHTTP(server.url, local_address=ATTACKER) as http:
            path = http.upload("lists.json", empty_lists(UNDER))
            call_until(http, path, stop)

    assert under_attack(server.url, attack) <= SLOWER_AT_MOST


@pytest.mark.server
def test_the_same_file_fired_from_four_callers_at_once_leaves_page_loads_as_they_were(
    server: AppServer,
) -> None:
    def attack(stop: threading.Event) -> None:
        with GradioHTTP(server.url, local_address=ATTACKER) as http:
            path = http.upload("lists.json", empty_lists(UNDER, variant=1))

        def caller() -> None:
            with GradioHTTP(server.url, local_address=ATTACKER) as http:
                call_until(http, path, stop)

        callers = [threading.Thread(target=caller) for _ in range(4)]
        for thread in callers:
            thread.start()
        for thread in callers:
            thread.join()

    assert under_attack(server.url, attack) <= SLOWER_AT_MOST


@pytest.mark.server
def test_new_256_kb_files_one_after_another_leave_page_loads_as_they_were(
    server: AppServer,
) -> None:
    """Each file is new, so each is checked: a full collection of the server's heap per file
    stopped the event loop for 120-400 ms before."""

    def attack(stop: threading.Event) -> None:
        with GradioHTTP(server.url, local_address=ATTACKER) as http:
            for variant in range(10, 40):  # within the client's share of the upload cache
                if stop.is_set():
                    return
                path = http.upload("lists.json", empty_lists(256 * 1024, variant))
                call_until(http, path, time.monotonic() + 0.01)

    assert under_attack(server.url, attack) <= SLOWER_AT_MOST


@pytest.mark.server
def test_memory_a_hostile_file_took_comes_back() -> None:
    """Three new 5 MB files (what the client's share of the upload cache holds), each checked
    once, then each sent again: the server keeps none of their parses (before: ~130 MB held
    after one file, +180 MB after three)."""
    with AppServer(env={"LEADERBOARD_BENCHMARK": "egoargus"}) as app:
        with GradioHTTP(app.url, local_address=ATTACKER) as http:
            warm = http.upload("lists.json", b"[[]]")
            call_until(http, warm, time.monotonic() + 0.5)
            time.sleep(1.0)
            before = rss_bytes(app.pid)
            paths = [http.upload("lists.json", empty_lists(UNDER, v)) for v in range(3)]
            for path in paths * 2:
                outcome = http.call("score", [file_data(path), "auto"])
                assert outcome.kind == "error" and "cannot be scored" in outcome.message
        time.sleep(2.0)
        grown = (rss_bytes(app.pid) - before) / 2**20
    print(f"RSS grew {grown:.0f} MB")
    assert grown < 40, f"the server kept {grown:.0f} MB"
