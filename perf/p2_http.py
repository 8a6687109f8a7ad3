"""P2: /score over loopback HTTP on every track against the framework floor, timed in turns
within one run.

The floor: ``/floor`` of a minimal Gradio app started beside the Space (perf/floor_app.py: a
``gr.api`` that reads its file and ``json.loads`` it, returning a small constant dict). Every
track of every shipped benchmark is timed (``WORKLOADS``: EgoMemReason's, EgoArgus'
understanding and decision, each on perf/bench_app.py serving its benchmark); on EgoMemReason's
server ``/noop`` (a ``gr.api`` with /score's file parameter, doing nothing) too, for reference.

Also the large load (RSS growth over thousands of scores), head-of-line blocking (how long a
no-op waits while the server scores the most expensive hostile file that fits in 5 MB) and what
a new Gradio session costs (time and memory in process; RSS per /call over HTTP).
``BENCH_SESSIONS=gradio`` serves the bench app with Gradio's own sessions (perf/bench_app.py).
"""

from __future__ import annotations

import functools
import itertools
import os
import threading
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perf.report import Row, best_time, ms
from tests.support import hostile
from tests.support.gradio_http import GradioHTTP, file_data
from tests.support.load import Check, LoadResult, run_load
from tests.support.procs import ONE_CLIENT, ServerProcess, rss_bytes

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "benchmarks" / "egomemreason" / "demo" / "sample_submission.json"
P50_GOAL, THROUGHPUT_GOAL = 1.2, 0.8  # /score against the honest floor app (issue 33)
ROUNDS = 2  # the sides take turns, reversed each round: drift hits them alike
REQUESTS = {1: 150, 8: 400}  # per event per round
LARGE_LOAD = 2000
SESSION_BATCH, SESSION_STEPS = 400, 2  # 900 sessions with the warm-up: below the capacity
IN_PROCESS_SESSIONS = 200  # sessions held at once for tracemalloc
TIME_LIMIT_S = 120.0
RSS_GOAL_MB = 20.0
NOOP_LABEL = "no-op"  # bench_app's /noop: a gr.api like /score, doing nothing
FLOOR_LABEL = "floor app"  # perf/floor_app.py's /floor: the framework floor


def bench_server(benchmark: str = "egomemreason") -> ServerProcess:
    env = {"LEADERBOARD_SCORE_LIMIT": "100000000", "LEADERBOARD_BENCHMARK": benchmark}
    return ServerProcess(["-m", "perf.bench_app"], env={**env, **ONE_CLIENT, **_sessions_env()})


def _sessions_env() -> dict[str, str]:
    """BENCH_SESSIONS, forwarded to the bench app (``gradio``: Gradio's own sessions)."""
    value = os.environ.get("BENCH_SESSIONS")
    return {"BENCH_SESSIONS": value} if value else {}


def floor_server() -> ServerProcess:
    return ServerProcess(["-m", "perf.floor_app"], env=ONE_CLIENT)


@dataclass(frozen=True)
class Side:
    """One endpoint P2 times: its label in the table, its server and its api_name."""

    label: str
    url: str
    api: str
    check: Check | None = None
    extra: tuple[Any, ...] = ()  # the inputs after the file (a several-track page's track)


@dataclass(frozen=True)
class Workload:
    """One track's /score: its label, the benchmark served, the sample scored, the track input
    (None on a one-track page) and what the result's counts must be."""

    label: str
    benchmark: str
    sample: Path
    track: str | None
    counts: tuple[str, dict[str, int]]


EGOARGUS_DEMO = ROOT / "benchmarks" / "egoargus" / "demo"
WORKLOADS = (
    Workload(
        "EgoMemReason", "egomemreason", SAMPLE, None, ("overall", {"correct": 223, "total": 500})
    ),
    Workload(
        "EgoArgus understanding",
        "egoargus",
        EGOARGUS_DEMO / "sample_submission.json",
        "understanding",
        ("overall", {"correct": 3116, "total": 6978}),
    ),
    Workload(
        "EgoArgus decision",
        "egoargus",
        EGOARGUS_DEMO / "decision_sample_submission.json",
        "decision",
        ("decision_recall", {"correct": 400, "total": 550}),
    ),
)


def _merge(results: list[LoadResult]) -> LoadResult:
    merged = LoadResult(clients=results[0].clients)
    for result in results:
        merged.latencies_s += result.latencies_s
        merged.errors += result.errors
        merged.wall_s += result.wall_s
        merged.timed_out |= result.timed_out
    return merged


def _scored_as(workload: Workload, _: int, outputs: Any) -> str | None:
    """None if ``outputs`` are the workload's sample scored (its track, its counts)."""
    numbers = outputs[0] if isinstance(outputs, list) and len(outputs) == 1 else None
    name, counts = workload.counts
    if (
        not isinstance(numbers, dict)
        or numbers.get("counts", {}).get(name) != counts
        or numbers.get("track") != workload.track
    ):
        return f"unexpected outputs {str(outputs)[:120]}"
    return None


_scored = functools.partial(_scored_as, WORKLOADS[0])


def timed(
    sides: list[Side], payload: bytes, clients: int, via: str = "call", rounds: int = ROUNDS
) -> list[LoadResult]:
    """Each side's requests at ``clients`` clients, the sides taking turns: ``rounds`` rounds,
    every other one in reverse order, so drift on a shared machine hits every side alike."""
    runs: list[list[LoadResult]] = [[] for _ in sides]
    for round_ in range(rounds):
        order = list(enumerate(sides))
        if round_ % 2:
            order.reverse()
        for index, side in order:
            runs[index].append(
                run_load(
                    side.url,
                    side.api,
                    [payload],
                    clients=clients,
                    requests=REQUESTS[clients],
                    time_limit_s=TIME_LIMIT_S,
                    via=via,
                    check=side.check,
                    extra=side.extra,
                )
            )
    return [_merge(r) for r in runs]


def _latency_row(side: Side, result: LoadResult, clients: int, tag: str = "") -> Row:
    errors = f", {len(result.errors)} errors" if result.errors else ""
    first = f"; first: {result.errors[0][:80]}" if result.errors else ""
    return Row(
        "P2",
        f"{tag}{side.label}, {clients} client(s): p50 / p99 / throughput",
        f"{ms(result.percentile(50))} / {ms(result.percentile(99))} / "
        f"{result.throughput:.1f} req/s ({result.ok} requests{errors}{first})",
    )


def compare(
    score: Side,
    floor: Side,
    payload: bytes,
    others: tuple[Side, ...] = (),
    clients_list: tuple[int, ...] = (1, 8),
    tag: str = "",
) -> list[Row]:
    """/score against the floor app through the queue (/call), with the goals; ``others``
    (the no-op) timed in the same turns, their ratio for reference."""
    rows: list[Row] = []
    sides = [floor, score, *others]  # score in the middle of every round
    for clients in clients_list:
        results = timed(sides, payload, clients)
        rows += [_latency_row(s, r, clients, tag) for s, r in zip(sides, results, strict=True)]
        scored = results[1]
        for side, base in zip(sides, results, strict=True):
            if side is score:
                continue
            p50 = scored.percentile(50) / base.percentile(50)
            tput = scored.throughput / base.throughput if base.throughput else float("nan")
            ok = not scored.errors and not base.errors
            goal = side is floor
            rows.append(
                Row(
                    "P2",
                    f"{tag}score / {side.label} p50, {clients} client(s)",
                    f"{p50:.2f}x",
                    f"<= {P50_GOAL:g}x" if goal else "",
                    p50 <= P50_GOAL and ok if goal else None,
                )
            )
            rows.append(
                Row(
                    "P2",
                    f"{tag}score / {side.label} throughput, {clients} client(s)",
                    f"{tput:.2f}x",
                    f">= {THROUGHPUT_GOAL:g}x" if goal else "",
                    tput >= THROUGHPUT_GOAL and ok if goal else None,
                )
            )
    return rows


def reference(sides: list[Side], payload: bytes, via: str, tag: str) -> list[Row]:
    """Latency rows only, at 1 client: ways of calling that are not /score's."""
    results = timed(sides, payload, 1, via=via)
    return [_latency_row(s, r, 1, tag) for s, r in zip(sides, results, strict=True)]


def head_of_line(url: str, sample: bytes) -> list[Row]:
    """No-op latency while another visitor's worst-case hostile file is being scored."""
    bad = hostile.BUILDERS["million-zeros"](sample)
    latencies: list[float] = []
    done = threading.Event()
    hostile_s: list[float] = []

    def attacker() -> None:
        with GradioHTTP(url) as http:
            path = http.upload("hostile.json", bad)
            for _ in range(2):
                hostile_s.append(http.call("score", [file_data(path)]).elapsed_s)
        done.set()

    with GradioHTTP(url) as http:
        path = http.upload("noop.json", sample)
        idle = [http.call("noop", [file_data(path)]).elapsed_s for _ in range(20)]
        thread = threading.Thread(target=attacker, daemon=True)
        thread.start()
        deadline = time.monotonic() + TIME_LIMIT_S
        while not done.is_set() and time.monotonic() < deadline:
            latencies.append(http.call("noop", [file_data(path)]).elapsed_s)
        thread.join(timeout=30)
    idle.sort()
    return [
        Row(
            "P2",
            "no-op while a 5 MB hostile file is scored (million-zeros): worst",
            f"{ms(max(latencies, default=float('nan')))} (idle p50 {ms(idle[len(idle) // 2])}; "
            f"the hostile call took {ms(max(hostile_s, default=float('nan')))})",
        )
    ]


def large_load(url: str, pid: int, sample: bytes) -> list[Row]:
    """The larger version of tests/app/test_load.py: 8 browser-like clients (a session each)."""
    run_load(
        url, "score", [sample], clients=8, requests=200, time_limit_s=TIME_LIMIT_S, via="session"
    )
    before = rss_bytes(pid)
    result = run_load(
        url,
        "score",
        [sample],
        clients=8,
        requests=LARGE_LOAD,
        time_limit_s=4 * TIME_LIMIT_S,
        check=_scored,
        via="session",
    )
    grown = (rss_bytes(pid) - before) / 2**20
    limit_hit = " (time limit hit)" if result.timed_out else ""
    first = f"; first: {result.errors[0][:80]}" if result.errors else ""
    return [
        Row(
            "load",
            f"{LARGE_LOAD:,} scores from 8 browser-like clients: errors",
            f"{len(result.errors)}{limit_hit} of {result.ok + len(result.errors)}{first}",
            "0",
            not result.errors and result.ok == LARGE_LOAD,
        ),
        Row(
            "load",
            "server RSS growth over them (after a 200-score warm-up)",
            f"{grown:+.1f} MB (now {rss_bytes(pid) / 2**20:.0f} MB)",
            f"<= {RSS_GOAL_MB:g} MB",
            grown <= RSS_GOAL_MB,
        ),
    ]


def session_memory(pid: int, url: str, sample: bytes) -> list[Row]:
    """RSS per new Gradio session on a fresh server: every /call request (gradio_client,
    scripts) opens one; all of them are kept (fewer than the server's session capacity)."""
    run_load(url, "noop", [sample], clients=4, requests=100, time_limit_s=TIME_LIMIT_S)
    steps = [rss_bytes(pid)]
    for _ in range(SESSION_STEPS):
        run_load(
            url, "noop", [sample], clients=4, requests=SESSION_BATCH, time_limit_s=TIME_LIMIT_S
        )
        steps.append(rss_bytes(pid))
    growth = [(b - a) / 2**20 for a, b in itertools.pairwise(steps)]
    per_session_kb = (steps[-1] - steps[0]) / 1024 / (SESSION_BATCH * SESSION_STEPS)
    return [
        Row(
            "load",
            f"RSS growth per {SESSION_BATCH:,} no-op /call requests (a new "
            f"session each, all kept), {SESSION_STEPS} batches",
            " / ".join(f"{g:+.1f} MB" for g in growth) + f" (~{per_session_kb:.0f} kB per session)",
        )
    ]


def _session_cost(demo: Any, init: Any) -> tuple[float, float]:
    """(seconds to make one session of ``demo`` with ``init``, bytes one such session holds)."""
    from gradio.state_holder import SessionState

    def make() -> SessionState:
        state = SessionState.__new__(SessionState)
        init(state, demo)
        return state

    seconds = best_time(make)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = [make() for _ in range(IN_PROCESS_SESSIONS)]
    held = (tracemalloc.get_traced_memory()[0] - before) / len(kept)
    tracemalloc.stop()
    return seconds, held


def session_state() -> list[Row]:
    """What Gradio builds, on the event loop, for every new session (each /call is one): the
    bench app's with guard.sessions (each block's config on first read) and with Gradio's own
    SessionState.__init__ (every block's config at once), the floor app's. In process,
    timeit's rules for the time, tracemalloc over 200 sessions held for the memory."""
    from gradio.state_holder import SessionState

    from guard import sessions
    from perf import bench_app, floor_app

    bench, floor = bench_app.build(), floor_app.build()
    costs = {
        f"bench app ({len(bench.blocks)} blocks, guard.sessions)": _session_cost(
            bench, SessionState.__init__
        ),
        "bench app (Gradio's own)": _session_cost(bench, sessions.gradio_init),
        f"floor app ({len(floor.blocks)} blocks, Gradio's own)": _session_cost(
            floor, sessions.gradio_init
        ),
    }
    return [
        Row(
            "P2",
            "Gradio's state for a new session (every /call), time / memory: " + " / ".join(costs),
            " / ".join(f"{ms(t)}, {b / 1024:.1f} kB" for t, b in costs.values()),
        )
    ]


def run(large: bool = True) -> list[Row]:
    sample = SAMPLE.read_bytes()
    with (
        bench_server() as server,
        bench_server("egoargus") as argus,
        floor_server() as floor,
    ):
        noop = Side(NOOP_LABEL, server.url, "noop")
        floor_api = Side(FLOOR_LABEL, floor.url, "floor")
        scores: list[tuple[Workload, Side]] = []
        for workload in WORKLOADS:
            url = server.url if workload.benchmark == "egomemreason" else argus.url
            extra = () if workload.track is None else (workload.track,)
            check = functools.partial(_scored_as, workload)
            scores.append((workload, Side("score", url, "score", check, extra)))
        # Warm up every endpoint (first-call imports, caches) before anything is timed.
        warm = [(noop, sample), (floor_api, sample), (Side("", floor.url, "floor_event"), sample)]
        warm += [(side, w.sample.read_bytes()) for w, side in scores]
        for side, payload in warm:
            run_load(
                side.url,
                side.api,
                [payload],
                clients=2,
                requests=40,
                time_limit_s=60,
                extra=side.extra,
            )
        rows: list[Row] = []
        for workload, score in scores:
            others = (noop,) if score.url == server.url else ()
            rows += compare(
                score, floor_api, workload.sample.read_bytes(), others, tag=f"{workload.label}: "
            )
        rows += reference(
            [Side("floor app as a gr.File -> gr.JSON event", floor.url, "floor_event"), floor_api],
            sample,
            "call",
            "",
        )
        rows += head_of_line(server.url, sample)
        rows += session_state()
        if large:
            rows += large_load(server.url, server.pid, sample)
    if large:
        with bench_server() as fresh:
            rows += session_memory(fresh.pid, fresh.url, sample)
    return rows
