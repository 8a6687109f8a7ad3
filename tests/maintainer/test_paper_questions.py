"""Paper rows measured on another question set than the key's (issue 19).

A paper may report its numbers on its full validation set while the Space serves a subset (or
the reverse). ``[paper] questions = N`` (and a ``[[paper.tables]]`` entry's own ``questions``)
says so; the rows' ranking interval and rank range are then computed over N questions, not over
the board's, and their splits (whose sizes on the paper's set are unknown) get none.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

import evaluator
import ledger
import spec
from maintainer import paper_rows
from web.board import card as board_card
from web.board import ranks as board_ranks
from web.board.layout import board_layout

SHIPPED = spec.load_benchmark("egomemreason")


def _with_questions(tmp_path: Path, line: str) -> spec.Benchmark:
    """The shipped benchmark, copied, with ``line`` added to its ``[paper]`` table."""
    folder = tmp_path / "egomemreason"
    shutil.copytree(SHIPPED.folder, folder)
    toml = folder / spec.SPEC_FILENAME
    text = toml.read_text(encoding="utf-8")
    assert "\n[paper]\n" in text
    toml.write_text(text.replace("\n[paper]\n", f"\n[paper]\n{line}\n", 1), encoding="utf-8")
    return spec.load_benchmark(str(folder))


def _rows(bench: spec.Benchmark) -> list:  # type: ignore[type-arg]
    assert bench.paper is not None
    table = bench.paper.all_tables[0]
    track = bench.track(table.track)
    path = bench.folder / table.csv
    return paper_rows.paper_records(bench, track, bench.paper, path.read_bytes(), str(path), table)


def test_paper_rows_measured_on_more_questions_get_intervals_over_them(tmp_path: Path) -> None:
    bench = _with_questions(tmp_path, "questions = 2000")
    track = bench.track()
    assert track.sizes["overall"] == 500 and bench.paper is not None
    assert bench.paper.all_tables[0].questions == 2000
    for row in _rows(bench):
        value = row.metrics["overall"]
        correct = round(value * 2000 / 100)
        assert board_ranks.ranking_interval(row, track) == evaluator.wilson_interval(correct, 2000)
        # Over the board's 500 questions the interval is about twice as wide: not that one.
        assert board_ranks.ranking_interval(row, track) != evaluator.wilson_interval(
            round(value * 5), 500
        )
        # The splits' sizes on the paper's question set are unknown: no interval.
        assert all(
            ledger.metric_interval(row, track, k) is None for k in row.metrics if k != "overall"
        )
        assert row.questions == 2000 and "measured on 2,000 questions" in row.method_description
        # The record keeps it: the board reads it back from the records dataset.
        assert ledger.Record.from_json(row.to_json()) == row


def test_paper_rows_on_the_key_s_own_questions_are_as_before(tmp_path: Path) -> None:
    same = _rows(_with_questions(tmp_path, "questions = 500"))
    assert same == _rows(SHIPPED)
    assert all(r.questions is None for r in same)  # counted over the track's sizes, as before
    assert all(b'"questions"' not in r.to_json() for r in same)  # the bytes as before


def test_a_table_of_another_track_declares_its_own_count() -> None:
    text = (spec.BENCHMARKS_DIR / "egoargus" / spec.SPEC_FILENAME).read_text(encoding="utf-8")
    doc = tomllib.loads(text)
    doc["paper"]["tables"][0]["questions"] = 800
    doc["paper"]["questions"] = 7000
    bench = spec.parse_benchmark(doc, spec.BENCHMARKS_DIR / "egoargus")
    assert bench.paper is not None
    assert [t.questions for t in bench.paper.all_tables] == [7000, 800]
    doc["paper"]["questions"] = 0
    with pytest.raises(spec.SpecError, match=r"paper\.questions: expected a positive integer"):
        spec.parse_benchmark(doc, spec.BENCHMARKS_DIR / "egoargus")


def test_the_board_ranks_and_the_card_shows_them_over_the_paper_s_questions(
    tmp_path: Path,
) -> None:
    bench = _with_questions(tmp_path, "questions = 2000")
    track = bench.track()
    rows = _rows(bench)
    for row, _ranks, interval in board_ranks.ranked(rows, track):
        assert interval == evaluator.wilson_interval(round(row.metrics["overall"] * 20), 2000)
    best = max(rows, key=lambda r: r.metrics["overall"])
    html = board_card.card_html(
        best,
        bench,
        track,
        board_layout(bench, track),
        None,
        superseded_by=None,
        added=None,
        reproduce=None,
        permalink=f"?entry={best.id}",
    )
    low, high = evaluator.wilson_interval(round(best.metrics["overall"] * 20), 2000)
    assert f"{low:.1f}–{high:.1f}" in html
    assert "measured on 2,000 questions, not this board&#x27;s 500" in html or (
        "measured on 2,000 questions, not this board's 500" in html
    )
