"""Verify an e-mailed submission, score it and publish it as one immutable leaderboard record.

Runs on the maintainer's machine with the maintainer's own Hugging Face login (HF_TOKEN or
`hf auth login`); the Space never writes. The submission is validated and scored by the same
evaluator as the Score tab, then written once as `submissions/<uuid>.json` with
`source: "rescored"`, the benchmark and track it was scored on, and its provenance (sha256 of
the submission, of its answers and of the answer key, key version, scorer version). A
submission already on the board (among that benchmark's and track's rows: the same file, or
the same answers on the same key version whatever the file's bytes) is refused unless
`--supersedes` names the row it corrects, and so is a second row of the same team and method
on the same key version; a row of another team or method name is superseded only with
`--force`, and so is a row of the same team and method left on another key version beside
this one (after a rotation, scripts/rescore_board.py carries every row at once). A row left
beside its twin by mistake is repaired either way: the file of the row to keep, with
`--supersedes` the row to drop, writes a withdrawal of that row (scripts/withdraw_row.py
withdraws a row for any other reason). A team or method name mixing scripts (a Cyrillic "е" in
"Gеmini") is refused unless `--allow-mixed-scripts`. A score significantly below chance
(letters of another key version, most likely) is refused unless `--allow-below-chance`. Any
problem: a message on stderr, exit status 1, nothing written.

`--benchmark` and `--track` choose what is scored (default: $LEADERBOARD_BENCHMARK, else the
Space's default, and its first track). `--leaderboard` defaults to the benchmark's records
repo; `--uses-frames` takes one of the benchmark's input choices. `--help` names them, and the
key's file name, for the benchmark chosen.

Example:

    python scripts/publish_submission.py --benchmark egomemreason \\
        --submission path/to/user_submission.json --private /path/to/<key file> \\
        --team-name "Demo Lab" --method-name "DemoVLM-7B" \\
        --model-size 7B --uses-external no --uses-frames <choice> \\
        --method-description "Uniformly sampled frames, one pass per question." \\
        --project-url https://example.org/demovlm --publication-url https://arxiv.org/abs/0000.00000

    # check everything and print the record, writing nothing:
    python scripts/publish_submission.py --dry-run ...
    # publish into a local folder laid out like the leaderboard dataset:
    python scripts/publish_submission.py --leaderboard-dir /tmp/board ...
    # rows older than answer fingerprints: compare their answers too, from their files:
    python scripts/publish_submission.py --submissions-dir ~/egomem-submissions ...
    # what the chosen benchmark's key file and input choices are:
    python scripts/publish_submission.py --benchmark egoargus --help
    # a row of another track, e.g. EgoArgus's decision episodes (JSON list or JSON Lines):
    python scripts/publish_submission.py --benchmark egoargus --track decision \\
        --submission decisions.jsonl --private /path/to/<decision key file> ...
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import ledger
from maintainer import publish
from maintainer.board_checks import check_names
from scripts._cli import (
    Chosen,
    Parser,
    add_benchmark_arguments,
    add_target_arguments,
    describe,
    load_key,
    open_store,
    read_board,
    run,
    score_submission,
)


def _yes_no(value: str) -> bool:
    answers = {"yes": True, "no": False}
    if value.strip().lower() not in answers:
        raise argparse.ArgumentTypeError(f"expected yes or no, got {value!r}")
    return answers[value.strip().lower()]


def _input_choice(chosen: Chosen) -> Callable[[str], str]:
    choices = chosen.bench.input.choices
    what = chosen.bench.input.label.lower()

    def check(value: str) -> str:
        if value not in choices:
            allowed = "; ".join(f"{k} ({v})" for k, v in choices.items())
            raise argparse.ArgumentTypeError(
                f"{value!r} is not a known {what} of {chosen.bench.id}; allowed: {allowed}"
            )
        return value

    return check


def _uuid(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a uuid; give the id of the row, as in submissions/<uuid>.json"
        ) from None


def build_parser(chosen: Chosen) -> argparse.ArgumentParser:
    bench, track = chosen.bench, chosen.track
    parser = Parser(
        description=__doc__,
        epilog=describe(chosen),
    )
    add_benchmark_arguments(parser)
    inputs = parser.add_argument_group("inputs")
    inputs.add_argument(
        "--submission",
        type=Path,
        required=True,
        help="the submission file, as e-mailed by the team (JSON; a decision "
        "track's may also be JSON Lines)",
    )
    inputs.add_argument(
        "--private", type=Path, required=True, help=f"the answer key, {track.key.name}"
    )
    inputs.add_argument(
        "--key-version",
        default=None,
        help="answer key version the row is scored against (default: the key "
        "file's key_version, else unset); must agree with the key file",
    )

    row = parser.add_argument_group("the row, as the e-mail gives it")
    row.add_argument("--team-name", required=True, help="team or lab shown on the board")
    row.add_argument("--method-name", required=True, help="method or model name")
    row.add_argument(
        "--model-size",
        required=True,
        help='parameter count such as "7B" or "30B-A3B", or the API tier; "" if not stated',
    )
    row.add_argument(
        "--uses-external",
        type=_yes_no,
        required=True,
        metavar="{yes,no}",
        help="whether the method uses data beyond the benchmark's own inputs",
    )
    choices = bench.input.choices
    row.add_argument(
        "--uses-frames",
        type=_input_choice(chosen),
        required=True,
        metavar="{" + ",".join(choices) + "}",
        help=f"what the method reads ({bench.input.label}): "
        + "; ".join(f"{k} = {v}" for k, v in choices.items()),
    )
    kept = '; with --supersedes, the old row\'s ("" clears it)'
    row.add_argument(
        "--method-description",
        default=None,
        help=f"one sentence on the method (default: empty{kept})",
    )
    row.add_argument("--project-url", default=None, help=f"project or code page, http(s){kept}")
    row.add_argument("--publication-url", default=None, help=f"paper, http(s){kept}")
    row.add_argument("--note", default=None, help=f"a note shown with the row (optional{kept})")
    row.add_argument(
        "--model-repo",
        default=None,
        metavar="ORG/NAME",
        help="the model's repo on the Hugging Face Hub, where scripts/hub_eval_results.py can "
        f"open a pull request with the row's result (optional{kept})",
    )
    row.add_argument(
        "--supersedes",
        type=_uuid,
        default=None,
        metavar="UUID",
        help="id of the row on the board that this row corrects (of the same "
        "benchmark and track, team and method); the old row is then hidden, and "
        "the description, links and note this command is not given are the "
        "old row's. Required to publish a submission already on the board",
    )
    row.add_argument(
        "--force",
        action="store_true",
        help="publish although --supersedes names a row of another team or "
        "method name, or although a row of the same team and method scored "
        "on another key version stays on the board (a warning says so)",
    )
    row.add_argument(
        "--allow-mixed-scripts",
        action="store_true",
        help="publish a team or method name whose letters mix scripts (Latin with Cyrillic "
        "or Greek, say), which is refused as a look-alike of another name otherwise",
    )
    row.add_argument(
        "--allow-below-chance",
        action="store_true",
        help="publish a score significantly below chance (its 95 %% interval "
        "under what answering at random scores), which almost always means "
        "letters of another key version; a warning says so",
    )

    add_target_arguments(parser, chosen, title="where to publish (one of)")
    parser.add_argument(
        "--submissions-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="a folder with the submission files of the board's rows (found by "
        "sha256, searched recursively): rows published before records "
        "kept an answers sha256 are then compared by their answers too",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="validate, score and print the record as JSON on stdout; write nothing",
    )
    return parser


def row_of(args: argparse.Namespace) -> publish.Row:
    """The row as the command line gives it (an optional field not given is None)."""
    return publish.Row(**{f.name: getattr(args, f.name) for f in dataclasses.fields(publish.Row)})


def publish_row(args: argparse.Namespace, chosen: Chosen) -> int:
    track, row = chosen.track, row_of(args)
    check_names(row.team_name, row.method_name, allow_mixed_scripts=args.allow_mixed_scripts)
    key = load_key(track, args.private)
    result = publish.versioned(key, score_submission(key, args.submission), args.key_version)
    below = publish.below_chance(
        track, result, f"--submission {args.submission}", args.allow_below_chance
    )
    publish.new_row(result, chosen.bench, track, row)  # what is given, checked before the board
    store, where = open_store(args, missing_dir="refuse")
    chosen_row = publish.decide(
        read_board(store),
        chosen.bench,
        track,
        result,
        row,
        force=args.force,
        submissions_dir=args.submissions_dir,
    )
    record, withdrawn = chosen_row.record, chosen_row.withdrawn
    for line in (
        chosen_row.warnings if withdrawn else [*chosen_row.warnings, *filter(None, [below])]
    ):
        print(line, file=sys.stderr)
    what = (
        f"withdrawing {withdrawn.id} in favour of {chosen_row.kept.id}"
        if withdrawn and chosen_row.kept
        else publish.summary(track, result, row)
    )
    if args.dry_run:
        print(record.to_json().decode(), end="")
        print(
            f"dry run, nothing written; would publish {record.path()} to {where}"
            f"{', ' if withdrawn else ': '}{what}",
            file=sys.stderr,
        )
        if not withdrawn:
            print(publish.chance_line(track, result), file=sys.stderr)
        return 0
    written = store.write(record, chosen_row.message)
    print(f"published {record.path()} to {where} ({written})")
    if withdrawn and chosen_row.kept:
        print(f"it withdraws {withdrawn.id}, which the board now hides; {chosen_row.kept.id} stays")
        return 0
    print(what)
    print(publish.chance_line(track, result))
    if isinstance(record, ledger.Record) and record.supersedes:
        print(f"it supersedes {record.supersedes}, which the board now hides")
    if args.leaderboard_dir is None:
        print(f"The Space shows it within {ledger.CACHE_TTL_S} s (its board cache time-to-live).")
    else:
        print(
            f"An app reading this folder (LEADERBOARD_BENCHMARK={chosen.name} "
            f"LEADERBOARD_RECORDS_DIR={args.leaderboard_dir}) shows it within "
            f"{ledger.CACHE_TTL_S} s (its board cache time-to-live)."
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(build_parser, publish_row, argv, after_error="nothing was written")


if __name__ == "__main__":
    raise SystemExit(main())
