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
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

import evaluator
import ledger
from errors import UsageError
from maintainer.board_checks import check_board, check_names, older_answers, rows_of, twin_repair
from maintainer.withdraw import twin_withdrawal
from scripts._cli import (
    Chosen,
    Parser,
    add_benchmark_arguments,
    add_target_arguments,
    chance_line,
    describe,
    load_key,
    open_store,
    read_board,
    refuse_below_chance,
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


#: The row's optional fields: a --supersedes correction keeps the old row's unless given.
KEPT_FIELDS = ("method_description", "project_url", "publication_url", "note", "model_repo")


def given_fields(args: argparse.Namespace) -> dict[str, str | None]:
    """The optional fields as the command line gives them (None: not given)."""
    return {name: getattr(args, name) for name in KEPT_FIELDS}


def kept_fields(
    args: argparse.Namespace, old: ledger.Record
) -> tuple[dict[str, str | None], list[str]]:
    """The optional fields of a correction of ``old``: each one given, else the old row's
    (a correction that drops the project link no one asked to drop is a row that lost it);
    and the flags whose value was kept."""
    fields = given_fields(args)
    kept = [n for n, v in fields.items() if v is None and getattr(old, n)]
    return {n: getattr(old, n) if n in kept else v for n, v in fields.items()}, [
        "--" + n.replace("_", "-") for n in kept
    ]


def build_record(
    args: argparse.Namespace,
    chosen: Chosen,
    result: evaluator.ScoreResult,
    fields: dict[str, str | None],
) -> ledger.Record:
    try:
        return ledger.rescored_record(
            result,
            chosen.bench,
            chosen.track,
            team_name=args.team_name,
            method_name=args.method_name,
            model_size=args.model_size,
            uses_external=args.uses_external,
            uses_frames=args.uses_frames,
            method_description=fields["method_description"] or "",
            project_url=fields["project_url"],
            publication_url=fields["publication_url"],
            supersedes=args.supersedes,
            note=fields["note"] or None,
            model_repo=fields["model_repo"] or None,
        )
    except ValidationError as exc:
        problems = "; ".join(
            f"--{str(e['loc'][0]).replace('_', '-')}: {str(e['msg']).removeprefix('Value error, ')}"
            if e["loc"]
            else str(e["msg"])
            for e in exc.errors()
        )
        raise UsageError(f"the row does not validate: {problems}") from None
    except ledger.RecordError as exc:
        raise UsageError(f"the row does not validate: {exc}") from None


def publish(args: argparse.Namespace, chosen: Chosen) -> int:
    track = chosen.track
    check_names(args.team_name, args.method_name, allow_mixed_scripts=args.allow_mixed_scripts)
    key = load_key(track, args.private)
    if args.key_version and key.key_version and args.key_version != key.key_version:
        raise UsageError(
            f"--key-version {args.key_version} contradicts the key file, which says "
            f"key_version {key.key_version!r}; drop --key-version or use the matching key"
        )
    result = score_submission(key, args.submission)
    if args.key_version and not key.key_version:
        # The key file does not say its version; the maintainer does, for the provenance.
        result = result.model_copy(update={"key_version": args.key_version})
    below = refuse_below_chance(
        track, result, f"--submission {args.submission}", args.allow_below_chance
    )
    record = build_record(args, chosen, result, given_fields(args))  # what is given, checked
    store, where = open_store(args, missing_dir="refuse")
    everything = read_board(store)
    rows = rows_of(everything, chosen.bench, track)
    known, unmatched = older_answers(rows, track, args.submissions_dir)
    repair = twin_repair(
        everything,
        chosen.bench,
        track,
        result,
        args.supersedes,
        team_name=args.team_name,
        method_name=args.method_name,
        answers_of=known,
    )
    if repair is not None:
        return withdraw_twin(args, chosen, store, where, *repair)
    warnings = check_board(
        everything,
        chosen.bench,
        track,
        result,
        args.supersedes,
        team_name=args.team_name,
        method_name=args.method_name,
        force=args.force,
        answers_of=known,
    )
    if args.supersedes is not None:
        old = next(r for r in rows if r.id == args.supersedes)  # check_board found it
        fields, kept = kept_fields(args, old)
        if kept:
            record = build_record(args, chosen, result, fields)
            warnings.append(
                f"note: kept from {old.id} the fields not given: {', '.join(kept)} "
                '(give a flag to change one, "" to clear it)'
            )
    if unmatched and result.answers_sha256 is not None:
        had = (
            "had no submission file in --submissions-dir"
            if args.submissions_dir
            else (
                "were compared by file sha256 only; pass --submissions-dir with their files to "
                "compare their answers too"
            )
        )
        warnings.append(
            f"note: {evaluator.counted(unmatched, 'row', 'rows')} of the board predate"
            f"{'s' if unmatched == 1 else ''} answer fingerprints "
            f"(provenance.answers_sha256) and {had}"
        )
    if below:
        warnings.append(below)

    ranking = track.ranking
    count = result.counts.get(ranking)
    low, high = result.intervals[ranking]
    display = track.display[ranking]
    # A count where the metric has one (accuracy), else its interval (a decision F1).
    detail = (
        f"{count.correct}/{count.total}"
        if count is not None
        else f"95 % CI {track.shown(display, low)}–{track.shown(display, high)}"
    )
    summary = (
        f"{args.method_name} by {args.team_name}: {track.labels[ranking]} "
        f"{track.shown(display, result.metrics[ranking])} ({detail}), "
        f"{result.n_abstained} abstentions"
    )
    for line in warnings:
        print(line, file=sys.stderr)
    if args.dry_run:
        print(record.to_json().decode(), end="")
        print(
            f"dry run, nothing written; would publish {record.path()} to {where}: {summary}",
            file=sys.stderr,
        )
        print(chance_line(track, result), file=sys.stderr)
        return 0
    written = store.write(record, ledger.commit_message(record, track))
    print(f"published {record.path()} to {where} ({written})")
    print(summary)
    print(chance_line(track, result))
    if record.supersedes:
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


def withdraw_twin(
    args: argparse.Namespace,
    chosen: Chosen,
    store: ledger.RecordStore,
    where: str,
    kept: ledger.Record,
    dropped: ledger.Record,
) -> int:
    """The file of ``kept`` with --supersedes ``dropped``, its twin: ``dropped`` is withdrawn in
    ``kept``'s favour (a new row of the same file would be ``kept``'s twin)."""
    record = twin_withdrawal(kept, dropped, chosen.bench)
    print(
        f"note: this submission is already on the board as {kept.id}, beside {dropped.id} "
        "(the same team and method on the same key version): the row to keep stays as it is "
        "and the other is withdrawn in its favour; the row flags are not used",
        file=sys.stderr,
    )
    if args.dry_run:
        print(record.to_json().decode(), end="")
        print(
            f"dry run, nothing written; would publish {record.path()} to {where}, "
            f"withdrawing {dropped.id} in favour of {kept.id}",
            file=sys.stderr,
        )
        return 0
    message = f"Withdraw {dropped.method_name} by {dropped.team_name} in favour of {kept.id}"
    written = store.write(record, message)
    print(f"published {record.path()} to {where} ({written})")
    print(f"it withdraws {dropped.id}, which the board now hides; {kept.id} stays")
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(build_parser, publish, argv, after_error="nothing was written")


if __name__ == "__main__":
    raise SystemExit(main())
