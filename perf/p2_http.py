"""P2: /score over loopback HTTP against two baselines, timed in turns within one run.

The baselines: ``/noop`` of the same server (perf/bench_app.py: a ``gr.api`` with /score's
file parameter, doing nothing), and ``/floor`` of a minimal Gradio app started beside it
(perf/floor_app.py: a ``gr.api`` from a file to a small constant dict, the framework floor).

Also the large load (RSS growth over thousands of scores) and head-of-line blocking: how long
a no-op waits while the server scores the most expensive hostile file that fits in 5 MB.
"""

from __future__ import annotations

import functools
import itertools
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perf.report import Row, best_time, ms
from tests.support import hostile
from tests.support.gradio_http import GradioHTTP, file_data
from tests.support.load import Check, LoadResult, run_load
from tests.support.procs import ServerProcess, rss_bytes

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "benchmarks" / "egomemreason" / "demo" / "sample_submission.json"
P50_GOAL, THROUGHPUT_GOAL = 1.2, 0.8
ROUNDS = 2  # the sides take turns, reversed each round: drift hits them alike
REQUESTS = {1: 150, 8: 400}  # per event per round
LARGE_LOAD = 2000
SESSION_BATCH, SESSION_STEPS = 1000, 2
TIME_LIMIT_S = 120.0
RSS_GOAL_MB = 20.0
NOOP_LABEL = "no-op"  # bench_app's /noop: a gr.api like /score, doing nothing
FLOOR_LABEL = "floor app"  # perf/floor_app.py's /floor: the framework floor


def bench_server() -> ServerProcess:
    return ServerProcess(["-m", "perf.bench_app"], env={"LEADERBOARD_SCORE_LIMIT": "100000000"})


def floor_server() -> ServerProcess:
    return ServerProcess(["-m", "perf.floor_app"])


@dataclass(frozen=True)
class Side:
    """One endpoint P2 times: its label in the table, its server and its api_name."""

    label: str
    url: str
    api: str
    check: Check | None = None


def _merge(results: list[LoadResult]) -> LoadResult:
    merged = LoadResult(clients=results[0].clients)
    for result in results:
        merged.latencies_s += result.latencies_s
        merged.errors += result.errors
        merged.wall_s += result.wall_s
        merged.timed_out |= result.timed_out
    return merged


def _scored(_: int, outputs: Any) -> str | None:
    numbers = outputs[0] if isinstance(outputs, list) and len(outputs) == 1 else None
    if not isinstance(numbers, dict) or numbers.get("counts", {}).get("overall") != {
        "correct": 223,
        "total": 500,
    }:
        return f"unexpected outputs {str(outputs)[:120]}"
    return None


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
                )
            )
    return [_merge(r) for r in runs]


def _latency_row(side: Side, result: LoadResult, clients: int, tag: str = "") -> Row:
    errors = f", {len(result.errors)} errors" if result.errors else ""
    return Row(
        "P2",
        f"{side.label}{tag}, {clients} client(s): p50 / p99 / throughput",
        f"{ms(result.percentile(50))} / {ms(result.percentile(99))} / "
        f"{result.throughput:.1f} req/s ({result.ok} requests{errors})",
    )


def compare(
    score: Side, baselines: list[Side], payload: bytes, clients_list: tuple[int, ...] = (1, 8)
) -> list[Row]:
    """/score against each baseline through the queue (/call), with the goals."""
    rows: list[Row] = []
    sides = [baselines[0], score, *baselines[1:]]  # score in the middle of every round
    for clients in clients_list:
        results = timed(sides, payload, clients)
        rows += [_latency_row(s, r, clients) for s, r in zip(sides, results, strict=True)]
        scored = results[1]
        for side, base in zip(sides, results, strict=True):
            if side is score:
                continue
            p50 = scored.percentile(50) / base.percentile(50)
            tput = scored.throughput / base.throughput if base.throughput else float("nan")
            ok = not scored.errors and not base.errors
            rows.append(
                Row(
                    "P2",
                    f"score / {side.label} p50, {clients} client(s)",
                    f"{p50:.2f}x",
                    f"<= {P50_GOAL:g}x",
                    p50 <= P50_GOAL and ok,
                )
            )
            rows.append(
                Row(
                    "P2",
                    f"score / {side.label} throughput, {clients} client(s)",
                    f"{tput:.2f}x",
                    f">= {THROUGHPUT_GOAL:g}x",
                    tput >= THROUGHPUT_GOAL and ok,
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


def session_memory(url: str, pid: int, sample: bytes) -> list[Row]:
    """RSS per new Gradio session: every /call request (gradio_client, scripts) opens one."""
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
            f"session each), {SESSION_STEPS} batches",
            " / ".join(f"{g:+.1f} MB" for g in growth) + f" (~{per_session_kb:.0f} kB per session)",
            "bounded",
            growth[-1] <= RSS_GOAL_MB,
        )
    ]


def session_state() -> list[Row]:
    """What Gradio builds, on the event loop, for every new session (each /call is one): a
    SessionState with the config of every block. In process, timeit's rules."""
    from gradio.state_holder import SessionState

    from perf import bench_app, floor_app

    apps = {"bench app": bench_app.build(), "floor app": floor_app.build()}
    times = {
        name: (best_time(functools.partial(SessionState, demo)), len(demo.blocks))
        for name, demo in apps.items()
    }
    return [
        Row(
            "P2",
            "Gradio's state for a new session (every /call): " + " / ".join(apps),
            " / ".join(f"{ms(t)} ({n} blocks)" for t, n in times.values()),
        )
    ]


def run(large: bool = True) -> list[Row]:
    sample = SAMPLE.read_bytes()
    with bench_server() as server, floor_server() as floor:
        noop = Side(NOOP_LABEL, server.url, "noop")
        score = Side("score", server.url, "score", _scored)
        floor_api = Side(FLOOR_LABEL, floor.url, "floor")
        # Warm up every endpoint (first-call imports, caches) before anything is timed.
        for side in (noop, score, floor_api, Side("", floor.url, "floor_event")):
            run_load(side.url, side.api, [sample], clients=2, requests=40, time_limit_s=60)
        rows = compare(score, [noop, floor_api], sample)
        rows += reference(
            [Side("floor app as a gr.File -> gr.JSON event", floor.url, "floor_event"), floor_api],
            sample,
            "call",
            "",
        )
        rows += reference([noop, score, floor_api], sample, "run", " via /run")
        rows += head_of_line(server.url, sample)
        rows += session_state()
        if large:
            rows += large_load(server.url, server.pid, sample)
            rows += session_memory(server.url, server.pid, sample)
    return rows
