"""The charts as Chromium draws them (issue 31, item 2): values as dots with their intervals on
a zoomed axis, never bars that misstate them, and axis labels that never run into each other
(the decision Score chart's 31 labels, 0.55 to 0.85, overlapped).

Every chart of every track of both benchmarks, on a laptop (1280x800) and a phone (390x844):
the Leaderboard's three (side by side, by model size, by date) and the Score tab's, each drawn
as SVG (web.charts.EMBED_OPTIONS), read from the page: a bar is a ``mark-rect`` group, a dot a
``mark-symbol`` one, each axis's labels a ``role-axis-label`` group. The servers, the browser
and ``_open`` are tests/app/test_browser.py's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

import spec
from tests.app.test_browser import (  # noqa: F401  (the fixtures are used by name)
    ARGUS,
    EGOMEM,
    PHONE,
    SCREENSHOTS,
    TIMEOUT_MS,
    Demo,
    Visit,
    _open,
    _top_row,
    argus_server,
    browser,
    server,
)
from tests.support.app_server import AppServer

LAPTOP = {"width": 1280, "height": 800}
DRAWN = "[data-testid=altair] svg.marks"
BOARD_CHARTS = {
    "Side by side": "#board-chart",
    "By model size": "#size-chart",
    "By date": "#date-chart",
}

# Per axis of a chart: its labels' boxes that overlap another's (a pixel's touch aside).
OVERLAPS_JS = """(root) => {
    const found = [];
    for (const axis of root.querySelectorAll('g.role-axis')) {
        const boxes = [...axis.querySelectorAll('g.role-axis-label text')]
            .filter(t => t.textContent.trim() && getComputedStyle(t).opacity !== '0')
            .map(t => [t.textContent, t.getBoundingClientRect()]);
        for (let i = 0; i < boxes.length; i++) {
            for (let j = i + 1; j < boxes.length; j++) {
                const [a, p] = boxes[i], [b, q] = boxes[j];
                const apart = p.right <= q.left + 1 || q.right <= p.left + 1 ||
                              p.bottom <= q.top + 1 || q.bottom <= p.top + 1;
                if (!apart) found.push(`${a} / ${b}`);
            }
        }
    }
    return found;
}"""

# The marks drawn for the data (not a legend's symbols): how many groups of each kind.
MARKS_JS = """(root) => {
    const count = kind => root.querySelectorAll(`g.mark-${kind}.role-mark`).length;
    return {bars: count('rect'), dots: count('symbol'), labels:
            root.querySelectorAll('g.role-axis-label text').length};
}"""


def _problems(page: Page, selector: str, where: str, dots: bool) -> list[str]:
    """What is wrong with the chart under ``selector``: overlapping labels, a bar anywhere, no
    dots where the values are dots."""
    page.wait_for_selector(f"{selector} {DRAWN}", timeout=TIMEOUT_MS)
    root = page.locator(f"{selector} {DRAWN}").first
    marks = root.evaluate(MARKS_JS)
    problems = [f"{where}: labels overlap: {o}" for o in root.evaluate(OVERLAPS_JS)]
    if marks["bars"]:
        problems.append(f"{where}: {marks['bars']} bar marks")
    if dots and not marks["dots"]:
        problems.append(f"{where}: no dots")
    if not marks["labels"]:
        problems.append(f"{where}: no axis labels read (not drawn as SVG?)")
    return problems


def _sample(demo: Demo, track: spec.Track) -> Path:
    """The demo's sample submission of a track: the first track's is sample_submission.json,
    another's <track>_sample_submission.json."""
    if track.id == demo.bench.tracks[0].id:
        return demo.sample
    return demo.bench.demo_dir / f"{track.id}_sample_submission.json"


def _walk_board(visit: Visit, where: str) -> list[str]:
    problems = []
    for tab, selector in BOARD_CHARTS.items():
        visit.page.locator("#chart-tabs [role=tab]", has_text=tab).click()
        problems += _problems(visit.page, selector, f"{where}, {tab}", dots=True)
    visit.page.locator("#chart-tabs [role=tab]", has_text="Side by side").click()
    return problems


def _score(visit: Visit, sample: Path, where: str, summary: str) -> list[str]:
    visit.tab("Score")
    upload = visit.page.locator("#score-upload input[type=file]")
    upload.set_input_files(str(sample))
    expect(visit.page.locator("#score-summary")).to_contain_text(summary, timeout=TIMEOUT_MS)
    problems = _problems(visit.page, "#score-chart", f"{where}, Score", dots=True)
    visit.page.locator("#score-upload button[aria-label='Clear']").first.click()
    visit.tab("Leaderboard")
    return problems


@pytest.mark.server
@pytest.mark.browser
@pytest.mark.parametrize("device", ["laptop", "phone"])
def test_every_chart_draws_dots_and_labels_that_never_meet(
    request: pytest.FixtureRequest,
    browser: Browser,  # noqa: F811
    device: str,
) -> None:
    viewport = LAPTOP if device == "laptop" else PHONE
    problems: list[str] = []
    for fixture, demo in (("server", EGOMEM), ("argus_server", ARGUS)):
        url = request.getfixturevalue(fixture).url
        visit = _open(browser, url, viewport, chart=True, row=_top_row(demo))
        try:
            page = visit.page
            for track in demo.bench.tracks:
                where = f"{demo.bench.id} {device} {track.title}"
                if len(demo.bench.tracks) > 1:
                    page.locator("#board-track label", has_text=track.title).click()
                    expect(page.locator("#board-track input:checked")).to_have_value(track.id)
                    said = page.locator("#board-chart [data-testid=altair] [aria-label]").first
                    expect(said).to_have_attribute("aria-label", re.compile(track.chart_groups))
                problems += _walk_board(visit, where)
                problems += _score(visit, _sample(demo, track), where, track.labels[track.ranking])
                visit.shot(f"charts-{demo.bench.id}-{track.id}-{device}.png")
            assert not visit.errors, visit.errors
        finally:
            visit.context.close()
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)


# The texts a chart draws (its note among them, when it has nothing else to draw).
CHART_TEXT_JS = """(selector) => [...document.querySelectorAll(`${selector} svg.marks text`)]
    .map(t => t.textContent).join(' ')"""


@pytest.mark.server
@pytest.mark.browser
def test_a_chart_with_no_entry_picked_says_so(
    server: AppServer,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    """Issue 31, item 13: with every pick removed the chart stayed an empty plot, no word why."""
    visit = _open(browser, server.url, LAPTOP, chart=True, row=_top_row(EGOMEM))
    try:
        page = visit.page
        picks = page.locator("#chart-picks")
        while picks.locator(".token .token-remove, .token [role=button]").count():
            picks.locator(".token .token-remove, .token [role=button]").first.click()
        page.wait_for_function(
            f"() => ({CHART_TEXT_JS})('#board-chart').includes('no entry picked')",
            timeout=TIMEOUT_MS,
        )
        visit.shot("egomemreason-chart-no-picks.png")
        assert not visit.errors, visit.errors
    finally:
        visit.context.close()


@pytest.fixture(scope="module")
def empty_board(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    """EgoMemReason's demo key beside a board without a row."""
    folder = tmp_path_factory.mktemp("empty-board")
    with AppServer(env={"LEADERBOARD_RECORDS_DIR": str(folder)}) as app:
        yield app


@pytest.mark.server
@pytest.mark.browser
@pytest.mark.parametrize("device", ["laptop", "phone"])
def test_an_empty_board_s_charts_say_it_has_no_entries_yet(
    empty_board: AppServer,
    browser: Browser,  # noqa: F811
    device: str,
) -> None:
    """Issue 31, item 13: with no entries the chart area collapsed, no word why."""
    visit = _open(browser, empty_board.url, LAPTOP if device == "laptop" else PHONE, False, None)
    try:
        page = visit.page
        expect(page.locator("#board-table")).to_contain_text("No entries yet")
        expect(page.locator("#board-compare")).to_be_visible()
        for tab, selector in BOARD_CHARTS.items():
            page.locator("#chart-tabs [role=tab]", has_text=tab).click()
            page.wait_for_function(
                f"() => ({CHART_TEXT_JS})('{selector}').includes('No entries yet')",
                timeout=TIMEOUT_MS,
            )
        page.locator("#chart-tabs [role=tab]", has_text="Side by side").click()
        visit.shot(f"egomemreason-empty-board{'' if device == 'laptop' else '-phone'}.png")
        assert not visit.errors, visit.errors
    finally:
        visit.context.close()
