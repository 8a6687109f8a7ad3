"""A record's card names the commit that added it: HubStore.added_in and BoardCache.added_in,
through the real huggingface_hub client and real HTTP to the loopback Hub (tests/hub_server.py)."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import uuid4

import httpx2
import pytest
from huggingface_hub import HfApi, RepoFile

import ledger
import ledger.stores
import spec
from tests.support.hub_server import READ_TOKEN, WRITE_TOKEN, HubServer

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track()
BOARD = BENCH.hub.records_repo
PATHS_INFO = "/paths-info/"


class Clock:
    """An injectable clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def paper(overall: float, **fields: Any) -> ledger.Record:
    values: dict[str, Any] = {
        "benchmark": BENCH.id,
        "track": TRACK.id,
        "id": uuid4(),
        "created_at": datetime(2026, 7, 13, tzinfo=UTC),
        "source": "paper",
        "team_name": "Team",
        "method_name": f"Method {overall:g}",
        "model_size": "8B",
        "uses_external": None,
        "uses_frames": None,
        "metrics": dict.fromkeys(TRACK.metric_keys, overall),
        "counts": None,
        "n_abstained": None,
        "provenance": None,
    }
    values.update(fields)
    return ledger.Record(**values)


@pytest.fixture
def board(hub: HubServer) -> HubServer:
    hub.create_repo(BOARD)
    return hub


@pytest.fixture
def clock() -> Clock:
    return Clock()


def publish(hub: HubServer, record: ledger.Record) -> str:
    """Write through HubStore.write (a real commit over HTTP); returns the commit id."""
    writer = ledger.HubStore(BOARD, endpoint=hub.url, token=WRITE_TOKEN)
    url = writer.write(record, ledger.commit_message(record, TRACK))
    return url.rsplit("/", 1)[-1]


def board_of(hub: HubServer, clock: Clock, **kwargs: Any) -> ledger.BoardCache:
    store = ledger.HubStore(BOARD, endpoint=hub.url, token=READ_TOKEN, clock=clock, **kwargs)
    cache = ledger.BoardCache(store, BENCH, TRACK, clock=clock)
    cache.snapshot()  # the page has loaded the board before any card opens
    return cache


def test_two_records_in_two_commits_each_name_their_own_commit(
    board: HubServer, clock: Clock
) -> None:
    first, second = paper(40), paper(60)
    first_sha, second_sha = publish(board, first), publish(board, second)
    board.commit(BOARD, {"README.md": b"# board"}, message="Describe the board")  # touches neither
    assert len({first_sha, second_sha, board.head(BOARD)}) == 3
    cache = board_of(board, clock)
    board.reset_requests()

    added = {r.id: cache.added_in(str(r.id)) for r in (first, second)}
    commits = {c.sha: c for c in board.repo(BOARD).commits}
    for record, sha in ((first, first_sha), (second, second_sha)):
        got = added[record.id]
        assert got is not None and got.commit == sha
        assert got.title == ledger.commit_message(record, TRACK).splitlines()[0]
        assert got.title.startswith(f"Add {record.method_name} by Team")
        assert got.url == f"{board.url}/datasets/{BOARD}/commit/{sha}"
        assert got.date.tzinfo is not None
        assert timedelta(0) <= commits[sha].date - got.date < timedelta(milliseconds=1)
    at_board_head = f"/api/datasets/{BOARD}/paths-info/{board.head(BOARD)}"
    assert [(r.method, r.path) for r in board.requests] == [("POST", at_board_head)] * 2

    board.reset_requests()
    assert cache.added_in(str(first.id)) == added[first.id]
    assert cache.added_in(str(second.id).upper()) == added[second.id]
    assert board.requests == []  # remembered: records are never rewritten


def test_the_loopback_hub_answers_last_commits_as_the_client_parses_them(
    board: HubServer,
) -> None:
    record = paper(50)
    sha = publish(board, record)
    board.commit(BOARD, {"README.md": b"x"})
    api = HfApi(endpoint=board.url, token=READ_TOKEN)
    [info] = api.get_paths_info(BOARD, [record.path()], repo_type="dataset", expand=True)
    assert isinstance(info, RepoFile) and info.last_commit is not None
    assert info.last_commit.oid == sha
    [folder] = api.get_paths_info(BOARD, ["submissions"], repo_type="dataset", expand=True)
    assert folder.last_commit is not None and folder.last_commit.oid == sha
    [plain] = api.get_paths_info(BOARD, [record.path()], repo_type="dataset")
    assert isinstance(plain, RepoFile) and plain.last_commit is None  # only when expanded
    # The Hub takes a JSON body too; the answer is the same.
    answer = httpx2.post(
        f"{board.url}/api/datasets/{BOARD}/paths-info/main",
        json={"paths": [record.path()], "expand": True},
    )
    assert answer.json()[0]["lastCommit"]["id"] == sha
    assert answer.json()[0]["lastCommit"]["date"].endswith("Z")


def test_a_failing_hub_gives_none_once_logged_and_heals_after_the_window(
    board: HubServer, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    record = paper(50)
    sha = publish(board, record)
    cache = board_of(board, clock)
    board.inject(PATHS_INFO, status=503, times=1)
    board.reset_requests()
    caplog.set_level(logging.INFO, logger="ledger")

    assert cache.added_in(str(record.id)) is None  # no exception reaches the card
    clock.now += ledger.stores.COMMIT_RETRY_S - 1
    assert cache.added_in(str(record.id)) is None
    assert board.count("POST", PATHS_INFO) == 1  # the failure is remembered, not re-asked
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "HTTP 503" in warnings[0], warnings
    assert READ_TOKEN not in caplog.text

    clock.now += 1
    added = cache.added_in(str(record.id))
    assert added is not None and added.commit == sha
    assert board.count("POST", PATHS_INFO) == 2
    assert "works again" in caplog.records[-1].getMessage()


@pytest.mark.parametrize(
    "fault", [{"body": b"<html>garbage</html>"}, {"body": b"[]"}, {"status": 404}]
)
def test_a_wrong_answer_gives_none(board: HubServer, clock: Clock, fault: dict[str, Any]) -> None:
    record = paper(50)
    publish(board, record)
    cache = board_of(board, clock)
    board.inject(PATHS_INFO, times=1, **fault)
    assert cache.added_in(str(record.id)) is None
    clock.now += ledger.stores.COMMIT_RETRY_S
    assert cache.added_in(str(record.id)) is not None


def test_a_hub_that_does_not_answer_costs_one_bounded_wait(board: HubServer, clock: Clock) -> None:
    records = [paper(40), paper(50), paper(60)]
    for record in records:
        publish(board, record)
    cache = board_of(board, clock, timeout_s=0.3)
    board.reset_requests()
    stall = board.inject(PATHS_INFO, delay_s=60)
    started = time.monotonic()
    assert cache.added_in(str(records[0].id)) is None
    # Another card while the Hub is silent: no second wait, no request.
    assert cache.added_in(str(records[1].id)) is None
    elapsed = time.monotonic() - started
    board.clear_faults()  # releases the stalled request
    assert elapsed < 3, elapsed  # 10x the timeout
    assert stall.fired == 1  # one request reached the Hub

    board.stop()
    clock.now += ledger.stores.COMMIT_RETRY_S
    assert cache.added_in(str(records[2].id)) is None  # connection refused
    board.start()
    assert cache.added_in(str(records[2].id)) is None  # still within the window
    clock.now += ledger.stores.COMMIT_RETRY_S
    assert all(cache.added_in(str(r.id)) is not None for r in records)


def test_a_local_board_and_an_unknown_id_give_none(
    board: HubServer, clock: Clock, tmp_path: Path
) -> None:
    record = paper(50)
    local = ledger.LocalStore(tmp_path)
    local.write(record)
    local_board = ledger.BoardCache(local, BENCH, TRACK, clock=clock)
    assert local_board.snapshot().records == (record,)
    assert local_board.added_in(str(record.id)) is None

    publish(board, record)
    cache = board_of(board, clock)
    board.reset_requests()
    assert cache.added_in(str(uuid4())) is None
    assert cache.added_in("not an id") is None
    assert board.requests == []  # an id the board does not hold is never asked about


def test_a_superseded_record_still_names_its_commit(board: HubServer, clock: Clock) -> None:
    old = paper(40)
    old_sha = publish(board, old)
    publish(board, paper(45, supersedes=old.id))
    cache = board_of(board, clock)
    assert old not in cache.snapshot().records
    added = cache.added_in(str(old.id))
    assert added is not None and added.commit == old_sha


def test_remembered_commits_are_bounded(
    board: HubServer, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ledger.stores, "COMMIT_CACHE_SIZE", 2)
    records = [paper(40), paper(50), paper(60)]
    for record in records:
        publish(board, record)
    cache = board_of(board, clock)
    board.reset_requests()
    for record in records:
        assert cache.added_in(str(record.id)) is not None
    assert cache.added_in(str(records[2].id)) is not None  # still remembered
    assert board.count("POST", PATHS_INFO) == 3
    assert cache.added_in(str(records[0].id)) is not None  # the oldest was forgotten
    assert board.count("POST", PATHS_INFO) == 4
