"""app.py in-process: the pure table logic, and every handler through the mounted FastAPI app."""

from __future__ import annotations

import json
import threading
import tomllib
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import gradio as gr
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import app
import errors
import evaluator
import guard
import ledger
import spec
from ledger.keys import KEY_UNAVAILABLE
from spec import Benchmark, MultipleChoiceTrack
from tests.support.score_path import page_path, queue_event
from web import charts, page, score_page, score_view
from web.board import export as board_export
from web.board import filters as board_filters
from web.board import layout as board_layout
from web.board import ranks as board_ranks
from web.board import rows as board_view

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track("memory", kind=spec.MultipleChoiceTrack)
KEY_PATH = BENCH.demo_key(TRACK)
DEMO_KEY_BYTES = KEY_PATH.read_bytes()
SAMPLE = (BENCH.demo_dir / "sample_submission.json").read_bytes()
KEY = evaluator.kinds.multiple_choice.load_key(TRACK, DEMO_KEY_BYTES)
TOKEN = "hf_secretTokenThatMustNeverLeak0123456789"


def _record(
    method: str,
    overall: float,
    source: str = "rescored",
    bench: Benchmark = BENCH,
    track: MultipleChoiceTrack | None = None,
    **extra: Any,
) -> ledger.Record:
    """A schema-2 record of ``track`` scoring about ``overall`` % on every group."""
    track = track or bench.track(kind=spec.MultipleChoiceTrack)
    per = {
        g.key: evaluator.Count(correct=round(overall * g.size / 100), total=g.size)
        for g in track.groups
    }
    answerable = None
    if track.out_of_option is not None:
        n = track.total - track.out_of_option.rows
        answerable = evaluator.Count(correct=round(overall * n / 100), total=n)
    counts = evaluator.aggregate(track, per, answerable)
    metrics = evaluator.metrics_from_counts(track, counts)
    fields: dict[str, Any] = {
        "benchmark": bench.id,
        "track": track.id,
        "id": uuid.uuid5(uuid.NAMESPACE_URL, method),
        "created_at": datetime(2026, 9, 1, tzinfo=UTC),
        "source": source,
        "team_name": extra.pop("team_name", "Team " + method),
        "method_name": method,
        "model_size": extra.pop("model_size", "7B"),
        "uses_external": extra.pop("uses_external", False),
        "uses_frames": extra.pop("uses_frames", "frames-only"),
        "metrics": metrics,
    }
    if source == "rescored":
        fields.update(
            counts=counts,
            n_abstained=0,
            provenance=ledger.Provenance(
                submission_sha256="a" * 64,
                answer_key_sha256="b" * 64,
                key_version="demo-1",
                scorer_version=track.scorer_version,
            ),
        )
    else:
        fields.update(
            counts=None, n_abstained=None, provenance=None, uses_external=None, uses_frames=None
        )
    fields.update(extra)
    return ledger.Record(**fields)


# --- pure parts ---------------------------------------------------------------------------------


def _result(correct: int, total: int = 500) -> evaluator.ScoreResult:
    """A score of ``correct`` of ``total`` on Overall (the ranking metric) alone."""
    return evaluator.ScoreResult(
        metrics={"overall": 100 * correct / total},
        counts={"overall": evaluator.Count(correct=correct, total=total)},
        intervals={"overall": evaluator.wilson_interval(correct, total)},
        n_questions=total,
        n_abstained=0,
        submission_sha256="c" * 64,
        answer_key_sha256="d" * 64,
        key_version="demo-1",
        scorer_version=TRACK.scorer_version,
    )


def test_would_rank_counts_the_rows_entirely_better_and_worse_by_hand() -> None:
    # Of 500, 95 % Wilson intervals: 300 -> 55.6-64.2, 250 -> 45.6-54.4, 200 -> 35.8-44.4,
    # 100 -> 16.7-23.7. A file of 250 overlaps only the other 250 (a tie): rank 2, or 3.
    board = [
        _record("Top", 60.0),
        _record("Tie", 50.0),
        _record("Low", 40.0),
        _record("Bottom", 20.0),
    ]
    assert score_view.would_rank(_result(250), board, TRACK) == (2, 3, 5)
    assert score_view.would_rank(_result(300), board, TRACK) == (1, 2, 5)  # a tie with Top
    assert score_view.would_rank(_result(5), board, TRACK) == (5, 5, 5)
    # A paper row ranked by the same metric counts like any other.
    papers = [*board, _record("Paper", 50.0, source="paper")]
    assert score_view.would_rank(_result(250), papers, TRACK) == (2, 4, 6)


def test_would_rank_on_an_empty_board_is_the_first_entry() -> None:
    rank = score_view.would_rank(_result(250), [], TRACK)
    assert rank == (1, 1, 1)
    assert "it would be the first entry" in score_view.rank_markdown(rank, TRACK, many=False)
    assert "rank 2nd (rank range 2–3) of 5 entries" in score_view.rank_markdown(
        (2, 3, 5), TRACK, many=False
    )
    assert "rank 11th of 12 entries" in score_view.rank_markdown((11, 11, 12), TRACK, False)


def test_the_listing_request_parses_back_to_the_sha256_and_the_fields() -> None:
    from urllib.parse import parse_qs, urlsplit

    result = _result(250)
    url = score_view.listing_mailto(BENCH, TRACK, result, many=False)
    parts = urlsplit(url)
    assert parts.scheme == "mailto" and parts.path == BENCH.contact_email
    assert " " not in url and "\n" not in url  # URL-encoded
    query = parse_qs(parts.query)
    assert set(query) == {"subject", "body"}
    assert BENCH.title in query["subject"][0]
    body = query["body"][0].split("\r\n")
    assert f"File sha256: {'c' * 64}" in body
    assert f"Track: {TRACK.title} ({TRACK.id})" in body
    assert "Answer key version: demo-1" in body
    assert f"Score on the Space: {TRACK.labels['overall']} 50.0 %" in body
    asked = [line for line in body if line.endswith(":")]
    assert len(asked) == 8 and asked[0] == "Method name:" and asked[1] == "Team:"
    choices = "; ".join(BENCH.input.choices.values())
    assert f"{BENCH.input.label} (one of: {choices}):" in asked


def test_a_refusal_becomes_a_markdown_list_with_its_text_escaped() -> None:
    refused = evaluator.SubmissionError(['id *7*: "ZZ" is not an option', "2 [questions] lack"])
    markdown = score_view.error_markdown(str(refused))
    assert markdown == (
        "**This submission cannot be scored \\(2 problems\\):**\n\n"
        '- id \\*7\\*: "ZZ" is not an option\n- 2 \\[questions\\] lack'
    )
    one = score_view.error_markdown("The file is 6.0 MB; the limit is 5 MB.")
    assert one == "**The file is 6.0 MB; the limit is 5 MB.**"


def test_rank_is_one_plus_rows_entirely_above() -> None:
    intervals = [(60.0, 70.0), (55.0, 65.0), (40.0, 50.0), (20.0, 30.0), (21.0, 29.0)]
    assert board_ranks.rank_ranges(intervals) == [(1, 2), (1, 2), (3, 3), (4, 5), (4, 5)]


def test_paper_rows_counts_follow_from_percentages_over_split_sizes() -> None:
    paper = _record("P", 36.8, source="paper")
    counts = board_ranks.record_counts(paper, TRACK)
    assert counts["overall"] == evaluator.Count(correct=184, total=500)
    assert counts["behavior"].total == 100 and counts["spatial_preference"].total == 50


def test_model_size_parsing_and_buckets() -> None:
    assert board_view.size_in_billions("30B-A3B") == 30
    assert board_view.size_in_billions("8B") == 8
    assert board_view.size_in_billions("API") is None
    assert board_view.size_bucket("72B") == "≥ 40B"
    assert board_view.size_bucket("") == "API / not stated"


def test_board_frame_ranks_filters_and_rounds_to_one_decimal_but_stays_numeric() -> None:
    records = [
        _record("Alpha", 44.6, note="a note"),
        _record("Beta", 30.0, model_size="API"),
        _record("Gamma", 25.2, source="paper", model_size=""),
    ]
    frame = board_view.board_frame(records, BENCH, TRACK)
    assert list(frame["_name"]) == ["Alpha", "Beta", "Gamma"]
    assert str(frame.loc[0, "Method"]).endswith("†")
    assert frame["Overall"].dtype.kind == "f"  # unrounded: board_table formats the cells
    assert set(board_layout.board_layout(BENCH, TRACK).groups["Memory types"]) <= set(frame)
    only_paper = board_filters.BoardFilter(sources=("Paper-reported",)).apply(frame)
    assert list(only_paper["_name"]) == ["Gamma"]
    big = board_filters.BoardFilter(sizes=("< 10B",)).apply(frame)
    assert list(big["_name"]) == ["Alpha"]
    assert list(board_filters.BoardFilter(search="BETA").apply(frame)["_name"]) == ["Beta"]
    external = board_filters.BoardFilter(external=("Not reported",)).apply(frame)
    assert list(external["_name"]) == ["Gamma"]


def test_score_limits_come_from_the_config_and_bad_values_name_the_variable() -> None:
    assert guard.score_limits(ledger.load_config({})) == guard.ScoreLimits(20, 86400.0, False)
    limits = guard.score_limits(
        ledger.load_config(
            {"LEADERBOARD_SCORE_LIMIT": "3", "LEADERBOARD_SCORE_WINDOW_S": "60", "SPACE_ID": "x/y"}
        )
    )
    assert limits == guard.ScoreLimits(3, 60.0, True)
    for env in (
        {"LEADERBOARD_SCORE_LIMIT": "many"},
        {"LEADERBOARD_SCORE_LIMIT": "0"},
        {"LEADERBOARD_SCORE_WINDOW_S": "-5"},
        {"LEADERBOARD_SCORE_LIMIT": "2.5"},
        {"LEADERBOARD_SCORE_WINDOW_S": "nan"},
    ):
        with pytest.raises(ledger.ConfigError, match=next(iter(env))):
            ledger.load_config(env)


def test_limiter_window_slides_and_says_when_the_next_slot_frees() -> None:
    now = [1_000_000.0]
    limiter = guard.ScoreLimiter(guard.ScoreLimits(limit=2, window_s=100), clock=lambda: now[0])
    limiter.acquire("a")
    limiter.acquire("a")
    limiter.acquire("b")
    with pytest.raises(errors.RateLimited, match=r"2 files per 100 s.*1970-01-12 13:48:20 UTC"):
        limiter.acquire("a")
    now[0] += 100
    limiter.acquire("a")


def test_limiter_has_no_check_then_act_race() -> None:
    limiter = guard.ScoreLimiter(guard.ScoreLimits(limit=5, window_s=1000))
    barrier = threading.Barrier(16)

    def attempt(_: int) -> bool:
        barrier.wait()
        try:
            limiter.acquire("same-client")
        except errors.RateLimited:
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

    def call(
        self, api_name: str, data: list[Any], headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        response = self.http.post(
            f"/gradio_api/run/{api_name}", json={"data": data}, headers=headers or {}
        )
        return response.status_code, response.json()

    def file(self, data: bytes, name: str = "submission.json") -> dict[str, Any]:
        """``data`` uploaded, as Gradio's FileData of it."""
        return {"path": self.upload(name, data), "meta": {"_type": "gradio.FileData"}}

    def score(
        self, data: bytes, headers: dict[str, str] | None = None, name: str = "submission.json"
    ) -> tuple[int, Any]:
        return self.call("score", [self.file(data, name)], headers)


def _client(
    key_status: ledger.KeyStatus | Callable[[], ledger.KeyStatus],
    board_dir: Path,
    limits: guard.ScoreLimits,
    bench: Benchmark = BENCH,
) -> Iterator[Client]:
    track = bench.track(kind=spec.MultipleChoiceTrack)
    board = ledger.BoardCache(ledger.LocalStore(board_dir), bench, track)
    keys = key_status if callable(key_status) else lambda: key_status
    demo = app.build_demo(bench, track, keys, board, guard.ScoreLimiter(limits))
    fastapi_app = gr.mount_gradio_app(FastAPI(), demo, path="/", max_file_size=guard.MAX_FILE_SIZE)
    with TestClient(fastapi_app) as http:
        yield Client(http)


def _board(folder: Path) -> Path:
    """Three records in ``folder``: Alpha 44.6, Beta 30.0 and a paper row at 39.6."""
    store = ledger.LocalStore(folder)
    for record in (
        _record("Alpha", 44.6),
        _record("Beta", 30.0),
        _record("Gemini-like", 39.6, source="paper", note="overall differs"),
    ):
        store.write(record, "test")
    return folder


@pytest.fixture
def board_dir(tmp_path: Path) -> Path:
    return _board(tmp_path / "board")


def _demo_client(board: Path) -> Iterator[Client]:
    status = ledger.KeyStatus(KEY, "synthetic demo key", demo=True, error=None)
    yield from _client(status, board, guard.ScoreLimits(limit=3, window_s=3600))


@pytest.fixture
def client(board_dir: Path) -> Iterator[Client]:
    """The page on its own board, its limiter fresh: for a test that scores."""
    yield from _demo_client(board_dir)


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    """The same page, built once for the tests that score nothing (a refusal takes no slot of
    the limit: test_rejected_uploads_do_not_count_and_the_limit_holds) and change nothing;
    each refuses its own bytes (the page remembers a refusal: tests/web/test_score_refusals)."""
    yield from _demo_client(_board(tmp_path_factory.mktemp("reader") / "board"))


def test_score_returns_the_evaluators_numbers(client: Client) -> None:
    status, body = client.score(SAMPLE)
    assert status == 200, body
    [numbers] = body["data"]  # the JSON object alone
    expected = evaluator.disclosed(TRACK, evaluator.score(KEY, SAMPLE))  # at board precision
    assert numbers == expected.model_dump(mode="json")  # answer_key_sha256 included
    assert evaluator.ScoreResult.model_validate(numbers) == expected
    assert set(numbers["metrics"]) == set(TRACK.metric_keys)
    # Per-question correctness is never part of the answer.
    assert "example_id" not in json.dumps(body)


def test_the_page_shows_what_score_returns_and_renders_it(client: Client) -> None:
    shown = page_path(client.http, client.file(SAMPLE))
    expected = evaluator.score(KEY, SAMPLE)
    assert shown.numbers == client.score(SAMPLE)[1]["data"][0]
    assert shown.error == ""
    assert f"Overall: {expected.metrics['overall']:.1f} %" in shown.summary
    assert [row[0] for row in shown.table["data"]][:2] == ["Overall", "Entity"]
    assert shown.value("score-sha256") == expected.submission_sha256  # whole
    # The board: Alpha 44.6, a paper row 39.6 and Beta 30.0 of 500; the sample 44.6 (CI 40.3–49.0)
    # lies above Beta's interval alone.
    assert "would rank 1st (rank range 1–3) of 4 entries" in shown.value("score-rank")
    assert shown.value("score-listing") is None  # a button: its link is the mailto
    assert shown.rendered["score-listing"]["link"].startswith(f"mailto:{BENCH.contact_email}?")


def test_the_page_shows_a_refusal_as_a_list_and_renders_nothing(client: Client) -> None:
    shown = page_path(client.http, client.file(b'[{"example_id": 1, "predicted_answer": "ZZ"}]'))
    assert shown.numbers is None
    lines = shown.error.splitlines()
    assert lines[0] == "**This submission cannot be scored \\(2 problems\\):**", lines
    assert (
        lines[1] == ""
        and lines[2].startswith("- 1 answer is not among")
        and lines[3].startswith("- 499 questions have no answer")
    )
    assert shown.summary == "" and shown.rendered["score-table"]["visible"] is False
    assert shown.rendered["score-listing"]["visible"] is False


def test_a_page_render_reads_the_session_s_score_not_the_browser_s(reader: Client) -> None:
    """The render takes no score from the browser: whatever a caller sends as its input, a
    session that scored nothing renders nothing."""
    config = reader.http.get("/config").json()
    names = {c["id"]: c.get("props", {}).get("elem_id") for c in config["components"]}
    render = next(
        d
        for d in config["dependencies"]
        if "score-summary" in [names[o] for o in d["outputs"]] and d["inputs"]
    )
    forged = evaluator.score(KEY, SAMPLE).model_dump(mode="json")
    out = queue_event(reader.http, render["id"], [forged], "forger")
    assert out[0] == "" and out[1]["visible"] is False


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        (b'{"results": [{"example_id": 1, "pred": "A"}]}', ["results", "predicted_answer"]),
        (b"not json", ["not valid JSON"]),
        (b"", ["empty"]),
        (b'[{"example_id": 1, "predicted_answer": "ZZ"}]', ["ZZ", "499 questions have no answer"]),
    ],
)
def test_bad_submission_gives_the_evaluators_message_not_a_traceback(
    reader: Client, payload: bytes, words: list[str]
) -> None:
    status, body = reader.score(payload)
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
    limits = guard.ScoreLimits(limit=1, window_s=3600, on_space=True)
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
    status = ledger.KeyStatus(
        None, "org/private on the Hub", demo=False, error="the Hub could not be reached"
    )
    for c in _client(status, board_dir, guard.ScoreLimits()):
        code, body = c.score(SAMPLE)
        # What is unavailable, not the error itself (the log's: issue 22, finding 6).
        assert code != 200 and body["error"] == f"Scoring is unavailable: {KEY_UNAVAILABLE}"
        config = c.http.get("/config").text
        assert "Scoring is unavailable" in config and "the Hub could not" not in config


def test_score_comes_back_once_the_key_loads_without_a_restart(board_dir: Path) -> None:
    current = [
        ledger.KeyStatus(
            None, "org/private on the Hub", demo=False, error="the Hub could not be reached"
        )
    ]
    for c in _client(lambda: current[0], board_dir, guard.ScoreLimits()):
        assert c.score(SAMPLE)[0] != 200
        current[0] = ledger.KeyStatus(KEY, "org/private on the Hub", demo=False, error=None)
        assert c.score(SAMPLE)[0] == 200


def test_leaderboard_api_returns_the_table_best_first(reader: Client) -> None:
    status, body = reader.call("leaderboard", [])
    assert status == 200
    rows = body["data"][0]
    assert [r["method_name"] for r in rows] == ["Alpha", "Gemini-like", "Beta"]
    assert rows[0]["overall"] == _record("Alpha", 44.6).metrics["overall"]
    assert rows[1]["source"] == "paper" and rows[1]["counts"] is None
    assert rows[1]["note"] == "overall differs"
    assert {r["rank"] for r in rows} <= {1, 2, 3}


def test_only_score_leaderboard_and_entry_are_public_api(reader: Client) -> None:
    info = reader.http.get("/gradio_api/info").json()
    assert sorted(info["named_endpoints"]) == ["/entry", "/leaderboard", "/score"]
    assert info["unnamed_endpoints"] == {}


def test_upload_over_5_mb_is_refused_by_the_server(reader: Client) -> None:
    big = b"[" + b" " * (5 * 1024 * 1024 + 10) + b"]"
    response = reader.http.post("/gradio_api/upload", files={"files": ("big.json", big)})
    assert response.status_code == 413


@pytest.mark.parametrize(
    "route",
    [
        "/gradio_api/file={key}",
        "/gradio_api/file=benchmarks/egomemreason/demo/annotations_private.json",
        "/gradio_api/file=./benchmarks/egomemreason/demo/annotations_private.json",
        "/gradio_api/file=%2F{key_rel}",
        "/gradio_api/file=..%2F..%2F{key_rel}",
        "/gradio_api/file=/tmp/../{key_rel}",
        "/file={key}",
        "/gradio_api/file=ledger/keys.py",
    ],
)
def test_file_routes_never_serve_the_key(reader: Client, route: str) -> None:
    url = route.format(key=KEY_PATH, key_rel=str(KEY_PATH).lstrip("/"))
    response = reader.http.get(url)
    assert response.status_code in (403, 404, 405), (url, response.status_code)
    assert b"correct_answer" not in response.content


def test_page_config_and_errors_leak_neither_key_nor_token(board_dir: Path) -> None:
    status = ledger.KeyStatus(
        KEY, "local file /secret/annotations_private.json", demo=False, error=None
    )
    for c in _client(status, board_dir, guard.ScoreLimits()):
        texts = [
            c.http.get("/config").text,
            c.http.get("/").text,
            c.http.get("/gradio_api/info").text,
            json.dumps(c.score(b"[1]")[1]),
        ]
        for text in texts:
            assert "correct_answer" not in text
            assert TOKEN not in text
            # a run of 40 answers in key order, as it would appear if the key were dumped
            letters = "".join(q.answer for q in KEY.questions[:40])
            assert letters not in text


def test_demo_banner_shows_only_in_demo_mode(board_dir: Path) -> None:
    for demo_mode in (True, False):
        status = ledger.KeyStatus(KEY, "x", demo=demo_mode, error=None)
        for c in _client(status, board_dir, guard.ScoreLimits()):
            config = c.http.get("/config").json()
            banner = next(
                comp
                for comp in config["components"]
                if comp.get("props", {}).get("elem_id") == "demo-banner"
            )
            assert banner["props"]["visible"] is demo_mode
            if demo_mode:  # it names the key and the board (a local folder: not its path)
                text = banner["props"]["value"]
                assert "demo key shipped with EgoMemReason (key version demo-1)" in text
                assert "the board is a local records folder" in text
                assert str(board_dir) not in text


def test_demo_banner_names_the_demo_board_and_a_hub_board() -> None:
    status = ledger.KeyStatus(KEY, "synthetic demo key", demo=True, error=None)
    shipped = ledger.BoardCache(ledger.LocalStore(BENCH.demo_board), BENCH, TRACK)
    assert page.board_origin(BENCH, shipped) == "the demo board shipped with it"
    hub = ledger.BoardCache(ledger.HubStore("someone/board"), BENCH, TRACK)
    assert page.board_origin(BENCH, hub) == "the records dataset someone/board"
    assert page.demo_banner(BENCH, status, page.board_origin(BENCH, shipped)) == (
        "**Demo mode.** Score uses the *synthetic* demo key shipped with EgoMemReason (key "
        "version demo-1), not its answer key, and the board is the demo board shipped with it: "
        "scores here are not EgoMemReason results. Configure the real key and board as the "
        "README says."
    )


# --- the page comes from the spec ---------------------------------------------------------------


def test_egomemreason_board_keeps_its_columns_labels_and_order() -> None:
    layout = board_layout.board_layout(BENCH, TRACK)
    assert {title: list(cols) for title, cols in layout.groups.items()} == {
        "Memory types": [
            "Rank",
            "Method",
            "Overall",
            "Entity",
            "Event",
            "Behavior",
            "Rank range",
            "Source",
            "Team",
            "Size",
            "Date",
        ],
        "Query types": [
            "Rank",
            "Method",
            "Overall",
            "Tracking",
            "Counting",
            "Ordering",
            "Linking",
            "Spatial",
            "Activity",
            "Source",
        ],
        # "Key version" joined Details and All with the key versions of every row.
        "Details": [
            "Rank",
            "Method",
            "Overall",
            "Overall 95% CI",
            "Rank range",
            "Team",
            "Size",
            "External data",
            "Video input",
            "Source",
            "Date",
            "Key version",
            "Links",
            "Note",
        ],
        "All": [
            "Rank",
            "Method",
            "Overall",
            "Rank range",
            "Team",
            "Size",
            "External data",
            "Video input",
            "Source",
            "Entity",
            "Event",
            "Behavior",
            "Tracking",
            "Counting",
            "Ordering",
            "Linking",
            "Spatial",
            "Activity",
            "Overall 95% CI",
            "Date",
            "Key version",
            "Links",
            "Note",
        ],
    }
    assert layout.formats["Linking"] == "{:.1f}"


def test_egomemreason_texts_are_unchanged() -> None:
    assert page.header_markdown(BENCH) == (
        "# EgoMemReason Leaderboard\n"
        "Memory reasoning over week-long egocentric video: 500 questions on entity, event "
        "and behavior memory. [Paper](https://arxiv.org/abs/2605.09874) · "
        "[Project page](https://egomemreason.github.io) · "
        "[Code](https://github.com/Ziyang412/EgoMemReason) · "
        "[Data](https://huggingface.co/datasets/Ted412/EgoMemReason)"
    )
    assert score_page.score_help(TRACK) == (
        "Upload a submission (a JSON list (or JSON Lines, one entry a line) of "
        '`{"example_id", "predicted_answer"}`, 5 MB at most) to score it privately against the '
        "held-out answer key. Nothing is stored, and you never see which "
        "questions were right. See **About** for the format and how to get listed."
    )
    table = score_view.score_table(evaluator.score(KEY, SAMPLE), TRACK)
    assert list(table["Split"]) == [
        "Overall",
        "Entity",
        "Event",
        "Behavior",
        "Cumulative State Tracking",
        "Temporal Counting",
        "Event Ordering",
        "Event Linking",
        "Spatial Preference",
        "Activity Pattern",
    ]


def test_a_header_shows_only_the_links_a_spec_gives() -> None:
    bench = BENCH.model_copy(update={"links": spec.Links(code="https://example.org/code")})
    assert page.header_markdown(bench).endswith("behavior memory. [Code](https://example.org/code)")
    bare = BENCH.model_copy(update={"links": spec.Links()})
    assert page.header_markdown(bare).endswith("behavior memory.")


def _spec_with(change: Callable[[dict[str, Any]], None]) -> Benchmark:
    document = tomllib.loads((BENCH.folder / "benchmark.toml").read_text(encoding="utf-8"))
    change(document)
    return spec.parse_benchmark(document, BENCH.folder)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            lambda d: d["tracks"][0]["groupings"][0]["groups"][0].update(label="Source"),
            ["'Source' more than once", "benchmark.toml"],
        ),
        (lambda d: d["tracks"][0]["views"][1].update(title="All"), ["'All' is declared twice"]),
        (
            lambda d: d["tracks"][0]["aggregates"][0].update(label="Event"),
            ["'Event' more than once"],
        ),
    ],
)
def test_a_spec_whose_columns_clash_is_refused(
    change: Callable[[dict[str, Any]], None], words: list[str], tmp_path: Path
) -> None:
    """As the spec is read (spec.board_columns, issue 28): so the boot and every script,
    validate_benchmark.py included, refuse it alike; and a model made otherwise is refused
    at build by the same check."""
    with pytest.raises(errors.SpecError) as refused:
        _spec_with(change)
    assert all(word in str(refused.value) for word in words), refused.value
    document = tomllib.loads((BENCH.folder / "benchmark.toml").read_text(encoding="utf-8"))
    change(document)
    bench = spec.Benchmark.model_validate({**document, "folder": BENCH.folder})
    with pytest.raises(errors.LayoutError) as at_build:
        app.build_demo(
            bench,
            bench.track(),
            lambda: ledger.KeyStatus(KEY, "x", True, None),
            ledger.BoardCache(ledger.LocalStore(tmp_path), bench, bench.track()),
            guard.ScoreLimiter(guard.ScoreLimits()),
        )
    assert all(word in str(at_build.value) for word in words), at_build.value


# --- a second benchmark: EgoArgus ---------------------------------------------------------------

ARGUS_METRICS = [
    "overall",
    "overall_answerable",
    "scenario_mean",
    "multimodal_grounded",
    "contradictory",
    "video_grounded_offtopic",
    "video_grounded_ontopic",
    "text_grounded",
    "egoplan",
    "qaego4d",
    "mintrec",
]


@dataclass(frozen=True)
class Argus:
    bench: Benchmark
    track: MultipleChoiceTrack
    key: evaluator.AnswerKey
    sample: bytes


@pytest.fixture(scope="module")
def argus() -> Argus:
    bench = spec.load_benchmark("egoargus")
    track = bench.track(kind=spec.MultipleChoiceTrack)
    key = evaluator.kinds.multiple_choice.load_key(track, bench.demo_key(track).read_bytes())
    return Argus(bench, track, key, (bench.demo_dir / "sample_submission.json").read_bytes())


@pytest.fixture
def argus_client(argus: Argus, tmp_path: Path) -> Iterator[Client]:
    status = ledger.KeyStatus(argus.key, "synthetic demo key", demo=True, error=None)
    # A folder that does not exist: the empty board a new benchmark starts with.
    yield from _client(status, tmp_path / "no-board", guard.ScoreLimits(limit=5), argus.bench)


def test_egoargus_scores_through_http_with_its_metric_keys(
    argus: Argus, argus_client: Client
) -> None:
    status, body = argus_client.score(argus.sample)
    assert status == 200, body
    [numbers] = body["data"]
    shown = page_path(argus_client.http, argus_client.file(argus.sample))
    summary, table = shown.summary, shown.table
    expected = evaluator.disclosed(argus.track, evaluator.score(argus.key, argus.sample))
    assert list(numbers["metrics"]) == ARGUS_METRICS
    assert list(numbers["counts"]) == ARGUS_METRICS
    assert numbers["metrics"] == expected.metrics
    assert numbers["counts"] == {k: c.model_dump() for k, c in expected.counts.items()}
    assert numbers["scorer_version"] == "egoargus-scorer 1.0"
    assert f"Overall: {expected.metrics['overall']:.1f} %" in summary
    overall = expected.counts["overall"]
    assert f"{overall.correct} of {overall.total} correct" in summary
    rows = {row[0]: row for row in table["data"]}
    assert list(rows) == [argus.track.names[k] for k in ARGUS_METRICS]
    mean = rows["Mean over the five scenarios"]
    # A macro mean: its accuracy is the scenarios' mean, not correct / questions.
    assert mean[1] == f"{expected.metrics['scenario_mean']:.1f}" and mean[2] == "—"
    assert rows["Dialogue intent (MIntRec)"][3] == 978


def test_egoargus_refuses_integer_ids_with_its_own_field_names(argus_client: Client) -> None:
    status, body = argus_client.score(b'[{"example_id": 1, "predicted_answer": "A"}]')
    assert status != 200
    assert "not a non-empty string" in body["error"]
    assert "6978 questions have no answer" in body["error"]


def test_egoargus_page_and_empty_board(argus_client: Client) -> None:
    config = argus_client.http.get("/config").json()
    assert config["title"] == "EgoArgus Leaderboard"
    props = {
        c["props"].get("elem_id"): c["props"]
        for c in config["components"]
        if c.get("props", {}).get("elem_id")
    }
    assert props["title"]["value"].startswith("# EgoArgus Leaderboard\nSituational assistance")
    assert "[Data](https://huggingface.co/datasets/tommytyc/EgoArgus)" in props["title"]["value"]
    assert "Paper" not in props["title"]["value"]
    assert "not EgoArgus results" in props["demo-banner"]["value"]
    assert [c[0] for c in props["column-group"]["choices"]] == [
        "Scenarios",
        "Tasks",
        "Details",
        "All",
    ]
    # Nothing of the other benchmark leaks into this one's page.
    assert "egomemreason" not in argus_client.http.get("/config").text.lower()
    status, body = argus_client.call("leaderboard", [])
    assert status == 200 and body["data"] == [[]]


def test_egoargus_board_frame_ranks_rescored_and_paper_rows(argus: Argus) -> None:
    bench, track = argus.bench, argus.track
    result = evaluator.score(argus.key, argus.sample)
    rescored = ledger.rescored_record(
        result,
        bench,
        track,
        team_name="T",
        method_name="Sample",
        model_size="7B",
        uses_external=False,
        uses_frames="sampled-frames",
    )
    paper = _record("Paper row", 50.0, source="paper", bench=bench)
    assert "scenario_mean" not in board_ranks.record_counts(paper, track)  # a mean has no count
    frame = board_view.board_frame([rescored, paper], bench, track)
    assert list(frame["_name"]) == ["Paper row", "Sample"]
    assert list(board_layout.board_layout(bench, track).groups["Scenarios"])[:4] == [
        "Rank",
        "Method",
        "Overall",
        "Mean",
    ]
    assert frame.loc[1, "Mean"] == result.metrics["scenario_mean"]
    assert frame.loc[1, "Input"] == "Sampled frames"
    only = board_filters.BoardFilter(inputs=("Sampled frames",)).apply(frame)
    assert list(only["_name"]) == ["Sample"]
    rows = board_export.export_rows(frame, [rescored, paper], track)
    assert all(set(ARGUS_METRICS) <= set(row) for row in rows)
    assert rows[1]["counts"]["scenario_mean"] == result.counts["scenario_mean"].model_dump()
    chart = charts.split_chart({"Sample": dict(result.metrics)}, "t", track)
    spec_json = json.loads(chart.plot)
    assert [v["Split"] for v in spec_json["data"]["values"]] == [
        track.labels[k] for k in track.chart
    ]


def test_the_score_chart_names_a_paper_baseline_only_when_it_shows_one() -> None:
    assert score_view.score_chart_title(TRACK, True) == "You vs. the best paper baseline"
    alone = score_view.score_chart_title(TRACK, False)
    assert "paper" not in alone and alone == "Your accuracy per split"
