"""Write a benchmark paper's reported rows to the leaderboard as `source: "paper"` records.

Each row of the paper's CSV (the spec's `[paper] csv`, beside its benchmark.toml; `--csv` to
use another) becomes one record of the paper's track: the metric columns as the paper prints
them, no counts and no provenance (nothing was re-scored), the CSV's note kept. The header is
`method`, `group`, `note`, optionally `input` (a key of the spec's input choices: what the
model saw, where the paper says), and any of the track's metric keys (its paper-only ones
included), the paper's ranking metric among them. An aggregate the paper does not print is
derived from its members when the row has them all, as the spec defines it: a micro aggregate
weighted by the spec's group sizes, a macro one their plain mean; otherwise it is left out.
Team, date, link and the table's name come from the spec's `[paper]`; model size from the
method name where it states one ("8B", "30B-A3B"), "API" for API models; external data is
null (not reported), and so is the input without an `input` column.

A paper may have tables of other tracks (`[[paper.tables]]`, each with its own CSV):
`--track` seeds the table of that track; without it, the main `[paper]` table is seeded.

Idempotent: a record's id is a uuid5 (in the spec's paper namespace) of the method name (of
"<track>/<method>" for another table) and its date is the paper's, so a second run finds every
row already there and writes nothing. If a row is already there with other content, that is an
error and nothing is written (records are immutable).

Example:

    python scripts/seed_paper_baselines.py --benchmark egomemreason --leaderboard-dir /tmp/board
    python scripts/seed_paper_baselines.py --benchmark egoargus --dry-run
    python scripts/seed_paper_baselines.py --benchmark egoargus --track decision --dry-run
    python scripts/seed_paper_baselines.py --benchmark egomemreason    # its records repo
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import ledger
import spec
from errors import UsageError
from maintainer.paper_rows import paper_records
from scripts._cli import (
    DIR_HELP,
    Chosen,
    Parser,
    add_benchmark_arguments,
    add_target_arguments,
    describe,
    open_store,
    read_input,
    run,
)
from spec.folder_files import TABLE_LIMIT_BYTES


def build_parser(chosen: Chosen) -> argparse.ArgumentParser:
    parser = Parser(
        description=__doc__,
        epilog=describe(chosen),
    )
    add_benchmark_arguments(parser)
    paper = chosen.bench.paper
    default = f"{chosen.bench.folder / paper.csv}" if paper is not None else "none: no [paper]"
    parser.add_argument(
        "--csv",
        type=Path,
        default=None,
        help=f"the paper's rows as CSV (default: the spec's for the table "
        f"seeded, {default} for [paper])",
    )
    add_target_arguments(parser, chosen, dir_help=f"{DIR_HELP} (created if missing)")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the records as a JSON list on stdout; write nothing",
    )
    return parser


def seed(args: argparse.Namespace, chosen: Chosen) -> int:
    bench = chosen.bench
    paper = bench.paper
    if paper is None:
        raise UsageError(
            f"{bench.folder / spec.SPEC_FILENAME} declares no [paper]; a "
            "benchmark without paper rows has nothing to seed"
        )
    table = paper.all_tables[0]
    if chosen.track_given and chosen.track.id != table.track:
        others = [t for t in paper.tables if t.track == chosen.track.id]
        if not others and not paper.tables:
            raise UsageError(
                f"--track {chosen.track.id}: the paper's rows belong to the "
                f"{table.track} track ([paper] track); drop --track"
            )
        if not others:
            tabled = ", ".join(f"{t.track} ({t.table})" for t in paper.all_tables)
            raise UsageError(
                f"--track {chosen.track.id}: no table of the paper gives that "
                f"track's rows; its tables are for: {tabled}"
            )
        table = others[0]
    track = bench.track(table.track)
    path: Path = args.csv or bench.folder / table.csv
    try:
        # The folder's own table is read as every benchmark folder's file is (spec.folder_files),
        # another as every input file is, within the same bound.
        data = (
            read_input(args.csv, "paper CSV (--csv)", TABLE_LIMIT_BYTES)
            if args.csv
            else spec.paper_table(bench, table)
        )
    except OSError as exc:
        raise UsageError(f"cannot read the paper CSV {path}: {exc.strerror or exc}") from None
    records = paper_records(bench, track, paper, data, str(path), table)
    if args.dry_run:
        print(json.dumps([json.loads(r.to_json()) for r in records], indent=1))
        print(f"dry run, nothing written: {len(records)} paper rows", file=sys.stderr)
        return 0

    store, where = open_store(args, missing_dir="create")
    present = set(store.list_paths())
    new = [r for r in records if r.path() not in present]
    conflicts = [
        f"{r.path()} ({r.method_name})"
        for r in records
        if r.path() in present and store.read(r.path()) != r.to_json()
    ]
    if conflicts:
        raise UsageError(
            f"{len(conflicts)} paper rows are already in {where} with other content: "
            f"{', '.join(conflicts)}; records are immutable, so nothing was written; "
            "check that --csv is the table these rows were seeded from"
        )
    for record in new:
        store.write(record, ledger.commit_message(record, track))
        print(f"wrote {record.path()}  {record.method_name}")
    if new:
        print(
            f"wrote {len(new)} paper rows to {where}; {len(records) - len(new)} were already there"
        )
    else:
        print(f"nothing new: all {len(records)} paper rows are already in {where}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(build_parser, seed, argv)


if __name__ == "__main__":
    raise SystemExit(main())
