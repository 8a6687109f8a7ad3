"""English for messages, once: counts that agree, ordinals, a few examples of many, previews of
what a file holds, and problems grouped by kind.

Every message of the project says what was expected, what was found (with a count and the
first few offending ids) and how to fix it; these are the words it is made of.

>>> agree("3 [entry uses|entries use]", 3), counted(1, "row is", "rows are"), nth(0, "entry")
('3 entries use', '1 row is', 'the 1st entry')
>>> examples(range(1, 15)), preview("a" * 50)
('1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ...', '"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...')
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

MAX_EXAMPLES = 10  # ids quoted per kind of problem

_ONE_OR_MANY = re.compile(r"\[([^|\]]*)\|([^\]]*)\]")


def agree(template: str, n: int) -> str:
    """Resolve each ``[singular|plural]`` in ``template`` for ``n`` things ("1 entry uses")."""
    return _ONE_OR_MANY.sub(lambda m: m.group(1) if n == 1 else m.group(2), template)


def ordinal(n: int) -> str:
    """``n`` as an ordinal: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd, 101st, 111th.

    >>> [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '101st', '111th']
    """
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def counted(count: int, one: str, many: str) -> str:
    """``count`` with the words that agree with it: "1 row is", "3 rows are"."""
    return f"{count} {one if count == 1 else many}"


def nth(index: int, noun: str) -> str:
    """The thing at ``index`` (from 0), counted from 1 as people count: "the 1st entry"."""
    return f"the {ordinal(index + 1)} {noun}"


def short(item: object, width: int = 60) -> str:
    """An id as a message quotes it: whole, or its start and its length when it is long."""
    text = str(item)
    return text if len(text) <= width else f"{text[:20]}...({len(text)} characters)"


def examples(ids: Iterable[object]) -> str:
    """The first few of ``ids``, each short, and "..." when there are more."""
    listed = list(ids)
    shown = ", ".join(short(i) for i in listed[:MAX_EXAMPLES])
    return f"{shown}, ..." if len(listed) > MAX_EXAMPLES else shown


def first_few(items: Iterable[object]) -> str:
    """The first few, in order, each once, whole (release and rotation messages)."""
    listed = list(dict.fromkeys(items))
    shown = ", ".join(str(i) for i in listed[:MAX_EXAMPLES])
    return f"{shown}, ..." if len(listed) > MAX_EXAMPLES else shown


def either(names: Sequence[str]) -> str:
    """'"a"', '"a" or "b"', '"a", "b" or "c"'."""
    quoted = [f'"{n}"' for n in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def json_type(value: Any) -> str:
    """The JSON name of a decoded value's type: "object", "list", "string", "null", ..."""
    names = {
        bool: "boolean",
        int: "integer",
        float: "number",
        str: "string",
        list: "list",
        dict: "object",
        type(None): "null",
    }
    return names.get(type(value), type(value).__name__)


def preview(value: Any, width: int = 40) -> str:
    """A short, safe rendering of an uploaded value for an error message."""
    if isinstance(value, (list, dict)):
        return f"a JSON {json_type(value)}"
    text = json.dumps(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def letters_text(letters: Iterable[str]) -> str:
    """A set of option letters as a range: "A-D"; "none" for none."""
    ordered = sorted(letters)
    return f"{ordered[0]}-{ordered[-1]}" if ordered else "none"


class Problems:
    """Problems grouped by kind, so a message quotes a few examples of each and counts all.

    A kind is a template: ``{n}`` the count, ``{examples}`` the first few, and ``[one|many]``
    words that agree with the count.

    >>> problems = Problems()
    >>> for entry in ("the 2nd entry", "the 5th entry"):
    ...     problems.add("{n} [entry is|entries are] not objects (e.g. {examples})", entry)
    >>> problems.render()
    ['2 entries are not objects (e.g. the 2nd entry, the 5th entry)']
    """

    def __init__(self) -> None:
        self._kinds: dict[str, list[str]] = {}
        self._counts: Counter[str] = Counter()
        self._order: list[str] = []

    def add(self, kind: str, example: str | Callable[[], str]) -> None:
        """One more problem of ``kind``; ``example`` (or what it returns, called only for
        the first few of a kind, which are all a message shows) names where it is."""
        if kind not in self._kinds:
            self._kinds[kind] = []
            self._order.append(kind)
        self._counts[kind] += 1
        kept = self._kinds[kind]
        if len(kept) <= MAX_EXAMPLES:  # one more than shown, for the "..."
            kept.append(example if isinstance(example, str) else example())

    def extend(self, message: str) -> None:
        """A problem that is a whole message already."""
        self._order.append(message)

    def render(self) -> list[str]:
        out = []
        for kind in self._order:
            found = self._kinds.get(kind)
            if found is None:
                out.append(kind)
            else:
                count = self._counts[kind]
                out.append(agree(kind, count).format(n=count, examples=examples(found)))
        return out
