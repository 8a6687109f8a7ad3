"""The Hub's own results beside the board (issue 32): off unless the spec turns them on, shown
apart and marked unverified, escaped, and a Hub that fails hides nothing of the verified board.

The section's handlers over a ``BoardTab`` whose first track reads the Hub's results through
``ledger.HubResultsCache`` (a reader given here, or the loopback Hub); the page built in
process to see which components and events it has.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from pathlib import Path

import gradio as gr
import pytest
from starlette.requests import Request

import app
import guard
import ledger
import spec
from errors import LedgerError
from tests.support.demo_keys import demo_key
from web.board import handlers
from web.board import hub_results as hub_results_view
from web.board import landing as board_landing
from web.board.hub_results import hub_results_html
from web.served import Served

BENCH = spec.load_benchmark("egoargus")  # two tracks: the Hub's results beside the first
SITE = "https://huggingface.co"
ROW = ledger.HubResult(1, "lab/model-7b", 44.625, False, None, "https://example.org/r", "Run", "x")
COMMUNITY = ledger.HubResult(2, "lab/other", 0.5, True, 4, None, None, None)


@pytest.fixture(autouse=True)
def exports_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def results(
    *rows: ledger.HubResult, error: str | None = None, read: bool = True
) -> ledger.HubResults:
    return ledger.HubResults("org/bench", rows, 1.0 if read else None, error)


def test_the_section_says_its_rows_are_not_verified_here_and_what_community_means() -> None:
    html = hub_results_html(results(ROW, COMMUNITY), SITE)
    assert "On the Hugging Face Hub: results not verified here" in html
    assert "has not re-scored them" in html and "<em>community</em>" in html
    assert f'href="{SITE}/lab/model-7b"' in html and "44.625" in html
    assert f'href="{SITE}/lab/other/discussions/4"' in html and "pull request #4" in html
    assert "verified by the Hub" in html  # the Hub's own badge, said to be the Hub's
    assert f'href="{SITE}/datasets/org/bench"' in html


@pytest.mark.parametrize(
    ("read", "words"),
    [
        (results(error="HTTP 503"), "The Hub did not answer just now, so none is shown"),
        (results(ROW, error="HTTP 503"), "so the results read before are shown"),
        (results(read=False), "The Hub's results are being read"),
        (results(), "No model repository reports a result"),
    ],
    ids=["failed", "stale", "unread", "empty"],
)
def test_each_state_of_the_hub_s_answer_is_said(read: ledger.HubResults, words: str) -> None:
    html = hub_results_html(read, SITE)
    assert words in html
    assert "HTTP 503" not in html  # the reason is the log's, not the visitors'


def test_every_text_from_the_hub_is_escaped() -> None:
    hostile = ledger.HubResult(1, "lab/m", 1.0, False, None, None, "<img src=x>", "{{x}} `$`")
    html = hub_results_html(results(hostile), SITE)
    for raw in ("<img", "{", "}", "`", "$"):
        assert raw not in html.split("<tbody>")[1], raw


def _tab(reader: object | None) -> handlers.BoardTab:
    served = []
    for track in BENCH.tracks:
        key = demo_key(BENCH, track)
        board = ledger.BoardCache(ledger.LocalStore(BENCH.demo_board), BENCH, track)
        hub = (
            ledger.HubResultsCache("org/bench", reader=reader, site=SITE)  # type: ignore[arg-type]
            if reader is not None and track is BENCH.tracks[0]
            else None
        )
        status = ledger.KeyStatus(key, "demo", True, None)
        served.append(Served(track, functools.partial(lambda s: s, status), board, hub))
    return handlers.board_tab(BENCH, served, lambda: 0.0)


def test_the_first_track_shows_the_hub_s_results_and_the_others_do_not() -> None:
    tab = _tab(lambda: (ROW,))
    shown = hub_results_view.hub_section(tab, "understanding")
    assert shown["visible"] is True and "lab/model-7b" in shown["value"]
    assert hub_results_view.hub_section(tab, "decision") == gr.update(visible=False, value="")
    with pytest.raises(gr.Error):
        hub_results_view.hub_section(tab, "no-such-track")


def _request(query: str = "") -> gr.Request:
    """A page load's request, as Gradio hands it to a handler (a real Starlette request)."""
    scope = {"type": "http", "method": "GET", "path": "/", "headers": [], "query_string": query}
    return gr.Request(Request({**scope, "query_string": query.encode()}))


def test_a_fresh_page_s_hub_box_is_the_addressed_track_s() -> None:
    """Like the charts (issue 31, item 1): the box read the Track radio at load, before the
    landing had set it from ?track=, so a decision page showed the first track's box."""
    tab = _tab(lambda: (ROW,))
    assert board_landing.landing_hub(tab, _request("track=decision")) == gr.update(
        visible=False, value=""
    )
    shown = board_landing.landing_hub(tab, _request())
    assert shown["visible"] is True and "lab/model-7b" in shown["value"]


def test_a_failing_hub_hides_nothing_of_the_verified_board() -> None:
    def down() -> tuple[ledger.HubResult, ...]:
        raise LedgerError("reading the Hub's results: no answer")

    tab = _tab(down)
    table, status, *_ = handlers.view(tab, "", [], [], [], [], "All", None, "understanding")
    section = hub_results_view.hub_section(tab, "understanding")
    assert "The Hub did not answer just now" in section["value"]
    calm = _tab(lambda: (ROW,))
    same, same_status, *_ = handlers.view(calm, "", [], [], [], [], "All", None, "understanding")
    assert table == same and status == same_status  # the board is the board, Hub or not
    listed = handlers.leaderboard_api(tab, tab.first)()
    assert listed == handlers.leaderboard_api(calm, calm.first)()


def _components(demo: gr.Blocks) -> set[str]:
    return {str(c.elem_id) for c in demo.blocks.values() if getattr(c, "elem_id", None)}


def test_the_section_is_on_the_page_only_when_a_track_shows_it() -> None:
    limiter = guard.ScoreLimiter(guard.ScoreLimits(limit=100))
    off, on = _tab(None), _tab(lambda: ())
    assert "hub-results" not in _components(app.build_page(BENCH, off.served, limiter))
    assert "hub-results" in _components(app.build_page(BENCH, on.served, limiter))


def test_the_spec_turns_the_hub_s_results_on_outside_demo_mode_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no key file here
    shipped = ledger.load_config({"LEADERBOARD_BENCHMARK": BENCH.id, "HF_TOKEN": "hf_x"})
    assert BENCH.hub.show_hub_results is False
    assert app.hub_results(shipped, app.app_logger(BENCH)) is None  # off in the shipped spec
    folder = tmp_path / "bench"
    shutil.copytree(BENCH.folder, folder, ignore=shutil.ignore_patterns("demo"))
    toml = folder / "benchmark.toml"
    toml.write_text(toml.read_text().replace("show_hub_results = false", "show_hub_results = true"))
    turned_on = ledger.load_config({"LEADERBOARD_BENCHMARK": str(folder), "HF_TOKEN": "hf_x"})
    cache = app.hub_results(turned_on, app.app_logger(BENCH))
    assert cache is not None and cache.dataset == BENCH.hub.dataset
    demo = ledger.load_config({"LEADERBOARD_BENCHMARK": str(folder)})  # no key: demo mode
    assert demo.demo and app.hub_results(demo, app.app_logger(BENCH)) is None
