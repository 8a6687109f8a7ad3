"""A reference policy is a level, never a rank, on every track (issue 31, item 10: EgoMemReason
ranked "Random" and "Always-A" as entries while EgoArgus' decision board showed its constant
policies as unranked references).

In Debian Chromium against ``python app.py``, every track of both benchmarks: each row the spec
declares a reference (``[[tracks.references]]``, by method name or by metrics) is shown unranked
("ref."), said in the notes under the board with what it is, counted apart in the status line,
and on the size chart is a dashed level with its name, not a point. Expected rows come from the
demo records and the spec. The servers, the browser and ``_open`` are tests/app/test_browser.py's.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Browser, expect

import spec
from tests.app.test_browser import (  # noqa: F401  (the fixtures are used by name)
    ARGUS,
    EGOMEM,
    TIMEOUT_MS,
    Demo,
    _open,
    _top_row,
    argus_server,
    browser,
    server,
)

LAPTOP = {"width": 1280, "height": 800}

# Every row of the board: its rank cell and its method's name.
ROWS_JS = """() => [...document.querySelectorAll('#board-table tbody tr[data-entry]')].map(tr => [
    tr.children[0].innerText.trim(), tr.querySelector('.entry-open')?.innerText.trim() ?? ''])"""

# The size chart's texts (the levels' labels among them) and its points' labels.
SIZE_CHART_JS = """() => {
    const svg = document.querySelector('#size-chart svg.marks');
    return [[...svg.querySelectorAll('text')].map(t => t.textContent),
            [...svg.querySelectorAll('g.mark-symbol.role-mark path')]
                .map(p => p.getAttribute('aria-label') ?? '')];
}"""


def _references(demo: Demo, track: spec.Track) -> dict[str, str]:
    """The demo board's rows of ``track`` the spec declares references: name -> what it is."""
    folder = demo.bench.demo_board / "submissions"
    records = [json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("*.json")]
    mine = [
        r
        for r in records
        if (r.get("track") or demo.bench.unnamed_records_track) == track.id
        and r["id"] not in {s.get("supersedes") for s in records}
    ]
    found = {
        str(r["method_name"]): track.reference_of(str(r["method_name"]), r["metrics"]) for r in mine
    }
    return {name: what for name, what in found.items() if what is not None}


@pytest.mark.server
@pytest.mark.browser
@pytest.mark.parametrize("bench_id", ["egomemreason", "egoargus"])
def test_every_reference_policy_is_a_level_never_a_rank(
    request: pytest.FixtureRequest,
    browser: Browser,  # noqa: F811
    bench_id: str,
) -> None:
    demo, fixture = (EGOMEM, "server") if bench_id == "egomemreason" else (ARGUS, "argus_server")
    url = request.getfixturevalue(fixture).url
    problems = []
    for track in demo.bench.tracks:
        references = _references(demo, track)
        assert references, f"the {track.id} demo board should carry a reference policy"
        visit = _open(browser, f"{url}/?track={track.id}&cols=All", LAPTOP, True, None)
        try:
            page = visit.page
            expect(page.locator("#board-table")).to_contain_text(next(iter(references)))
            status = page.locator("#board-status").inner_text()
            if f"{len(references)} reference row" not in status:
                problems.append(f"{track.id}: the status line counts no references: {status}")
            for rank, name in page.evaluate(ROWS_JS):
                if name in references and rank != "ref.":
                    problems.append(f"{track.id}: {name} ranked {rank!r}")
                if name not in references and rank == "ref.":
                    problems.append(f"{track.id}: {name} is an entry shown as a reference")
            notes = page.locator("#board-notes").inner_text()
            for name, what in references.items():
                if f"ref. {name}: a reference policy ({what})" not in notes:
                    problems.append(f"{track.id}: the notes do not say what {name} is: {notes}")
            page.locator("#chart-tabs [role=tab]", has_text="By model size").click()
            page.wait_for_selector("#size-chart svg.marks", timeout=TIMEOUT_MS)
            texts, points = page.evaluate(SIZE_CHART_JS)
            for name in references:
                if not any(re.match(rf"{re.escape(name)}: \d", t) for t in texts):
                    problems.append(f"{track.id}: {name} is no level of the size chart")
                if any(f"Method: {name};" in p for p in points):
                    problems.append(f"{track.id}: {name} is a point of the size chart")
            assert not visit.errors, visit.errors
        finally:
            visit.context.close()
    assert not problems, "\n".join(problems)
