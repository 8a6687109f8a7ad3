"""The Space in a real browser: Debian Chromium driven by Playwright against ``python app.py``.

One demo-mode server and one Chromium serve the whole module. Tests that change what the page
shows open their own page (a fresh context); read-only checks share one desktop page and one
phone page. Expected values come from the demo files and the evaluator, never from the app.
Screenshots land in test-output/screenshots/ for a human to look at. Chromium is required:
without /usr/bin/chromium these tests fail (``make test``, run as root, installs it); they
never skip, so CI always runs them.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    expect,
    sync_playwright,
)

import evaluator
import ledger
from tests.app_server import ROOT, AppServer

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    # Keep the page off the internet: every host but the app's loopback address is unknown.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
SCREENSHOTS = ROOT / "test-output" / "screenshots"
TIMEOUT_MS = 30_000
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
SUBMISSIONS = ROOT / "demo" / "leaderboard" / "submissions"
SAMPLE = ROOT / "demo" / "sample_submission.json"
PAPER_ROW = "Gemini-3-Flash"


# --- what the page should show, from the demo files --------------------------------------------


def _demo_records() -> list[dict[str, object]]:
    records = [json.loads(p.read_text(encoding="utf-8")) for p in SUBMISSIONS.glob("*.json")]
    hidden = {r["supersedes"] for r in records if r.get("supersedes")}
    return [r for r in records if r["id"] not in hidden]


RECORDS = _demo_records()
ALL_NAMES = sorted(str(r["method_name"]) for r in RECORDS)
RESCORED_NAMES = sorted(str(r["method_name"]) for r in RECORDS if r["source"] == "rescored")


def _demo_key() -> evaluator.AnswerKey:
    return evaluator.load_answer_key(ledger.DEMO_KEY.read_bytes())


def test_demo_board_has_what_these_tests_look_for() -> None:
    """Guards the expectations below: they are only meaningful if the demo board has them."""
    assert PAPER_ROW in ALL_NAMES
    assert RESCORED_NAMES, "the demo board should carry re-scored rows"
    assert any("qwen" in n.lower() for n in ALL_NAMES)


# --- the server, the browser and a page --------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[AppServer]:
    with AppServer() as app:  # no EGOMEM_* or HF_TOKEN: demo key and demo board
        yield app


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make test` as root (it installs Debian's "
                    "chromium), or `apt-get install -y chromium`. The browser tests must run, "
                    "not skip.")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@dataclass
class Visit:
    """One page on the app, with what its console said."""

    page: Page
    context: BrowserContext
    errors: list[str] = field(default_factory=list)  # JS errors of the app itself
    external: list[str] = field(default_factory=list)  # failed loads of outside resources

    def tab(self, name: str) -> None:
        self.page.get_by_role("tab", name=name, exact=True).click()

    def board_text(self) -> str:
        return self.page.locator("#board-table").inner_text()

    def grid(self, elem_id: str) -> tuple[list[str], list[list[str]]]:
        """A gr.Dataframe's header names and the text of its rendered cells, row by row."""
        headers, rows = self.page.evaluate(GRID_JS, elem_id)
        return headers, rows

    def shot(self, name: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SCREENSHOTS / name), full_page=True)

    def overflow(self) -> tuple[int, int]:
        """The page's scrollWidth and clientWidth: a page that scrolls sideways has more."""
        widths = self.page.evaluate("[document.documentElement.scrollWidth, "
                                    "document.documentElement.clientWidth]")
        return int(widths[0]), int(widths[1])


# Gradio's Dataframe is a grid of divs, not <tr>: headers carry their name in title.
GRID_JS = """(id) => {
    const root = document.getElementById(id);
    const headers = [...root.querySelectorAll('[role=columnheader]')]
        .map(h => h.getAttribute('title') ?? h.innerText.trim());
    const rows = {};
    for (const cell of root.querySelectorAll('[role=gridcell]')) {
        (rows[cell.dataset.row] ??= [])[Number(cell.dataset.col)] = cell.innerText.trim();
    }
    return [headers, Object.keys(rows).sort((a, b) => a - b).map(k => rows[k])];
}"""


def _is_external_load_failure(message: ConsoleMessage) -> bool:
    host = urlparse(message.location.get("url", "")).hostname
    return "Failed to load resource" in message.text and host not in (None, "127.0.0.1")


def _open(browser: Browser, url: str, viewport: dict[str, int], chart: bool) -> Visit:
    """Open the app in a fresh context; wait for the board (and, if asked, its chart)."""
    context = browser.new_context(viewport=viewport, accept_downloads=True)  # type: ignore[arg-type]
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    visit = Visit(page, context)

    def on_console(message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        text = f"{message.text} ({message.location.get('url', '')})"
        (visit.external if _is_external_load_failure(message) else visit.errors).append(text)

    page.on("console", on_console)
    page.on("pageerror", lambda exc: visit.errors.append(f"uncaught: {exc}"))
    page.goto(url)
    expect(page.locator("#board-status")).to_contain_text("entries", timeout=TIMEOUT_MS)
    expect(page.locator("#board-table")).to_contain_text(PAPER_ROW, timeout=TIMEOUT_MS)
    if chart:
        page.wait_for_selector("#board-chart [data-testid=altair] canvas", timeout=TIMEOUT_MS)
    return visit


@pytest.fixture
def open_page(server: AppServer, browser: Browser) -> Iterator[Callable[..., Visit]]:
    """A fresh page per call, for tests that change what the page shows."""
    visits: list[Visit] = []

    def open_(viewport: dict[str, int] = DESKTOP, chart: bool = False) -> Visit:
        visits.append(_open(browser, server.url, viewport, chart))
        return visits[-1]

    yield open_
    for visit in visits:
        visit.context.close()


@pytest.fixture(scope="module")
def board(server: AppServer, browser: Browser) -> Iterator[Visit]:
    """The board as first shown on a desktop, shared by tests that only read it."""
    visit = _open(browser, server.url, DESKTOP, chart=True)
    yield visit
    visit.context.close()


@pytest.fixture(scope="module")
def phone(server: AppServer, browser: Browser) -> Iterator[Visit]:
    """The page on a phone, shared by the phone tests (each selects the tab it looks at)."""
    visit = _open(browser, server.url, PHONE, chart=True)
    yield visit
    visit.context.close()


def _wait_for_board(visit: Visit, shown: list[str], gone: list[str]) -> None:
    """Wait until every name of ``shown`` is in the table and none of ``gone``."""
    visit.page.wait_for_function(
        """([shown, gone]) => {
            const text = document.querySelector('#board-table')?.innerText ?? '';
            return shown.every(n => text.includes(n)) && !gone.some(n => text.includes(n));
        }""",
        arg=[shown, gone],
        timeout=TIMEOUT_MS,
    )


# --- Leaderboard --------------------------------------------------------------------------------


def test_page_loads_with_title_banner_status_and_board(board: Visit) -> None:
    page = board.page
    assert page.title() == "EgoMemReason Leaderboard"
    expect(page.locator("#title h1")).to_have_text("EgoMemReason Leaderboard")
    expect(page.locator("#demo-banner")).to_be_visible()
    expect(page.locator("#demo-banner")).to_contain_text("Demo mode")
    status = page.locator("#board-status").inner_text().strip()
    match = re.fullmatch(r"(\d+) entries · updated \d+ (s|min|h) ago", status)
    assert match, f"unexpected status line: {status!r}"
    assert int(match.group(1)) == len(RECORDS)
    assert PAPER_ROW in board.board_text()
    box = page.locator("#board-chart [data-testid=altair] canvas").first.bounding_box()
    assert box is not None and box["width"] > 200 and box["height"] > 100
    board.shot("leaderboard.png")
    assert not board.errors, f"JS errors on load: {board.errors}"
    if board.external:
        print("failed loads of external resources (ignored):", *board.external, sep="\n  ")


def test_board_shows_rescored_rows_by_their_names(board: Visit) -> None:
    text = board.board_text()
    missing = [name for name in RESCORED_NAMES if name not in text]
    assert not missing, f"re-scored rows not shown by name: {missing}"
    assert "](" not in text and "\\(" not in text, "raw Markdown in the table"
    headers, rows = board.grid("board-table")
    assert len(rows) == len(RECORDS)
    overall = [float(row[headers.index("Overall")]) for row in rows]
    assert overall == sorted(overall, reverse=True), "the board is not best Overall first"


def test_board_metrics_are_shown_to_one_decimal(board: Visit) -> None:
    headers, rows = board.grid("board-table")
    metrics = [i for i, h in enumerate(headers) if h in ("Overall", "Entity", "Event", "Behavior")]
    assert len(metrics) == 4, headers
    shown = [row[i] for row in rows for i in metrics]
    assert all(re.fullmatch(r"\d+\.\d", cell) for cell in shown), shown


def test_search_filters_the_board(open_page: Callable[..., Visit]) -> None:
    visit = open_page()
    qwen = [n for n in ALL_NAMES if "qwen" in n.lower()]
    search = visit.page.locator("#board-search textarea, #board-search input").first
    search.fill("qwen")
    _wait_for_board(visit, shown=qwen, gone=[PAPER_ROW])
    search.fill("")
    _wait_for_board(visit, shown=[*qwen, PAPER_ROW], gone=[])


def test_column_group_query_types_shows_query_type_columns(
    open_page: Callable[..., Visit],
) -> None:
    visit = open_page()
    table = visit.page.locator("#board-table")
    expect(table).to_contain_text("Entity")
    expect(table).not_to_contain_text("Tracking")
    visit.page.locator("#column-group label", has_text="Query types").click()
    expect(table).to_contain_text("Tracking", timeout=TIMEOUT_MS)
    for header in ("Counting", "Ordering", "Linking", "Spatial", "Activity"):
        expect(table).to_contain_text(header)
    expect(table).not_to_contain_text("Behavior")  # a memory-type column: not in this group
    expect(table).to_contain_text(PAPER_ROW)


def test_download_csv_is_the_current_view(open_page: Callable[..., Visit]) -> None:
    visit = open_page()
    page = visit.page

    def download() -> list[dict[str, str]]:
        with page.expect_download(timeout=TIMEOUT_MS) as info:
            page.locator("#download-csv").click()
        download = info.value
        assert download.suggested_filename.endswith(".csv")
        return list(csv.DictReader(io.StringIO(Path(download.path()).read_text("utf-8"))))

    rows = download()
    assert rows and "method_name" in rows[0]
    assert sorted(r["method_name"] for r in rows) == ALL_NAMES
    for name in RESCORED_NAMES:
        assert name in {r["method_name"] for r in rows}
    assert [int(r["rank"]) for r in rows] == sorted(int(r["rank"]) for r in rows)

    qwen = [n for n in ALL_NAMES if "qwen" in n.lower()]
    page.locator("#board-search textarea, #board-search input").first.fill("qwen")
    _wait_for_board(visit, shown=qwen, gone=[PAPER_ROW])
    assert sorted(r["method_name"] for r in download()) == qwen


def test_phone_has_no_horizontal_overflow(phone: Visit) -> None:
    phone.tab("Leaderboard")
    table = phone.page.locator("#board-table")
    expect(table).to_be_visible()
    box = table.bounding_box()
    assert box is not None and box["width"] > 200
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 1, box
    scroll, client = phone.overflow()
    assert scroll <= client + 1, f"the page scrolls sideways: scrollWidth {scroll} > {client}"
    phone.shot("leaderboard-phone.png")
    assert not phone.errors, f"JS errors on load: {phone.errors}"


def test_phone_shows_overall_without_scrolling_the_table(phone: Visit) -> None:
    phone.tab("Leaderboard")
    header = phone.page.locator("#board-table [role=columnheader][title=Overall]")
    box = header.bounding_box()
    assert box is not None and box["x"] + box["width"] <= PHONE["width"], box


def test_phone_board_chart_fits_the_screen(phone: Visit) -> None:
    phone.tab("Leaderboard")
    box = phone.page.locator("#board-chart [data-testid=altair] canvas").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box


def test_phone_about_has_no_horizontal_overflow(phone: Visit) -> None:
    phone.tab("About")
    expect(phone.page.locator("#citation")).to_be_visible()
    scroll, client = phone.overflow()
    assert scroll <= client + 1, f"the page scrolls sideways: scrollWidth {scroll} > {client}"


# --- Score --------------------------------------------------------------------------------------


def _upload(visit: Visit, path: Path) -> None:
    visit.tab("Score")
    visit.page.locator("#score-upload input[type=file]").set_input_files(str(path))


def test_score_tab_scores_the_sample_submission(open_page: Callable[..., Visit]) -> None:
    result = evaluator.score(_demo_key(), SAMPLE.read_bytes())
    visit = open_page()
    _upload(visit, SAMPLE)
    page = visit.page
    summary = page.locator("#score-summary")
    expect(summary).to_contain_text(f"Overall: {result.metrics['overall']:.1f} %",
                                    timeout=TIMEOUT_MS)
    overall = result.counts["overall"]
    expect(summary).to_contain_text(f"{overall.correct} of {overall.total} correct")
    table = page.locator("#score-table")
    for name in evaluator.QUERY_TYPES:
        expect(table).to_contain_text(name)
    for key in evaluator.QUERY_TYPE_KEYS:
        count = result.counts[key]
        expect(table).to_contain_text(f"{result.metrics[key]:.1f}".removesuffix(".0"))
        expect(table).to_contain_text(str(count.total))
    page.wait_for_selector("#score-chart [data-testid=altair] canvas", timeout=TIMEOUT_MS)
    visit.shot("score.png")
    assert not visit.errors, f"JS errors: {visit.errors}"


def test_score_tab_shows_the_evaluators_error(open_page: Callable[..., Visit],
                                             tmp_path: Path) -> None:
    bad = tmp_path / "results.json"
    bad.write_text('{"results": []}', encoding="utf-8")
    with pytest.raises(evaluator.SubmissionError) as refused:
        evaluator.score(_demo_key(), bad.read_bytes())
    visit = open_page()
    _upload(visit, bad)
    page = visit.page
    toast = page.locator("[data-testid='toast-body']")
    expect(toast).to_be_visible(timeout=TIMEOUT_MS)
    expect(toast).to_have_css("opacity", "1")  # faded in: for the screenshot
    expect(toast).to_contain_text("results")
    message = " ".join(toast.inner_text().split())
    assert " ".join(str(refused.value).split()) in message
    body = page.locator("body").inner_text()
    for trace in ("Traceback", 'File "', "SubmissionError", "evaluator.py"):
        assert trace not in body, f"{trace!r} shown to the visitor"
    expect(page.locator("#score-summary")).not_to_contain_text("Overall")
    visit.shot("score-error.png")


# --- About --------------------------------------------------------------------------------------


def test_about_tab_shows_how_to_get_listed_and_the_citation(
    open_page: Callable[..., Visit],
) -> None:
    citation = (ROOT / "CITATION.bib").read_text(encoding="utf-8").strip()
    visit = open_page()
    about = visit.page.locator("#about-text")
    expect(about).to_be_hidden()
    visit.tab("About")
    expect(about).to_be_visible()
    expect(about).to_contain_text("How to get listed")
    cite = visit.page.locator("#citation")
    expect(cite).to_be_visible()
    expect(cite).to_contain_text(citation.splitlines()[0])  # "@misc{<key>,"
    expect(cite).to_contain_text("EgoMemReason")
    expect(visit.page.locator("#board-table")).to_be_hidden()
    visit.shot("about.png")
