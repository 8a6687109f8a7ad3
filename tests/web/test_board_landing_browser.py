"""A fresh page shows what its address names (issue 31): its track, chart included (item 1: 15
of 24 fresh loads of ``?track=decision`` showed the Understanding chart under the Decision
picks, and kept it), and what the address asked and the board lacks, with a search too (item
6).

In Debian Chromium against ``python app.py`` serving EgoArgus (two tracks): twenty fresh loads
of ``?track=decision``, half on a laptop and half on a phone. Every chart the page draws under
the board, from the first to the last, must be the Decision track's. A chart says what it is to
a screen reader (its Vega description, the ``aria-label`` of its container); the page records
each one it is given from before its first script, so a wrong chart shown for a moment counts
too. The expected names come from the demo records, never from the app. The server, the browser
and ``_open`` are tests/app/test_browser.py's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
from playwright.sync_api import Browser, expect

from tests.app.test_browser import (  # noqa: F401  (the browser fixture is used by name)
    ARGUS,
    BOARD_LOADED,
    PHONE,
    SCREENSHOTS,
    TIMEOUT_MS,
    browser,
)
from tests.support.app_server import ROOT, AppServer
from tests.support.procs import ONE_CLIENT

LAPTOP = {"width": 1280, "height": 800}
LOADS = 20
#: How long the chart must stay as it is before a load counts as settled (the wrong chart came
#: about 0.1 s after the right one).
STEADY_MS = 1500

#: Resolves once the status line has changed from ``before`` and its event has answered (no
#: timer or "processing" written over it by Gradio while the event runs).
ANSWERED_JS = """(before) => {
    const text = document.querySelector('#board-status').innerText;
    return text !== before && !/^\\s*(processing|[\\d.]+(\\/[\\d.]+)?s\\b)/.test(text);
}"""

# Every description the side-by-side chart is given, in order, from the page's start.
RECORD_CHARTS_JS = """(() => {
    window.__charts = [];
    new MutationObserver(() => {
        const shown = document.querySelector('#board-chart [data-testid=altair] [aria-label]');
        const said = shown?.getAttribute('aria-label');
        if (said && said !== window.__charts.at(-1)) window.__charts.push(said);
    }).observe(document, {subtree: true, childList: true, attributes: true,
                          attributeFilter: ['aria-label']});
})();"""

# Resolves with the charts seen once none has come for ``steady`` ms after the first.
SETTLED_CHARTS_JS = """(steady) => new Promise(resolve => {
    let count = -1, since = 0;
    const tick = () => {
        const now = window.__charts.length;
        if (now !== count) { count = now; since = Date.now(); }
        if (now > 0 && Date.now() - since >= steady) resolve(window.__charts);
        else setTimeout(tick, 50);
    };
    tick();
})"""


def _names(track: str) -> set[str]:
    """The method names of a track's demo records."""
    folder = ARGUS.bench.demo_board / "submissions"
    records = [json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("*.json")]
    return {str(r["method_name"]) for r in records if r.get("track") == track}


@pytest.fixture(scope="module")
def argus_server() -> Iterator[AppServer]:
    with AppServer(env={"LEADERBOARD_BENCHMARK": "egoargus", **ONE_CLIENT}) as app:
        yield app


@pytest.mark.server
@pytest.mark.browser
def test_twenty_fresh_loads_of_track_decision_each_show_the_decision_chart(
    argus_server: AppServer,
    browser: Browser,  # noqa: F811
) -> None:
    decision_only = _names("decision") - _names("understanding")
    assert decision_only, "the demo board should have a Decision row the other track lacks"
    wrong: list[str] = []
    for load in range(LOADS):
        viewport = LAPTOP if load % 2 == 0 else PHONE
        context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
        context.set_default_timeout(TIMEOUT_MS)
        try:
            page = context.new_page()
            page.add_init_script(RECORD_CHARTS_JS)
            page.goto(f"{argus_server.url}/?track=decision")
            charts = page.evaluate(SETTLED_CHARTS_JS, STEADY_MS)
        finally:
            context.close()
        # The Decision chart, and only it: it names a row of that track alone.
        off = [c for c in charts if not any(name in c for name in decision_only)]
        if off:
            wrong.append(f"load {load + 1} ({viewport['width']} px): {off} of {charts}")
    assert not wrong, f"{len(wrong)} of {LOADS} loads showed another chart:\n" + "\n".join(wrong)


# What the lines above the board say (the status line, the notes about the address), each time
# it changes, from the page's start (the landing's, then any rendering that follows it).
ABOVE_JS = (
    "() => ['#board-status', '#board-address'].map(s => "
    "document.querySelector(s)?.innerText.trim() ?? '').join(' | ')"
)
RECORD_NOTES_JS = f"""(() => {{
    window.__notes = [];
    new MutationObserver(() => {{
        const said = ({ABOVE_JS})();
        if (said !== (window.__notes.at(-1) ?? '')) window.__notes.push(said);
    }}).observe(document, {{subtree: true, childList: true, characterData: true}});
}})();"""

# Resolves once the table has not changed for ``steady`` ms (the search's own rendering after
# the landing's included).
SETTLED_TABLE_JS = """(steady) => new Promise(resolve => {
    let last = null, since = Date.now();
    const tick = () => {
        const now = document.querySelector('#board-table')?.innerHTML ?? '';
        if (now !== last) { last = now; since = Date.now(); }
        if (now && Date.now() - since >= steady) resolve(true); else setTimeout(tick, 50);
    };
    tick();
})"""


@pytest.mark.server
@pytest.mark.browser
@pytest.mark.parametrize("search", ["", "qwen"])
def test_what_the_address_asked_and_the_board_lacks_stays_said(
    argus_server: AppServer,
    browser: Browser,  # noqa: F811
    search: str,
) -> None:
    """Issue 31, item 6: any ?q= hid the notes about ignored parameters (the search's own
    rendering after the landing wrote the status line again, without them)."""
    query = urlencode({"track": "bogus", "q": search, "cols": "nope", "size": "huge"})
    context = browser.new_context(viewport=LAPTOP)  # type: ignore[arg-type]
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.add_init_script(RECORD_NOTES_JS)
        page.goto(f"{argus_server.url}/?{query}")
        expect(page.locator("#board-status")).to_contain_text(BOARD_LOADED, timeout=TIMEOUT_MS)
        page.evaluate(SETTLED_TABLE_JS, STEADY_MS)
        above = page.evaluate(ABOVE_JS)
        assert all(said in above for said in ("'bogus'", "'nope'", "'huge'")), above
        seen = page.evaluate("window.__notes")
        first = next(i for i, n in enumerate(seen) if "'bogus'" in n)
        assert all("'bogus'" in n for n in seen[first:]), f"the notes went away: {seen}"
        if search:
            search_box = page.locator("#board-search textarea, #board-search input").first
            expect(search_box).to_have_value(search)
    finally:
        context.close()


def _readme_example() -> str:
    """The example address of the README's paragraph on the view in the address."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"\(the open card\), e\.g\.\s+`(\?[^`]+)`", readme)
    assert found, "the README's example address is gone"
    return found.group(1)


@pytest.mark.server
@pytest.mark.browser
def test_the_readme_s_example_address_shows_rows_on_the_demo(
    argus_server: AppServer,
    browser: Browser,  # noqa: F811
) -> None:
    """Issue 31, item 7: the README's example address showed an empty table on the demo data
    (its paper rows carry none of the Timing view's columns). The address it writes back is the
    example itself: every value one the board has."""
    example = _readme_example()
    context = browser.new_context(viewport=LAPTOP)  # type: ignore[arg-type]
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(f"{argus_server.url}/{example}")
        expect(page.locator("#board-status")).to_contain_text(BOARD_LOADED, timeout=TIMEOUT_MS)
        page.evaluate(SETTLED_TABLE_JS, STEADY_MS)
        rows = page.locator("#board-table tbody tr[data-entry]")
        assert rows.count() >= 2, page.locator("#board-table").inner_text()
        expect(page.locator("#board-address")).to_be_hidden()
        assert parse_qs(urlparse(page.url).query) == parse_qs(example[1:])
        page.screenshot(path=str(SCREENSHOTS / "egoargus-readme-example-address.png"))
    finally:
        context.close()


@pytest.mark.server
@pytest.mark.browser
def test_the_decision_board_s_json_download_names_each_rank_s_series(
    argus_server: AppServer,
    browser: Browser,  # noqa: F811
) -> None:
    """Issue 31, item 9: the decision board ranks its entries by Macro F1 and its paper rows
    apart, by the paper's F1; Download JSON (and /leaderboard_decision, tests/web/test_tracks.py)
    gave both as ``rank`` with no field naming them."""
    decision = ARGUS.bench.track("decision")
    views = {"Decision": decision.ranking, "Paper (Table 2)": decision.paper_ranking}
    context = browser.new_context(viewport=LAPTOP, accept_downloads=True)  # type: ignore[arg-type]
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        for view, ranked_by in views.items():
            page.goto(f"{argus_server.url}/?{urlencode({'track': 'decision', 'cols': view})}")
            status = page.locator("#board-status")
            expect(status).to_contain_text(BOARD_LOADED, timeout=TIMEOUT_MS)
            page.evaluate(SETTLED_TABLE_JS, STEADY_MS)
            with page.expect_download() as info:
                page.locator("#download-json").click()
            rows = json.loads(Path(info.value.path()).read_text(encoding="utf-8"))
            ranked = [r for r in rows if r["rank"] is not None]
            assert ranked and {r["ranked_by"] for r in ranked} == {ranked_by}, (view, rows)
            assert all(r["ranked_by"] is None for r in rows if r["reference"]), view
    finally:
        context.close()


@pytest.mark.server
@pytest.mark.browser
def test_a_refresh_within_five_seconds_says_it_showed_the_last_read(
    argus_server: AppServer,
    browser: Browser,  # noqa: F811
) -> None:
    """Issue 31, item 13: a Refresh within 5 s of the last read showed the age going up with no
    word that the records were not read again (ledger.BoardCache.reread reads once per 5 s)."""
    context = browser.new_context(viewport=LAPTOP)  # type: ignore[arg-type]
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(argus_server.url)
        status = page.locator("#board-status")
        expect(status).to_contain_text(BOARD_LOADED, timeout=TIMEOUT_MS)
        # A click while the last one's event runs is dropped (a button's trigger_mode "once"):
        # the second waits for the first's answer (under load it was dropped, and the status
        # said the first read's).
        before = status.inner_text()
        page.locator("#board-refresh").click()
        page.wait_for_function(ANSWERED_JS, arg=before)
        page.locator("#board-refresh").click()
        expect(status).to_contain_text(
            "read again at most once every 5 s: try again in", timeout=TIMEOUT_MS
        )
        expect(status).to_contain_text("entries")  # the board still shown
    finally:
        context.close()
