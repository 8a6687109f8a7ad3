"""A benchmark of several tracks on one page: EgoArgus's Understanding and Decision.

The page is ``app.build_from_config`` of the demo configuration, mounted in process and called
through HTTP as a browser or an API client would. Expected numbers come from the spec, the demo
files and the evaluator, never from the app.
"""

from __future__ import annotations

import csv
import json
import logging
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import gradio as gr
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import app
import evaluator
import guard
import ledger
import spec
from evaluator import track_fit
from ledger.keys import KEY_UNAVAILABLE
from tests.support.board_html import read_board
from tests.support.demo_keys import demo_key
from tests.support.score_path import page_path
from web import score_view, served
from web.board import layout as board_layout
from web.board import ranks as board_ranks
from web.text import md_escape

ARGUS = spec.load_benchmark("egoargus")
UNDERSTANDING = ARGUS.track("understanding")
DECISION = ARGUS.track("decision")
assert isinstance(DECISION, spec.DecisionTrack)
DEMO = ARGUS.demo_dir
DECISION_SAMPLE = (DEMO / "decision_sample_submission.json").read_bytes()
UNDERSTANDING_SAMPLE = (DEMO / "sample_submission.json").read_bytes()
DECISION_KEY = demo_key(ARGUS, DECISION)
UNDERSTANDING_KEY = demo_key(ARGUS, UNDERSTANDING)
with (ARGUS.folder / "paper_decision.csv").open(encoding="utf-8") as paper:
    PAPER_TABLE = list(csv.DictReader(paper))


class Page:
    """The mounted page, with helpers for Gradio's HTTP API."""

    def __init__(self, http: TestClient) -> None:
        self.http = http

    def upload(self, data: bytes, name: str = "submission.json") -> dict[str, Any]:
        response = self.http.post("/gradio_api/upload", files={"files": (name, data)})
        assert response.status_code == 200, response.text
        return {"path": response.json()[0], "meta": {"_type": "gradio.FileData"}}

    def run(self, api_name: str, data: list[Any]) -> tuple[int, Any]:
        response = self.http.post(f"/gradio_api/run/{api_name}", json={"data": data})
        return response.status_code, response.json()

    def score(self, data: bytes, track: str | None) -> tuple[int, Any]:
        return self.run("score", [self.upload(data), track])

    def config(self) -> dict[str, Any]:
        config: dict[str, Any] = self.http.get("/config").json()
        return config

    def props(self) -> dict[str, dict[str, Any]]:
        return {
            c["props"]["elem_id"]: c["props"]
            for c in self.config()["components"]
            if c.get("props", {}).get("elem_id")
        }

    def page_event(self, output_elem_id: str, trigger: str = "load") -> tuple[int, list[Any]]:
        """The id and default inputs of the page event that writes to ``#output_elem_id``."""
        config = self.config()
        components = {c["id"]: c for c in config["components"]}
        for dep in config["dependencies"]:
            if trigger not in [event for _, event in dep.get("targets", [])]:
                continue
            outputs = [components[o]["props"].get("elem_id") for o in dep["outputs"]]
            if output_elem_id in outputs:
                return dep["id"], [components[i]["props"].get("value") for i in dep["inputs"]]
        raise LookupError(output_elem_id)

    def queue(self, fn_index: int, data: list[Any], session: str = "") -> tuple[str, Any]:
        """One page event through the queue, as the browser calls it, in ``session`` (a new
        one if not given): (kind, its output or error)."""
        session = session or f"s{fn_index}-{abs(hash(json.dumps(data, default=str)))}"
        joined = self.http.post(
            "/gradio_api/queue/join",
            json={
                "fn_index": fn_index,
                "data": data,
                "session_hash": session,
                "event_data": None,
                "trigger_id": None,
            },
        )
        assert joined.status_code == 200, joined.text
        result: tuple[str, Any] | None = None
        with self.http.stream("GET", f"/gradio_api/queue/data?session_hash={session}") as events:
            for line in events.iter_lines():  # to its end, so the server closes it itself
                if not line.startswith("data:"):
                    continue
                message = json.loads(line[5:])
                if message.get("msg") == "process_completed":
                    output = message.get("output", {})
                    result = (
                        ("complete", output.get("data"))
                        if message.get("success")
                        else ("error", output.get("error"))
                    )
                elif message.get("msg") == "close_stream":
                    break
        assert result is not None, "the event stream ended without a result"
        return result


def _page(config: ledger.Config) -> Generator[Page, None, None]:
    demo = app.build_from_config(config)
    mounted = gr.mount_gradio_app(FastAPI(), demo, path="/", max_file_size=guard.MAX_FILE_SIZE)
    with TestClient(mounted) as http:
        yield Page(http)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    """EgoArgus in demo mode: both tracks' demo keys, the demo board (a limit no test reaches).
    One page for the module: its tests read it and score on it, each in a session of its own."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))  # no key file in the working directory
        yield from _page(
            ledger.load_config(
                {"LEADERBOARD_BENCHMARK": "egoargus", "LEADERBOARD_SCORE_LIMIT": "1000"}
            )
        )


def _demo_records(track: spec.Track) -> list[ledger.Record]:
    store = ledger.LocalStore(ARGUS.demo_board)
    records = [ledger.Record.from_json(store.read(p)) for p in store.list_paths()]
    mine = [r for r in records if ledger.record_track(r, ARGUS) == track.id]
    hidden = {r.supersedes for r in mine if r.supersedes is not None}
    return [r for r in mine if r.id not in hidden]


# --- the page -----------------------------------------------------------------------------------


def test_a_one_track_benchmark_has_no_track_switch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for egomem in _page(ledger.load_config({})):
        props = egomem.props()
        assert "board-track" not in props and "score-track" not in props
        info = egomem.http.get("/gradio_api/info").json()
        assert sorted(info["named_endpoints"]) == ["/entry", "/leaderboard", "/score"]
        assert len(info["named_endpoints"]["/score"]["parameters"]) == 1


def test_both_tracks_are_on_the_page_and_in_the_api(page: Page) -> None:
    props = page.props()
    assert props["board-track"]["choices"] == [
        ["Understanding", "understanding"],
        ["Decision", "decision"],
    ]
    assert props["board-track"]["value"] == "understanding"
    assert props["score-track"]["choices"] == [
        ["Detect from the file", score_view.DETECT],
        ["Understanding", "understanding"],
        ["Decision", "decision"],
    ]
    assert props["score-track"]["value"] == score_view.DETECT
    # The first track's column groups until the visitor switches.
    assert [c[0] for c in props["column-group"]["choices"]] == [
        "Scenarios",
        "Tasks",
        "Details",
        "All",
    ]
    info = page.http.get("/gradio_api/info").json()
    assert sorted(info["named_endpoints"]) == [
        "/entry",
        "/leaderboard",
        "/leaderboard_decision",
        "/leaderboard_understanding",
        "/score",
    ]
    assert info["unnamed_endpoints"] == {}
    track = info["named_endpoints"]["/score"]["parameters"][1]
    assert track["parameter_has_default"] and track["parameter_default"] == score_view.DETECT
    help_text = " ".join(str(p.get("value")) for p in props.values())
    assert "Scoring is unavailable" not in help_text


def test_leaderboard_keeps_the_first_track_and_each_track_has_its_own(page: Page) -> None:
    first = page.run("leaderboard", [])[1]["data"][0]
    assert first == page.run("leaderboard_understanding", [])[1]["data"][0]
    assert {r["method_name"] for r in first} == {
        r.method_name for r in _demo_records(UNDERSTANDING)
    }
    assert all("overall" in r for r in first)
    rows = page.run("leaderboard_decision", [])[1]["data"][0]
    assert {r["method_name"] for r in rows} == {r.method_name for r in _demo_records(DECISION)}
    assert all(set(DECISION.all_metric_keys) <= set(r) for r in rows)


def _rank(intervals: list[tuple[float, float]]) -> list[int]:
    """1 + the rows whose interval lies entirely above, computed here from the definition."""
    return [1 + sum(low > high for low, _ in intervals) for _, high in intervals]


def test_the_decision_board_ranks_by_macro_f1_and_paper_rows_by_the_paper_s_f1(
    page: Page,
) -> None:
    rows = page.run("leaderboard_decision", [])[1]["data"][0]
    rescored = [r for r in rows if r["source"] == "rescored"]
    papers = [r for r in rows if r["source"] == "paper"]
    assert rows == rescored + papers  # the Space's rows first, then the paper's own
    macro = [r["decision_macro_f1"] for r in rescored]
    assert macro == sorted(macro, reverse=True)
    records = {str(r.id): r for r in _demo_records(DECISION)}
    intervals = [(records[r["id"]].intervals or {})["decision_macro_f1"] for r in rescored]
    assert [
        (r["decision_macro_f1_ci_low"], r["decision_macro_f1_ci_high"]) for r in rescored
    ] == intervals
    # the demo run is the one entry; the two constant policies are references, unranked
    assert rescored[0]["method_name"] == "DemoVLM-7B (synthetic)"
    assert [r["rank"] for r in rescored] == [1, None, None]
    assert [r["rank_range"] for r in rescored] == ["1", "reference", "reference"]
    # Two rank series, each row naming its own (issue 31, item 9: they were mixed, unnamed).
    assert [r["ranked_by"] for r in rescored] == ["decision_macro_f1", None, None]
    assert {r["ranked_by"] for r in papers} == {"paper_f1"}
    assert [r["reference"] for r in rescored[1:]] == [
        DECISION.reference_of(r["method_name"], records[r["id"]].metrics) for r in rescored[1:]
    ]
    assert rescored[0]["reference"] is None and {r["reference"] for r in papers} == {None}
    # Table 2 as printed, in the paper's own columns, ranked among themselves by its F1.
    assert [r["method_name"] for r in papers] == [p["method"] for p in PAPER_TABLE]
    for row, printed in zip(papers, PAPER_TABLE, strict=True):
        assert row["decision_f1"] is None and row["decision_accuracy"] is None
        assert row["decision_macro_f1_ci_low"] is None and row["counts"] is None
        for key in DECISION.paper_metric_keys:
            assert row[key] == float(printed[key]), key
    assert [r["rank"] for r in papers] == list(range(1, len(papers) + 1))


def test_the_switch_shows_the_decision_board_in_its_displays(page: Page) -> None:
    view, defaults = page.page_event("board-table", trigger="input")
    assert defaults[-1] == "understanding"  # the track is the view's last input
    switch, _ = page.page_event("column-group", trigger="input")
    assert page.queue(switch, ["decision"], session="visitor")[0] == "complete"
    kind, out = page.queue(view, [*defaults[:5], "Decision", None, "decision"], session="visitor")
    assert kind == "complete", out
    table, status, notes = out[0], out[1], out[2]
    layout = board_layout.board_layout(ARGUS, DECISION)
    headers, rows = read_board(table)
    assert headers == list(layout.groups["Decision"])
    assert status.startswith("1 entry · 2 reference rows")
    shown = {row[1].split(" reference:")[0]: dict(zip(headers, row, strict=True)) for row in rows}
    always = shown["Always-assist (synthetic)"]
    # Every proportion a ratio to three decimals, as the spec's displays say.
    assert always["F1"] == "0.822" and always["No-asst. FP"] == "1.000"
    assert always["Accuracy"] == "0.697" and always["Rank"] == "ref."
    assert "Gemini-3.1-Flash-Lite †" not in shown  # the paper rows are in Table 2's view
    assert "ranked among themselves by Paper F1" in notes
    assert f"**{md_escape('Paper (Table 2)')}**" in notes
    assert notes.count("Table 2's own columns") == 1  # one note, naming the seven rows
    kind, out = page.queue(view, [*defaults[:5], "Timing", None, "decision"], session="visitor")
    headers, rows = read_board(out[0])
    timing = {row[1].split(" reference:")[0]: dict(zip(headers, row, strict=True)) for row in rows}
    assert timing["DemoVLM-7B (synthetic)"]["MAE (s)"].count(".") == 1
    assert len(timing["DemoVLM-7B (synthetic)"]["MAE (s)"].split(".")[1]) == 2
    assert timing["Never-assist (synthetic)"]["MAE (s)"] == "—"  # nothing timed: no value


def test_switching_tracks_gives_the_other_track_s_groups_and_chart(page: Page) -> None:
    switch, defaults = page.page_event("column-group", trigger="input")
    assert defaults == ["understanding"]
    kind, out = page.queue(switch, ["decision"])
    assert kind == "complete", out
    group, compare, picks, plot, size_plot, date_plot = out
    assert [c[0] for c in group["choices"]] == [v.title for v in DECISION.views] + [
        "Details",
        "All",
    ]
    assert group["value"] == "Decision"
    assert compare["value"] == "### Compare entries per scenario"
    rescored = {r.method_name for r in _demo_records(DECISION) if r.source == "rescored"}
    assert set(picks["value"]) == rescored  # paper rows have none of the chart's dots
    chart = json.loads(plot["plot"])
    (dots,) = [layer for layer in chart["layer"] if layer["mark"]["type"] == "point"]
    assert dots["encoding"]["x"]["title"] == "Accuracy (0–1)"  # every proportion a ratio
    assert {v["Split"] for v in chart["data"]["values"]} == {
        DECISION.labels[k] for k in DECISION.chart
    }
    # The two scatters plot the re-scored entries by this Space's Macro F1 (paper rows have
    # none); the constant policies are labelled levels across them, not points.
    policies = {
        r.method_name
        for r in _demo_records(DECISION)
        if DECISION.reference_of(r.method_name, r.metrics)
    }
    for scatter in (size_plot, date_plot):
        methods = {v["Method"] for v in json.loads(scatter["plot"])["data"]["values"]}
        assert methods == rescored - policies and policies


@pytest.mark.parametrize(
    ("track", "words"),
    [
        ("nope", ["Track: 'nope' is not one of 'auto', 'understanding', 'decision'"]),
        (["decision"] * 1000, ["Track: ['decision', 'decision',", "…"]),
        (7, ["Track: 7 is not one of"]),
    ],
)
def test_a_track_no_page_offers_is_refused_before_any_work(
    page: Page, track: Any, words: list[str]
) -> None:
    # The board's events: Gradio refuses a value that is none of the radio's choices.
    view, defaults = page.page_event("board-table", trigger="input")
    assert page.queue(view, [*defaults[:-1], track])[0] == "error"
    switch, _ = page.page_event("column-group", trigger="input")
    assert page.queue(switch, [track])[0] == "error"
    chart, _ = page.page_event("board-chart", trigger="change")
    kind, error = page.queue(chart, [[], track])  # unprocessed: refused by the handler
    assert kind == "error" and "Track:" in str(error) and len(str(error)) < 200, error
    # Score's (unprocessed too): the handler refuses it, without echoing it.
    status, body = page.score(DECISION_SAMPLE, track)
    assert status != 200 and all(w in body["error"] for w in words), body["error"]
    assert len(body["error"]) < 200


# --- Score ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("track", [None, score_view.DETECT, "decision"])
def test_the_decision_sample_scores_as_the_evaluator_scores_it(
    page: Page, track: str | None
) -> None:
    status, body = page.score(DECISION_SAMPLE, track)
    assert status == 200, body
    [numbers] = body["data"]
    shown = page_path(page.http, page.upload(DECISION_SAMPLE), track)
    assert shown.numbers == numbers
    summary, table, chart = shown.summary, shown.table, shown.chart
    expected = evaluator.disclosed(DECISION, evaluator.score(DECISION_KEY, DECISION_SAMPLE))
    assert numbers["track"] == "decision"
    assert numbers["metrics"] == expected.metrics
    assert numbers["intervals"] == {k: list(v) for k, v in expected.intervals.items()}
    assert numbers["counts"] == {k: c.model_dump() for k, c in expected.counts.items()}
    f1, macro = expected.metrics["decision_f1"], expected.metrics["decision_macro_f1"]
    assert summary.startswith(f"### Decision Macro F1: {macro:.3f}\n")
    low, high = expected.intervals["decision_macro_f1"]
    assert f"95 % CI {low:.3f}–{high:.3f} (bootstrap)" in summary
    rows = {row[0]: row for row in table["data"]}
    assert list(rows) == [DECISION.names[k] for k in DECISION.metric_keys]
    assert rows[DECISION.names["decision_f1"]][1:3] == [f"{f1:.3f}", "—"]
    recall = expected.counts["decision_recall"]
    assert rows[DECISION.names["decision_recall"]][2] == f"{recall.correct} of {recall.total}"
    assert rows[DECISION.names["timing_mae_s"]][1] == f"{expected.metrics['timing_mae_s']:.2f} s"
    assert (
        rows[DECISION.names["decision_accuracy"]][1]
        == f"{expected.metrics['decision_accuracy']:.3f}"
    )
    values = json.loads(chart["plot"])["data"]["values"]
    assert {v["Entry"] for v in values} == {"Your submission"}  # no paper row has these metrics
    assert "example_id" not in json.dumps(body) and "ep-0000" not in json.dumps(body)


@pytest.mark.parametrize("track", [None, "understanding"])
def test_the_understanding_sample_still_scores_as_before(page: Page, track: str | None) -> None:
    status, body = page.score(UNDERSTANDING_SAMPLE, track)
    assert status == 200, body
    expected = evaluator.disclosed(
        UNDERSTANDING, evaluator.score(UNDERSTANDING_KEY, UNDERSTANDING_SAMPLE)
    )
    [numbers] = body["data"]
    assert numbers["track"] == "understanding" and numbers["metrics"] == expected.metrics
    shown = page_path(page.http, page.upload(UNDERSTANDING_SAMPLE), track)
    assert f"Overall: {expected.metrics['overall']:.1f} %" in shown.summary


def _decision_file(change: Callable[[list[dict[str, Any]]], None]) -> bytes:
    entries: list[dict[str, Any]] = json.loads(DECISION_SAMPLE)
    change(entries)
    return json.dumps(entries).encode()


def _yes(entries: list[dict[str, Any]]) -> None:
    entries[0]["assist"] = "yes"


def _negative(entries: list[dict[str, Any]]) -> None:
    entries[5]["intervention_time_s"] = -3


def _no_id(entries: list[dict[str, Any]]) -> None:
    del entries[3]["example_id"]


#: A malformed decision file, the track it is given to, and what the message must say.
MALFORMED: list[tuple[str, bytes, str | None, list[str]]] = [
    (
        "yes-for-true",
        _decision_file(_yes),
        "decision",
        [
            '1 entry writes "assist" as a string (e.g. the 1st entry: "yes")',
            'write the JSON literal true or false, without quotes: "assist": true, not '
            '"assist": "yes"',
        ],
    ),
    (
        "negative-time",
        _decision_file(_negative),
        "decision",
        [
            '1 entry has a negative "intervention_time_s" (e.g. the 6th entry: -3)',
            "seconds from the start of the video, 0 or more",
        ],
    ),
    (
        "missing-id",
        _decision_file(_no_id),
        None,
        ['1 entry has no "example_id" (e.g. the 4th entry)', "1 episode has no answer (ep-000004)"],
    ),
    (
        "understanding-file-as-decision",
        UNDERSTANDING_SAMPLE,
        "decision",
        [
            "This file is for the Understanding track",
            "not for the Decision track",
            'track "understanding" or "auto"',
        ],
    ),
    (
        "decision-file-as-understanding",
        DECISION_SAMPLE,
        "understanding",
        [
            "This file is for the Decision track",
            "not for the Understanding track",
            'track "decision" or "auto"',
        ],
    ),
    (
        "not-json",
        b"not json",
        None,
        ["not valid JSON", "read as a file for the Understanding track"],
    ),
]


@pytest.mark.parametrize(
    ("data", "track", "words"), [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED]
)
def test_a_malformed_decision_file_gets_the_message_that_fixes_it(
    page: Page, data: bytes, track: str | None, words: list[str]
) -> None:
    status, body = page.score(data, track)
    assert status != 200
    message = body["error"]
    missing = [w for w in words if w not in message]
    assert not missing, message
    assert "Traceback" not in json.dumps(body)


def test_a_refused_file_does_not_use_up_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = ledger.load_config(
        {"LEADERBOARD_BENCHMARK": "egoargus", "LEADERBOARD_SCORE_LIMIT": "1"}
    )
    for limited in _page(config):
        for _ in range(3):
            assert limited.score(UNDERSTANDING_SAMPLE, "decision")[0] != 200
        assert limited.score(DECISION_SAMPLE, None)[0] == 200
        status, body = limited.score(DECISION_SAMPLE, "decision")
        assert status != 200 and "limited to 1 file" in body["error"]


def test_a_track_whose_key_is_missing_disables_score_for_that_track_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / UNDERSTANDING.key.name).write_bytes(ARGUS.demo_key(UNDERSTANDING).read_bytes())
    monkeypatch.chdir(tmp_path)
    config = ledger.load_config(
        {"LEADERBOARD_BENCHMARK": "egoargus", "LEADERBOARD_ANSWER_KEY": str(keys)}
    )
    with caplog.at_level(logging.WARNING, logger="egoargus.app"):
        pages = _page(config)
        half = next(pages)
    try:
        logged = " ".join(r.getMessage() for r in caplog.records)
        assert "Score of Decision is disabled" in logged and DECISION.key.name in logged
        disabled = half.props()["score-disabled"]
        assert disabled["visible"] is True
        assert disabled["value"].startswith("### Scoring is unavailable for Decision\n")
        assert "Understanding" not in disabled["value"]
        status, body = half.score(DECISION_SAMPLE, None)
        assert status != 200
        # What is unavailable; the file's path is the log's (issue 22, finding 6).
        assert body["error"] == f"Scoring for Decision is unavailable: {KEY_UNAVAILABLE}"
        assert str(tmp_path) not in body["error"] + disabled["value"]
        status, body = half.score(UNDERSTANDING_SAMPLE, None)
        assert status == 200 and body["data"][0]["track"] == "understanding"
        # The boards of both tracks are still shown.
        assert half.run("leaderboard_decision", [])[1]["data"][0]
    finally:
        pages.close()


def test_a_key_that_fails_to_load_disables_its_track_until_it_loads(tmp_path: Path) -> None:
    down = ledger.KeyStatus(
        None, "org/private on the Hub", demo=False, error="the Hub could not be reached"
    )
    current = [down]
    up = ledger.KeyStatus(UNDERSTANDING_KEY, "synthetic demo key", demo=True, error=None)
    store = ledger.LocalStore(ARGUS.demo_board)
    tracks = [
        served.Served(UNDERSTANDING, lambda: up, ledger.BoardCache(store, ARGUS, UNDERSTANDING)),
        served.Served(DECISION, lambda: current[0], ledger.BoardCache(store, ARGUS, DECISION)),
    ]
    demo = app.build_page(ARGUS, tracks, guard.ScoreLimiter(guard.ScoreLimits(limit=100)))
    mounted = gr.mount_gradio_app(FastAPI(), demo, path="/", max_file_size=guard.MAX_FILE_SIZE)
    with TestClient(mounted) as http:
        page = Page(http)
        status, body = page.score(DECISION_SAMPLE, "decision")
        assert status != 200
        assert body["error"] == f"Scoring for Decision is unavailable: {KEY_UNAVAILABLE}"
        assert page.score(UNDERSTANDING_SAMPLE, "understanding")[0] == 200
        current[0] = ledger.KeyStatus(
            DECISION_KEY, "org/private on the Hub", demo=False, error=None
        )
        assert page.score(DECISION_SAMPLE, None)[0] == 200


# --- the pure parts ------------------------------------------------------------------------------


def test_a_lower_is_better_ranking_ranks_the_lowest_interval_first() -> None:
    intervals = [(0.1, 0.2), (0.15, 0.3), (0.5, 0.6)]
    assert board_ranks.rank_ranges(intervals, higher_is_better=False) == [(1, 2), (1, 2), (3, 3)]
    assert board_ranks.rank_ranges(intervals) == [(2, 3), (2, 3), (1, 1)]
    # A signed error is best at 0: an interval around 0 is better than one entirely away.
    assert board_ranks.rank_ranges(
        [(-3.0, -2.0), (-0.5, 0.5), (1.0, 4.0)], higher_is_better=None
    ) == [(2, 3), (1, 1), (2, 3)]


def test_the_decision_layout_carries_the_paper_columns_under_the_paper_s_names() -> None:
    layout = board_layout.board_layout(ARGUS, DECISION)
    paper = list(layout.groups["Paper (Table 2)"])
    # the view of the paper's own columns leads with the metric its rows are ranked by
    assert paper[: 2 + len(DECISION.paper_metric_keys)] == [
        "Rank",
        "Method",
        *(DECISION.labels[k] for k in DECISION.paper_metric_keys),
    ]
    assert layout.formats["F1"] == "{:.3f}" and layout.formats["Paper MAE (s)"] == "{:.2f}"
    assert layout.formats["Accuracy"] == "{:.3f}" and layout.formats["Timed"] == "{:.0f}"
    assert layout.info["ci"] == "Macro F1 95% CI"


def test_a_file_s_track_is_told_by_the_fields_only_its_entries_carry() -> None:
    assert track_fit.fitting_track(ARGUS, DECISION_SAMPLE) is DECISION
    assert track_fit.fitting_track(ARGUS, UNDERSTANDING_SAMPLE) is UNDERSTANDING
    lines = b"\n".join(json.dumps(e).encode() for e in json.loads(DECISION_SAMPLE))
    assert track_fit.fitting_track(ARGUS, lines) is DECISION  # JSON Lines
    wrapped = json.dumps({"results": [{"example_id": "x", "pred": "A"}]}).encode()
    assert track_fit.fitting_track(ARGUS, wrapped) is UNDERSTANDING  # an alias, inside a wrapper
    for unknown in (
        b"",
        b"not json",
        b"[]",
        b'[{"example_id": "x"}]',
        b"\xff\xfe",
        b'[{"predicted_answer": "A"}, {"assist": true}]',
    ):
        assert track_fit.fitting_track(ARGUS, unknown) is None, unknown


def test_records_of_a_sibling_track_are_neither_skipped_nor_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = ledger.LocalStore(ARGUS.demo_board)
    with caplog.at_level(logging.WARNING, logger="ledger"):
        snapshot = ledger.BoardCache(store, ARGUS, DECISION).snapshot()
    assert snapshot.skipped == ()
    assert not [r for r in caplog.records if "skipped leaderboard record" in r.getMessage()]
    assert {r.method_name for r in snapshot.records} == {
        r.method_name for r in _demo_records(DECISION)
    }
