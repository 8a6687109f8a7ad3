"""A short-answer benchmark in a real browser (issue 29): the release scaffolded with its flags
alone, its authors' row published on a local board, ``python app.py`` serving them with the real
key, and Chromium reading the page as a visitor does. The board shows the row with the
reference's numbers at one decimal, its disciplines and subjects as columns; Score takes the
outputs as published and shows the reference's Overall; About says the rules the spec
declares. Screenshots: ``test-output/screenshots/shortbench-<tab>.png``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.app.test_browser import CHROMIUM, CHROMIUM_ARGS, DESKTOP, SCREENSHOTS, TIMEOUT_MS
from tests.support.app_server import AppServer
from tests.support.short_answers import (
    DISCIPLINES,
    ShortRelease,
    reference_numbers,
    served_board,
)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[AppServer, ShortRelease]]:
    root = tmp_path_factory.mktemp("shortbench")
    release, env = served_board(root)
    with AppServer(env=env) as server:
        yield server, release


@pytest.mark.server
@pytest.mark.browser
def test_a_visitor_reads_the_board_scores_the_outputs_and_reads_the_rules(
    served: tuple[AppServer, ShortRelease],
) -> None:
    server, release = served
    numbers = reference_numbers(release)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(viewport=DESKTOP).new_page()  # type: ignore[arg-type]
            page.set_default_timeout(TIMEOUT_MS)
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(server.url)
            table = page.locator("#board-table")
            expect(table).to_contain_text("Their model")
            for label in DISCIPLINES:
                expect(table.locator("thead")).to_contain_text(label)
            expect(table).to_contain_text(f"{numbers['overall']:.1f}")
            page.screenshot(path=str(SCREENSHOTS / "shortbench-leaderboard.png"), full_page=True)

            page.get_by_role("tab", name="Score", exact=True).click()
            page.locator("#score-upload input[type=file]").set_input_files(str(release.outputs))
            expect(page.locator("#score-summary")).to_contain_text(
                f"Overall: {numbers['overall']:.1f} %"
            )
            page.screenshot(path=str(SCREENSHOTS / "shortbench-score.png"), full_page=True)

            page.get_by_role("tab", name="About", exact=True).click()
            about = page.locator("#about-text")
            expect(about).to_contain_text("How Main scores a response")
            expect(about).to_contain_text("the response must be exactly the answer")
            expect(about).to_contain_text('"could be "')
            page.screenshot(path=str(SCREENSHOTS / "shortbench-about.png"), full_page=True)
            assert errors == []
        finally:
            browser.close()
