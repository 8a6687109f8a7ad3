"""Carry a board onto a new answer key: re-score every re-scored row on the new key version.

After a rotation (reshuffle_options.py), every re-scored row of the board still names the old
key version, and a submission in the old letters scores far below chance on the new key. This
command finds each current re-scored row scored on the old key (its provenance names that key's
sha256), finds the row's submission in --submissions-dir by the sha256 its record names,
remaps it with the rotation's letter map (writing the remapped file into --out-dir, named by
its own sha256, so the new row can be reproduced), scores it on the new key, and publishes a
new record that supersedes the old row: every field of the row (team, method, description,
links, note, and its date: when its result was first published), the new key version in its
provenance, and an id derived from the carry, so --dry-run prints the ids the real run writes.
The re-scored counts must be the old row's exactly (a rotation moves letters, never answers);
anything else stops the command before anything is written.

`--same-letters OLD_KEY` instead of `--letter-map`: the key file changed but no letter did
(e.g. it gained its key_version): the rows scored on OLD_KEY are re-scored on the new key as
they are, once OLD_KEY and the new key are checked to give every question the same options and
answer.

Rows already on the new key, paper rows and rows scored on another key are left as they are
(and listed). A row whose submission is not found stops the command, unless --skip-missing
leaves it on its key. Run it with --dry-run first: it prints what it would publish and writes
nothing. A second run finds nothing left to carry.

Example:

    # the demo: a copy of the demo board, carried onto a rotation of the demo key
    python scripts/rescore_board.py --benchmark egomemreason --leaderboard-dir rotated/board \\
        --private rotated/<key file> --letter-map rotated/letter_map.json \\
        --submissions-dir benchmarks/egomemreason/demo --out-dir rotated/submissions --dry-run
    # the same without --dry-run publishes; without --leaderboard-dir, to the records repo
    # a key file that gained its version column, letters unchanged:
    python scripts/rescore_board.py --benchmark egoargus \\
        --leaderboard-dir benchmarks/egoargus/demo/leaderboard \\
        --private benchmarks/egoargus/demo/<key file> --same-letters old/<key file> \\
        --submissions-dir benchmarks/egoargus/demo
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import errors
import evaluator
import ledger
import spec
from errors import UsageError
from maintainer import carry
from maintainer import letter_map as letter_maps
from maintainer.board_checks import row_name
from scripts import _cli
from scripts._cli import Chosen, Parser


def build_parser(chosen: Chosen) -> argparse.ArgumentParser:
    track = chosen.track
    parser = Parser(
        description=__doc__,
        epilog=_cli.describe(chosen),
    )
    _cli.add_benchmark_arguments(parser)
    parser.add_argument(
        "--private", type=Path, required=True, help=f"the new answer key, {track.key.name}"
    )
    old = parser.add_mutually_exclusive_group(required=True)
    old.add_argument(
        "--letter-map",
        type=Path,
        metavar="MAP",
        help=f"the {letter_maps.LETTER_MAP_NAME} the rotation wrote: the rows "
        "scored on the key it rotated are remapped and re-scored",
    )
    old.add_argument(
        "--same-letters",
        type=Path,
        metavar="OLD_KEY",
        help="the key the rows were scored on, whose letters and answers are the "
        "new key's (only its file changed): the rows are re-scored as they are",
    )
    parser.add_argument(
        "--submissions-dir",
        type=Path,
        required=True,
        metavar="DIR",
        help="the folder with the rows' submission files, found by the sha256 "
        "their records name (searched recursively, files of any name)",
    )
    parser.add_argument(
        "--out-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="with --letter-map: where the remapped submissions are written, "
        "<sha256>.json (created if missing; keep them with the others)",
    )
    parser.add_argument(
        "--skip-missing",
        action="store_true",
        help="carry the rows whose submission is found and leave the others on "
        "their key (listed), instead of stopping",
    )
    _cli.add_target_arguments(parser, chosen, title="the board (one of)")
    parser.add_argument(
        "--dry-run", action="store_true", help="print what would be published; write nothing"
    )
    return parser


def old_key(
    args: argparse.Namespace, track: spec.MultipleChoiceTrack, key: evaluator.AnswerKey
) -> carry.OldKey:
    """The key the rows to carry were scored on, as --letter-map or --same-letters names it."""
    if args.letter_map is not None:
        letter_map = letter_maps.read_letter_map(
            track, _cli.read_input(args.letter_map, "letter map"), args.letter_map
        )
        old = carry.rotated_key(letter_map, key, map_path=args.letter_map, key_path=args.private)
        if args.out_dir is None:
            raise UsageError(
                "--letter-map needs --out-dir: the remapped submissions are kept "
                "there, so each new row can be reproduced"
            )
        return old
    old_file = _cli.load_key(track, args.same_letters)
    return carry.same_letters(old_file, key, old_path=args.same_letters, key_path=args.private)


def rescore(args: argparse.Namespace, chosen: Chosen) -> int:
    track = carry.lettered(chosen.bench, chosen.track)
    key = _cli.load_key(track, args.private)
    store, where = _cli.open_store(args, missing_dir="refuse")
    everything = _cli.read_board(store)
    try:
        carried, left = carry.plan(
            everything,
            chosen.bench,
            key,
            old_key(args, track, key),
            args.submissions_dir,
            skip_missing=args.skip_missing,
        )
    except (UsageError, errors.BoardError, errors.ReshuffleError) as exc:
        raise UsageError(f"{exc}; nothing was written") from None
    version = key.key_version or "(unversioned)"
    remapped_dir = args.out_dir if args.letter_map is not None else None
    if not args.dry_run:
        carry.publish(store, carried, version, remapped_dir)
    verb = "would carry" if args.dry_run else "carried"
    ranking = track.ranking
    for item in carried:
        shown = track.format_metric(ranking, item.record.metrics[ranking])
        remapped = f", remapped into {remapped_dir}" if remapped_dir is not None else ""
        print(
            f"{verb} {row_name(item.old)} -> {item.record.id} on key version {version}: "
            f"{track.labels[ranking]} {shown} as before (from {item.source}{remapped})"
        )
    for line in left:
        print(f"left as it is: {line}")
    papers = carry.paper_rows(everything, chosen.bench, track)
    outcome = (
        "nothing written (dry run)"
        if args.dry_run
        else f"published to {where}"
        if carried
        else "nothing left to carry"
    )
    rows = evaluator.counted(len(carried), "row", "rows")
    rescored = evaluator.counted(len(left), "re-scored row", "re-scored rows")
    print(
        f"{verb} {rows} onto key version {version}; left {rescored} and "
        f"{evaluator.counted(papers, 'paper row', 'paper rows')} (not scored here) as they are; "
        f"{outcome}"
    )
    if not args.dry_run and carried and args.leaderboard_dir is not None:
        print(
            f"An app reading this folder (LEADERBOARD_BENCHMARK={chosen.name} "
            f"LEADERBOARD_RECORDS_DIR={args.leaderboard_dir}) shows them within "
            f"{ledger.CACHE_TTL_S} s."
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    return _cli.run(build_parser, rescore, argv)


if __name__ == "__main__":
    sys.exit(main())
