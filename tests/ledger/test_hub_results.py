"""ledger.hub_results and ledger.hub_pulls against the loopback Hub, with the real
huggingface_hub client (issue 32): the Hub's own leaderboard of a benchmark read bounded and
cached, its failures kept to itself; a file read from a model repo, bounded."""

from __future__ import annotations

import json
import logging
import time

import pytest
import yaml

import ledger
from ledger import hub_pulls, hub_results
from tests.support.hub_server import READ_TOKEN, HubServer

DATASET = "org/bench"
EVAL_YAML = b"name: B\ndescription: d\nevaluation_framework: x\ntasks:\n  - id: memory\n"


def result(value: float, **extra: object) -> bytes:
    item = {"dataset": {"id": DATASET, "task_id": "memory"}, "value": value, **extra}
    return yaml.safe_dump([item]).encode()


@pytest.fixture
def bench_hub(hub: HubServer) -> HubServer:
    """A benchmark dataset and two models reporting on it: one merged, one in a pull request."""
    hub.create_repo(DATASET, files={"eval.yaml": EVAL_YAML})
    hub.create_repo("lab/merged", repo_type="model", files={".eval_results/b.yaml": result(61.25)})
    hub.create_repo("lab/proposed", repo_type="model")
    hub.commit(
        "lab/proposed",
        {
            ".eval_results/b.yaml": result(
                70.5, source={"url": "https://example.org/run", "name": "Run"}, notes="no tools"
            )
        },
        repo_type="model",
    )
    return hub


def test_the_hub_s_leaderboard_is_read_as_the_client_reads_it(bench_hub: HubServer) -> None:
    rows = hub_results.read_leaderboard(DATASET, endpoint=bench_hub.url)
    assert [(r.rank, r.model_id, r.value) for r in rows] == [
        (1, "lab/proposed", 70.5),
        (2, "lab/merged", 61.25),
    ]
    first = rows[0]
    assert (first.source_url, first.source_name, first.notes) == (
        "https://example.org/run",
        "Run",
        "no tools",
    )
    assert first.hub_verified is False and first.pull_request is None


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"x" * (hub_results.MAX_BYTES + 10), "the answer is over 2 MB; not read"),
        (b"{}", "expected a JSON list of entries"),
        (b"[{]", "expected a JSON list of entries"),
    ],
    ids=["too-big", "an-object", "not-json"],
)
def test_an_answer_that_is_no_leaderboard_is_one_line(
    bench_hub: HubServer, body: bytes, words: str
) -> None:
    bench_hub.inject("/leaderboard$", body=body)
    with pytest.raises(ledger.LedgerError, match=words):
        hub_results.read_leaderboard(DATASET, endpoint=bench_hub.url)


def test_a_dataset_that_is_no_benchmark_and_a_refusal_keep_the_token_out(
    bench_hub: HubServer,
) -> None:
    bench_hub.create_repo("org/plain")
    with pytest.raises(ledger.LedgerError, match="HTTP 404"):
        hub_results.read_leaderboard("org/plain", endpoint=bench_hub.url, token=READ_TOKEN)
    secret = "hf_NotAKnownTokenAtAll_0123456789"
    with pytest.raises(ledger.LedgerError) as refused:
        hub_results.read_leaderboard(DATASET, endpoint=bench_hub.url, token=secret)
    assert "HTTP 401" in str(refused.value) and secret not in str(refused.value)


def test_an_entry_is_shown_only_as_far_as_it_is_safe(bench_hub: HubServer) -> None:
    hostile = [
        {"rank": 1, "modelId": "../../etc", "value": 99, "filename": "x", "verified": True,
         "author": {"type": "user", "name": "x"}},
        {"rank": 2, "modelId": "lab/ok", "value": "NaN-ish", "filename": "x", "verified": False,
         "author": {"type": "user", "name": "x"}},
        {"rank": 3, "modelId": "lab/ok", "value": 50, "filename": "x", "verified": "yes",
         "author": {"type": "org", "name": "lab"},
         "source": {"url": "javascript:alert(1)", "name": "x\u202ey"},
         "pullRequest": True, "notes": "a\nnote " + "n" * 1000},
    ]  # fmt: skip
    bench_hub.inject("/leaderboard$", body=json.dumps(hostile).encode())
    [row] = hub_results.read_leaderboard(DATASET, endpoint=bench_hub.url)
    assert (row.model_id, row.value, row.hub_verified, row.pull_request) == (
        "lab/ok",
        50.0,
        False,
        None,
    )
    assert row.source_url is None and row.source_name is None
    assert row.notes is not None and "\n" not in row.notes and len(row.notes) <= 300


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_the_cache_reads_once_per_ttl_and_keeps_the_last_good_rows_when_the_hub_fails(
    bench_hub: HubServer, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    cache = ledger.HubResultsCache(DATASET, endpoint=bench_hub.url, ttl_s=60, clock=clock)
    first = cache.results()
    assert len(first.rows) == 2 and first.error is None and first.last_success == 1_000.0
    assert cache.results() is first and bench_hub.count("GET", "/leaderboard") == 1
    bench_hub.inject("/leaderboard$", status=503)
    clock.now += 61
    with caplog.at_level(logging.WARNING):
        failed = cache.results()
        clock.now += 61
        cache.results()
    assert failed.rows == first.rows and failed.last_success == 1_000.0
    assert failed.error is not None and "HTTP 503" in failed.error
    assert len([r for r in caplog.records if "could not be read" in r.message]) == 1
    bench_hub.clear_faults()
    assert cache.results(floor_s=5).error is not None  # a visitor's Refresh, within the floor
    clock.now += 6
    assert cache.results(floor_s=5).error is None  # and past it, whatever the TTL


def test_a_silent_hub_costs_the_cache_its_bound_and_no_more(bench_hub: HubServer) -> None:
    fault = bench_hub.inject("/leaderboard$", delay_s=30)
    cache = ledger.HubResultsCache(DATASET, endpoint=bench_hub.url, timeout_s=0.5)
    started = time.monotonic()
    read = cache.results()
    took = time.monotonic() - started
    fault.release()
    assert read.rows == () and read.error is not None and "no answer" in read.error
    assert took < 5  # the bound (0.5 s) and the thread's start, not the Hub's 30 s


def test_a_model_s_file_is_read_bounded_and_a_missing_one_is_none(bench_hub: HubServer) -> None:
    read = hub_pulls.read_file(
        "lab/merged", ".eval_results/b.yaml", repo_type="model", endpoint=bench_hub.url
    )
    assert read == result(61.25)
    missing = hub_pulls.read_file(
        "lab/merged", ".eval_results/none.yaml", repo_type="model", endpoint=bench_hub.url
    )
    assert missing is None
    bench_hub.commit(
        "lab/merged",
        {".eval_results/big.yaml": b"#" * (hub_pulls.MAX_FILE_BYTES + 1)},
        repo_type="model",
    )
    with pytest.raises(ledger.LedgerError, match="not read: is this the right repo"):
        hub_pulls.read_file(
            "lab/merged", ".eval_results/big.yaml", repo_type="model", endpoint=bench_hub.url
        )
