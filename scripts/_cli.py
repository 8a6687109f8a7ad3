"""What the maintainer scripts share: the path to the core, the benchmark, usage errors, the board.

Importing this module puts the repository root on ``sys.path``, so a script run as
``python scripts/<name>.py`` can then import ``spec``, ``evaluator`` and ``ledger`` (isort keeps
``_cli``, a third-party name to it, above those first-party imports).

Every script takes ``--benchmark`` (an id under benchmarks/ or a benchmark folder; default
``$LEADERBOARD_BENCHMARK``, else the Space's default) and ``--track`` (default the benchmark's
first). They are read before the rest of the command line, so the other arguments' help and
defaults (the records repo, the input choices, the key's file name) are the benchmark's.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NoReturn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import evaluator  # noqa: E402
import ledger  # noqa: E402
import spec  # noqa: E402
from ledger.config import DEFAULT_BENCHMARK  # noqa: E402

BENCHMARK_VARIABLE = "LEADERBOARD_BENCHMARK"
DIR_HELP = "a local folder laid out like the leaderboard dataset instead"


class UsageError(Exception):
    """A bad command line or input file; the message says what to change."""


class Parser(argparse.ArgumentParser):
    """argparse with exit status 1 for usage errors, like every other problem here.

    Abbreviated flags are refused: ``--bench`` must not pass the full parser while the
    benchmark is read from the unabbreviated ``--benchmark`` beforehand.
    """

    def __init__(self, **kwargs: object) -> None:
        kwargs.setdefault("allow_abbrev", False)
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
    track: spec.AnyTrack  # of either kind: a script that needs one says so
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
        "--benchmark", default=None, metavar="ID_OR_FOLDER",
        help=f"the benchmark: an id under benchmarks/, or the path of a folder holding a "
             f"{spec.SPEC_FILENAME} (default: ${BENCHMARK_VARIABLE}, else {DEFAULT_BENCHMARK})")
    parser.add_argument("--track", default=None, metavar="TRACK",
                        help="the benchmark's track (default: its first)")


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
        name, where = (from_env, f"{BENCHMARK_VARIABLE}={from_env}") if from_env else (
            DEFAULT_BENCHMARK, "the default benchmark")
    try:
        bench = spec.load_benchmark(name)
    except spec.SpecError as exc:
        raise UsageError(f"{where}: {exc}") from None
    try:
        track = bench.any_track(known.track)
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
    except (UsageError, ledger.LedgerError, ledger.ConfigError) as exc:
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
    where.add_argument("--leaderboard", default=repo, metavar="REPO_ID",
                       help=f"{hub_help} (default {repo}, the benchmark's hub.records_repo)")
    where.add_argument("--leaderboard-dir", type=Path, default=None, metavar="DIR",
                       help=dir_help)


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
        raise UsageError(
            f"--leaderboard-dir {folder}: no such folder; create it or check the path"
        )
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


def load_key(track: spec.AnyTrack, path: Path) -> evaluator.AnyKey:
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
    return textwrap.fill(
        f"This benchmark ({bench.id}, {bench.folder}): tracks {tracks}; this track ({track.id}) "
        f"has the answer key {track.key.name} ({track.key.format}) and the public file "
        f"{track.public.name} ({track.public.format}); records repo {bench.hub.records_repo}; "
        f"{bench.input.label.lower()} choices (--uses-frames): {choices}.", width=88)
