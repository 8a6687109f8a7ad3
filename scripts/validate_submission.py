"""Check a submission against a track's public file, without the answer key, before uploading it.

Runs the evaluator's own validation (`evaluator.validate`, the one the Score tab runs before it
scores) on the questions of the public file alone: every question answered exactly once, ids
as the public file writes them, each letter among its question's options (a decision track:
each episode's id, `assist` true, false or null, the time a number of seconds or null). The
public file carries no answers, so nothing here needs or opens the answer key, and nothing about
it can be learnt: a file that passes is one the Score tab scores, and one that fails gets the
very message the Score tab would give. (One check needs the key and is Score's alone: decision
times that look like milliseconds, judged against the episodes' reviewed times when the file
times 20 episodes or more; a refusal by it counts against Score's limit like a score.)

Exit status 0 and a one-line summary ("valid: 500 answers, 12 abstentions, for the 500
questions of <benchmark>/<track> (key version ...)") when the file validates; 1 and the Score
tab's message, on stderr, otherwise (1 and "error: ..." for a bad public file): a file the
Space would not take (over 5 MB, or neither JSON nor JSON Lines, whatever its name) included.
The benchmark and track are `--benchmark` and `--track` (default $LEADERBOARD_BENCHMARK, else
the Space's default; the track the file's entries tell, as the Score tab's "Detect from the
file", else the first); `--help` names the track's public file.

Example:

    # a submission to EgoMemReason, checked against the public file it answers:
    python scripts/validate_submission.py --benchmark egomemreason \\
        --public annotations_public.jsonl submission.json
    # the demo's sample submission, which passes:
    python scripts/validate_submission.py --benchmark egomemreason \\
        --public benchmarks/egomemreason/demo/<public file> \\
        benchmarks/egomemreason/demo/sample_submission.json
    # another track (here EgoArgus's decision episodes), in a pipeline:
    python scripts/validate_submission.py --benchmark egoargus --track decision \\
        --public <decision public file> run.jsonl && echo "ready to upload"
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import evaluator
from errors import UsageError
from ledger import submission_file
from scripts._cli import (
    Chosen,
    Parser,
    add_benchmark_arguments,
    describe,
    read_input,
    run,
    told_track,
    track_hint,
)


def build_parser(chosen: Chosen) -> argparse.ArgumentParser:
    public = chosen.track.public
    parser = Parser(
        description=__doc__,
        epilog=describe(chosen),
    )
    add_benchmark_arguments(parser)
    parser.add_argument(
        "--public",
        type=Path,
        required=True,
        help=f"the track's public file, {public.name} ({public.format}): the "
        "questions the submission answers",
    )
    parser.add_argument(
        "submission", type=Path, help="the submission file to check, as it would be uploaded"
    )
    return parser


def check(args: argparse.Namespace, chosen: Chosen) -> int:
    data = read_input(args.submission, "submission")
    # The Space's own bound first, in Score's words; any name is read by its bytes.
    refusal = submission_file.file_refusal(len(data))
    if refusal is not None:
        print(refusal, file=sys.stderr)
        return 1
    track = told_track(chosen, data)
    try:
        questions = evaluator.load_questions(track, read_input(args.public, "public file"))
    except evaluator.PublicFileError as exc:
        hint = track_hint(chosen, track, args.public, "public file")
        raise UsageError(f"--public {args.public}: {exc}{hint}") from None
    kind = evaluator.kind_of(track)
    try:
        abstained = kind.abstentions(evaluator.validate(questions, data))
    except evaluator.SubmissionError as exc:
        print(exc, file=sys.stderr)  # exactly what the Score tab shows
        return 1
    asked = evaluator.counted(len(questions), *kind.ROWS)
    version = (
        f"key version {questions.key_version}"
        if questions.key_version is not None
        else "unversioned: the public file names no key_version"
    )
    # A valid file has one entry per question; some may hold no answer ("500 answers, 500
    # abstentions" read as if both were so many answers).
    print(
        f"valid: an entry for each of the {asked} of {chosen.bench.id}/{track.id} "
        f"({version}): {len(questions) - abstained} answered, {abstained} without an answer"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(build_parser, check, argv)


if __name__ == "__main__":
    raise SystemExit(main())
