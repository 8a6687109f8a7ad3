"""Reading a benchmark folder: its benchmark.toml into a ``Benchmark``, every problem with its
TOML path (``tracks[0].groupings[0].groups[3].size: expected a positive integer, got "100"``).

``parse_benchmark`` is pure (a decoded TOML document in, a model out); ``load_benchmark``
reads the folder.
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from errors import SpecError
from spec.base import quote
from spec.benchmark import Benchmark
from spec.folder_files import (
    PROSE_LIMIT_BYTES,
    SPEC_LIMIT_BYTES,
    TABLE_LIMIT_BYTES,
    check_folder_file,
    check_folder_tree,
    read_folder_text,
)
from spec.tracks import DEFAULT_KIND, KINDS

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS_DIR = ROOT / "benchmarks"
SPEC_FILENAME = "benchmark.toml"

#: What pydantic's error types expect, in the words of a spec error.
_EXPECTED = {
    "int_type": "an integer",
    "string_type": "a string",
    "bool_type": "true or false",
    "greater_than": "a positive integer",
    "greater_than_equal": "an integer >= 0",
    "date_from_datetime_parsing": "a date such as 2026-05-11",
    "date_type": "a date such as 2026-05-11",
    "uuid_parsing": "a uuid",
    "uuid_type": "a uuid",
}


def _location(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part == "[key]":
            out += " (the key)"
        elif part in ("constrained-str", "function-before", "function-after") or (
            part.startswith("kind=")
        ):
            continue  # pydantic's constraint branch names and track-kind tags, not TOML keys
        elif not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            out += f'."{part}"' if out else f'"{part}"'
        else:
            out += f".{part}" if out else part
    return out or "(top level)"


def _toml(value: object) -> str:
    """A value as it would be written in TOML (cut short): ``["a", "b"]``, ``{en = "x"}``."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        return quote(value)
    elif isinstance(value, list):
        text = "[" + ", ".join(_toml(v) for v in value) + "]"
    elif isinstance(value, dict):
        inner = ", ".join(
            f"{k if re.fullmatch(r'[A-Za-z0-9_-]+', str(k)) else quote(str(k))} = {_toml(v)}"
            for k, v in value.items()
        )
        text = "{" + inner + "}"
    else:
        text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _given(value: object) -> str:
    """The value a spec gave, as the error quotes it: a list or table named as such."""
    if isinstance(value, list):
        return f"the list {_toml(value)}"
    if isinstance(value, dict):
        return f"the table {_toml(value)}"
    return quote(value) if isinstance(value, str) else _toml(value)


def _first_scalar(value: object) -> object:
    """The first string or number inside a list or table (what its author likely meant)."""
    items = (
        value
        if isinstance(value, list)
        else list(value.values())
        if isinstance(value, dict)
        else [value]
    )
    for item in items:
        if isinstance(item, (str, int, float)) and not isinstance(item, bool):
            return item
    return None


def _instead(kind: str, found: object) -> str:
    """What to write in place of ``found`` for a value of pydantic's type ``kind``."""
    first = _first_scalar(found)
    several = isinstance(found, (list, dict))
    if kind == "string_type":
        if not several:
            return f"write it in quotes: {quote(str(found))}"
        such = f", such as {quote(str(first))}" if first is not None else ""
        return f"write one string in quotes{such}"
    if kind in ("int_type", "greater_than", "greater_than_equal"):
        number = str(first).strip() if first is not None else ""
        such = number if re.fullmatch(r"-?[0-9]+", number) else "100"
        return f"write a whole number without quotes, such as {such}"
    if kind == "bool_type":
        return "write true or false, without quotes"
    if kind in ("date_from_datetime_parsing", "date_type"):
        return "write the date without quotes, such as 2026-05-11"
    if kind in ("uuid_parsing", "uuid_type"):
        return 'write it in quotes, such as "5694e658-3eb0-487c-b1e2-cba563c80b88"'
    return ""


def _describe(err: Any) -> str:
    kind, found = err["type"], err.get("input")
    if kind == "missing":
        return "missing; expected this field"
    if kind == "too_short":
        return "expected at least one entry, got none"
    if kind == "extra_forbidden":
        return "unknown field; remove it or check its spelling"
    expected = _EXPECTED.get(kind)
    if kind == "literal_error":
        expected = str(err["msg"]).removeprefix("Input should be ")
    elif kind == "string_pattern_mismatch":
        expected = "a string matching " + str(err.get("ctx", {}).get("pattern", "its pattern"))
    if (
        kind in ("int_type", "greater_than")
        and isinstance(found, int)
        and not isinstance(found, bool)
    ):
        expected = "a positive integer"
    if kind == "literal_error" and err["loc"][-2:] == (f"kind={DEFAULT_KIND}", "kind"):
        # Checked as the default kind because it named no known kind.
        others = [repr(k) for k in KINDS if k != DEFAULT_KIND]
        named = (
            f"the other kind is {others[0]}"
            if len(others) == 1
            else (f"the other kinds are {', '.join(others)}")
        )
        return (
            f"expected {expected}, got {quote(found)} (checked as a "
            f"{DEFAULT_KIND.replace('_', '-')} track; {named})"
        )
    if expected is None:
        return str(err["msg"]).removeprefix("Value error, ")
    # The value itself, never its type's name as if it were the value; then what to write.
    instead = _instead(kind, found)
    return f"expected {expected}, got {_given(found)}" + (f"; {instead}" if instead else "")


def parse_benchmark(document: Mapping[str, Any], folder: Path) -> Benchmark:
    """Validate a decoded benchmark.toml; SpecError lists every problem with its TOML path.

    >>> import tomllib
    >>> folder = BENCHMARKS_DIR / "egomemreason"
    >>> bench = parse_benchmark(tomllib.loads((folder / SPEC_FILENAME).read_text()), folder)
    >>> bench.track().metric_keys[0], bench.track().sizes["overall"]
    ('overall', 500)
    """
    try:
        bench = Benchmark.model_validate({**document, "folder": folder})
    except ValidationError as exc:
        errors = exc.errors()
        # A list whose item failed also reports "too short"; the item's own error says it all.
        errors = [
            e
            for e in errors
            if e["type"] != "too_short"
            or not any(o["loc"][: len(e["loc"])] == e["loc"] and o is not e for o in errors)
        ]
        lines = [f"{_location(e['loc'])}: {_describe(e)}" for e in errors]
        raise SpecError(_report(folder, lines)) from None
    problems = bench.problems()
    if problems:
        raise SpecError(_report(folder, problems))
    return bench


def _report(folder: Path, problems: list[str]) -> str:
    where = folder / SPEC_FILENAME
    if len(problems) == 1:
        return f"{where}: {problems[0]}"
    return f"{where} has {len(problems)} problems:\n" + "\n".join(f"- {p}" for p in problems)


def _folder_report(folder: Path, problems: list[str]) -> str:
    if len(problems) == 1:
        return problems[0]
    return f"{folder} has {len(problems)} problems:\n" + "\n".join(f"- {p}" for p in problems)


def benchmark_folder(name: str) -> Path:
    """An id under benchmarks/, or the path of a benchmark folder."""
    if re.fullmatch(r"[a-z][a-z0-9_-]*", name) and (BENCHMARKS_DIR / name).is_dir():
        return BENCHMARKS_DIR / name
    path = Path(name).expanduser()
    if path.is_dir():
        return path
    known = ", ".join(sorted(p.parent.name for p in BENCHMARKS_DIR.glob(f"*/{SPEC_FILENAME}")))
    raise SpecError(
        f"no benchmark {name!r}: give an id under benchmarks/ ({known}) or the path of a "
        f"folder holding a {SPEC_FILENAME}"
    )


def load_benchmark(name: str) -> Benchmark:
    """Read and validate a benchmark folder's spec; its prose files must be there too, and every
    file the code reads from the folder must be a regular file inside it within its bound
    (``spec.folder_files``), or SpecError lists each that is not.

    >>> load_benchmark("egoargus").track("decision").display["decision_f1"]
    'ratio'
    """
    folder = benchmark_folder(name).resolve()
    path = folder / SPEC_FILENAME
    try:
        text = read_folder_text(folder, path, SPEC_LIMIT_BYTES)
    except FileNotFoundError:
        raise SpecError(
            f"{folder} holds no {SPEC_FILENAME}; a benchmark folder needs one"
        ) from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{path} is not valid TOML: {exc}") from None
    except RecursionError:
        # tomllib parses nested arrays and inline tables by recursion: past Python's limit
        # (~1,000 levels; a spec nests 3) it raises this, with a traceback thousands of lines
        # long. Caught here rather than pre-scanned, so that what counts as a bracket inside a
        # string stays the TOML parser's business alone.
        raise SpecError(
            f"{path} nests arrays or inline tables too deeply to be read (over "
            f"{sys.getrecursionlimit():,} levels); a spec nests a few: check its brackets"
        ) from None
    bench = parse_benchmark(document, folder)
    problems = folder_problems(bench)
    if problems:
        raise SpecError(_folder_report(folder, problems))
    return bench


def folder_problems(bench: Benchmark) -> list[str]:
    """What is wrong with the files the code reads from ``bench``'s folder: about.md and
    citation.bib must be there, UTF-8 and within their bound; the paper's tables, each track's
    demo key and public file and the demo board may be missing, but what is there is a regular
    file (or a real folder) inside the folder, with no link on the way.

    >>> folder_problems(load_benchmark("egomemreason"))
    []
    """
    folder = bench.folder
    problems: list[str] = []
    missing: list[str] = []
    for prose in (bench.about_path, bench.citation_path):
        try:
            read_folder_text(folder, prose, PROSE_LIMIT_BYTES)
        except FileNotFoundError:
            missing.append(prose.name)
        except SpecError as exc:
            problems.append(str(exc))
    if missing:
        problems.insert(
            0,
            f"{folder} lacks {' and '.join(missing)}: a benchmark folder holds its About text "
            "and citation beside benchmark.toml",
        )
    tables = bench.paper.all_tables if bench.paper is not None else ()
    files: list[tuple[Path, int | None]] = [(folder / t.csv, TABLE_LIMIT_BYTES) for t in tables]
    # The demo keys and public files are read by the ledger, within its own bound.
    files += [(bench.demo_key(t), None) for t in bench.tracks]
    files += [(bench.demo_public(t), None) for t in bench.tracks]
    for path, limit in files:
        try:
            check_folder_file(folder, path, limit)
        except SpecError as exc:
            problems.append(str(exc))
    try:
        check_folder_tree(folder, bench.demo_board)
    except SpecError as exc:
        problems.append(str(exc))
    return list(dict.fromkeys(problems))  # a linked demo/ is named once, not once per file
