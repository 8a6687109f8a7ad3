"""What the Score tab says, in Debian Chromium against ``python app.py`` (issue 31, items 4 and
5): a file whose answers are all or mostly empty is told so, not sent to another key version;
and when the board's records cannot be read, Score does not guess where the file would rank.

The servers, the browser and ``_open`` are tests/app/test_browser.py's; expected numbers come
from the evaluator, never from the app.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.app.test_browser import (  # noqa: F401  (the fixtures are used by name)
    EGOMEM,
    PHONE,
    SCREENSHOTS,
    TIMEOUT_MS,
    Visit,
    _open,
    _top_row,
    browser,
    server,
)
from tests.support.app_server import AppServer, free_port

LAPTOP = {"width": 1280, "height": 800}


def _score(visit: Visit, path: Path) -> None:
    visit.tab("Score")
    chooser = visit.page.locator("#score-upload input[type=file]")
    chooser.set_input_files(str(path))


def _emptied(tmp_path: Path, share: float) -> Path:
    """The demo sample with its first ``share`` of answers null."""
    entries = json.loads(EGOMEM.sample.read_text(encoding="utf-8"))
    cut = round(share * len(entries))
    path = tmp_path / f"empty-{int(share * 100)}.json"
    path.write_text(
        json.dumps(
            [{**e, "predicted_answer": None} if i < cut else e for i, e in enumerate(entries)]
        ),
        encoding="utf-8",
    )
    return path


@pytest.mark.server
@pytest.mark.browser
@pytest.mark.parametrize("share", [1.0, 0.8])
def test_a_file_of_empty_answers_is_told_they_are_empty(
    server: AppServer,  # noqa: F811
    browser: Browser,  # noqa: F811
    tmp_path: Path,
    share: float,
) -> None:
    visit = _open(browser, server.url, PHONE if share < 1 else LAPTOP, False, _top_row(EGOMEM))
    try:
        _score(visit, _emptied(tmp_path, share))
        summary = visit.page.locator("#score-summary")
        expect(summary).to_contain_text("Warning: below chance", timeout=TIMEOUT_MS)
        said = summary.inner_text()
        empty = "All 500 answers are empty" if share == 1 else "of the 500 answers are empty"
        assert empty in said and "an empty answer scores as wrong" in said, said
        assert "key version demo-1." not in said and "--remap-submission" not in said, said
        rank = visit.page.locator("#score-rank").inner_text()
        assert "another key version" not in rank and "the warning above" in rank, rank
        visit.shot(f"egomemreason-score-empty-answers{'' if share == 1 else '-phone'}.png")
        assert not visit.errors, visit.errors
    finally:
        visit.context.close()


@pytest.fixture(scope="module")
def unread_board() -> Iterator[AppServer]:
    """A local key and a board on a Hub that is not there: the board's records cannot be read."""
    key = EGOMEM.bench.demo_key(EGOMEM.track)
    env = {"LEADERBOARD_ANSWER_KEY": str(key), "HF_ENDPOINT": f"http://127.0.0.1:{free_port()}"}
    with AppServer(env=env) as app:
        yield app


@pytest.mark.server
@pytest.mark.browser
def test_score_does_not_guess_a_rank_on_a_board_it_could_not_read(
    unread_board: AppServer,
    browser: Browser,  # noqa: F811
) -> None:
    context = browser.new_context(viewport=LAPTOP)  # type: ignore[arg-type]
    context.set_default_timeout(TIMEOUT_MS)
    visit = Visit(context.new_page(), context)
    try:
        visit.page.goto(unread_board.url)
        expect(visit.page.locator("#board-status")).to_contain_text("could not be read")
        _score(visit, EGOMEM.sample)
        expect(visit.page.locator("#score-summary")).to_contain_text("Overall:", timeout=TIMEOUT_MS)
        rank = visit.page.locator("#score-rank")
        expect(rank).to_contain_text("is not known now", timeout=TIMEOUT_MS)
        expect(rank).to_contain_text("the board's records could not be read")
        expect(rank).not_to_contain_text("first entry")
        visit.shot("egomemreason-score-board-unread.png")
    finally:
        visit.context.close()
