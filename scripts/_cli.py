"""What the maintainer scripts share: the benchmark, the parser and its help, the target
store, input files, usage errors and the board's warnings.

The scripts import the project's packages (``spec``, ``evaluator``, ``ledger``, ``maintainer``)
as installed into the venv (``make run`` and ``make test`` install the project, editable).

Every script takes ``--benchmark`` (an id under benchmarks/ or a benchmark folder; default
``$LEADERBOARD_BENCHMARK``, else the Space's default) and ``--track`` (default the benchmark's
first). They are read before the rest of the command line, so the other arguments' help and
defaults (the records repo, the input choices, the key's file name) are the benchmark's.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NoReturn, overload

import evaluator
import ledger
import spec
from errors import LeaderboardError, UsageError
from evaluator.track_fit import fitting_track
from ledger import submission_file, variables
from ledger.config import DEFAULT_BENCHMARK, value_of
from ledger.files import INPUT_LIMIT_BYTES
from maintainer import board_checks

BENCHMARK_VARIABLE = variables.BENCHMARK.name
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
    bench_given: bool = False  # --benchmark was on the command line

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
        name = value_of(variables.BENCHMARK)
        where = (
            f"{BENCHMARK_VARIABLE}={name}" if name != DEFAULT_BENCHMARK else "the default benchmark"
        )
    try:
        bench = spec.load_benchmark(name)
    except spec.SpecError as exc:
        raise UsageError(f"{where}: {exc}") from None
    try:
        track = bench.track(known.track)
    except spec.SpecError as exc:
        raise UsageError(f"--track: {exc}") from None
    return Chosen(bench, track, known.track is not None, known.benchmark is not None)


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
        store = ledger.HubStore(args.leaderboard, endpoint=value_of(variables.ENDPOINT))
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


def told_track(chosen: Chosen, data: bytes) -> spec.Track:
    """The track a submission is checked as: ``--track`` when given, else the one its entries
    tell (``evaluator.track_fit``, as the Score tab's "Detect from the file" reads them), else
    the benchmark's first."""
    if chosen.track_given or len(chosen.bench.tracks) == 1:
        return chosen.track
    return fitting_track(chosen.bench, data) or chosen.track


def track_hint(chosen: Chosen, track: spec.Track, path: Path, role: str) -> str:
    """What to change when ``path`` (the ``role`` file: "answer key" or "public file") is named
    as another track's is (the spec's names): pass that track, or, when the track was told by
    the submission's entries, give this track's file. "" when it is not."""
    for other in chosen.bench.tracks:
        names = {"answer key": other.key.name, "public file": other.public.name}
        if other.id == track.id or path.name != names[role]:
            continue
        if chosen.track_given or len(chosen.bench.tracks) == 1:
            return f"; {path.name} is the {other.id} track's {role}: pass --track {other.id}"
        mine = {"answer key": track.key.name, "public file": track.public.name}[role]
        return (
            f"; {path.name} is the {other.id} track's {role}, and the submission's entries are "
            f"{track.id} entries: give the {track.id} track's {role}, {mine} (or pass --track)"
        )
    return ""


def read_input(path: Path, what: str, limit: int = INPUT_LIMIT_BYTES) -> bytes:
    """The bytes of an input file, read as the Space reads its own (``ledger.read_regular_file``:
    a regular file, no link, at most ``limit`` bytes, JSON not nested too deep); ``what`` names
    it in the message if it cannot be read."""
    try:
        return ledger.read_regular_file(path, limit)
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
        data = read_input(path, "submission", submission_file.LIMIT_BYTES)  # the Space's bound
        return evaluator.score(key, data)
    except evaluator.SubmissionError as exc:
        raise UsageError(f"--submission {path}: {exc}") from None


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


# --- the rows on a board ----------------------------------------------------------------------


def read_board(store: ledger.RecordStore) -> list[ledger.Entry]:
    """Every record on the board, of every benchmark, superseded and withdrawn rows and the
    withdrawals included; unreadable ones are named."""
    records, unreadable = board_checks.read_board(store)
    for path, error in unreadable:
        print(
            f"warning: {path} is not a valid record, so it was not checked: {error}",
            file=sys.stderr,
        )
    return records
