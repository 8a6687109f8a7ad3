"""Reproduce a leaderboard row: re-score its submission and compare every number, bit for bit.

Checks that the submission's sha256 is the one the record names, that the answer key's sha256
is too (and says which key version the record names when it is not), scores the submission
with the evaluator, and compares every metric, every count and the abstention count with the
record, and every interval a record keeps (a decision row's, its F1's bootstrap interval
included). Exit status 0 and "reproduced" when all match; 1, with each differing field,
otherwise. A metric without a value (a decision row's timing means when nothing was timed) is
absent from both.

RECORD is a record file (submissions/<uuid>.json) or the uuid of a row, looked up on the
leaderboard dataset (`--leaderboard`, default the benchmark's public records repo;
HF_ENDPOINT and HF_TOKEN are honoured) or in a local folder (`--leaderboard-dir`). The record
is re-scored on the benchmark and track it names (`--benchmark` and `--track`, when given,
must be those). A row the board no longer shows (superseded by a newer row, or withdrawn) is
reproduced all the same, with a note saying what became of it.

Example:

    # a row of the public leaderboard, by uuid, with the files the team sent:
    python scripts/reproduce_row.py --benchmark egomemreason --record <uuid> \\
        --submission user_submission.json --private /path/to/<key file>
    # a row of a benchmark's demo board, which runs anywhere:
    python scripts/reproduce_row.py --benchmark egomemreason \\
        --leaderboard-dir benchmarks/egomemreason/demo/leaderboard --record <uuid> \\
        --submission benchmarks/egomemreason/demo/sample_submission.json \\
        --private benchmarks/egomemreason/demo/<key file>
    # a row of another track (here EgoArgus's decision board):
    python scripts/reproduce_row.py --benchmark egoargus --track decision \\
        --leaderboard-dir benchmarks/egoargus/demo/leaderboard --record <uuid> \\
        --submission <its submission> --private benchmarks/egoargus/demo/<decision key file>
"""

from __future__ import annotations

import argparse
import sys
import uuid
from pathlib import Path

import ledger
import spec
from errors import UsageError
from maintainer.board_checks import owner, rows_of, withdrawals_of, withdrawn_text
from maintainer.reproduce import compare
from records import history
from scripts._cli import (
    Chosen,
    Parser,
    add_benchmark_arguments,
    add_target_arguments,
    describe,
    load_key,
    open_store,
    read_board,
    read_input,
    run,
    score_submission,
)


def build_parser(chosen: Chosen) -> argparse.ArgumentParser:
    parser = Parser(
        description=__doc__,
        epilog=describe(chosen),
    )
    add_benchmark_arguments(parser)
    parser.add_argument(
        "--record",
        required=True,
        help="a record file's path, or the uuid of a row on the leaderboard",
    )
    parser.add_argument(
        "--submission",
        type=Path,
        required=True,
        help="the submission JSON file the row was scored from",
    )
    parser.add_argument(
        "--private", type=Path, required=True, help=f"the answer key, {chosen.track.key.name}"
    )
    add_target_arguments(parser, chosen, hub_help="leaderboard dataset to look a uuid up in")
    return parser


def load_record(
    args: argparse.Namespace,
) -> tuple[ledger.Record, str, list[ledger.Entry] | None]:
    """The record RECORD names, where it was found, and its board's records when it was
    looked up on one."""
    path = Path(args.record)
    board_records: list[ledger.Entry] | None = None
    if path.is_file():
        data, where = read_input(path, "record"), str(path)
    else:
        try:
            wanted = uuid.UUID(args.record)
        except ValueError:
            raise UsageError(
                f"--record {args.record}: neither a file nor a uuid; give a record's path or "
                "the uuid of a row"
            ) from None
        store, board = open_store(args, missing_dir="read as empty")
        found = [p for p in store.list_paths() if Path(p).stem == str(wanted)]
        if not found:
            raise UsageError(f"--record {wanted}: no such row in {board}")
        data, where = store.read(found[0]), f"{found[0]} in {board}"
        board_records = read_board(store)
    try:
        entry = ledger.read_entry(data)
    except ledger.RecordError as exc:
        raise UsageError(f"{where} is not a valid record: {exc}") from None
    if isinstance(entry, ledger.Withdrawal):
        raise UsageError(
            f"{where} is a withdrawal (of the row {entry.withdraws}), not a row: there is "
            f"nothing to re-score; reproduce the row it withdraws, --record {entry.withdraws}"
        )
    return entry, where, board_records


def fate(record: ledger.Record, chosen: Chosen, board: list[ledger.Entry]) -> str | None:
    """What became of a row its board no longer shows, for a note; None for a shown row."""
    bench, track = chosen.bench, chosen.track
    rows = rows_of(board, bench, track)
    status = history.status(record, rows, withdrawals_of(board, bench, track))
    if status.withdrawal is not None:
        return withdrawn_text(status.withdrawal)
    if status.superseded_by is not None:
        newer = status.superseded_by
        return f"superseded by {newer.id}, {newer.method_name} by {newer.team_name}"
    return None


def record_chosen(chosen: Chosen, record: ledger.Record) -> Chosen:
    """The benchmark and track a record was scored on, where the command line names neither:
    the record names both (a schema-1 record, the chosen benchmark's unnamed_records_track)."""
    bench = chosen.bench
    if not chosen.bench_given and record.benchmark not in (None, bench.id):
        try:
            bench = spec.load_benchmark(record.benchmark)
        except spec.SpecError:
            return chosen  # not one under benchmarks/: --benchmark names its folder
    if chosen.track_given and bench is chosen.bench:
        return chosen
    track_id = ledger.record_track(record, bench)
    if track_id is None or chosen.track_given:
        return Chosen(bench, chosen.track, chosen.track_given, chosen.bench_given)
    return Chosen(bench, bench.track(track_id), chosen.track_given, chosen.bench_given)


def reproduce(args: argparse.Namespace, chosen: Chosen) -> int:
    record, where, board = load_record(args)
    chosen = record_chosen(chosen, record)
    track = chosen.track
    if ledger.record_track(record, chosen.bench) != track.id:
        raise UsageError(
            f"{where} belongs to {owner(record)}, not {chosen.bench.id}/{track.id}; pass the "
            "--benchmark and --track it was scored on"
        )
    if record.source != "rescored" or record.provenance is None or record.counts is None:
        raise UsageError(
            f"{where} is a {record.source} row ({record.method_name}): its numbers are "
            "reported by a paper, not scored from a submission, so there is nothing to re-score"
        )
    key = load_key(track, args.private)
    result = score_submission(key, args.submission)

    label = f"{record.method_name} by {record.team_name} ({where})"
    diffs = compare(record, result, key)
    off = fate(record, chosen, board) if board is not None else None
    if off is not None:
        print(f"note: this row is no longer on the board ({off})", file=sys.stderr)
    if record.provenance.scorer_version != result.scorer_version:
        print(
            f"note: the record was scored by {record.provenance.scorer_version}, this is "
            f"{result.scorer_version}",
            file=sys.stderr,
        )
    if diffs:
        differ = "1 field differs" if len(diffs) == 1 else f"{len(diffs)} fields differ"
        print(f"NOT reproduced: {label}: {differ}:", file=sys.stderr)
        for line in diffs:
            print(f"  {line}", file=sys.stderr)
        return 1
    kept = f", {len(record.intervals)} intervals" if record.intervals is not None else ""
    ranking = track.ranking
    shown = track.format_metric(ranking, result.metrics[ranking])
    print(
        f"reproduced: {label}: submission and key sha256, {len(result.metrics)} metrics, "
        f"{len(result.counts)} counts{kept} and the abstention count match bit for bit "
        f"({track.labels[ranking]} {shown})"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(build_parser, reproduce, argv)


if __name__ == "__main__":
    raise SystemExit(main())
