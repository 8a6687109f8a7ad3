"""Carry a board onto a new answer key: re-score every re-scored row on the new key version.

After a rotation (reshuffle_options.py), every re-scored row of the board still names the old
key version, and a submission in the old letters scores far below chance on the new key. This
command finds each current re-scored row scored on the old key (its provenance names that key's
sha256), finds the row's submission in --submissions-dir by the sha256 its record names,
remaps it with the rotation's letter map (writing the remapped file into --out-dir, named by
its own sha256, so the new row can be reproduced), scores it on the new key, and publishes a
new record that supersedes the old row: the same team, method and description, the new key
version in its provenance. The re-scored counts must be the old row's exactly (a rotation
moves letters, never answers); anything else stops the command before anything is written.

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
import hashlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import errors
import evaluator
import ledger
import spec
from errors import SpecError, UsageError
from maintainer import letter_map as letter_maps
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
        "their records name (searched recursively, *.json)",
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


@dataclass(frozen=True)
class Carry:
    """One row to carry: the old record, its submission (where found, its new bytes), the new
    score and the new record."""

    old: ledger.Record
    source: Path
    data: bytes
    result: evaluator.ScoreResult
    record: ledger.Record


def _old_key_sha256(
    args: argparse.Namespace, track: spec.MultipleChoiceTrack, key: evaluator.AnswerKey
) -> tuple[str, str | None, letter_maps.LetterMap | None]:
    """The sha256 and version of the key the rows to carry were scored on, and the letter map
    (None with --same-letters, once the two keys are checked to share every letter)."""
    if args.letter_map is not None:
        try:
            letter_map = letter_maps.read_letter_map(
                track, _cli.read_input(args.letter_map, "letter map"), args.letter_map
            )
        except errors.ReshuffleError as exc:
            raise UsageError(str(exc)) from None
        if letter_map.new_private_sha256 != key.sha256:
            raise UsageError(
                f"--letter-map {args.letter_map} goes to the key of sha256 "
                f"{letter_map.new_private_sha256[:12]}... (key version "
                f"{letter_map.new_key_version}), but --private {args.private} has sha256 "
                f"{key.sha256[:12]}...; pass the key and the letter map of the same rotation"
            )
        if args.out_dir is None:
            raise UsageError(
                "--letter-map needs --out-dir: the remapped submissions are kept "
                "there, so each new row can be reproduced"
            )
        return letter_map.old_private_sha256, letter_map.old_key_version, letter_map
    old = _cli.load_key(track, args.same_letters)
    if old.sha256 == key.sha256:
        raise UsageError(
            f"--same-letters {args.same_letters} is the very file of --private; "
            "pass the key the rows were scored on"
        )
    new_by_id = {q.id: q for q in key.questions}
    differ = [
        q.id
        for q in old.questions
        if q.id not in new_by_id
        or (dict(new_by_id[q.id].options), new_by_id[q.id].answer) != (dict(q.options), q.answer)
    ]
    if differ or len(old) != len(key):
        raise UsageError(
            f"--same-letters {args.same_letters}: {len(differ)} questions have other options "
            f"or answers than in --private {args.private} (e.g. "
            f"{', '.join(str(i) for i in differ[: evaluator.MAX_EXAMPLES])}); after a rotation "
            "pass its --letter-map instead"
        )
    return old.sha256, old.key_version, None


def plan(
    args: argparse.Namespace,
    chosen: Chosen,
    key: evaluator.AnswerKey,
    everything: Sequence[ledger.Record],
) -> tuple[list[Carry], list[str]]:
    """The rows to carry, each with its new record, and a line for each row left as it is."""
    track = key.track
    old_sha, old_version, letter_map = _old_key_sha256(args, track, key)
    rows = _cli.current(_cli.rows_of(everything, chosen))
    version = key.key_version or "(unversioned)"
    left: list[str] = []
    todo: list[ledger.Record] = []
    for row in rows:
        prov = row.provenance
        if row.source != "rescored" or prov is None:
            continue  # paper-reported: not scored here, counted below
        if prov.answer_key_sha256 == key.sha256:
            left.append(f"{_cli.row_name(row)}: already on key version {version}")
        elif prov.answer_key_sha256 != old_sha:
            left.append(
                f"{_cli.row_name(row)}: scored on another key (sha256 "
                f"{prov.answer_key_sha256[:12]}...) than the one this "
                f"{'letter map rotated' if letter_map else '--same-letters names'}; "
                "carry it with the letter maps of the rotations since"
            )
        else:
            todo.append(row)
    files = _cli.find_submissions(
        args.submissions_dir,
        {r.provenance.submission_sha256 for r in todo if r.provenance is not None},
        "--submissions-dir",
    )
    missing = [r for r in todo if r.provenance and r.provenance.submission_sha256 not in files]
    if missing and not args.skip_missing:
        listed = "; ".join(
            f"{_cli.row_name(r)}, sha256 {r.provenance.submission_sha256[:12]}..."
            for r in missing
            if r.provenance is not None
        )
        raise UsageError(
            f"{len(missing)} rows have no submission file in --submissions-dir "
            f"{args.submissions_dir}: {listed}; put their files there, or pass --skip-missing "
            f"to leave them on key version {old_version or '(unversioned)'}"
        )
    left += [
        f"{_cli.row_name(r)}: its submission is not in --submissions-dir (--skip-missing)"
        for r in missing
    ]
    carried: list[Carry] = []
    for row in todo:
        if row in missing:
            continue
        assert row.provenance is not None
        source = files[row.provenance.submission_sha256]
        data = _cli.read_input(source, "submission")
        if letter_map is not None:
            try:
                data, _, _ = letter_maps.remap_submission(track, data, letter_map, source)
            except errors.ReshuffleError as exc:
                raise UsageError(f"{_cli.row_name(row)}: {exc}") from None
        result, record = _new_record(chosen, key, row, data, source)
        carried.append(Carry(row, source, data, result, record))
    return carried, left


def _new_record(
    chosen: Chosen, key: evaluator.AnswerKey, old: ledger.Record, data: bytes, source: Path
) -> tuple[evaluator.ScoreResult, ledger.Record]:
    """``old`` re-scored on ``key`` from ``data``, and its new record; UsageError if its counts
    differ from the old row's (a wrong map, or not that row's submission)."""
    try:
        result = evaluator.score(key, data)
    except evaluator.SubmissionError as exc:
        raise UsageError(
            f"{_cli.row_name(old)}: {source} does not score on the new key: {exc}"
        ) from None
    if result.counts != old.counts or result.n_abstained != old.n_abstained:
        ranking = key.track.ranking
        was, now = (old.counts or {}).get(ranking), result.counts.get(ranking)
        raise UsageError(
            f"{_cli.row_name(old)}: re-scored on the new key it gets "
            f"{now.correct if now else '?'}/{now.total if now else '?'} "
            f"{key.track.labels[ranking]}, the row has {was.correct if was else '?'}/"
            f"{was.total if was else '?'}: a rotation moves letters, never answers, so this "
            "is the wrong letter map or not that row's submission"
        )
    return result, ledger.rescored_record(
        result,
        chosen.bench,
        key.track,
        team_name=old.team_name,
        method_name=old.method_name,
        model_size=old.model_size,
        uses_external=old.uses_external,
        uses_frames=old.uses_frames,
        method_description=old.method_description,
        project_url=old.project_url,
        publication_url=old.publication_url,
        supersedes=old.id,
        note=old.note,
        created_at=datetime.now(UTC),
    )


def rescore(args: argparse.Namespace, chosen: Chosen) -> int:
    try:
        track = chosen.bench.track(chosen.track.id, kind=spec.MultipleChoiceTrack)
    except SpecError:
        raise UsageError(
            f"{chosen.bench.id}/{chosen.track.id} is a {chosen.track.kind} track: its answers "
            "have no option letters, so no rotation moves them; publish a corrected row with "
            "publish_submission.py --supersedes"
        ) from None
    key = _cli.load_key(track, args.private)
    store, where = _cli.open_store(args, missing_dir="refuse")
    everything = _cli.read_board(store)
    try:
        carried, left = plan(args, chosen, key, everything)
        board = list(everything)
        for item in carried:  # each new row against the board as it will be
            _cli.check_board(
                board,
                chosen,
                item.result,
                item.old.id,
                team_name=item.old.team_name,
                method_name=item.old.method_name,
            )
            board.append(item.record)
    except UsageError as exc:
        raise UsageError(f"{exc}; nothing was written") from None
    version = key.key_version or "(unversioned)"
    ranking = track.ranking
    verb = "would carry" if args.dry_run else "carried"
    if not args.dry_run:
        for done, item in enumerate(carried):
            try:
                if args.letter_map is not None:
                    out_dir: Path = args.out_dir
                    out_dir.mkdir(parents=True, exist_ok=True)
                    name = out_dir / f"{hashlib.sha256(item.data).hexdigest()}.json"
                    if not name.exists():
                        name.write_bytes(item.data)
                store.write(
                    item.record,
                    f"Re-score {item.old.method_name} by "
                    f"{item.old.team_name} on key version {version} "
                    f"(supersedes {item.old.id})",
                )
            except (OSError, ledger.LedgerError) as exc:
                raise UsageError(
                    f"after {done} of {len(carried)} rows were published, "
                    f"{_cli.row_name(item.old)} could not be: {exc}; run the same command "
                    "again to carry the rest (carried rows are skipped)"
                ) from None
    for item in carried:
        value = item.record.metrics[ranking]
        shown = spec.format_metric(track.display[ranking], value)
        remapped = f", remapped into {args.out_dir}" if args.letter_map is not None else ""
        print(
            f"{verb} {_cli.row_name(item.old)} -> {item.record.id} on key version {version}: "
            f"{track.labels[ranking]} {shown} as before (from {item.source}{remapped})"
        )
    for line in left:
        print(f"left as it is: {line}")
    papers = sum(r.source == "paper" for r in _cli.current(_cli.rows_of(everything, chosen)))
    outcome = (
        "nothing written (dry run)"
        if args.dry_run
        else f"published to {where}"
        if carried
        else "nothing left to carry"
    )
    print(
        f"{verb} {len(carried)} rows onto key version {version}; left {len(left)} re-scored "
        f"rows and {papers} paper rows (not scored here) as they are; {outcome}"
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
