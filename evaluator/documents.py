"""A submission's document read into its entries, whatever shape its authors' evaluation writes:
a JSON list of entries, JSON Lines (one entry a line), a JSON object keyed by id (each value
the prediction itself or an object holding it), or an object written by the key's levels
(``fields.levels``: the key's own structure with a prediction in each row).

A kind says what its entries look like (``Shape``: an example entry for the messages, its
prediction field, the lists people wrap entries in) and reads the entries it is given; a
document that holds no entries is handed back for the kind's hint.

>>> from spec.base import IdFields
>>> shape = Shape('{"example_id": 1, "predicted_answer": "B"}', "predicted_answer", ())
>>> entries_of(IdFields(), b'{"7": "B", "8": {"predicted_answer": null}}', 2, None, shape)
[{'example_id': 7, 'predicted_answer': 'B'}, {'predicted_answer': None, 'example_id': 8}]
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from errors import DataFileError, SubmissionError
from evaluator.files import levelled_rows, with_ids
from evaluator.json_text import loads
from evaluator.submissions import (
    MAX_ENTRIES_PER_QUESTION,
    json_lines,
    listed_json,
    read_json,
    read_text,
    wrapped_list,
)
from spec.base import IdFields

LINES = ", or JSON Lines with one such object a line"
#: Entries of a file written by levels whose ids are looked at to tell it is one.
SHAPE_LOOK = 200


@dataclass(frozen=True)
class Shape:
    """What a kind's entries look like, for reading a document into them."""

    example: str  # an entry as the messages show one: '{"example_id": 1, "predicted_answer": "B"}'
    prediction: str  # the field an entry holds its prediction in
    wrappers: Sequence[str]  # lists people wrap their entries in ("results", "predictions")
    noun: str = "question"  # a row of the key


def keyed_id(fields: IdFields, name: str) -> int | str:
    """A key of an object keyed by id as the id it names: an integer id is written there as
    its decimal digits."""
    if fields.id_type == "integer" and re.fullmatch(r"-?\d{1,18}", name.strip()):
        return int(name)
    return name


def shaped_id(fields: IdFields, name: str) -> int | str | None:
    """The id a key of an object keyed by id names (``keyed_id``), or None when ``name`` is not
    shaped as the track's ids: an integer id is decimal digits, an id of several fields holds
    their join."""
    ident = keyed_id(fields, name)
    if (
        (fields.id_type == "integer" and not isinstance(ident, int))
        or not name.strip()
        or len(name.split(fields.id_join)) < max(1, len(fields.id_parts))
    ):
        return None
    return ident


def _document(text: str, rows: int, shape: Shape) -> Any:
    """What a submission's text holds: one JSON document, or the entries of JSON Lines (one
    object a line; refused past as many lines as a submission of ``rows`` rows may hold).
    SubmissionError, in the words of a submission, if it is neither."""
    example = shape.example
    try:
        return loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg != "Extra data":
            return read_json(text, example, LINES)  # raises, with its message
    except (ValueError, RecursionError):
        return read_json(text, example, LINES)
    limit = MAX_ENTRIES_PER_QUESTION * rows
    read = json_lines(text, limit)
    if read.error is not None:
        error = read.error
        reason = error.msg if isinstance(error, json.JSONDecodeError) else "unreadable"
        raise SubmissionError(
            [
                f"line {read.bad_line} is not valid JSON ({reason}); a submission is a JSON "
                f"list of objects like {example}{LINES}"
            ]
        )
    if not read.complete:
        raise SubmissionError(
            [
                f"the file has more than {limit} lines of entries; expected one entry for each "
                f"of the {rows} {shape.noun}s"
            ]
        )
    return read.values


def _keyed_entries(
    fields: IdFields, data: dict[str, Any], ids: Collection[int | str] | None, shape: Shape
) -> list[Any] | None:
    """The entries of an object keyed by id, each value the prediction itself or an object
    holding it (its other fields kept, as a list entry's are); None when it is not one: it
    wraps a list, or (``ids`` given) none of its keys is an id of the rows."""
    if wrapped_list(data, shape.wrappers) is not None:
        return None
    keyed = [(keyed_id(fields, k), v) for k, v in data.items()]
    if ids is not None and not any(ident in ids for ident, _ in keyed):
        return None
    return [
        {**value, fields.id: ident}
        if isinstance(value, dict)
        else {fields.id: ident, shape.prediction: value}
        for ident, value in keyed
    ]


def _levelled_entries(
    fields: IdFields, data: dict[str, Any], ids: Collection[int | str] | None, shape: Shape
) -> list[Any] | None:
    """The entries of an object written by the key's levels (``fields.levels``: the key's own
    structure, each row holding a prediction, or the prediction itself); None when the track
    has no levels, or the object is not written so (or, ``ids`` given, names none of them)."""
    if not fields.levels:
        return None
    try:
        entries = levelled_rows(fields, data, bare=shape.prediction)
    except DataFileError:
        return None
    with_ids(fields, entries)
    if ids is not None and not any(
        isinstance(e, dict) and isinstance(e.get(fields.id), (int, str)) and e[fields.id] in ids
        for e in entries[:SHAPE_LOOK]
    ):
        return None
    return entries


def entries_of(
    fields: IdFields, data: bytes, rows: int, ids: Collection[int | str] | None, shape: Shape
) -> Any:
    """A submission's entries, whatever shape it takes: a JSON list, JSON Lines, an object
    keyed by id or written by the key's levels (``ids``: the rows', to tell such an object from
    another; None takes any object that wraps no list as one). A document that is none of these
    is returned as it is, for the kind's hint; SubmissionError if it is no JSON at all."""
    example = shape.example
    listed = listed_json(data)  # a list: the road of most files
    if listed is not None:
        return listed
    text = read_text(data, f"a JSON list such as [{example}, ...]")
    if text.lstrip().startswith("["):  # a list json_text leaves to json, or no JSON at all
        decoded = read_json(text, example, LINES)
    else:
        decoded = _document(text, rows, shape)
        if isinstance(decoded, list) and len(decoded) == 1 and isinstance(decoded[0], dict):
            only = decoded[0]  # one line: an entry, or an object keyed by id
            named = only.get(fields.id) is not None or fields.join_id(only)
            decoded = decoded if named else only
    if isinstance(decoded, dict):
        entries = _levelled_entries(fields, decoded, ids, shape) or _keyed_entries(
            fields, decoded, ids, shape
        )
        decoded = decoded if entries is None else entries
    return decoded
