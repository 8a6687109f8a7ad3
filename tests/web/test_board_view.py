"""board_view, pure: the filters, the search, the status line, the empty board and the CSV.

Boards are built from the benchmarks' demo records (and copies of them with a field changed),
so every expectation comes from the spec and the demo files, not from board_view itself.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import re
import uuid
from typing import Any

import pandas as pd
import pytest

import errors
import ledger
import spec
from web.board import export as board_export
from web.board import filters as board_filters
from web.board import layout as board_layout
from web.board import rows as board_view
from web.board import status as board_rows
from web.board.filters import BoardFilter

EGOMEM = spec.load_benchmark("egomemreason")
MEMORY = EGOMEM.track()
ARGUS = spec.load_benchmark("egoargus")
DECISION = ARGUS.track("decision")
BOM = b"\xef\xbb\xbf"


def _demo_records(bench: spec.Benchmark, track: spec.Track) -> list[ledger.Record]:
    store = ledger.LocalStore(bench.demo_board)
    records = [ledger.Record.from_json(store.read(p)) for p in store.list_paths()]
    mine = [r for r in records if ledger.record_track(r, bench) == track.id]
    hidden = {r.supersedes for r in mine if r.supersedes is not None}
    return [r for r in mine if r.id not in hidden]


MEMORY_RECORDS = _demo_records(EGOMEM, MEMORY)
DECISION_RECORDS = _demo_records(ARGUS, DECISION)


def _like(record: ledger.Record, method: str, **changes: Any) -> ledger.Record:
    """A copy of a demo record under another name and id, with ``changes``; re-validated."""
    data = {
        **record.model_dump(),
        "id": uuid.uuid5(uuid.NAMESPACE_URL, method),
        "method_name": method,
        **changes,
    }
    return ledger.Record.model_validate(data)


def _rescored(records: list[ledger.Record]) -> ledger.Record:
    return next(r for r in records if r.source == "rescored" and r.metrics)


def _frame(
    records: list[ledger.Record], bench: spec.Benchmark = EGOMEM, track: spec.Track = MEMORY
) -> pd.DataFrame:
    return board_view.board_frame(records, bench, track)


def _names(frame: pd.DataFrame) -> set[str]:
    return set(frame["_name"])


def _ticked(field: str, *values: str) -> BoardFilter:
    changes: dict[str, Any] = {field: values}
    return dataclasses.replace(BoardFilter(), **changes)


# --- the filters: none ticked is any, ticked values are an OR, filters are an AND ---------------


def test_a_filter_with_nothing_ticked_shows_every_row() -> None:
    frame = _frame(MEMORY_RECORDS)
    assert BoardFilter() == BoardFilter("", (), (), (), ())
    assert len(BoardFilter().apply(frame)) == len(MEMORY_RECORDS)
    assert len(BoardFilter(sources=(), external=(), inputs=(), sizes=()).apply(frame)) == len(
        MEMORY_RECORDS
    )


def test_ticking_re_scored_shows_the_re_scored_rows_only() -> None:
    frame = _frame(MEMORY_RECORDS)
    rescored = {r.method_name for r in MEMORY_RECORDS if r.source == "rescored"}
    assert rescored and _names(BoardFilter(sources=("Re-scored",)).apply(frame)) == rescored
    everything = BoardFilter(sources=tuple(board_view.SOURCE_LABELS.values())).apply(frame)
    assert len(everything) == len(MEMORY_RECORDS)


@pytest.mark.parametrize(
    ("field", "column", "choices"),
    [
        ("sources", "_source", None),
        ("external", "_external", board_view.EXTERNAL_CHOICES),
        ("sizes", "_size", board_view.SIZE_BUCKETS),
        ("inputs", "_input", (*EGOMEM.input.choices.values(), board_view.NOT_REPORTED)),
    ],
)
def test_every_filter_shows_the_rows_of_any_ticked_value(
    field: str, column: str, choices: tuple[str, ...] | None
) -> None:
    frame = _frame(MEMORY_RECORDS)
    if choices is None:  # the Source filter's values are labels of the record's source
        values = {label: frame[column] == key for key, label in board_view.SOURCE_LABELS.items()}
    else:
        values = {value: frame[column] == value for value in choices}
    for value, rows in values.items():
        shown = _ticked(field, value).apply(frame)
        assert _names(shown) == set(frame[rows]["_name"]), value
    first, second = list(values)[:2]
    both = _ticked(field, first, second).apply(frame)
    assert _names(both) == set(frame[values[first] | values[second]]["_name"])


def test_filters_combine_with_and() -> None:
    frame = _frame(MEMORY_RECORDS)
    shown = BoardFilter(sources=("Paper-reported",), sizes=("< 10B",)).apply(frame)
    expected = {
        r.method_name
        for r in MEMORY_RECORDS
        if r.source == "paper" and board_view.size_bucket(r.model_size) == "< 10B"
    }
    assert expected and _names(shown) == expected


def test_the_checks_of_what_a_visitor_sent_are_unchanged() -> None:
    assert board_filters.board_filter(None, None, None, None, None, EGOMEM) == BoardFilter()
    assert board_filters.board_filter("", [], [], [], [], EGOMEM) == BoardFilter()
    assert board_filters.board_filter(
        "q", ["Paper-reported"], ["Yes", "No"], [], ["≥ 40B"], EGOMEM
    ) == (BoardFilter("q", ("Paper-reported",), ("Yes", "No"), (), ("≥ 40B",)))
    for bad in (["Nope"], ["Paper-reported"] * 3, "Paper-reported", [1]):
        with pytest.raises(errors.BadInput, match="Source"):
            board_filters.board_filter("", bad, None, None, None, EGOMEM)


@pytest.mark.parametrize("bench", [EGOMEM, ARGUS], ids=lambda b: b.id)
def test_every_filter_label_says_that_none_ticked_is_any(bench: spec.Benchmark) -> None:
    labels = board_filters.filter_labels(bench)
    assert set(labels) == {"sources", "external", "sizes", "inputs"}
    assert labels["inputs"] == f"{bench.input.label} (none ticked: any)"
    for field, name in board_filters.FILTER_LABELS.items():
        assert labels[field] == f"{name} (none ticked: any)"


# --- the search: a size is a whole token, other words any part -----------------------------------


def test_a_size_in_the_search_matches_that_size_only() -> None:
    template = _rescored(MEMORY_RECORDS)
    sized = _like(template, "Plain", model_size="8B", method_description="")
    records = [*MEMORY_RECORDS, sized]
    frame = _frame(records)
    eight = _names(BoardFilter(search="8B").apply(frame))
    assert {"Qwen-3-VL-8B", "InternVL3.5-8B", "Plain"} <= eight
    assert "InternVL3.5-38B" not in eight
    assert not any(re.search(r"(?<![\d.])38B", n) for n in eight)
    seven = {r.method_name for r in records if r.model_size == "7B"}
    assert seven and seven <= _names(BoardFilter(search="7b").apply(frame))


@pytest.mark.parametrize(
    ("search", "name", "matches"),
    [
        ("8B", "InternVL3-38B", False),
        ("8b", "Qwen3-VL-8B", True),
        ("8B", "Foo 8Bit", False),
        ("8B", "Foo-8B-Instruct", True),
        ("0.5B", "Qwen2-0.5B", True),
        ("0.5B", "Qwen2-10.5B", False),
        ("5B", "Qwen2-0.5B", False),
        ("1.5T", "Giant 1.5T", True),
        ("3B", "Qwen-3-VL-30B-A3B", True),  # the active parameters
        ("30B", "Qwen-3-VL-30B-A3B", True),
        ("30b-a3b", "Qwen-3-VL-30B-A3B", True),  # not a size: a part of the text
        ("vl-3", "Qwen-3-VL-30B-A3B", True),
        ("intern", "InternVL3-38B", True),
        ("38", "InternVL3-38B", True),
    ],
)
def test_the_search_reads_sizes_as_tokens_and_other_words_as_parts(
    search: str, name: str, matches: bool
) -> None:
    record = _like(_rescored(MEMORY_RECORDS), name, model_size="", method_description="")
    shown = BoardFilter(search=search).apply(_frame([record]))
    assert len(shown) == (1 if matches else 0)


# --- the status line and the empty board ---------------------------------------------------------


def _snapshot(
    n: int, last_success: float | None, stale: bool = False, error: str | None = None
) -> ledger.BoardSnapshot:
    return ledger.BoardSnapshot(
        records=tuple(MEMORY_RECORDS[:n]),
        last_success=last_success,
        stale=stale,
        error=error,
        skipped=(),
    )


def test_the_status_line_says_how_many_entries_are_shown_of_how_many() -> None:
    snapshot = _snapshot(5, last_success=100.0)
    read = "board as of 00:01 UTC, read from its records"
    refresh = "Refresh reads them again"
    assert board_rows.status_line(snapshot, 5, 105.0) == f"5 entries · {read} 5 s ago; {refresh}"
    assert board_rows.status_line(snapshot, 2, 105.0) == (
        f"2 of 5 entries · {read} 5 s ago; {refresh}"
    )
    assert board_rows.status_line(snapshot, 0, 100.0 + 300) == (
        f"0 of 5 entries · {read} 5 min ago; {refresh}"
    )
    assert board_rows.status_line(snapshot, 5, 100.0 + 119) == (
        f"5 entries · {read} 119 s ago; {refresh}"
    )
    assert board_rows.status_line(snapshot, 5, 100.0 + 7200) == (
        f"5 entries · {read} 2 h ago; {refresh}"
    )


def test_the_status_line_says_when_the_board_is_stale_or_was_never_loaded() -> None:
    stale = _snapshot(3, last_success=0.0, stale=True, error="HTTP 503")
    # Why is the log's: the error names the records' repo and the Hub (issue 22, finding 6).
    assert board_rows.status_line(stale, 3, 60.0) == (
        "3 entries · board as of 00:00 UTC, read from its records 60 s ago; Refresh reads "
        "them again · the records source could not be reached; showing the board as of 60 s ago"
    )
    never = _snapshot(0, last_success=None, error="no answer from http://u:pw@hub")
    unread = (
        "The leaderboard could not be loaded yet: its records could not be read; the "
        "maintainer has been told in the log."
    )
    assert board_rows.status_line(never, 0, 60.0) == unread
    assert board_rows.status_line(_snapshot(0, None), 0, 1.0) == unread


def test_an_empty_view_says_why_and_how_to_see_the_entries() -> None:
    assert board_rows.empty_text(shown=3, total=5) is None
    assert board_rows.empty_text(shown=0, total=0) == (
        "No entries yet. See **About** for how to get listed."
    )
    text = board_rows.empty_text(shown=0, total=5)
    assert text is not None and "5 entries" in text and "clear" in text.lower()


# --- the CSV export: the board as shown, for a spreadsheet ---------------------------------------


def _csv(data: bytes) -> list[list[str]]:
    assert data.startswith(BOM), data[:8]
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))


def _expected_header(layout: board_layout.BoardLayout) -> list[str]:
    links = layout.info["links"]
    header: list[str] = []
    for column in layout.columns:
        header += ["Paper URL", "Project URL"] if column == links else [column]
    return [*header, "Record id"]


def _by_id(rows: list[list[str]]) -> dict[str, dict[str, str]]:
    header, *body = rows
    return {row[-1]: dict(zip(header, row, strict=True)) for row in body}


def test_the_csv_has_the_on_screen_headers_and_values_and_a_bom() -> None:
    layout = board_layout.board_layout(EGOMEM, MEMORY)
    frame = _frame(MEMORY_RECORDS)
    rows = _csv(board_export.board_csv(frame, layout, MEMORY_RECORDS))
    assert rows[0] == _expected_header(layout)
    assert [r[-1] for r in rows[1:]] == list(frame["_id"]), "the rows in the order shown"
    cells = _by_id(rows)
    info = layout.info
    for record in MEMORY_RECORDS:
        cell = cells[str(record.id)]
        assert cell["Method"] == record.method_name, "plain text, no Markdown, no † mark"
        assert (
            cell[info["source"]]
            == {"rescored": "Re-scored", "paper": "Paper-reported"}[record.source]
        )
        assert cell["Paper URL"] == (record.publication_url or "")
        assert cell["Project URL"] == (record.project_url or "")
        assert cell[info["note"]] == (record.note or ""), "the note whole"
        if MEMORY.reference_of(record.method_name, record.metrics):  # read against: no rank
            assert (cell["Rank"], cell[info["rank_range"]]) == ("", "reference")
        else:
            assert re.fullmatch(r"\d+", cell["Rank"]), cell["Rank"]
        for key, label in layout.metrics.items():
            value = record.metrics.get(key)
            assert cell[label] == ("" if value is None else f"{value:.1f}"), (label, cell[label])
    entries = [r for r in MEMORY_RECORDS if not MEMORY.reference_of(r.method_name, r.metrics)]
    rescored = cells[str(_rescored(entries).id)]
    assert re.fullmatch(r"\d+\.\d–\d+\.\d", rescored[f"{layout.ranking} 95% CI"])
    assert re.fullmatch(r"\d+(–\d+)?", rescored[info["rank_range"]])


def test_an_empty_view_exports_its_header_line() -> None:
    layout = board_layout.board_layout(EGOMEM, MEMORY)
    empty = BoardFilter(search="no such method").apply(_frame(MEMORY_RECORDS))
    data = board_export.board_csv(empty, layout, MEMORY_RECORDS)
    header = ",".join(_expected_header(layout))
    assert data == BOM + (header + "\r\n").encode()
    assert _csv(data) == [_expected_header(layout)]


def test_csv_text_cells_a_spreadsheet_would_run_are_neutralised_numbers_are_not() -> None:
    template = _rescored(DECISION_RECORDS)
    formulas = {
        "team_name": '=HYPERLINK("https://evil.example","x")',
        "model_size": "-2+3",
        "note": "@SUM(1+1)",
    }
    metrics = {**template.metrics, "timing_signed_s": -0.5}
    formula = _like(template, "+cmd|' /C calc'!A0", metrics=metrics, **formulas)
    ranged = _like(template, "Plain – en dash", note="1–3 — fine")
    records = [formula, ranged]
    layout = board_layout.board_layout(ARGUS, DECISION)
    cells = _by_id(_csv(board_export.board_csv(_frame(records, ARGUS, DECISION), layout, records)))
    bad, good = cells[str(formula.id)], cells[str(ranged.id)]
    info = layout.info
    assert bad["Method"] == "'+cmd|' /C calc'!A0"
    assert bad[info["team"]] == "'" + formulas["team_name"]
    assert bad[info["size"]] == "'-2+3" and bad[info["note"]] == "'@SUM(1+1)"
    assert bad[DECISION.labels["timing_signed_s"]] == "-0.50", "a negative number stays one"
    assert good["Method"] == "Plain – en dash" and good[info["note"]] == "1–3 — fine"


def test_the_decision_csv_shows_each_metric_in_its_display() -> None:
    layout = board_layout.board_layout(ARGUS, DECISION)
    frame = _frame(DECISION_RECORDS, ARGUS, DECISION)
    rows = _csv(board_export.board_csv(frame, layout, DECISION_RECORDS))
    assert rows[0] == _expected_header(layout)
    decimals = {"ratio": 3, "seconds": 2, "count": 0, "percent": 1}
    cells = _by_id(rows)
    seen = set()
    for record in DECISION_RECORDS:
        cell = cells[str(record.id)]
        for key, label in layout.metrics.items():
            value = record.metrics.get(key)
            if value is None:
                assert cell[label] == "", (record.method_name, label)
                continue
            digits = decimals[DECISION.display[key]]
            assert cell[label] == f"{value:.{digits}f}", (label, cell[label])
            seen.add(DECISION.display[key])
    assert seen == {"ratio", "seconds", "count"}  # every proportion a 0-1 ratio (scorer 1.2)
    f1 = cells[str(_rescored(DECISION_RECORDS).id)][f"{layout.ranking} 95% CI"]
    assert re.fullmatch(r"\d\.\d{3}–\d\.\d{3}", f1), f1
