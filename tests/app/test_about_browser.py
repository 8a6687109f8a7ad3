"""The About tab in Debian Chromium against ``python app.py`` (issue 31): EgoArgus' About says
what a visitor needs and marks plainly what its authors must fill in (item 12: it carried
internal changelog detail, demo-board numbers and a placeholder contact as if real); About is
as wide as the other tabs whatever its length, and its tables draw one frame (item 13).

The servers, the browser and ``_open`` are tests/app/test_browser.py's.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.app.test_browser import (  # noqa: F401  (the fixtures are used by name)
    ARGUS,
    EGOMEM,
    PHONE,
    SCREENSHOTS,
    TIMEOUT_MS,
    Visit,
    _open,
    _top_row,
    argus_server,
    browser,
)
from tests.support.app_server import AppServer

LAPTOP = {"width": 1280, "height": 800}
#: How the About marks what the authors must fill in (a blockquote starting so).
AUTHORS = "For the EgoArgus authors to fill in:"
#: What a visitor of the About has no use for: the Space's own files, its scorer's history, the
#: synthetic demo's numbers.
INTERNAL = (
    "Scorer 1.0",
    "Scorer 1.1",
    "re-published",
    "demo board",
    "demo key",
    ".py",
    "evaluator/",
)

# The left edge and width of an element, or None.
BOX_JS = """(s) => { const e = document.querySelector(s); if (!e) return null;
    const r = e.getBoundingClientRect(); return [Math.round(r.left), Math.round(r.width)]; }"""


def _about(visit: Visit) -> None:
    visit.tab("About")
    expect(visit.page.locator("#citation")).to_be_visible(timeout=TIMEOUT_MS)


@pytest.mark.server
@pytest.mark.browser
@pytest.mark.parametrize("device", ["laptop", "phone"])
def test_egoargus_about_marks_what_its_authors_must_fill_in(
    argus_server: AppServer,  # noqa: F811
    browser: Browser,  # noqa: F811
    device: str,
) -> None:
    visit = _open(
        browser, argus_server.url, LAPTOP if device == "laptop" else PHONE, False, _top_row(ARGUS)
    )
    try:
        _about(visit)
        about = visit.page.locator("#about-text")
        marked = about.locator("blockquote", has_text=AUTHORS)
        expect(marked.first).to_be_visible()
        assert marked.count() >= 3, marked.all_inner_texts()
        said = "\n".join(marked.all_inner_texts())
        for placeholder in (ARGUS.bench.contact_email, "paper, project page and code", "licence"):
            assert placeholder in said, placeholder
        # The placeholder address is said only where it is marked as one.
        text = about.inner_text()
        assert text.count(ARGUS.bench.contact_email) == said.count(ARGUS.bench.contact_email)
        found = [word for word in INTERNAL if word in text]
        assert not found, f"About carries what a visitor has no use for: {found}"
        visit.shot(f"egoargus-about-authors{'' if device == 'laptop' else '-phone'}.png")
        assert not visit.errors, visit.errors
    finally:
        visit.context.close()


@pytest.fixture(scope="module")
def short_about(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    """EgoMemReason's folder with a one-line About and a two-line citation, as a new
    benchmark's scaffold starts."""
    folder = tmp_path_factory.mktemp("short-about") / "bench"
    shutil.copytree(EGOMEM.bench.folder, folder)
    (folder / "about.md").write_text("## About\n\nA short page.\n", encoding="utf-8")
    (folder / "citation.bib").write_text("@misc{x,\n  title = {X}\n}\n", encoding="utf-8")
    with AppServer(env={"LEADERBOARD_BENCHMARK": str(folder)}) as app:
        yield app


@pytest.mark.server
@pytest.mark.browser
@pytest.mark.parametrize("device", ["laptop", "phone"])
def test_about_is_as_wide_as_the_other_tabs_and_its_tables_draw_one_frame(
    short_about: AppServer,
    argus_server: AppServer,  # noqa: F811
    browser: Browser,  # noqa: F811
    device: str,
) -> None:
    viewport = LAPTOP if device == "laptop" else PHONE
    visit = _open(browser, short_about.url, viewport, False, _top_row(EGOMEM))
    try:
        board = visit.page.evaluate(BOX_JS, "#board-status")
        _about(visit)
        about = visit.page.evaluate(BOX_JS, "#about-text")
        assert about == board, f"About {about} is not as wide as the board {board}"
        visit.shot(f"short-about{'' if device == 'laptop' else '-phone'}.png")
    finally:
        visit.context.close()
    visit = _open(browser, argus_server.url, viewport, False, _top_row(ARGUS))
    try:
        _about(visit)
        expect(visit.page.locator("#about-text table").first).to_be_visible(timeout=TIMEOUT_MS)
        frames = visit.page.evaluate(
            "() => [...document.querySelectorAll('#about-text table')].map(t => "
            "[getComputedStyle(t).borderTopWidth, t.getBoundingClientRect().width, "
            "t.querySelector('tr').getBoundingClientRect().width])"
        )
        assert frames
        for border, table, row in frames:
            assert border == "0px" and table <= row + 1, (border, table, row)
    finally:
        visit.context.close()
