"""What the maintainer scripts share: the path to the core, usage errors, the board to write.

Importing this module puts the repository root on ``sys.path``, so a script run as
``python scripts/<name>.py`` can then import ``evaluator`` and ``ledger`` (isort keeps
``_cli``, a third-party name to it, above those first-party imports).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal, NoReturn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import evaluator  # noqa: E402
import ledger  # noqa: E402

HUB_WRITE_HELP = (
    "leaderboard dataset on the Hub, written with your own login (HF_TOKEN or `hf auth "
    f"login`; HF_ENDPOINT is honoured; default {ledger.DEFAULT_LEADERBOARD_REPO})"
)
DIR_HELP = "a local folder laid out like the leaderboard dataset instead"


class UsageError(Exception):
    """A bad command line or input file; the message says what to change."""


class Parser(argparse.ArgumentParser):
    """argparse with exit status 1 for usage errors, like every other problem here."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def run(
    parser: argparse.ArgumentParser,
    body: Callable[[argparse.Namespace], int],
    argv: Sequence[str] | None,
    *,
    after_error: str | None = None,
) -> int:
    """Parse ``argv`` and run ``body``: any problem is "error: ..." on stderr and status 1."""
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (1), already printed
        return int(exc.code or 0)
    try:
        return body(args)
    except (UsageError, ledger.LedgerError, ledger.ConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        if after_error:
            print(after_error, file=sys.stderr)
        return 1


def add_target_arguments(
    parser: argparse.ArgumentParser,
    *,
    hub_help: str = HUB_WRITE_HELP,
    dir_help: str = DIR_HELP,
    title: str | None = None,
) -> None:
    """``--leaderboard REPO_ID | --leaderboard-dir DIR``, in a group of their own if titled."""
    container = parser.add_argument_group(title) if title else parser
    where = container.add_mutually_exclusive_group()
    where.add_argument("--leaderboard", default=ledger.DEFAULT_LEADERBOARD_REPO,
                       metavar="REPO_ID", help=hub_help)
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
        return path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read the {what} {path}: {exc.strerror or exc}") from None


def load_key(path: Path) -> evaluator.AnswerKey:
    """The answer key that ``--private`` names."""
    try:
        return evaluator.load_answer_key(read_input(path, "answer key"))
    except evaluator.AnswerKeyError as exc:
        raise UsageError(f"--private {path}: {exc}") from None


def score_submission(key: evaluator.AnswerKey, path: Path) -> evaluator.ScoreResult:
    """The submission that ``--submission`` names, scored against ``key``."""
    try:
        return evaluator.score(key, read_input(path, "submission"))
    except evaluator.SubmissionError as exc:
        raise UsageError(f"--submission {path}: {exc}") from None
