"""P3: board refresh against the loopback Hub: cold, warm with no change, warm with one new record.

The real huggingface_hub client and ledger.HubStore talk HTTP to tests/support/hub_server.py;
the Hub counts every request. The records are tests/support/records.py's paper rows.
"""

from __future__ import annotations

import time

import ledger
from perf.report import Row, ms
from tests.support.hub_server import HubServer
from tests.support.records import benchmark, record

SIZES = (1_000, 10_000)
REPO = "bench/Leaderboard"
NO_CHANGE_GOAL = 2


def _timed_refresh(hub: HubServer, board: ledger.BoardCache) -> tuple[float, int, int]:
    hub.reset_requests()
    start = time.perf_counter()
    snapshot = board.refresh()
    elapsed = time.perf_counter() - start
    if snapshot.stale:
        raise RuntimeError(f"the refresh failed: {snapshot.error}")
    return elapsed, len(hub.requests), len(snapshot.records)


def run() -> list[Row]:
    rows: list[Row] = []
    bench = benchmark()
    for n in SIZES:
        with HubServer() as hub:
            hub.create_repo(REPO, files={r.path(): r.to_json() for r in map(record, range(n))})
            board = ledger.BoardCache(
                ledger.HubStore(REPO, endpoint=hub.url), bench, bench.track(), ttl_s=3600
            )
            cold_s, cold_n, shown = _timed_refresh(hub, board)
            same_s, same_n, _ = _timed_refresh(hub, board)
            hub.commit(REPO, {record(n).path(): record(n).to_json()})
            one_s, one_n, after = _timed_refresh(hub, board)
            if shown != n or after != n + 1 or hub.errors:
                raise RuntimeError(
                    f"board showed {shown} then {after} of {n} records; "
                    f"hub errors: {hub.errors[:3]}"
                )
        rows += [
            Row("P3", f"{n:,} records: cold refresh", f"{ms(cold_s)}, {cold_n:,} requests"),
            Row(
                "P3",
                f"{n:,} records: warm, no change",
                f"{ms(same_s)}, {same_n} requests",
                f"<= {NO_CHANGE_GOAL} requests",
                same_n <= NO_CHANGE_GOAL,
            ),
            Row("P3", f"{n:,} records: warm, 1 new record", f"{ms(one_s)}, {one_n} requests"),
        ]
    return rows
