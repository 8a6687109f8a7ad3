"""A benchmark paper's reported rows as board records: ``source: "paper"``, one per CSV row.

``paper_records`` reads a paper table's CSV (the spec's ``[paper] csv``, or a
``[[paper.tables]]`` one's): a header of ``method``, ``group``, ``note``, optionally ``input``
(a key of the spec's input choices: what the model saw) and any of the track's metric keys (its
paper-only ones included), the paper's ranking metric among them. Each row becomes a record of
the table's track with the metrics as the paper prints them and the aggregates the paper does
not print derived from their members where it has them all (as the spec defines them), no
counts and no provenance (nothing was re-scored), its note kept. Team, date, link and table
name come from the spec's ``[paper]``, the model size from the method's name
(``model_size``). A table measured on another question set than the key's (its ``questions``
differs from the track's size) gives its rows that count (``Record.questions``): their ranking
interval and rank range are computed over it, not over the board's; their splits, whose sizes
on that set are unknown, get no interval; the row's description says what it was measured on.
A record's id is a uuid5 of its method name in the paper's namespace and its date the paper's,
so seeding twice gives the very same records. A CSV that is not one row per
method of the track is a ``BoardError`` naming the line and the column.

Example (the shipped paper table of the demo benchmark):

>>> import spec
>>> bench = spec.load_benchmark("egomemreason")
>>> paper = bench.paper
>>> track = bench.track(paper.all_tables[0].track)
>>> path = bench.folder / paper.csv
>>> records = paper_records(bench, track, paper, path.read_bytes(), str(path))
>>> len(records), {r.source for r in records}, records == paper_records(
...     bench, track, paper, path.read_bytes(), str(path))
(18, {'paper'}, True)
>>> model_size("Qwen-3-VL-30B-A3B", "Open-source"), model_size("GPT-5", "Proprietary API")
('30B-A3B', 'API')
>>> try:
...     paper_records(bench, track, paper, b"method,group\\nX,Y\\n", "paper.csv")
... except BoardError as error:
...     print(error)  # doctest: +ELLIPSIS
paper.csv: expected a header of method, group, note and metric keys of the memory track (...
"""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, datetime, time

from pydantic import ValidationError

import ledger
import spec
from errors import BoardError

_SIZE = re.compile(r"-(\d+(?:\.\d+)?B(?:-A\d+(?:\.\d+)?B)?)$")
TEXT_COLUMNS = ("method", "group", "note")
INPUT_COLUMN = "input"  # optional: what the model saw, a key of the spec's input choices


def model_size(method: str, group: str) -> str:
    """The size the method name states ("8B", "30B-A3B"), "API" for API models, else ""."""
    match = _SIZE.search(method)
    if match:
        return match.group(1)
    return "API" if "API" in group else ""


def header_problem(track: spec.Track, header: list[str]) -> str | None:
    """What is wrong with a paper CSV's header for ``track``, or None."""
    known = set(track.all_metric_keys)
    unknown = [c for c in header if c not in known and c not in (*TEXT_COLUMNS, INPUT_COLUMN)]
    missing = [c for c in (*TEXT_COLUMNS, track.paper_ranking) if c not in header]
    if not unknown and not missing:
        return None
    found = []
    if missing:
        found.append(f"missing {', '.join(missing)}")
    if unknown:
        found.append(f"unknown {', '.join(unknown)}")
    return (
        f"expected a header of {', '.join(TEXT_COLUMNS)} and metric keys of the "
        f"{track.id} track ({', '.join(track.all_metric_keys)}), with "
        f"{track.paper_ranking}; found {'; '.join(found)}"
    )


def _key_size(track: spec.Track) -> int | None:
    """The questions of the track's key: the size of its ranking metric (None: not counted)."""
    return track.sizes.get(track.ranking)


def _measured_on(track: spec.Track, table: spec.PaperTable) -> int | None:
    """The question count a table was measured on, when it is not the key's; else None."""
    if table.questions is None or table.questions == _key_size(track):
        return None
    return table.questions


def _measured_text(track: spec.Track, measured: int | None) -> str:
    """The end of a paper row's description: what it was measured on, if not the key's."""
    if measured is None:
        return "."
    size = _key_size(track)
    board = f", not this board's {size:,}" if size is not None else ""
    return f", measured on {measured:,} questions{board}."


def paper_records(
    bench: spec.Benchmark,
    track: spec.Track,
    paper: spec.Paper,
    data: bytes,
    source: str,
    table: spec.PaperTable | None = None,
) -> list[ledger.Record]:
    """One record per row of the paper's CSV (of ``table``, default the main one); the message
    names the bad row and column."""
    table = table or paper.all_tables[0]
    try:
        reader = csv.DictReader(io.StringIO(data.decode("utf-8-sig")))
        rows = list(reader)
    except (UnicodeDecodeError, csv.Error) as exc:
        raise BoardError(f"{source} is not a UTF-8 CSV file: {exc}") from None
    header = list(reader.fieldnames or [])
    problem = header_problem(track, header)
    if problem:
        raise BoardError(f"{source}: {problem}")
    if not rows:
        raise BoardError(f"{source} has a header but no rows; expected one row per method")
    metric_columns = [k for k in track.all_metric_keys if k in header]
    created = datetime.combine(paper.date, time(), tzinfo=UTC)
    measured = _measured_on(track, table)
    records = []
    for line, row in enumerate(rows, start=2):
        method = (row["method"] or "").strip()
        try:
            printed = {k: float(row[k]) for k in metric_columns if (row[k] or "").strip()}
        except (TypeError, ValueError) as exc:
            raise BoardError(f"{source} line {line} ({method}): {exc}") from None
        if track.paper_ranking not in printed:
            raise BoardError(
                f"{source} line {line} ({method}): no {track.paper_ranking}; every "
                "row needs the ranking metric"
            )
        try:
            record = ledger.Record(
                benchmark=bench.id,
                track=track.id,
                id=paper.record_id(table, method),
                created_at=created,
                source="paper",
                team_name=paper.team,
                method_name=method,
                model_size=model_size(method, row["group"] or ""),
                uses_external=None,
                uses_frames=(row.get(INPUT_COLUMN) or "").strip() or None,
                method_description=f"Reported in {table.table} of the {bench.title} paper "
                f"({row['group']} group)" + _measured_text(track, measured),
                publication_url=paper.url,
                metrics={**printed, **track.derived_metrics(printed)},
                counts=None,
                n_abstained=None,
                provenance=None,
                note=(row["note"] or "").strip() or None,
                questions=measured,
            )
            ledger.check_record(record, bench, track)
        except (ValidationError, ledger.RecordError) as exc:
            raise BoardError(f"{source} line {line} ({method}): {exc}") from None
        records.append(record)
    ids = [r.id for r in records]
    if len(set(ids)) != len(ids):
        twice = sorted({r.method_name for r in records if ids.count(r.id) > 1})
        raise BoardError(
            f"{source}: {len(twice)} method names appear twice "
            f"({', '.join(twice)}); each row needs its own name"
        )
    return records
