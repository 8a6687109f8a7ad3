"""What every kind asks of a public file's rows before its own checks: that there are rows,
each an object with an id of the track's type; and how a release's messages name a row.

>>> import spec
>>> fields = spec.load_benchmark("egomemreason").track().fields
>>> for problem in row_problems(fields, [{"example_id": 1}, [2], {"example_id": "3"}]):
...     print(problem)
1 row of the public file is not an object (the 2nd row)
1 row of the public file has no example_id that is an integer (the 3rd row)
>>> where(fields, {"example_id": 7}, 0), where(fields, {}, 4)
(7, 'the 5th row')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evaluator.messages import counted, first_few, nth
from spec.base import IdFields


def where(fields: IdFields, record: Mapping[str, Any], index: int) -> object:
    """A row's id for a message, or its position when it has no usable id."""
    ident = record.get(fields.id)
    return ident if fields.is_id(ident) else nth(index, "row")


def has(n: int) -> str:
    """The verb that agrees with ``n`` rows: "has" or "have"."""
    return "has" if n == 1 else "have"


def row_problems(fields: IdFields, records: Sequence[Any]) -> list[str]:
    """A public file without rows, its rows that are not objects, and those without an id of
    the track's type."""
    if not records:
        return ["the public file has no rows"]
    not_objects = [i for i, r in enumerate(records) if not isinstance(r, dict)]
    problems = []
    if not_objects:
        problems.append(
            f"{counted(len(not_objects), 'row', 'rows')} of the public file "
            f"{'is not an object' if len(not_objects) == 1 else 'are not objects'} "
            f"({first_few(nth(i, 'row') for i in not_objects)})"
        )
    kind = "an integer" if fields.id_type == "integer" else "a non-empty string"
    bad_id = [
        nth(i, "row")
        for i, r in enumerate(records)
        if isinstance(r, dict) and not fields.is_id(r.get(fields.id))
    ]
    if bad_id:
        problems.append(
            f"{counted(len(bad_id), 'row', 'rows')} of the public file {has(len(bad_id))} no "
            f"{fields.id} that is {kind} ({first_few(bad_id)})"
        )
    return problems
