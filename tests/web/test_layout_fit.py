"""The page fits a phone (390x844) and a laptop (1280x800, 1366x768), on every tab of every
track of both benchmarks (issue 21, "State, layout and charts").

One walk a benchmark and viewport, in Debian Chromium against ``python app.py`` (the servers,
the browser and ``_open`` are tests/app/test_browser.py's, the servers here with
``ONE_CLIENT``: a walk sends many events from one address). In each state a visitor reaches
(each track, each column group, a row's card open, each chart sub-tab, Score with each track's
demo sample scored, About) it checks that:

- the page never scrolls sideways (``documentElement.scrollWidth <= innerWidth``);
- the card's box lies within the viewport and nothing in it is cut;
- no board row is taller than ``MAX_ROW_LINES`` lines of text;
- no board header or cell cuts its text (``scrollWidth <= clientWidth``), on a laptop the
  whole table lies within its frame (every column visible, none pushed off to the right) but
  in the All view, and a frame that scrolls sideways (a phone, All) shows its cue;
- About's tables fit their column (no columns hidden behind a sideways scroll);
- Score's result table shows every column within its frame, no header or cell cut.

Every state's screenshot lands in test-output/screenshots/layout-*.png for a human to look
at. A failure lists every problem of the walk.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.app.test_browser import (  # noqa: F401  (the browser fixture is used by name)
    ARGUS,
    BOARD_LOADED,
    EGOMEM,
    SCREENSHOTS,
    SETTLED_JS,
    TIMEOUT_MS,
    Demo,
    Visit,
    _open,
    _top_row,
    board_shows,
    browser,
)
from tests.support.app_server import AppServer
from tests.support.procs import ONE_CLIENT
from web.score_view import NOTHING_STORED

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
WIDE_LAPTOP = {"width": 1366, "height": 768}
#: (benchmark, viewport name): the walks. The 1366 px laptop was where the decision board's
#: Source column was cut: EgoArgus only.
WALKS = [
    ("egomemreason", "phone"),
    ("egomemreason", "laptop"),
    ("egoargus", "phone"),
    ("egoargus", "laptop"),
    ("egoargus", "laptop1366"),
]
VIEWPORTS = {"phone": PHONE, "laptop": LAPTOP, "laptop1366": WIDE_LAPTOP}
DEMOS = {"egomemreason": EGOMEM, "egoargus": ARGUS}
#: The column group of every column at once (board_layout's own): it scrolls on a laptop too.
ALL_VIEW = "All"
SHOWN = 3  # offending elements named per problem

# The page's width against the viewport's.
PAGE_JS = "() => [document.documentElement.scrollWidth, window.innerWidth]"

# What of an element lies outside the viewport or is cut inside it.
BOX_JS = """(selector) => {
    const el = document.querySelector(selector);
    if (!el) return null;
    const r = el.getBoundingClientRect();
    // Content cut, or hidden behind a sideways scroll of its own (the card says no cue).
    const clips = e => ['hidden', 'clip', 'auto', 'scroll'].includes(getComputedStyle(e).overflowX);
    const cut = [...el.querySelectorAll('*')]
        .filter(e => clips(e) && e.scrollWidth > e.clientWidth + 1)
        .map(e => e.tagName.toLowerCase() + '.' + String(e.className).split(' ')[0]);
    return {left: r.left, right: r.right, width: window.innerWidth,
            scroll: el.scrollWidth, client: el.clientWidth, cut};
}"""

#: The most lines of text a board row may take (a name on two, a reference's tag under it).
MAX_ROW_LINES = 5

# The board: cells whose text is cut, the columns lying past the frame's right edge, the rows
# too tall.
BOARD_JS = """(maxLines) => {
    const frame = document.querySelector('#board-table .board-scroll');
    if (!frame) return null;
    const right = frame.getBoundingClientRect().right;
    const cells = [...frame.querySelectorAll('thead th button, tbody td, tbody th')];
    // Cut: wider than its box, or its text reaching out of it on either side (a right-aligned
    // header overflows to the left, which scrollWidth does not count).
    const outside = c => {
        const range = document.createRange();
        range.selectNodeContents(c);
        const text = range.getBoundingClientRect(), box = c.getBoundingClientRect();
        return text.width > 0 && (text.left < box.left - 1 || text.right > box.right + 1);
    };
    const cut = cells.filter(c => c.scrollWidth > c.clientWidth + 1 || outside(c))
        .map(c => c.innerText.replace(/\\s+/g, ' ').trim().slice(0, 40));
    const past = [...frame.querySelectorAll('thead th')]
        .filter(th => th.getBoundingClientRect().right > right + 1)
        .map(th => th.innerText.replace(/\\s+/g, ' ').trim());
    const cue = frame.querySelector('.scroll-cue');
    // Rows taller than MAX_ROW_LINES lines of the board's text (issue 31: the Paper (Table 2)
    // view's note, wrapped in a narrow column, made each row ~180 px tall on a phone).
    const line = parseFloat(getComputedStyle(frame.querySelector('tbody th') ?? frame)
        .lineHeight) || 20;
    const tall = [...frame.querySelectorAll('tbody tr[data-entry]')]
        .filter(tr => tr.getBoundingClientRect().height > maxLines * line)
        .map(tr => `${tr.querySelector('.entry-open')?.innerText.trim()} ` +
                   `(${Math.round(tr.getBoundingClientRect().height)} px)`);
    return {cut, past, tall, scroll: frame.scrollWidth, client: frame.clientWidth,
            cue: !!cue && cue.offsetParent !== null && cue.innerText.trim() !== ''};
}"""

# About's tables: those wider than the space they are shown in.
ABOUT_JS = """() => [...document.querySelectorAll('#about-text table')].map(t => {
    const box = t.parentElement.getBoundingClientRect();
    const r = t.getBoundingClientRect();
    const head = [...t.querySelectorAll('th')].map(th => th.innerText.trim()).join(' | ');
    return {head: head.slice(0, 60), fits: t.scrollWidth <= t.clientWidth + 1
            && r.right <= Math.min(box.right, window.innerWidth) + 1};
})"""

# Score's result table: its headers, and those not within the frame the page shows it in.
SCORE_TABLE_JS = """() => {
    const root = document.querySelector('#score-table');
    if (!root || !root.offsetParent) return null;
    const limit = Math.min(root.getBoundingClientRect().right, window.innerWidth);
    const heads = [...root.querySelectorAll('thead th')].filter(th => th.offsetParent);
    const past = heads.filter(th => th.getBoundingClientRect().right > limit + 1)
        .map(th => th.innerText.trim());
    const cuts = c => [c, ...c.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth + 1);
    const cut = [...root.querySelectorAll('thead th, tbody td')]
        .filter(c => c.offsetParent && c.innerText.trim() && cuts(c))
        .map(c => c.innerText.trim());
    return {heads: heads.map(th => th.innerText.trim()), past, cut};
}"""


def _server(bench_id: str) -> Iterator[AppServer]:
    env = {**ONE_CLIENT, "LEADERBOARD_BENCHMARK": bench_id}
    with AppServer(env=env) as app:
        yield app


@pytest.fixture(scope="module")
def egomemreason_server() -> Iterator[AppServer]:
    yield from _server("egomemreason")


@pytest.fixture(scope="module")
def egoargus_server() -> Iterator[AppServer]:
    yield from _server("egoargus")


class Walk:
    """One benchmark on one viewport: the problems found and the screenshots taken."""

    def __init__(self, visit: Visit, label: str, laptop: bool) -> None:
        self.visit, self.page, self.label, self.laptop = visit, visit.page, label, laptop
        self.problems: list[str] = []

    def shot(self, state: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.evaluate(SETTLED_JS)
        name = re.sub(r"[^a-z0-9]+", "-", f"layout {self.label} {state}".lower()).strip("-")
        self.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)

    def problem(self, state: str, text: str) -> None:
        self.problems.append(f"{self.label}, {state}: {text}")

    def page_fits(self, state: str) -> None:
        self.page.evaluate(SETTLED_JS)
        scroll, inner = self.page.evaluate(PAGE_JS)
        if scroll > inner:
            self.problem(state, f"the page scrolls sideways ({scroll} px wide in {inner} px)")

    def board_fits(self, state: str, view: str) -> None:
        """No cell cut; on a laptop every column of a view within the frame, but All's (every
        column at once, 24 to 40 of them); a frame that scrolls sideways says so."""
        found: dict[str, Any] | None = self.page.evaluate(BOARD_JS, MAX_ROW_LINES)
        if found is None:
            self.problem(state, "no board table")
            return
        if found["cut"]:
            self.problem(state, f"board cells cut: {found['cut'][:SHOWN]}")
        if found["tall"]:
            self.problem(state, f"board rows over {MAX_ROW_LINES} lines: {found['tall'][:SHOWN]}")
        if found["scroll"] > found["client"] + 1 and not found["cue"]:
            self.problem(state, "the board scrolls sideways and nothing says so")
        if self.laptop and view != ALL_VIEW and found["past"]:
            self.problem(
                state,
                f"board columns past the frame's edge ({found['scroll']} px in "
                f"{found['client']} px): {found['past']}",
            )

    def card_fits(self, state: str) -> None:
        box: dict[str, Any] | None = self.page.evaluate(BOX_JS, "#entry-card-box")
        if box is None:
            self.problem(state, "no card")
            return
        if box["left"] < 0 or box["right"] > box["width"] + 0.5:
            self.problem(
                state,
                f"the card spans {box['left']:.0f}-{box['right']:.0f} px of a "
                f"{box['width']} px screen",
            )
        if box["scroll"] > box["client"] + 1 or box["cut"]:
            self.problem(
                state,
                f"the card's content is cut ({box['scroll']} px in {box['client']} px; "
                f"{box['cut'][:SHOWN]})",
            )


def _settled(page: Page) -> None:
    expect(page.locator("#board-status")).to_contain_text(BOARD_LOADED, timeout=TIMEOUT_MS)
    page.evaluate(SETTLED_JS)


def _walk_board(walk: Walk, demo: Demo) -> None:
    page = walk.page
    tracks = demo.bench.tracks
    for track in tracks:
        where = track.id
        if len(tracks) > 1:
            page.locator("#board-track label", has_text=track.title).click()
            expect(page.locator("#board-track input:checked")).to_have_value(track.id)
            board_shows(page, track.id)  # the switch, then the board that follows it
        _settled(page)
        groups = page.locator("#column-group label")
        for i in range(groups.count()):
            label = groups.nth(i)
            name = label.inner_text().strip()
            label.click()
            expect(page.locator("#column-group input:checked")).to_have_value(name)
            board_shows(page, track.id if len(tracks) > 1 else None, name if i else None)
            _settled(page)
            state = f"{where} board, {name}"
            walk.page_fits(state)
            walk.board_fits(state, name)
            walk.shot(state)
        groups.first.click()
        board_shows(page, track.id if len(tracks) > 1 else None)
        _settled(page)
        opener = page.locator("#board-table .entry-open").first
        if opener.count():
            opener.click()
            expect(page.locator("#entry-card-box")).to_be_visible(timeout=TIMEOUT_MS)
            expect(page.locator("#entry-card")).to_contain_text(opener.inner_text().strip())
            state = f"{where} card"
            walk.page_fits(state)
            walk.card_fits(state)
            walk.shot(state)
            page.locator("#entry-card-close").click()
            expect(page.locator("#entry-card-box")).to_be_hidden(timeout=TIMEOUT_MS)
        for chart_tab in page.locator("#chart-tabs [role=tab]").all():
            chart_tab.click()
            state = f"{where} chart {chart_tab.inner_text().strip()}"
            walk.page_fits(state)
        walk.shot(f"{where} charts")


def _walk_score(walk: Walk, demo: Demo) -> None:
    page = walk.page
    walk.visit.tab("Score")
    expect(page.locator("#score-upload")).to_be_visible()
    walk.page_fits("Score, no file yet")
    for track in demo.bench.tracks:
        # The demo's samples: the first track's sample_submission.json, another's prefixed.
        own = demo.bench.demo_dir / f"{track.id}_sample_submission.json"
        sample = own if own.is_file() else demo.sample
        clear = page.locator("#score-upload button[aria-label='Clear']")
        if clear.count():
            clear.first.click()
        before = page.locator("#score-summary").inner_text()
        chooser = page.locator("#score-upload input[type=file]")
        chooser.set_input_files(str(sample))
        page.wait_for_function(  # this file's result, not the last one's
            """([before, done]) => {
                const text = document.querySelector('#score-summary')?.innerText ?? '';
                return text.includes(done) && text !== before;
            }""",
            arg=[before, NOTHING_STORED],
            timeout=TIMEOUT_MS,
        )
        expect(page.locator("#score-table")).to_be_visible(timeout=TIMEOUT_MS)
        state = f"Score, {track.id} sample"
        walk.page_fits(state)
        table: dict[str, Any] | None = page.evaluate(SCORE_TABLE_JS)
        if table is None or not table["heads"]:
            walk.problem(state, "no result table")
        elif table["past"]:
            walk.problem(
                state,
                f"Score's table shows {len(table['heads']) - len(table['past'])} of its "
                f"{len(table['heads'])} columns; past the edge: {table['past']}",
            )
        elif table["cut"]:
            walk.problem(state, f"Score's table cuts its cells: {table['cut'][:SHOWN]}")
        walk.shot(state)


def _walk_about(walk: Walk) -> None:
    walk.visit.tab("About")
    expect(walk.page.locator("#citation")).to_be_visible()
    walk.page_fits("About")
    wide = [t["head"] for t in walk.page.evaluate(ABOUT_JS) if not t["fits"]]
    if wide:
        walk.problem("About", f"{len(wide)} tables wider than their column: {wide[:SHOWN]}")
    walk.shot("About")


@pytest.mark.server
@pytest.mark.browser
@pytest.mark.parametrize(("bench_id", "device"), WALKS)
def test_every_tab_fits_the_viewport(
    request: pytest.FixtureRequest,
    browser: Browser,  # noqa: F811
    bench_id: str,
    device: str,
) -> None:
    demo = DEMOS[bench_id]
    url = request.getfixturevalue(f"{bench_id}_server").url
    visit = _open(browser, url, VIEWPORTS[device], chart=False, row=_top_row(demo))
    walk = Walk(visit, f"{bench_id} {device}", laptop=device != "phone")
    try:
        for section, step in (
            ("Leaderboard", lambda: _walk_board(walk, demo)),
            ("Score", lambda: _walk_score(walk, demo)),
            ("About", lambda: _walk_about(walk)),
        ):
            try:
                step()
            except Exception as exc:  # the walk goes on: the other tabs' problems are wanted too
                walk.shot(f"{section} stopped")
                walk.problem(section, f"the walk stopped: {str(exc).splitlines()[0]}")
    finally:
        visit.context.close()
    assert not walk.problems, f"{len(walk.problems)} layout problems:\n" + "\n".join(walk.problems)


def test_walks_cover_both_benchmarks_and_every_viewport() -> None:
    """Guards the walks above: each benchmark on a phone and a laptop."""
    assert {b for b, _ in WALKS} == set(DEMOS)
    for bench_id in DEMOS:
        assert {"phone", "laptop"} <= {d for b, d in WALKS if b == bench_id}
