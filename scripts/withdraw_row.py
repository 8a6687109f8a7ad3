"""Withdraw a row from the leaderboard: publish the immutable record that retracts it.

Records are never deleted or rewritten. A withdrawal is a record of its own
(`submissions/<uuid>.json`, `"source": "withdrawal"`) naming the row it retracts and why: the
board stops showing the row within its cache time-to-live, the row's card (still reached by its
permalink) says it was withdrawn, when and why, and scripts/reproduce_row.py still reproduces
it. Run it with `--dry-run` first, as publish_submission.py: it prints the record and writes
nothing. A row a newer row superseded is off the board already (withdraw that newer row), and
a withdrawn row is withdrawn once. To replace a row with another file instead, publish that
file with publish_submission.py --supersedes; to keep one of two rows of the same team and
method on the same key version, publish its file with --supersedes naming the other.

The row is looked up among the records of `--leaderboard` (default the benchmark's records
repo; HF_ENDPOINT and HF_TOKEN are honoured, with a token that can write) or of
`--leaderboard-dir`; its record names its track. Any problem: a message on stderr, exit status
1, nothing written.

Example:

    # what would be written:
    python scripts/withdraw_row.py --benchmark egomemreason --row <uuid> \\
        --reason "The team asked to withdraw it: their frame sampler read the test videos." \\
        --dry-run
    # then for real (to the Hub dataset, or --leaderboard-dir /tmp/board for a local board):
    python scripts/withdraw_row.py --benchmark egomemreason --row <uuid> --reason "..."
"""

from __future__ import annotations

import argparse
import sys
import uuid

import ledger
from errors import UsageError
from maintainer.board_checks import row_name
from maintainer.withdraw import withdrawal
from records.withdrawals import REASON_MAX_CHARS
from scripts._cli import (
    Chosen,
    Parser,
    add_benchmark_arguments,
    add_target_arguments,
    describe,
    open_store,
    read_board,
    run,
)


def _uuid(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a uuid; give the id of the row, as in submissions/<uuid>.json "
            "or its card's Record id"
        ) from None


def build_parser(chosen: Chosen) -> argparse.ArgumentParser:
    parser = Parser(description=__doc__, epilog=describe(chosen))
    add_benchmark_arguments(parser)
    parser.add_argument(
        "--row",
        type=_uuid,
        required=True,
        metavar="ID",
        help="the uuid of the row to withdraw (its submissions/<uuid>.json, its card's Record id)",
    )
    parser.add_argument(
        "--reason",
        required=True,
        help=f"why it is withdrawn, shown on the row's card (at most {REASON_MAX_CHARS} "
        "characters)",
    )
    add_target_arguments(parser, chosen, title="where the row is (one of)")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="check the row and print the withdrawal record as JSON on stdout; write nothing",
    )
    return parser


def withdraw(args: argparse.Namespace, chosen: Chosen) -> int:
    store, where = open_store(args, missing_dir="refuse")
    try:
        record, row = withdrawal(read_board(store), chosen.bench, args.row, args.reason)
    except ledger.RecordError as exc:
        raise UsageError(f"--reason: {str(exc).removeprefix('reason: ')}") from None
    if args.dry_run:
        print(record.to_json().decode(), end="")
        print(
            f"dry run, nothing written; would publish {record.path()} to {where}, "
            f"withdrawing {row_name(row)}",
            file=sys.stderr,
        )
        return 0
    message = f"Withdraw {row.method_name} by {row.team_name}: {args.reason.splitlines()[0]}"
    written = store.write(record, message[:200])
    print(f"published {record.path()} to {where} ({written})")
    print(f"it withdraws {row_name(row)}, which the board now hides; its card says why")
    if args.leaderboard_dir is None:
        print(f"The Space hides it within {ledger.CACHE_TTL_S} s (its board cache time-to-live).")
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(build_parser, withdraw, argv, after_error="nothing was written")


if __name__ == "__main__":
    raise SystemExit(main())
