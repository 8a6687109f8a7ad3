"""A row's card in Debian Chromium against ``python app.py`` (issue 31): a paper row's card
gives the 95 % intervals its board row shows (item 8: the board showed one, the card "—"), and
on a phone a card's values stay on one line each (item 13: "44.6 / %"), in a table without a
frame.

The servers, the browser and ``_open`` are tests/app/test_browser.py's; expected values come from
the demo records and the evaluator, never from the app.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

import evaluator
from tests.app.test_browser import (  # noqa: F401  (the fixtures are used by name)
    ARGUS,
    DESKTOP,
    EGOMEM,
    PHONE,
    SCREENSHOTS,
    TIMEOUT_MS,
    _decision_records,
    _open,
    argus_server,
    browser,
    server,
)
from tests.support.app_server import AppServer

# The card's Scores table as {metric name: [value, count, interval]}.
SCORES_JS = """() => Object.fromEntries([...document.querySelectorAll(
    '#entry-card table.card-scores tbody tr')].map(tr => [tr.querySelector('th').innerText.trim(),
    [...tr.querySelectorAll('td')].map(td => td.innerText.trim())]))"""

# Each value, count and interval cell of the card's Scores table: its text and how many lines
# it takes.
LINES_JS = """() => [...document.querySelectorAll('#entry-card table.card-scores td')].map(td => {
    const height = parseFloat(getComputedStyle(td).lineHeight) || 16;
    const range = document.createRange();
    range.selectNodeContents(td);
    const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
    return [td.innerText.trim(), lines.size, td.getBoundingClientRect().height / height];
})"""


def _paper_row() -> dict[str, object]:
    return next(
        r for r in EGOMEM.records if r["source"] == "paper" and r["method_name"] != "Random"
    )


@pytest.mark.server
@pytest.mark.browser
@pytest.mark.parametrize("device", ["laptop", "phone"])
def test_a_paper_row_s_card_gives_the_intervals_its_board_row_shows(
    server: AppServer,  # noqa: F811
    browser: Browser,  # noqa: F811
    device: str,
) -> None:
    paper = _paper_row()
    visit = _open(
        browser,
        f"{server.url}/?entry={paper['id']}",
        DESKTOP if device == "laptop" else PHONE,
        chart=False,
    )
    try:
        card = visit.page.locator("#entry-card")
        expect(card).to_contain_text(str(paper["method_name"]), timeout=TIMEOUT_MS)
        scores = visit.page.evaluate(SCORES_JS)
        track = EGOMEM.track
        metrics = paper["metrics"]
        assert isinstance(metrics, dict)
        for key, size in track.sizes.items():
            if key not in metrics or key in track.macro_keys:
                continue
            low, high = evaluator.wilson_interval(round(metrics[key] * size / 100), size)
            shown = scores[track.names[key]][2]
            assert shown == f"{low:.1f}–{high:.1f}", (key, shown)
        # One rule between rows and no frame: no border round the table or its rows (Gradio's
        # prose style gives each row one of its own, which drew a frame round the table).
        frames = visit.page.evaluate(
            "() => [...document.querySelectorAll('#entry-card table.card-scores, "
            "#entry-card table.card-scores tr')].map(e => getComputedStyle(e).borderLeftWidth)"
        )
        assert set(frames) == {"0px"}, frames
        _one_line_each_and_whole(visit.page)
        visit.shot(f"egomemreason-paper-card{'' if device == 'laptop' else '-phone'}.png")
        assert not visit.errors, visit.errors
    finally:
        visit.context.close()


def _one_line_each_and_whole(page: Page) -> None:
    """Each value, count and interval of the card's Scores on one line, and the table within
    the card (no column behind a sideways scroll)."""
    lines = page.evaluate(LINES_JS)
    wrapped = [text for text, count, _ in lines if count > 1]
    assert not wrapped, f"card values broken over lines: {wrapped}"
    table = page.locator("#entry-card table.card-scores")
    scroll, client = table.evaluate("t => [t.scrollWidth, t.clientWidth]")
    assert scroll <= client + 1, f"the Scores table is cut: {scroll} px in {client} px"


@pytest.mark.server
@pytest.mark.browser
@pytest.mark.parametrize("bench_id", ["egomemreason", "egoargus", "egoargus-decision"])
def test_a_re_scored_row_s_card_fits_a_phone_its_values_on_one_line(
    request: pytest.FixtureRequest,
    browser: Browser,  # noqa: F811
    bench_id: str,
) -> None:
    """Counts of four digits (EgoArgus' 6,978 questions) too; and a decision card's long
    metric names ("400 of 473" broke over three lines beside them)."""
    demo, fixture = (EGOMEM, "server") if bench_id == "egomemreason" else (ARGUS, "argus_server")
    rows = _decision_records() if bench_id.endswith("decision") else demo.records
    row = next(r for r in rows if r["source"] == "rescored")
    url = request.getfixturevalue(fixture).url
    visit = _open(browser, f"{url}/?entry={row['id']}", PHONE, chart=False, row=None)
    try:
        expect(visit.page.locator("#entry-card")).to_contain_text(
            str(row["method_name"]), timeout=TIMEOUT_MS
        )
        _one_line_each_and_whole(visit.page)
        visit.shot(f"{bench_id}-rescored-card-phone.png")
    finally:
        visit.context.close()
