"""The board's view in the page's address (issue 21, "State, layout and charts"): read and
written by web.board.address, applied on landing by web.board.landing, carried by every
rendering of the board. In process: the pure module over the real specs' offers, and the
landing over the shipped demo boards (tests/web/test_board_handlers.py's fixtures). Expected
values come from the specs and the demo records; the browser half is
test_board_address_browser.py.
"""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qsl, urlencode

import gradio as gr
import pytest

import spec
from tests.support.board_html import row_ids
from tests.web.test_board_handlers import (  # noqa: F401  (the fixtures are used by name)
    ARGUS,
    DECISION,
    EGOMEM,
    MEMORY,
    NO_FILTERS,
    UNDERSTANDING,
    _records,
    _request,
    argus,
    egomem,
    exports_in,
)
from web.board import handlers
from web.board import landing as board_landing
from web.board.address import (
    MAX_VALUES,
    PARAMS,
    BoardAddress,
    BoardOffer,
    address_query,
    board_offer,
    entry_query,
    read_address,
)
from web.board.filters import MAX_SEARCH_CHARS, BoardFilter
from web.board.layout import board_layout
from web.board.rows import SIZE_BUCKETS
from web.board.table import Sort


def _offer(bench: spec.Benchmark) -> BoardOffer:
    layouts = {t.id: board_layout(bench, t) for t in bench.tracks}
    return board_offer(bench, bench.tracks, layouts)


ARGUS_OFFER, EGOMEM_OFFER = _offer(ARGUS), _offer(EGOMEM)
PAPER_VIEW = "Paper (Table 2)"


def _read(query: str, offer: BoardOffer = ARGUS_OFFER) -> tuple[BoardAddress, list[str]]:
    return read_address(parse_qsl(query, keep_blank_values=True), offer)


def _address_of(table: str) -> str:
    """The address a rendering of the board carries for the page script."""
    (found,) = re.findall(r'data-address="([^"]*)"', table)
    return html.unescape(found)


# --- the pure module ---------------------------------------------------------------------------


def test_every_view_a_visitor_can_reach_is_read_back_from_its_address() -> None:
    groups = board_layout(ARGUS, DECISION).groups
    columns = groups[PAPER_VIEW]
    view = BoardAddress(
        "decision",
        PAPER_VIEW,
        BoardFilter("qwen 2B", ("Paper-reported",), ("No",), ("Full video",), SIZE_BUCKETS[:2]),
        Sort(columns[3], reversed=True),
        "1b4e28ba-2fa1-41d2-883f-0016d3cca427",
    )
    query = address_query(view, ARGUS_OFFER)
    assert query.startswith("?track=decision&q=qwen+2B&cols=Paper+%28Table+2%29&source=")
    assert _read(query[1:]) == (view, [])
    # The parameters are the documented ones, and nothing else.
    assert {name for name, _ in parse_qsl(query[1:])} == set(PARAMS)


def test_what_the_board_shows_anyway_is_left_out_of_the_address() -> None:
    first = next(iter(board_layout(EGOMEM, MEMORY).groups))
    assert address_query(BoardAddress(MEMORY.id, first), EGOMEM_OFFER) == ""
    # On several tracks the track is always said: a switch changes it.
    assert address_query(BoardAddress("understanding", "Scenarios"), ARGUS_OFFER) == (
        "?track=understanding"
    )
    assert _read("") == (BoardAddress("understanding", "Scenarios"), [])


@pytest.mark.parametrize("named", ["decision", "Decision", "DECISION", " decision "])
def test_a_track_is_named_by_its_id_or_its_title_in_any_case(named: str) -> None:
    assert _read(urlencode({"track": named})) == (BoardAddress("decision", "Decision"), [])


def test_an_unknown_track_is_said_with_the_tracks_there_are() -> None:
    view, notes = _read("track=bogus&cols=Timing")
    assert view.track == "understanding"
    # Timing is a Decision view: on the Understanding board it is said too.
    assert len(notes) == 2
    assert notes[0].startswith("The address's track 'bogus' is not one of this leaderboard's:")
    assert "'understanding' \\(Understanding\\), 'decision' \\(Decision\\)" in notes[0]
    assert notes[0].endswith("showing Understanding.")
    assert "column group 'Timing' is not one of this board's" in notes[1]
    assert "'Scenarios', 'Tasks', 'Details', 'All'" in notes[1]


def test_each_unknown_value_is_said_and_the_rest_of_the_view_kept() -> None:
    view, notes = _read(
        "q=qwen&cols=tasks&size=huge&size=%3C+10b&source=Paper-reported&sort=Nope&entry=x1"
    )
    assert view == BoardAddress(
        "understanding", "Tasks", BoardFilter("qwen", ("Paper-reported",), sizes=("< 10B",))
    )
    size_note, entry_note, sort_note = sorted(notes, key=lambda n: ("size" not in n, n))
    assert size_note.startswith("The address's Model size filter has no 'huge'; its choices")
    assert all(b in size_note for b in ("10B", "API / not stated"))
    assert entry_note.startswith("The address's entry 'x1' is not a record id")
    assert "sort column 'Nope' is not a column of the Tasks view" in sort_note
    assert "showing the board's order" in sort_note


def test_a_sort_is_of_the_view_it_is_in_and_reversed_by_rev() -> None:
    view, notes = _read(urlencode({"track": "decision", "sort": "mae (s)", "rev": "1"}))
    # MAE (s) is a Timing column, not one of the first view's (Decision).
    assert view.sort is None and "sort column 'mae \\(s\\)'" in notes[0]
    view, notes = _read(urlencode({"track": "decision", "cols": "Timing", "sort": "mae (s)"}))
    assert (view.sort, notes) == (Sort("MAE (s)"), [])
    view, _ = _read(urlencode({"track": "decision", "cols": "Timing", "sort": "MAE (s)", "rev": 1}))
    assert view.sort == Sort("MAE (s)", reversed=True)


def test_a_visitor_s_value_is_said_short_and_as_written() -> None:
    hostile = "[click](https://evil.example)" + "x" * 5_000
    view, notes = _read(
        urlencode([("track", hostile), ("cols", hostile), ("input", hostile), ("sort", hostile)])
    )
    assert view == BoardAddress("understanding", "Scenarios")
    assert len(notes) == 4
    for note in notes:
        assert len(note) < 600, note
        assert "\\[click\\]\\(https\\://evil" in note and "](https://" not in note


def test_a_long_search_or_many_values_are_bounded() -> None:
    view, notes = _read(urlencode({"q": "x" * (MAX_SEARCH_CHARS + 1)}))
    assert view.wanted.search == "" and f"longer than {MAX_SEARCH_CHARS} characters" in notes[0]
    many = [("size", f"bogus{i}") for i in range(1_000)]
    view, notes = _read(urlencode(many))
    assert view.wanted.sizes == () and len(notes) == 1
    assert f"and {MAX_VALUES - 6} more" in notes[0] and len(notes[0]) < 600


def test_other_parameters_of_the_address_are_left_alone() -> None:
    assert _read("__theme=dark&utm_source=x&view=api") == (
        BoardAddress("understanding", "Scenarios"),
        [],
    )


def test_without_a_track_the_entry_s_board_is_shown() -> None:
    entry = "1b4e28ba-2fa1-41d2-883f-0016d3cca427"
    pairs = [("entry", entry.upper()), ("cols", "Timing")]
    view, notes = read_address(pairs, ARGUS_OFFER, {entry: "decision"}.get)
    assert (view.track, view.group, view.entry, notes) == ("decision", "Timing", entry, [])
    # A track named wins: a visitor who switched tracks with the card open is shown that track.
    pairs = [("track", "understanding"), ("entry", entry)]
    view, notes = read_address(pairs, ARGUS_OFFER, {entry: "decision"}.get)
    assert (view.track, view.entry, notes) == ("understanding", entry, [])
    view, _ = read_address([("track", "bogus"), *pairs[1:]], ARGUS_OFFER, {entry: "decision"}.get)
    assert view.track == "decision"


def test_a_permalink_names_the_entry_and_its_track_on_several() -> None:
    assert entry_query("abc", None) == "?entry=abc"
    assert entry_query("abc", "decision") == "?entry=abc&track=decision"


# --- the landing and the board's renderings ------------------------------------------------------


def test_a_fresh_page_shows_the_whole_view_its_address_names(
    argus: handlers.BoardTab,  # noqa: F811
) -> None:
    query = urlencode(
        {
            "track": "Decision",
            "q": "qwen",
            "cols": PAPER_VIEW,
            "source": "paper-reported",
            "sort": "Paper F1",
            "rev": "1",
        }
    )
    out = board_landing.landing(argus, _request(query))
    table, status, _, _, _, sort, track, box, card = out[:9]
    search, group, sources, external, inputs, sizes, filters_box = out[9:16]
    assert out[-1] == gr.update(value="", visible=False)  # nothing ignored: no notes
    assert track == gr.update(value="decision")
    assert search == gr.update(value="qwen")
    groups = list(board_layout(ARGUS, DECISION).groups)
    assert group == gr.update(choices=groups, value=PAPER_VIEW)
    assert sources == gr.update(value=["Paper-reported"])
    assert external == inputs == sizes == gr.update(value=[])
    assert filters_box == gr.update(open=True)  # what hides rows is in sight
    assert sort == Sort("Paper F1", reversed=True)
    assert (box, card) == (gr.update(visible=False), "")
    expected = [
        r
        for r in _records(ARGUS, DECISION)
        if r.source == "paper" and "qwen" in r.method_name.lower()
    ]
    assert len(expected) >= 2
    by_f1 = sorted(expected, key=lambda r: r.metrics[DECISION.paper_ranking])
    assert row_ids(table) == [str(r.id) for r in by_f1]  # reversed: lowest Paper F1 first
    papers = [r for r in _records(ARGUS, DECISION) if r.source == "paper"]
    assert f"{len(expected)} of {len(papers)} paper-reported rows" in status
    # The address the page writes back: the board's own words.
    assert _address_of(table) == (
        "?track=decision&q=qwen&cols=Paper+%28Table+2%29&source=Paper-reported&sort=Paper+F1&rev=1"
    )


def test_a_fresh_page_says_what_its_address_asked_and_the_board_lacks(
    argus: handlers.BoardTab,  # noqa: F811
) -> None:
    out = board_landing.landing(argus, _request("track=bogus&entry=nonexistent&size=huge"))
    status, notes = out[1], out[-1]
    said = notes["value"].split("  \n")
    assert "entries" in status and "bogus" not in status and len(said) == 3
    assert notes["visible"] is True
    assert "'bogus'" in said[0] and "'decision'" in said[0]
    assert "'nonexistent'" in said[1] and "'huge'" in said[2]
    assert out[6:9] == (gr.update(value="understanding"), gr.update(visible=False), "")
    assert out[15] == gr.update()  # nothing ticked: the filters stay as they are
    assert _address_of(out[0]) == "?track=understanding"  # the ignored values are gone


def test_an_addressed_entry_opens_its_card_and_stays_in_the_address(
    argus: handlers.BoardTab,  # noqa: F811
) -> None:
    entry = next(r for r in _records(ARGUS, DECISION) if r.source == "rescored")
    out = board_landing.landing(argus, _request(f"entry={entry.id}&cols=Timing"))
    assert out[6] == gr.update(value="decision") and out[7] == gr.update(visible=True)
    assert f">{entry.method_name}</h3>" in out[8]
    assert 'class="permalink"' in out[8]
    assert f'href="?entry={entry.id}&amp;track=decision"' in out[8]
    assert _address_of(out[0]) == f"?track=decision&cols=Timing&entry={entry.id}"


def test_every_rendering_of_the_board_carries_its_view_s_address(
    egomem: handlers.BoardTab,  # noqa: F811
) -> None:
    assert _address_of(handlers.view(egomem, *NO_FILTERS, "All", None, None)[0]) == "?cols=All"
    groups = board_layout(EGOMEM, MEMORY).groups
    first = next(iter(groups))
    column = groups[first][2]
    clicked = gr.EventData(None, {"sort": column})
    once = handlers.resort(egomem, clicked, "qwen", [], [], [], [], first, None, None)
    assert _address_of(once[0]) == f"?{urlencode({'q': 'qwen', 'sort': column})}"
    twice = handlers.resort(egomem, clicked, "qwen", [], [], [], [], first, once[5], None)
    assert _address_of(twice[0]).endswith("&rev=1")


def test_a_track_switch_s_board_has_its_own_track_and_drops_the_other_s_values(
    argus: handlers.BoardTab,  # noqa: F811
) -> None:
    # The page sends the Decision board's group and sort once, with the Understanding track.
    out = handlers.view(argus, *NO_FILTERS, "Timing", Sort("MAE (s)"), "understanding")
    assert _address_of(out[0]) == f"?track={UNDERSTANDING.id}"
