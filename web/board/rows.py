"""The board as a table, pure: its rows, filters, status line and exports.

``board_frame`` turns records into the whole board under board_layout's headers (best first,
unrounded, with board_ranks' rank ranges from the ranking metric's intervals); ``board_filter``
checks what a visitor asked to see before any work (``BoardFilter``: in every filter, none
ticked is any); board_rows says which rows a view shows and what it counts; ``board_csv`` (the
board as shown) and ``export_rows`` (full precision, code names) are what Download and
``/leaderboard`` give.

A track of either kind: every metric is shown as its spec's ``display`` says (board_layout's
formats) and ranked the way it is better (board_ranks).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

import ledger
from errors import BadInput
from spec import Benchmark, Track
from spec.board_columns import INFO_LABELS
from web.board.layout import BoardLayout, board_layout
from web.board.ranks import ranked, reference, shown_interval
from web.text import cut, listed, quoted

MAX_SEARCH_CHARS = 200  # the longest method name a record may have


MAX_SEARCH_WORDS = 20  # each word is one pass over the board (~0.2 ms)


MAX_PICKS = 12  # entries the chart compares


#: Text a spreadsheet would run as a formula when the CSV export is opened (OWASP).
CSV_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


#: How a row's source is named in its Source cell, its card, the CSV export and the source
#: filter (one name for each, so the filter says what the column says).
SOURCE_TEXT = {"rescored": "Re-scored", "paper": "Paper-reported"}


SOURCE_LABELS = SOURCE_TEXT


NOT_REPORTED = "Not reported"


SIZE_BUCKETS = ("< 10B", "10B – 40B", "≥ 40B", "API / not stated")


EXTERNAL_CHOICES = ("Yes", "No", NOT_REPORTED)


#: Columns of the board frame that are never shown: ids and what filters and search read.
#: ``_reference`` is what a reference row is ("" for an entry), ``_ranked_by`` the header of the
#: metric a row is ranked by (a decision board's paper rows are ranked by the paper's F1).
HIDDEN_COLUMNS = [
    "_id",
    "_name",
    "_source",
    "_size",
    "_external",
    "_input",
    "_text",
    "_note",
    "_reference",
    "_ranked_by",
]


#: The longest note a board cell shows whole; a longer one is cut there (the notes under the
#: board give it in full), so one long note does not make its row a column of text.
NOTE_CELL_CHARS = 60


_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([BbMmTt])\b")


def size_in_billions(model_size: str) -> float | None:
    """ "8B" -> 8, "30B-A3B" -> 30, "API" or "" -> None."""
    match = _SIZE.search(model_size)
    if not match:
        return None
    value = float(match.group(1))
    return value * {"b": 1.0, "m": 1e-3, "t": 1e3}[match.group(2).lower()]


def size_bucket(model_size: str) -> str:
    size = size_in_billions(model_size)
    if size is None:
        return SIZE_BUCKETS[3]
    return SIZE_BUCKETS[0] if size < 10 else SIZE_BUCKETS[1] if size < 40 else SIZE_BUCKETS[2]


def _yes_no(value: bool | None) -> str:
    return NOT_REPORTED if value is None else "Yes" if value else "No"


def input_label(value: str | None, bench: Benchmark) -> str:
    """How the board shows a record's ``uses_frames``: its label among the spec's choices."""
    return NOT_REPORTED if value is None else bench.input.choices.get(value, value)


def record_links(record: ledger.Record) -> list[tuple[str, str]]:
    """A record's links by name, those it gives: ("paper", url), ("project", url)."""
    return [
        (name, url)
        for name, url in (("paper", record.publication_url), ("project", record.project_url))
        if url
    ]


def _links(record: ledger.Record) -> str:
    """A row's links by name ("paper · project"); board_table links them."""
    return " · ".join(name for name, _ in record_links(record))


def key_version_cell(record: ledger.Record, current: str | None) -> str:
    """A row's key version; "(older key)" when Score now scores on another version."""
    if record.source == "paper":
        return "paper-reported"
    version = record.key_version or "(unversioned)"
    older = current is not None and ledger.on_other_key(record, current)
    return f"{version} (older key)" if older else version


def board_frame(
    records: Sequence[ledger.Record], bench: Benchmark, track: Track, current_key: str | None = None
) -> pd.DataFrame:
    """The whole board, best ranking metric first, with unrounded metrics and the rank columns
    (the "All" group's columns, then the hidden ones). ``current_key`` is the version Score
    scores on: rows scored on another are marked."""
    layout = board_layout(bench, track)
    info = layout.info
    table = []
    for record, ranks, interval in ranked(records, track):
        best, worst = ranks or (None, None)
        display = track.display[track.ranking_for(record.source)]
        method = record.method_name + (" †" if record.note else "")
        shown_input = input_label(record.uses_frames, bench)
        external = _yes_no(record.uses_external)
        row: dict[str, Any] = {
            "Rank": best,
            info["rank_range"]: "—"
            if best is None
            else f"{best}"
            if best == worst
            else f"{best}–{worst}",
            "Method": method,
            info["team"]: record.team_name,
            info["size"]: record.model_size or "—",
            info["external"]: external,
            info["input"]: shown_input,
            info["source"]: SOURCE_TEXT[record.source],
        }
        row.update({label: record.metrics.get(k) for k, label in layout.metrics.items()})
        referred = reference(record, track)
        if referred is not None:
            row[info["rank_range"]] = "reference"
        row.update(
            {
                info["ci"]: "—" if interval is None else track.interval_text(display, *interval),
                info["date"]: record.created_at.date().isoformat(),
                info["key"]: key_version_cell(record, current_key),
                info["links"]: _links(record),
                info["note"]: cut(record.note or "", NOTE_CELL_CHARS),
                "_id": str(record.id),
                "_name": record.method_name,
                "_source": record.source,
                "_size": size_bucket(record.model_size),
                "_external": external,
                "_input": shown_input,
                "_text": " ".join(
                    [
                        record.method_name,
                        record.team_name,
                        record.model_size,
                        record.method_description,
                    ]
                ).lower(),
                "_note": record.note or "",
                "_reference": referred or "",
                "_ranked_by": track.labels[track.ranking_for(record.source)],
            }
        )
        table.append(row)
    return pd.DataFrame(table, columns=[*layout.columns, *HIDDEN_COLUMNS])


@dataclass(frozen=True)
class BoardFilter:
    """What the visitor asked to see. Every selection means the same: none ticked is any row;
    ticked values show the rows having one of them (filters combine with and)."""

    search: str = ""
    sources: tuple[str, ...] = ()  # of SOURCE_LABELS' values
    external: tuple[str, ...] = ()  # of EXTERNAL_CHOICES
    inputs: tuple[str, ...] = ()  # labels of the spec's input choices, or NOT_REPORTED
    sizes: tuple[str, ...] = ()  # of SIZE_BUCKETS

    def apply(self, frame: pd.DataFrame) -> pd.DataFrame:
        sources = tuple(key for key, label in SOURCE_LABELS.items() if label in self.sources)
        keep = pd.Series(True, index=frame.index)
        for column, ticked in (
            ("_source", sources),
            ("_external", self.external),
            ("_input", self.inputs),
            ("_size", self.sizes),
        ):
            if ticked:
                keep &= frame[column].isin(ticked)
        for word in self.search.lower().split():
            if SIZE_WORD.fullmatch(word):  # "8b" is not a part of "38b"
                keep &= frame["_text"].str.contains(size_token(word), regex=True)
            else:
                keep &= frame["_text"].str.contains(word, regex=False)
        return frame[keep]


#: A search word that reads as a model size ("8b", "0.5b", "1.5t"; the search is lower case):
#: it matches a whole size token of the text only.
SIZE_WORD = re.compile(r"\d+(?:\.\d+)?[bmt]")


def size_token(word: str) -> str:
    """The pattern of a size as a token: not after a digit or a dot, not before a letter or
    digit ("8b" finds "qwen3-vl-8b" and "8b", not "38b", "0.8b" or "8bit")."""
    return rf"(?<![\d.]){re.escape(word)}(?![a-z0-9])"


#: The filters' labels on the page, as a refusal names them.
FILTER_LABELS = {"sources": "Source", "external": "Uses external data", "sizes": "Model size"}


#: What a filter's label adds on the page: every filter reads the same way (``BoardFilter``).
ANY_HINT = "(none ticked: any)"


def filter_labels(bench: Benchmark) -> dict[str, str]:
    """Each filter's label on the page, by ``BoardFilter`` field, with the hint that none
    ticked is any; the input filter is named by the spec."""
    names = {**FILTER_LABELS, "inputs": bench.input.label}
    return {field: f"{name} {ANY_HINT}" for field, name in names.items()}


def board_filter(
    search: object,
    sources: object,
    external: object,
    inputs: object,
    sizes: object,
    bench: Benchmark,
) -> BoardFilter:
    """What a visitor asked to see, checked before any work is done for it.

    BadInput if the search is not text of at most MAX_SEARCH_CHARS characters and
    MAX_SEARCH_WORDS words (each word costs a pass over the board), or a selection is not a
    list of at most as many values as it has choices, each one of them. None ticks nothing.
    """
    if search is None:
        search = ""
    if not isinstance(search, str):
        raise BadInput(f"The search must be text; got {quoted(search)}.")
    if len(search) > MAX_SEARCH_CHARS:
        raise BadInput(
            f"The search is {len(search)} characters long; search for at most "
            f"{MAX_SEARCH_CHARS} characters ({MAX_SEARCH_WORDS} words)."
        )
    words = len(search.split())
    if words > MAX_SEARCH_WORDS:
        raise BadInput(
            f"The search has {words} words; search for at most {MAX_SEARCH_WORDS} words."
        )
    return BoardFilter(
        search,
        _selection(FILTER_LABELS["sources"], sources, tuple(SOURCE_LABELS.values())),
        _selection(FILTER_LABELS["external"], external, EXTERNAL_CHOICES),
        _selection(bench.input.label, inputs, (*bench.input.choices.values(), NOT_REPORTED)),
        _selection(FILTER_LABELS["sizes"], sizes, SIZE_BUCKETS),
    )


def _selection(label: str, value: object, choices: Sequence[str]) -> tuple[str, ...]:
    """Ticked values of ``choices`` as a tuple; BadInput naming ``label`` if they are not."""
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise BadInput(f"{label}: expected a list of its choices; got {quoted(value)}.")
    if len(value) > len(choices):
        raise BadInput(
            f"{label}: expected at most {len(choices)} of {listed(choices)}; got "
            f"{len(value)} values."
        )
    for item in value:
        if not isinstance(item, str) or item not in choices:
            raise BadInput(f"{label}: {quoted(item)} is not one of {listed(choices)}.")
    return tuple(value)


def export_rows(
    frame: pd.DataFrame, records: Sequence[ledger.Record], track: Track
) -> list[dict[str, Any]]:
    """Rows for CSV/JSON/API: full precision, plain names, counts and intervals included (the
    ranking metric's interval; a track that keeps intervals also gives each row's own). A row
    lacking its ranking metric has no rank (null). ``ranked_by`` names the metric a row's rank
    is among (a decision board ranks its paper rows apart, by the paper's own F1: two series
    of ranks); a reference row has none, and ``reference`` says what it is."""
    by_id = {str(r.id): r for r in records}
    ranking = track.ranking
    rows = []
    for _, row in frame.iterrows():
        record = by_id[row["_id"]]
        low, high = shown_interval(record, track, ranking) or (None, None)
        rank = None if pd.isna(row["Rank"]) else int(row["Rank"])
        out: dict[str, Any] = {
            "rank": rank,
            "rank_range": row[INFO_LABELS["rank_range"]],
            "ranked_by": None if rank is None else track.ranking_for(record.source),
            "reference": row["_reference"] or None,
            "id": row["_id"],
            "method_name": record.method_name,
            "team_name": record.team_name,
            "model_size": record.model_size,
            "uses_external": record.uses_external,
            "uses_frames": record.uses_frames,
            "source": record.source,
            "key_version": record.key_version,
        }
        out.update({k: record.metrics.get(k) for k in track.all_metric_keys})
        out.update(
            {
                f"{ranking}_ci_low": low,
                f"{ranking}_ci_high": high,
                # In the track's display order, whatever order the record file has.
                "counts": None
                if record.counts is None
                else {
                    k: record.counts[k].model_dump()
                    for k in track.metric_keys
                    if k in record.counts
                },
            }
        )
        if track.keeps_intervals:
            out["intervals"] = (
                None
                if record.intervals is None
                else {
                    k: list(record.intervals[k]) for k in track.metric_keys if k in record.intervals
                }
            )
        out.update(
            {
                "n_abstained": record.n_abstained,
                "created_at": record.created_at.isoformat(),
                "project_url": record.project_url,
                "publication_url": record.publication_url,
                "method_description": record.method_description,
                "note": record.note,
            }
        )
        rows.append(out)
    return rows


def _inert_cell(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(CSV_FORMULA_STARTS):
        return "'" + value
    return value


#: What the CSV export gives in place of the Links column, and its last column.
CSV_LINKS, CSV_ID = ("Paper URL", "Project URL"), "Record id"


def csv_header(layout: BoardLayout) -> list[str]:
    """The CSV export's header: the "All" group's columns as the board names them, the links
    as two URL columns, then the record id."""
    header: list[str] = []
    for column in layout.columns:
        header += CSV_LINKS if column == layout.info["links"] else [column]
    return [*header, CSV_ID]


def board_csv(frame: pd.DataFrame, layout: BoardLayout, records: Sequence[ledger.Record]) -> bytes:
    """The rows of ``frame`` (a ``board_frame``, filtered, in the order shown) as the board
    shows them, for a spreadsheet: ``csv_header``'s columns, each metric rounded as
    ``layout.formats`` says (empty when missing), plain text for Method (the name, without
    the note's †), Source and the links, the note whole. UTF-8 with a BOM, so spreadsheets
    read the dashes right; a header line even for no rows.

    A text cell a spreadsheet would run as a formula (one starting with =, +, -, @, a tab or
    a carriage return) gets a leading apostrophe, as OWASP advises, the header's among them (a
    column's name is a spec's label, and a benchmark folder arrives by pull request); numbers
    stay numbers ("-0.50" is a signed error). ``export_rows`` keeps full precision and the code
    names.
    """
    info = layout.info
    urls = {str(r.id): (r.publication_url or "", r.project_url or "") for r in records}
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([_inert_cell(name) for name in csv_header(layout)])
    for row in frame.to_dict("records"):
        cells: list[str] = []
        for column in layout.columns:
            value = row[column]
            if column in layout.formats:
                cells.append("" if pd.isna(value) else layout.formats[column].format(value))
            elif column == "Rank":
                cells.append("" if pd.isna(value) else str(int(value)))
            elif column == info["links"]:
                cells += [_inert_cell(url) for url in urls[row["_id"]]]
            else:
                text = {
                    "Method": row["_name"],
                    info["source"]: SOURCE_TEXT[row["_source"]],
                    info["note"]: row["_note"],
                }.get(column, value)
                cells.append(_inert_cell(str(text)))
        writer.writerow([*cells, row["_id"]])
    return out.getvalue().encode("utf-8-sig")
