"""Write the paper's Table 1 rows to the leaderboard as `source: "paper"` records.

Each row of the CSV (demo/paper_baselines.csv, a copy of Table 1 of the EgoMemReason paper)
becomes one record: the six query-type columns and Overall as the paper prints them, no counts
and no provenance (nothing was re-scored), the CSV's note kept (two rows' Overall differs from
what their split columns give). The paper does not print the three memory-type columns; they
are the split columns weighted by split size (100, 100, 100, 100, 50, 50), as the evaluator
defines them. Model size comes from the method name where it states one ("8B", "30B-A3B"),
"API" for API models; video input and external data are null (not reported).

Idempotent: a record's id is a uuid5 of the method name and its date is the paper's, so a
second run finds every row already there and writes nothing. If a row is already there with
other content, that is an error and nothing is written (records are immutable).

Example:

    python scripts/seed_paper_baselines.py --leaderboard-dir demo/leaderboard
    python scripts/seed_paper_baselines.py --dry-run
    python scripts/seed_paper_baselines.py --leaderboard Ted412/EgoMemReason-Leaderboard
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path

from _cli import DIR_HELP, ROOT, Parser, UsageError, add_target_arguments, open_store, run
from pydantic import ValidationError

import evaluator
import ledger

#: Namespace of the paper rows' uuid5 ids; never change it, or a rerun duplicates the rows.
PAPER_NAMESPACE = uuid.UUID("5e0d6a2c-3b8f-4f1e-9c57-2f4a1d7b9e60")
#: arXiv 2605.09874, first published 2026-05-11: the date of every paper row.
PAPER_DATE = datetime(2026, 5, 11, tzinfo=UTC)
PAPER_URL = "https://arxiv.org/abs/2605.09874"
PAPER_TEAM = "EgoMemReason authors"
DEFAULT_CSV = ROOT / "demo" / "paper_baselines.csv"
_SIZE = re.compile(r"-(\d+(?:\.\d+)?B(?:-A\d+(?:\.\d+)?B)?)$")
_SPLIT_COLUMNS = evaluator.QUERY_TYPE_KEYS


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--csv", type=Path, default=DEFAULT_CSV,
                        help="the paper's Table 1 as CSV (default: demo/paper_baselines.csv)")
    add_target_arguments(parser, dir_help=f"{DIR_HELP} (created if missing)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the records as a JSON list on stdout; write nothing")
    return parser


def model_size(method: str, group: str) -> str:
    """The size the method name states ("8B", "30B-A3B"), "API" for API models, else ""."""
    match = _SIZE.search(method)
    if match:
        return match.group(1)
    return "API" if "API" in group else ""


def memory_metrics(splits: dict[str, float]) -> dict[str, float]:
    """Memory-type percentages from the split percentages, weighted by split size."""
    out = {}
    for memory in evaluator.MEMORY_TYPES:
        keys = [k for k, m in evaluator.QUERY_TYPES.values() if m == memory]
        total = sum(evaluator.SPLIT_SIZES[k] for k in keys)
        out[memory] = sum(splits[k] * evaluator.SPLIT_SIZES[k] for k in keys) / total
    return out


def paper_records(data: bytes, source: str) -> list[ledger.Record]:
    """One record per row of the Table 1 CSV; the message names the bad row and column."""
    try:
        rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise UsageError(f"{source} is not a UTF-8 CSV file: {exc}") from None
    needed = ("method", "group", *_SPLIT_COLUMNS, "overall", "note")
    missing = [c for c in needed if rows and c not in rows[0]]
    if not rows or missing:
        raise UsageError(f"{source}: expected a header with {', '.join(needed)}; "
                         f"missing {', '.join(missing) or 'every row'}")
    records = []
    for line, row in enumerate(rows, start=2):
        try:
            splits = {k: float(row[k]) for k in _SPLIT_COLUMNS}
            overall = float(row["overall"])
        except ValueError as exc:
            raise UsageError(f"{source} line {line} ({row['method']}): {exc}") from None
        method = row["method"].strip()
        try:
            records.append(ledger.Record(
                id=uuid.uuid5(PAPER_NAMESPACE, method),
                created_at=PAPER_DATE,
                source="paper",
                team_name=PAPER_TEAM,
                method_name=method,
                model_size=model_size(method, row["group"]),
                uses_external=None,
                uses_frames=None,
                method_description=f"Reported in Table 1 of the EgoMemReason paper "
                                   f"({row['group']} group).",
                publication_url=PAPER_URL,
                metrics={"overall": overall, **memory_metrics(splits), **splits},
                counts=None,
                n_abstained=None,
                provenance=None,
                note=row["note"].strip() or None,
            ))
        except ValidationError as exc:
            raise UsageError(f"{source} line {line} ({method}): {exc}") from None
    ids = [r.id for r in records]
    if len(set(ids)) != len(ids):
        raise UsageError(f"{source}: a method name appears twice; each row needs its own name")
    return records


def seed(args: argparse.Namespace) -> int:
    try:
        data = args.csv.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read --csv {args.csv}: {exc.strerror or exc}") from None
    records = paper_records(data, str(args.csv))
    if args.dry_run:
        print(json.dumps([json.loads(r.to_json()) for r in records], indent=1))
        print(f"dry run, nothing written: {len(records)} paper rows", file=sys.stderr)
        return 0

    store, where = open_store(args, missing_dir="create")
    present = set(store.list_paths())
    new = [r for r in records if r.path() not in present]
    conflicts = [f"{r.path()} ({r.method_name})" for r in records
                 if r.path() in present and store.read(r.path()) != r.to_json()]
    if conflicts:
        raise UsageError(
            f"{len(conflicts)} paper rows are already in {where} with other content: "
            f"{', '.join(conflicts)}; records are immutable, so nothing was written; "
            "check that --csv is the table these rows were seeded from"
        )
    for record in new:
        store.write(record, ledger.commit_message(record))
        print(f"wrote {record.path()}  {record.method_name}")
    if new:
        print(f"wrote {len(new)} paper rows to {where}; "
              f"{len(records) - len(new)} were already there")
    else:
        print(f"nothing new: all {len(records)} paper rows are already in {where}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(build_parser(), seed, argv)


if __name__ == "__main__":
    raise SystemExit(main())
