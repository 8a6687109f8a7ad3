"""What the page says of a corrected and a withdrawn row (issue 32): the board drops them, each
one's card (reached by its permalink) says what happened, with its history, and ``/entry``
gives the same as JSON; ``/leaderboard`` lists the rows shown only.

On a copy of EgoMemReason's demo board, where one row is corrected (a newer row supersedes it)
and another withdrawn, both as the maintainer's scripts write them (ledger records).
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import gradio as gr
import pytest
from starlette.requests import Request

import ledger
import spec
from tests.support.board_html import read_board
from tests.support.demo_keys import demo_key
from web.board import entry as board_entry
from web.board import handlers
from web.board import landing as board_landing
from web.served import Served

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track()
SAMPLE_ROW = uuid.UUID("5694e658-3eb0-487c-b1e2-cba563c80b88")  # DemoVLM-7B (synthetic)
REASON = "The team asked to withdraw it: their frame sampler read the test videos."
WHEN = datetime(2026, 7, 20, 9, 30, tzinfo=UTC)


@dataclass(frozen=True)
class Board:
    tab: handlers.BoardTab
    withdrawn: ledger.Record
    withdrawal: ledger.Withdrawal
    old: ledger.Record  # corrected: superseded by ``new``
    new: ledger.Record


@pytest.fixture
def board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Board:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the tab's export folders
    folder = tmp_path / "board"
    shutil.copytree(BENCH.demo_board, folder)
    store = ledger.LocalStore(folder)
    rows = [ledger.Record.from_json(store.read(p)) for p in store.list_paths()]
    withdrawn = next(r for r in rows if r.id == SAMPLE_ROW)
    old = next(r for r in rows if r.source == "rescored" and r.id != SAMPLE_ROW)
    new = old.model_copy(
        update={"id": uuid.uuid4(), "supersedes": old.id, "note": "a corrected team name"}
    )
    withdrawal = ledger.withdrawal_of(withdrawn, BENCH, REASON, created_at=WHEN)
    store.write(new, "correct")
    store.write(withdrawal, "withdraw")
    key = demo_key(BENCH, TRACK)
    cache = ledger.BoardCache(store, BENCH, TRACK)
    served = Served(TRACK, lambda: ledger.KeyStatus(key, "demo", True, None), cache)
    tab = handlers.board_tab(BENCH, [served], lambda: 0.0)
    return Board(tab, withdrawn, withdrawal, old, new)


def test_the_board_and_its_json_drop_the_withdrawn_and_the_superseded_row(board: Board) -> None:
    table, *_ = handlers.view(board.tab, "", [], [], [], [], "All", None, TRACK.id)
    ids = {r.id for r in board.tab.first.board.snapshot().records}
    assert board.withdrawn.id not in ids and board.old.id not in ids and board.new.id in ids
    rows = read_board(table)[1]
    assert len(rows) == len(ids) == 20  # the demo's 21 rows, one withdrawn, one corrected
    assert board.withdrawn.method_name not in table
    listed = handlers.leaderboard_api(board.tab, board.tab.first)()
    assert {r["id"] for r in listed} == {str(i) for i in ids}


def test_a_withdrawn_row_s_card_says_when_and_why_and_still_reproduces(board: Board) -> None:
    box, html = handlers.card(board.tab, str(board.withdrawn.id), board.tab.first)
    assert box == gr.update(visible=True)
    assert f"<strong>Withdrawn</strong> on 2026-07-20: {REASON} It is no longer on the board" in (
        html
    )
    assert "<h4>History</h4>" in html and f"by record <code>{board.withdrawal.id}</code>" in html
    assert "Rank" not in html.split("Scores")[0]  # off the board: no rank
    assert "scripts/reproduce_row.py" in html and str(board.withdrawn.id) in html


def test_a_corrected_row_s_card_shows_its_history_both_ways(board: Board) -> None:
    _, old_card = handlers.card(board.tab, str(board.old.id), board.tab.first)
    assert "<strong>Superseded</strong>" in old_card
    history = old_card.split("<h4>History</h4>")[1]
    assert history.index(str(board.old.id)) < history.index(str(board.new.id))
    assert f'href="?entry={board.new.id}"' in history and "this row" in history
    _, new_card = handlers.card(board.tab, str(board.new.id), board.tab.first)
    assert "Superseded</strong>" not in new_card and "replacing the row above" in new_card
    assert f'href="?entry={board.old.id}"' in new_card.split("<h4>History</h4>")[1]


def test_a_permalink_to_a_withdrawn_row_opens_its_card(board: Board) -> None:
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/",
        "headers": [],
        "query_string": f"entry={board.withdrawn.id}".encode(),
        "client": ("203.0.113.9", 50_000),
    }
    out = board_landing.landing(board.tab, gr.Request(Request(scope)))
    assert any(isinstance(o, str) and "<strong>Withdrawn</strong>" in o for o in out)


def test_entry_gives_the_card_as_json(board: Board) -> None:
    entry = board_entry.entry_api(board.tab)
    gone = entry(str(board.withdrawn.id))
    assert (gone["status"], gone["on_board"], gone["superseded_by"]) == ("withdrawn", False, None)
    assert gone["withdrawn"] == {
        "record": str(board.withdrawal.id),
        "date": WHEN.isoformat(),
        "reason": REASON,
        "replaced_by": None,
    }
    assert gone["record"]["metrics"] == board.withdrawn.metrics  # full precision
    old = entry(str(board.old.id))
    assert (old["status"], old["superseded_by"]) == ("superseded", str(board.new.id))
    assert [h["id"] for h in old["history"]] == [str(board.old.id), str(board.new.id)]
    new = entry(str(board.new.id).upper())  # as any id is read: case aside
    assert (new["status"], new["on_board"]) == ("current", True)
    assert new["history"][1]["supersedes"] == str(board.old.id)


@pytest.mark.parametrize("asked", ["00000000-0000-4000-8000-000000000000", "nope", "x" * 5000])
def test_entry_refuses_an_id_no_row_has_in_a_line(board: Board, asked: str) -> None:
    with pytest.raises(gr.Error) as refused:
        board_entry.entry_api(board.tab)(asked)
    message = str(refused.value.message)
    assert message.startswith("No entry of this leaderboard has the id") and len(message) < 200


def test_a_row_naming_its_model_s_repo_links_to_it_from_its_card(board: Board) -> None:
    store = board.tab.first.board.store
    named = board.new.model_copy(update={"id": uuid.uuid4(), "model_repo": "demo-lab/DemoVLM-7B"})
    store.write(named, "a row naming its model")
    board.tab.first.board.refresh()
    _, html = handlers.card(board.tab, str(named.id), board.tab.first)
    assert 'href="https://huggingface.co/demo-lab/DemoVLM-7B"' in html
    assert "Model on the Hub" in html


def test_a_reason_without_a_full_stop_still_reads_as_a_sentence(board: Board) -> None:
    store = board.tab.first.board.store
    other = next(r for r in board.tab.first.board.snapshot().records if r.source == "paper")
    store.write(ledger.withdrawal_of(other, BENCH, "Not in the paper", created_at=WHEN), "w")
    board.tab.first.board.refresh()
    _, html = handlers.card(board.tab, str(other.id), board.tab.first)
    assert "2026-07-20: Not in the paper. It is no longer on the board." in html
