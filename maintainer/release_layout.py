"""A multiple-choice release file as its authors publish it: read into rows, written back.

``read_release`` reads a key or public file: CSV, JSON Lines, or JSON (a list of rows,
``{"samples": [...]}``, an object keyed by id, or an object nested by levels down to lists of
rows: ``{"<video>": {"<dimension>": [{...}, ...]}}``). A JSON object's levels are named by
``name_levels`` (the scaffold's ``--id-fields``); each row then carries its path's values and,
in a list, its place (``position``), as the evaluator reads such a file
(``evaluator.files.levelled_rows``). ``encode`` writes rows back in the release's own layout.
``maintainer.release_inference`` infers a spec from the rows; ``maintainer.scaffold`` writes
the folder.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import spec
from errors import DataFileError, ScaffoldError
from evaluator.files import levelled_rows
from evaluator.kinds.multiple_choice.layouts import split_question

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: The field a row of a list takes its place in it as, in a file written by levels.
POSITION = spec.base.IdFields.model_fields["position"].default
#: A name for the id of an object keyed by id, when none is given and the rows do not use it.
KEYED_ID_NAMES = ("id", "question_id", "qid", "key")


@dataclass(frozen=True)
class Release:
    """A release file's rows as read (CSV cells are text), its columns and layout."""

    name: str
    format: str  # json, jsonl or csv
    rows: list[dict[str, Any]]
    columns: list[str]
    wrapped: bool = False  # JSON: {"samples": [...]} rather than a list
    #: JSON: the object's levels from the top (their names, once ``name_levels`` gave them),
    #: and whether the rows below them are in lists (each then has a ``position``).
    levels: tuple[str, ...] = ()
    listed: bool = False
    #: JSON: the object as read, until its levels are named (``name_levels``).
    document: Any = None


def read_release(name: str, data: bytes) -> Release:
    """A release file's rows; its format from its name (.csv, .jsonl, else JSON). A JSON object
    that is no ``{"samples": [...]}`` is read by levels, which ``name_levels`` then names."""
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
            if not all(isinstance(r, dict) for r in rows):
                raise ScaffoldError(f"{name}: expected one JSON object a line")
            return Release(name, "jsonl", rows, _columns(rows))
        doc = json.loads(text)
    except RecursionError:
        raise ScaffoldError(f"{name} is nested too deeply to be read as JSON") from None
    except (csv.Error, ValueError) as exc:
        raise ScaffoldError(f"{name} cannot be read as {suffix or 'JSON'}: {exc}") from None
    wrapped = isinstance(doc, dict) and isinstance(doc.get("samples"), list)
    if isinstance(doc, dict) and not wrapped:
        depth, listed = _depth(name, doc)
        return Release(name, "json", [], [], levels=("",) * depth, listed=listed, document=doc)
    rows = doc["samples"] if wrapped else doc
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ScaffoldError(
            f'{name}: expected a JSON list of objects, {{"samples": [...]}}, or an object keyed '
            "by id or nested by levels down to rows"
        )
    return Release(name, "json", rows, _columns(rows), wrapped)


def _depth(name: str, doc: dict[str, Any]) -> tuple[int, bool]:
    """How many levels of objects an object nests before its rows (an object whose values are
    not all objects, or a list), and whether the rows are in lists: the same on every path."""
    shapes: set[tuple[int, bool]] = set()
    stack: list[tuple[Any, int]] = [(doc, 0)]
    while stack:
        node, depth = stack.pop()
        values = list(node.values())
        if values and all(isinstance(v, dict) for v in values) and not _is_row(node):
            stack.extend((v, depth + 1) for v in values)
        elif values and all(isinstance(v, list) for v in values):
            if not all(isinstance(r, dict) for v in values for r in v):
                raise ScaffoldError(f"{name}: a list of its levels holds a value that is no row")
            shapes.add((depth + 1, True))
        else:
            shapes.add((depth, False))
        if len(shapes) > 1:
            raise ScaffoldError(
                f"{name}: its levels are not the same depth everywhere; expected an object "
                "keyed by id, or nested by the same levels down to lists of rows"
            )
    if not shapes or next(iter(shapes))[0] == 0:
        raise ScaffoldError(f"{name}: an empty object, or one row: expected rows")
    return shapes.pop()


def _is_row(node: dict[str, Any]) -> bool:
    """Whether an object of objects is a row (its fields include texts), not a level."""
    return any(isinstance(v, (str, int, float, bool)) for v in node.values())


def name_levels(key: Release, names: Sequence[str]) -> Release:
    """The release with its levels named (the id's fields from the top) and its rows read by
    them; a release without levels as it is. ScaffoldError when the names do not fit."""
    if not key.levels:
        return key
    depth = len(key.levels)
    if len(names) != depth:
        shown = ",".join(names) or "(none)"
        raise ScaffoldError(
            f"{key.name} is an object nested {depth} level{'s' * (depth > 1)} deep down to "
            f"{'lists of rows' if key.listed else 'rows'}: name its levels from the top with "
            f"--id-fields (one name each, e.g. --id-fields "
            f"{','.join(['video', 'dimension', 'part'][:depth])}); got {shown}"
        )
    ids = [*names, POSITION] if key.listed else list(names)
    fields = spec.base.IdFields.model_validate(
        {"id": ids[0] if len(ids) == 1 else ids, "levels": list(names)}
    )
    try:
        rows = levelled_rows(fields, key.document)
    except DataFileError as exc:
        raise ScaffoldError(f"{key.name}: {exc}") from None
    rows = [{k: str(v) if k in names else v for k, v in r.items()} for r in rows]
    return replace(key, rows=rows, columns=_columns(rows), levels=tuple(names), document=None)


def _columns(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    return list(dict.fromkeys(k for r in rows for k in r))


def cell(value: Any) -> Any:
    """A CSV cell holding JSON (an options object or list) decoded; other values as they are."""
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def option_texts(row: Mapping[str, Any], options: Sequence[str], question: str = "") -> list[str]:
    """A row's option texts in letter order: one field (an object or list), one per option
    (an empty one ends them), or written at the end of the question (``options`` the
    ``question`` field)."""
    if len(options) > 1:
        texts = []
        for name in options:
            value = row.get(name)
            if value is None or value == "":
                break
            texts.append(str(value))
        return texts
    value = row.get(options[0])
    if options[0] == question:
        parts = split_question(value) if isinstance(value, str) else None
        return [] if parts is None else list(parts[1].values())
    value = cell(value)
    if isinstance(value, dict):
        return [str(value[k]) for k in sorted(value)]
    if isinstance(value, list):
        return [str(v) for v in value]
    return []


def encode(key: Release, rows: Sequence[Mapping[str, Any]], fmt: str | None = None) -> bytes:
    """Rows written in a release's layout (``fmt``: another format than the key's, for a
    public file named so): CSV with the release's columns, JSON Lines, or JSON as the release
    writes it (a list, ``{"samples": [...]}``, or by its levels)."""
    fmt = fmt or key.format
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(
            out,
            fieldnames=[c for c in key.columns if any(c in r for r in rows)],
            lineterminator="\n",
        )
        writer.writeheader()
        writer.writerows(rows)
        return out.getvalue().encode()
    if fmt == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()
    body: Any = list(rows)
    if key.levels:
        body = nested(rows, key.levels, POSITION if key.listed else None)
    elif key.wrapped:
        body = {"samples": body}
    return (json.dumps(body, indent=1, ensure_ascii=False) + "\n").encode()


def nested(rows: Sequence[Mapping[str, Any]], levels: Sequence[str], position: str | None) -> Any:
    """Rows nested by their ``levels`` values (the inverse of reading a file so): objects
    keyed by each level's value, in the rows' order, down to a row, or a list of rows when
    they have a ``position``; the levels' fields and the position are a row's place, not
    written in it.

    >>> nested([{"v": "a", "n": 0, "q": 1}, {"v": "a", "n": 1, "q": 2}], ["v"], "n")
    {'a': [{'q': 1}, {'q': 2}]}
    """
    out: dict[str, Any] = {}
    listed = position is not None
    place = {*levels, position} if listed else set(levels)
    for row in rows:
        node = out
        for level in levels[:-1]:
            node = node.setdefault(str(row[level]), {})
        body = {k: v for k, v in row.items() if k not in place}
        last = str(row[levels[-1]])
        if listed:
            node.setdefault(last, []).append(body)
        else:
            node[last] = body
    return out


def keyed_id_name(names: Sequence[str], columns: Sequence[str]) -> str:
    """The name of an object-keyed id: the one given, else the first of ``KEYED_ID_NAMES`` its
    rows do not use."""
    if names:
        return names[0]
    return next(n for n in (*KEYED_ID_NAMES, "the_id") if n not in columns)


#: A letter, a dot and a text: how some keys write their answers ("B. right").
LETTER_TEXT = re.compile(r"([A-Z])\. +(\S.*)", re.S)
