"""Every environment variable the app reads, in one table, and the one rule that parses them.

``VARIABLES`` lists each variable once: its name, its type (with its range), its default and
the default as the README's Configuration table shows it (tests/test_docs.py checks that table
against this one, row by row; tests/ledger/test_variables.py feeds every variable the same odd
values). One rule reads them all:

- a value is stripped of the spaces around it; empty means unset, and unset means the default;
- a number is written in ASCII digits, with a decimal point when it need not be whole: no sign,
  no exponent ("1e3"), no "inf" or "nan", no "_", no digits of other scripts ("２"); and it lies
  in its variable's range, both ends included;
- a repo id is ``namespace/name``, an address ``http(s)://host...``; a path or a text is taken as
  written (``ledger.config`` checks that a path holds what its variable needs);
- a refused value is a ``ConfigError`` that names the variable, says what it must be and what
  was found, and how to fix it; every refused variable of an environment is named at once.

A variable of the single-benchmark releases (``RENAMED``) is refused with its new name.

This module is pure: strings in, values out. ``ledger.config`` is the one place that reads the
process's environment (``load_config``, and ``value_of`` for the scripts).

>>> values = read({"LEADERBOARD_EVENT_BURST": " 90 ", "HF_TOKEN": ""})
>>> values[EVENT_BURST], values[EVENT_RATE], values[TOKEN]
(90, 10.0, None)
>>> read({"LEADERBOARD_EVENT_BURST": "1e3"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
  ...
errors.ConfigError: LEADERBOARD_EVENT_BURST must be a whole number from 1 to ..., in digits; \
found '1e3'. Fix it, or unset it for the default (60).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from errors import ConfigError

__all__ = [
    "RENAMED",
    "VARIABLES",
    "Location",
    "Name",
    "Number",
    "RepoId",
    "Text",
    "Url",
    "Values",
    "Variable",
    "Whole",
    "read",
    "without_credentials",
]

T = TypeVar("T")

_WHOLE = re.compile(r"[0-9]+", re.ASCII)
_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]+)?", re.ASCII)
_REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}", re.ASCII)
_URL = re.compile(r"https?://[^/\s]+.*", re.ASCII)
#: The ``user:password@`` of an address (``HF_ENDPOINT`` may hold one).
_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]*@")
_FOUND_CHARS = 200  # a value longer than this (no path) is quoted by its start and length


def without_credentials(text: str) -> str:
    """``text`` with the ``user:password@`` of every address in it taken out.

    >>> without_credentials("no answer from http://user:secretpw@127.0.0.1:8080/api")
    'no answer from http://127.0.0.1:8080/api'
    """
    return _CREDENTIALS.sub(r"\1", text)


def _number(value: float) -> str:
    """A bound or a default as a message writes it: ``1,000,000,000``, ``0.01``."""
    return f"{value:,.0f}" if value == int(value) else f"{value:g}"


@dataclass(frozen=True)
class Variable(Generic[T]):
    """One environment variable: its ``name``, its ``default`` (the value when it is unset) and,
    when that is not the default itself, ``shown``: the default in the README's words."""

    name: str
    default: T
    shown: str = ""

    @property
    def values(self) -> str:
        """What a value may be, as the README's table says it."""
        raise NotImplementedError

    @property
    def expected(self) -> str:
        """What a value must be, as a refusal says it."""
        return self.values

    def parse(self, text: str) -> T:
        """The value of ``text`` (stripped, not empty); ValueError if the rule refuses it."""
        raise NotImplementedError

    @property
    def default_text(self) -> str:
        """The default as the README's table writes it."""
        return self.shown or str(self.default)

    def read(self, environ: Mapping[str, str]) -> T:
        """This variable's value in ``environ``: the default when unset or empty, else its
        parsed value; ConfigError when the rule refuses it."""
        raw = environ.get(self.name, "")
        text = raw.strip()
        if not text:
            return self.default
        try:
            return self.parse(text)
        except ValueError:  # the rule refused it
            raise ConfigError(self.refusal(raw)) from None

    def refusal(self, raw: str, why: str = "") -> str:
        """The message for ``raw`` refused (``why``: what was wrong, when the rule alone does
        not say; a list of problems goes after): what the value must be, what was found, and
        how to fix it."""
        found = without_credentials(raw)
        if len(found) > _FOUND_CHARS:
            found = f"{found[:20]!r}...({len(found)} characters)"
        else:
            found = repr(found)
        default = self.default_text.replace("`", "")
        fix = f"Fix it, or unset it for the default ({default})."
        if "\n" in why:  # a list of problems (a spec's): after the message's own line
            return f"{self.name} must be {self.expected}; found {found}. {fix} {why}"
        reason = f" ({why})" if why else ""
        return f"{self.name} must be {self.expected}; found {found}{reason}. {fix}"


@dataclass(frozen=True)
class Whole(Variable[int]):
    """A whole number from ``low`` to ``high``, in ASCII digits."""

    low: int = 0
    high: int = 10**9

    @property
    def values(self) -> str:
        return f"a whole number from {_number(self.low)} to {_number(self.high)}"

    @property
    def expected(self) -> str:
        return f"{self.values}, in digits"

    def parse(self, text: str) -> int:
        # int() refuses 4,300 digits and more: a value that long is out of range anyway
        if not _WHOLE.fullmatch(text) or len(text.lstrip("0")) > 30:
            raise ValueError(text)
        value = int(text)
        if not self.low <= value <= self.high:
            raise ValueError(text)
        return value


@dataclass(frozen=True)
class Number(Variable[float]):
    """A number from ``low`` to ``high``, in ASCII digits with an optional decimal point."""

    low: float = 0.0
    high: float = 1e9

    @property
    def values(self) -> str:
        return f"a number from {_number(self.low)} to {_number(self.high)}"

    @property
    def expected(self) -> str:
        return f"{self.values}, in digits (a decimal point allowed)"

    @property
    def default_text(self) -> str:
        return self.shown or f"{self.default:g}"

    def parse(self, text: str) -> float:
        if not _DECIMAL.fullmatch(text):
            raise ValueError(text)
        value = float(text)  # a number too long for a float is inf: out of range below
        if not self.low <= value <= self.high:
            raise ValueError(text)
        return value


@dataclass(frozen=True)
class RepoId(Variable[str | None]):
    """A Hub repo id, ``namespace/name`` (unset: the benchmark's own, from its spec)."""

    @property
    def values(self) -> str:
        return "a Hub repo id, namespace/name"

    def parse(self, text: str) -> str:
        if not _REPO_ID.fullmatch(text):
            raise ValueError(text)
        return text


@dataclass(frozen=True)
class Url(Variable[str | None]):
    """An http(s) address, without its trailing ``/``."""

    @property
    def values(self) -> str:
        return "an http(s) URL such as https://huggingface.co"

    def parse(self, text: str) -> str:
        if not _URL.fullmatch(text):
            raise ValueError(text)
        return text.rstrip("/")


@dataclass(frozen=True)
class Location(Variable[Path | None]):
    """A path, ``~`` expanded, of ``what`` (that it is there is ledger.config's to check)."""

    what: str = "a path"

    @property
    def values(self) -> str:
        return self.what

    def parse(self, text: str) -> Path:
        return Path(text).expanduser()


@dataclass(frozen=True)
class Text(Variable[str | None]):
    """Any text: a token, a flag that is set or not."""

    @property
    def values(self) -> str:
        return "any text"

    def parse(self, text: str) -> str:
        return text


@dataclass(frozen=True)
class Name(Variable[str]):
    """A benchmark's id or folder (that it names one is ledger.config's to check)."""

    @property
    def values(self) -> str:
        return "a benchmark's id or folder"

    def parse(self, text: str) -> str:
        return text


BENCHMARK = Name("LEADERBOARD_BENCHMARK", "egomemreason", "`egomemreason`")
ANSWER_KEY = Location(
    "LEADERBOARD_ANSWER_KEY",
    None,
    "that file in the working directory, if it exists",
    what="the path of the answer key file, or of a folder holding it",
)
PRIVATE_REPO = RepoId("LEADERBOARD_PRIVATE_REPO", None, "the spec's `hub.private_repo`")
TOKEN = Text("HF_TOKEN", None, "none")
RECORDS_DIR = Location("LEADERBOARD_RECORDS_DIR", None, "none", what="the path of a folder")
RECORDS_REPO = RepoId("LEADERBOARD_RECORDS_REPO", None, "the spec's `hub.records_repo`")
CACHE_TTL_S = Number("LEADERBOARD_CACHE_TTL_S", 60, low=0)  # an int: messages write "60 s"
SCORE_LIMIT = Whole("LEADERBOARD_SCORE_LIMIT", 20, low=1)
SCORE_WINDOW_S = Number("LEADERBOARD_SCORE_WINDOW_S", 86400.0, low=1)
SPACE_ID = Text("SPACE_ID", None, "unset")
TRUSTED_PROXY_HOPS = Whole("LEADERBOARD_TRUSTED_PROXY_HOPS", 0, low=0, high=100)
UPLOAD_MAX_AGE_S = Number("LEADERBOARD_UPLOAD_MAX_AGE_S", 120.0, low=1, high=86_400)
UPLOAD_CACHE_FILES = Whole("LEADERBOARD_UPLOAD_CACHE_FILES", 2_000, low=1, high=10_000_000)
UPLOAD_CACHE_MB = Number("LEADERBOARD_UPLOAD_CACHE_MB", 1_024, low=1, high=10_000_000)
UPLOAD_CLIENT_PERCENT = Number("LEADERBOARD_UPLOAD_CLIENT_PERCENT", 2.0, low=0.01, high=100)
EVENT_RATE = Number("LEADERBOARD_EVENT_RATE", 10.0, low=0.01)
EVENT_BURST = Whole("LEADERBOARD_EVENT_BURST", 60, low=1)
ENDPOINT = Url("HF_ENDPOINT", None, "the Hub")
UPLOAD_FOLDER = Location(
    "GRADIO_TEMP_DIR", None, "a new private folder", what="the path of a folder"
)

#: Every variable, in the order of the README's table.
VARIABLES: tuple[Variable[Any], ...] = (
    BENCHMARK,
    ANSWER_KEY,
    PRIVATE_REPO,
    TOKEN,
    RECORDS_DIR,
    RECORDS_REPO,
    CACHE_TTL_S,
    SCORE_LIMIT,
    SCORE_WINDOW_S,
    SPACE_ID,
    TRUSTED_PROXY_HOPS,
    UPLOAD_MAX_AGE_S,
    UPLOAD_CACHE_FILES,
    UPLOAD_CACHE_MB,
    UPLOAD_CLIENT_PERCENT,
    EVENT_RATE,
    EVENT_BURST,
    ENDPOINT,
    UPLOAD_FOLDER,
)

#: The variables of the single-benchmark releases, and what they are called now.
RENAMED = {
    "EGOMEM_ANSWER_KEY": ANSWER_KEY.name,
    "EGOMEM_PRIVATE_REPO": PRIVATE_REPO.name,
    "EGOMEM_LEADERBOARD_DIR": RECORDS_DIR.name,
    "EGOMEM_LEADERBOARD_REPO": RECORDS_REPO.name,
    "EGOMEM_CACHE_TTL_S": CACHE_TTL_S.name,
    "EGOMEM_SCORE_LIMIT": SCORE_LIMIT.name,
    "EGOMEM_SCORE_WINDOW_S": SCORE_WINDOW_S.name,
}


class Values:
    """The value of every variable of an environment, by variable: ``values[EVENT_BURST]``."""

    def __init__(self, values: Mapping[Variable[Any], Any]) -> None:
        self._values = dict(values)

    def __getitem__(self, variable: Variable[T]) -> T:
        value: T = self._values[variable]
        return value


def read(environ: Mapping[str, str]) -> Values:
    """Every variable of ``VARIABLES`` parsed from ``environ``; one ConfigError naming every
    variable refused (and every old name, with its new one)."""
    problems = []
    old = [name for name in RENAMED if environ.get(name, "").strip()]
    if old:
        renames = "; ".join(f"{name} is now {RENAMED[name]}" for name in old)
        problems.append(
            f"{renames}. Rename the variable{'s' if len(old) > 1 else ''} "
            "(the values mean the same), then start again."
        )
    values: dict[Variable[Any], Any] = {}
    for variable in VARIABLES:
        try:
            values[variable] = variable.read(environ)
        except ConfigError as exc:
            problems.append(str(exc))
    if problems:
        raise ConfigError("\n".join(problems))
    return Values(values)
