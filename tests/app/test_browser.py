"""The Space in a real browser: Debian Chromium driven by Playwright against ``python app.py``.

Two demo-mode servers (EgoMemReason, the default, and EgoArgus via ``LEADERBOARD_BENCHMARK``)
and one Chromium serve the whole module. Tests that change what the page shows open their own
page (a fresh context); read-only checks share one desktop page and one phone page. Expected
values come from the spec, the demo files and the evaluator, never from the app. Screenshots
land in test-output/screenshots/ (named ``<benchmark>-<tab>[-phone].png``) for a human to look
at. Chromium is required: without /usr/bin/chromium these tests fail (``make test``, run as
root, installs it); they never skip, so CI always runs them.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
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
import spec
from tests.support.app_server import ROOT, AppServer

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Keep the page off the internet: every host but the app's loopback address is unknown.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
SCREENSHOTS = ROOT / "test-output" / "screenshots"
TIMEOUT_MS = 30_000
#: The board's status line once the board is in (it counts its entries: 1 entry, 10 entries).
BOARD_LOADED = re.compile(r"\bentr(y|ies)\b")
#: The whole status line of a board no filter narrows (web.board.status.status_line): its entries,
#: then its reference rows if any.
STATUS_LINE = (
    r"(\d+) entries (· (\d+) reference rows? \(not ranked\) )?· board as of \d\d:\d\d UTC, "
    r"read from its records \d+ (s|min|h) ago; Refresh reads them again"
)
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
PAPER_ROW = "Gemini-3-Flash"


# --- what the page should show, from the spec and the demo files -------------------------------


@dataclass(frozen=True)
class Demo:
    """A benchmark's demo: its spec, and the records its demo board shows (superseded hidden)."""

    bench: spec.Benchmark
    records: tuple[dict[str, object], ...]

    @property
    def track(self) -> spec.MultipleChoiceTrack:
        return self.bench.track(kind=spec.MultipleChoiceTrack)

    @property
    def sample(self) -> Path:
        return self.bench.demo_dir / "sample_submission.json"

    @property
    def names(self) -> list[str]:
        return sorted(str(r["method_name"]) for r in self.records)

    def key(self) -> evaluator.AnswerKey:
        return evaluator.kinds.multiple_choice.load_key(
            self.track, self.bench.demo_key(self.track).read_bytes()
        )

    def is_reference(self, record: dict[str, object]) -> bool:
        """Whether the spec declares the row a reference policy (read against, not ranked)."""
        metrics = record["metrics"]
        assert isinstance(metrics, dict)
        return self.track.reference_of(str(record["method_name"]), metrics) is not None

    @property
    def entries(self) -> list[dict[str, object]]:
        """The records the board ranks: its reference rows aside."""
        return [r for r in self.records if not self.is_reference(r)]


def _demo(bench_id: str) -> Demo:
    bench = spec.load_benchmark(bench_id)
    folder = bench.demo_board / "submissions"  # may not exist yet: an empty board
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]

    # The board shows its track's records: those naming it (schema 2), and those naming no
    # benchmark (schema 1) if the spec gives them this track.
    def track_of(record: dict[str, object]) -> object:
        if record.get("benchmark") is None:
            return bench.unnamed_records_track
        return record.get("track") if record["benchmark"] == bench.id else None

    records = [r for r in records if track_of(r) == bench.track().id]
    hidden = {r["supersedes"] for r in records if r.get("supersedes")}
    return Demo(bench, tuple(r for r in records if r["id"] not in hidden))


EGOMEM = _demo("egomemreason")
ARGUS = _demo("egoargus")
SAMPLE = EGOMEM.sample
RECORDS = EGOMEM.records
ALL_NAMES = EGOMEM.names
RESCORED_NAMES = sorted(str(r["method_name"]) for r in RECORDS if r["source"] == "rescored")
ENTRIES = EGOMEM.entries


def _demo_key() -> evaluator.AnswerKey:
    return EGOMEM.key()


def test_demo_board_has_what_these_tests_look_for() -> None:
    """Guards the expectations below: they are only meaningful if the demo board has them."""
    assert PAPER_ROW in ALL_NAMES
    assert RESCORED_NAMES, "the demo board should carry re-scored rows"
    assert any("qwen" in n.lower() for n in ALL_NAMES)


# --- the server, the browser and a page --------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[AppServer]:
    with AppServer() as app:  # no LEADERBOARD_* or HF_TOKEN: EgoMemReason's demo key and board
        yield app


@pytest.fixture(scope="module")
def argus_server() -> Iterator[AppServer]:
    with AppServer(env={"LEADERBOARD_BENCHMARK": "egoargus"}) as app:
        yield app


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: run `make test` as root (it installs Debian's "
            "chromium), or `apt-get install -y chromium`. The browser tests must run, "
            "not skip."
        )
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
        """The table's text (not the status Gradio writes over the block while an event that
        renders it runs: "processing | 0.0s")."""
        return self.page.locator("#board-table .board-scroll").inner_text()

    def grid(self, elem_id: str) -> tuple[list[str], list[list[str]]]:
        """The board table's header names and the text of its cells, row by row."""
        headers, rows = self.page.evaluate(GRID_JS, elem_id)
        return headers, rows

    def sort_by(self, header: str) -> None:
        """Click a board header; wait until the board says it is sorted by it."""
        button = self.page.locator(f'#board-table thead button[data-sort="{header}"]')
        before = button.locator("xpath=..").get_attribute("aria-sort")
        button.click()
        expect(button.locator("xpath=..")).not_to_have_attribute(
            "aria-sort", before or "", timeout=TIMEOUT_MS
        )

    def shot(self, name: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        # A tab just shown may still be laying out: a full-page shot taken then is cut short.
        self.page.evaluate(SETTLED_JS)
        self.page.screenshot(path=str(SCREENSHOTS / name), full_page=True)

    def overflow(self) -> tuple[int, int]:
        """The page's scrollWidth and clientWidth: a page that scrolls sideways has more."""
        widths = self.page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        return int(widths[0]), int(widths[1])


# Resolves once the page's height has not changed for three checks 100 ms apart.
SETTLED_JS = """() => new Promise(resolve => {
    let last = -1, same = 0;
    const tick = () => {
        const height = document.documentElement.scrollHeight;
        same = height === last ? same + 1 : 0;
        last = height;
        if (same >= 3) resolve(height); else setTimeout(tick, 100);
    };
    tick();
})"""


# True once the board in the page is the server's rendering of a view of track ``track`` (its
# id; null: any) and column group ``cols`` (its title, any case; null: the first, which the
# view's address leaves out): the address marker after the table (web.board.address).
VIEW_SHOWN_JS = """([track, cols]) => {
    const marker = document.querySelector('#board-table [data-address]');
    if (!marker) return false;
    const view = new URLSearchParams(marker.dataset.address);
    const group = view.get('cols');
    return (track === null || view.get('track') === track)
        && (cols === null ? group === null : (group || '').toLowerCase() === cols.toLowerCase());
}"""


def board_shows(page: Page, track: str | None = None, cols: str | None = None) -> None:
    """Wait until the board shows that view (``VIEW_SHOWN_JS``): the event a click on a track
    or a column group sent has come back, however long it took, rather than a fixed wait
    after which the last view's board may still be there."""
    page.wait_for_function(VIEW_SHOWN_JS, arg=[track, cols], timeout=TIMEOUT_MS)


# The board is a <table>: a header's name is its sort button's data-sort (the arrow aside).
GRID_JS = """(id) => {
    const root = document.getElementById(id);
    const headers = [...root.querySelectorAll('thead th button')].map(b => b.dataset.sort);
    const rows = [...root.querySelectorAll('tbody tr[data-entry]')]
        .map(tr => [...tr.children].map(c => c.innerText.replace(/\\s+/g, ' ').trim()));
    return [headers, rows];
}"""


def _is_external_load_failure(message: ConsoleMessage) -> bool:
    host = urlparse(message.location.get("url", "")).hostname
    return "Failed to load resource" in message.text and host not in (None, "127.0.0.1")


def _open(
    browser: Browser,
    url: str,
    viewport: dict[str, int],
    chart: bool,
    row: str | None = PAPER_ROW,
    color_scheme: Literal["light", "dark"] = "light",
) -> Visit:
    """Open the app in a fresh context, the system's colour scheme ``color_scheme``; wait for
    the board (its ``row``, if any, and if asked its chart)."""
    context = browser.new_context(
        viewport=viewport,  # type: ignore[arg-type]
        accept_downloads=True,
        color_scheme=color_scheme,
    )
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
    status = page.locator("#board-status")
    expect(status).to_contain_text(BOARD_LOADED, timeout=TIMEOUT_MS)
    if row is not None:
        expect(page.locator("#board-table")).to_contain_text(row, timeout=TIMEOUT_MS)
    else:
        page.wait_for_selector("#board-table thead th", timeout=TIMEOUT_MS)
    if chart:
        page.wait_for_selector("#board-chart [data-testid=altair] svg.marks", timeout=TIMEOUT_MS)
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


@pytest.mark.server
@pytest.mark.browser
def test_page_loads_with_title_banner_status_and_board(board: Visit) -> None:
    page = board.page
    assert page.title() == "EgoMemReason Leaderboard"
    expect(page.locator("#title h1")).to_have_text("EgoMemReason Leaderboard")
    expect(page.locator("#demo-banner")).to_be_visible()
    expect(page.locator("#demo-banner")).to_contain_text("Demo mode")
    status = page.locator("#board-status").inner_text().strip()
    match = re.fullmatch(STATUS_LINE, status)
    assert match, f"unexpected status line: {status!r}"
    assert int(match.group(1)) == len(ENTRIES)
    assert int(match.group(3)) == len(RECORDS) - len(ENTRIES)  # the spec's reference policies
    assert PAPER_ROW in board.board_text()
    box = page.locator("#board-chart [data-testid=altair] svg.marks").first.bounding_box()
    assert box is not None and box["width"] > 200 and box["height"] > 100
    board.shot("egomemreason-leaderboard.png")
    assert not board.errors, f"JS errors on load: {board.errors}"
    if board.external:
        print("failed loads of external resources (ignored):", *board.external, sep="\n  ")


@pytest.mark.server
@pytest.mark.browser
def test_board_shows_rescored_rows_by_their_names(board: Visit) -> None:
    text = board.board_text()
    missing = [name for name in RESCORED_NAMES if name not in text]
    assert not missing, f"re-scored rows not shown by name: {missing}"
    assert "](" not in text and "\\(" not in text, "raw Markdown in the table"
    headers, rows = board.grid("board-table")
    assert len(rows) == len(RECORDS)
    overall = [float(row[headers.index("Overall")]) for row in rows]
    ranked = overall[: len(ENTRIES)]  # the entries best first, then the reference rows
    assert ranked == sorted(ranked, reverse=True), "the board is not best Overall first"
    assert [row[0] for row in rows[len(ENTRIES) :]] == ["ref."] * (len(RECORDS) - len(ENTRIES))


@pytest.mark.server
@pytest.mark.browser
def test_board_metrics_are_shown_to_one_decimal(board: Visit) -> None:
    headers, rows = board.grid("board-table")
    metrics = [i for i, h in enumerate(headers) if h in ("Overall", "Entity", "Event", "Behavior")]
    assert len(metrics) == 4, headers
    shown = [row[i] for row in rows for i in metrics]
    assert all(re.fullmatch(r"\d+\.\d", cell) for cell in shown), shown


@pytest.mark.server
@pytest.mark.browser
def test_search_filters_the_board(open_page: Callable[..., Visit]) -> None:
    visit = open_page()
    qwen = [n for n in ALL_NAMES if "qwen" in n.lower()]
    search = visit.page.locator("#board-search textarea, #board-search input").first
    search.fill("qwen")
    _wait_for_board(visit, shown=qwen, gone=[PAPER_ROW])
    search.fill("")
    _wait_for_board(visit, shown=[*qwen, PAPER_ROW], gone=[])


@pytest.mark.server
@pytest.mark.browser
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


@pytest.mark.server
@pytest.mark.browser
def test_download_csv_is_the_current_view(open_page: Callable[..., Visit]) -> None:
    visit = open_page()
    page = visit.page

    def download() -> list[dict[str, str]]:
        with page.expect_download(timeout=TIMEOUT_MS) as info:
            page.locator("#download-csv").click()
        download = info.value
        assert download.suggested_filename == "egomemreason-leaderboard.csv"
        data = Path(download.path()).read_bytes()
        assert data.startswith(b"\xef\xbb\xbf"), "no UTF-8 BOM: spreadsheets show mojibake"
        return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))

    rows = download()
    headers, shown = visit.grid("board-table")
    # The on-screen names (the All group's), numbers as the board shows them.
    assert rows and list(rows[0])[:3] == ["Rank", "Method", "Overall"]
    assert [r["Method"] for r in rows] == [row[1].removesuffix(" †") for row in shown]
    assert [r["Overall"] for r in rows] == [row[headers.index("Overall")] for row in shown]
    for name in RESCORED_NAMES:
        assert name in {r["Method"] for r in rows}

    qwen = [n for n in ALL_NAMES if "qwen" in n.lower()]
    page.locator("#board-search textarea, #board-search input").first.fill("qwen")
    _wait_for_board(visit, shown=qwen, gone=[PAPER_ROW])
    assert sorted(r["Method"] for r in download()) == qwen
    visit.sort_by("Entity")  # the download follows the order shown
    entity = [r["Entity"] for r in download()]
    assert entity == sorted(entity, key=float, reverse=True)
    page.locator("#board-search textarea, #board-search input").first.fill("no such model")
    expect(page.locator("#board-table")).to_contain_text("No entry matches", timeout=TIMEOUT_MS)
    assert download() == []  # a header line, no rows


def _column(visit: Visit, header: str) -> list[str]:
    headers, rows = visit.grid("board-table")
    return [row[headers.index(header)] for row in rows]


def _numbers(cells: list[str]) -> list[float]:
    return [float(c) for c in cells if c != "—"]


@pytest.mark.server
@pytest.mark.browser
def test_a_header_click_sorts_that_column_best_first_and_a_second_reverses_it(
    open_page: Callable[..., Visit],
) -> None:
    visit = open_page()
    ids_js = (
        "() => [...document.querySelectorAll('#board-table tbody tr[data-entry]')]"
        ".map(tr => tr.dataset.entry).join('|')"
    )
    board_order = visit.page.evaluate(ids_js)
    visit.sort_by("Entity")
    entity = _numbers(_column(visit, "Entity"))
    assert entity == sorted(entity, reverse=True), "not best (highest) Entity first"
    th = visit.page.locator('#board-table thead th:has(button[data-sort="Entity"])')
    expect(th).to_have_attribute("aria-sort", "descending")
    visit.sort_by("Entity")
    assert _numbers(_column(visit, "Entity")) == sorted(entity)
    expect(th).to_have_attribute("aria-sort", "ascending")
    # Another header replaces the sort: Event alone orders the rows, Entity is no second key.
    visit.sort_by("Event")
    event = _numbers(_column(visit, "Event"))
    assert event == sorted(event, reverse=True)
    expect(th).to_have_attribute("aria-sort", "none")
    # A group without the sorted column shows the board's order; one with it keeps the sort.
    visit.page.locator("#column-group label", has_text="Query types").click()
    expect(visit.page.locator("#board-table")).to_contain_text("Tracking", timeout=TIMEOUT_MS)
    visit.page.wait_for_function(
        f"(want) => ({ids_js})() === want", arg=board_order, timeout=TIMEOUT_MS
    )
    visit.sort_by("Overall")
    visit.sort_by("Overall")  # lowest first
    visit.page.locator("#column-group label", has_text="Details").click()
    expect(visit.page.locator("#board-table")).to_contain_text("Rank range", timeout=TIMEOUT_MS)
    visit.page.wait_for_selector(
        '#board-table thead th[aria-sort=ascending] button[data-sort="Overall"]', timeout=TIMEOUT_MS
    )
    overall = _numbers(_column(visit, "Overall"))
    assert overall == sorted(overall)
    visit.shot("egomemreason-leaderboard-sorted.png")
    assert not visit.errors, visit.errors


@pytest.mark.server
@pytest.mark.browser
def test_filters_all_read_none_ticked_as_any_and_say_how_many_are_shown(
    open_page: Callable[..., Visit],
) -> None:
    visit = open_page()
    page = visit.page
    page.locator("#board-filters").get_by_text("Filters").click()
    rescored = page.locator("#board-filters label", has_text="Re-scored")
    rescored.click()
    papers = [n for n in ALL_NAMES if n not in RESCORED_NAMES]
    _wait_for_board(visit, shown=RESCORED_NAMES, gone=papers[:3])
    rescored_entries = [r for r in ENTRIES if r["source"] == "rescored"]
    expect(page.locator("#board-status")).to_contain_text(
        f"{len(rescored_entries)} of {len(ENTRIES)} entries"
    )
    rescored.click()  # none ticked again: every row
    _wait_for_board(visit, shown=[*RESCORED_NAMES, PAPER_ROW], gone=[])
    expect(page.locator("#board-status")).to_contain_text(f"{len(ENTRIES)} entries")
    search = page.locator("#board-search textarea, #board-search input").first
    search.fill("8B")  # a size: a whole token, so no 38B row
    eight = [n for n in ALL_NAMES if re.search(r"(?<![\d.])8B(?![A-Za-z0-9])", n)]
    thirty_eight = [n for n in ALL_NAMES if "38B" in n]
    assert eight and thirty_eight, "the demo board should have 8B and 38B rows"
    _wait_for_board(visit, shown=eight, gone=thirty_eight)
    search.fill("no such model")
    expect(page.locator("#board-table")).to_contain_text("No entry matches", timeout=TIMEOUT_MS)
    expect(page.locator("#board-status")).to_contain_text(f"0 of {len(ENTRIES)} entries")
    visit.shot("egomemreason-leaderboard-empty.png")


@pytest.mark.server
@pytest.mark.browser
def test_a_method_opens_its_card_and_the_address_opens_it_again(
    open_page: Callable[..., Visit], server: AppServer, browser: Browser
) -> None:
    rescored = next(r for r in RECORDS if r["source"] == "rescored")
    visit = open_page()
    page = visit.page
    page.locator("#board-table .entry-open", has_text=str(rescored["method_name"])).click()
    card = page.locator("#entry-card")
    expect(card).to_be_visible(timeout=TIMEOUT_MS)
    provenance = rescored["provenance"]
    assert isinstance(provenance, dict)
    for text in (
        str(rescored["id"]),
        provenance["submission_sha256"],
        provenance["answer_key_sha256"],
        "scripts/reproduce_row.py",
        f"--record {rescored['id']}",
    ):
        expect(card).to_contain_text(str(text))
    assert f"entry={rescored['id']}" in page.url
    visit.shot("egomemreason-card.png")
    page.locator("#entry-card-close").click()
    expect(card).to_be_hidden()
    assert "entry=" not in page.url
    # The permalink, in a fresh page: the card is open as it loads.
    again = _open(browser, f"{server.url}/?entry={rescored['id']}", PHONE, chart=False)
    try:
        expect(again.page.locator("#entry-card")).to_contain_text(
            str(rescored["method_name"]), timeout=TIMEOUT_MS
        )
        again.shot("egomemreason-card-phone.png")
        scroll, client = again.overflow()
        assert scroll <= client + 1, f"the card scrolls sideways: {scroll} > {client}"
        assert not again.errors, again.errors
    finally:
        again.context.close()


@pytest.mark.server
@pytest.mark.browser
def test_the_size_and_date_plots_show_every_row(open_page: Callable[..., Visit]) -> None:
    visit = open_page()
    page = visit.page
    for tab, elem in (("By model size", "#size-chart"), ("By date", "#date-chart")):
        page.get_by_role("tab", name=tab, exact=True).click()
        page.wait_for_selector(f"{elem} [data-testid=altair] svg.marks", timeout=TIMEOUT_MS)
        box = page.locator(f"{elem} [data-testid=altair] svg.marks").first.bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 150, box
        visit.shot(f"egomemreason-{elem[1:]}.png")
    assert not visit.errors, visit.errors


@pytest.mark.server
@pytest.mark.browser
def test_phone_has_no_horizontal_overflow(phone: Visit) -> None:
    phone.tab("Leaderboard")
    table = phone.page.locator("#board-table")
    expect(table).to_be_visible()
    box = table.bounding_box()
    assert box is not None and box["width"] > 200
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 1, box
    scroll, client = phone.overflow()
    assert scroll <= client + 1, f"the page scrolls sideways: scrollWidth {scroll} > {client}"
    phone.shot("egomemreason-leaderboard-phone.png")
    assert not phone.errors, f"JS errors on load: {phone.errors}"


@pytest.mark.server
@pytest.mark.browser
def test_phone_shows_overall_whole_and_the_table_on_the_first_screen(phone: Visit) -> None:
    phone.tab("Leaderboard")
    header = phone.page.locator('#board-table thead button[data-sort="Overall"]')
    box = header.bounding_box()
    assert box is not None and box["x"] + box["width"] <= PHONE["width"], box
    # Not clipped ("Overal"): the header's text fits its button.
    assert header.evaluate("b => b.scrollWidth <= b.clientWidth + 1"), header.inner_text()
    first_row = phone.page.locator("#board-table tbody tr").first.bounding_box()
    assert first_row is not None and first_row["y"] + first_row["height"] <= PHONE["height"], (
        f"the board's first row is below the first screen: {first_row}"
    )


@pytest.mark.server
@pytest.mark.browser
def test_phone_board_chart_fits_the_screen(phone: Visit) -> None:
    phone.tab("Leaderboard")
    box = phone.page.locator("#board-chart [data-testid=altair] svg.marks").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box


@pytest.mark.server
@pytest.mark.browser
def test_phone_about_has_no_horizontal_overflow(phone: Visit) -> None:
    phone.tab("About")
    expect(phone.page.locator("#citation")).to_be_visible()
    scroll, client = phone.overflow()
    assert scroll <= client + 1, f"the page scrolls sideways: scrollWidth {scroll} > {client}"
    # Its tables scroll sideways rather than break words mid-word ("Entit y"): each cell's
    # words are laid out whole, one word never wider than its cell.
    broken = phone.page.evaluate("""() => [...document.querySelectorAll(
        '#about-text td, #about-text th')].filter(cell => {
            const style = getComputedStyle(cell);
            const range = document.createRange();
            range.selectNodeContents(cell);
            const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
            const words = cell.innerText.trim().split(/\\s+/).filter(w => w).length;
            return style.wordBreak !== 'normal' || style.overflowWrap !== 'normal'
                || lines.size > Math.max(words, 1);
        }).map(cell => cell.innerText.trim())""")
    assert not broken, f"About cells whose words break mid-word: {broken[:5]}"


# --- Score --------------------------------------------------------------------------------------


def _upload(visit: Visit, path: Path) -> None:
    visit.tab("Score")
    visit.page.locator("#score-upload input[type=file]").set_input_files(str(path))


@pytest.mark.server
@pytest.mark.browser
def test_score_tab_scores_the_sample_submission(open_page: Callable[..., Visit]) -> None:
    result = evaluator.score(_demo_key(), SAMPLE.read_bytes())
    visit = open_page()
    _upload(visit, SAMPLE)
    page = visit.page
    summary = page.locator("#score-summary")
    expect(summary).to_contain_text(
        f"Overall: {result.metrics['overall']:.1f} %", timeout=TIMEOUT_MS
    )
    overall = result.counts["overall"]
    expect(summary).to_contain_text(f"{overall.correct} of {overall.total} correct")
    table = page.locator("#score-table")
    query_types = [g.key for g in EGOMEM.track.groupings[0].groups]
    for key in query_types:
        expect(table).to_contain_text(EGOMEM.track.names[key])  # "Cumulative State Tracking"
    for key in query_types:
        count = result.counts[key]
        expect(table).to_contain_text(f"{result.metrics[key]:.1f}".removesuffix(".0"))
        expect(table).to_contain_text(str(count.total))
    page.wait_for_selector("#score-chart [data-testid=altair] svg.marks", timeout=TIMEOUT_MS)
    visit.shot("egomemreason-score.png")
    assert not visit.errors, f"JS errors: {visit.errors}"


@pytest.mark.server
@pytest.mark.browser
def test_score_tab_shows_the_evaluators_error(
    open_page: Callable[..., Visit], tmp_path: Path
) -> None:
    bad = tmp_path / "results.json"
    bad.write_text('{"results": []}', encoding="utf-8")
    with pytest.raises(evaluator.SubmissionError) as refused:
        evaluator.score(_demo_key(), bad.read_bytes())
    visit = open_page()
    _upload(visit, bad)
    page = visit.page
    shown = page.locator("#score-error")
    expect(shown).to_be_visible(timeout=TIMEOUT_MS)
    expect(shown).to_contain_text("results")
    expect(page.locator("[data-testid='toast-body']")).to_have_count(0)
    message = " ".join(shown.inner_text().split())
    assert " ".join(str(refused.value).split()) in message
    body = page.locator("body").inner_text()
    for trace in ("Traceback", 'File "', "SubmissionError", "evaluator.py"):
        assert trace not in body, f"{trace!r} shown to the visitor"
    expect(page.locator("#score-summary")).not_to_contain_text("Overall")
    visit.shot("egomemreason-score-error.png")


# --- About --------------------------------------------------------------------------------------


@pytest.mark.server
@pytest.mark.browser
def test_about_tab_shows_how_to_get_listed_and_the_citation(
    open_page: Callable[..., Visit],
) -> None:
    citation = EGOMEM.bench.citation_path.read_text(encoding="utf-8").strip()
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
    visit.shot("egomemreason-about.png")


# --- a second benchmark: EgoArgus ---------------------------------------------------------------


def _top_row(demo: Demo) -> str | None:
    """A row the board must show once loaded, if the demo board has any."""
    return demo.names[0] if demo.names else None


@pytest.fixture(scope="module")
def argus_board(argus_server: AppServer, browser: Browser) -> Iterator[Visit]:
    """EgoArgus's board as first shown on a desktop, shared by tests that only read it."""
    visit = _open(
        browser, argus_server.url, DESKTOP, chart=bool(ARGUS.records), row=_top_row(ARGUS)
    )
    yield visit
    visit.context.close()


@pytest.fixture
def open_argus(argus_server: AppServer, browser: Browser) -> Iterator[Callable[..., Visit]]:
    """A fresh EgoArgus page per call."""
    visits: list[Visit] = []

    def open_(viewport: dict[str, int] = DESKTOP) -> Visit:
        visits.append(_open(browser, argus_server.url, viewport, chart=False, row=_top_row(ARGUS)))
        return visits[-1]

    yield open_
    for visit in visits:
        visit.context.close()


def _view_headers(demo: Demo, title: str) -> list[str]:
    """Rank, Method, the ranking metric, then the view's metrics, by the spec's labels."""
    track = demo.track
    view = next(v for v in track.views if v.title == title)
    return ["Rank", "Method", track.labels[track.ranking], *(track.labels[k] for k in view.metrics)]


@pytest.mark.server
@pytest.mark.browser
def test_egoargus_board_shows_its_title_groups_and_demo_records(argus_board: Visit) -> None:
    page = argus_board.page
    assert page.title() == "EgoArgus Leaderboard"
    expect(page.locator("#title h1")).to_have_text("EgoArgus Leaderboard")
    expect(page.locator("#title")).to_contain_text(ARGUS.bench.description)
    expect(page.locator("#title")).not_to_contain_text("EgoMemReason")
    expect(page.locator("#demo-banner")).to_contain_text("Demo mode")
    expect(page.locator("#demo-banner")).to_contain_text("not EgoArgus results")
    groups = [t.strip() for t in page.locator("#column-group label").all_inner_texts()]
    assert groups == ["Scenarios", "Tasks", "Details", "All"]
    status = page.locator("#board-status").inner_text().strip()
    match = re.fullmatch(STATUS_LINE, status)
    assert match and int(match.group(1)) == len(ARGUS.entries), status
    headers, rows = argus_board.grid("board-table")
    expected = _view_headers(ARGUS, "Scenarios")
    assert headers[: len(expected)] == expected, headers
    assert len(rows) == len(ARGUS.records)
    text = argus_board.board_text()
    missing = [name for name in ARGUS.names if name not in text]
    assert not missing, f"demo records not shown by name: {missing}"
    papers = [str(r["method_name"]) for r in ARGUS.records if r["source"] == "paper"]
    assert all(name in text for name in papers)
    if not ARGUS.records:  # an empty board says so, and shows no empty chart
        expect(page.locator("#board-table")).to_contain_text("No entries yet")
        expect(page.locator("#board-compare")).to_be_hidden()
    overall = [float(row[headers.index("Overall")]) for row in rows][: len(ARGUS.entries)]
    assert overall == sorted(overall, reverse=True)  # the entries; then the reference rows
    assert not argus_board.errors, f"JS errors on load: {argus_board.errors}"


@pytest.mark.server
@pytest.mark.browser
def test_egoargus_tasks_group_shows_the_task_columns(open_argus: Callable[..., Visit]) -> None:
    visit = open_argus()
    visit.page.locator("#column-group label", has_text="Tasks").click()
    expected = _view_headers(ARGUS, "Tasks")
    visit.page.wait_for_function(
        """(want) => {
            const heads = [...document.querySelectorAll('#board-table thead th button')]
                .map(b => b.dataset.sort);
            return want.every(w => heads.includes(w));
        }""",
        arg=expected,
        timeout=TIMEOUT_MS,
    )
    headers, _ = visit.grid("board-table")
    assert headers[: len(expected)] == expected, headers
    assert "Multimodal" not in headers  # a scenario column: not in this group


@pytest.mark.server
@pytest.mark.browser
def test_egoargus_score_tab_scores_its_sample(open_argus: Callable[..., Visit]) -> None:
    result = evaluator.score(ARGUS.key(), ARGUS.sample.read_bytes())
    visit = open_argus()
    _upload(visit, ARGUS.sample)
    summary = visit.page.locator("#score-summary")
    expect(summary).to_contain_text("Overall:", timeout=TIMEOUT_MS)
    shown = re.search(r"Overall: (\d+\.\d) %", summary.inner_text())
    assert shown and shown.group(1) == f"{result.metrics['overall']:.1f}", summary.inner_text()
    overall = result.counts["overall"]
    expect(summary).to_contain_text(f"{overall.correct} of {overall.total} correct")
    table = visit.page.locator("#score-table")
    for key in ("scenario_mean", "contradictory", "mintrec"):
        expect(table).to_contain_text(ARGUS.track.names[key])
    assert not visit.errors, f"JS errors: {visit.errors}"


# --- every tab of both benchmarks, on a desktop and a phone -------------------------------------

SITES = {"egomemreason": ("server", EGOMEM), "egoargus": ("argus_server", ARGUS)}


@pytest.mark.server
@pytest.mark.browser
@pytest.mark.parametrize("device", ["desktop", "phone"])
@pytest.mark.parametrize("bench_id", list(SITES))
def test_every_tab_fits_the_screen_and_is_photographed(
    request: pytest.FixtureRequest, browser: Browser, bench_id: str, device: str
) -> None:
    fixture, demo = SITES[bench_id]
    url = request.getfixturevalue(fixture).url
    viewport = DESKTOP if device == "desktop" else PHONE
    suffix = "" if device == "desktop" else "-phone"
    visit = _open(browser, url, viewport, chart=bool(demo.records), row=_top_row(demo))
    try:
        page = visit.page

        def fits(tab: str) -> None:
            scroll, client = visit.overflow()
            assert scroll <= client + 1, f"{tab} scrolls sideways: {scroll} > {client}"

        fits("Leaderboard")
        visit.shot(f"{bench_id}-leaderboard{suffix}.png")
        _upload(visit, demo.sample)
        expect(page.locator("#score-summary")).to_contain_text("Overall:", timeout=TIMEOUT_MS)
        page.wait_for_selector("#score-chart [data-testid=altair] svg.marks", timeout=TIMEOUT_MS)
        fits("Score")
        visit.shot(f"{bench_id}-score{suffix}.png")
        visit.tab("About")
        expect(page.locator("#citation")).to_be_visible()
        fits("About")
        visit.shot(f"{bench_id}-about{suffix}.png")
        assert not visit.errors, f"JS errors: {visit.errors}"
    finally:
        visit.context.close()


# --- EgoArgus's second track: Decision ---------------------------------------------------------

DECISION = ARGUS.bench.track("decision")
DECISION_SAMPLE = ARGUS.bench.demo_dir / "decision_sample_submission.json"


def _decision_records() -> list[dict[str, Any]]:
    folder = ARGUS.bench.demo_board / "submissions"
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
    mine = [
        r for r in records if r.get("benchmark") == ARGUS.bench.id and r.get("track") == DECISION.id
    ]
    hidden = {r["supersedes"] for r in mine if r.get("supersedes")}
    return [r for r in mine if r["id"] not in hidden]


def _switch_to_decision(visit: Visit) -> None:
    """The Leaderboard's Track switch set to Decision; waits for its board."""
    # its first view shows the re-scored rows (the paper rows are in Table 2's view)
    names = sorted(str(r["method_name"]) for r in _decision_records() if r["source"] == "rescored")
    visit.page.locator("#board-track label", has_text=DECISION.title).click()
    _wait_for_board(visit, shown=names, gone=[])
    expect(visit.page.locator("#column-group")).to_contain_text(DECISION.views[0].title)


@pytest.mark.server
@pytest.mark.browser
@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_egoargus_decision_board_and_score(
    argus_server: AppServer, browser: Browser, device: str
) -> None:
    viewport = DESKTOP if device == "desktop" else PHONE
    suffix = "" if device == "desktop" else "-phone"
    records = _decision_records()
    visit = _open(browser, argus_server.url, viewport, chart=False, row=_top_row(ARGUS))
    try:
        page = visit.page
        _switch_to_decision(visit)
        page.wait_for_selector("#board-chart [data-testid=altair] svg.marks", timeout=TIMEOUT_MS)
        status = page.locator("#board-status").inner_text().strip()
        # one entry, the two constant policies as reference rows, Table 2's rows ranked apart
        assert status.startswith("1 entry · 2 reference rows"), status
        headers, rows = visit.grid("board-table")
        view = DECISION.views[0]
        expected = [
            "Rank",
            "Method",
            DECISION.labels[DECISION.ranking],
            *(DECISION.labels[k] for k in view.metrics),
        ]
        assert headers[: len(expected)] == expected, headers
        rescored = sorted(
            (r for r in records if r["source"] == "rescored"),
            key=lambda r: -float(r["metrics"][DECISION.ranking]),
        )
        papers = [r for r in records if r["source"] == "paper"]
        assert len(rows) == len(rescored)  # the paper rows are in the Paper (Table 2) view
        f = headers.index(DECISION.labels[DECISION.ranking])
        for row, record in zip(rows, rescored, strict=True):  # best Macro F1 first, 3 decimals
            assert row[f] == f"{record['metrics'][DECISION.ranking]:.3f}"
        ranks = [row[0] for row in rows]
        assert ranks == ["1", "ref.", "ref."], ranks  # one rank series; references unranked
        notes = page.locator("#board-notes")
        expect(notes).to_contain_text("ranked among themselves by Paper F1")
        expect(notes).to_contain_text(str(papers[0]["note"]))
        scroll, client = visit.overflow()
        assert scroll <= client + 1, f"the Decision board scrolls sideways: {scroll} > {client}"
        visit.shot(f"egoargus-decision-leaderboard{suffix}.png")

        page.locator("#column-group label", has_text="Paper (Table 2)").click()
        table = page.locator("#board-table")
        paper_label = DECISION.labels[DECISION.paper_ranking]
        expect(table).to_contain_text(paper_label, timeout=TIMEOUT_MS)
        best_paper = max(papers, key=lambda r: float(r["metrics"]["paper_f1"]))
        expect(table).to_contain_text(f"{best_paper['metrics']['paper_f1']:.3f}")
        visit.shot(f"egoargus-decision-paper{suffix}.png")

        result = evaluator.score(
            evaluator.load_answer_key(DECISION, ARGUS.bench.demo_key(DECISION).read_bytes()),
            DECISION_SAMPLE.read_bytes(),
        )
        _upload(visit, DECISION_SAMPLE)  # the track left to the file's entries
        summary = page.locator("#score-summary")
        expect(summary).to_contain_text(
            f"Decision Macro F1: {result.metrics[DECISION.ranking]:.3f}", timeout=TIMEOUT_MS
        )
        low, high = result.intervals[DECISION.ranking]
        expect(summary).to_contain_text(f"95 % CI {low:.3f}–{high:.3f} (bootstrap)")
        score_table = page.locator("#score-table")
        for key in ("decision_recall", "timing_mae_s", "decision_accuracy/no_assistance"):
            expect(score_table).to_contain_text(DECISION.names[key])
        recall = result.counts["decision_recall"]
        expect(score_table).to_contain_text(f"{recall.correct} of {recall.total}")
        page.wait_for_selector("#score-chart [data-testid=altair] svg.marks", timeout=TIMEOUT_MS)
        scroll, client = visit.overflow()
        assert scroll <= client + 1, f"Score scrolls sideways: {scroll} > {client}"
        visit.shot(f"egoargus-decision-score{suffix}.png")
        assert not visit.errors, f"JS errors: {visit.errors}"
    finally:
        visit.context.close()


@pytest.mark.server
@pytest.mark.browser
def test_the_decision_board_sorts_lower_and_nearer_zero_first_and_keeps_its_track_in_links(
    argus_server: AppServer, browser: Browser
) -> None:
    # ?track= picks the Decision board straight from the address.
    visit = _open(
        browser, f"{argus_server.url}/?track={DECISION.id}", DESKTOP, chart=False, row=None
    )
    try:
        page = visit.page
        expect(page.locator("#board-track input[value=decision]")).to_be_checked(timeout=TIMEOUT_MS)
        names = sorted(
            str(r["method_name"]) for r in _decision_records() if r["source"] == "rescored"
        )
        _wait_for_board(visit, shown=names, gone=[])
        page.locator("#column-group label", has_text="Timing").click()
        mae, signed = DECISION.labels["timing_mae_s"], DECISION.labels["timing_signed_s"]
        expect(page.locator("#board-table")).to_contain_text(mae, timeout=TIMEOUT_MS)
        visit.sort_by(mae)  # lower is better: lowest first
        shown = _numbers(_column(visit, mae))
        assert shown == sorted(shown), shown
        visit.sort_by(signed)  # nearer 0 is better
        near = _numbers(_column(visit, signed))
        assert [abs(v) for v in near] == sorted(abs(v) for v in near), near
        record = next(r for r in _decision_records() if r["source"] == "rescored")
        page.locator("#board-table .entry-open", has_text=str(record["method_name"])).click()
        expect(page.locator("#entry-card")).to_contain_text("--track decision", timeout=TIMEOUT_MS)
        assert f"entry={record['id']}" in page.url and "track=decision" in page.url
        # the Scores table draws one rule between rows, no frame of its own (issue 21: a
        # double border, Gradio's table border meeting its cells')
        scores = page.locator("#entry-card table.card-scores")
        borders = scores.evaluate(
            "t => [getComputedStyle(t).borderTopWidth, getComputedStyle(t.querySelector("
            "'td')).borderTopWidth, getComputedStyle(t.querySelector('td')).borderBottomWidth]"
        )
        assert borders == ["0px", "0px", "1px"], borders
        visit.shot("egoargus-decision-card.png")
        assert not visit.errors, visit.errors
    finally:
        visit.context.close()


@pytest.mark.server
@pytest.mark.browser
def test_egoargus_score_says_which_track_a_file_fits(open_argus: Callable[..., Visit]) -> None:
    visit = open_argus()
    page = visit.page
    visit.tab("Score")
    page.locator("#score-track label", has_text=DECISION.title).click()
    page.locator("#score-upload input[type=file]").set_input_files(str(ARGUS.sample))
    shown = page.locator("#score-error")
    expect(shown).to_contain_text("This file is for the Understanding track", timeout=TIMEOUT_MS)
    expect(page.locator("#score-summary")).not_to_contain_text("F1")
    visit.shot("egoargus-decision-wrong-track.png")
    # Picking the track it fits scores the file already chosen.
    page.locator("#score-track label", has_text=ARGUS.track.title).click()
    expect(page.locator("#score-summary")).to_contain_text("Overall:", timeout=TIMEOUT_MS)
    assert not visit.errors, f"JS errors: {visit.errors}"


@pytest.mark.server
@pytest.mark.browser
def test_egoargus_about_gives_the_decision_definitions(open_argus: Callable[..., Visit]) -> None:
    visit = open_argus(PHONE)
    visit.tab("About")
    about = visit.page.locator("#about-text")
    expect(about).to_contain_text("F1 = 2 TP / (2 TP + FP + FN)")
    expect(about).to_contain_text("Decision submission format")
    scroll, client = visit.overflow()
    assert scroll <= client + 1, f"About scrolls sideways: {scroll} > {client}"
    about.get_by_text("Decision submission format").scroll_into_view_if_needed()
    visit.page.screenshot(path=str(SCREENSHOTS / "egoargus-decision-about-phone.png"))
