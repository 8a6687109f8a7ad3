"""Memory held by results nobody reads (queue_limits.py): finding 7 of the security review.

``/gradio_api/call/leaderboard`` requests whose event streams are never read, from many
clients at once: the server keeps serving (Gradio's queue died of it before), its RSS growth
levels off (the growth for 2N requests is not twice that for N), and, in process, Gradio's
per-session structures stay within the bounds. Loopback only; every burst is bounded in count
and in time.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import gradio as gr
import httpx
import pytest

import app
from guard import event_shares, queue_limits
from tests.support.app_server import AppServer, served_in_process
from tests.support.gradio_http import GradioHTTP
from tests.support.procs import ONE_CLIENT, rss_bytes

UNBOUNDED = event_shares.EventPolicy(rate_per_s=1e9, burst=10**9)
CLIENTS = 32  # enough waiting events for Gradio's 2,000-session LRU to evict live ones
BURST = 1500
TIME_LIMIT_S = 120.0

# Gradio's analytics summary (run after every event) trips pandas 3 deprecations each time.
pytestmark = pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")


def unread_calls(url: str, count: int, clients: int = CLIENTS) -> Counter[str]:
    """``count`` POSTs of /gradio_api/call/leaderboard whose results are never read; how many
    got each answer ("200", "503 Queue is full.", ...)."""
    deadline = time.monotonic() + TIME_LIMIT_S
    answers: Counter[str] = Counter()
    lock = threading.Lock()

    def client(index: int) -> None:
        with httpx.Client(base_url=url, timeout=60) as http:
            for _ in range(index, count, clients):
                if time.monotonic() > deadline:
                    return
                answer = http.post("/gradio_api/call/leaderboard", json={"data": []})
                code = answer.status_code
                detail = "" if code == 200 else str(answer.json().get("detail"))
                detail = detail and " " + detail.partition(".")[0]  # "Queue is full. Max..."
                with lock:
                    answers[f"{code}{detail}"] += 1

    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(client, range(clients)))
    return answers


def settled_rss(pid: int, settle_s: float = 3.0) -> int:
    time.sleep(settle_s)
    return rss_bytes(pid)


def leaderboard_works(url: str) -> bool:
    with GradioHTTP(url, timeout_s=30) as http:
        return http.call("leaderboard", []).kind == "complete"


@pytest.fixture(scope="module")
def server() -> Iterator[AppServer]:
    # One client floods the queue here: its share of the events (test_event_shares.py's) is
    # lifted, so the queue's own bounds are what is tested.
    with AppServer(env=ONE_CLIENT) as running:
        yield running


@pytest.mark.server
def test_unread_results_neither_stop_the_queue_nor_grow_memory_without_bound(
    server: AppServer,
) -> None:
    assert leaderboard_works(server.url)
    # Warm-up, paced so most are served: Gradio's 1,000 session states (SESSION_CAPACITY,
    # ~80 kB each) fill up, a bound of their own that the bursts below need not show again.
    unread_calls(server.url, 1200, clients=4)
    base = settled_rss(server.pid)
    first = unread_calls(server.url, BURST)
    after_n = settled_rss(server.pid)
    second = unread_calls(server.url, BURST)
    after_2n = settled_rss(server.pid)
    answers = first + second
    # Gradio 6.31: its processing task died of a KeyError, and every later event got 503
    # "Queue is stopped" for good.
    assert leaderboard_works(server.url), server.log()[-2000:]
    assert set(answers) <= {"200", "503 Queue is full"}, answers
    assert answers["200"] >= queue_limits.MAX_QUEUED
    growth_n, growth_2n = after_n - base, after_2n - base
    # Without a bound the growth for 2N is twice that for N (+372 / +719 MB measured).
    assert growth_2n < 1.5 * max(growth_n, 20 * 2**20), (base, after_n, after_2n)


# --- in process: the structures themselves ------------------------------------------------------


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, gr.Blocks]]:
    """app.main's page served in this process (its queue is reachable), with an upload
    folder of its own."""
    # one client floods: the queue's bounds bind
    with served_in_process(tmp_path_factory.mktemp("uploads"), {}, events=UNBOUNDED) as served:
        yield served


def sizes(demo: gr.Blocks) -> dict[str, int]:
    queue: Any = demo._queue
    return {
        "sessions": len(queue.pending_messages_per_session),
        "event_ids": len(queue.pending_event_ids_session),
        "events": len(queue.event_ids_to_events),
        "waiting": len(queue),
        "analytics": len(queue.event_analytics),
        "states": len(demo.server_app.state_holder.session_data),
    }


@pytest.mark.server
def test_gradios_per_session_structures_stay_bounded(local: tuple[str, gr.Blocks]) -> None:
    url, demo = local
    seen: list[dict[str, int]] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            seen.append(sizes(demo))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        statuses = unread_calls(url, 2 * BURST)
    finally:
        done.set()
        watcher.join()
    assert leaderboard_works(url)
    assert statuses["200"] >= queue_limits.MAX_QUEUED, statuses
    peak = {k: max(s[k] for s in seen) for k in seen[0]}
    # Gradio checks the queue's size before it awaits a lock, then appends: pushes arriving
    # together may each pass the check, so up to one per client more than max_size wait.
    waiting = queue_limits.MAX_QUEUED + CLIENTS
    live = waiting + 16  # and those running (the events' concurrency limits)
    assert peak["waiting"] <= waiting, peak
    assert peak["sessions"] <= queue_limits.MAX_IDLE + live, peak
    assert peak["event_ids"] <= queue_limits.MAX_IDLE + live + queue_limits.MAX_IDLE, peak
    # Gradio records an event, then trims the records to the bound (queueing.py, Queue.push):
    # this watcher, on another thread, may read between the two, one record over.
    assert peak["analytics"] <= queue_limits.ANALYTICS_EVENTS + 1, peak
    assert peak["states"] <= app.SESSION_CAPACITY + CLIENTS, peak


class _Event:
    def __init__(self, session: str) -> None:
        self.session_hash = session


class _Queue:
    """What SessionMessages reads of Gradio's Queue."""

    def __init__(self) -> None:
        self.event_ids_to_events: dict[str, _Event] = {}
        self.pending_event_ids_session: dict[str, set[str]] = {}
        self.max_size: int | None = None
        self.ANALYTICS_MAX_EVENTS = 10_000


def test_only_idle_sessions_are_evicted_oldest_first() -> None:
    queue = _Queue()
    messages = queue_limits.SessionMessages(queue, max_idle=3)
    for name in "abcdef":
        if name in "ab":  # a and b have an event waiting, the others are done and unread
            queue.event_ids_to_events[f"event-{name}"] = _Event(name)
        queue.pending_event_ids_session[name] = {f"event-{name}"}
        messages[name] = f"messages of {name}"
    # Gradio's LRU(3) would have evicted a and b, whose events still wait: its processing
    # task then died of a KeyError for them. Here c went: three idle ones are kept.
    assert list(messages) == ["a", "b", "d", "e", "f"]
    assert set(queue.pending_event_ids_session) == {"a", "b", "d", "e", "f"}
    messages["e"] = "again"  # an existing session moves to the end, evicts nothing
    assert list(messages) == ["a", "b", "d", "f", "e"]
    del queue.event_ids_to_events["event-a"]  # a's event ran: a is idle now, and the oldest
    messages["g"] = "messages of g"
    assert list(messages) == ["b", "f", "e", "g"]
    for name in "hijklmn":  # many more: never more than 3 idle, b never goes
        messages[name] = f"messages of {name}"
        assert len(messages) <= 4 and "b" in messages


def test_bound_keeps_what_the_queue_held() -> None:
    queue: Any = _Queue()
    queue.pending_messages_per_session = gr.utils.LRUCache(2000)
    queue.pending_messages_per_session["x"] = "messages of x"
    queue_limits.bound(queue)
    assert isinstance(queue.pending_messages_per_session, queue_limits.SessionMessages)
    assert dict(queue.pending_messages_per_session) == {"x": "messages of x"}
    assert queue.max_size == queue_limits.MAX_QUEUED
    assert queue.ANALYTICS_MAX_EVENTS == queue_limits.ANALYTICS_EVENTS
    queue_limits.bound(queue, max_queued=5)  # twice changes nothing; a set size is kept
    assert queue.max_size == queue_limits.MAX_QUEUED
