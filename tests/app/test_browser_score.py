"""The Score tab in a real browser: Debian Chromium driven by Playwright against ``python app.py``.

The servers, the browser and ``_open`` are tests/app/test_browser.py's. Expected values come from
the spec, the demo files and the evaluator, never from the app: the rank a file would take is
counted here from the demo records' own intervals. Screenshots land in test-output/screenshots/
(``<benchmark>-score-result[-phone].png``, ``<benchmark>-score-error[-phone].png``,
``egomemreason-score-too-big[-phone].png``, ``egomemreason-score-csv[-phone].png``,
``egomemreason-score-jsonl.png``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect

import evaluator
import spec
from ledger import submission_file
from tests.app.test_browser import (  # noqa: F401  (the fixtures are used by name)
    ARGUS,
    DESKTOP,
    EGOMEM,
    PHONE,
    SCREENSHOTS,
    TIMEOUT_MS,
    Demo,
    Visit,
    _open,
    _top_row,
    argus_server,
    browser,
    server,
)

DEVICES = {"desktop": DESKTOP, "phone": PHONE}
SITES = {"egomemreason": ("server", EGOMEM), "egoargus": ("argus_server", ARGUS)}
SHA256 = re.compile(r"^[0-9a-f]{64}$")


# --- what the page should show, worked out here ---------------------------------------------------


def _wilson(correct: int, total: int) -> tuple[float, float]:
    return evaluator.wilson_interval(correct, total)


def _row_interval(record: dict[str, Any], track: spec.Track) -> tuple[float, float]:
    """A demo row's interval of the ranking metric, as a board reads it: the one it keeps, else
    Wilson's from its count, else from its percentage over the track's size; else its value."""
    key = track.ranking
    value = float(record["metrics"][key])
    if record.get("intervals") and key in record["intervals"]:
        low, high = record["intervals"][key]
        return float(low), float(high)
    if record.get("counts") and key in record["counts"]:
        count = record["counts"][key]
        return _wilson(int(count["correct"]), int(count["total"]))
    size = getattr(track, "sizes", {}).get(key)
    if size and track.display[key] == "percent":
        return _wilson(round(value * size / 100), size)
    return value, value


def expected_rank(
    demo: Demo, track: spec.Track, result: evaluator.ScoreResult
) -> tuple[int, int, int]:
    """(rank, worst rank, of n) by the board's rule, counted by hand: 1 + rows whose interval
    lies entirely above the file's, and n - rows whose interval lies entirely below it, among
    the rows ranked by the track's ranking metric (re-scored ones, and paper rows ranked by it),
    reference rows aside (the track's reference_of: a reference policy is shown, not ranked)."""
    key = track.ranking
    folder = demo.bench.demo_board / "submissions"
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
    mine = [
        r
        for r in records
        if (r.get("track") or demo.bench.unnamed_records_track) == track.id
        and r.get("benchmark") in (None, demo.bench.id)
    ]
    hidden = {r["supersedes"] for r in mine if r.get("supersedes")}
    ranked_by = {r["source"]: track.ranking_for(r["source"]) for r in mine}
    rows = [
        r
        for r in mine
        if r["id"] not in hidden
        and ranked_by[r["source"]] == key
        and key in r["metrics"]
        and track.reference_of(r["method_name"], r["metrics"]) is None
    ]
    low, high = result.intervals[key]
    intervals = [_row_interval(r, track) for r in rows]
    above = sum(1 for lo, _ in intervals if lo > high)
    below = sum(1 for _, hi in intervals if hi < low)
    n = len(rows) + 1
    return 1 + above, n - below, n


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


# --- pages --------------------------------------------------------------------------------------


@pytest.fixture
def visit_site(
    request: pytest.FixtureRequest,
    browser: Browser,  # noqa: F811
) -> Iterator[Callable[[str, dict[str, int]], Visit]]:
    """A fresh page of one benchmark's server per call, on the Score tab."""
    visits: list[Visit] = []

    def open_(bench_id: str, viewport: dict[str, int] = DESKTOP) -> Visit:
        fixture, demo = SITES[bench_id]
        url = request.getfixturevalue(fixture).url
        visits.append(_open(browser, url, viewport, chart=False, row=_top_row(demo)))
        visits[-1].tab("Score")
        return visits[-1]

    yield open_
    for visit in visits:
        visit.context.close()


def _off_board(tmp_path: Path, sample: Path) -> Path:
    """The demo sample with its first answer changed: each demo sample is a row of its demo
    board, whose answers Score names instead of ranking them (issue 19)."""
    entries = json.loads(sample.read_text(encoding="utf-8"))
    first = entries[0]
    if "assist" in first:  # a decision episode: the other decision
        entries[0] = {**first, "assist": not first["assist"]}
    else:  # a question: abstain on it
        entries[0] = {
            k: (None if k not in ("example_id", "sample_id") else v) for k, v in first.items()
        }
    path = tmp_path / f"off-board-{sample.name}"
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


def _choose(page: Page, path: Path) -> None:
    page.locator("#score-upload input[type=file]").set_input_files(str(path))


def _mailto(page: Page) -> tuple[str, dict[str, str]]:
    """The listing link's address and its decoded subject and body."""
    href = page.locator("#score-listing").evaluate(
        "el => (el.tagName === 'A' ? el : el.querySelector('a'))?.getAttribute('href')"
    )
    assert href and href.startswith("mailto:"), href
    parts = urlsplit(href)
    fields = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
    return unquote(parts.path), fields


def _check_result(
    visit: Visit, demo: Demo, track: spec.Track, sample: Path, many: bool, shot: str
) -> None:
    page = visit.page
    key = evaluator.load_answer_key(track, demo.bench.demo_key(track).read_bytes())
    result = evaluator.score(key, sample.read_bytes())
    ranking = track.ranking
    summary = page.locator("#score-summary")
    value = track.format_metric(ranking, result.metrics[ranking])
    expect(summary).to_contain_text(f"{track.labels[ranking]}: {value}", timeout=TIMEOUT_MS)
    # The sha256 whole, in a read-only box, with a copy button that copies it.
    sha = page.locator("#score-sha256 textarea, #score-sha256 input").first
    expect(sha).to_have_value(result.submission_sha256, timeout=TIMEOUT_MS)
    assert SHA256.match(sha.input_value())
    expect(sha).not_to_be_editable()
    copy = page.locator("#score-sha256-copy")
    expect(copy).to_be_visible()
    visit.context.grant_permissions(["clipboard-read", "clipboard-write"])
    copy.click()
    page.wait_for_function(
        "(sha) => navigator.clipboard.readText().then(t => t === sha)",
        arg=result.submission_sha256,
        timeout=TIMEOUT_MS,
    )
    # Where it would rank, by the board's rule.
    best, worst, n = expected_rank(demo, track, result)
    rank = page.locator("#score-rank")
    if n == 1:
        expect(rank).to_contain_text("it would be the first entry")
    else:
        shown = _ordinal(best) if best == worst else f"{_ordinal(best)} (rank range {best}–{worst})"
        expect(rank).to_contain_text(f"would rank {shown} of {n} entries")
    expect(rank).to_contain_text("not added to the board")
    # The listing request: to the spec's contact, the sha256 whole, the track, the fields.
    expect(page.locator("#score-listing")).to_be_visible()
    address, fields = _mailto(page)
    assert address == demo.bench.contact_email
    assert demo.bench.title in fields["subject"]
    body = fields["body"]
    assert f"File sha256: {result.submission_sha256}" in body
    assert f"Track: {track.title} ({track.id})" in body
    assert f"Answer key version: {result.key_version or '(unversioned)'}" in body
    for wanted in (
        "Method name:",
        "Team:",
        "Model size",
        "Uses external data",
        demo.bench.input.label,
        *demo.bench.input.choices.values(),
        "Project or code link:",
        "Paper link:",
        "Short description",
    ):
        assert wanted in body, wanted
    page.wait_for_selector("#score-chart [data-testid=altair] svg.marks", timeout=TIMEOUT_MS)
    visit.shot(shot)
    # Before the JSON is opened: its sha256 lines are wider than a phone (page.css).
    scroll, client = visit.overflow()
    assert scroll <= client + 1, f"Score scrolls sideways: {scroll} > {client}"
    # The JSON shown is /score's: the evaluator's score, and the track on several.
    page.get_by_text("The numbers as JSON (what the /score API returns)").click()
    expect(page.locator("#score-json")).to_contain_text(result.submission_sha256)
    expect(page.locator("#score-json")).to_contain_text("answer_key_sha256")
    if many:
        expect(page.locator("#score-json")).to_contain_text(f'"{track.id}"')
    page.wait_for_selector("#score-chart [data-testid=altair] svg.marks", timeout=TIMEOUT_MS)
    expect(page.locator("#score-error")).to_be_hidden()


@pytest.mark.server
@pytest.mark.browser
@pytest.mark.parametrize("device", list(DEVICES))
@pytest.mark.parametrize("bench_id", list(SITES))
def test_a_score_shows_its_sha256_its_rank_and_a_listing_request(
    visit_site: Callable[[str, dict[str, int]], Visit], tmp_path: Path, bench_id: str, device: str
) -> None:
    demo = SITES[bench_id][1]
    sample = _off_board(tmp_path, demo.sample)
    visit = visit_site(bench_id, DEVICES[device])
    _choose(visit.page, sample)
    _check_result(
        visit,
        demo,
        demo.track,
        sample,
        many=len(demo.bench.tracks) > 1,
        shot=f"{bench_id}-score-result{'' if device == 'desktop' else '-phone'}.png",
    )
    assert not visit.errors, f"JS errors: {visit.errors}"


@pytest.mark.server
@pytest.mark.browser
def test_json_lines_named_as_published_score_in_the_page(
    visit_site: Callable[[str, dict[str, int]], Visit], tmp_path: Path
) -> None:
    """Predictions as their authors publish them (issue 28): JSON Lines named .jsonl are
    chosen, sent and scored like the same entries named .json."""
    entries = json.loads(_off_board(tmp_path, EGOMEM.sample).read_text(encoding="utf-8"))
    lines = tmp_path / "predictions.jsonl"
    lines.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    visit = visit_site("egomemreason", DESKTOP)
    _choose(visit.page, lines)
    _check_result(
        visit, EGOMEM, EGOMEM.track, lines, many=False, shot="egomemreason-score-jsonl.png"
    )
    assert not visit.errors, f"JS errors: {visit.errors}"


@pytest.mark.server
@pytest.mark.browser
def test_a_decision_score_ranks_among_the_rescored_decision_rows(
    visit_site: Callable[[str, dict[str, int]], Visit], tmp_path: Path
) -> None:
    decision = ARGUS.bench.track("decision")
    sample = _off_board(tmp_path, ARGUS.bench.demo_dir / "decision_sample_submission.json")
    visit = visit_site("egoargus", DESKTOP)
    _choose(visit.page, sample)  # the track left to the file's entries
    _check_result(
        visit, ARGUS, decision, sample, many=True, shot="egoargus-decision-score-result.png"
    )


# --- refusals -----------------------------------------------------------------------------------


def _two_problems(tmp_path: Path, demo: Demo) -> tuple[Path, evaluator.SubmissionError]:
    """A file the evaluator refuses with two problems: one id, an answer of no option."""
    track = demo.track
    entry = {
        track.fields.id: json.loads(demo.sample.read_text())[0][track.fields.id],
        track.fields.prediction: "ZZ",
    }
    bad = tmp_path / "two-problems.json"
    bad.write_text(json.dumps([entry]), encoding="utf-8")
    with pytest.raises(evaluator.SubmissionError) as refused:
        evaluator.score(demo.key(), bad.read_bytes())
    assert len(refused.value.problems) == 2
    return bad, refused.value


@pytest.mark.server
@pytest.mark.browser
@pytest.mark.parametrize("device", list(DEVICES))
@pytest.mark.parametrize("bench_id", list(SITES))
def test_a_refusal_is_a_list_under_the_upload_until_the_next_file(
    visit_site: Callable[[str, dict[str, int]], Visit], tmp_path: Path, bench_id: str, device: str
) -> None:
    demo = SITES[bench_id][1]
    bad, refused = _two_problems(tmp_path, demo)
    visit = visit_site(bench_id, DEVICES[device])
    page = visit.page
    _choose(page, bad)
    error = page.locator("#score-error")
    expect(error).to_be_visible(timeout=TIMEOUT_MS)
    items = error.locator("li")
    expect(items).to_have_count(len(refused.problems))
    for item, problem in zip(items.all(), refused.problems, strict=True):
        assert " ".join(item.inner_text().split()) == " ".join(problem.split())
    expect(error).to_contain_text("This submission cannot be scored (2 problems)")
    # Under the upload, above the (empty) results.
    upload_box = page.locator("#score-upload").bounding_box()
    error_box = error.bounding_box()
    assert upload_box and error_box and error_box["y"] >= upload_box["y"] + upload_box["height"] - 1
    # And nowhere else: no toast to pile up over the upload's clear button.
    expect(page.locator("[data-testid='toast-body']")).to_have_count(0)
    expect(page.locator("#score-summary")).not_to_contain_text("Overall")
    expect(page.locator("#score-sha256")).to_be_hidden()
    expect(page.locator("#score-listing")).to_be_hidden()
    body = page.locator("body").inner_text()
    for trace in ("Traceback", 'File "', "SubmissionError", "evaluator.py"):
        assert trace not in body, f"{trace!r} shown to the visitor"
    scroll, client = visit.overflow()
    assert scroll <= client + 1, f"Score scrolls sideways: {scroll} > {client}"
    visit.shot(f"{bench_id}-score-error{'' if device == 'desktop' else '-phone'}.png")
    # Clearing the upload clears it; the next file is scored.
    _clear(page)
    expect(error).to_be_hidden(timeout=TIMEOUT_MS)
    _choose(page, bad)  # a second refusal replaces the first: still one message, no toast
    expect(error).to_be_visible(timeout=TIMEOUT_MS)
    expect(error.locator("li")).to_have_count(len(refused.problems))
    expect(page.locator("[data-testid='toast-body']")).to_have_count(0)
    _clear(page)
    expect(error).to_be_hidden(timeout=TIMEOUT_MS)
    _choose(page, demo.sample)
    expect(page.locator("#score-summary")).to_contain_text("Overall:", timeout=TIMEOUT_MS)
    expect(error).to_be_hidden()
    assert not visit.errors, f"JS errors: {visit.errors}"


def _clear(page: Page) -> None:
    """The upload's clear button (x), as a visitor removes the file chosen."""
    page.locator("#score-upload button[aria-label='Clear']").first.click()


@pytest.mark.server
@pytest.mark.browser
def test_a_file_for_the_other_track_is_told_inline(
    visit_site: Callable[[str, dict[str, int]], Visit],
) -> None:
    decision = ARGUS.bench.track("decision")
    visit = visit_site("egoargus", DESKTOP)
    page = visit.page
    page.locator("#score-track label", has_text=decision.title).click()
    _choose(page, ARGUS.sample)
    error = page.locator("#score-error")
    expect(error).to_contain_text(
        f"This file is for the {ARGUS.track.title} track", timeout=TIMEOUT_MS
    )
    # Picking the track it fits scores the file already chosen, and the message goes.
    page.locator("#score-track label", has_text=ARGUS.track.title).click()
    expect(page.locator("#score-summary")).to_contain_text("Overall:", timeout=TIMEOUT_MS)
    expect(error).to_be_hidden()


def _refused_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Files Score refuses, and the words each is refused in: a file over 5 MB, which the page
    holds back before it sends it (in the server's words, ledger.submission_file, as /score
    words them), and a table, which is sent (any name is read by its bytes: issue 28) and
    refused in the evaluator's words."""
    big = tmp_path / "big.json"
    big.write_bytes(b"[" + b" " * (6 * 1024 * 1024) + b"]")
    table = tmp_path / "answers.csv"
    table.write_text("example_id,predicted_answer\n1,A\n", encoding="utf-8")
    key = evaluator.load_answer_key(EGOMEM.track, EGOMEM.bench.demo_key(EGOMEM.track).read_bytes())
    with pytest.raises(evaluator.SubmissionError) as not_json:
        evaluator.score(key, table.read_bytes())
    return {
        "too-big": (big, submission_file.too_big(big.stat().st_size)),
        "csv": (table, str(not_json.value).splitlines()[0]),
    }


@pytest.mark.server
@pytest.mark.browser
@pytest.mark.parametrize("device", list(DEVICES))
@pytest.mark.parametrize("refused", ["too-big", "csv"])
def test_a_file_the_space_refuses_is_told_under_the_upload_in_words(
    visit_site: Callable[[str, dict[str, int]], Visit], tmp_path: Path, refused: str, device: str
) -> None:
    """A file over 5 MB (held back before it is sent) or a table (sent, and refused by the
    evaluator) is refused under the upload like every other refusal: no toast (Gradio's piled
    up, vanished and left a bare "Error" pill), and no request the console reports as failed
    (the upload's progress stream of a file never sent was a 404)."""
    path, words = _refused_files(tmp_path)[refused]
    visit = visit_site("egomemreason", DEVICES[device])
    page = visit.page
    _choose(page, path)
    error = page.locator("#score-error")
    expect(error).to_be_visible(timeout=TIMEOUT_MS)
    expect(error).to_contain_text(words)
    upload_box = page.locator("#score-upload").bounding_box()
    error_box = error.bounding_box()
    assert upload_box and error_box and error_box["y"] >= upload_box["y"] + upload_box["height"] - 1
    expect(page.locator("[data-testid='toast-body']")).to_have_count(0)
    expect(page.locator("#score-summary")).not_to_contain_text("Overall")
    scroll, client = visit.overflow()
    assert scroll <= client + 1, f"Score scrolls sideways: {scroll} > {client}"
    visit.shot(f"egomemreason-score-{refused}{'' if device == 'desktop' else '-phone'}.png")
    # A file that was sent stays chosen, as every file the evaluator refuses does: the visitor
    # clears it to choose another (a file held back was never chosen).
    sent = refused == "csv"
    # The same file again: still one message, still no toast.
    if sent:
        _clear(page)
    _choose(page, path)
    expect(error).to_contain_text(words, timeout=TIMEOUT_MS)
    expect(page.locator("[data-testid='toast-body']")).to_have_count(0)
    # A file that scores replaces the refusal.
    if sent:
        _clear(page)
    _choose(page, EGOMEM.sample)
    expect(page.locator("#score-summary")).to_contain_text("Overall:", timeout=TIMEOUT_MS)
    expect(error).to_be_hidden()
    assert not visit.errors, f"console errors: {visit.errors}"
