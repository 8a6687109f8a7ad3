"""The decision board explains itself (issue 21, "The decision board (EgoArgus)").

Observed on the demo board: in the default view 7 of the 10 rows (the paper's) were dashes in
every column; the Rank column ran two series side by side (1, 1, 3, then 1, 2, ... 7); Score
said "of 4 entries" where the board said "10 entries"; clicking Rank showed "◆" and did
nothing; the constant Always-assist policy ranked first. Each is read here through the
Leaderboard tab's own handlers (``board_handlers``) on the shipped demo board.
"""

from __future__ import annotations

import re
import time

import evaluator
import ledger
import spec
from tests.support.board_html import read_board
from tests.support.demo_keys import demo_key
from web import score_view
from web.board import handlers as board_handlers
from web.board import rows as board_view
from web.board import table as board_table
from web.served import Served
from web.text import md_escape

ARGUS = spec.load_benchmark("egoargus")
DECISION = ARGUS.track("decision")
UNDERSTANDING = ARGUS.track("understanding")
KEY = demo_key(ARGUS, DECISION)
SAMPLE = (ARGUS.demo_dir / "decision_sample_submission.json").read_bytes()
CONSTANT = ("Always-assist (synthetic)", "Never-assist (synthetic)")


def _served(track: spec.Track) -> Served:
    key = demo_key(ARGUS, track)
    status = ledger.KeyStatus(key, "synthetic demo key", demo=True, error=None)
    board = ledger.BoardCache(ledger.LocalStore(ARGUS.demo_board), ARGUS, track)
    return Served(track, lambda: status, board)


TAB = board_handlers.board_tab(ARGUS, [_served(UNDERSTANDING), _served(DECISION)], time.time)
LAYOUT = TAB.layouts["decision"]


def _view(
    group: str, sort: board_table.Sort | None = None
) -> tuple[str, str, list[str], list[dict[str, str]]]:
    table, status, *_ = board_handlers.view(TAB, "", [], [], [], [], group, sort, "decision")
    headers, rows = read_board(table)
    return table, status, headers, [dict(zip(headers, row, strict=True)) for row in rows]


def _ranks(rows: list[dict[str, str]]) -> list[int]:
    return [int(r["Rank"]) for r in rows if r["Rank"].isdigit()]


def test_the_default_view_has_no_row_of_dashes_and_one_rank_series() -> None:
    _, _, headers, rows = _view("Decision")
    metrics = [h for h in headers if h in LAYOUT.formats]
    assert rows
    for row in rows:
        assert any(row[m] != "—" for m in metrics), row["Method"]
    ranks = _ranks(rows)
    assert ranks == sorted(ranks) and ranks[0] == 1  # one series: 1, then never back to 1
    assert len(ranks) == len(set(ranks)) or max(ranks) <= len(ranks)


def test_the_constant_policies_are_labelled_reference_rows_not_entries() -> None:
    _, _, _, rows = _view("Decision")
    by_name = {r["Method"]: r for r in rows}
    demo = by_name["DemoVLM-7B (synthetic)"]
    assert demo["Rank"] == "1"
    for name in CONSTANT:
        row = by_name[name]
        assert row["Rank"] == "ref.", row
    names = [r["Method"] for r in rows]
    assert names.index("DemoVLM-7B (synthetic)") < min(names.index(n) for n in CONSTANT)
    # what each is, under the board (a tag under the name made the row five lines tall)
    notes = board_handlers.view(TAB, "", [], [], [], [], "Decision", None, "decision")[2]
    for name in CONSTANT:
        assert f"ref. **{md_escape(name)}**: a reference policy \\(" in notes


def test_the_paper_rows_are_in_the_view_of_their_columns_ranked_there() -> None:
    _, _, headers, rows = _view("Paper (Table 2)")
    assert headers[:3] == ["Rank", "Method", DECISION.labels["paper_f1"]]
    assert {r["Source"] for r in rows} == {board_view.SOURCE_TEXT["paper"]}
    assert _ranks(rows) == list(range(1, 8))
    _, _, _, default = _view("Decision")
    assert board_view.SOURCE_TEXT["paper"] not in {r["Source"] for r in default}


def test_all_shows_every_row_under_one_rank_series() -> None:
    _, _, _, rows = _view("All")
    assert len(rows) == 10
    papers = [r for r in rows if r["Source"] == board_view.SOURCE_TEXT["paper"]]
    assert len(papers) == 7 and all(r["Rank"] == "—" for r in papers)
    assert _ranks(rows) == [1]


def test_score_and_the_board_count_the_same_entries() -> None:
    _, status, _, _ = _view("Decision")
    result = evaluator.disclosed(DECISION, evaluator.score(KEY, SAMPLE))
    records = TAB.tracks["decision"].board.snapshot().records
    rank = score_view.would_rank(result, records, DECISION)
    assert rank is not None
    entries = rank[2] - 1  # the board's entries, and this file
    assert status.startswith(f"{entries} entr"), status
    assert "2 reference rows" in status and "7 paper-reported rows" in status
    said = score_view.rank_markdown(rank, DECISION, many=True)
    assert f"of {rank[2]} entries" in said and f"the board's {entries} and this file" in said


def test_rank_sorts_one_way_and_its_first_click_reverses_the_board() -> None:
    table, _, headers, rows = _view("Decision")
    rank_header = re.search(
        r'<th[^>]*aria-sort="([a-z]+)"[^>]*>\s*<button[^>]*data-sort="Rank"', table
    )
    assert rank_header is not None and rank_header.group(1) == "ascending"
    assert "◆" not in table
    sort = board_table.next_sort(None, "Rank", headers)
    assert sort == board_table.Sort("Rank", reversed=True)
    reversed_table, _, _, reversed_rows = _view("Decision", sort)
    assert "▼" in reversed_table or 'aria-sort="descending"' in reversed_table
    assert _ranks(reversed_rows) == sorted(_ranks(rows), reverse=True)


def test_the_source_filter_says_what_the_source_column_says() -> None:
    assert tuple(board_view.SOURCE_LABELS.values()) == tuple(board_view.SOURCE_TEXT.values())
    table, *_ = board_handlers.view(
        TAB, "", ["Paper-reported"], [], [], [], "Paper (Table 2)", None, "decision"
    )
    assert len(read_board(table)[1]) == 7


def test_a_paper_card_says_where_its_numbers_come_from_once() -> None:
    records = TAB.tracks["decision"].board.snapshot().records
    paper = next(r for r in records if r.source == "paper")
    _, html = board_handlers.card(TAB, str(paper.id), TAB.tracks["decision"])
    assert html.count(">Provenance<") == 1  # the heading, not a term under it as well
    assert "reported in the paper; not re-scored here" in html
    assert "among the paper-reported rows" in html


def test_a_view_whose_columns_the_filtered_rows_lack_says_where_they_are() -> None:
    table, *_ = board_handlers.view(
        TAB, "", ["Paper-reported"], [], [], [], "Decision", None, "decision"
    )
    assert "pick another view" in table and "All" in table
