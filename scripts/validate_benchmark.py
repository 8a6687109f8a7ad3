"""Check a benchmark's spec and one track's release files before they are published.

Loads the benchmark's spec (which validates benchmark.toml: every field, every metric key,
every group), then runs the release checks of `release.py` on the answer key and the public
file: the key validates, its groups have the sizes the spec declares and exactly the flagged
rows are out of option, the public file describes the very same rows (ids, question texts,
options, every grouping field) and carries no answers. For a decision track: the key's
episodes validate, its scenarios have their declared sizes, and the public file has the same
episodes with no scenario, assist type or intervention time in it. Prints the sha256 of each
file (they go in the release notes and the key's provenance), then either a one-paragraph
summary (exit status 0) or every problem with its count and first ids (exit status 1). The
spec is checked as the app's boot checks it (its board's columns included), and a release that
passes but would hide a metric from every visitor (a group smaller than the track's min_rows)
gets a warning on stderr that names it and the fix.

`--help` names the chosen track's two file names and formats.

Example:

    # a shipped demo release (the files are the spec's key and public file names):
    python scripts/validate_benchmark.py --benchmark egomemreason \\
        --private benchmarks/egomemreason/demo/<key file> \\
        --public benchmarks/egomemreason/demo/<public file>
    # another track of a benchmark, e.g. EgoArgus's decision episodes:
    python scripts/validate_benchmark.py --benchmark egoargus --track decision \\
        --private benchmarks/egoargus/demo/<decision key file> \\
        --public benchmarks/egoargus/demo/<decision public file>
    # a new benchmark folder's release, before it is uploaded:
    python scripts/validate_benchmark.py --benchmark path/to/new-benchmark --track main \\
        --private /secure/<key file> --public release/<public file>
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import errors
import spec
from errors import UsageError
from maintainer import release
from scripts._cli import Chosen, Parser, add_benchmark_arguments, describe, read_input, run


def build_parser(chosen: Chosen) -> argparse.ArgumentParser:
    track = chosen.track
    parser = Parser(
        description=__doc__,
        epilog=describe(chosen),
    )
    add_benchmark_arguments(parser)
    parser.add_argument(
        "--private",
        type=Path,
        required=True,
        help=f"the track's answer key, {track.key.name} ({track.key.format})",
    )
    parser.add_argument(
        "--public",
        type=Path,
        required=True,
        help=f"the track's public file, {track.public.name} ({track.public.format})",
    )
    return parser


def validate(args: argparse.Namespace, chosen: Chosen) -> int:
    bench, track = chosen.bench, chosen.track
    key_bytes = read_input(args.private, "answer key (--private)")
    public_bytes = read_input(args.public, "public file (--public)")
    print(f"spec: {bench.folder / spec.SPEC_FILENAME} is valid ({bench.id}, track {track.id})")
    print(f"sha256 {hashlib.sha256(key_bytes).hexdigest()}  {args.private}")
    print(f"sha256 {hashlib.sha256(public_bytes).hexdigest()}  {args.public}")
    try:
        report = release.check_release(track, key_bytes, public_bytes)
    except errors.ReleaseError as exc:
        raise UsageError(f"{bench.id}: {exc}") from None
    print(report.summary())
    for warning in report.warnings:  # served as it is, but worth a look
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(build_parser, validate, argv)


if __name__ == "__main__":
    raise SystemExit(main())
