"""ledger.py through its real interfaces: the environment, files, and huggingface_hub talking
real HTTP to the loopback Hub (tests/hub_server.py). Nothing in huggingface_hub is patched."""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from huggingface_hub import HfApi, hf_hub_download
from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError

import evaluator
import ledger
import spec
from tests.support import ROOT
from tests.support.hub_server import READ_TOKEN, WRITE_TOKEN, HubServer, git_blob_id

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track()
KEY_NAME = TRACK.key.name
DEMO_KEY_BYTES = BENCH.demo_key(TRACK).read_bytes()
SAMPLE = (BENCH.demo_dir / "sample_submission.json").read_bytes()
PRIVATE = BENCH.hub.private_repo
BOARD = BENCH.hub.records_repo
SECRET = "hf_SuperSecretToken_do_not_leak_42"


class Clock:
    """An injectable clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def paper(overall: float = 50.0, **fields: Any) -> ledger.Record:
    values: dict[str, Any] = {
        "benchmark": BENCH.id,
        "track": TRACK.id,
        "id": uuid4(),
        "created_at": datetime(2026, 7, 13, tzinfo=UTC),
        "source": "paper",
        "team_name": "Team",
        "method_name": f"Method {overall:.3f}",
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


def rescored(**fields: Any) -> ledger.Record:
    key = evaluator.load_answer_key(TRACK, DEMO_KEY_BYTES)
    base: dict[str, Any] = {
        "team_name": "Lab",
        "method_name": "MemAgent",
        "model_size": "7B",
        "uses_external": False,
        "uses_frames": "frames-only",
    }
    base.update(fields)
    return ledger.rescored_record(evaluator.score(key, SAMPLE), BENCH, TRACK, **base)


def files_of(*records: ledger.Record) -> dict[str, bytes]:
    return {r.path(): r.to_json() for r in records}


def hub_config(hub: HubServer, token: str | None = READ_TOKEN, **env: str) -> ledger.Config:
    values = {"HF_ENDPOINT": hub.url, **({"HF_TOKEN": token} if token else {}), **env}
    return ledger.load_config(values)


def store_of(hub: HubServer, **kwargs: Any) -> ledger.HubStore:
    kwargs.setdefault("token", READ_TOKEN)
    return ledger.HubStore(BOARD, endpoint=hub.url, **kwargs)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.fixture
def board(hub: HubServer) -> HubServer:
    """The loopback Hub with the private key repo and an empty public leaderboard repo."""
    hub.create_repo(PRIVATE, private=True, files={KEY_NAME: DEMO_KEY_BYTES})
    hub.create_repo(BOARD)
    return hub


# --- configuration ----------------------------------------------------------------------------


def test_defaults_in_an_empty_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = ledger.load_config({})
    assert config == ledger.Config(
        benchmark=BENCH,
        answer_key_path=None,
        private_repo=PRIVATE,
        token=None,
        records_dir=None,
        records_repo=BOARD,
        cache_ttl_s=60.0,
        endpoint=None,
    )
    assert config.demo


def test_environment_is_read_when_no_mapping_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LEADERBOARD_CACHE_TTL_S", "2.5")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9/")
    monkeypatch.setenv("HF_TOKEN", " " + SECRET + " ")
    config = ledger.load_config()
    assert (config.cache_ttl_s, config.endpoint) == (2.5, "http://127.0.0.1:9")
    assert config.token == SECRET
    assert not config.demo


def test_a_key_in_the_working_folder_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "annotations_private.json").write_bytes(DEMO_KEY_BYTES)
    config = ledger.load_config({"LEADERBOARD_ANSWER_KEY": ""})  # empty means unset
    assert config.answer_key_path == tmp_path  # the folder that holds the key file
    status = ledger.load_key(config, TRACK)
    assert status.key is not None and status.origin.startswith("local file")
    # a copy of the demo key is still the synthetic key: the banner and the demo board
    assert config.shipped_demo_key and config.demo and status.demo


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("LEADERBOARD_ANSWER_KEY", "{tmp}/missing.json", "missing.json' (nothing is there;"),
        ("LEADERBOARD_ANSWER_KEY", "{tmp}", "(a folder without the key file of egomemreason"),
        ("LEADERBOARD_RECORDS_DIR", "{tmp}/nope", "nope' (no folder is there;"),
        ("LEADERBOARD_CACHE_TTL_S", "soon", "must be a number from 0 to 1,000,000,000, in"),
        ("LEADERBOARD_CACHE_TTL_S", "-1", "found '-1'"),
        ("LEADERBOARD_CACHE_TTL_S", "nan", "found 'nan'"),
        ("LEADERBOARD_CACHE_TTL_S", "inf", "found 'inf'"),
        ("LEADERBOARD_PRIVATE_REPO", "no-namespace", "namespace/name"),
        ("LEADERBOARD_RECORDS_REPO", "a/b/c", "namespace/name"),
        ("HF_ENDPOINT", "huggingface.co", "must be an http(s) URL"),
    ],
)
def test_bad_values_name_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str, expected: str
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ledger.ConfigError) as caught:
        ledger.load_config({name: value.format(tmp=tmp_path)})
    assert str(caught.value).startswith(name)
    assert expected in str(caught.value)


@pytest.mark.parametrize(
    ("content", "expected"),
    [(b"{oops", "not valid UTF-8 JSON"), (b"[]", "no questions of query type")],
)
def test_a_bad_local_key_fails_at_boot_naming_the_variable(
    tmp_path: Path, content: bytes, expected: str
) -> None:
    path = tmp_path / "key.json"
    path.write_bytes(content)
    config = ledger.load_config({"LEADERBOARD_ANSWER_KEY": str(path)})
    with pytest.raises(ledger.ConfigError, match=r"^LEADERBOARD_ANSWER_KEY") as caught:
        ledger.load_key(config, TRACK)
    assert expected in str(caught.value)


def test_the_token_is_not_in_the_config_repr() -> None:
    config = ledger.load_config({"HF_TOKEN": SECRET})
    assert SECRET not in repr(config) and SECRET not in str(config)


# --- the answer key ---------------------------------------------------------------------------


def test_key_is_downloaded_with_a_read_token(board: HubServer) -> None:
    status = ledger.load_key(hub_config(board), TRACK)
    assert status.key is not None and status.error is None and not status.demo
    assert status.key.sha256 == evaluator.load_answer_key(TRACK, DEMO_KEY_BYTES).sha256
    assert status.origin == f"{PRIVATE} on the Hub"
    assert {r.path for r in board.requests} == {
        f"/datasets/{PRIVATE}/resolve/main/annotations_private.json"
    }
    assert all(r.user == "reader" for r in board.requests)
    assert "questions=500" in repr(status)  # the key itself is not dumped


def test_the_private_repo_refuses_anonymous_clients(board: HubServer, tmp_path: Path) -> None:
    with pytest.raises(RepositoryNotFoundError):
        hf_hub_download(
            PRIVATE,
            KEY_NAME,
            repo_type="dataset",
            endpoint=board.url,
            token=False,
            cache_dir=tmp_path,
        )
    assert [r.status for r in board.requests] == [401]


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        (SECRET, "HTTP 401, the Hub refused HF_TOKEN (invalid or expired)"),
        (
            "hf_other_users_token_123",
            "HTTP 404, the repository was not found or HF_TOKEN has no read access to it",
        ),
    ],
)
def test_a_refused_token_disables_score_with_a_clear_reason(
    board: HubServer, token: str, expected: str
) -> None:
    board.add_token("hf_other_users_token_123", user="other", repos=[BOARD])
    status = ledger.load_key(hub_config(board, token=token), TRACK)
    assert status.key is None and not status.demo
    assert status.error is not None and expected in status.error
    assert PRIVATE in status.error and token not in status.error and token not in repr(status)


def test_a_missing_or_invalid_key_on_the_hub_is_reported(board: HubServer) -> None:
    board.commit(PRIVATE, deletes=[KEY_NAME])
    status = ledger.load_key(hub_config(board), TRACK)
    assert status.key is None and status.error is not None
    assert "the repository has no annotations_private.json" in status.error

    board.commit(PRIVATE, {KEY_NAME: b'{"samples": []}'})
    status = ledger.load_key(hub_config(board), TRACK)
    assert status.key is None and status.error is not None
    assert "is not a valid answer key" in status.error


def test_an_unreachable_hub_at_boot_returns_quickly(tmp_path: Path) -> None:
    config = ledger.load_config(
        {"HF_TOKEN": SECRET, "HF_ENDPOINT": f"http://127.0.0.1:{free_port()}"}
    )
    started = time.monotonic()
    status = ledger.load_key(config, TRACK, timeout_s=5)
    elapsed = time.monotonic() - started
    assert elapsed < 5  # refused at once; huggingface_hub's own back-off would take ~20 s
    assert status.key is None and status.error is not None
    assert "no answer (ConnectError" in status.error and SECRET not in status.error


def test_a_key_that_failed_at_boot_is_retried_once_per_interval(board: HubServer) -> None:
    now = [0.0]
    board.stop()
    keys = ledger.KeyLoader(hub_config(board), TRACK, retry_s=60, timeout_s=5, clock=lambda: now[0])
    assert keys().key is None
    board.start()
    board.reset_requests()
    now[0] = 59.0
    assert keys().key is None  # not yet: no request within the interval
    assert board.requests == []
    now[0] = 60.0
    status = keys()
    assert status.key is not None and status.error is None and len(status.key) == 500
    board.reset_requests()
    now[0] = 1000.0
    assert keys() is status and board.requests == []  # a loaded key is never fetched again


@pytest.mark.parametrize("stalled", ["HEAD", "GET"])
def test_a_stalled_hub_at_boot_is_bounded(board: HubServer, stalled: str) -> None:
    fault = board.inject("/resolve/", method=stalled, delay_s=60)
    started = time.monotonic()
    status = ledger.load_key(hub_config(board), TRACK, timeout_s=0.5)
    elapsed = time.monotonic() - started
    fault.release()  # let the abandoned download finish now rather than by its own timeouts
    assert elapsed < 5, elapsed  # 10x the bound; unbounded it would wait ~60 s
    assert status.key is None and status.error is not None and "no answer" in status.error
    for thread in threading.enumerate():
        if thread.name.startswith("ledger: "):
            thread.join(timeout=10)


def test_demo_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = ledger.load_config({})
    status = ledger.load_key(config, TRACK)
    assert status.demo and status.origin == "synthetic demo key" and status.error is None
    assert status.key is not None and len(status.key) == 500
    store = ledger.board_store(config)
    assert isinstance(store, ledger.LocalStore) and store.root == BENCH.demo_board
    snap = ledger.BoardCache(store, BENCH, TRACK).snapshot()
    assert not snap.stale and snap.error is None  # a missing demo board is an empty board


def test_a_missing_board_folder_is_an_empty_board(tmp_path: Path) -> None:
    snap = ledger.BoardCache(ledger.LocalStore(tmp_path / "absent"), BENCH, TRACK).snapshot()
    assert snap.records == () and not snap.stale and snap.last_success is not None


# --- the record schema ------------------------------------------------------------------------


def test_a_record_round_trips_through_its_canonical_bytes() -> None:
    record = rescored(created_at=datetime(2026, 7, 13, 12, tzinfo=timezone(timedelta(hours=2))))
    data = record.to_json()
    assert data.endswith(b"}\n") and ledger.Record.from_json(data) == record
    payload = json.loads(data)
    assert payload["created_at"] == "2026-07-13T10:00:00Z"
    assert list(payload) == sorted(payload) and payload["schema_version"] == 2
    assert (payload["benchmark"], payload["track"]) == ("egomemreason", "memory")
    assert payload["provenance"]["scorer_version"] == TRACK.scorer_version
    assert record.path() == f"submissions/{record.id}.json"
    assert ledger.Record.from_json(paper().to_json()).counts is None


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"created_at": datetime(2026, 7, 13)}, "created_at: must carry a time zone"),
        ({"project_url": "javascript:alert(1)"}, "project_url: must be an http(s) URL"),
        ({"uses_frames": "vibes"}, "uses_frames: must be one of frames-only"),
        ({"uses_external": "no"}, "uses_external: Input should be a valid boolean"),
        ({"metrics": {"overall": 50.0, "colour": 1.0}}, "metrics: must have keys among overall"),
        ({"metrics": {"entity": 50.0}}, "metrics: must have keys among overall, entity"),
        ({"metrics": dict.fromkeys(TRACK.metric_keys, 101.0)}, "between 0 and 100"),
        ({"team_name": "  "}, "team_name: must not be blank"),
        ({"schema_version": 3}, "unsupported schema_version 3"),
        ({"schema_version": 1}, "a schema 1 record names no benchmark or track"),
        ({"benchmark": None}, "a schema 2 record names its benchmark and track"),
        ({"track": "decision"}, "it belongs to egomemreason/decision, not egomemreason/memory"),
        ({"benchmark": "egoargus"}, "it belongs to egoargus/memory"),
        ({"counts": {}}, "a paper record carries no counts"),
        ({"provenance": None, "source": "rescored"}, "a rescored record needs counts, n_abstained"),
        ({"supersedes": "SELF"}, "cannot supersede itself"),
        ({"colour": "red"}, "colour: Extra inputs are not permitted"),
    ],
)
def test_invalid_records_are_refused_with_the_field_named(
    change: dict[str, Any], expected: str
) -> None:
    payload = json.loads(paper().to_json())
    payload.update({k: v.isoformat() if isinstance(v, datetime) else v for k, v in change.items()})
    if payload.get("supersedes") == "SELF":
        payload["supersedes"] = payload["id"]
    with pytest.raises(ledger.RecordError) as caught:
        ledger.parse_record(json.dumps(payload).encode(), BENCH, TRACK)
    assert expected in str(caught.value)


def test_rescored_metrics_must_match_their_counts() -> None:
    payload = json.loads(rescored().to_json())
    payload["metrics"]["overall"] += 1
    with pytest.raises(ledger.RecordError, match="metrics do not match counts for overall"):
        ledger.parse_record(json.dumps(payload).encode(), BENCH, TRACK)


# --- the board from the Hub -------------------------------------------------------------------


def test_a_thousand_records_then_incremental_refreshes(board: HubServer) -> None:
    board.page_size = 300  # exercises cursor paging: 4 pages for 1,000 records
    records = [paper(overall=(i * 7919) % 1000 / 10) for i in range(1000)]
    board.commit(BOARD, files_of(*records))
    cache = ledger.BoardCache(store_of(board), BENCH, TRACK, clock=Clock())

    snap = cache.snapshot()
    assert len(snap.records) == 1000 and snap.skipped == () and not snap.stale
    overall = [r.metrics["overall"] for r in snap.records]
    assert overall == sorted(overall, reverse=True)
    assert board.count("GET", f"/api/datasets/{BOARD}") == 1 + 4  # info + tree pages
    assert board.count("GET", "/resolve/") == 1000
    assert len(board.requests) == 1005

    board.reset_requests()
    cache.refresh()  # nothing changed
    assert [(r.method, r.path) for r in board.requests] == [
        ("GET", f"/api/datasets/{BOARD}/revision/main")
    ]

    newcomer = paper(overall=100.0, method_name="Newcomer")
    board.commit(BOARD, files_of(newcomer))
    board.reset_requests()
    snap = cache.refresh()
    assert snap.records[0] == newcomer and len(snap.records) == 1001
    downloads = [r.path for r in board.requests if "/resolve/" in r.path]
    assert downloads == [f"/datasets/{BOARD}/resolve/{board.head(BOARD)}/{newcomer.path()}"]
    assert len(board.requests) == 1 + 4 + 1  # info, 4 listing pages (1,001 entries), 1 record


def test_a_new_record_appears_after_the_ttl_and_not_before(board: HubServer) -> None:
    clock = Clock()
    first = paper(overall=10)
    board.commit(BOARD, files_of(first))
    cache = ledger.BoardCache(store_of(board), BENCH, TRACK, ttl_s=60, clock=clock)
    assert cache.snapshot().records == (first,)

    second = paper(overall=20)
    board.commit(BOARD, files_of(second))
    board.reset_requests()
    clock.now += 59.9
    assert cache.snapshot().records == (first,)
    assert board.requests == []  # within the TTL the cache does not even ask
    clock.now += 0.1
    snap = cache.snapshot()
    assert snap.records == (second, first) and snap.last_success == clock.now


def test_the_hub_going_away_serves_stale_data_and_logs_once(
    board: HubServer, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    first = paper(overall=10)
    board.commit(BOARD, files_of(first))
    cache = ledger.BoardCache(store_of(board, timeout_s=2), BENCH, TRACK, ttl_s=60, clock=clock)
    loaded_at = clock.now
    assert cache.snapshot().records == (first,)

    board.stop()
    caplog.set_level(logging.INFO, logger="ledger")
    for _ in range(3):
        clock.now += 61
        snap = cache.snapshot()
        assert snap.stale and snap.records == (first,) and snap.last_success == loaded_at
        assert snap.age_s(clock.now) == pytest.approx(clock.now - loaded_at)
        assert snap.error is not None and "no answer (ConnectError" in snap.error
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "leaderboard refresh failed" in warnings[0].getMessage()

    board.start()  # back, with a record added while it was away
    second = paper(overall=20)
    board.commit(BOARD, files_of(second))
    clock.now += 30
    assert cache.snapshot().stale  # still within the TTL of the failed attempt
    clock.now += 30
    snap = cache.snapshot()
    assert not snap.stale and snap.error is None and snap.records == (second, first)
    assert "succeeded again" in caplog.records[-1].getMessage()


def test_a_stalled_hub_does_not_hold_the_board_for_long(board: HubServer) -> None:
    board.commit(BOARD, files_of(paper()))
    cache = ledger.BoardCache(store_of(board, timeout_s=0.3), BENCH, TRACK, clock=Clock())
    assert len(cache.snapshot().records) == 1
    fault = board.inject(f"/api/datasets/{BOARD}", delay_s=60)
    started = time.monotonic()
    snap = cache.refresh()
    elapsed = time.monotonic() - started
    fault.release()
    assert snap.stale and len(snap.records) == 1 and snap.error is not None
    assert "ReadTimeout" in snap.error and elapsed < 3, elapsed  # 10x the bound


def test_malformed_records_are_skipped_and_named_once(
    board: HubServer, caplog: pytest.LogCaptureFixture
) -> None:
    good = paper(overall=30)
    mismatched = paper(overall=40)
    bad_json = f"submissions/{uuid4()}.json"
    bad_schema = f"submissions/{uuid4()}.json"
    wrong_name = f"submissions/{uuid4()}.json"
    board.commit(
        BOARD,
        {
            **files_of(good),
            bad_json: b"{not json",
            bad_schema: json.dumps({"id": str(uuid4())}).encode(),
            wrong_name: mismatched.to_json(),
            "submissions/README.md": b"not a record",
        },
    )
    caplog.set_level(logging.WARNING, logger="ledger")
    cache = ledger.BoardCache(store_of(board), BENCH, TRACK, clock=Clock())
    snap = cache.snapshot()
    assert snap.records == (good,) and not snap.stale
    assert sorted(snap.skipped) == sorted([bad_json, bad_schema, wrong_name])
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert f"{bad_json}: record: Invalid JSON" in logged
    assert f"{bad_schema}: " in logged and "source: Field required" in logged
    assert f"{wrong_name}: its id {mismatched.id} does not match the file name" in logged

    board.commit(BOARD, {"README.md": b"changed"})
    board.reset_requests()
    caplog.clear()
    assert cache.refresh().skipped == snap.skipped
    assert board.count("GET", "/resolve/") == 0 and caplog.records == []  # known, not re-logged


def test_errors_and_garbage_for_one_record_skip_it_until_it_heals(
    board: HubServer, caplog: pytest.LogCaptureFixture
) -> None:
    a, b, c = paper(overall=10), paper(overall=20), paper(overall=30)
    board.commit(BOARD, files_of(a, b, c))
    board.inject(b.path(), status=503)
    board.inject(c.path(), body=b'{"garbage": true}')
    caplog.set_level(logging.WARNING, logger="ledger")
    cache = ledger.BoardCache(store_of(board), BENCH, TRACK, clock=Clock())
    snap = cache.snapshot()
    assert snap.records == (a,) and sorted(snap.skipped) == sorted([b.path(), c.path()])
    assert not snap.stale  # the Hub answered: only those records are missing
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert f"{b.path()}: " in logged and "HTTP 503" in logged
    assert f"{c.path()}: " in logged and "do not match the listed content id" in logged

    board.clear_faults()
    board.reset_requests()
    snap = cache.refresh()  # head unchanged: only the two failed records are fetched again
    assert snap.records == (c, b, a) and snap.skipped == ()
    assert sorted(
        r.path.rsplit("/", 1)[-1] for r in board.requests if "/resolve/" in r.path
    ) == sorted([f"{b.id}.json", f"{c.id}.json"])
    assert board.count() == 3


def test_superseded_records_are_hidden(board: HubServer) -> None:
    original = paper(overall=40)
    correction = paper(overall=45, supersedes=original.id)
    orphan = paper(overall=30, supersedes=uuid4())  # supersedes nothing on the board: shown
    board.commit(BOARD, files_of(original, correction, orphan))
    snap = ledger.BoardCache(store_of(board), BENCH, TRACK).snapshot()
    assert snap.records == (correction, orphan)


def test_concurrent_callers_share_one_refresh(board: HubServer) -> None:
    board.commit(BOARD, files_of(paper()))
    clock = Clock()
    cache = ledger.BoardCache(store_of(board), BENCH, TRACK, clock=clock)
    stall = board.inject(f"/api/datasets/{BOARD}/revision/main$", delay_s=0.3)
    results: list[ledger.BoardSnapshot] = []

    def call() -> None:
        results.append(cache.snapshot())

    def run_callers() -> None:
        threads = [threading.Thread(target=call) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=10)

    run_callers()  # first load: everyone waits for the one refresh under way
    assert stall.fired == 1 and [len(s.records) for s in results] == [1] * 8

    board.commit(BOARD, files_of(paper(overall=60)))
    clock.now += 61
    results.clear()
    started = time.monotonic()
    run_callers()  # later: one caller refreshes, the others get the current board at once
    assert stall.fired == 2
    assert sorted(len(s.records) for s in results) == [1] * 7 + [2]
    assert time.monotonic() - started < 5


# --- writing ----------------------------------------------------------------------------------


def test_a_hub_commit_names_method_and_team_and_never_overwrites(board: HubServer) -> None:
    record = rescored(method_name="MemAgent-7B", team_name="UNC")
    store = store_of(board, token=WRITE_TOKEN)
    url = store.write(record, ledger.commit_message(record, TRACK))
    assert url == f"{board.url}/datasets/{BOARD}/commit/{board.head(BOARD)}"
    assert board.files(BOARD)[record.path()] == record.to_json()
    message = board.commit_messages(BOARD)[-1]
    assert message.startswith("Add MemAgent-7B by UNC (re-scored, overall ")

    head = board.head(BOARD)
    clone = record.model_copy(update={"method_name": "Impostor"})
    with pytest.raises(ledger.RecordExistsError, match="already exists"):
        store.write(clone, "overwrite attempt")
    assert board.head(BOARD) == head and board.files(BOARD)[record.path()] == record.to_json()


def test_a_concurrent_commit_cannot_slip_in(board: HubServer) -> None:
    store = store_of(board, token=WRITE_TOKEN)
    record = paper()
    # Between the existence check and the commit, someone else commits something unrelated:
    # the commit carries parent_commit, is refused with 412, and the write checks again.
    board.inject("/preupload/", times=1, before=lambda: board.commit(BOARD, {"other.txt": b"x"}))
    store.write(record, "first")
    assert board.commit_messages(BOARD)[-2:] == [
        "Update files",
        f"first\n\nRecord {record.id} (paper).",
    ]
    assert board.count("POST", "/commit/") == 2

    # This time the concurrent commit adds the very same record: the retry sees it and refuses.
    twin = paper()
    board.inject("/preupload/", times=1, before=lambda: board.commit(BOARD, files_of(twin)))
    with pytest.raises(ledger.RecordExistsError):
        store.write(twin, "second")
    assert board.commit_messages(BOARD)[-1] == "Update files"


def test_a_read_token_cannot_publish(board: HubServer) -> None:
    board.add_token(SECRET, user="space")
    with pytest.raises(ledger.LedgerError, match="HTTP 403") as caught:
        store_of(board, token=SECRET).write(paper(), "Add a paper row")
    assert SECRET not in str(caught.value)
    assert board.files(BOARD).keys() == {".gitattributes"}


def test_local_folder_mode(tmp_path: Path) -> None:
    config = ledger.load_config({"LEADERBOARD_RECORDS_DIR": str(tmp_path), "HF_TOKEN": SECRET})
    store = ledger.board_store(config)
    assert isinstance(store, ledger.LocalStore) and store.root == tmp_path
    clock = Clock()
    cache = ledger.BoardCache(store, BENCH, TRACK, ttl_s=60, clock=clock)
    assert cache.snapshot().records == ()

    first = rescored()
    assert store.write(first) == str(tmp_path / first.path())
    with pytest.raises(ledger.RecordExistsError):
        store.write(first.model_copy(update={"team_name": "Other"}))
    assert (tmp_path / first.path()).read_bytes() == first.to_json()
    assert sorted(p.name for p in (tmp_path / "submissions").iterdir()) == [f"{first.id}.json"]

    (tmp_path / "submissions" / f"{uuid4()}.json").write_text("[]")
    clock.now += 59
    assert cache.snapshot().records == ()
    clock.now += 1
    snap = cache.snapshot()
    assert snap.records == (first,) and len(snap.skipped) == 1
    with pytest.raises(ledger.LedgerError, match="not a record path"):
        store.read("../secrets.json")


def test_concurrent_local_writes_of_one_record_create_it_once(tmp_path: Path) -> None:
    store = ledger.LocalStore(tmp_path)
    record = paper()
    outcomes: list[str] = []

    def write() -> None:
        try:
            store.write(record)
            outcomes.append("written")
        except ledger.RecordExistsError:
            outcomes.append("exists")

    threads = [threading.Thread(target=write) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert sorted(outcomes) == ["exists"] * 7 + ["written"]
    assert [p.name for p in (tmp_path / "submissions").iterdir()] == [f"{record.id}.json"]


# --- secrets and side effects -----------------------------------------------------------------


def test_the_token_never_appears_in_logs_errors_or_reprs(
    board: HubServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, huggingface_hub's included
    board.add_token(SECRET, user="space", repos=[BOARD])
    config = hub_config(board, token=SECRET)
    texts = [repr(config), str(config)]
    texts += [repr(ledger.load_key(config, TRACK)), str(ledger.load_key(config, TRACK).error)]
    store = ledger.board_store(config)
    board.commit(BOARD, {f"submissions/{uuid4()}.json": b"{}"})
    cache = ledger.BoardCache(store, BENCH, TRACK, clock=Clock())
    texts += [repr(store), repr(cache.snapshot())]
    for attempt in (lambda: store.write(paper(), "m"), lambda: store.read("submissions/x.json")):
        with pytest.raises(ledger.LedgerError) as caught:
            attempt()
        texts.append(str(caught.value))
    board.stop()
    texts += [repr(cache.refresh()), str(ledger.load_key(config, TRACK, timeout_s=1).error)]
    texts += [r.getMessage() for r in caplog.records]
    assert len(texts) > 10 and not [t for t in texts if SECRET in t]


@pytest.mark.slow
def test_importing_ledger_does_no_io() -> None:
    # What ledger imports is loaded first: the libraries' own imports are not ledger's I/O.
    code = """
import sys
import ast, pathlib
ours = ("ledger",)  # spec and evaluator are loaded first, as any other import
for path in pathlib.Path("ledger").glob("*.py"):
    for node in ast.parse(path.read_text()).body:
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [
            a.name for a in getattr(node, "names", [])]
        if isinstance(node, (ast.Import, ast.ImportFrom)) and not any(
                n.split(".")[0] in ours for n in names):
            exec(compile(ast.Module([node], []), "ledger-imports", "exec"))
seen = []
sys.addaudithook(lambda event, args: seen.append((event, str(args[0])))
                 if event in ("open", "socket.connect", "os.scandir") else None)
import ledger
print([s for s in seen if not s[1].endswith((".py", ".pyc"))])
"""
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


# --- the loopback Hub itself ------------------------------------------------------------------


def test_the_loopback_hub_speaks_what_the_client_expects(board: HubServer, tmp_path: Path) -> None:
    api = HfApi(endpoint=board.url, token=WRITE_TOKEN)
    assert api.whoami()["name"] == "maintainer"
    url = api.create_repo(BOARD, repo_type="dataset", exist_ok=True)  # 409 carries the url
    assert url == f"{board.url}/datasets/{BOARD}"
    board.page_size = 2
    board.commit(BOARD, {f"d/{i}.json": b"%d" % i for i in range(5)})
    listed = [f.path for f in api.list_repo_tree(BOARD, "d", repo_type="dataset")]
    assert listed == [f"d/{i}.json" for i in range(5)]
    assert board.count("GET", "/tree/") == 3
    assert api.dataset_info(BOARD, expand=["sha"]).sha == board.head(BOARD)
    path = hf_hub_download(
        BOARD,
        "d/3.json",
        repo_type="dataset",
        endpoint=board.url,
        token=READ_TOKEN,
        cache_dir=tmp_path,
    )
    assert Path(path).read_bytes() == b"3"
    with pytest.raises(HfHubHTTPError) as caught:
        HfApi(endpoint=board.url, token=READ_TOKEN).delete_file(
            "d/0.json", BOARD, repo_type="dataset"
        )
    assert caught.value.response.status_code == 403
    assert git_blob_id(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # git's empty blob


def test_the_loopback_hub_serves_ranges(board: HubServer) -> None:
    import httpx2

    board.commit(BOARD, {"f.bin": b"0123456789"})
    url = f"{board.url}/datasets/{BOARD}/resolve/main/f.bin"
    with httpx2.Client() as client:
        part = client.get(url, headers={"Range": "bytes=2-4"})
        assert (part.status_code, part.content) == (206, b"234")
        assert part.headers["Content-Range"] == "bytes 2-4/10"
        head = client.head(url)
        assert head.headers["ETag"] == f'"{git_blob_id(b"0123456789")}"'
        assert head.headers["X-Repo-Commit"] == board.head(BOARD)
        missing = client.get(url.replace("f.bin", "nope"))
        assert missing.status_code == 404 and missing.headers["X-Error-Code"] == "EntryNotFound"


# --- one benchmark among several --------------------------------------------------------------


@pytest.mark.parametrize(("old", "new"), sorted(ledger.config.RENAMED.items()))
def test_an_old_variable_stops_the_boot_naming_its_new_name(old: str, new: str) -> None:
    with pytest.raises(ledger.ConfigError) as caught:
        ledger.load_config({old: "1"})
    assert f"{old} is now {new}" in str(caught.value)


def test_the_benchmark_is_chosen_by_id_or_folder_and_its_repos_are_the_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    argus = ledger.load_config({"LEADERBOARD_BENCHMARK": "egoargus"})
    assert argus.benchmark.id == "egoargus"
    assert (argus.private_repo, argus.records_repo) == (
        argus.benchmark.hub.private_repo,
        argus.benchmark.hub.records_repo,
    )
    by_path = ledger.load_config({"LEADERBOARD_BENCHMARK": str(ROOT / "benchmarks" / "egoargus")})
    assert by_path.benchmark == argus.benchmark
    with pytest.raises(
        ledger.ConfigError, match=r"^LEADERBOARD_BENCHMARK must be .*no benchmark 'nope'"
    ):
        ledger.load_config({"LEADERBOARD_BENCHMARK": "nope"})
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "benchmark.toml").write_text('id = "Bad Id"\n')
    with pytest.raises(
        ledger.ConfigError, match=r"(?s)^LEADERBOARD_BENCHMARK must be .*- id: expected"
    ):
        ledger.load_config({"LEADERBOARD_BENCHMARK": str(broken)})


def test_records_of_another_benchmark_or_track_are_skipped_with_a_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ours, theirs = paper(50.0), paper(60.0, benchmark="egoargus", track="understanding")
    other_track = paper(70.0, track="decision")
    store = ledger.LocalStore(tmp_path)
    for record in (ours, theirs, other_track):
        store.write(record)
    with caplog.at_level(logging.WARNING):
        snap = ledger.BoardCache(store, BENCH, TRACK, clock=Clock()).snapshot()
    assert [r.id for r in snap.records] == [ours.id]
    assert set(snap.skipped) == {theirs.path(), other_track.path()}
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "it belongs to egoargus/understanding, not egomemreason/memory" in logged
    assert "it belongs to egomemreason/decision" in logged


def test_schema_1_records_belong_to_the_track_the_spec_names_for_them(tmp_path: Path) -> None:
    payload = json.loads(paper(42.0).to_json())
    payload.update(schema_version=1)
    del payload["benchmark"], payload["track"]
    (tmp_path / "submissions").mkdir()
    (tmp_path / "submissions" / f"{payload['id']}.json").write_text(json.dumps(payload))
    store = ledger.LocalStore(tmp_path)
    assert [
        r.metrics["overall"] for r in ledger.BoardCache(store, BENCH, TRACK).snapshot().records
    ] == [42.0]
    argus = spec.load_benchmark("egoargus")
    assert argus.unnamed_records_track is None
    snap = ledger.BoardCache(store, argus, argus.track()).snapshot()
    assert snap.records == () and len(snap.skipped) == 1


def test_a_key_that_disagrees_with_its_spec_disables_score_with_the_reason(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    samples = json.loads(DEMO_KEY_BYTES)["samples"][:-1]  # one Activity Pattern question short
    path = tmp_path / KEY_NAME
    path.write_text(json.dumps(samples))
    config = ledger.load_config({"LEADERBOARD_ANSWER_KEY": str(path)})
    with caplog.at_level(logging.ERROR):
        status = ledger.load_key(config, TRACK)
    assert status.key is None and status.error is not None
    assert "disagrees with" in status.error and "benchmark.toml" in status.error
    assert "Activity Pattern has 49 (expected 50)" in status.error
    assert "Score is disabled" in status.error and "validate_benchmark.py" in status.error
    assert any("Activity Pattern has 49" in r.getMessage() for r in caplog.records)


def test_the_egoargus_demo_key_loads_in_demo_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = ledger.load_config({"LEADERBOARD_BENCHMARK": "egoargus"})
    track = config.benchmark.track()
    status = ledger.load_key(config, track)
    assert status.demo and status.key is not None and len(status.key) == 6978
    assert ledger.board_store(config).root == config.benchmark.demo_board  # type: ignore[attr-defined]


def test_a_real_key_asking_the_demo_keys_questions_is_not_demo_mode(tmp_path: Path) -> None:
    """Issue 19: an author built the demo from the release, so the real key asks the demo
    key's questions; with its own answers it is the real key, served without the demo banner
    and on the board the configuration names."""
    payload = json.loads(DEMO_KEY_BYTES)
    for sample in payload["samples"]:  # the real answers: another letter of each question
        letters = sorted(sample["options"])
        sample["correct_answer"] = letters[(letters.index(sample["correct_answer"]) + 1) % 2]
    key_path = tmp_path / KEY_NAME
    key_path.write_text(json.dumps(payload))
    board = tmp_path / "board"
    board.mkdir()
    env = {"LEADERBOARD_ANSWER_KEY": str(key_path), "LEADERBOARD_RECORDS_DIR": str(board)}
    config = ledger.load_config(env)
    status = ledger.load_key(config, TRACK)
    assert status.key is not None and evaluator.same_questions(status.key, _demo_key())
    assert not config.demo and not status.demo
    assert not config.shipped_demo_key
    assert ledger.board_store(config).root == board  # type: ignore[attr-defined]
    # Without a board named, it is the records dataset's (not the demo board).
    assert isinstance(
        ledger.board_store(ledger.load_config(env | {"LEADERBOARD_RECORDS_DIR": ""})),
        ledger.HubStore,
    )
    # The shipped demo key given as the local key is still demo mode: the configuration says so.
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / KEY_NAME).write_bytes(DEMO_KEY_BYTES)
    config = ledger.load_config({"LEADERBOARD_ANSWER_KEY": str(copy)})
    assert config.shipped_demo_key and config.demo and ledger.load_key(config, TRACK).demo


def _demo_key() -> evaluator.AnyKey:
    return evaluator.load_answer_key(TRACK, DEMO_KEY_BYTES)
