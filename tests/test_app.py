"""app.py in-process: the pure table logic, and every handler through the mounted FastAPI app."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import gradio as gr
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import app
import evaluator
import ledger

ROOT = Path(__file__).resolve().parent.parent
DEMO_KEY_BYTES = (ROOT / "demo" / "annotations_private.json").read_bytes()
SAMPLE = (ROOT / "demo" / "sample_submission.json").read_bytes()
KEY = evaluator.load_answer_key(DEMO_KEY_BYTES)
TOKEN = "hf_secretTokenThatMustNeverLeak0123456789"


def _record(method: str, overall: float, source: str = "rescored", **extra: Any) -> ledger.Record:
    per = {k: evaluator.Count(correct=round(overall * n / 100), total=n)
           for k, n in evaluator.SPLIT_SIZES.items()}
    counts = evaluator.aggregate(per)
    metrics = evaluator.metrics_from_counts(counts)
    fields: dict[str, Any] = {
        "id": uuid.uuid5(uuid.NAMESPACE_URL, method),
        "created_at": datetime(2026, 9, 1, tzinfo=UTC),
        "source": source, "team_name": extra.pop("team_name", "Team " + method),
        "method_name": method, "model_size": extra.pop("model_size", "7B"),
        "uses_external": extra.pop("uses_external", False),
        "uses_frames": extra.pop("uses_frames", "frames-only"),
        "metrics": metrics,
    }
    if source == "rescored":
        fields.update(counts=counts, n_abstained=0, provenance=ledger.Provenance(
            submission_sha256="a" * 64, answer_key_sha256="b" * 64, key_version="demo-1",
            scorer_version=evaluator.SCORER_VERSION))
    else:
        fields.update(counts=None, n_abstained=None, provenance=None, uses_external=None,
                      uses_frames=None)
    fields.update(extra)
    return ledger.Record(**fields)


# --- pure parts ---------------------------------------------------------------------------------


def test_rank_is_one_plus_rows_entirely_above() -> None:
    intervals = [(60.0, 70.0), (55.0, 65.0), (40.0, 50.0), (20.0, 30.0), (21.0, 29.0)]
    assert app.rank_ranges(intervals) == [(1, 2), (1, 2), (3, 3), (4, 5), (4, 5)]


def test_paper_rows_counts_follow_from_percentages_over_split_sizes() -> None:
    paper = _record("P", 36.8, source="paper")
    counts = app.record_counts(paper)
    assert counts["overall"] == evaluator.Count(correct=184, total=500)
    assert counts["behavior"].total == 100 and counts["spatial_preference"].total == 50


def test_model_size_parsing_and_buckets() -> None:
    assert app.size_in_billions("30B-A3B") == 30
    assert app.size_in_billions("8B") == 8
    assert app.size_in_billions("API") is None
    assert app.size_bucket("72B") == "≥ 40B"
    assert app.size_bucket("") == "API / not stated"


def test_board_frame_ranks_filters_and_rounds_to_one_decimal_but_stays_numeric() -> None:
    records = [_record("Alpha", 44.6, note="a note"), _record("Beta", 30.0, model_size="API"),
               _record("Gamma", 25.2, source="paper", model_size="")]
    frame = app.board_frame(records)
    assert list(frame["_name"]) == ["Alpha", "Beta", "Gamma"]
    assert str(frame.loc[0, "Method"]).endswith("†")
    shown = app.visible_columns(frame, "Memory types")
    assert shown["Overall"].dtype.kind == "f"
    assert list(shown.columns) == app.COLUMN_GROUPS["Memory types"]
    only_paper = app.BoardFilter(sources=("Paper",)).apply(frame)
    assert list(only_paper["_name"]) == ["Gamma"]
    big = app.BoardFilter(sizes=("< 10B",)).apply(frame)
    assert list(big["_name"]) == ["Alpha"]
    assert list(app.BoardFilter(search="BETA").apply(frame)["_name"]) == ["Beta"]
    external = app.BoardFilter(external=("Not reported",)).apply(frame)
    assert list(external["_name"]) == ["Gamma"]


def test_score_limits_come_from_the_config_and_bad_values_name_the_variable() -> None:
    assert app.score_limits(ledger.load_config({})) == app.ScoreLimits(20, 86400.0, False)
    limits = app.score_limits(ledger.load_config({"EGOMEM_SCORE_LIMIT": "3",
                                                  "EGOMEM_SCORE_WINDOW_S": "60",
                                                  "SPACE_ID": "x/y"}))
    assert limits == app.ScoreLimits(3, 60.0, True)
    for env in ({"EGOMEM_SCORE_LIMIT": "many"}, {"EGOMEM_SCORE_LIMIT": "0"},
                {"EGOMEM_SCORE_WINDOW_S": "-5"}, {"EGOMEM_SCORE_LIMIT": "2.5"},
                {"EGOMEM_SCORE_WINDOW_S": "nan"}):
        with pytest.raises(ledger.ConfigError, match=next(iter(env))):
            ledger.load_config(env)


def test_limiter_window_slides_and_says_when_the_next_slot_frees() -> None:
    now = [1_000_000.0]
    limiter = app.ScoreLimiter(app.ScoreLimits(limit=2, window_s=100), clock=lambda: now[0])
    limiter.acquire("a")
    limiter.acquire("a")
    limiter.acquire("b")
    with pytest.raises(app.RateLimited, match=r"2 files per 100 s.*1970-01-12 13:48:20 UTC"):
        limiter.acquire("a")
    now[0] += 100
    limiter.acquire("a")


def test_limiter_has_no_check_then_act_race() -> None:
    limiter = app.ScoreLimiter(app.ScoreLimits(limit=5, window_s=1000))
    barrier = threading.Barrier(16)

    def attempt(_: int) -> bool:
        barrier.wait()
        try:
            limiter.acquire("same-client")
        except app.RateLimited:
            return False
        return True

    with ThreadPoolExecutor(16) as pool:
        granted = sum(pool.map(attempt, range(16)))
    assert granted == 5


# --- handlers through HTTP, in process ----------------------------------------------------------


class Client:
    """The mounted app behind FastAPI's TestClient, with helpers for Gradio's HTTP API."""

    def __init__(self, http: TestClient) -> None:
        self.http = http

    def upload(self, name: str, data: bytes) -> str:
        response = self.http.post("/gradio_api/upload", files={"files": (name, data)})
        assert response.status_code == 200, response.text
        path: str = response.json()[0]
        return path

    def call(self, api_name: str, data: list[Any],
             headers: dict[str, str] | None = None) -> tuple[int, Any]:
        response = self.http.post(f"/gradio_api/run/{api_name}", json={"data": data},
                                  headers=headers or {})
        return response.status_code, response.json()

    def score(self, data: bytes, headers: dict[str, str] | None = None,
              name: str = "submission.json") -> tuple[int, Any]:
        path = self.upload(name, data)
        return self.call("score", [{"path": path, "meta": {"_type": "gradio.FileData"}}], headers)


def _client(key_status: ledger.KeyStatus | Callable[[], ledger.KeyStatus], board_dir: Path,
            limits: app.ScoreLimits) -> Iterator[Client]:
    board = ledger.BoardCache(ledger.LocalStore(board_dir))
    keys = key_status if callable(key_status) else lambda: key_status
    demo = app.build_demo(keys, board, app.ScoreLimiter(limits))
    fastapi_app = gr.mount_gradio_app(FastAPI(), demo, path="/",
                                      max_file_size=app.MAX_FILE_SIZE)
    with TestClient(fastapi_app) as http:
        yield Client(http)


@pytest.fixture
def board_dir(tmp_path: Path) -> Path:
    store = ledger.LocalStore(tmp_path / "board")
    for record in (_record("Alpha", 44.6), _record("Beta", 30.0),
                   _record("Gemini-like", 39.6, source="paper", note="overall differs")):
        store.write(record, "test")
    return tmp_path / "board"


@pytest.fixture
def client(board_dir: Path) -> Iterator[Client]:
    status = ledger.KeyStatus(KEY, "synthetic demo key", demo=True, error=None)
    yield from _client(status, board_dir, app.ScoreLimits(limit=3, window_s=3600))


def test_score_returns_the_evaluators_numbers(client: Client) -> None:
    status, body = client.score(SAMPLE)
    assert status == 200, body
    summary, table, _chart, numbers = body["data"]
    expected = evaluator.score(KEY, SAMPLE)
    assert numbers["metrics"] == expected.metrics
    assert numbers["counts"] == {k: c.model_dump() for k, c in expected.counts.items()}
    assert numbers["n_abstained"] == expected.n_abstained
    assert set(numbers["metrics"]) == set(evaluator.METRIC_KEYS)
    assert f"Overall: {expected.metrics['overall']:.1f} %" in summary
    assert [row[0] for row in table["data"]][:2] == ["Overall", "Entity"]
    # Per-question correctness is never part of the answer.
    assert "example_id" not in json.dumps(body)


@pytest.mark.parametrize(("payload", "words"), [
    (b'{"results": [{"example_id": 1, "pred": "A"}]}', ["results", "predicted_answer"]),
    (b"not json", ["not valid JSON"]),
    (b"", ["empty"]),
    (b'[{"example_id": 1, "predicted_answer": "ZZ"}]', ["ZZ", "499 questions have no answer"]),
])
def test_bad_submission_gives_the_evaluators_message_not_a_traceback(
        client: Client, payload: bytes, words: list[str]) -> None:
    status, body = client.score(payload)
    assert status != 200
    assert all(word in body["error"] for word in words), body
    assert "Traceback" not in json.dumps(body)


def test_rejected_uploads_do_not_count_and_the_limit_holds(client: Client) -> None:
    for _ in range(5):
        assert client.score(b"[]")[0] != 200
    for _ in range(3):
        assert client.score(SAMPLE)[0] == 200
    status, body = client.score(SAMPLE)
    assert status != 200 and "limited to 3 files per hour" in body["error"]
    assert "UTC" in body["error"]


def test_a_forwarded_for_header_does_not_escape_the_limit(client: Client) -> None:
    for i in range(3):
        assert client.score(SAMPLE, headers={"X-Forwarded-For": f"10.0.0.{i}"})[0] == 200
    status, body = client.score(SAMPLE, headers={"X-Forwarded-For": "10.9.9.9"})
    assert status != 200 and "limited" in body["error"]


def test_on_a_space_the_proxy_appended_address_is_the_client(board_dir: Path) -> None:
    status = ledger.KeyStatus(KEY, "synthetic demo key", demo=True, error=None)
    limits = app.ScoreLimits(limit=1, window_s=3600, on_space=True)
    for c in _client(status, board_dir, limits):
        # the client forges the left part; the proxy appends the real address on the right
        assert c.score(SAMPLE, headers={"X-Forwarded-For": "1.1.1.1, 203.0.113.7"})[0] == 200
        refused = c.score(SAMPLE, headers={"X-Forwarded-For": "2.2.2.2, 203.0.113.7"})
        assert refused[0] != 200
        assert c.score(SAMPLE, headers={"X-Forwarded-For": "203.0.113.8"})[0] == 200


def test_concurrent_uploads_cannot_exceed_the_limit(client: Client) -> None:
    paths = [client.upload(f"s{i}.json", SAMPLE) for i in range(8)]

    def call(path: str) -> int:
        return client.call("score", [{"path": path, "meta": {"_type": "gradio.FileData"}}])[0]

    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(call, paths))
    assert statuses.count(200) == 3


def test_score_is_disabled_with_the_reason_when_there_is_no_key(board_dir: Path) -> None:
    status = ledger.KeyStatus(None, "org/private on the Hub", demo=False,
                              error="the Hub could not be reached")
    for c in _client(status, board_dir, app.ScoreLimits()):
        code, body = c.score(SAMPLE)
        assert code != 200 and "the Hub could not be reached" in body["error"]
        config = c.http.get("/config").text
        assert "Scoring is unavailable" in config


def test_score_comes_back_once_the_key_loads_without_a_restart(board_dir: Path) -> None:
    current = [ledger.KeyStatus(None, "org/private on the Hub", demo=False,
                                error="the Hub could not be reached")]
    for c in _client(lambda: current[0], board_dir, app.ScoreLimits()):
        assert c.score(SAMPLE)[0] != 200
        current[0] = ledger.KeyStatus(KEY, "org/private on the Hub", demo=False, error=None)
        assert c.score(SAMPLE)[0] == 200


def test_leaderboard_api_returns_the_table_best_first(client: Client) -> None:
    status, body = client.call("leaderboard", [])
    assert status == 200
    rows = body["data"][0]
    assert [r["method_name"] for r in rows] == ["Alpha", "Gemini-like", "Beta"]
    assert rows[0]["overall"] == _record("Alpha", 44.6).metrics["overall"]
    assert rows[1]["source"] == "paper" and rows[1]["counts"] is None
    assert rows[1]["note"] == "overall differs"
    assert {r["rank"] for r in rows} <= {1, 2, 3}


def test_only_score_and_leaderboard_are_public_api(client: Client) -> None:
    info = client.http.get("/gradio_api/info").json()
    assert sorted(info["named_endpoints"]) == ["/leaderboard", "/score"]
    assert info["unnamed_endpoints"] == {}


def test_upload_over_5_mb_is_refused_by_the_server(client: Client) -> None:
    big = b"[" + b" " * (5 * 1024 * 1024 + 10) + b"]"
    response = client.http.post("/gradio_api/upload", files={"files": ("big.json", big)})
    assert response.status_code == 413


@pytest.mark.parametrize("route", [
    "/gradio_api/file={key}",
    "/gradio_api/file=demo/annotations_private.json",
    "/gradio_api/file=./demo/annotations_private.json",
    "/gradio_api/file=%2F{key_rel}",
    "/gradio_api/file=..%2F..%2F{key_rel}",
    "/gradio_api/file=/tmp/../{key_rel}",
    "/file={key}",
    "/gradio_api/file=ledger.py",
])
def test_file_routes_never_serve_the_key(client: Client, route: str) -> None:
    key_path = ROOT / "demo" / "annotations_private.json"
    url = route.format(key=key_path, key_rel=str(key_path).lstrip("/"))
    response = client.http.get(url)
    assert response.status_code in (403, 404, 405), (url, response.status_code)
    assert b"correct_answer" not in response.content


def test_page_config_and_errors_leak_neither_key_nor_token(board_dir: Path) -> None:
    status = ledger.KeyStatus(KEY, "local file /secret/annotations_private.json", demo=False,
                              error=None)
    for c in _client(status, board_dir, app.ScoreLimits()):
        texts = [c.http.get("/config").text, c.http.get("/").text,
                 c.http.get("/gradio_api/info").text, json.dumps(c.score(b"[1]")[1])]
        for text in texts:
            assert "correct_answer" not in text
            assert TOKEN not in text
            # a run of 40 answers in key order, as it would appear if the key were dumped
            letters = "".join(q.correct_answer for q in KEY.questions[:40])
            assert letters not in text


def test_demo_banner_shows_only_in_demo_mode(board_dir: Path) -> None:
    for demo_mode in (True, False):
        status = ledger.KeyStatus(KEY, "x", demo=demo_mode, error=None)
        for c in _client(status, board_dir, app.ScoreLimits()):
            config = c.http.get("/config").json()
            banner = next(comp for comp in config["components"]
                          if comp.get("props", {}).get("elem_id") == "demo-banner")
            assert banner["props"]["visible"] is demo_mode
