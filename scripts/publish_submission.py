"""Verify an e-mailed submission, score it and publish it as one immutable leaderboard record.

Runs on the maintainer's machine with the maintainer's own Hugging Face login (HF_TOKEN or
`hf auth login`); the Space never writes. The submission is validated and scored by the same
evaluator as the Score tab, then written once as `submissions/<uuid>.json` with
`source: "rescored"`, the benchmark and track it was scored on, and its provenance (sha256 of
the submission and of the answer key, key version, scorer version). A submission already on
the board (among that benchmark's and track's rows) is refused unless `--supersedes` names the
row it corrects. Any problem: a message on stderr, exit status 1, nothing written.

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
from collections.abc import Callable, Sequence
from pathlib import Path

from _cli import (
    Chosen,
    Parser,
    UsageError,
    add_benchmark_arguments,
    add_target_arguments,
    describe,
    load_key,
    open_store,
    owner,
    run,
    score_submission,
)
from pydantic import ValidationError

import evaluator
import ledger
import spec


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
    parser = Parser(description=__doc__, epilog=describe(chosen),
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    add_benchmark_arguments(parser)
    inputs = parser.add_argument_group("inputs")
    inputs.add_argument("--submission", type=Path, required=True,
                        help="the submission file, as e-mailed by the team (JSON; a decision "
                             "track's may also be JSON Lines)")
    inputs.add_argument("--private", type=Path, required=True,
                        help=f"the answer key, {track.key.name}")
    inputs.add_argument("--key-version", default=None,
                        help="answer key version the row is scored against (default: the key "
                             "file's key_version, else unset); must agree with the key file")

    row = parser.add_argument_group("the row, as the e-mail gives it")
    row.add_argument("--team-name", required=True, help="team or lab shown on the board")
    row.add_argument("--method-name", required=True, help="method or model name")
    row.add_argument("--model-size", required=True,
                     help='parameter count such as "7B" or "30B-A3B", or the API tier; "" if '
                          "not stated")
    row.add_argument("--uses-external", type=_yes_no, required=True, metavar="{yes,no}",
                     help="whether the method uses data beyond the benchmark's own inputs")
    choices = bench.input.choices
    row.add_argument("--uses-frames", type=_input_choice(chosen), required=True,
                     metavar="{" + ",".join(choices) + "}",
                     help=f"what the method reads ({bench.input.label}): "
                          + "; ".join(f"{k} = {v}" for k, v in choices.items()))
    row.add_argument("--method-description", default="",
                     help="one sentence on the method (default: empty)")
    row.add_argument("--project-url", default=None, help="project or code page, http(s)")
    row.add_argument("--publication-url", default=None, help="paper, http(s)")
    row.add_argument("--note", default=None, help="a note shown with the row (optional)")
    row.add_argument("--supersedes", type=_uuid, default=None, metavar="UUID",
                     help="id of the row on the board that this row corrects (of the same "
                          "benchmark and track); the old row is then hidden. Required to "
                          "publish a submission already on the board")

    add_target_arguments(parser, chosen, title="where to publish (one of)")
    parser.add_argument("--dry-run", action="store_true",
                        help="validate, score and print the record as JSON on stdout; write "
                             "nothing")
    return parser


def read_board(store: ledger.RecordStore) -> list[ledger.Record]:
    """Every record on the board, of every benchmark, superseded ones included; unreadable
    ones are named."""
    records = []
    for path, record in ledger.records_of(store):
        if isinstance(record, ledger.RecordError):
            print(f"warning: {path} is not a valid record, so it was not checked: {record}",
                  file=sys.stderr)
        else:
            records.append(record)
    return records


def check_board(
    everything: Sequence[ledger.Record], chosen: Chosen, sha256: str,
    supersedes: uuid.UUID | None,
) -> None:
    """Refuse a duplicate submission, or a --supersedes that names no current row of the same
    benchmark and track; rows of other benchmarks and tracks do not count."""
    here = f"{chosen.bench.id}/{chosen.track.id}"
    board = [r for r in everything
             if ledger.record_track(r, chosen.bench) == chosen.track.id]
    by_id = {r.id: r for r in board}
    same = [r for r in board if r.provenance and r.provenance.submission_sha256 == sha256]
    if supersedes is None:
        if same:
            rows = ", ".join(f"{r.id} ({r.method_name} by {r.team_name})" for r in same)
            raise UsageError(
                f"this submission (sha256 {sha256[:12]}...) is already on the board of {here} "
                f"as {rows}; to correct that row, publish again with --supersedes <its uuid>"
            )
        return
    if supersedes not in by_id:
        elsewhere = [r for r in everything if r.id == supersedes]
        if elsewhere:
            raise UsageError(
                f"--supersedes {supersedes}: that row belongs to {owner(elsewhere[0])}, not "
                f"{here}; a row can only supersede a row of the same benchmark and track"
            )
        raise UsageError(
            f"--supersedes {supersedes}: no such row on the board of {here}; give the uuid of "
            "an existing row (the name of its submissions/<uuid>.json)"
        )
    if same and supersedes not in {r.id for r in same}:
        rows = ", ".join(str(r.id) for r in same)
        raise UsageError(
            f"this submission is already on the board as {rows}, but --supersedes names "
            f"{supersedes}; supersede the row that holds this submission"
        )
    newer = [r.id for r in board if r.supersedes == supersedes]
    if newer:
        raise UsageError(
            f"--supersedes {supersedes}: that row is already superseded by "
            f"{', '.join(str(i) for i in newer)}; supersede the newest row instead"
        )


def build_record(args: argparse.Namespace, chosen: Chosen,
                 result: evaluator.ScoreResult) -> ledger.Record:
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
            method_description=args.method_description,
            project_url=args.project_url,
            publication_url=args.publication_url,
            supersedes=args.supersedes,
            note=args.note,
        )
    except ValidationError as exc:
        problems = "; ".join(
            f"--{str(e['loc'][0]).replace('_', '-')}: {str(e['msg']).removeprefix('Value error, ')}"
            if e["loc"] else str(e["msg"])
            for e in exc.errors()
        )
        raise UsageError(f"the row does not validate: {problems}") from None
    except ledger.RecordError as exc:
        raise UsageError(f"the row does not validate: {exc}") from None


def publish(args: argparse.Namespace, chosen: Chosen) -> int:
    track = chosen.track
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
    record = build_record(args, chosen, result)
    store, where = open_store(args, missing_dir="refuse")
    check_board(read_board(store), chosen, result.submission_sha256, args.supersedes)

    ranking = track.ranking
    count = result.counts.get(ranking)
    low, high = result.intervals[ranking]
    display = track.display[ranking]
    # A count where the metric has one (accuracy), else its interval (a decision F1).
    detail = (f"{count.correct}/{count.total}" if count is not None else
              f"95 % CI {spec.format_metric(display, low)}–{spec.format_metric(display, high)}")
    summary = (f"{args.method_name} by {args.team_name}: {track.labels[ranking]} "
               f"{spec.format_metric(display, result.metrics[ranking])} ({detail}), "
               f"{result.n_abstained} abstentions")
    if args.dry_run:
        print(record.to_json().decode(), end="")
        print(f"dry run, nothing written; would publish {record.path()} to {where}: {summary}",
              file=sys.stderr)
        return 0
    written = store.write(record, ledger.commit_message(record, track))
    print(f"published {record.path()} to {where} ({written})")
    print(summary)
    if record.supersedes:
        print(f"it supersedes {record.supersedes}, which the board now hides")
    if args.leaderboard_dir is None:
        print(f"The Space shows it within {ledger.CACHE_TTL_S} s (its board cache time-to-live).")
    else:
        print(f"An app reading this folder (LEADERBOARD_BENCHMARK={chosen.name} "
              f"LEADERBOARD_RECORDS_DIR={args.leaderboard_dir}) shows it within "
              f"{ledger.CACHE_TTL_S} s (its board cache time-to-live).")
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(build_parser, publish, argv, after_error="nothing was written")


if __name__ == "__main__":
    raise SystemExit(main())
