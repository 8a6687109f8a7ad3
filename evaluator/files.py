"""Reading a key or public file into its rows, and the key version the file names.

A file is ``json`` (a list of rows, or ``{"samples": [...]}`` naming its ``key_version``),
``jsonl`` (one row a line) or ``csv`` (a header row; the cells a track's kind declares as JSON,
``track.json_cells``, are decoded, and an integer id is converted). The rows of any file may
name their version in a ``key_version`` field (a CSV column), which must then be the same on
every row (and agree with a JSON object's own).

>>> import spec
>>> track = spec.load_benchmark("egoargus").track("understanding")
>>> rows = read_rows(track, spec.load_benchmark("egoargus").demo_public(track).read_bytes(), "csv")
>>> len(rows.records), rows.key_version
(6978, 'demo-1')
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from errors import DataFileError
from evaluator.json_text import loads
from evaluator.messages import agree, examples, json_type, nth, short
from spec import Track
from spec.base import IdFields

KEY_VERSION_FIELD = "key_version"  # a key object's version, and a row's (a CSV column)


@dataclass(frozen=True)
class Rows:
    """The records of a data file, and the key version it names (a JSON object's own, else
    the one every row names)."""

    records: tuple[Any, ...]
    key_version: str | None


def row_name(track: Track, record: Any, index: int) -> str:
    """A row as a message names it: its id, or its position when it has no usable id."""
    ident = record.get(track.fields.id) if isinstance(record, dict) else None
    return short(ident) if track.fields.is_id(ident) else nth(index, "row")


def _rows_version(track: Track, records: Sequence[Any], declared: str | None = None) -> str | None:
    """The key version the rows name; DataFileError if they name several, or one that is
    not the file's own (``declared``, a JSON object's ``key_version``).

    Without ``declared`` every row names the same version or none does (an empty CSV cell is
    none); with it, a row may name none, and one that names a version names that one.
    """
    named: dict[str | None, list[str]] = {}
    bad: list[str] = []
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            continue  # reported by the checks of the rows themselves
        value = record.get(KEY_VERSION_FIELD)
        if value is not None and not isinstance(value, str):
            bad.append(row_name(track, record, index))
            continue
        if declared is not None and not value:
            continue
        named.setdefault(value or None, []).append(row_name(track, record, index))
    if bad:
        raise DataFileError(
            agree(
                f"{len(bad)} [row has|rows have] a {KEY_VERSION_FIELD} that is not a string",
                len(bad),
            )
            + f' ({examples(bad)}); write it as text, e.g. "v1.2"'
        )
    if declared is not None:
        other = {v: ids for v, ids in named.items() if v != declared}
        if other:
            n = sum(len(ids) for ids in other.values())
            found = "; ".join(f"{v} ({examples(ids)})" for v, ids in other.items())
            raise DataFileError(
                agree(
                    f"{n} [row names|rows name] another {KEY_VERSION_FIELD} than the "
                    f"file's own {declared!r}: ",
                    n,
                )
                + found
                + f"; a file holds one version of the key: make every row's {KEY_VERSION_FIELD} "
                f"{declared!r} or drop the field from the rows"
            )
        return declared
    if len(named) > 1:
        found = "; ".join(
            agree(f"{v if v is not None else 'none'} in {len(ids)} [row|rows] ", len(ids))
            + f"({examples(ids)})"
            for v, ids in named.items()
        )
        raise DataFileError(
            f"the rows name {len(named)} different key versions ({found}); a file holds one "
            f"version of the key: every row names the same {KEY_VERSION_FIELD}, or none does"
        )
    return next(iter(named), None)


def with_ids(fields: IdFields, records: Sequence[Any]) -> None:
    """Each object of ``records`` given its composed id (``fields.id`` a list of fields), under
    the id's name, when it has none and its parts make one; nothing for an id of one field."""
    if not fields.id_parts:
        return
    for record in records:
        if isinstance(record, dict) and fields.id not in record:
            ident = fields.join_id(record)
            if ident is not None:
                record[fields.id] = ident


def _level_value(fields: IdFields, level: str, name: str) -> int | str:
    """A level's key as its field's value: an integer id's decimal digits as the integer."""
    if level == fields.id and fields.id_type == "integer" and re.fullmatch(r"-?\d{1,18}", name):
        return int(name)
    return name


def levelled_rows(fields: IdFields, document: Any, bare: str | None = None) -> list[Any]:
    """The rows of a JSON document written by levels (``fields.levels``): an object keyed by
    the first level's values, each holding an object keyed by the next one's, down to a row
    (an object) or a list of rows. Each row takes its path's values under the levels' names
    and, in a list, its place (from 0) under ``fields.position`` (a list is rows only when the
    id names that place: keyed by id alone, a list is a value). A leaf that is not an object
    is kept as it is (the rows' own checks name it), or with ``bare`` (a submission's
    prediction field) is that field's value. DataFileError names a level that is not an object.

    >>> from spec.base import IdFields
    >>> fields = IdFields(id=["video", "kind", "position"], levels=["video", "kind"])
    >>> levelled_rows(fields, {"v1": {"color": [{"q": "?"}, {"q": "!"}]}})[1]
    {'q': '!', 'video': 'v1', 'kind': 'color', 'position': 1}
    >>> levelled_rows(IdFields(levels=["example_id"]), {"7": "B"}, bare="predicted_answer")
    [{'predicted_answer': 'B', 'example_id': 7}]
    """
    levels = fields.levels
    # Rows in lists only when the id names their place: keyed by id alone, a list is a value.
    listed = fields.position in (fields.id_parts or (fields.id,))
    rows: list[Any] = []

    def placed(value: Any, path: dict[str, int | str], position: int | None) -> Any:
        if not isinstance(value, dict):
            if bare is None:
                return value
            value = {bare: value}
        at = {} if position is None else {fields.position: position}
        clash = [k for k, v in {**path, **at}.items() if k in value and value[k] != v]
        if clash:
            where = "/".join(map(str, path.values()))
            name, wanted = clash[0], {**path, **at}[clash[0]]
            raise DataFileError(
                f"the row at {where!r} has a {name} of its own ({value[name]!r}) that is not its "
                f"place in the file; drop the field or make it {wanted!r}"
            )
        return {**value, **path, **at}

    # A walk without recursion: (node, the path's values so far), the top first.
    stack: list[tuple[Any, dict[str, int | str]]] = [(document, {})]
    while stack:
        node, path = stack.pop()
        depth = len(path)
        if depth == len(levels):
            if isinstance(node, list) and listed:
                rows.extend(placed(value, path, n) for n, value in enumerate(node))
            else:
                rows.append(placed(node, path, None))
            continue
        if not isinstance(node, dict):
            where = "the top level" if not path else repr("/".join(map(str, path.values())))
            raise DataFileError(
                f"{where} is a JSON {json_type(node)}; the file is "
                f"written by levels ({', '.join(levels)}): expected an object keyed by "
                f"{levels[depth]}"
            )
        level = levels[depth]
        children = [
            (child, {**path, level: _level_value(fields, level, name)})
            for name, child in node.items()
        ]
        stack.extend(reversed(children))
    return rows


def read_rows(track: Track, data: bytes, fmt: str) -> Rows:
    """The records of a file in ``fmt`` (json, jsonl or csv); DataFileError if unreadable.

    The key version is a JSON object's ``key_version``, else the one its rows name (a
    ``key_version`` field or column, the same on every row); DataFileError if they disagree.
    A composed id (``fields.id`` a list) is joined into each row (``with_ids``).
    """
    rows = _read_rows(track, data, fmt)
    with_ids(track.fields, rows.records)
    return rows


def _read_rows(track: Track, data: bytes, fmt: str) -> Rows:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataFileError(f"not UTF-8 text (undecodable byte at offset {exc.start})") from None
    if fmt == "json":
        try:
            decoded = loads(text)
        except (ValueError, RecursionError) as exc:
            raise DataFileError(f"not valid UTF-8 JSON: {exc}") from None
        if track.fields.levels:
            records = levelled_rows(track.fields, decoded)
            return Rows(tuple(records), _rows_version(track, records))
        if isinstance(decoded, list):
            return Rows(tuple(decoded), _rows_version(track, decoded))
        if not isinstance(decoded, dict) or "samples" not in decoded:
            raise DataFileError('expected a JSON list of rows or an object {"samples": [...]}')
        samples, version = decoded["samples"], decoded.get(KEY_VERSION_FIELD)
        if not isinstance(samples, list) or not (version is None or isinstance(version, str)):
            raise DataFileError('"samples" must be a list and "key_version" a string')
        return Rows(tuple(samples), _rows_version(track, samples, version))
    if fmt == "jsonl":
        records = []
        # split("\n"), not splitlines(): U+2028 and friends may sit unescaped in a JSON string.
        for lineno, line in enumerate(text.split("\n"), 1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except (ValueError, RecursionError) as exc:
                raise DataFileError(f"line {lineno} is not valid JSON ({exc})") from None
        return Rows(tuple(records), _rows_version(track, records))
    rows = _csv_rows(track, text)
    return Rows(tuple(rows), _rows_version(track, rows))


def _csv_rows(track: Track, text: str) -> list[dict[str, Any]]:
    lines = [line + "\n" for line in text.split("\n")]
    try:
        rows = list(csv.DictReader(lines))
    except csv.Error as exc:
        raise DataFileError(f"not a valid CSV file ({exc})") from None
    fields = track.fields
    out: list[dict[str, Any]] = []
    for lineno, row in enumerate(rows, 2):
        if None in row or any(v is None for v in row.values()):
            raise DataFileError(
                f"CSV line {lineno} has a different number of cells than the header"
            )
        record: dict[str, Any] = dict(row)
        for name in track.json_cells:
            cell = record.get(name)
            if cell is None:
                continue
            try:
                record[name] = loads(cell)
            except (ValueError, RecursionError):
                raise DataFileError(
                    f"CSV line {lineno}: the {name} cell is not JSON, such as an object "
                    '{"A": "...", "B": "..."} or a list ["...", "..."]'
                ) from None
        ident = record.get(fields.id)
        if (
            fields.id_type == "integer"
            and isinstance(ident, str)
            and re.fullmatch(r"-?\d{1,18}", ident.strip())
        ):
            record[fields.id] = int(ident)
        out.append(record)
    return out
