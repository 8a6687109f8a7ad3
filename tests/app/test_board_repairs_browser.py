"""A corrected and a withdrawn row, and the Hub's own results, in Debian Chromium against
``python app.py`` (issue 32): the board drops the withdrawn row, its permalink opens its card
saying when and why, and, the spec turning them on, the Hub's results stand apart below the
board, marked unverified; when the Hub stops answering, the board stays and the section says so.

The app reads a copy of EgoMemReason's demo board where the maintainer's scripts withdrew a row
(a local folder), the demo key (a local key: not demo mode), and a loopback Hub (HF_ENDPOINT)
where the benchmark's dataset has its eval.yaml and a model has a pull request with that row's
result, both written by maintainer.eval_results as scripts/hub_eval_results.py writes them.
Screenshots: test-output/screenshots/egomemreason-withdrawn-card.png and
egomemreason-hub-results.png.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, expect

import ledger
import spec
from ledger import hub_pulls
from maintainer import eval_results
from scripts import withdraw_row
from tests.app.test_browser import (  # noqa: F401  (the browser fixture is used by name)
    DESKTOP,
    TIMEOUT_MS,
    _open,
    browser,
)
from tests.support.app_server import AppServer
from tests.support.hub_server import WRITE_TOKEN, HubServer
from tests.support.procs import ONE_CLIENT

pytestmark = [pytest.mark.server, pytest.mark.browser]

BENCH = spec.load_benchmark("egomemreason")
WITHDRAWN = uuid.UUID("5694e658-3eb0-487c-b1e2-cba563c80b88")  # DemoVLM-7B (synthetic)
REASON = "The team asked to withdraw it: their frame sampler read the test videos."
MODEL = "demo-lab/DemoVLM-7B"


@dataclass(frozen=True)
class Site:
    app: AppServer
    hub: HubServer


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    base = tmp_path_factory.mktemp("repairs")
    folder = base / BENCH.id  # the spec, turning the Hub's results on
    shutil.copytree(BENCH.folder, folder)
    toml = folder / spec.SPEC_FILENAME
    toml.write_text(toml.read_text().replace("show_hub_results = false", "show_hub_results = true"))
    board = base / "board"
    shutil.copytree(BENCH.demo_board, board)
    argv = ["--row", str(WITHDRAWN), "--reason", REASON, "--leaderboard-dir", str(board)]
    assert withdraw_row.main(argv) == 0
    row = ledger.Record.from_json((BENCH.demo_board / "submissions" / f"{WITHDRAWN}.json")
                                  .read_bytes())  # fmt: skip
    with HubServer() as hub:
        assert BENCH.hub.dataset is not None
        eval_yaml = eval_results.eval_yaml_text(BENCH).encode()
        hub.create_repo(BENCH.hub.dataset, files={eval_results.EVAL_YAML: eval_yaml})
        hub.create_repo(MODEL, repo_type="model")
        entry = eval_results.model_result(row, BENCH, space="demo-org/demo-leaderboard")
        path = eval_results.results_path(BENCH)
        text = eval_results.merged(None, entry, path)
        hub_pulls.open_pull_request(
            MODEL, path, text.encode(), repo_type="model", title="Add", description="",
            endpoint=hub.url, token=WRITE_TOKEN,
        )  # fmt: skip
        env = {
            "LEADERBOARD_BENCHMARK": str(folder),
            "LEADERBOARD_ANSWER_KEY": str(BENCH.demo_key(BENCH.track())),
            "LEADERBOARD_RECORDS_DIR": str(board),
            "HF_ENDPOINT": hub.url,
            **ONE_CLIENT,
        }
        with AppServer(env=env) as app:
            yield Site(app, hub)


def test_the_withdrawn_row_leaves_the_board_and_its_permalink_says_why(
    site: Site,
    browser: Browser,  # noqa: F811
) -> None:
    visit = _open(browser, site.app.url, DESKTOP, chart=False)
    try:
        assert "DemoVLM-7B (synthetic)" not in visit.board_text()
    finally:
        visit.context.close()
    visit = _open(browser, f"{site.app.url}/?entry={WITHDRAWN}", DESKTOP, chart=False)
    try:
        card = visit.page.locator("#entry-card")
        expect(card).to_contain_text("Withdrawn on", timeout=TIMEOUT_MS)
        expect(card).to_contain_text(REASON)
        expect(card).to_contain_text("History")
        expect(card).to_contain_text("scripts/reproduce_row.py")
        visit.page.locator("#entry-card-box").scroll_into_view_if_needed()
        visit.shot("egomemreason-withdrawn-card.png")
        assert visit.errors == []
    finally:
        visit.context.close()


def test_the_hub_s_results_stand_apart_and_a_silent_hub_hides_nothing(
    site: Site,
    browser: Browser,  # noqa: F811
) -> None:
    visit = _open(browser, site.app.url, DESKTOP, chart=False)
    try:
        section = visit.page.locator("#hub-results")
        expect(section).to_contain_text("results not verified here", timeout=TIMEOUT_MS)
        expect(section).to_contain_text(MODEL)
        expect(section).to_contain_text("community (pull request #1)")
        section.scroll_into_view_if_needed()
        visit.shot("egomemreason-hub-results.png")
        rows = visit.board_text()
        site.hub.stop()
        try:
            # Refresh reads the Hub again once past its floor (a few seconds since the last read)
            for _ in range(15):
                visit.page.locator("#board-refresh").click()
                if "did not answer" in section.inner_text():
                    break
                visit.page.wait_for_timeout(1_000)
            expect(section).to_contain_text("The Hub did not answer just now", timeout=TIMEOUT_MS)
            expect(section).to_contain_text(MODEL)  # the rows read before, said to be so
            assert visit.board_text() == rows
        finally:
            site.hub.start()
        assert visit.errors == []
    finally:
        visit.context.close()
