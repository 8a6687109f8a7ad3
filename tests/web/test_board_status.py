"""The line above the board says when the board was read and what Refresh does, and Refresh
does it (issue 21: the line stayed "updated 0 s ago", then Refresh showed "updated 22 s ago",
the cache's copy, so Refresh seemed to do nothing).

In process: the board tab's handlers over a folder board (a copy of EgoMemReason's demo board)
and a clock the test moves.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import gradio as gr
import pytest

import ledger
import spec
from tests.support.demo_keys import demo_key
from web.board import handlers
from web.served import Served

EGOMEM = spec.load_benchmark("egomemreason")
MEMORY = EGOMEM.track("memory")
#: A fresh page's controls on a one-track board: search, four filters, group, sort, track.
NO_FILTERS: tuple[str, list[str], list[str], list[str], list[str], str, None, None] = (
    "",
    [],
    [],
    [],
    [],
    "All",
    None,
    None,
)
START = 1_764_676_800.0  # 2025-12-02 12:00:00 UTC


@pytest.fixture(autouse=True)
def exports_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tab's export folders under this test's own folder."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))


def _tab(board_dir: Path, now: list[float]) -> handlers.BoardTab:
    key = demo_key(EGOMEM, MEMORY)
    board = ledger.BoardCache(ledger.LocalStore(board_dir), EGOMEM, MEMORY, clock=lambda: now[0])
    served = Served(MEMORY, lambda: ledger.KeyStatus(key, "demo", True, None), board)
    return handlers.board_tab(EGOMEM, [served], lambda: now[0])


def _entries(status: str) -> int:
    match = re.match(r"(\d+) entries", status)
    assert match, status
    return int(match.group(1))


def test_the_status_line_says_when_the_board_was_read_and_what_refresh_does(
    tmp_path: Path,
) -> None:
    now = [START]
    tab = _tab(EGOMEM.demo_board, now)
    _, status, *_ = handlers.view(tab, *NO_FILTERS)
    now[0] += 42
    _, status, *_ = handlers.view(tab, *NO_FILTERS)
    assert status.endswith(
        " · board as of 12:00 UTC, read from its records 42 s ago; Refresh reads them again"
    ), status


def test_refresh_reads_the_board_again_where_the_cache_would_show_its_copy(
    tmp_path: Path,
) -> None:
    board_dir = tmp_path / "board"
    shutil.copytree(EGOMEM.demo_board, board_dir)
    published = sorted((board_dir / "submissions").glob("*.json"))[0]
    held_back = tmp_path / published.name
    published.rename(held_back)  # not yet on the board
    now = [START]
    tab = _tab(board_dir, now)
    _, status, *_ = handlers.view(tab, *NO_FILTERS)
    before = _entries(status)

    held_back.rename(published)  # published meanwhile
    now[0] += 22  # within the cache's TTL: the page shows its copy
    _, status, *_ = handlers.view(tab, *NO_FILTERS)
    assert _entries(status) == before and "read from its records 22 s ago" in status

    _, status, *_ = handlers.reread(tab, *NO_FILTERS)
    assert _entries(status) == before + 1, status
    assert "board as of 12:00 UTC, read from its records 0 s ago" in status

    # However many click: one read per BoardCache's floor at most.
    held_back.write_bytes(published.read_bytes())
    published.unlink()
    now[0] += ledger.REREAD_FLOOR_S / 2
    _, status, *_ = handlers.reread(tab, *NO_FILTERS)
    assert _entries(status) == before + 1, "read again within the floor"
    # and it says so, and when to try again (issue 31: the age went up with no word why)
    assert status.endswith(
        "read from its records 2 s ago; they are read again at most once every 5 s: try again "
        "in 3 s"
    ), status
    now[0] += ledger.REREAD_FLOOR_S
    _, status, *_ = handlers.reread(tab, *NO_FILTERS)
    assert _entries(status) == before, status
    assert status.endswith("read from its records 0 s ago; Refresh reads them again"), status


def test_refresh_checks_what_it_is_sent_before_it_reads(tmp_path: Path) -> None:
    now = [START]
    tab = _tab(EGOMEM.demo_board, now)
    with pytest.raises(gr.Error, match="Column group"):
        handlers.reread(tab, "", [], [], [], [], "no such view", None, None)
