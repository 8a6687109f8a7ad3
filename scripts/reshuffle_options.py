"""Rotate the answer key's option letters without changing any answer; remap old submissions.

Rotation reads a track's private key and the public file released with it, checks that they
describe the same questions (release.check_agreement), and writes into --out-dir, each in the
format the benchmark's spec declares for it (json, jsonl or csv; a CSV keeps its columns and
row order):

- the new key, under the key's file name, naming the new version (a JSON key as
  ``{"key_version": ..., "samples": [...]}``; a JSONL or CSV key in a ``key_version`` field or
  column of every row);
- the new public file, under its file name: only the letters of the options change, and every
  row names the new ``key_version`` (a column of a CSV file; a JSON object names it once), so
  whoever answers it knows which letters they answer;
- letter_map.json: private, per question old letter -> new letter, with both key versions
  and the sha256 of all four files; it never contains the salt.

Each question's permutation comes from sha256 of (salt, new key version, id), so the same
inputs give byte-identical files on any machine and another salt another rotation. An
answer's text never changes; its letter always moves. Within each group of questions with the
same value of the track's first grouping and the same option count, correct letters are
spread as evenly as the old letters allow, so answering one letter everywhere scores chance
in every column. A row flagged out of option keeps its answer as it is (it is not among the
options); its options are permuted too, and it takes no part in the spread.

A key in its authors' own layout (options in columns or a JSON list, answers as 0-based or
1-based indices or as the option's text) is written back in that layout; --remap-submission
takes a list or an object keyed by id and keeps its shape and the way each prediction is
written (a letter, an index; an option's text does not move).

The key and the public file must name the same version (or the public file none: a release
from before public files named theirs). After a rotation, scripts/rescore_board.py carries the
board's re-scored rows onto the new key (README, "Rotating the answer key"). A remapped
submission names the new key version on every entry (`key_version`, which the scorer
ignores), so a remapped file is never remapped twice: --remap-submission refuses a file whose
entries name the map's new version, or another than its old one.

Only a multiple-choice track has letters: for a decision track (whose answers are true or
false and a time) both commands stop with a message saying there is nothing to rotate.

Keep the salt with the key (a password manager), never in git. Surrounding whitespace of the
salt is ignored. `--benchmark` and `--track` choose the spec (default: $LEADERBOARD_BENCHMARK,
else the Space's default, and its first track); `--help` names the track's file names.

Example:

    python scripts/reshuffle_options.py --benchmark egomemreason \\
        --private /path/to/<key file> --public /path/to/<public file> \\
        --salt "<secret>" --key-version v1.2 --out-dir rotated/

    python scripts/reshuffle_options.py --benchmark egomemreason \\
        --remap-submission old.json --letter-map rotated/letter_map.json --out new.json
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NoReturn

import errors
import ledger
from errors import ReshuffleError
from evaluator import KEY_VERSION_FIELD, counted
from ledger import submission_file
from ledger.config import DEFAULT_BENCHMARK
from ledger.files import INPUT_LIMIT_BYTES
from maintainer import rotation_files
from maintainer.letter_map import LETTER_MAP_NAME, read_letter_map, remap_submission
from maintainer.rotation_files import MIN_SALT_LENGTH
from maintainer.tables import version_name
from scripts import _cli

# --- files and the command line --------------------------------------------------------------


def _read_bytes(path: Path, flag: str, what: str, limit: int = INPUT_LIMIT_BYTES) -> bytes:
    """An input file, read as every script reads one (``ledger.read_regular_file``)."""
    try:
        return ledger.read_regular_file(path, limit)
    except ledger.UnreadableFileError as exc:
        raise ReshuffleError(f"{flag} {exc} ({flag} takes {what})") from None


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ReshuffleError(f"{message}; see --help")


def _parser(chosen: _cli.Chosen) -> argparse.ArgumentParser:
    track = chosen.track
    key_name, public_name = track.key.name, track.public.name
    parser = _Parser(
        prog="reshuffle_options.py",
        description=__doc__,
        epilog=_cli.describe(chosen),
        formatter_class=_cli.HelpFormatter,
        allow_abbrev=False,
    )
    _cli.add_benchmark_arguments(parser)
    rot = parser.add_argument_group("rotate the answer key")
    rot.add_argument("--private", type=Path, help=f"the current private answer key ({key_name})")
    rot.add_argument(
        "--public", type=Path, help=f"the public questions released with it ({public_name})"
    )
    secret = rot.add_mutually_exclusive_group()
    secret.add_argument(
        "--salt",
        help="the secret that keys the permutation (never printed "
        f"or stored; at least {MIN_SALT_LENGTH} characters)",
    )
    secret.add_argument(
        "--salt-file",
        type=Path,
        help="read the salt from this file instead, keeping it out of shell history",
    )
    rot.add_argument(
        "--key-version", help="version name of the new key, e.g. v1.2 (letters, digits, . _ + -)"
    )
    rot.add_argument(
        "--out-dir",
        type=Path,
        help=f"folder for {key_name}, {public_name} and {LETTER_MAP_NAME}; "
        "created if missing, must be empty unless --force",
    )
    rem = parser.add_argument_group("remap a submission made against the old letters")
    rem.add_argument(
        "--remap-submission",
        type=Path,
        metavar="OLD_JSON",
        help="a submission in the old key's letters",
    )
    rem.add_argument(
        "--letter-map", type=Path, help=f"the {LETTER_MAP_NAME} written by the rotation"
    )
    rem.add_argument("--out", type=Path, help="where to write the remapped submission")
    parser.add_argument(
        "--force",
        action="store_true",
        help="write into a non-empty --out-dir or replace an existing --out "
        "(inputs are never overwritten)",
    )
    return parser


ROTATION_ARGS = ("private", "public", "salt", "salt_file", "key_version", "out_dir")
REMAP_ARGS = ("remap_submission", "letter_map", "out")


def _flags(names: Iterable[str]) -> list[str]:
    return [f"--{n.replace('_', '-')}" for n in names]


def _missing(args: argparse.Namespace, names: Sequence[str]) -> list[str]:
    return _flags(n for n in names if getattr(args, n) is None)


def _given(args: argparse.Namespace, names: Sequence[str]) -> list[str]:
    return _flags(n for n in names if getattr(args, n) is not None)


def _salt(args: argparse.Namespace) -> str:
    if args.salt_file is None:
        return rotation_files.checked_salt(str(args.salt))
    raw = _read_bytes(args.salt_file, "--salt-file", "a file holding the salt")
    try:
        return rotation_files.checked_salt(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ReshuffleError(f"--salt-file {args.salt_file} is not UTF-8 text") from None


def _benchmark_flags(chosen: _cli.Chosen) -> str:
    """What a later command needs to name this benchmark and track; "" for the defaults (so
    the default benchmark's letter maps read as they always have)."""
    flags = "" if chosen.name == DEFAULT_BENCHMARK else f"--benchmark {chosen.name} "
    return flags + (f"--track {chosen.track.id} " if chosen.track_given else "")


def run_rotation(args: argparse.Namespace, chosen: _cli.Chosen) -> int:
    track = rotation_files.lettered(chosen.bench, chosen.track)
    missing = _missing(args, ("private", "public", "key_version", "out_dir"))
    if args.salt is None and args.salt_file is None:
        missing.append("--salt (or --salt-file)")
    if missing:
        raise ReshuffleError(
            f"missing {', '.join(missing)}; a rotation needs --private, --public, --salt, "
            "--key-version and --out-dir (or --remap-submission, --letter-map and --out)"
        )
    salt = _salt(args)
    version = rotation_files.checked_version(args.key_version)
    outputs = rotation_files.rotation_outputs(
        track, args.out_dir, {"--private": args.private, "--public": args.public}, args.force
    )
    done = rotation_files.rotate_release(
        track,
        _read_bytes(args.private, "--private", "the private answer key"),
        _read_bytes(args.public, "--public", f"the public file ({track.public.name})"),
        args.private,
        args.public,
        salt,
        version,
        _benchmark_flags(chosen),
    )
    rotation_files.write_rotation(outputs, done.rotation)
    flagged, old = done.out_of_option, done.old_version
    its = "its" if flagged == 1 else "their"
    kept = (
        f" ({counted(flagged, 'out-of-option row keeps', 'out-of-option rows keep')} {its} "
        f"answer as it is; {its} options are permuted too)"
        if flagged
        else ""
    )
    print(
        f"Rotated {len(done.rotation.new_key)} questions from key {old} to {version}: every "
        f"answer keeps its text, every correct letter moved{kept}."
    )
    print(done.report)
    print(f"Wrote {outputs[0]} (sha256 {done.rotation.new_key.sha256}, private)")
    print(f"      {outputs[1]} (publish with the new key)")
    print(f"      {outputs[2]} (private: remaps submissions made against {old})")
    where = (
        "its key_version"
        if track.key.format == "json"
        else f"a {KEY_VERSION_FIELD} {'column' if track.key.format == 'csv' else 'field'}"
    )
    print(
        f"Both files name key version {version} (the key in {where}, every public row in "
        f"its {KEY_VERSION_FIELD}). Check them with validate_benchmark.py; then carry the "
        "board's re-scored rows onto the new key with rescore_board.py (README, \"Rotating "
        'the answer key").'
    )
    return 0


def run_remap(args: argparse.Namespace, chosen: _cli.Chosen) -> int:
    track = rotation_files.lettered(chosen.bench, chosen.track)
    missing = _missing(args, ("remap_submission", "letter_map", "out"))
    if missing:
        raise ReshuffleError(
            f"missing {', '.join(missing)}; remapping needs --remap-submission, --letter-map "
            "and --out"
        )
    inputs = {"--remap-submission": args.remap_submission, "--letter-map": args.letter_map}
    out = rotation_files.remap_output(args.out, inputs, args.force)
    letter_map = read_letter_map(
        track, _read_bytes(args.letter_map, "--letter-map", LETTER_MAP_NAME), args.letter_map
    )
    submission = _read_bytes(
        args.remap_submission,
        "--remap-submission",
        "a submission",
        submission_file.LIMIT_BYTES,  # the Space's bound
    )
    data, translated, abstained = remap_submission(
        track, submission, letter_map, args.remap_submission
    )
    rotation_files.write(out, data, private=False)
    print(
        f"Remapped {translated} answers ({abstained} abstentions kept) from key "
        f"{version_name(letter_map.old_key_version)} to {letter_map.new_key_version}: wrote {out}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        try:
            chosen = _cli.choose(argv)
        except errors.UsageError as exc:
            raise ReshuffleError(str(exc)) from None
        args, unknown = _parser(chosen).parse_known_args(argv)
        if unknown:
            # Only flags are echoed: a bare word may be part of a salt given without quotes.
            flags = [a for a in unknown if a.startswith("-")]
            hidden = len(unknown) - len(flags)
            parts = [f"unrecognized arguments: {' '.join(flags)}"] if flags else []
            if hidden:
                parts.append(
                    f"{counted(hidden, 'unexpected value', 'unexpected values')} (not shown: if "
                    "part of the salt, quote the salt or use --salt-file)"
                )
            raise ReshuffleError("; ".join(parts) + "; see --help")
        remapping, rotating = _given(args, REMAP_ARGS), _given(args, ROTATION_ARGS)
        if remapping and rotating:
            raise ReshuffleError(
                f"{', '.join(rotating)} belong to a rotation and "
                f"{', '.join(remapping)} to remapping a submission; run the two separately"
            )
        return run_remap(args, chosen) if remapping else run_rotation(args, chosen)
    except (ReshuffleError, errors.ReleaseError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
