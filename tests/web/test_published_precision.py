"""A percent at the precision its benchmark publishes (issue 28, item 4): a track's ``decimals``.

Before, a percent was fixed at one decimal: a release whose authors print 67.55 was shown 67.5
on the board, the card, the Score tab and /score. Here a release scaffolded with
``new_benchmark.py --decimals 2`` and its authors' row published with ``publish_submission.py``
(``tests.support.two_decimals``: Overall 102 of 151, 67.5497 %) is read by the page's own
handlers: every place that rounds shows 67.55, records and the JSON download keep the full
value. And without the key both shipped benchmarks show what they showed, every number at the
decimals of before (``TODAY``, written here, not read from the code).
"""

from __future__ import annotations

import asyncio
import csv
import json
import logging
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import gradio as gr
import pytest
from starlette.requests import Request

import evaluator
import guard
import ledger
import spec
from scripts import new_benchmark
from tests.support.board_html import read_board
from tests.support.demo_keys import demo_key
from tests.support.two_decimals import CHANCE, METHOD, OVERALL, RIGHT, Release, write_release
from web import score_handlers, score_view
from web.board import chart_handlers
from web.board import handlers as board_handlers
from web.board.layout import board_layout
from web.served import Served

#: The decimals each display was shown with before the spec could say (issue 28).
TODAY = {"percent": 1, "ratio": 3, "seconds": 2, "count": 0}
WILSON = evaluator.wilson_interval(sum(RIGHT.values()), 151)


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Release:
    return write_release(tmp_path_factory.mktemp("two-decimals"))


@pytest.fixture(autouse=True)
def exports_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The tab's export folders under this test's own folder."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield


def _served(
    bench: spec.Benchmark, track: spec.Track, loaded: evaluator.AnyKey, board: Path
) -> Served:
    cache = ledger.BoardCache(ledger.LocalStore(board), bench, track, clock=lambda: 1_000.0)
    return Served(track, lambda: ledger.KeyStatus(loaded, "a local key", False, None), cache)


def _board(release: Release) -> tuple[board_handlers.BoardTab, Served]:
    bench = spec.load_benchmark(str(release.folder))
    track = bench.track()
    key = evaluator.load_answer_key(track, release.key.read_bytes())
    served = _served(bench, track, key, release.board)
    return board_handlers.board_tab(bench, [served], lambda: 1_090.0), served


def _request() -> gr.Request:
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/",
        "headers": [],
        "query_string": b"",
        "client": ("203.0.113.9", 50_000),
    }
    return gr.Request(Request(scope))


def _interval(low: float, high: float, digits: int) -> str:
    return f"{low:.{digits}f}–{high:.{digits}f}"


# --- a two-decimal release -------------------------------------------------------------------


def test_the_scaffold_flag_writes_the_key_and_the_scripts_say_two_decimals(
    release: Release, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "refused"
    argv = ["--id", "x", "--key", str(release.key), "--out", str(out), "--decimals", "7"]
    assert new_benchmark.main(argv) != 0 and not out.exists()
    assert "--decimals: expected 0 to 4, got '7'" in capsys.readouterr().err
    bench = spec.load_benchmark(str(release.folder))
    assert bench.track().decimals == 2
    assert "decimals = 2" in (release.folder / spec.SPEC_FILENAME).read_text(encoding="utf-8")
    assert f"{METHOD} by Authors: Overall 67.55 % (102/151)" in release.published
    assert f"(chance {CHANCE:.2f} %)" in release.published and f"{CHANCE:.2f}" == "23.31"
    [path] = (release.board / "submissions").iterdir()
    record = ledger.Record.from_json(path.read_bytes())
    assert record.metrics["overall"] == OVERALL != 67.55  # the record keeps the full value
    assert ledger.commit_message(record, bench.track()).endswith("(re-scored, overall 67.55)")


def test_the_board_its_csv_and_its_card_show_two_decimals(release: Release) -> None:
    tab, served = _board(release)
    table, _, _, csv_path, json_path, _ = board_handlers.view(
        tab, "", [], [], [], [], "All", None, None
    )
    headers, [row] = read_board(table)
    cells = dict(zip(headers, row, strict=True))
    assert cells["Overall"] == "67.55"
    labels = served.track.labels  # the groups' headers, as the scaffold wrote them
    assert cells[labels["perception"]] == "67.11" and cells[labels["reasoning"]] == "68.00"
    assert cells["Overall 95% CI"] == _interval(*WILSON, 2)
    with open(csv_path, encoding="utf-8-sig", newline="") as file:
        [exported] = list(csv.DictReader(file))
    assert exported["Overall"] == "67.55" and exported["Overall 95% CI"] == _interval(*WILSON, 2)
    # The JSON download keeps full precision.
    [raw] = json.loads(Path(json_path).read_text(encoding="utf-8"))
    assert raw["overall"] == OVERALL and raw["overall_ci_low"] == WILSON[0]
    # The card: the value with its unit and its interval.
    record = served.board.snapshot().records[0]
    _, card = board_handlers.card(tab, str(record.id), served)
    assert '<td class="num">67.55 %</td>' in card
    assert f'<td class="num">{_interval(*WILSON, 2)}</td>' in card
    assert "67.5 %" not in card and "67.6 %" not in card


def test_the_charts_label_tooltips_and_chance_with_two_decimals(release: Release) -> None:
    tab, served = _board(release)
    _, _, split, size, date = chart_handlers.charts_of(tab, served)
    for plot in (size, date):
        chart = json.loads(plot.plot)
        [point] = chart["data"]["values"]
        assert point["Value"] == 67.55
        assert (point["Low"], point["High"]) == (round(WILSON[0], 2), round(WILSON[1], 2))
        formats = {
            t["field"]: t.get("format")
            for layer in _layers(chart)
            for t in layer.get("encoding", {}).get("tooltip", [])
        }
        assert formats["Value"] == formats["Low"] == ".2f"
        assert _levels(chart) == {f"Chance: {CHANCE:.2f} %"}
    # The chart of picked entries shows one decimal more than the board, as it always did.
    chart = json.loads(split.plot)
    assert {v["Split"]: v["Value"] for v in chart["data"]["values"]}["Overall"] == 67.55
    assert _levels(chart) == {f"Chance: {CHANCE:.2f} %"}


def _layers(chart: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield chart
    for layer in chart.get("layer", ()):
        yield from _layers(layer)


def _levels(chart: dict[str, Any]) -> set[str]:
    """The labels of a chart's dashed levels (chance, reference rows)."""
    return {
        v["Label"]
        for layer in _layers(chart)
        for v in layer.get("data", {}).get("values", ())
        if isinstance(v, dict) and "Label" in v
    }


def test_the_score_tab_shows_two_decimals(release: Release, tmp_path: Path) -> None:
    tab, served = _board(release)
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    upload = uploads / "predictions.json"
    upload.write_bytes(release.predictions.read_bytes())
    score_tab = score_handlers.ScoreTab(
        tab.bench,
        (served,),
        guard.ScoreLimiter(guard.ScoreLimits(limit=3, window_s=3600)),
        logging.getLogger("twodec.app"),
        lambda: str(uploads),
    )
    submission = {"path": str(upload), "meta": {"_type": "gradio.FileData"}}
    kept, numbers, _ = asyncio.run(score_handlers.page_score(score_tab, submission, _request()))
    assert numbers["metrics"] == {"overall": 67.55, "perception": 67.11, "reasoning": 68.0}
    summary, table, chart, *_ = score_handlers.render(score_tab, kept)
    assert summary.startswith("### Overall: 67.55 %\n102 of 151 correct · 95 % CI ")
    assert f"95 % CI {_interval(*WILSON, 2)}" in summary
    rows = {r[0]: r for r in table.value["data"]}
    assert rows["Overall"][1] == "67.55" and rows["Overall"][4] == _interval(*WILSON, 2)
    names = served.track.names
    assert rows[names["perception"]][1] == "67.11" and rows[names["reasoning"]][1] == "68.00"
    assert _levels(json.loads(chart.value["plot"])) == {f"Chance: {CHANCE:.2f} %"}
    result, _ = kept
    mailto = unquote(score_view.listing_mailto(tab.bench, served.track, result, False))
    assert "Score on the Space: Overall 67.55 %" in mailto


# --- no key: what the shipped benchmarks showed ----------------------------------------------

SHIPPED = [
    (bench, track)
    for bench in (spec.load_benchmark("egomemreason"), spec.load_benchmark("egoargus"))
    for track in bench.tracks
]


@pytest.mark.parametrize(("bench", "track"), SHIPPED, ids=[f"{b.id}-{t.id}" for b, t in SHIPPED])
def test_without_the_key_every_shipped_number_has_the_decimals_it_had(
    bench: spec.Benchmark, track: spec.Track
) -> None:
    """The board's CSV, every card and the demo sample's score, each value at ``TODAY``'s
    decimals for its display (a byte-for-byte comparison of these outputs before and after
    the change found them equal; this keeps them so)."""
    assert track.decimals == 1 and {d: track.digits(d) for d in TODAY} == TODAY  # type: ignore[arg-type]
    served = _served(bench, track, demo_key(bench, track), bench.demo_board)
    tab = board_handlers.board_tab(bench, [served], lambda: 1_090.0)
    _, _, _, csv_path, _, _ = board_handlers.view(tab, "", [], [], [], [], "All", None, track.id)
    layout = board_layout(bench, track)
    records = {str(r.id): r for r in served.board.snapshot().records}
    with open(csv_path, encoding="utf-8-sig", newline="") as file:
        exported = list(csv.DictReader(file))
    assert len(exported) == len(records)
    for row in exported:
        record = records[row["Record id"]]
        for key, label in layout.metrics.items():
            value = record.metrics.get(key)
            digits = TODAY[track.display[key]]
            assert row[label] == ("" if value is None else f"{value:.{digits}f}"), (key, row)
        _, card = board_handlers.card(tab, row["Record id"], served)
        for key, value in record.metrics.items():
            unit = {"percent": " %", "seconds": " s"}.get(track.display[key], "")
            assert f'<td class="num">{value:.{TODAY[track.display[key]]}f}{unit}</td>' in card
    sample = "decision_sample_submission.json" if track.kind == "decision" else None
    data = (bench.demo_dir / (sample or "sample_submission.json")).read_bytes()
    full = evaluator.score(demo_key(bench, track), data)
    shown = evaluator.disclosed(track, full)
    for key, value in full.metrics.items():
        if key in shown.metrics:
            assert shown.metrics[key] == float(f"{value:.{TODAY[track.display[key]]}f}")
