"""The board's rows, pure: records as the board's frame, one row each, best first.

``board_frame`` turns a track's records into the whole board under ``layout``'s headers (best
first, unrounded, with ``ranks``' rank ranges from the ranking metric's intervals), and the
hidden columns the filters, the search and the notes read (``HIDDEN_COLUMNS``). The values a
cell may take (``SOURCE_TEXT``, ``SIZE_BUCKETS``, ``EXTERNAL_CHOICES``, ``NOT_REPORTED``) are the
filters' choices too (``filters``).

A track of any kind: every metric is shown as its spec's ``display`` says (``layout``'s
formats) and ranked the way it is better (``ranks``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pandas as pd

from records import Record, on_other_key
from spec import Benchmark, Track
from web.board.layout import board_layout
from web.board.ranks import ranked, reference
from web.text import cut

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


def record_links(record: Record) -> list[tuple[str, str]]:
    """A record's links by name, those it gives: ("paper", url), ("project", url)."""
    return [
        (name, url)
        for name, url in (("paper", record.publication_url), ("project", record.project_url))
        if url
    ]


def _links(record: Record) -> str:
    """A row's links by name ("paper · project"); ``table`` links them."""
    return " · ".join(name for name, _ in record_links(record))


def key_version_cell(record: Record, current: str | None) -> str:
    """A row's key version; "(older key)" when Score now scores on another version."""
    if record.source == "paper":
        return "paper-reported"
    version = record.key_version or "(unversioned)"
    older = current is not None and on_other_key(record, current)
    return f"{version} (older key)" if older else version


def board_frame(
    records: Sequence[Record], bench: Benchmark, track: Track, current_key: str | None = None
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
