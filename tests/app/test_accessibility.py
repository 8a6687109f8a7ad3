"""Accessibility of every tab of both benchmarks: axe-core in Debian Chromium, on a laptop and
a phone, in the light theme and the dark one.

axe-core is the npm package pinned in tests/axe/package.json (``make axe`` installs it with
``npm ci --prefix tests/axe``); each page gets ``axe.min.js`` by ``page.add_script_tag`` and
``axe.run`` checks it in each state a visitor can reach: the Leaderboard (each track, a row's
card open, the Filters open, each chart sub-tab), Score (before a file, after the demo sample,
after a refused file) and About. A state passes with no critical or serious violation, every
text meets WCAG AA's contrast as computed from the styles Chromium draws it with
(tests.support.contrast: axe leaves out what it cannot decide, and it passed the demo banner's
pale text on its cream box in dark mode, issue 31), every control Chromium exposes has an
accessible name, and nothing the page says (a name, a live region) is an untranslated Gradio
i18n key such as ``common.complete``. The dark theme is asked for as a visitor does: on the
laptop by the address (Gradio's ``?__theme=dark``), on the phone by the system's colour scheme,
which Gradio follows. The servers, the browser
and ``_open`` are tests/app/test_browser.py's. A failure lists every problem of the run: the axe
rule, its impact and help, and the first few selectors.
"""

from __future__ import annotations

import importlib.util
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.app.test_browser import (  # noqa: F401  (the fixtures are used by name)
    ARGUS,
    BOARD_LOADED,
    EGOMEM,
    PHONE,
    SCREENSHOTS,
    SETTLED_JS,
    TIMEOUT_MS,
    Demo,
    Visit,
    _open,
    _top_row,
    argus_server,
    board_shows,
    browser,
    server,
)
from tests.support.app_server import ROOT
from tests.support.contrast import contrast_problems

AXE = ROOT / "tests" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
REPORTS = ROOT / "test-output" / "accessibility"
LAPTOP = {"width": 1280, "height": 800}
VIEWPORTS = {"laptop": LAPTOP, "phone": PHONE}
SITES = {"egomemreason": ("server", EGOMEM), "egoargus": ("argus_server", ARGUS)}
#: A walk's theme by device: the address's query and the system's colour scheme. The laptop asks
#: for dark by the address, the phone by its system.
THEMES: dict[tuple[str, str], tuple[str, Literal["light", "dark"]]] = {
    ("laptop", "light"): ("", "light"),
    ("phone", "light"): ("", "light"),
    ("laptop", "dark"): ("?__theme=dark", "light"),
    ("phone", "dark"): ("", "dark"),
}
FAILING_IMPACTS = ("critical", "serious")
TARGETS_SHOWN = 4

#: Violations in markup that is Gradio's own and that the app cannot change: (axe rule id, a CSS
#: selector of the offending element). One rule on one element each, never a whole rule.
GRADIO_OWN: tuple[tuple[str, str], ...] = (
    # gr.File's drop zone: Gradio hard-codes aria-label="Click to upload or drop files" on a
    # button whose visible text is "Drop File Here - or - Click to Upload" (WCAG 2.5.3).
    ("label-content-name-mismatch", "#score-upload button.upload-container"),
)

#: Chromium's roles of the things a visitor operates: each must have a name.
CONTROL_ROLES = frozenset(
    {
        "button",
        "link",
        "textbox",
        "searchbox",
        "checkbox",
        "radio",
        "switch",
        "tab",
        "combobox",
        "listbox",
        "option",
        "slider",
        "spinbutton",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "treeitem",
        "DisclosureTriangle",
        "PopUpButton",
        "ToggleButton",
    }
)


def _gradio_i18n_namespaces() -> frozenset[str]:
    """The namespaces of Gradio's English messages ("common", "upload_text", ...), read from
    the installed frontend bundle: a text "<namespace>.<key>" on the page is a key that was
    shown untranslated."""
    found = importlib.util.find_spec("gradio")
    assert found is not None and found.origin is not None, "gradio is not installed"
    assets = Path(found.origin).parent / "templates" / "frontend" / "assets"
    bundles = sorted(assets.glob("en-*.js"))
    assert bundles, f"no English messages bundle (en-*.js) in {assets}"
    exported = re.search(r"export\{([^}]*)\}", bundles[0].read_text(encoding="utf-8"))
    assert exported, f"unexpected layout of {bundles[0]}: no export list"
    names = set(re.findall(r"\bas ([a-z_]+)\b", exported.group(1)))
    names -= {"default", "_name"}
    assert "common" in names, f"unexpected layout of {bundles[0]}: {sorted(names)}"
    return frozenset(names)


I18N_KEY = re.compile(
    r"(?<![\w.])(?:" + "|".join(sorted(_gradio_i18n_namespaces())) + r")\.[a-z][a-z0-9_]*\b"
)


# --- what the page says, as axe and Chromium's accessibility tree see it -----------------------

# axe's violations, each node with the index of the GRADIO_OWN (rule, element) it is, or -1.
AXE_RUN_JS = """async (excepted) => {
    const result = await axe.run(document, {resultTypes: ['violations']});
    const exception = (rule, target) => {
        const el = target.length === 1 ? document.querySelector(target[0]) : null;
        return excepted.findIndex(([r, selector]) => r === rule && el?.matches(selector));
    };
    return result.violations.map(v => ({
        id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
        nodes: v.nodes.map(n => ({target: n.target.map(String).join(' '), html: n.html,
                                  summary: n.failureSummary,
                                  gradio_own: exception(v.id, n.target)})),
    }));
}"""

# Every text the page gives a screen reader outside Chromium's tree of names: text nodes
# (hidden live regions included) and the attributes read aloud.
SPOKEN_TEXTS_JS = """() => {
    const found = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent.trim();
        if (!text || node.parentElement?.closest('script, style')) continue;
        const el = node.parentElement;
        found.push([text, el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
                    (el.className && typeof el.className === 'string'
                     ? '.' + el.className.trim().split(/\\s+/).join('.') : '')]);
    }
    for (const el of document.querySelectorAll('[aria-label], [title], [alt], [placeholder]')) {
        for (const attr of ['aria-label', 'title', 'alt', 'placeholder']) {
            const value = el.getAttribute(attr);
            if (value) found.push([value, `${el.tagName.toLowerCase()}[${attr}]`]);
        }
    }
    return found;
}"""


# What live regions say as the page changes: Gradio clears its status announcements a second
# later, so they are recorded as they are written (from before the page's first script on).
RECORD_LIVE_JS = """(() => {
    window.__heard = [];
    const LIVE = '[aria-live]:not([aria-live=off]), [role=status], [role=alert], [role=log]';
    new MutationObserver(mutations => {
        for (const m of mutations) {
            const node = m.target.nodeType === Node.ELEMENT_NODE
                ? m.target : m.target.parentElement;
            const region = node?.closest(LIVE);
            const text = region?.textContent.trim();
            if (text) window.__heard.push([text, region.tagName.toLowerCase() +
                (region.className && typeof region.className === 'string'
                 ? '.' + region.className.trim().split(/\\s+/).join('.') : '') +
                `[role=${region.getAttribute('role')}]`]);
        }
    }).observe(document, {subtree: true, childList: true, characterData: true});
})();"""

HEARD_JS = "() => window.__heard.splice(0)"


@dataclass(frozen=True)
class Problem:
    """One thing to fix, in one state of the page."""

    where: str  # "egoargus laptop Leaderboard (Decision)"
    what: str

    def __str__(self) -> str:
        return f"[{self.where}] {self.what}"


def _axe_problems(
    page: Page, where: str, report: dict[str, Any], excepted: set[int]
) -> list[Problem]:
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    violations = page.evaluate(AXE_RUN_JS, [list(pair) for pair in GRADIO_OWN])
    report[where] = violations
    problems = []
    for v in violations:
        excepted.update(n["gradio_own"] for n in v["nodes"] if n["gradio_own"] >= 0)
        nodes = [n for n in v["nodes"] if n["gradio_own"] < 0]
        if v["impact"] not in FAILING_IMPACTS or not nodes:
            continue
        targets = [n["target"] for n in nodes]
        shown = ", ".join(targets[:TARGETS_SHOWN]) + (
            f" (+{len(targets) - TARGETS_SHOWN} more)" if len(targets) > TARGETS_SHOWN else ""
        )
        summary = " ".join((nodes[0]["summary"] or "").split())
        problems.append(
            Problem(
                where,
                f"axe {v['id']} ({v['impact']}): {v['help']} — {shown}. {summary} <{v['helpUrl']}>",
            )
        )
    return problems


def _describe(cdp: Any, backend_id: int | None) -> str:
    """A node's tag, id and classes, for a message ("button#board-refresh.lg")."""
    if backend_id is None:
        return "?"
    try:
        node = cdp.send("DOM.describeNode", {"backendNodeId": backend_id})["node"]
    except Exception:  # a node gone since the tree was read
        return "?"
    attrs = node.get("attributes", [])
    pairs = dict(zip(attrs[::2], attrs[1::2], strict=False))
    text = str(node.get("localName") or node.get("nodeName", "?").lower())
    if pairs.get("id"):
        text += "#" + pairs["id"]
    if pairs.get("class"):
        text += "." + ".".join(pairs["class"].split()[:3])
    for attr in ("data-testid", "type", "role"):
        if pairs.get(attr):
            text += f"[{attr}={pairs[attr]}]"
    return text


def _name_problems(page: Page, where: str) -> list[Problem]:
    """Controls without a name, and untranslated i18n keys anywhere a screen reader reads."""
    nameless: list[str] = []
    keys: dict[str, set[str]] = {}
    # Chromium's own accessibility tree: the names it computed, as a screen reader gets them.
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Accessibility.enable")
        for node in cdp.send("Accessibility.getFullAXTree")["nodes"]:
            if node.get("ignored"):
                continue
            role = str(node.get("role", {}).get("value", ""))
            name = str(node.get("name", {}).get("value", "")).strip()
            said = I18N_KEY.findall(name)
            if (role in CONTROL_ROLES and not name) or said:
                element = f"{role} {_describe(cdp, node.get('backendDOMNodeId'))}"
                if not name:
                    nameless.append(element)
                for key in said:
                    keys.setdefault(key, set()).add(element)
    finally:
        cdp.detach()
    for text, element in [*page.evaluate(SPOKEN_TEXTS_JS), *page.evaluate(HEARD_JS)]:
        for key in I18N_KEY.findall(text):
            keys.setdefault(key, set()).add(element)
    problems = []
    if nameless:
        problems.append(
            Problem(
                where,
                f"{len(nameless)} controls have no accessible name: "
                + "; ".join(sorted(set(nameless))[: TARGETS_SHOWN * 2]),
            )
        )
    for key, places in sorted(keys.items()):
        problems.append(
            Problem(
                where,
                f"untranslated Gradio i18n key {key!r} read out by: "
                + "; ".join(sorted(places)[:TARGETS_SHOWN]),
            )
        )
    return problems


@dataclass
class Audit:
    """What the walk through one page found: problems to fix, and axe's whole answer by state
    (written to test-output/accessibility/ for a reviewer)."""

    label: str  # "egoargus phone"
    problems: list[Problem] = field(default_factory=list)
    report: dict[str, Any] = field(default_factory=dict)
    excepted: set[int] = field(default_factory=set)  # the GRADIO_OWN entries met

    def write(self) -> Path:
        REPORTS.mkdir(parents=True, exist_ok=True)
        path = REPORTS / f"{self.label.replace(' ', '-')}.json"
        path.write_text(json.dumps(self.report, indent=1), encoding="utf-8")
        return path

    def check(self, visit: Visit, state: str) -> None:
        """axe, the contrast and the names, on the page as it is now ("Score, a refused
        file"), photographed for a reviewer (test-output/screenshots/theme-*.png: every state
        of every track, in both themes, on a laptop and a phone)."""
        where = f"{self.label} {state}"
        visit.page.evaluate(SETTLED_JS)
        slug = re.sub(r"[^a-z0-9]+", "-", where.lower()).strip("-")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        visit.page.screenshot(path=str(SCREENSHOTS / f"theme-{slug}.png"), full_page=True)
        self.problems.extend(_axe_problems(visit.page, where, self.report, self.excepted))
        self.problems.extend(Problem(where, p) for p in contrast_problems(visit.page))
        self.problems.extend(_name_problems(visit.page, where))


# --- walking through the page --------------------------------------------------------------------


def _board_settled(visit: Visit) -> None:
    expect(visit.page.locator("#board-status")).to_contain_text(BOARD_LOADED, timeout=TIMEOUT_MS)


def _audit_leaderboard(visit: Visit, demo: Demo, audit: Audit) -> None:
    page = visit.page
    tracks = demo.bench.tracks
    for track in tracks:
        where = "Leaderboard" + (f" ({track.title})" if len(tracks) > 1 else "")
        if len(tracks) > 1:
            page.locator("#board-track label", has_text=track.title).click()
            expect(page.locator("#board-track input:checked")).to_have_value(track.id)
            board_shows(page, track.id)  # the switch, then the board that follows it
            _board_settled(visit)
        audit.check(visit, where)
        for chart_tab in page.locator("#chart-tabs [role=tab]").all()[1:]:
            chart_tab.click()
            audit.check(visit, f"{where}, chart tab {chart_tab.inner_text().strip()!r}")
        opener = page.locator("#board-table .entry-open").first
        if opener.count():
            opener.click()
            expect(page.locator("#entry-card-box")).to_be_visible(timeout=TIMEOUT_MS)
            expect(page.locator("#entry-card")).to_contain_text(opener.inner_text().strip())
            audit.check(visit, f"{where}, a row's card open")
            page.locator("#entry-card-close").click()
            expect(page.locator("#entry-card-box")).to_be_hidden(timeout=TIMEOUT_MS)
    filters = page.locator("#board-filters")
    filters.get_by_role("button", name="Filters").first.click()
    expect(filters.locator("input[type=checkbox]").first).to_be_visible(timeout=TIMEOUT_MS)
    audit.check(visit, "Leaderboard, Filters open")


def _choose(page: Page, path: Path) -> None:
    """The Score tab's file input (a file of any name: its bytes are read)."""
    chooser = page.locator("#score-upload input[type=file]")
    expect(chooser).to_have_count(1)
    chooser.set_input_files(str(path))


def _audit_score(visit: Visit, demo: Demo, refused: Path, audit: Audit) -> None:
    page = visit.page
    visit.tab("Score")
    expect(page.locator("#score-upload")).to_be_visible()
    audit.check(visit, "Score, no file yet")
    _choose(page, demo.sample)
    expect(page.locator("#score-summary")).to_contain_text("Overall:", timeout=TIMEOUT_MS)
    page.wait_for_selector("#score-chart [data-testid=altair] svg.marks", timeout=TIMEOUT_MS)
    audit.check(visit, "Score, the demo sample scored")
    # As a visitor does: the file chosen removed (its x), then the next one chosen.
    page.locator("#score-upload button[aria-label='Clear']").first.click()
    _choose(page, refused)
    expect(page.locator("#score-error")).to_be_visible(timeout=TIMEOUT_MS)
    audit.check(visit, "Score, a refused file")


def _audit_about(visit: Visit, audit: Audit) -> None:
    visit.tab("About")
    expect(visit.page.locator("#citation")).to_be_visible()
    audit.check(visit, "About")


# --- the tests -----------------------------------------------------------------------------------


@pytest.mark.browser  # what the browser tier installs (make test: make axe); make check does not
def test_axe_core_is_installed() -> None:
    assert AXE.is_file(), (
        f"{AXE.relative_to(ROOT)} is missing: run `make axe` (npm ci "
        "--prefix tests/axe; as root it installs Debian's nodejs and npm "
        "first). The accessibility tests must run, not skip."
    )


def test_the_i18n_key_pattern_finds_what_a_screen_reader_was_heard_saying() -> None:
    """Guards the check below: it must catch the key observed, and not a file name."""
    assert I18N_KEY.findall("common.complete") == ["common.complete"]
    assert I18N_KEY.findall("Drop File Here - or - upload_text.click_to_upload")
    assert not I18N_KEY.findall("sample_submission.json · results.json · 1.5 s")


def _open_listening(
    chromium: Browser,
    url: str,
    viewport: dict[str, int],
    demo: Demo,
    scheme: Literal["light", "dark"] = "light",
) -> Visit:
    """The page as tests/app/test_browser.py opens it, reloaded with the live regions recorded
    from the start (the load's own announcements included)."""
    visit = _open(chromium, url, viewport, chart=False, row=_top_row(demo), color_scheme=scheme)
    visit.page.add_init_script(RECORD_LIVE_JS)
    visit.page.reload()
    _board_settled(visit)
    if demo.records:
        expect(visit.page.locator("#board-table")).to_contain_text(_top_row(demo) or "")
        visit.page.wait_for_selector("#board-chart [data-testid=altair] svg.marks")
    return visit


@pytest.mark.server
@pytest.mark.browser
@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("device", list(VIEWPORTS))
@pytest.mark.parametrize("bench_id", list(SITES))
def test_every_tab_has_no_serious_violation_and_names_every_control(
    request: pytest.FixtureRequest,
    browser: Browser,  # noqa: F811
    tmp_path: Path,
    bench_id: str,
    device: str,
    theme: str,
) -> None:
    assert AXE.is_file(), f"{AXE.relative_to(ROOT)} is missing: run `make axe`"
    fixture, demo = SITES[bench_id]
    url = request.getfixturevalue(fixture).url
    refused = tmp_path / "results.json"
    refused.write_text('{"results": []}', encoding="utf-8")
    audit = Audit(f"{bench_id} {device} {theme}")
    query, scheme = THEMES[device, theme]
    visit = _open_listening(browser, url + "/" + query, VIEWPORTS[device], demo, scheme)
    try:
        dark = visit.page.evaluate("document.body.classList.contains('dark')")
        assert dark == (theme == "dark"), f"the page is not in the {theme} theme"
        _audit_leaderboard(visit, demo, audit)
        _audit_score(visit, demo, refused, audit)
        _audit_about(visit, audit)
    finally:
        visit.context.close()
        report = audit.write()
    found = audit.problems + [
        Problem(
            audit.label,
            f"GRADIO_OWN {rule} on {selector} was not met: if Gradio fixed "
            "it, remove the exception",
        )
        for i, (rule, selector) in enumerate(GRADIO_OWN)
        if i not in audit.excepted
    ]
    assert not found, (
        f"{len(found)} accessibility problems (axe's whole answer: {report}):\n"
        + "\n".join(map(str, found))
    )


#: A page of texts whose contrast is known (WebAIM's contrast checker gives the same ratios):
#: each ``data-expect`` says whether it must be found under AA.
CONTRAST_CASES = """<body style="background:#fff;margin:0">
<p data-expect="pass" style="color:#767676">4.54:1, just AA</p>
<p data-expect="fail" style="color:#777777">4.48:1, just under</p>
<div style="background:#fff7e0"><p data-expect="fail" style="color:#f3f4f6">pale on cream</p></div>
<div style="opacity:0.5"><p data-expect="fail" style="color:#000">black at half opacity</p></div>
<div style="background:rgba(0,0,0,0.7)"><p data-expect="pass" style="color:#fff">white on 70 %
black over white: 8.4:1</p></div>
<div style="background:rgba(0,0,0,0.5)"><p data-expect="fail" style="color:#fff">white on 50 %
black over white: 3.9:1</p></div>
<p data-expect="pass" style="color:#949494;font-size:24px">3.03:1, large</p>
<p data-expect="fail" style="color:#949494;font-size:16px">3.03:1, not large</p>
<span data-expect="skip" style="position:absolute;width:1px;height:1px;overflow:hidden;
  clip:rect(0 0 0 0);color:#eee">visually hidden</span>
<button disabled data-expect="skip" style="color:#ddd">disabled</button>
<input data-expect="fail" placeholder="pale placeholder" style="color:#000">
<style>input::placeholder {color: #bbbbbb}</style>
<svg width="200" height="40" style="background:#fff"><text data-expect="fail" x="5" y="20"
  style="fill:#cccccc">pale chart text</text></svg>
</body>"""


@pytest.mark.browser
def test_the_contrast_check_finds_what_falls_short_of_aa_and_no_more(
    browser: Browser,  # noqa: F811
) -> None:
    """Guards the computed contrast above: it must catch each known failure, and pass (or skip)
    each known pass."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_content(CONTRAST_CASES)
        found = "\n".join(contrast_problems(page))
        cases = page.evaluate(
            "() => [...document.querySelectorAll('[data-expect]')]"
            ".map(e => [e.dataset.expect, e.textContent.trim() || e.placeholder])"
        )
        for expect_, text in cases:
            assert (repr(text) in found) == (expect_ == "fail"), (expect_, text, found)
    finally:
        context.close()
