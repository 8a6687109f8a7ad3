"""The project's one error tree: every problem it reports to a person derives from one class.

Each layer raises its own kinds, and each edge catches the root: ``app.main`` prints one line
and stops the boot, the scripts print ``error: ...`` and exit 1, a page handler shows the
message. Every message says what was expected, what was found and how to fix it::

    LeaderboardError
    ├── SpecError                 a benchmark folder or its benchmark.toml (spec)
    ├── DataFileError             a key or public file is not rows of its format (evaluator)
    ├── AnswerKeyError            the answer key does not validate
    ├── PublicFileError           the public file does not validate
    ├── SubmissionError           a submission cannot be scored; .problems lists each
    │   └── KeyedRefusal          ... refused by a check that reads the answer key
    ├── ConfigError               a configuration variable (ledger.config)
    ├── UnreadableFileError       a local path that is no readable regular file (ledger.files)
    ├── RecordError               a record file does not validate (records.record)
    ├── LedgerError               the Hub or the records folder failed (ledger)
    │   ├── HubUnreachableError   ... with no answer at all
    │   └── RecordExistsError     ... a record of that id exists (records are immutable)
    ├── ReleaseError              a key and public file that make no release (maintainer)
    ├── BoardError                a row the board refuses: a duplicate, a wrong --supersedes
    ├── ReshuffleError            an input a rotation or a remapping refuses (maintainer)
    ├── ScaffoldError             a release a new benchmark folder cannot be inferred from
    ├── UsageError                a bad command line (scripts)
    ├── LayoutError               a spec's board cannot be laid out (web)
    ├── BadInput                  an event input no page sends (web)
    ├── NotAnUpload               a /score input that is no upload of this server (web)
    ├── RateLimited               a client's scoring allowance is used up (guard)
    └── GradioMismatch            the installed Gradio is not the one a patch was written for
                                  (guard)

Each also derives from the built-in it always was (``ValueError``, ``RuntimeError`` for the
ledger's), so older ``except ValueError`` code keeps working.

Example:

>>> from errors import LeaderboardError, SubmissionError
>>> error = SubmissionError(["the file is empty"])
>>> isinstance(error, LeaderboardError), str(error)
(True, 'This submission cannot be scored: the file is empty')
"""

from __future__ import annotations

from collections.abc import Sequence


class LeaderboardError(Exception):
    """A problem the project reports to a person; the message says what to fix."""


class SpecError(LeaderboardError, ValueError):
    """A benchmark folder or its benchmark.toml is unusable; the message names the TOML path."""


class DataFileError(LeaderboardError, ValueError):
    """A key or public file cannot be read as rows of its declared format."""


class AnswerKeyError(LeaderboardError, ValueError):
    """The answer key does not validate; the message names the offending ids."""


class PublicFileError(LeaderboardError, ValueError):
    """The public file does not validate; the message names the offending rows."""


class SubmissionError(LeaderboardError, ValueError):
    """A submission that cannot be scored; the message lists every problem and how to fix it."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        head = "This submission cannot be scored"
        if len(self.problems) == 1:
            super().__init__(f"{head}: {self.problems[0]}")
        else:
            lines = "\n".join(f"- {p}" for p in self.problems)
            super().__init__(f"{head} ({len(self.problems)} problems):\n{lines}")


class KeyedRefusal(SubmissionError):
    """A submission refused by a check that reads the answer key, not the public rows alone
    (a decision file's times that look like milliseconds): what it says turns on the key, so
    the Space counts it against the score limit like a score (``evaluator.kinds.base.Kind``)."""


class ConfigError(LeaderboardError, ValueError):
    """A configuration variable has a bad value; the message names it."""


class UnreadableFileError(LeaderboardError, ValueError):
    """A path that is not a readable regular file within the size limit; the message says why."""


class RecordError(LeaderboardError, ValueError):
    """A record file does not validate against the schema; the message says which fields."""


class LedgerError(LeaderboardError, RuntimeError):
    """Reading or writing the Hub or the records folder failed."""


class HubUnreachableError(LedgerError):
    """The Hub did not answer: connection refused, timed out, or offline mode."""


class RecordExistsError(LedgerError):
    """A record with that id (path) already exists; records are immutable."""


class ReleaseError(LeaderboardError, ValueError):
    """A key and public file that do not make a release; the message lists every problem."""

    def __init__(self, message: str, problems: Sequence[str]) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


class BoardError(LeaderboardError, ValueError):
    """A row the board refuses: already on it, or superseding no row it may supersede."""


class ReshuffleError(LeaderboardError, ValueError):
    """An input the rotation or the remapping refuses; the message says how to fix it."""


class ScaffoldError(LeaderboardError, ValueError):
    """A release the scaffold cannot read or infer a spec from; the message says which
    override to give (maintainer.release_layout, scripts/new_benchmark.py)."""


class UsageError(LeaderboardError):
    """A bad command line or input file; the message says what to change."""


class LayoutError(LeaderboardError, ValueError):
    """A spec's board would show two columns, or two column groups, under one header."""


class BadInput(LeaderboardError, ValueError):
    """An event got an input no page sends: too long, too many values, or not a choice."""


class NotAnUpload(LeaderboardError):
    """A /score input that is no readable .json upload of this server: ``why`` in a few words
    (for the log, never the input itself), the message for the caller."""

    def __init__(self, why: str, message: str) -> None:
        super().__init__(message)
        self.why = why


class RateLimited(LeaderboardError):
    """A client has used up its scoring allowance for the current window."""


class GradioMismatch(LeaderboardError, RuntimeError):
    """The installed Gradio differs from the one a patch of its internals was written for."""
