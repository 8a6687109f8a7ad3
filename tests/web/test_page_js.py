"""The page's JavaScript, files of web/js/ (web.page_js): every file sent whole by the page
that wires it, each value the Python side decides filled in where the file asks for it (as
JSON, a JavaScript literal), and every script of the shape Gradio runs it in.

What each script does in a page is the browser tests' (the upload check: test_browser_score;
the table, the address and the card: test_browser, test_board_address_browser; the charts'
re-measure: test_charts_browser).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import app
import evaluator
import guard
import ledger
import spec
from ledger import submission_file
from web import page_js
from web.board.address import PARAMS
from web.page_js import PLACEHOLDER, page_script


def _config(bench_id: str) -> dict[str, Any]:
    """The config Gradio sends a browser for the page of ``bench_id``'s first track."""
    bench = spec.load_benchmark(bench_id)
    track = bench.tracks[0]
    key = evaluator.load_answer_key(track, bench.demo_key(track).read_bytes())
    status = ledger.KeyStatus(key, "synthetic demo key", demo=True, error=None)
    board = ledger.BoardCache(ledger.LocalStore(bench.demo_board), bench, track)
    limiter = guard.ScoreLimiter(guard.ScoreLimits(limit=3, window_s=3600))
    return dict(app.build_demo(bench, track, lambda: status, board, limiter).config)


def _scripts(config: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The page's scripts as Gradio sends them: its events' ``js`` (function expressions) and its
    components' ``js_on_load`` (function bodies)."""
    events = [d["js"] for d in config["dependencies"] if d.get("js")]
    bodies = [
        c["props"]["js_on_load"]
        for c in config["components"]
        if c.get("props", {}).get("js_on_load")
    ]
    return events, bodies


@pytest.fixture(scope="module")
def scripts() -> tuple[list[str], list[str]]:
    return _scripts(_config("egomemreason"))


def test_every_file_of_web_js_is_sent_whole_by_the_page(
    scripts: tuple[list[str], list[str]],
) -> None:
    sent = [*scripts[0], *scripts[1]]
    files = sorted(page_js.FOLDER.glob("*.js"))
    assert len(files) >= 9, files
    for path in files:
        pieces = PLACEHOLDER.split(path.read_text(encoding="utf-8"))[::2]  # around each one
        assert any(all(piece in script for piece in pieces) for script in sent), path.name


def test_the_page_s_scripts_carry_the_values_the_python_side_decides(
    scripts: tuple[list[str], list[str]],
) -> None:
    events, bodies = scripts
    [check] = [s for s in events if "scoreUploadCheck" in s]
    assert f"const limit = {submission_file.LIMIT_BYTES};" in check
    [table] = [s for s in bodies if "boardParams" in s]
    assert f"const boardParams = {json.dumps(list(PARAMS))};" in table
    assert json.loads(json.dumps(list(PARAMS))) == [
        "track", "q", "cols", "source", "external", "input", "size", "sort", "rev", "entry"
    ]  # fmt: skip
    assert not [s for s in [*events, *bodies] if PLACEHOLDER.search(s)]


def test_a_placeholder_and_its_fill_match_one_for_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "two.js").write_text(
        "const a = __NAMES__;\nconst b = __LIMIT__;\nconst c = __NAMES__;\n", encoding="utf-8"
    )
    monkeypatch.setattr(page_js, "FOLDER", tmp_path)
    names = ['say "hi"', "</script>"]
    text = page_script("two.js", NAMES=names, LIMIT=5)
    assert text == f"const a = {json.dumps(names)};\nconst b = 5;\nconst c = {json.dumps(names)};\n"
    with pytest.raises(ValueError, match=r"web/js/two\.js: placeholder __LIMIT__ left unfilled"):
        page_script("two.js", NAMES=names)
    with pytest.raises(ValueError, match=r"web/js/two\.js: no placeholder __OTHER__ to fill"):
        page_script("two.js", NAMES=names, LIMIT=5, OTHER=1)


#: Each script compiled by node as Gradio's page compiles it (js/core/src/dependency.ts,
#: process_frontend_fn; js/html's js_on_load), never run: what fails to compile is printed.
COMPILE = """
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
const {events, bodies} = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const failed = [];
for (const text of events) {
  try { new AsyncFunction('__fn_args', `let result = await (${text})(...__fn_args);`); }
  catch (e) { failed.push(`${e}: ${text}`); }
}
for (const text of bodies) {
  try { Function('element', 'trigger', 'props', 'server', 'upload', 'watch', text); }
  catch (e) { failed.push(`${e}: ${text}`); }
}
console.log(JSON.stringify(failed));
"""


def _uncompiled(events: list[str], bodies: list[str]) -> list[str]:
    node = shutil.which("node")
    assert node, "node is missing: `make axe` installs it (Debian's nodejs)"
    done = subprocess.run(
        [node, "-e", COMPILE],
        input=json.dumps({"events": events, "bodies": bodies}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    failed: list[str] = json.loads(done.stdout)
    return failed


@pytest.mark.slow
@pytest.mark.parametrize("bench_id", ["egomemreason", "egoargus"])
def test_every_script_compiles_as_gradio_s_page_runs_it(bench_id: str) -> None:
    events, bodies = _scripts(_config(bench_id))
    assert len(events) >= 6 and len(bodies) >= 2, (events, bodies)
    assert _uncompiled(events, bodies) == []
    # The check can fail: a ';' after an event's function, a body that is not one.
    assert len(_uncompiled(["() => 1;"], ["element.click("])) == 2
