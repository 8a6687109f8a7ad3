"""Write a new benchmark folder from a multiple-choice release as its authors publish it.

Reads the answer key (CSV, JSON Lines, or JSON: a list or {"samples": [...]}) and infers the
rest: the id field (or give the fields of a composed id), the question, the options (one field
holding a JSON object or list, or one field per option, e.g. a0 ... a4), the answer and how it is
written (a letter, a 0- or 1-based index, the option's text), the letters and option counts, a
grouping field with its groups and sizes. What a submission's entries call their answer is not
in the key: give --prediction if the release's own evaluation reads another field than
predicted_answer. Writes into --out: a commented benchmark.toml (check
it: the repos and contact are placeholders), stub about.md and citation.bib, a synthetic demo in
the release's own layout (questions marked [SYNTHETIC DEMO], answers drawn anew), a sample
submission, and release/<public file> when no --public was given (the key without answers).
It then checks that the spec loads and the demo release passes validate_benchmark's checks.

Example:

    python scripts/new_benchmark.py --id mybench --key release/val_key.csv --out benchmarks/mybench
    # a composed id, options in columns a0..a4, answers as 0-based indices, grouped by type:
    python scripts/new_benchmark.py --id mybench --key release/val.csv --out /tmp/mybench \\
        --id-fields video_id,qid --options a0,a1,a2,a3,a4 --answer answer \\
        --answer-format index --group type --prediction prediction
    # then:
    python scripts/validate_benchmark.py --benchmark benchmarks/mybench \\
        --private release/val_key.csv --public benchmarks/mybench/release/val_public.csv
    LEADERBOARD_BENCHMARK=benchmarks/mybench make run
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from errors import LeaderboardError
from maintainer.release_layout import DEFAULT_PREDICTION, Overrides
from maintainer.scaffold import scaffold
from scripts._cli import Parser


def _names(text: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in text.split(",") if name.strip())


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="new_benchmark.py", description=__doc__)
    parser.add_argument("--id", required=True, help="the benchmark's id, e.g. mybench")
    parser.add_argument("--key", type=Path, required=True, help="the release's answer key")
    parser.add_argument("--public", type=Path, help="the release's public file, if it has one")
    parser.add_argument("--out", type=Path, required=True, help="the new folder (empty or new)")
    parser.add_argument("--id-fields", type=_names, default=(), help="the id's field(s), by commas")
    parser.add_argument(
        "--options", type=_names, default=(), help="the options' field, or one per option"
    )
    parser.add_argument("--answer", help="the answer's field")
    parser.add_argument(
        "--answer-format",
        choices=("letter", "index", "index1", "text"),
        help="how the key writes its answers (index: 0-based, index1: 1-based)",
    )
    parser.add_argument("--group", help="the field to group the questions by")
    parser.add_argument(
        "--prediction",
        help="what a submission's entries call their answer, as the release's own evaluation "
        f"reads them (default {DEFAULT_PREDICTION})",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (1), already printed
        return int(exc.code or 0)
    overrides = Overrides(
        id_fields=args.id_fields,
        options=args.options,
        answer=args.answer,
        answer_format=args.answer_format,
        group=args.group,
        prediction=args.prediction,
    )
    try:
        written = scaffold(args.id, args.key, args.out, args.public, overrides)
    except (LeaderboardError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    found = written.inferred
    print(f"wrote {written.folder}: {len(written.files)} files")
    for path in written.files:
        print(f"  {path}")
    joined = ", joined" if len(found.id_fields) > 1 else ""
    print(
        f"id {' and '.join(found.id_fields)} ({found.id_type}{joined}), question "
        f"{found.question}, options "
        f"{', '.join(found.options)}, answer {found.answer} ({found.answer_format}), letters "
        f"{found.letters} ({found.min_options}-{found.max_options} options), grouped by "
        f"{found.group_field}: {', '.join(f'{v} {n}' for v, n in found.groups.items())}; "
        f"a submission's answer is its entries' {found.prediction!r}"
    )
    print(
        "next: check benchmark.toml, then\n"
        f"  python scripts/validate_benchmark.py --benchmark {written.folder} "
        f"--private {args.key} --public {written.public}\n"
        f"  LEADERBOARD_BENCHMARK={written.folder} make run"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
