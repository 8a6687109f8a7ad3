"""A small, bounded load on a real server (``python app.py``): 8 clients score 500 submissions.

The clients speak the browser's protocol (one Gradio session per client, as a tab keeps), so
RSS growth measures the app, not Gradio's per-session state: API calls through /call open a
new session each, which Gradio keeps (~85 kB each, up to 10,000 sessions); BENCHMARKS.md
measures that separately. Loopback only; every loop is bounded in count and in time
(tests.support.load). The larger load runs in ``make bench``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import evaluator
import spec
from tests.support.app_server import AppServer
from tests.support.load import run_load
from tests.support.procs import ONE_CLIENT, rss_bytes

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track()
DEMO = BENCH.demo_dir
KEY = evaluator.load_answer_key(TRACK, (DEMO / "annotations_private.json").read_bytes())
SAMPLE = json.loads((DEMO / "sample_submission.json").read_bytes())
CLIENTS, WARM_UP, REQUESTS = 8, 64, 500
TIME_LIMIT_S = 120.0
RSS_GROWTH_LIMIT = 20 * 2**20


def variants(n: int = 4) -> list[bytes]:
    """``n`` different valid submissions: the first 100*v answers of the sample set to "A"."""
    out = []
    for v in range(n):
        entries = [
            dict(e, predicted_answer="A") if i < 100 * v else e for i, e in enumerate(SAMPLE)
        ]
        out.append(json.dumps(entries).encode())
    return out


PAYLOADS = variants()
EXPECTED = [evaluator.score(KEY, p) for p in PAYLOADS]


def right_numbers(which: int, outputs: Any) -> str | None:
    """Each response carries the numbers of its own file, not of a concurrent one."""
    numbers = outputs[0] if isinstance(outputs, list) and len(outputs) == 1 else None
    if not isinstance(numbers, dict):
        return f"no numbers in {str(outputs)[:100]}"
    expected = EXPECTED[which]
    if numbers.get("submission_sha256") != expected.submission_sha256:
        return f"the numbers of another file ({str(numbers.get('submission_sha256'))[:12]})"
    if numbers.get("counts") != {k: c.model_dump() for k, c in expected.counts.items()}:
        return f"wrong counts {numbers.get('counts')}"
    return None


def test_variants_score_differently() -> None:
    assert len({json.dumps(r.model_dump(mode="json")["counts"]) for r in EXPECTED}) == len(PAYLOADS)


@pytest.mark.server
def test_500_scores_from_8_clients_without_errors_or_memory_growth() -> None:
    with AppServer(env={"LEADERBOARD_SCORE_LIMIT": "100000", **ONE_CLIENT}) as server:
        assert server.proc is not None
        warm = run_load(
            server.url,
            "score",
            PAYLOADS,
            clients=CLIENTS,
            requests=WARM_UP,
            time_limit_s=TIME_LIMIT_S,
            check=right_numbers,
            via="session",
        )
        assert warm.errors == [] and warm.ok == WARM_UP
        before = rss_bytes(server.proc.pid)
        result = run_load(
            server.url,
            "score",
            PAYLOADS,
            clients=CLIENTS,
            requests=REQUESTS,
            time_limit_s=TIME_LIMIT_S,
            check=right_numbers,
            via="session",
        )
        grown = rss_bytes(server.proc.pid) - before
        scored = server.log().count("scored one submission")
    assert result.errors == [], result.errors[:5]
    assert result.ok == REQUESTS and not result.timed_out
    assert scored == WARM_UP + REQUESTS
    assert grown <= RSS_GROWTH_LIMIT, f"RSS grew by {grown / 2**20:.1f} MB"
