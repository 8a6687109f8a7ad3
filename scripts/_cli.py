"""What the maintainer scripts share: the benchmark, usage errors, the board.

The scripts import the project's packages (``spec``, ``evaluator``, ``ledger``, ``maintainer``)
as installed into the venv (``make run`` and ``make test`` install the project, editable).

Every script takes ``--benchmark`` (an id under benchmarks/ or a benchmark folder; default
``$LEADERBOARD_BENCHMARK``, else the Space's default) and ``--track`` (default the benchmark's
first). They are read before the rest of the command line, so the other arguments' help and
defaults (the records repo, the input choices, the key's file name) are the benchmark's.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import textwrap
import uuid
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NoReturn, overload

import evaluator
import ledger
import spec
from errors import LeaderboardError, UsageError
from ledger.config import DEFAULT_BENCHMARK

BENCHMARK_VARIABLE = "LEADERBOARD_BENCHMARK"
DIR_HELP = "a local folder laid out like the leaderboard dataset instead"
EPILOG_WIDTH = 88  # what describe() wraps to, whatever the terminal


def wrap(text: str, width: int) -> list[str]:
    """``text`` as lines of at most ``width`` characters, broken at spaces only.

    textwrap's defaults also break after a hyphen and inside a word longer than a line, so a
    repo id or a clone's long folder path would be cut in two ("Ted412/EgoMemReason-" then
    "Leaderboard"); a word longer than a line stays whole on a line of its own.

    >>> wrap("records repo Ted412/EgoMemReason-Leaderboard", 30)
    ['records repo', 'Ted412/EgoMemReason-Leaderboard']
    """
    return textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The description and epilog as written (the module docstring, ``describe``), and each
    argument's help wrapped as ``wrap`` does: never at a hyphen or inside a word."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return wrap(self._whitespace_matcher.sub(" ", text).strip(), width)


class Parser(argparse.ArgumentParser):
    """argparse with exit status 1 for usage errors, like every other problem here, and help
    wrapped by ``HelpFormatter``.

    Abbreviated flags are refused: ``--bench`` must not pass the full parser while the
    benchmark is read from the unabbreviated ``--benchmark`` beforehand.
    """

    def __init__(self, **kwargs: object) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(**kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


class _Ahead(argparse.ArgumentParser):
    """Reads --benchmark and --track ahead of the rest; a usage error is a UsageError."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


@dataclass(frozen=True)
class Chosen:
    """The benchmark and track a command line names (``--benchmark``, ``--track``)."""

    bench: spec.Benchmark
    track: spec.Track  # of either kind: a script that needs one says so
    track_given: bool  # --track was on the command line

    @property
    def name(self) -> str:
        """How to name the benchmark to ``--benchmark`` or LEADERBOARD_BENCHMARK: its id if it
        is the folder of that id under benchmarks/, else its folder's path."""
        if (spec.BENCHMARKS_DIR / self.bench.id).resolve() == self.bench.folder.resolve():
            return self.bench.id
        return str(self.bench.folder)


def add_benchmark_arguments(parser: argparse.ArgumentParser) -> None:
    """``--benchmark`` and ``--track``, as every script takes them."""
    parser.add_argument(
        "--benchmark",
        default=None,
        metavar="ID_OR_FOLDER",
        help=f"the benchmark: an id under benchmarks/, or the path of a folder holding a "
        f"{spec.SPEC_FILENAME} (default: ${BENCHMARK_VARIABLE}, else {DEFAULT_BENCHMARK})",
    )
    parser.add_argument(
        "--track", default=None, metavar="TRACK", help="the benchmark's track (default: its first)"
    )


def choose(argv: Sequence[str] | None) -> Chosen:
    """The benchmark and track ``argv`` names, read ahead of the other arguments.

    UsageError, in one line, for an unknown benchmark or track (naming the known ones).
    """
    pre = _Ahead(add_help=False, allow_abbrev=False)
    add_benchmark_arguments(pre)
    known, _ = pre.parse_known_args(argv)
    name = known.benchmark
    where = "--benchmark"
    if name is None:
        from_env = os.environ.get(BENCHMARK_VARIABLE, "").strip()
        name, where = (
            (from_env, f"{BENCHMARK_VARIABLE}={from_env}")
            if from_env
            else (DEFAULT_BENCHMARK, "the default benchmark")
        )
    try:
        bench = spec.load_benchmark(name)
    except spec.SpecError as exc:
        raise UsageError(f"{where}: {exc}") from None
    try:
        track = bench.track(known.track)
    except spec.SpecError as exc:
        raise UsageError(f"--track: {exc}") from None
    return Chosen(bench, track, known.track is not None)


def run(
    build_parser: Callable[[Chosen], argparse.ArgumentParser],
    body: Callable[[argparse.Namespace, Chosen], int],
    argv: Sequence[str] | None,
    *,
    after_error: str | None = None,
) -> int:
    """Choose the benchmark, parse ``argv`` and run ``body``: any problem is "error: ..." on
    stderr and status 1."""
    try:
        chosen = choose(argv)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    parser = build_parser(chosen)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (1), already printed
        return int(exc.code or 0)
    try:
        return body(args, chosen)
    except LeaderboardError as exc:
        print(f"error: {exc}", file=sys.stderr)
        if after_error:
            print(after_error, file=sys.stderr)
        return 1


def add_target_arguments(
    parser: argparse.ArgumentParser,
    chosen: Chosen,
    *,
    hub_help: str = "leaderboard dataset on the Hub, written with your own login (HF_TOKEN or "
    "`hf auth login`; HF_ENDPOINT is honoured)",
    dir_help: str = DIR_HELP,
    title: str | None = None,
) -> None:
    """``--leaderboard REPO_ID | --leaderboard-dir DIR``, in a group of their own if titled.

    ``--leaderboard`` defaults to the benchmark's ``hub.records_repo``.
    """
    container = parser.add_argument_group(title) if title else parser
    where = container.add_mutually_exclusive_group()
    repo = chosen.bench.hub.records_repo
    where.add_argument(
        "--leaderboard",
        default=repo,
        metavar="REPO_ID",
        help=f"{hub_help} (default {repo}, the benchmark's hub.records_repo)",
    )
    where.add_argument("--leaderboard-dir", type=Path, default=None, metavar="DIR", help=dir_help)


def open_store(
    args: argparse.Namespace, *, missing_dir: Literal["refuse", "create", "read as empty"]
) -> tuple[ledger.RecordStore, str]:
    """The store the target arguments name, and a phrase naming it for messages.

    A missing ``--leaderboard-dir`` is refused, created, or left to read as an empty board.
    """
    folder: Path | None = args.leaderboard_dir
    if folder is None:
        store = ledger.HubStore(args.leaderboard, endpoint=os.environ.get("HF_ENDPOINT"))
        return store, f"the Hub dataset {args.leaderboard}"
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--leaderboard-dir {folder}: this is a file, not a folder")
    if missing_dir == "refuse" and not folder.is_dir():
        raise UsageError(f"--leaderboard-dir {folder}: no such folder; create it or check the path")
    if missing_dir == "create":
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(
                f"--leaderboard-dir {folder}: cannot create it ({exc.strerror or exc})"
            ) from None
    return ledger.LocalStore(folder), f"the folder {folder}"


def read_input(path: Path, what: str) -> bytes:
    """The bytes of an input file; ``what`` names it in the message if it cannot be read."""
    try:
        return ledger.read_regular_file(path)
    except ledger.UnreadableFileError as exc:
        raise UsageError(f"cannot read the {what}: {exc}") from None


@overload
def load_key(track: spec.MultipleChoiceTrack, path: Path) -> evaluator.AnswerKey: ...
@overload
def load_key(track: spec.Track, path: Path) -> evaluator.AnyKey: ...


def load_key(track: spec.Track, path: Path) -> evaluator.AnyKey:
    """The answer key of ``track`` that ``--private`` names."""
    try:
        return evaluator.load_answer_key(track, read_input(path, "answer key"))
    except evaluator.AnswerKeyError as exc:
        raise UsageError(f"--private {path}: {exc}") from None


def score_submission(key: evaluator.AnyKey, path: Path) -> evaluator.ScoreResult:
    """The submission that ``--submission`` names, scored against ``key``."""
    try:
        return evaluator.score(key, read_input(path, "submission"))
    except evaluator.SubmissionError as exc:
        raise UsageError(f"--submission {path}: {exc}") from None


def owner(record: ledger.Record) -> str:
    """Whose row a record is, for messages: "egoargus/understanding"."""
    if record.benchmark is None:
        return "no benchmark (a schema 1 record)"
    return f"{record.benchmark}/{record.track}"


def describe(chosen: Chosen) -> str:
    """What ``--help`` says about the chosen benchmark: its files, records repo and choices."""
    bench, track = chosen.bench, chosen.track
    tracks = ", ".join(t.id for t in bench.tracks)
    choices = "; ".join(f"{k} = {v}" for k, v in bench.input.choices.items())
    text = (
        f"This benchmark ({bench.id}, {bench.folder}): tracks {tracks}; this track ({track.id}) "
        f"has the answer key {track.key.name} ({track.key.format}) and the public file "
        f"{track.public.name} ({track.public.format}); records repo {bench.hub.records_repo}; "
        f"{bench.input.label.lower()} choices (--uses-frames): {choices}."
    )
    return "\n".join(wrap(text, EPILOG_WIDTH))


def chance_line(result: evaluator.ScoreResult) -> str:
    """ "scored on answer key version demo-1 (chance 20.7 %)": what a published score names."""
    version = result.key_version or "(unversioned: the key names no key_version)"
    chance = f" (chance {result.chance:.1f} %)" if result.chance is not None else ""
    return f"scored on answer key version {version}{chance}"


def refuse_below_chance(
    track: spec.Track, result: evaluator.ScoreResult, flag: str, allowed: bool
) -> str | None:
    """UsageError for a below-chance result unless ``allowed`` (then its warning, to print)."""
    warning = evaluator.chance_warning(track, result)
    if warning is None:
        return None
    if not allowed:
        raise UsageError(
            f"{flag}: {warning} Nothing is published from a file this far below "
            "chance unless --allow-below-chance says it is meant to be"
        )
    return f"warning: {flag}: {warning} Published anyway (--allow-below-chance)."


# --- the rows on a board ----------------------------------------------------------------------


def read_board(store: ledger.RecordStore) -> list[ledger.Record]:
    """Every record on the board, of every benchmark, superseded ones included; unreadable
    ones are named."""
    records = []
    for path, record in ledger.records_of(store):
        if isinstance(record, ledger.RecordError):
            print(
                f"warning: {path} is not a valid record, so it was not checked: {record}",
                file=sys.stderr,
            )
        else:
            records.append(record)
    return records


def rows_of(everything: Iterable[ledger.Record], chosen: Chosen) -> list[ledger.Record]:
    """The rows of the chosen benchmark and track, superseded ones included."""
    return [r for r in everything if ledger.record_track(r, chosen.bench) == chosen.track.id]


def current(rows: Sequence[ledger.Record]) -> list[ledger.Record]:
    """The rows no other row supersedes: those a board shows."""
    hidden = {r.supersedes for r in rows if r.supersedes is not None}
    return [r for r in rows if r.id not in hidden]


def row_name(record: ledger.Record) -> str:
    """A row as messages name it: "<uuid> (DemoVLM-7B by Demo Lab, key demo-1)"."""
    version = (
        f", key {record.key_version or '(unversioned)'}"
        if record.source == "rescored"
        else ", paper-reported"
    )
    return f"{record.id} ({record.method_name} by {record.team_name}{version})"


def find_submissions(folder: Path, wanted: Collection[str], flag: str) -> dict[str, Path]:
    """The files under ``folder`` (searched recursively, ``*.json``) whose sha256 is wanted."""
    if not folder.is_dir():
        raise UsageError(
            f"{flag} {folder}: no such folder; give the folder where the board's "
            "submission files are kept"
        )
    found: dict[str, Path] = {}
    for path in sorted(folder.rglob("*.json")):
        if len(found) == len(wanted):
            break
        try:
            digest = hashlib.sha256(ledger.read_regular_file(path)).hexdigest()
        except ledger.UnreadableFileError:
            continue
        if digest in wanted and digest not in found:
            found[digest] = path
    return found


def older_answers(
    rows: Sequence[ledger.Record], chosen: Chosen, folder: Path | None
) -> tuple[dict[uuid.UUID, str], int]:
    """The answers sha256 of rows published before records kept one, computed from their
    submissions found in ``folder`` by sha256; and how many such rows were not found."""
    older = [r for r in rows if r.provenance is not None and r.provenance.answers_sha256 is None]
    if folder is None or not older:
        return {}, len(older)
    files = find_submissions(
        folder,
        {r.provenance.submission_sha256 for r in older if r.provenance is not None},
        "--submissions-dir",
    )
    out: dict[uuid.UUID, str] = {}
    for row in older:
        assert row.provenance is not None
        path = files.get(row.provenance.submission_sha256)
        digest = (
            evaluator.answers_sha256(chosen.track, ledger.read_regular_file(path))
            if path is not None
            else None
        )
        if digest is not None:
            out[row.id] = digest
    return out, len(older) - len(out)


def check_board(
    everything: Sequence[ledger.Record],
    chosen: Chosen,
    result: evaluator.ScoreResult,
    supersedes: uuid.UUID | None,
    *,
    team_name: str,
    method_name: str,
    force: bool = False,
    answers_of: Mapping[uuid.UUID, str] | None = None,
) -> list[str]:
    """Refuse a duplicate submission, or a --supersedes that names no current row of the same
    benchmark and track; rows of other benchmarks and tracks do not count. The warnings to
    print are returned.

    A duplicate is a row of the same file (sha256), or of the same answers on the same key
    version (the same ids and letters after normalisation, whatever the file's bytes;
    ``answers_of`` gives the answers of rows older than ``provenance.answers_sha256``). A row
    superseded by one of another team or method name, or left beside a row of the same team
    and method scored on another key version, needs ``force``.
    """
    here = f"{chosen.bench.id}/{chosen.track.id}"
    board = rows_of(everything, chosen)
    by_id = {r.id: r for r in board}
    known = answers_of or {}
    sha256 = result.submission_sha256

    def answers(r: ledger.Record) -> str | None:
        return (r.provenance.answers_sha256 if r.provenance is not None else None) or known.get(
            r.id
        )

    same_bytes = [r for r in board if r.provenance and r.provenance.submission_sha256 == sha256]
    same_answers = [
        r
        for r in board
        if r not in same_bytes
        and result.answers_sha256 is not None
        and r.key_version == result.key_version
        and answers(r) == result.answers_sha256
    ]
    same = same_bytes + same_answers
    warnings: list[str] = []
    if supersedes is None:
        if same_bytes:
            rows = ", ".join(f"{r.id} ({r.method_name} by {r.team_name})" for r in same_bytes)
            raise UsageError(
                f"this submission (sha256 {sha256[:12]}...) is already on the board of {here} "
                f"as {rows}; to correct that row, publish again with --supersedes <its uuid>"
            )
        if same_answers:
            rows = ", ".join(row_name(r) for r in same_answers)
            raise UsageError(
                f"this submission's answers are already on the board of {here} as {rows}: the "
                "same ids and letters (trimmed and upper-cased) on the same key version, in a "
                f"file of other bytes (answers sha256 {str(result.answers_sha256)[:12]}...); to "
                "correct that row, publish again with --supersedes <its uuid>"
            )
        twins = [
            r
            for r in current(board)
            if r.source == "rescored"
            and (r.team_name, r.method_name) == (team_name, method_name)
            and r.key_version != result.key_version
        ]
        if twins:
            rows = ", ".join(row_name(r) for r in twins)
            version = result.key_version or "(unversioned)"
            if not force:
                raise UsageError(
                    f"{method_name} by {team_name} is already on the board of {here} as {rows}, "
                    f"scored on another key version; if this file is its submission remapped "
                    f"onto key version {version}, publish with --supersedes <its uuid> (or "
                    "carry every row over at once with scripts/rescore_board.py); to list both "
                    "rows anyway, add --force"
                )
            warnings.append(
                f"warning: {method_name} by {team_name} stays on the board twice: "
                f"{rows} and this row on key version {version} (--force)"
            )
        return warnings
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
    old = by_id[supersedes]
    if (old.team_name, old.method_name) != (team_name, method_name):
        if not force:
            raise UsageError(
                f"--supersedes {supersedes}: that row is {row_name(old)}, this one is "
                f"{method_name} by {team_name}; a row supersedes a row of the same team and "
                "method. If it really replaces that row (a renamed method, a corrected team "
                "name), add --force"
            )
        warnings.append(
            f"warning: --supersedes {supersedes} hides {row_name(old)}, a row of "
            f"another team or method name than this one ({method_name} by "
            f"{team_name}) (--force)"
        )
    return warnings
