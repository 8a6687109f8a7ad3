"""Write a new benchmark folder from a release as its authors publish it: multiple-choice, or
short-answer (multiple-choice and open questions).

Reads the answer key (CSV, JSON Lines, or JSON: a list, {"samples": [...]}, an object keyed by
id, or an object nested by levels down to lists of rows) and infers the rest: the id field (or
give the fields of a composed id, or name an object's levels from the top with --id-fields),
the question, the options (one field holding a JSON object or list, one field per option, e.g.
a0 ... a4, or lines at the end of the question: "A. left"), the answer and how it is written (a
letter, a 0- or 1-based index, the option's text, or "B. <its text>"), the letters and option
counts, and a grouping field with its groups and sizes (none when no field has a few values of
enough questions each: the track then shows Overall alone). What a submission's entries call
their answer is not in the key: give --prediction if the release's own evaluation reads another
field than predicted_answer. A release without options whose answers are letters, texts or
lists of accepted texts is a short-answer track: the field telling a multiple-choice question
(every answer a letter) from an open one is inferred, and the rule sets that read responses
are written as data; --group-from-id names the groups written in its ids. Writes into
--out: a commented benchmark.toml (check it: the repos and contact are placeholders), stub
about.md and citation.bib, a synthetic demo in the release's own layout (questions marked
[SYNTHETIC DEMO], answers drawn anew), a sample submission, and release/<public file> when no
--public was given (the key without answers). It
then checks that the spec loads and the demo release passes validate_benchmark's checks, and
keeps the key's file name out of git (the lines it adds to the repository's .gitignore, or
prints when --out is in none).

Example:

    python scripts/new_benchmark.py --id mybench --key release/val_key.csv --out benchmarks/mybench
    # a composed id, options in columns a0..a4, answers as 0-based indices, grouped by type:
    python scripts/new_benchmark.py --id mybench --key release/val.csv --out /tmp/mybench \\
        --id-fields video_id,qid --options a0,a1,a2,a3,a4 --answer answer \\
        --answer-format index --group type --prediction prediction
    # {video: {dimension: [{question, answer}, ...]}}, grouped by dimension, two codes as one:
    python scripts/new_benchmark.py --id mybench --key release/test.json --out /tmp/mybench \\
        --id-fields video,dimension --group dimension --merge "Motion=speed,direction"
    # short answers keyed by id ("validation_Art_Theory_3"), subjects in the ids, a discipline:
    python scripts/new_benchmark.py --id mybench --key release/answer_dict_val.json \\
        --out /tmp/mybench --group-from-id "validation_(?P<subject>.+)_\\d+" \\
        --aggregate "Art and Design=Art,Art_Theory,Design,Music"
    # then:
    python scripts/validate_benchmark.py --benchmark benchmarks/mybench \\
        --private release/val_key.csv --public benchmarks/mybench/release/val_public.csv
    LEADERBOARD_BENCHMARK=benchmarks/mybench make run
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from errors import LeaderboardError
from maintainer.release_inference import DEFAULT_DECIMALS, DEFAULT_PREDICTION, Overrides
from maintainer.scaffold import scaffold
from scripts._cli import Parser
from spec.base import MAX_DECIMALS


def _names(text: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in text.split(",") if name.strip())


def _named_values(text: str) -> tuple[str, tuple[str, ...]]:
    """``LABEL=V1,V2``: a label and the values (or groups) it names."""
    label, sep, values = text.partition("=")
    if not sep or not label.strip() or len(_names(values)) < 1:
        raise argparse.ArgumentTypeError(f"expected LABEL=VALUE,VALUE, got {text!r}")
    return label.strip(), _names(values)


def _decimals(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) > MAX_DECIMALS:
        raise argparse.ArgumentTypeError(f"expected 0 to {MAX_DECIMALS}, got {text!r}")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="new_benchmark.py", description=__doc__)
    parser.add_argument("--id", required=True, help="the benchmark's id, e.g. mybench")
    parser.add_argument("--key", type=Path, required=True, help="the release's answer key")
    parser.add_argument("--public", type=Path, help="the release's public file, if it has one")
    parser.add_argument("--out", type=Path, required=True, help="the new folder (empty or new)")
    parser.add_argument(
        "--id-fields",
        type=_names,
        default=(),
        help="the id's field(s), by commas; of a JSON object nested by levels, each level's "
        "name from the top (the place in the innermost list completes the id)",
    )
    parser.add_argument(
        "--options", type=_names, default=(), help="the options' field, or one per option"
    )
    parser.add_argument("--answer", help="the answer's field")
    parser.add_argument(
        "--answer-format",
        choices=("letter", "index", "index1", "text", "letter_text"),
        help="how the key writes its answers (index: 0-based, index1: 1-based, letter_text: "
        '"B. <the option\'s text>")',
    )
    parser.add_argument("--group", help="the field to group the questions by")
    parser.add_argument(
        "--group-from-id",
        metavar="REGEX",
        help="the groups are written in the ids: a regular expression matching every id whole, "
        'whose named group is the grouping field, e.g. "validation_(?P<subject>.+)_\\d+" (a '
        "short-answer release)",
    )
    parser.add_argument(
        "--no-group",
        action="store_true",
        help="no grouping, even when a field could be one: the track shows Overall alone",
    )
    parser.add_argument(
        "--merge",
        type=_named_values,
        action="append",
        default=[],
        metavar="LABEL=V1,V2",
        help="count several values of the grouping field as one group, as the release's own "
        'scorer does ("TP counted as TN": --merge TN=TN,TP); repeat it for more',
    )
    parser.add_argument(
        "--aggregate",
        type=_named_values,
        action="append",
        default=[],
        metavar="LABEL=G1,G2",
        help="a metric over several groups, micro (correct over all their rows: an official "
        '"Acc_C = CW + CH"), named by their values or labels, or all; repeat it for more',
    )
    parser.add_argument(
        "--macro",
        type=_named_values,
        action="append",
        default=[],
        metavar="LABEL=G1,G2",
        help="a metric over several groups, macro (the mean of their accuracies), or all",
    )
    parser.add_argument(
        "--prediction-forms",
        type=_names,
        default=(),
        metavar="FORM,FORM",
        help="what else a prediction is read as, when the release's own scorer reads it so: "
        'letter_prefix ("A. text" or "A)" as A), option_text (an option\'s whole text)',
    )
    parser.add_argument(
        "--prediction",
        help="what a submission's entries call their answer, as the release's own evaluation "
        f"reads them (default {DEFAULT_PREDICTION})",
    )
    parser.add_argument(
        "--decimals",
        type=_decimals,
        default=DEFAULT_DECIMALS,
        help="how many decimals a percent is shown with, as the authors' table prints it "
        f"(0 to {MAX_DECIMALS}, default {DEFAULT_DECIMALS}; records keep full values)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (1), already printed
        return int(exc.code or 0)
    forms = [f for f in args.prediction_forms if f not in ("letter_prefix", "option_text")]
    if forms or (args.group and args.no_group):
        parser.error(
            f"--prediction-forms: unknown {', '.join(forms)}; known: letter_prefix, option_text"
            if forms
            else "give --group or --no-group, not both"
        )
    overrides = Overrides(
        id_fields=args.id_fields,
        options=args.options,
        answer=args.answer,
        answer_format=args.answer_format,
        group=args.group,
        no_group=args.no_group,
        prediction=args.prediction,
        merges=tuple(args.merge),
        aggregates=tuple(
            (label, values, how)
            for how, given in (("micro", args.aggregate), ("macro", args.macro))
            for label, values in given
        ),
        prediction_forms=args.prediction_forms,
        decimals=args.decimals,
        group_from_id=args.group_from_id,
    )
    try:
        written = scaffold(args.id, args.key, args.out, args.public, overrides)
    except (LeaderboardError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {written.folder}: {len(written.files)} files")
    for path in written.files:
        print(f"  {path}")
    print(written.inferred.said())
    if written.ignored is not None:
        print(f"kept the key out of git: {written.ignored} now ignores " + " ".join(written.ignore))
    else:
        print("keep the key out of git: add these lines to your repository's .gitignore:")
        for line in written.ignore:
            print(f"  {line}")
    # Quoted as a shell reads them: a path with a space is one word.
    folder, key, public = (shlex.quote(str(p)) for p in (written.folder, args.key, written.public))
    print(
        "next: check benchmark.toml, then\n"
        f"  python scripts/validate_benchmark.py --benchmark {folder} "
        f"--private {key} --public {public}\n"
        f"  LEADERBOARD_BENCHMARK={folder} make run"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
