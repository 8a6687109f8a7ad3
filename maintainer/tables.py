"""A track's key and public file as tables: read in the format its spec declares, written back.

A rotation rewrites the two files of a multiple-choice release (maintainer.rotation) and must
keep everything but the letters as it was: a ``Table`` holds the rows as the evaluator reads
them (``evaluator.read_rows``) and what writing them back in their format needs (a JSON file's
other fields, a CSV file's header, cells, line ending and the columns a rewrite replaces).
``read_private`` and ``read_public`` read and check the key and the public file;
``naming_version`` and ``write_table`` write them back, naming a new key version. Pure: bytes
in, bytes out; a file that is not a table of its format is a ``ReshuffleError`` naming the
flag that gave it.

Example (the shipped demo files; written back unchanged, the bytes are the same):

>>> from pathlib import Path
>>> import spec
>>> bench = spec.load_benchmark("egoargus")
>>> track = bench.track(kind=spec.MultipleChoiceTrack)
>>> path = bench.demo_public(track)
>>> public = read_public(track, path.read_bytes(), path)
>>> public.format, len(public.records), public.key_version, public.changed
('csv', 6978, 'demo-1', ('options',))
>>> write_table(public, public.records) == path.read_bytes()
True
>>> try:
...     read_public(track, b"[]", Path("public.csv"))
... except ReshuffleError as error:
...     print(error)  # doctest: +NORMALIZE_WHITESPACE
--public public.csv: the public file has no rows. Expected rows with example_id, question,
options, scenario, task.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from errors import ReshuffleError
from evaluator import (
    KEY_VERSION_FIELD,
    AnswerKey,
    AnswerKeyError,
    DataFileError,
    kind_of,
    parse_answer_key,
    read_rows,
)
from maintainer.release_layout import nested
from spec import MultipleChoiceTrack


def version_name(name: str | None) -> str:
    """A key version as messages name it: "(unversioned)" for a key that names none."""
    return name if name is not None else "(unversioned)"


@dataclass(frozen=True)
class Table:
    """A key or public file as read: its rows, and what writing it back in its format needs."""

    format: str  # json, jsonl or csv
    records: tuple[dict[str, Any], ...]  # the rows as the evaluator reads them
    #: json: the object's fields besides "samples" (None: the file is a bare list).
    top: Mapping[str, Any] | None = None
    #: csv: the header and every row's cells as written, and the line ending.
    header: tuple[str, ...] = ()
    cells: tuple[tuple[str, ...], ...] = ()
    newline: str = "\n"
    changed: tuple[str, ...] = ()  # csv: the columns writing replaces
    key_version: str | None = None  # the version the file names (evaluator.read_rows)
    #: json written by levels (``fields.levels``): the levels, and the rows' position field
    #: when the rows are in lists (None: an object keyed by id).
    levels: tuple[str, ...] = ()
    position: str | None = None


def decode_json(data: bytes, flag: str, path: Path, what: str) -> Any:
    """The JSON value of ``data``; ReshuffleError naming ``flag``, ``path`` and its ``what``."""
    try:
        return json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ReshuffleError(f"{flag} {path} is not UTF-8 text; save it as UTF-8 JSON") from None
    except (ValueError, RecursionError) as exc:
        raise ReshuffleError(
            f"{flag} {path} is not valid JSON ({exc}); {flag} takes {what}"
        ) from None


def _csv_cells(data: bytes) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...], str]:
    """A CSV file's header, its rows' cells as written (blank lines aside) and its line ending."""
    text = data.decode("utf-8-sig")
    rows = [tuple(r) for r in csv.reader(io.StringIO(text, newline="")) if r]
    newline = "\r\n" if "\r\n" in text else "\n"
    return (rows[0] if rows else ()), tuple(rows[1:]), newline


def read_table(
    track: MultipleChoiceTrack, data: bytes, fmt: str, flag: str, path: Path, what: str
) -> Table:
    """The rows of a data file in ``fmt``; ReshuffleError, naming the flag, if unreadable."""
    top: dict[str, Any] | None = None
    f = track.fields
    if fmt == "json" and f.levels:
        pass  # an object by levels: read by read_rows, written back by them
    elif fmt == "json":
        decoded = decode_json(data, flag, path, what)
        if isinstance(decoded, dict) and isinstance(decoded.get("samples"), list):
            top = {k: v for k, v in decoded.items() if k != "samples"}
        elif not isinstance(decoded, list):
            raise ReshuffleError(
                f'{flag} {path}: expected a JSON list of rows or an object {{"samples": '
                f"[...]}}; {flag} takes {what}"
            )
    try:
        rows = read_rows(track, data, fmt)
    except DataFileError as exc:
        raise ReshuffleError(
            f"{flag} {path} is not a {fmt} file of rows: {exc}; {flag} takes {what}"
        ) from None
    records, version = rows.records, rows.key_version
    if fmt == "json" and f.levels:
        position = f.position if f.position in f.id_parts else None
        return Table(fmt, records, key_version=version, levels=f.levels, position=position)
    if fmt != "csv":
        return Table(fmt, records, top=top, key_version=version)
    header, cells, newline = _csv_cells(data)
    if len(cells) != len(records):  # never expected: the evaluator read the same text
        raise ReshuffleError(f"{flag} {path}: its CSV rows could not be read consistently")
    written = f.option_parts or (f.options,)  # the question's own, when options are in it
    changed = tuple(c for c in (*written, f.answer) if c in header)
    return Table(
        fmt,
        records,
        header=header,
        cells=cells,
        newline=newline,
        changed=changed,
        key_version=version,
    )


def naming_version(
    table: Table, records: Sequence[Mapping[str, Any]], version: str, as_object: bool
) -> tuple[Table, list[dict[str, Any]]]:
    """The table and its rows so that writing them names ``version``: a JSON file written as
    an object (``as_object``) names it once, and so does each row that already named one;
    every other file in a ``key_version`` field or column of every row (a CSV gains the
    column if it lacks it)."""
    field = KEY_VERSION_FIELD
    if as_object:
        return table, [{**r, field: version} if field in r else dict(r) for r in records]
    rows = [{**r, field: version} for r in records]
    if table.format == "csv":
        if field not in table.header:
            table = dataclasses.replace(
                table, header=(*table.header, field), cells=tuple((*c, "") for c in table.cells)
            )
        if field not in table.changed:
            table = dataclasses.replace(table, changed=(*table.changed, field))
    return table, rows


def dump_json(value: Any) -> bytes:
    """A JSON file as rotations write it: indented by one, UTF-8, a final newline."""
    return (json.dumps(value, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def write_table(
    table: Table, records: Sequence[Mapping[str, Any]], key_version: str | None = None
) -> bytes:
    """``records`` (the table's rows, changed) in the table's format.

    A JSON file is written as an object naming ``key_version`` when it is given; a CSV keeps
    every cell but those of the changed columns (options as a JSON object).
    """
    if table.levels:  # the version is in every row (``naming_version``)
        return dump_json(nested(records, table.levels, table.position))
    if table.format == "json":
        if key_version is not None:
            others = {k: v for k, v in (table.top or {}).items() if k != "key_version"}
            return dump_json({"key_version": key_version, "samples": list(records), **others})
        if table.top is None:
            return dump_json(list(records))
        return dump_json({**table.top, "samples": list(records)})
    if table.format == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=table.newline)
    writer.writerow(table.header)
    columns = {name: table.header.index(name) for name in table.changed}
    for cells, record in zip(table.cells, records, strict=True):
        row = list(cells)
        for name, index in columns.items():
            value = record[name]
            row[index] = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        writer.writerow(row)
    return buffer.getvalue().encode("utf-8")


def read_private(track: MultipleChoiceTrack, data: bytes, path: Path) -> tuple[Table, AnswerKey]:
    """The key file as a table, and the validated key."""
    fmt = track.key.format
    table = read_table(
        track, data, fmt, "--private", path, f"the answer key, one {fmt} file ({track.key.name})"
    )
    try:
        key = parse_answer_key(
            track, list(table.records), hashlib.sha256(data).hexdigest(), table.key_version
        )
    except AnswerKeyError as exc:
        raise ReshuffleError(
            f"--private {path}: {exc}; pass the private answer key ({track.key.name})"
        ) from None
    return table, key


def read_public(track: MultipleChoiceTrack, data: bytes, path: Path) -> Table:
    """The public file as a table, each row checked for the fields rotation needs."""
    fmt = track.public.format
    table = read_table(
        track, data, fmt, "--public", path, f"the public file, one {fmt} file ({track.public.name})"
    )
    shape, others = kind_of(track).public_problems(track, table.records)
    problems = shape + others
    if problems:
        leaked = any("must not contain answers" in p for p in problems)
        fields = ", ".join(
            (
                track.fields.id,
                track.fields.question,
                track.fields.options,
                *(g.field for g in track.groupings),
            )
        )
        hint = (
            " Did you swap --public and --private?"
            if leaked
            else f" Expected rows with {fields}."
            if shape
            else ""
        )
        raise ReshuffleError(f"--public {path}: {'; '.join(problems)}.{hint}")
    return table
