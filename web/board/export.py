"""A board view as Download and ``/leaderboard`` give it, pure: CSV and JSON rows.

``board_csv`` is the board as shown (its columns and rounding, for a spreadsheet: no cell runs
as a formula); ``export_rows`` the rows at full precision under their code names, with counts
and intervals (the JSON download and the ``/leaderboard`` endpoint). ``export_files`` writes
them.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

import pandas as pd

from records import Record
from spec import Track
from spec.board_columns import INFO_LABELS
from web.board.layout import BoardLayout
from web.board.ranks import shown_interval
from web.board.rows import SOURCE_TEXT

#: Text a spreadsheet would run as a formula when the CSV export is opened (OWASP).
CSV_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def export_rows(
    frame: pd.DataFrame, records: Sequence[Record], track: Track
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


def board_csv(frame: pd.DataFrame, layout: BoardLayout, records: Sequence[Record]) -> bytes:
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
