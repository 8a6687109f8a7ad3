"""The Leaderboard tab's handlers called directly, without mounting the page.

Each test builds a ``BoardTab`` over the shipped demo boards (EgoMemReason's one track,
EgoArgus's two) and calls one handler as Gradio would, with a real Starlette request or the
event's data where the handler takes them. Expected rows, counts and ids come from the demo
records and the spec, never from the handler under test.
"""

from __future__ import annotations

import csv
import inspect
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import gradio as gr
import pytest
from gradio import utils as gradio_utils
from starlette.requests import Request

import errors
import evaluator
import ledger
import spec
from tests.support.board_html import read_board, row_ids
from tests.support.demo_keys import demo_key
from web.board import chart_handlers, handlers
from web.board import landing as board_landing
from web.board.chart_handlers import MAX_PICKS
from web.board.layout import board_layout
from web.board.table import Sort
from web.served import Served
from web.text import md_escape
from web.wiring import bound

EGOMEM = spec.load_benchmark("egomemreason")
MEMORY = EGOMEM.track("memory")
ARGUS = spec.load_benchmark("egoargus")
UNDERSTANDING = ARGUS.track("understanding")
DECISION = ARGUS.track("decision")
LOADED_AT, NOW = 1_000.0, 1_090.0  # the board loaded 90 s before the handler runs
#: The status line's words for it (web.board.status.status_line).
READ_90_S_AGO = "board as of 00:16 UTC, read from its records 90 s ago; Refresh reads them again"
#: What a fresh page sends: no search, nothing ticked (search, sources, external, inputs, sizes).
NO_FILTERS: tuple[str, list[str], list[str], list[str], list[str]] = ("", [], [], [], [])


def _served(bench: spec.Benchmark, track: spec.Track, board_dir: Path | None = None) -> Served:
    key = demo_key(bench, track)
    store = ledger.LocalStore(board_dir or bench.demo_board)
    board = ledger.BoardCache(store, bench, track, clock=lambda: LOADED_AT)
    return Served(track, lambda: ledger.KeyStatus(key, "demo", True, None), board)


@pytest.fixture(autouse=True)
def exports_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The tab's export folders under this test's own folder."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def egomem() -> handlers.BoardTab:
    return handlers.board_tab(EGOMEM, [_served(EGOMEM, MEMORY)], lambda: NOW)


@pytest.fixture
def argus() -> handlers.BoardTab:
    served = [_served(ARGUS, UNDERSTANDING), _served(ARGUS, DECISION)]
    return handlers.board_tab(ARGUS, served, lambda: NOW)


def _records(bench: spec.Benchmark, track: spec.Track) -> list[ledger.Record]:
    """The track's rows on the demo board, read from its files (superseded rows left out)."""
    store = ledger.LocalStore(bench.demo_board)
    records = [ledger.Record.from_json(store.read(p)) for p in store.list_paths()]
    mine = [r for r in records if ledger.record_track(r, bench) == track.id]
    hidden = {r.supersedes for r in mine if r.supersedes is not None}
    return [r for r in mine if r.id not in hidden]


def _superseded(bench: spec.Benchmark, track: spec.Track) -> list[ledger.Record]:
    store = ledger.LocalStore(bench.demo_board)
    records = [ledger.Record.from_json(store.read(p)) for p in store.list_paths()]
    mine = [r for r in records if ledger.record_track(r, bench) == track.id]
    hidden = {r.supersedes for r in mine if r.supersedes is not None}
    return [r for r in mine if r.id in hidden]


def _request(query: str = "") -> gr.Request:
    """A page load's request, as Gradio hands it to a handler (a real Starlette request)."""
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/",
        "headers": [],
        "query_string": query.encode(),
        "client": ("203.0.113.9", 50_000),
    }
    return gr.Request(Request(scope))


def _refusal(call: Any, *args: Any) -> str:
    with pytest.raises(gr.Error) as refused:
        call(*args)
    return str(refused.value.message)


# --- the board ---------------------------------------------------------------------------------


def test_view_shows_the_whole_board_best_first_under_the_group_s_headers(
    egomem: handlers.BoardTab,
) -> None:
    records = _records(EGOMEM, MEMORY)
    table, status, notes, csv_path, json_path, sort = handlers.view(
        egomem, *NO_FILTERS, "Memory types", None, "memory"
    )
    headers, rows = read_board(table)
    assert headers == list(board_layout(EGOMEM, MEMORY).groups["Memory types"])
    assert sorted(row_ids(table)) == sorted(str(r.id) for r in records)
    # The entries best first, then the spec's reference policies (unranked, read against).
    entries = [r for r in records if not MEMORY.reference_of(r.method_name, r.metrics)]
    references = len(records) - len(entries)
    assert references == 2  # the paper's Random, the demo's Always-A
    overall = [float(row[headers.index("Overall")]) for row in rows]
    assert overall[: len(entries)] == sorted(overall[: len(entries)], reverse=True)
    assert overall[0] == round(max(r.metrics["overall"] for r in records), 1)
    assert [row[0] for row in rows[len(entries) :]] == ["ref."] * references
    assert status == (
        f"{len(entries)} entries · {references} reference rows (not ranked) · {READ_90_S_AGO}"
    )
    noted = {r.method_name for r in records if r.note}
    assert noted and all(f"**{md_escape(name)}**" in notes for name in noted)
    assert sort is None
    # The downloads are the rows shown, in the order shown.
    shown = row_ids(table)
    with open(csv_path, encoding="utf-8-sig", newline="") as file:
        assert [row["Record id"] for row in csv.DictReader(file)] == shown
    assert [row["id"] for row in json.loads(Path(json_path).read_text(encoding="utf-8"))] == shown


def test_view_filters_and_searches_and_says_how_many_it_hides(
    egomem: handlers.BoardTab,
) -> None:
    records = _records(EGOMEM, MEMORY)
    papers_of_qwen = [r for r in records if r.source == "paper" and "qwen" in r.method_name.lower()]
    assert 0 < len(papers_of_qwen) < len(records)
    table, status, *_ = handlers.view(
        egomem, "qwen", ["Paper-reported"], [], [], [], "All", None, None
    )
    assert sorted(row_ids(table)) == sorted(str(r.id) for r in papers_of_qwen)
    entries = [r for r in records if not MEMORY.reference_of(r.method_name, r.metrics)]
    assert status == (
        f"{len(papers_of_qwen)} of {len(entries)} entries · 0 of 2 reference rows (not ranked)"
        f" · {READ_90_S_AGO}"
    )
    table, status, *_ = handlers.view(egomem, "no such method", [], [], [], [], "All", None, None)
    assert row_ids(table) == []
    assert f"clear them to see all {len(records)} entries" in table
    assert status.startswith(f"0 of {len(entries)} entries")


def test_a_header_click_sorts_by_it_and_a_second_click_reverses(
    egomem: handlers.BoardTab,
) -> None:
    clicked = gr.EventData(None, {"sort": "Entity"})
    table, *_, sort = handlers.resort(egomem, clicked, *NO_FILTERS, "Memory types", None, None)
    assert sort == Sort("Entity")
    headers, rows = read_board(table)
    entity = [float(row[headers.index("Entity")]) for row in rows]
    assert entity == sorted(entity, reverse=True) and entity[0] > entity[-1]
    table, *_, sort = handlers.resort(egomem, clicked, *NO_FILTERS, "Memory types", sort, None)
    assert sort == Sort("Entity", reversed=True)
    headers, rows = read_board(table)
    assert [float(row[headers.index("Entity")]) for row in rows] == sorted(entity)
    # A sort the page sends back is kept by the next view while its column is shown...
    assert handlers.view(egomem, *NO_FILTERS, "Memory types", sort, None)[-1] == sort
    # ...and dropped in a group without that column.
    assert handlers.view(egomem, *NO_FILTERS, "Query types", sort, None)[-1] is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"track_id": "nope"}, "Track: 'nope' is not one of 'memory'."),
        ({"track_id": 7}, "Track: 7 is not one of 'memory'."),
        (
            {"group": "Bogus"},
            "Column group: 'Bogus' is not one of 'Memory types', 'Query types', 'Details', 'All'.",
        ),
        ({"sources": ["Nope"]}, "Source: 'Nope' is not one of 'Re-scored', 'Paper-reported'."),
        ({"sizes": "≥ 40B"}, "Model size: expected a list of its choices; got '≥ 40B'."),
        ({"search": " ".join(["w"] * 21)}, "The search has 21 words; search for at most 20 words."),
    ],
)
def test_view_refuses_what_no_control_sends_before_any_work(
    egomem: handlers.BoardTab, exports_in: Path, change: dict[str, Any], message: str
) -> None:
    inputs: dict[str, Any] = {
        "search": "",
        "sources": [],
        "external": [],
        "inputs": [],
        "sizes": [],
        "group": "All",
        "sort": None,
        "track_id": "memory",
    }
    inputs.update(change)
    assert _refusal(handlers.view, egomem, *inputs.values()) == message
    assert [p for p in exports_in.rglob("*") if p.is_file()] == []  # no export was written


def test_a_header_the_group_does_not_show_is_refused(egomem: handlers.BoardTab) -> None:
    groups = board_layout(EGOMEM, MEMORY).groups
    hidden = next(c for c in groups["Details"] if c not in groups["Memory types"])
    clicked = gr.EventData(None, {"sort": hidden})
    message = _refusal(handlers.resort, egomem, clicked, *NO_FILTERS, "Memory types", None, None)
    assert message.startswith(f"Sort: {hidden!r} is not a column of this view; expected one of")


# --- a row's card and the page's address -------------------------------------------------------


def test_a_chosen_row_opens_its_card(egomem: handlers.BoardTab) -> None:
    record = next(r for r in _records(EGOMEM, MEMORY) if r.source == "rescored")
    box, html = handlers.open_card(egomem, "memory", gr.EventData(None, {"entry": str(record.id)}))
    assert box == gr.update(visible=True)
    assert f">{record.method_name}</h3>" in html and record.team_name in html
    assert f'href="?entry={record.id}"' in html  # its permalink, with no track on one track
    assert "--leaderboard-dir" in html  # read from a local board: reproduce_row is told where


@pytest.mark.parametrize("data", [None, {}, {"entry": "not-an-id"}, {"entry": "0" * 65}, [1]])
def test_a_card_event_without_a_record_id_is_refused(
    egomem: handlers.BoardTab, data: object
) -> None:
    message = _refusal(handlers.open_card, egomem, "memory", gr.EventData(None, data))
    assert message == "Select an entry of the board to open its card."


def test_an_id_no_board_has_gets_a_note_not_a_card(egomem: handlers.BoardTab) -> None:
    gone = "00000000-0000-4000-8000-000000000000"
    box, html = handlers.card(egomem, gone, egomem.first)
    assert box == gr.update(visible=True)
    assert html == (
        '<p class="card-missing">No entry of this leaderboard has the id '
        f"<code>{gone}</code>; it may have been removed.</p>"
    )


def test_a_superseded_row_s_card_links_to_the_row_that_replaced_it(
    argus: handlers.BoardTab,
) -> None:
    old = _superseded(ARGUS, UNDERSTANDING)[0]
    newer = next(r for r in _records(ARGUS, UNDERSTANDING) if r.supersedes == old.id)
    # Asked from the other track: every board is looked at.
    found = handlers.find_entry(argus, str(old.id), argus.tracks["decision"])
    assert found is not None
    served, record, successor = found
    assert (served.track.id, record.id, successor) == ("understanding", old.id, newer)
    _, html = handlers.card(argus, str(old.id), argus.tracks["decision"])
    assert "<strong>Superseded</strong>" in html
    assert f'href="?entry={newer.id}&amp;track=understanding"' in html


def test_a_fresh_page_shows_the_board_alone_without_an_entry_in_its_address(
    egomem: handlers.BoardTab,
) -> None:
    out = board_landing.landing(egomem, _request())
    # the board's six, the card box, the card (no track switch), the six controls, the filters,
    # the charts' five, the notes about the address
    assert len(out) == 21
    assert out[6:8] == (gr.update(visible=False), "")
    assert len(row_ids(out[0])) == len(_records(EGOMEM, MEMORY))


def test_a_fresh_page_opens_the_track_and_card_its_address_names(
    argus: handlers.BoardTab,
) -> None:
    decision = _records(ARGUS, DECISION)
    entry = decision[-1]
    out = board_landing.landing(argus, _request(f"entry={entry.id}"))
    table, status, *_, chosen, box, html = out[:9]
    assert chosen == gr.update(
        value="decision"
    )  # the entry's track, though the page showed another
    # its first view, Decision, shows the re-scored rows (the paper rows are in Table 2's)
    assert 'data-track="decision"' in table and sorted(row_ids(table)) == sorted(
        str(r.id) for r in decision if r.source == "rescored"
    )
    # An Understanding group (Tasks) on the Decision board: the Decision board's first group.
    assert "Tasks" not in board_layout(ARGUS, DECISION).groups
    headers, _ = read_board(table)
    assert headers == list(next(iter(board_layout(ARGUS, DECISION).groups.values())))
    # one entry, the two constant policies as references, Table 2's seven rows ranked apart
    assert status.startswith("1 entry · 2 reference rows (not ranked) · 7 paper-reported rows")
    assert box == gr.update(visible=True) and f">{entry.method_name}</h3>" in html
    # ?track= alone selects a track; an unknown track or a malformed entry is said and ignored
    # (tests/web/test_board_address.py: what is said).
    landed = board_landing.landing(argus, _request("track=decision"))
    assert landed[6] == gr.update(value="decision")
    # and the charts of that track, in the same answer (issue 31: a second load handler's
    # picks drew the first track's chart)
    heading, picks, board_plot = landed[-6:-3]
    assert heading == gr.update(visible=True, value="### Compare entries per scenario")
    assert (
        {row["Entry"] for row in _chart_rows(board_plot)}
        == set(picks["value"])
        <= {r.method_name for r in decision}
    )
    ignored = board_landing.landing(argus, _request("track=nope&entry=%3Cscript%3E"))
    assert ignored[6:9] == (gr.update(value="understanding"), gr.update(visible=False), "")
    assert "'nope'" in ignored[-1]["value"] and "'<script>'" not in ignored[-1]["value"]


# --- the charts and the track switch ---------------------------------------------------------


def _chart_rows(plot: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(plot.plot)["data"]["values"]
    return rows


def test_the_chart_compares_the_picked_entries_and_skips_names_gone_since(
    egomem: handlers.BoardTab,
) -> None:
    shown = [r.method_name for r in _records(EGOMEM, MEMORY)][:2]
    plot = chart_handlers.chart(egomem, [*shown, "Gone since the page loaded"], "memory")
    assert {row["Entry"] for row in _chart_rows(plot)} == set(shown)
    assert "Accuracy per split" in plot.plot


@pytest.mark.parametrize("methods", [["x"] * (MAX_PICKS + 1), "DemoVLM-7B", [1, 2]])
def test_the_chart_refuses_more_or_other_than_the_picks_offer(
    egomem: handlers.BoardTab, methods: object
) -> None:
    message = _refusal(chart_handlers.chart, egomem, methods, "memory")
    assert message == f"Compare at most {MAX_PICKS} entries of the board."


def test_a_fresh_page_s_charts_offer_the_rows_with_dots_and_pick_the_top_five(
    egomem: handlers.BoardTab,
) -> None:
    landed = board_landing.landing(egomem, _request())
    heading, picks, board_plot, size_plot, date_plot = landed[-6:-1]
    assert heading == gr.update(visible=True, value="### Compare entries per split")
    names = picks["choices"]
    assert sorted(names) == sorted(r.method_name for r in _records(EGOMEM, MEMORY))
    assert picks["value"] == names[:5]
    assert {row["Entry"] for row in _chart_rows(board_plot)} == set(names[:5])
    assert size_plot is not None and date_plot is not None


def test_the_board_s_charts_mark_the_key_s_chance(argus: handlers.BoardTab) -> None:
    """Chance is the key's (evaluator.chance, exact), on every chart of a multiple-choice
    track; a decision track has none (its floors are reference rows)."""
    understanding, decision = argus.served
    chance = evaluator.chance(understanding.keys().key)  # type: ignore[arg-type]
    assert chance is not None and evaluator.chance(decision.keys().key) is None  # type: ignore[arg-type]
    label = f"Chance: {chance:.1f} %"
    _, _, board_plot, size_plot, date_plot = chart_handlers.charts_of(argus, understanding)
    for plot in (board_plot, size_plot, date_plot):
        assert label in plot.plot
    _, _, *decision_plots = chart_handlers.charts_of(argus, decision)
    assert not any("Chance" in plot.plot for plot in decision_plots)


def test_an_empty_board_s_charts_say_it_has_no_entries_yet(tmp_path: Path) -> None:
    """Issue 31, item 13: they were hidden, the chart area collapsed with no word why."""
    empty = tmp_path / "empty-board"
    empty.mkdir()
    tab = handlers.board_tab(EGOMEM, [_served(EGOMEM, MEMORY, empty)], lambda: NOW)
    heading, picks, *plots = chart_handlers.charts_of(tab, tab.first)
    assert heading == gr.update(visible=True, value="### Compare entries per split")
    assert picks == gr.update(visible=False, choices=[], value=[])
    for plot in plots:
        assert json.loads(plot.plot)["description"].startswith("No entries yet")
    table, status, *_ = handlers.view(tab, *NO_FILTERS, "All", None, None)
    assert "No entries yet." in table and status.startswith("0 entries")


def test_the_switch_gives_the_other_track_s_groups_and_charts(argus: handlers.BoardTab) -> None:
    group, heading, picks, *_ = chart_handlers.switch(argus, "decision")
    groups = list(board_layout(ARGUS, DECISION).groups)
    assert group == gr.update(choices=groups, value=groups[0])
    assert heading == gr.update(visible=True, value="### Compare entries per scenario")
    assert set(picks["choices"]) <= {r.method_name for r in _records(ARGUS, DECISION)}
    message = _refusal(chart_handlers.switch, argus, "leaderboard")
    assert message == "Track: 'leaderboard' is not one of 'understanding', 'decision'."


# --- /leaderboard ------------------------------------------------------------------------------


def test_the_leaderboard_api_gives_each_board_and_says_what_it_is(
    argus: handlers.BoardTab, egomem: handlers.BoardTab
) -> None:
    whole = handlers.leaderboard_api(egomem, egomem.first)
    assert whole.__name__ == "leaderboard"
    assert whole.__doc__ == (
        "The whole board, best Overall first: metrics unrounded, ranks, counts, links."
    )
    rows = whole()
    assert [row["rank"] for row in rows][:1] == [1]
    assert sorted(row["id"] for row in rows) == sorted(str(r.id) for r in _records(EGOMEM, MEMORY))
    decision = handlers.leaderboard_api(argus, argus.tracks["decision"])
    assert decision.__doc__ == (
        "The Decision board, best Macro F1 first: metrics unrounded, ranks, counts, links."
    )
    assert {row["id"] for row in decision()} == {str(r.id) for r in _records(ARGUS, DECISION)}


# --- the tab, and its handlers as Gradio sees them ----------------------------------------------


def test_a_tab_whose_board_cannot_be_laid_out_fails_at_boot() -> None:
    views = [v.model_copy(update={"title": "All"}) for v in MEMORY.views]
    clashing = MEMORY.model_copy(update={"views": views})
    broken = _served(EGOMEM, MEMORY)
    broken = Served(clashing, broken.keys, broken.board)
    with pytest.raises(errors.LayoutError, match="the board cannot be laid out"):
        handlers.board_tab(EGOMEM, [broken], lambda: NOW)


@pytest.mark.parametrize(
    ("handler", "special"),
    [
        (board_landing.landing, {"request": gr.Request}),
        (handlers.resort, {"event": gr.EventData}),
        (handlers.open_card, {"event": gr.EventData}),
        (handlers.view, {}),
        (chart_handlers.chart, {}),
        (chart_handlers.switch, {}),
    ],
)
def test_a_bound_handler_shows_gradio_the_parameters_it_fills(
    egomem: handlers.BoardTab, handler: Any, special: dict[str, type]
) -> None:
    wired = bound(handler, egomem)
    hints = gradio_utils.get_type_hints(wired)
    assert {n: hints[n] for n in hints if hints[n] in (gr.Request, gr.EventData)} == special
    assert "tab" not in hints and wired.__name__ == handler.__name__
    params = list(gradio_utils.get_function_params(wired))  # *controls aside: Gradio's own
    named = list(inspect.signature(handler).parameters.values())[1:]
    assert [p[0] for p in params] == [
        p.name for p in named if p.name not in special and p.kind is not p.VAR_POSITIONAL
    ]
    # The handler's parameters but the tab, *controls among them: Gradio passes it every input.
    shape = [(p.name, p.kind) for p in inspect.signature(wired).parameters.values()]
    assert shape == [(p.name, p.kind) for p in named]


def test_exports_of_identical_views_share_one_file(egomem: handlers.BoardTab) -> None:
    first = handlers.view(egomem, *NO_FILTERS, "All", None, None)
    again = handlers.view(egomem, *NO_FILTERS, "All", None, None)
    other = handlers.view(egomem, "qwen", [], [], [], [], "All", None, None)
    assert first[3:5] == again[3:5] and other[3] != first[3]
    text = Path(first[3]).read_text(encoding="utf-8-sig")
    assert len(list(csv.reader(io.StringIO(text)))) == 1 + len(_records(EGOMEM, MEMORY))
