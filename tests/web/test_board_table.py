"""The board's HTML table and row cards (board_table), on both benchmarks' demo boards.

The boards are the demo records as the app reads them (``ledger.BoardCache`` over the demo
folder), laid out by ``board_view``; small hand-made records (validated by
``ledger.parse_record``) add ties, missing values and hostile text. The table is read back as
a page shows it (tests/board_html.py). Expected orders are computed here from the records'
own values, never from board_table.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import shlex
import shutil
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import ledger
import spec
from errors import BadInput
from scripts import reproduce_row
from tests.support import ROOT
from tests.support.board_html import read_board, row_ids
from web.board import card as board_card
from web.board import export as board_export
from web.board import layout as board_layout
from web.board import rows as board_view
from web.board import status as board_rows
from web.board import table as board_table
from web.board.table import Sort, kept_sort, next_sort, sort_frame
from web.text import cut

MEM = spec.load_benchmark("egomemreason")
MEMORY = MEM.track()
ARGUS = spec.load_benchmark("egoargus")
UNDERSTANDING = ARGUS.track("understanding")
DECISION = ARGUS.track("decision")

#: Text a record may carry that Gradio's templates (a JS template literal, then Handlebars)
#: or the browser would read as code if it came through unescaped.
HOSTILE = "{{value}} ${alert(1)} <img src=x onerror=alert(1)> `x` \\u0041 & \"q\" 'a'"


def demo_board(bench: spec.Benchmark, track: spec.Track) -> ledger.BoardSnapshot:
    """The demo board of ``track`` as the app loads it: valid records, superseded hidden."""
    cache = ledger.BoardCache(ledger.LocalStore(bench.demo_dir / "leaderboard"), bench, track)
    snapshot = cache.snapshot()
    assert snapshot.records and not snapshot.skipped
    return snapshot


MEM_DEMO = demo_board(MEM, MEMORY)
UNDERSTANDING_DEMO = demo_board(ARGUS, UNDERSTANDING)
DECISION_DEMO = demo_board(ARGUS, DECISION)


def paper_row(
    name: str, bench: spec.Benchmark = MEM, track: spec.Track = MEMORY, **fields: Any
) -> ledger.Record:
    """A paper-reported record of ``track``, as a record file would hold it, validated."""
    metrics = fields.pop("metrics", None) or {track.paper_ranking: 30.0}
    data = {
        "schema_version": 2,
        "benchmark": bench.id,
        "track": track.id,
        "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"board-table/{name}")),
        "created_at": "2026-05-11T00:00:00Z",
        "source": "paper",
        "team_name": "Team " + name,
        "method_name": name,
        "model_size": "",
        "uses_external": None,
        "uses_frames": None,
        "method_description": "",
        "project_url": None,
        "publication_url": None,
        "metrics": metrics,
        "counts": None,
        "n_abstained": None,
        "provenance": None,
        "supersedes": None,
        "note": None,
        **fields,
    }
    return ledger.parse_record(json.dumps(data).encode(), bench, track)


class View:
    """One column group of a board, as the Leaderboard tab builds it (board_page)."""

    def __init__(
        self,
        records: Sequence[ledger.Record],
        bench: spec.Benchmark = MEM,
        track: spec.Track = MEMORY,
    ) -> None:
        self.records = list(records)
        self.bench, self.track = bench, track
        self.layout = board_layout.board_layout(bench, track)
        self.frame = board_view.board_frame(self.records, bench, track)
        self.by_id = {str(r.id): r for r in self.records}

    def columns(self, group: str) -> tuple[str, ...]:
        return self.layout.groups[group]

    def html(self, group: str, sort: Sort | None, track_param: str | None = None) -> str:
        grouped = board_table.group_frame(self.frame, self.columns(group), self.layout)
        chosen = sort_frame(grouped, sort, self.layout, self.track)
        return board_table.table_html(
            chosen,
            self.columns(group),
            self.layout,
            self.track,
            self.by_id,
            sort,
            "Test board",
            board_rows.empty_text(len(chosen), len(self.frame)),
            track_param=track_param,
        )

    def ids(self, group: str, sort: Sort | None) -> list[str]:
        return row_ids(self.html(group, sort))

    def board_order(self) -> list[str]:
        """Every row in the board's order (the All group shows every row)."""
        return self.ids("All", None)

    def click(self, sort: Sort | None, group: str, header: object) -> Sort:
        """The sort after a header click in ``group``, as the page computes it."""
        columns = self.columns(group)
        return next_sort(kept_sort(sort, columns), header, columns)


def expected(board: Sequence[str], value: Callable[[str], Any], reverse: bool = False) -> list[str]:
    """``board`` (ids in the board's order) by ``value`` (None: no value, last either way);
    ties in the board's order."""
    present = [i for i in board if value(i) is not None]
    absent = [i for i in board if value(i) is None]
    position = {i: n for n, i in enumerate(board)}
    if reverse:
        present.sort(key=lambda i: position[i])
        present.sort(key=value, reverse=True)  # Python keeps ties in order when reversing
    else:
        present.sort(key=lambda i: (value(i), position[i]))
    return present + absent


def metric(view: View, key: str) -> Callable[[str], float | None]:
    return lambda i: view.by_id[i].metrics.get(key)


class _Headers(HTMLParser):
    """Each ``<th scope="col">``'s attributes and its button's ``data-sort``."""

    def __init__(self) -> None:
        super().__init__()
        self.aria: list[str] = []
        self.data_sort: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "th" and found.get("scope") == "col":
            self.aria.append(str(found.get("aria-sort")))
        if tag == "button" and "data-sort" in found:
            self.data_sort.append(str(found["data-sort"]))


def headers_of(html: str) -> _Headers:
    parser = _Headers()
    parser.feed(html)
    return parser


def aria(html: str) -> dict[str, str]:
    headers = read_board(html)[0]
    return dict(zip(headers, headers_of(html).aria, strict=True))


# --- clicks: which column, which way -----------------------------------------------------------


def test_a_header_click_sorts_by_it_a_second_reverses_a_third_restores() -> None:
    view = View(MEM_DEMO.records)
    first = view.click(None, "Memory types", "Entity")
    assert first == Sort("Entity")
    second = view.click(first, "Memory types", "Entity")
    assert second == Sort("Entity", reversed=True)
    assert view.click(second, "Memory types", "Entity") == Sort("Entity")
    board = view.board_order()
    assert view.ids("Memory types", first) == expected(
        board, lambda i: -view.by_id[i].metrics["entity"]
    )
    assert view.ids("Memory types", second) == expected(board, metric(view, "entity"))
    assert view.ids("Memory types", first) != board


def test_a_click_on_another_column_replaces_the_sort_no_secondary_key() -> None:
    view = View(MEM_DEMO.records)
    by_overall = view.click(view.click(None, "Details", "Overall"), "Details", "Overall")
    assert by_overall == Sort("Overall", reversed=True)
    by_size = view.click(by_overall, "Details", "Size")
    assert by_size == Sort("Size")  # best first again, not reversed like the last one
    board = view.board_order()

    def size(i: str) -> float | None:
        value = board_view.size_in_billions(view.by_id[i].model_size)
        return None if value is None else -value

    shown = view.ids("Details", by_size)
    assert shown == expected(board, size)
    # the 8B rows tie: they keep the board's order, not the reversed Overall order of before
    eights = [i for i in shown if view.by_id[i].model_size == "8B"]
    assert len(eights) >= 3 and eights == [i for i in board if i in eights]


def test_another_column_group_keeps_the_sort_only_if_it_shows_that_column() -> None:
    view = View(MEM_DEMO.records)
    board = view.board_order()
    entity = view.click(None, "Memory types", "Entity")  # the 4th column of Memory types
    assert view.columns("Memory types").index("Entity") == 3
    assert view.columns("Query types")[3] == "Tracking"
    assert kept_sort(entity, view.columns("Query types")) is None
    html = view.html("Query types", kept_sort(entity, view.columns("Query types")))
    assert row_ids(html) == board  # not sorted by Tracking, the column in Entity's place
    assert aria(html)["Tracking"] == "none"
    # a column both groups show keeps its sort, reversed or not, wherever it stands
    source = view.click(view.click(None, "Memory types", "Source"), "Memory types", "Source")
    kept = kept_sort(source, view.columns("Query types"))
    assert kept == Sort("Source", reversed=True)
    assert view.ids("Query types", kept) == view.ids("Memory types", source)
    # and clicking it there goes on from that sort: the second click is not a first one
    assert view.click(source, "Query types", "Source") == Sort("Source")
    # the decision board: Accuracy is in Decision, not in Timing
    decision = View(DECISION_DEMO.records, ARGUS, DECISION)
    accuracy = decision.click(None, "Decision", "Accuracy")
    assert kept_sort(accuracy, decision.columns("Timing")) is None
    assert kept_sort(accuracy, decision.columns("Scenarios")) == accuracy


# --- each column's order -----------------------------------------------------------------------


def test_a_metric_better_higher_sorts_highest_first() -> None:
    view = View(MEM_DEMO.records)
    board = view.board_order()
    shown = view.ids("Query types", Sort("Counting"))
    assert shown == expected(board, lambda i: -view.by_id[i].metrics["temporal_counting"])
    values = [view.by_id[i].metrics["temporal_counting"] for i in shown]
    assert values == sorted(values, reverse=True) and values[0] > values[-1]
    assert view.ids("Query types", Sort("Counting", reversed=True)) == expected(
        board, metric(view, "temporal_counting")
    )


@pytest.mark.parametrize(
    ("header", "key"), [("Safety FN", "safety_fn_rate"), ("MAE (s)", "timing_mae_s")]
)
def test_a_metric_better_lower_sorts_lowest_first(header: str, key: str) -> None:
    assert DECISION.higher_is_better[key] is False
    view = View(DECISION_DEMO.records, ARGUS, DECISION)
    board = view.board_order()
    group = "All"
    shown = view.ids(group, view.click(None, group, header))
    assert shown == expected(board, metric(view, key))
    # the paper rows (and Never-assist's untimed means) have no value: last either way
    missing = [i for i in board if key not in view.by_id[i].metrics]
    assert missing and shown[-len(missing) :] == missing
    back = view.ids(group, Sort(header, reversed=True))
    assert back == expected(board, metric(view, key), reverse=True)
    assert back[-len(missing) :] == missing


def test_a_signed_error_sorts_nearest_zero_first() -> None:
    assert DECISION.higher_is_better["timing_signed_s"] is None
    assert DECISION.higher_is_better["paper_signed_s"] is None
    view = View(DECISION_DEMO.records, ARGUS, DECISION)
    board = view.board_order()
    for header, key in (("Δt (s)", "timing_signed_s"), ("Paper Δt (s)", "paper_signed_s")):

        def distance(i: str, key: str = key) -> float | None:
            value = view.by_id[i].metrics.get(key)
            return None if value is None else abs(value)

        shown = view.ids("All", Sort(header))
        assert shown == expected(board, distance)
        assert len([i for i in shown if distance(i) is not None]) >= 2
        assert view.ids("All", Sort(header, reversed=True)) == expected(
            board, distance, reverse=True
        )


def test_signed_error_nearest_zero_with_hand_made_rows_of_both_signs() -> None:
    rows = [
        paper_row(name, ARGUS, DECISION, metrics={"paper_f1": f1, "paper_signed_s": dt})
        for name, f1, dt in (
            ("Early", 0.9, -3.0),
            ("Late", 0.8, 1.0),
            ("Spot", 0.7, 0.25),
            ("Far", 0.6, 9.0),
        )
    ]
    rows.append(paper_row("Untimed", ARGUS, DECISION, metrics={"paper_f1": 0.5}))
    view = View(rows, ARGUS, DECISION)
    names = [view.by_id[i].method_name for i in view.ids("All", Sort("Paper Δt (s)"))]
    assert names == ["Spot", "Late", "Early", "Far", "Untimed"]
    names = [
        view.by_id[i].method_name for i in view.ids("All", Sort("Paper Δt (s)", reversed=True))
    ]
    assert names == ["Far", "Early", "Late", "Spot", "Untimed"]


def test_rank_sorts_by_the_board_order_and_reversed_keeps_unranked_rows_last() -> None:
    view = View(DECISION_DEMO.records, ARGUS, DECISION)
    board = view.ids("Decision", None)
    assert view.ids("Decision", Sort("Rank")) == board
    # the reference rows (constant policies) have no rank: they stay last, reversed or not
    references = dict(zip(view.frame["_id"], view.frame["_reference"], strict=True))
    ranked = [i for i in board if not references[i]]
    assert ranked and len(ranked) < len(board)
    assert view.ids("Decision", Sort("Rank", reversed=True)) == [
        *ranked[::-1],
        *board[len(ranked) :],
    ]
    whole = view.board_order()
    for header in ("Rank range", "Macro F1 95% CI"):
        assert view.ids("All", Sort(header)) == whole
    # a row lacking its ranking metric is unranked (board_frame puts it last): it stays last
    papers = [paper_row(f"P{n}", metrics={"overall": 40.0 - n}) for n in range(3)]
    unranked = ledger.Record.model_validate(
        {**paper_row("Unranked").model_dump(), "metrics": {"entity": 50.0}}
    )
    small = View([unranked, *papers])
    board = small.board_order()
    assert board[-1] == str(unranked.id)
    assert small.ids("Memory types", Sort("Rank", reversed=True)) == [
        *board[:-1][::-1],
        str(unranked.id),
    ]


def test_date_sorts_newest_first_ties_in_the_board_order() -> None:
    view = View(MEM_DEMO.records)
    board = view.board_order()

    def day(i: str) -> int:
        return -view.by_id[i].created_at.date().toordinal()

    shown = view.ids("Memory types", Sort("Date"))
    assert shown == expected(board, day)
    dates = [view.by_id[i].created_at.date() for i in shown]
    assert dates[0] > dates[-1]
    back = view.ids("Memory types", Sort("Date", reversed=True))
    assert back == expected(board, lambda i: -day(i))
    # many rows share a date: both ways they keep the board's order among themselves
    same = [i for i in back if view.by_id[i].created_at.date() == dates[-1]]
    assert len(same) > 3 and same == [i for i in board if i in same]


def test_size_sorts_largest_first_api_and_not_stated_last_either_way() -> None:
    view = View(MEM_DEMO.records)
    board = view.board_order()

    def size(i: str) -> float | None:
        return board_view.size_in_billions(view.by_id[i].model_size)

    unsized = [i for i in board if size(i) is None]
    assert {view.by_id[i].model_size for i in unsized} == {"API", ""}
    shown = view.ids("Memory types", Sort("Size"))
    assert shown == expected(board, lambda i: None if size(i) is None else -(size(i) or 0))
    assert shown[-len(unsized) :] == unsized
    back = view.ids("Memory types", Sort("Size", reversed=True))
    assert back == expected(board, size)
    assert back[-len(unsized) :] == unsized
    sizes = [view.by_id[i].model_size for i in shown[:3]]
    assert sizes == ["38B", "32B", "30B-A3B"]


def test_text_sorts_a_to_z_casefolded_by_the_text_shown() -> None:
    names = ["beta", "Alpha", "Éclair", "gamma", "ALPHA two", "Zeta"]
    rows = [
        paper_row(name, metrics={"overall": 50.0 - n}, team_name=name.swapcase())
        for n, name in enumerate(names)
    ]
    view = View(rows)
    order = ["Alpha", "ALPHA two", "beta", "gamma", "Zeta", "Éclair"]
    for header in ("Method", "Team"):
        shown = [view.by_id[i].method_name for i in view.ids("Details", Sort(header))]
        assert shown == order, header
        shown = [
            view.by_id[i].method_name for i in view.ids("Details", Sort(header, reversed=True))
        ]
        assert shown == order[::-1], header


def test_source_sorts_by_its_shown_text_paper_reported_before_re_scored() -> None:
    view = View(MEM_DEMO.records)
    board = view.board_order()
    shown = [view.by_id[i].source for i in view.ids("Memory types", Sort("Source"))]
    assert shown == sorted(shown, key=lambda s: board_view.SOURCE_TEXT[s].casefold())
    assert shown[0] == "paper" and shown[-1] == "rescored"
    paper = [i for i in view.ids("Memory types", Sort("Source")) if view.by_id[i].source == "paper"]
    assert paper == [i for i in board if view.by_id[i].source == "paper"]


def test_text_without_a_value_stays_last_either_way() -> None:
    rows = [
        paper_row("NoNote", metrics={"overall": 45.0}),
        paper_row("Noted b", metrics={"overall": 40.0}, note="b: second"),
        paper_row("NotReported", metrics={"overall": 35.0}),
        paper_row("Noted a", metrics={"overall": 30.0}, note="a: first"),
        paper_row("Yes", metrics={"overall": 25.0}, uses_external=True),
        paper_row("No", metrics={"overall": 20.0}, uses_external=False),
    ]
    view = View(rows)

    def shown(header: str, reverse: bool = False) -> list[str]:
        return [
            view.by_id[i].method_name for i in view.ids("Details", Sort(header, reversed=reverse))
        ]

    assert shown("Note") == ["Noted a", "Noted b", "NoNote", "NotReported", "Yes", "No"]
    assert shown("Note", True) == ["Noted b", "Noted a", "NoNote", "NotReported", "Yes", "No"]
    # "Not reported" says there is no value: after Yes and No, whichever way
    assert shown("External data") == ["No", "Yes", "NoNote", "Noted b", "NotReported", "Noted a"]
    assert shown("External data", True) == [
        "Yes",
        "No",
        "NoNote",
        "Noted b",
        "NotReported",
        "Noted a",
    ]


def test_missing_metric_values_stay_last_and_ties_keep_the_board_order() -> None:
    base = {"overall": 40.0, "entity": 30.0, "event": 20.0}
    rows = [
        paper_row("First", metrics={**base, "overall": 50.0}),
        paper_row("TieA", metrics={**base, "overall": 45.0, "entity": 35.0}),
        paper_row("NoEntity", metrics={"overall": 44.0, "event": 20.0}),
        paper_row("TieB", metrics={**base, "overall": 43.0, "entity": 35.0}),
        paper_row("Low", metrics={**base, "overall": 42.0, "entity": 10.0}),
        paper_row("NoEntity2", metrics={"overall": 41.0}),
    ]
    view = View(rows)

    def names(sort: Sort) -> list[str]:
        return [view.by_id[i].method_name for i in view.ids("Memory types", sort)]

    assert names(Sort("Entity")) == ["TieA", "TieB", "First", "Low", "NoEntity", "NoEntity2"]
    assert names(Sort("Entity", reversed=True)) == [
        "Low",
        "First",
        "TieA",
        "TieB",
        "NoEntity",
        "NoEntity2",
    ]
    # Event: four rows tie at 20.0, in the board's order both ways; NoEntity2 has none
    assert names(Sort("Event")) == ["First", "TieA", "NoEntity", "TieB", "Low", "NoEntity2"]
    assert names(Sort("Event", reversed=True)) == names(Sort("Event"))
    # the missing ones show as a dash, not as 0 or nan
    headers, cells = read_board(view.html("Memory types", Sort("Entity")))
    assert [row[headers.index("Entity")] for row in cells][-2:] == ["—", "—"]


@pytest.mark.slow  # 3 s of CPU: every sort of every board
def test_sorting_keeps_every_row_once() -> None:
    for snapshot, bench, track in (
        (MEM_DEMO, MEM, MEMORY),
        (UNDERSTANDING_DEMO, ARGUS, UNDERSTANDING),
        (DECISION_DEMO, ARGUS, DECISION),
    ):
        view = View(snapshot.records, bench, track)
        board = sorted(view.board_order())
        for column in view.layout.columns:
            for reverse in (False, True):
                assert sorted(view.ids("All", Sort(column, reverse))) == board, column


# --- aria-sort ---------------------------------------------------------------------------------


def test_aria_sort_says_how_the_shown_values_run() -> None:
    view = View(MEM_DEMO.records)
    html = view.html("Memory types", None)
    states = aria(html)
    assert states["Rank"] == "ascending"
    assert set(states.values()) == {"ascending", "none"}
    for sort, state in (
        (Sort("Overall"), "descending"),
        (Sort("Overall", True), "ascending"),
        (Sort("Date"), "descending"),
        (Sort("Size"), "descending"),
        (Sort("Size", True), "ascending"),
        (Sort("Team"), "ascending"),
        (Sort("Team", True), "descending"),
        (Sort("Rank", True), "descending"),
    ):
        states = aria(view.html("Memory types", sort))
        assert states[sort.column] == state, sort
        assert all(v == "none" for k, v in states.items() if k != sort.column), sort
    decision = View(DECISION_DEMO.records, ARGUS, DECISION)
    for sort, state in (
        (Sort("MAE (s)"), "ascending"),
        (Sort("MAE (s)", True), "descending"),
        (Sort("Δt (s)"), "other"),
        (Sort("Δt (s)", True), "other"),
    ):
        assert aria(decision.html("Timing", sort))[sort.column] == state, sort
    # the shown values bear it out: a descending column's numbers do descend
    headers, cells = read_board(view.html("Memory types", Sort("Overall")))
    overall = [float(row[headers.index("Overall")]) for row in cells]
    assert overall == sorted(overall, reverse=True)


def test_each_view_of_a_board_of_two_rankings_has_one_rank_series() -> None:
    # the decision board ranks re-scored rows by Macro F1, the paper rows by the paper's F1:
    # each view shows one series (issue 21: "1, 1, 3, then 1, 2, ... 7" and a "◆" Rank)
    view = View(DECISION_DEMO.records, ARGUS, DECISION)
    for group in ("Decision", "Paper (Table 2)", "All"):
        headers, cells = read_board(view.html(group, None))
        ranks = [int(r) for r in (row[headers.index("Rank")] for row in cells) if r.isdigit()]
        assert ranks == sorted(ranks) and ranks[0] == 1, group
        assert aria(view.html(group, None))["Rank"] == "ascending", group
        assert aria(view.html(group, Sort("Rank", True)))["Rank"] == "descending", group


def test_every_header_click_the_page_can_send_is_accepted() -> None:
    for snapshot, bench, track in ((MEM_DEMO, MEM, MEMORY), (DECISION_DEMO, ARGUS, DECISION)):
        view = View(snapshot.records, bench, track)
        for group, columns in view.layout.groups.items():
            sent = headers_of(view.html(group, None)).data_sort
            assert sent == list(columns)
            for header in sent:
                # the board's order is Rank's: its first click reverses it
                assert view.click(None, group, header) == Sort(header, header == "Rank")


# --- hostile clicks ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "clicked",
    [
        None,
        3,
        3.5,
        True,
        [],
        ["Overall"],
        {"sort": "Overall"},
        "",
        " Overall",
        "overall",
        "Overall\x00",
        "_id",
        "_name",
        "_text",
        "Entity",
        "x" * 10_000,
        "Overall" * 1_000_000,
    ],
    ids=lambda v: repr(v)[:24],
)
def test_a_click_naming_no_shown_column_is_refused(clicked: object) -> None:
    view = View(MEM_DEMO.records)
    with pytest.raises(BadInput) as refused:
        view.click(Sort("Overall"), "Query types", clicked)
    message = str(refused.value)
    assert len(message) < 400
    assert message.startswith("Sort: ")
    assert "'Rank', 'Method', 'Overall'" in message  # says what a click may name


def test_a_huge_click_is_refused_without_searching_the_columns() -> None:
    class Columns(tuple[str, ...]):
        def __contains__(self, item: object) -> bool:
            raise AssertionError("searched")

    with pytest.raises(BadInput):
        next_sort(None, "x" * (board_table.MAX_COLUMN_CHARS + 1), Columns(("Rank",)))


def test_a_sort_of_a_column_not_on_the_board_leaves_it_as_it_is() -> None:
    view = View(MEM_DEMO.records)
    assert view.ids("Memory types", Sort("No such column")) == view.board_order()


# --- the table's HTML ---------------------------------------------------------------------------


def hostile_row() -> ledger.Record:
    return paper_row(
        HOSTILE,
        metrics={"overall": 40.0},
        team_name="Team " + HOSTILE,
        model_size="${7}B {{size}}",
        note="Note " + HOSTILE,
        method_description="About " + HOSTILE,
        project_url="https://example.org/a$b{c}?q=1&r=2",
        publication_url="http://example.org/paper",
    )


def test_every_record_text_is_escaped_and_reads_back_as_written() -> None:
    record = hostile_row()
    view = View([record, *MEM_DEMO.records[:2]])
    for group in view.layout.groups:
        html = view.html(group, Sort("Method"))
        for raw in ("{", "}", "$", "`", "\\", "<img", "'a'", '"q"'):
            assert raw not in html, (group, raw)
        headers, rows = read_board(html)
        row = rows[row_ids(html).index(str(record.id))]
        cells = dict(zip(headers, row, strict=True))
        assert cells["Method"] == HOSTILE + " †"
        if "Team" in cells:
            assert cells["Team"] == "Team " + HOSTILE
            assert cells["Size"] == "${7}B {{size}}"
        if "Note" in cells:
            assert cells["Note"] == cut("Note " + HOSTILE, board_view.NOTE_CELL_CHARS)


def test_links_are_http_only_and_open_with_noopener() -> None:
    record = hostile_row()
    view = View([record])
    html = view.html("Details", None)
    links = re.findall(r"<a [^>]*>", html)
    assert len(links) == 2
    for link in links:
        assert re.search(r'href="https?://', link)
        assert re.search(r'rel="[^"]*\bnoopener\b', link) and 'target="_blank"' in link
    assert 'href="https://example.org/a&#36;b&#123;c&#125;?q=1&amp;r=2"' in html
    # a record that got past validation with another scheme gets no link at all
    smuggled = record.model_copy(
        update={"project_url": "javascript:alert(1)", "publication_url": "data:text/html,<b>x</b>"}
    )
    html = board_table.table_html(
        view.frame,
        view.columns("Details"),
        view.layout,
        MEMORY,
        {str(record.id): smuggled},
        None,
        "c",
        None,
    )
    assert "javascript" not in html and "data:" not in html and "<a " not in html


def test_the_empty_state_is_one_row_across_the_table() -> None:
    view = View(MEM_DEMO.records)
    none = view.frame.iloc[:0]
    for shown, total in ((none, View([]).frame), (none, view.frame)):
        text = board_rows.empty_text(0, len(total))
        assert text is not None
        html = board_table.table_html(
            shown, view.columns("Memory types"), view.layout, MEMORY, {}, None, "Test board", text
        )
        headers, rows = read_board(html)
        assert headers == list(view.columns("Memory types"))
        plain = text.replace("**", "")
        assert rows == [[plain]]
        assert row_ids(html) == []
        assert f'colspan="{len(headers)}"' in html
        assert "**" not in html
    # rows to show: no empty-state row, whatever text is passed
    html = board_table.table_html(
        view.frame,
        view.columns("Memory types"),
        view.layout,
        MEMORY,
        view.by_id,
        None,
        "Test board",
        "Nothing here",
    )
    assert "Nothing here" not in html and len(read_board(html)[1]) == len(view.frame)
    assert "<strong>About</strong>" in board_table.table_html(
        none, ["Rank"], view.layout, MEMORY, {}, None, "c", board_rows.empty_text(0, 0)
    )


def test_the_table_carries_the_track_only_on_a_several_track_board() -> None:
    view = View(DECISION_DEMO.records, ARGUS, DECISION)
    assert 'data-track="decision"' in view.html("Decision", None, track_param="decision")
    assert "data-track" not in View(MEM_DEMO.records).html("Memory types", None)


def test_cells_show_metrics_as_their_display_rounds_them() -> None:
    view = View(DECISION_DEMO.records, ARGUS, DECISION)
    html = view.html("Timing", None)
    headers, rows = read_board(html)
    first = view.by_id[row_ids(html)[0]]
    cells = dict(zip(headers, rows[0], strict=True))
    assert cells["Macro F1"] == f"{first.metrics['decision_macro_f1']:.3f}"
    assert cells["MAE (s)"] == f"{first.metrics['timing_mae_s']:.2f}"
    assert cells["Timed"] == f"{first.metrics['timing_n']:.0f}"
    assert cells["Method"] == first.method_name + (" †" if first.note else "")


# --- the row card -------------------------------------------------------------------------------


def card(
    record: ledger.Record,
    view: View,
    *,
    board_dir: str | None = None,
    superseded_by: ledger.Record | None = None,
    many: bool = False,
    added: ledger.AddedIn | None = None,
) -> str:
    rows = view.frame[view.frame["_id"] == str(record.id)]
    row = {str(k): v for k, v in rows.iloc[0].items()} if not rows.empty else None
    permalink = f"?entry={record.id}" + (f"&track={view.track.id}" if many else "")
    return board_card.card_html(
        record,
        view.bench,
        view.track,
        view.layout,
        row,
        superseded_by=superseded_by,
        added=added,
        reproduce=board_card.reproduce_command(record, view.bench, view.track, board_dir),
        permalink=permalink,
    )


def text_of(html: str) -> str:
    """The text of ``html`` as it reads: blocks and cells apart, inline tags run in."""

    class Text(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.parts: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag not in ("a", "code", "strong", "span"):
                self.parts.append(" ")

        def handle_data(self, data: str) -> None:
            self.parts.append(data)

    parser = Text()
    parser.feed(html)
    return " ".join("".join(parser.parts).split())


def hrefs(html: str) -> list[str]:
    parser = _Links()
    parser.feed(html)
    return parser.hrefs


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.hrefs.append(str(dict(attrs).get("href")))


def rescored(snapshot: ledger.BoardSnapshot, name: str = "DemoVLM-7B (synthetic)") -> ledger.Record:
    return next(r for r in snapshot.records if r.method_name == name)


def test_a_rescored_card_shows_its_provenance_and_what_it_supersedes() -> None:
    view = View(UNDERSTANDING_DEMO.records, ARGUS, UNDERSTANDING)
    record = rescored(UNDERSTANDING_DEMO)
    assert record.provenance is not None and record.supersedes is not None
    html = card(record, view, many=True)
    shown = text_of(html)
    p = record.provenance
    for label, value in (
        ("Submission sha256", p.submission_sha256),
        ("Answer key sha256", p.answer_key_sha256),
        ("Key version", p.key_version),
        ("Scorer version", p.scorer_version),
        ("Record id", str(record.id)),
        ("Supersedes", str(record.supersedes)),
    ):
        assert f"{label} {value}" in shown, label
    assert f"?entry={record.supersedes}&track=understanding" in hrefs(html)
    assert f"?entry={record.id}&track=understanding" in hrefs(html)
    rank = next(
        int(r)
        for r, i in zip(view.frame["Rank"], view.frame["_id"], strict=True)
        if i == str(record.id)
    )
    assert f"Rank {rank}" in shown and "Reproduce this row" in shown
    assert "Superseded" not in shown


def test_a_superseded_card_links_to_the_row_that_replaced_it() -> None:
    view = View(UNDERSTANDING_DEMO.records, ARGUS, UNDERSTANDING)
    old = UNDERSTANDING_DEMO.superseded[0]
    new = next(r for r in UNDERSTANDING_DEMO.records if r.supersedes == old.id)
    html = card(old, view, superseded_by=new, many=True)
    assert f"?entry={new.id}&track=understanding" in hrefs(html)
    shown = text_of(html)
    assert f"Superseded by {new.method_name} ({new.id}); it is no longer on the board" in shown
    assert "Rank" not in shown.split("Scores")[0]  # no board row: no rank
    assert "schema_version" not in html


def test_a_paper_card_has_no_command_and_says_where_it_comes_from() -> None:
    view = View(MEM_DEMO.records)
    record = next(r for r in MEM_DEMO.records if r.source == "paper")
    assert board_card.reproduce_command(record, MEM, MEMORY, None) is None
    assert board_card.reproduce_command(record, MEM, MEMORY, "board") is None
    html = card(record, view)
    shown = text_of(html)
    assert "Numbers reported in the paper; not re-scored here" in shown
    assert shown.count("Provenance") == 1  # the heading alone (it read "Provenance Provenance")
    assert "Reproduce this row" not in shown and "reproduce_row.py" not in html
    assert "sha256" not in shown


def test_a_card_escapes_every_record_text() -> None:
    record = hostile_row()
    view = View([record])
    html = card(record, view)
    for raw in ("{", "}", "$", "`", "\\", "<img"):
        assert raw not in html, raw
    shown = text_of(html)
    for value in (
        HOSTILE,
        "Team " + HOSTILE,
        "About " + HOSTILE,
        "Note " + HOSTILE,
        "${7}B {{size}}",
    ):
        assert " ".join(value.split()) in shown, value
    assert [h for h in hrefs(html) if h.startswith("http")] == [
        "http://example.org/paper",
        "https://example.org/a$b{c}?q=1&r=2",
    ]


def test_a_card_names_the_commit_that_added_its_record_escaped() -> None:
    record = hostile_row()
    view = View([record])
    url = "https://huggingface.co/datasets/o/r/commit/" + "0123456789ab" * 3 + "0123"
    added = ledger.AddedIn(
        commit="0123456789ab" * 3 + "0123",
        title="Add " + HOSTILE,
        date=datetime(2026, 9, 1, 10, 0, tzinfo=UTC),
        url=url,
    )
    html = card(record, view, added=added)
    for raw in ("{", "}", "$", "`", "\\", "<img"):
        assert raw not in html, raw
    assert f"Added in commit 0123456789ab Add {HOSTILE}, 2026-09-01" in text_of(html)
    link = next(a for a in re.findall(r"<a [^>]*>", html) if "/commit/" in a)
    assert f'href="{url}"' in link and "noopener" in link
    assert "Added in commit" not in text_of(card(record, view))


@pytest.mark.parametrize(
    ("bench", "track", "snapshot", "many"),
    [
        (MEM, MEMORY, MEM_DEMO, False),
        (ARGUS, UNDERSTANDING, UNDERSTANDING_DEMO, True),
        (ARGUS, DECISION, DECISION_DEMO, True),
    ],
    ids=["egomemreason", "egoargus-understanding", "egoargus-decision"],
)
def test_the_reproduce_command_names_the_track_and_board_only_when_needed(
    bench: spec.Benchmark, track: spec.Track, snapshot: ledger.BoardSnapshot, many: bool
) -> None:
    record = rescored(snapshot)
    hub = board_card.reproduce_command(record, bench, track, None)
    local = board_card.reproduce_command(record, bench, track, "my boards/demo")
    assert hub is not None and local is not None
    for command, board in ((hub, None), (local, "my boards/demo")):
        words = shlex.split(command.split(" \\\n")[0])
        assert words[:2] == ["python", "scripts/reproduce_row.py"]
        flags = dict(zip(words[2::2], words[3::2], strict=True))
        assert flags.get("--benchmark") == bench.id
        assert flags.get("--track") == (track.id if many else None)
        assert flags.get("--leaderboard-dir") == board
        assert flags.get("--record") == str(record.id)
        assert "--submission <the submitted file>" in command
        assert "--private <the answer key file>" in command
    assert ("--track" in hub) == many


def _submission_of(bench: spec.Benchmark, record: ledger.Record) -> Path:
    """The demo file a re-scored demo row was scored from, by its sha256."""
    demo = bench.demo_dir
    files = [
        *demo.glob("*sample_submission.json"),
        *(demo / "leaderboard" / "inputs").glob("*.json"),
    ]
    by_sha = {hashlib.sha256(p.read_bytes()).hexdigest(): p for p in files}
    assert record.provenance is not None
    return by_sha[record.provenance.submission_sha256]


@pytest.mark.parametrize(
    ("bench", "track", "snapshot"),
    [
        (MEM, MEMORY, MEM_DEMO),
        (ARGUS, UNDERSTANDING, UNDERSTANDING_DEMO),
        (ARGUS, DECISION, DECISION_DEMO),
    ],
    ids=["egomemreason", "egoargus-understanding", "egoargus-decision"],
)
def test_the_printed_command_reproduces_its_demo_row(
    bench: spec.Benchmark,
    track: spec.Track,
    snapshot: ledger.BoardSnapshot,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(ROOT)
    record = rescored(snapshot)
    board_dir = str((bench.demo_dir / "leaderboard").relative_to(ROOT))
    view = View(snapshot.records, bench, track)
    html = card(record, view, board_dir=board_dir, many=len(bench.tracks) > 1)
    block = re.search(r"<pre><code>(.*?)</code></pre>", html, re.S)
    assert block is not None
    command = unescape(block.group(1))  # as a visitor copies it from the card
    words = shlex.split(command.split(" \\\n")[0])
    assert words[:2] == ["python", "scripts/reproduce_row.py"]
    args = [
        *words[2:],
        "--submission",
        str(_submission_of(bench, record)),
        "--private",
        str(bench.demo_key(track)),
    ]
    assert reproduce_row.main(args) == 0
    assert "reproduced" in capsys.readouterr().out
    # and the same command refuses another row's submission: it does check
    other = next(r for r in snapshot.records if r.source == "rescored" and r.id != record.id)
    wrong = [
        *words[2:],
        "--submission",
        str(_submission_of(bench, other)),
        "--private",
        str(bench.demo_key(track)),
    ]
    assert reproduce_row.main(wrong) == 1


def test_a_formula_in_a_spec_label_is_neutralised_in_the_csv_header(tmp_path: Path) -> None:
    """Issue 30, finding 5: the rows' cells were neutralised, the header's not: a benchmark
    folder arrives by pull request, and a label ``=HYPERLINK(...)`` ran in the spreadsheet."""
    folder = tmp_path / "bench"
    shutil.copytree(spec.load_benchmark("egomemreason").folder, folder)
    toml = folder / "benchmark.toml"
    formula = '=HYPERLINK("https://example.org/x","Tracking")'
    text = toml.read_text().replace('label = "Tracking"', f"label = '{formula}'", 1)
    toml.write_text(text)
    bench = spec.load_benchmark(str(folder))
    track = bench.track()
    layout = board_layout.board_layout(bench, track)
    frame = board_view.board_frame([], bench, track)
    header = board_export.board_csv(frame, layout, []).decode("utf-8-sig").splitlines()[0]
    cells = next(csv.reader([header]))
    assert formula not in cells, cells  # before: as it is
    assert "'" + formula in cells, cells
