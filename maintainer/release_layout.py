"""A multiple-choice release as its authors publish it, read, and what a spec says of it.

``read_release`` reads a key or public file (CSV, JSON Lines, or JSON: a list or
``{"samples": [...]}``); ``infer`` finds the id field or fields, the question, the options (one
field holding them, or one field per option), the answer and how it is written (a letter, a 0-
or 1-based index, the option's text), the letters and option counts, and a grouping field with
its groups and sizes, each from the column names people use and the values, unless an
``Overrides`` names it. What it cannot tell is a ``ScaffoldError`` naming the override to give.
``maintainer.scaffold`` writes a benchmark folder from it.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import spec
from errors import ScaffoldError

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: Field names a release commonly gives each part, tried in order when no override names it.
ID_NAMES = ("example_id", "id", "qid", "question_id", "uid", "sample_id")
QUESTION_NAMES = ("question", "prompt", "query", "q")
OPTION_NAMES = ("options", "choices", "candidates")
ANSWER_NAMES = ("correct_answer", "answer", "label", "gold", "truth", "answer_idx", "target")
#: What a submission's entries call their answer unless the release's own evaluation says.
DEFAULT_PREDICTION: str = spec.Fields.model_fields["prediction"].default
#: A grouping field has between these many distinct values (a type, a category, a split).
GROUP_VALUES = (2, 12)


@dataclass(frozen=True)
class Overrides:
    """What the command line says instead of what would be inferred."""

    id_fields: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    answer: str | None = None
    answer_format: str | None = None
    group: str | None = None
    prediction: str | None = None


@dataclass(frozen=True)
class Release:
    """A release file's rows as read (CSV cells are text), its columns and layout."""

    name: str
    format: str  # json, jsonl or csv
    rows: list[dict[str, Any]]
    columns: list[str]
    wrapped: bool = False  # JSON: {"samples": [...]} rather than a list


@dataclass(frozen=True)
class Inferred:
    """What the spec will say of the release, and why (``notes``, written as comments)."""

    id_fields: tuple[str, ...]
    id_type: str
    question: str
    options: tuple[str, ...]  # one field (a JSON object or list), or one field per option
    answer: str
    answer_format: str
    letters: str
    min_options: int
    max_options: int
    group_field: str
    groups: dict[str, int]  # value -> rows
    prediction: str  # what a submission's entries call their answer
    notes: dict[str, str] = field(default_factory=dict)


def read_release(name: str, data: bytes) -> Release:
    """A release file's rows; its format from its name (.csv, .jsonl, else JSON)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ScaffoldError(f"{name} is not UTF-8 text") from None
    suffix = Path(name).suffix.lower()
    try:
        if suffix == ".csv":
            reader = csv.DictReader(io.StringIO(text))
            rows = [dict(r) for r in reader]
            return Release(name, "csv", rows, list(reader.fieldnames or []))
        if suffix == ".jsonl":
            rows = [json.loads(line) for line in text.splitlines() if line.strip()]
            return Release(name, "jsonl", rows, _columns(rows))
        doc = json.loads(text)
    except (csv.Error, ValueError) as exc:
        raise ScaffoldError(f"{name} cannot be read as {suffix or 'JSON'}: {exc}") from None
    wrapped = isinstance(doc, dict) and isinstance(doc.get("samples"), list)
    rows = doc["samples"] if wrapped else doc
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ScaffoldError(f'{name}: expected a JSON list of objects or {{"samples": [...]}}')
    return Release(name, "json", rows, _columns(rows), wrapped)


def _columns(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    return list(dict.fromkeys(k for r in rows for k in r))


def _first(names: Sequence[str], columns: Sequence[str]) -> str | None:
    lowered = {c.lower(): c for c in columns}
    return next((lowered[n] for n in names if n in lowered), None)


def _cell(value: Any) -> Any:
    """A CSV cell holding JSON (an options object or list) decoded; other values as they are."""
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def option_texts(row: Mapping[str, Any], options: Sequence[str]) -> list[str]:
    """A row's option texts in letter order: one field (an object or list), or one per option
    (an empty one ends them)."""
    if len(options) > 1:
        texts = []
        for name in options:
            value = row.get(name)
            if value is None or value == "":
                break
            texts.append(str(value))
        return texts
    value = _cell(row.get(options[0]))
    if isinstance(value, dict):
        return [str(value[k]) for k in sorted(value)]
    if isinstance(value, list):
        return [str(v) for v in value]
    return []


def _option_columns(columns: Sequence[str]) -> tuple[str, ...]:
    """Columns numbered or lettered in a run (``a0`` ... ``a4``, ``option_a`` ... ``option_d``)."""
    runs: dict[str, list[tuple[int, str]]] = {}
    for column in columns:
        # a0 ... a4, option1 ...: digits after any prefix; option_a ...: a letter after "_"
        match = re.fullmatch(r"(.*?)([0-9]+)", column) or re.fullmatch(r"(.*_)([A-Za-z])", column)
        if match and match.group(1):
            tail = match.group(2)
            order = int(tail) if tail.isdigit() else LETTERS.index(tail.upper())
            runs.setdefault(match.group(1), []).append((order, column))
    best: tuple[str, ...] = ()
    for members in runs.values():
        members.sort()
        orders = [o for o, _ in members]
        consecutive = orders == list(range(orders[0], orders[0] + len(orders)))
        if len(members) >= 2 and consecutive and len(members) > len(best):
            best = tuple(c for _, c in members)
    return best


def _id_fields(
    rows: Sequence[Mapping[str, Any]], short: Sequence[str], named: str | None
) -> tuple[str, ...]:
    """The id a release's rows have: the id-named column if it is unique on every row, else
    the first short column that is, else the first two short columns, in the release's order,
    that are unique together (a video and a question number repeating across videos); ()."""

    def unique(*fields: str) -> bool:
        return len({tuple(str(r.get(f)) for f in fields) for r in rows}) == len(rows)

    if named is not None and named in short and unique(named):
        return (named,)
    alone = next((c for c in short if unique(c)), None)
    if alone is not None:
        return (alone,)
    pairs = ((a, b) for i, a in enumerate(short) for b in short[i + 1 :])
    return next((pair for pair in pairs if unique(*pair)), ())


def _is_int(value: Any) -> bool:
    return (type(value) is int) or (
        isinstance(value, str) and bool(re.fullmatch(r"\d{1,9}", value))
    )


def _answer_format(rows: Sequence[Mapping[str, Any]], answer: str, options: Sequence[str]) -> str:
    """How the key writes its answers: letters, 0- or 1-based indices, or the options' texts."""
    values = [row.get(answer) for row in rows]
    texts = [option_texts(row, options) for row in rows]
    if all(isinstance(v, str) and len(v) == 1 and v in LETTERS for v in values):
        return "letter"
    if all(_is_int(v) for v in values):
        indices = [int(v) for v in values]  # type: ignore[arg-type]
        if 0 in indices:
            return "index"
        if all(1 <= i <= len(t) for i, t in zip(indices, texts, strict=True)):
            return "index1"
        return "index"
    if all(isinstance(v, str) and v in t for v, t in zip(values, texts, strict=True)):
        return "text"
    raise ScaffoldError(
        f"cannot tell how {answer!r} writes its answers (a letter, an index, or an option's "
        "text): give --answer-format letter, index, index1 or text"
    )


NO_OVERRIDES = Overrides()


def infer(key: Release, overrides: Overrides = NO_OVERRIDES) -> Inferred:
    """What a spec says of ``key``, from its columns and values and the ``overrides``."""
    columns, rows, notes = key.columns, key.rows, {}
    if not rows:
        raise ScaffoldError(f"{key.name} has no rows")
    missing = [
        c
        for c in (*overrides.id_fields, *overrides.options, overrides.answer, overrides.group)
        if c is not None and c not in columns
    ]
    if missing:
        raise ScaffoldError(
            f"{key.name} has no column {', '.join(map(repr, missing))}; its columns are "
            f"{', '.join(columns)}"
        )
    id_fields = overrides.id_fields
    # An id is short and has no spaces: a question's text is unique too, but no id.
    short = [c for c in columns if all(re.fullmatch(r"\S{1,64}", str(r.get(c))) for r in rows)]
    if not id_fields:
        id_fields = _id_fields(rows, short, _first(ID_NAMES, columns))
        if not id_fields:
            raise ScaffoldError(
                f"no column of {key.name} is unique on every row, nor two together: give the "
                f"fields that name a question together, e.g. --id-fields "
                f"{','.join(short[:2] or columns[:2])}"
            )
        together = "+".join(map(repr, id_fields))
        notes["id"] = (
            f"inferred: {together} {'is' if len(id_fields) == 1 else 'are'} unique on every row"
        )
    ids = [tuple(str(r.get(c)) for c in id_fields) for r in rows]
    if len(set(ids)) != len(ids):
        twice = Counter(ids).most_common(1)[0][0]
        more = [*id_fields, *(c for c in short if c not in id_fields)][: len(id_fields) + 1]
        raise ScaffoldError(
            f"{'+'.join(id_fields)} repeats on several rows (e.g. {'/'.join(twice)}): give "
            f"the fields that name a question together, e.g. --id-fields "
            f"{','.join(more)}"
        )
    single = len(id_fields) == 1
    id_type = "integer" if single and all(_is_int(r.get(id_fields[0])) for r in rows) else "string"
    named_options = _first(OPTION_NAMES, columns)
    options = overrides.options or ((named_options,) if named_options else _option_columns(columns))
    if not options or not all(option_texts(r, options) for r in rows):
        raise ScaffoldError(
            f"cannot find {key.name}'s options: give --options FIELD (one field holding a JSON "
            "object or list) or --options a0,a1,a2,a3 (one field per option)"
        )
    if not overrides.options:
        notes["options"] = f"inferred: {' ... '.join(dict.fromkeys((options[0], options[-1])))}"
    answer = overrides.answer or _first(ANSWER_NAMES, columns)
    if answer is None:
        raise ScaffoldError(f"cannot find {key.name}'s answer column: give --answer FIELD")
    answer_format = overrides.answer_format or _answer_format(rows, answer, options)
    if not overrides.answer_format:
        notes["answer_format"] = f"inferred from the values of {answer!r}"
    question = _first(QUESTION_NAMES, columns)
    taken = {*id_fields, *options, answer}
    if question is None or question in taken:
        texts = [
            c for c in columns if c not in taken and all(isinstance(r.get(c), str) for r in rows)
        ]
        if not texts:
            raise ScaffoldError(f"{key.name} has no column of question texts")
        question = max(texts, key=lambda c: sum(len(str(r.get(c))) for r in rows))
        notes["question"] = f"inferred: {question!r} holds the longest texts"
    counts = [len(option_texts(r, options)) for r in rows]
    group = overrides.group or _group_field(rows, columns, {*taken, question})
    if group is None:
        raise ScaffoldError(
            f"no column of {key.name} has {GROUP_VALUES[0]} to {GROUP_VALUES[1]} values to group "
            "the questions by: give --group FIELD"
        )
    if not overrides.group:
        notes["group"] = f"inferred: {group!r} has a few values"
    groups = Counter(str(r.get(group)) for r in rows)
    if any(v in ("", "None") for v in groups):
        raise ScaffoldError(f"{group!r} is empty on some rows: every row needs a group")
    return Inferred(
        id_fields,
        id_type,
        question,
        options,
        answer,
        answer_format,
        LETTERS[: max(counts)],
        min(counts),
        max(counts),
        group,
        dict(sorted(groups.items())),
        overrides.prediction or DEFAULT_PREDICTION,
        notes,
    )


def _group_field(
    rows: Sequence[Mapping[str, Any]], columns: Sequence[str], taken: set[str]
) -> str | None:
    low, high = GROUP_VALUES
    for column in columns:
        if column in taken or not all(isinstance(r.get(column), str) for r in rows):
            continue
        values = {r[column] for r in rows}
        if "" in values:
            continue
        if low <= len(values) <= min(high, max(low, len(rows) // 2)):
            return column
    return None
