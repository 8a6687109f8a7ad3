"""The board's view lives in the page's address (issue 21, "State, layout and charts"), in
Debian Chromium against ``python app.py`` serving EgoArgus (two tracks): a shared link shows
its view, every change of a control writes the address, a reload keeps the view, an unknown
value is said, and the card's permalink is a full URL.

The server, the browser and ``_open`` are tests/app/test_browser.py's. Expected rows come from
the demo records and the spec, never from the app.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.app.test_browser import (  # noqa: F401  (the browser fixture is used by name)
    ARGUS,
    DESKTOP,
    TIMEOUT_MS,
    _open,
    browser,
)
from tests.support.app_server import AppServer
from tests.support.procs import ONE_CLIENT
from web.board.layout import board_layout

DECISION = ARGUS.bench.track("decision")
PAPER_VIEW = "Paper (Table 2)"
#: The view's lead metric (after Rank and Method): what the link sorts by.
PAPER_F1 = board_layout(ARGUS.bench, DECISION).groups[PAPER_VIEW][2]
#: A column of the All view that the Paper view lacks.
ALL_ONLY = next(
    c
    for c in board_layout(ARGUS.bench, DECISION).groups["All"]
    if c not in board_layout(ARGUS.bench, DECISION).groups[PAPER_VIEW]
)


@pytest.fixture(scope="module")
def argus_server() -> Iterator[AppServer]:
    with AppServer(env={"LEADERBOARD_BENCHMARK": "egoargus", **ONE_CLIENT}) as app:
        yield app


def _paper_qwen_rows() -> list[str]:
    """The Decision board's paper rows whose name has "qwen", from the demo files."""
    folder = ARGUS.bench.demo_board / "submissions"
    records = [json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("*.json")]
    return sorted(
        str(r["method_name"])
        for r in records
        if r.get("track") == "decision" and r["source"] == "paper"
        if "qwen" in str(r["method_name"]).lower()
    )


def _query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def _shown_names(page: Page) -> list[str]:
    return sorted(
        t.strip() for t in page.locator("#board-table tbody .entry-open").all_inner_texts()
    )


def _expect_the_linked_view(page: Page, names: list[str], view: str) -> None:
    """The controls and the table as the link asks: Decision, "qwen", the view, Paper-reported
    ticked, sorted by Paper F1 reversed."""
    expect(page.locator("#board-track input[value=decision]")).to_be_checked()
    search = page.locator("#board-search textarea, #board-search input").first
    expect(search).to_have_value("qwen")
    expect(page.locator(f'#column-group input[value="{view}"]')).to_be_checked()
    ticked = page.locator("#board-filters input[type=checkbox]:checked")
    expect(ticked).to_have_count(1)
    assert ticked.evaluate("i => i.closest('label').innerText.trim()") == "Paper-reported"
    header = page.locator(f'#board-table thead button[data-sort="{PAPER_F1}"]').locator("xpath=..")
    expect(header).to_have_attribute("aria-sort", "ascending")  # best first, reversed
    page.wait_for_function(
        "(n) => document.querySelectorAll('#board-table tbody .entry-open').length === n",
        arg=len(names),
    )
    assert _shown_names(page) == names


@pytest.mark.server
@pytest.mark.browser
def test_the_whole_view_is_in_the_address(
    argus_server: AppServer,
    browser: Browser,  # noqa: F811
) -> None:
    names = _paper_qwen_rows()
    assert len(names) >= 2, "the demo board should carry two paper rows named Qwen"
    linked = urlencode(
        {
            "track": "Decision",  # a track's title, any case
            "q": "qwen",
            "cols": PAPER_VIEW,
            "source": "paper-reported",
            "sort": PAPER_F1,
            "rev": "1",
        }
    )
    visit = _open(browser, f"{argus_server.url}/?{linked}", DESKTOP, chart=False, row=None)
    try:
        page = visit.page
        _expect_the_linked_view(page, names, PAPER_VIEW)
        # The address now says it in the board's own words.
        page.wait_for_function("() => location.search.includes('track=decision')")
        assert _query(page) == {
            "track": ["decision"],
            "q": ["qwen"],
            "cols": [PAPER_VIEW],
            "source": ["Paper-reported"],
            "sort": [PAPER_F1],
            "rev": ["1"],
        }
        # A change of a control writes the address (All shows Paper F1: the sort is kept).
        page.locator("#column-group label", has_text="All").click()
        page.wait_for_function("() => new URLSearchParams(location.search).get('cols') === 'All'")
        assert _query(page)["q"] == ["qwen"] and _query(page)["sort"] == [PAPER_F1]
        # The address is written at the click, before the board's answer: a reload then would
        # abort Gradio's open stream, which logs an AbortError (CI saw it once). Wait for the
        # All view's table, a column the Paper view lacks.
        expect(page.locator(f'#board-table thead button[data-sort="{ALL_ONLY}"]')).to_be_visible()
        # A reload shows the same view.
        page.reload()
        _expect_the_linked_view(page, names, "All")
        # The card's permalink is a full URL: the page's origin and path, its track and entry.
        page.locator("#board-table .entry-open", has_text=names[0]).click()
        link = page.locator("#entry-card a.permalink")
        expect(link).to_contain_text(f"{argus_server.url}/?entry=", timeout=TIMEOUT_MS)
        entry = _query(page)["entry"][0]
        assert link.inner_text().strip() == f"{argus_server.url}/?entry={entry}&track=decision"
        assert _query(page)["cols"] == ["All"]  # the view stays in the address with the card
        # A switch of track changes ?track= and drops what the other track lacks.
        page.locator("#board-track label", has_text="Understanding").click()
        page.wait_for_function(
            "() => new URLSearchParams(location.search).get('track') === 'understanding'"
        )
        assert "sort" not in _query(page) and "cols" not in _query(page)
        assert not visit.errors, visit.errors
    finally:
        visit.context.close()
    # An unknown value is said, naming what exists.
    bogus = _open(
        browser, f"{argus_server.url}/?track=bogus&entry=nonexistent", DESKTOP, False, row=None
    )
    try:
        notes = bogus.page.locator("#board-address")  # under the status line
        expect(notes).to_contain_text("'bogus'")
        expect(notes).to_contain_text("'decision'")
        expect(notes).to_contain_text("'nonexistent'")
        assert not bogus.errors, bogus.errors
    finally:
        bogus.context.close()
