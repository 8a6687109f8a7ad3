"""``make bench``: run P1-P6, print the table, rewrite BENCHMARKS.md.

Example::

    python -m perf                  # everything (~17 min on 2 cores), writes BENCHMARKS.md
    python -m perf --only P1 P3     # some parts, printed only
    python -m perf --only P1 P2 --quick   # P2 without its large load and sessions' memory
"""

from __future__ import annotations

import argparse
import time

from tests.support.procs import isolate_hub_environment

isolate_hub_environment("leaderboard-bench-hf-home-")  # before huggingface_hub is imported

from perf import p1_score, p2_http, p3_board, p4_boot, p5_uploads, p6_attacks  # noqa: E402
from perf.report import Row, machine, table, write_benchmarks  # noqa: E402

PARTS = {
    "P1": p1_score.run,
    "P2": p2_http.run,
    "P3": p3_board.run,
    "P4": p4_boot.run,
    "P5": p5_uploads.run,
    "P6": p6_attacks.run,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m perf",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--only",
        nargs="+",
        choices=list(PARTS),
        metavar="PART",
        help="run only these parts (P1 P2 P3 P4 P5 P6); BENCHMARKS.md is not written",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="P2 without its large load and the sessions' memory (with --only)",
    )
    args = parser.parse_args(argv)
    facts = machine()
    started = time.perf_counter()
    rows: list[Row] = []
    for name, run in PARTS.items():
        if args.only and name not in args.only:
            continue
        print(f"running {name} ...", flush=True)
        rows += p2_http.run(large=False) if name == "P2" and args.quick else run()
    seconds = time.perf_counter() - started
    print()
    print("\n".join(f"{k}: {v}" for k, v in facts.items()))
    print(table(rows))
    if not args.only:
        write_benchmarks(rows, facts, seconds)
        print("\nwrote BENCHMARKS.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
