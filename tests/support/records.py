"""Leaderboard records made up for tests and benchmarks: ``record(i)`` is the i-th paper row of
egomemreason's track, the same bytes for the same ``i`` on every run.

>>> first = record(0)
>>> first == record(0), first.source, first.method_name, first.team_name
(True, 'paper', 'Method 0', 'Team 0')
>>> first.path()  # doctest: +ELLIPSIS
'submissions/....json'
"""

from __future__ import annotations

import functools
import uuid
from datetime import UTC, datetime

import ledger
import spec

BENCHMARK = "egomemreason"


@functools.cache
def benchmark() -> spec.Benchmark:
    """The benchmark the records are of (its spec read once, on first use)."""
    return spec.load_benchmark(BENCHMARK)


def record(i: int) -> ledger.Record:
    """The i-th paper record of the benchmark's first track: every metric ``i * 37 % 1000 / 10``,
    an id fixed by ``i``, one of 97 team names."""
    bench = benchmark()
    track = bench.track()
    overall = (i * 37 % 1000) / 10
    return ledger.Record(
        benchmark=bench.id,
        track=track.id,
        id=uuid.uuid5(uuid.NAMESPACE_URL, f"bench-record-{i}"),
        created_at=datetime(2026, 7, 13, tzinfo=UTC),
        source="paper",
        team_name=f"Team {i % 97}",
        method_name=f"Method {i}",
        model_size="8B",
        uses_external=None,
        uses_frames=None,
        metrics=dict.fromkeys(track.metric_keys, overall),
        counts=None,
        n_abstained=None,
        provenance=None,
    )
