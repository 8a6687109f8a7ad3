"""Reading a submission, the part every kind shares: its bytes as text and JSON, and its
entries by id (each an object naming one row of the key: none missing, none twice, none
unknown), every problem of the file noted at once.

A kind reads what an entry says about its row (a letter, a decision and a time) with the
``read`` it gives ``read_entries``, and words the messages with its ``EntryWords``. A file that
scores takes a faster road first: ``entry_columns`` reads the ids and fields of every entry
at once, and a kind checks the values it reads there; anything that road cannot take is left
to ``read_entries``, which then says what is wrong, so the messages are ``read_entries``' alone.

>>> from evaluator.messages import Problems
>>> import spec
>>> fields = spec.load_benchmark("egomemreason").track().fields
>>> problems = Problems()
>>> read_id(fields, {"sample_id": 3}, 0, problems), problems.render()
(None, ['1 entry uses "sample_id" (e.g. the 1st entry); rename the field to "example_id"'])
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence, Set
from dataclasses import dataclass, field
from functools import partial
from operator import itemgetter
from typing import Any, TypeVar

from errors import SubmissionError
from evaluator.files import with_ids
from evaluator.json_text import JSON_SPACE, NOT_READ, loads, loads_utf8
from evaluator.messages import Problems, agree, either, examples, json_type, nth, ordinal, preview
from spec.base import IdFields

#: A longer list is refused before its entries are read: a 5 MB list of millions of entries
#: costs seconds of CPU.
MAX_ENTRIES_PER_QUESTION = 4
_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_JSON_SPACE = re.compile(f"[{JSON_SPACE}]*")
_A_LIST = re.compile(f"[{JSON_SPACE}]*\\[".encode())  # a document that opens a list
_DECODER = json.JSONDecoder()
_T = TypeVar("_T")


def read_text(data: bytes, empty: str) -> str:
    """A submission's bytes as text; SubmissionError if the file is empty (``empty``: what it
    should hold, "a JSON list such as [...]"), UTF-16 or not UTF-8."""
    body = data.removeprefix(_UTF8_BOM)
    if not body or body.isspace():  # nothing but ASCII whitespace, which strip() takes away
        raise SubmissionError([f"the file is empty; expected {empty}"])
    if data.startswith(_UTF16_BOMS):
        raise SubmissionError(
            [
                "the file is UTF-16 encoded; save it as UTF-8 (json.dump(..., ensure_ascii=True) "
                "or your editor's 'UTF-8' encoding) and upload it again"
            ]
        )
    try:
        return body.decode("utf-8")  # as "utf-8-sig" decodes (offsets after the BOM), in C
    except UnicodeDecodeError as exc:
        raise SubmissionError(
            [
                f"the file is not UTF-8 text (undecodable byte at offset {exc.start}); save it as "
                "UTF-8 JSON and upload it again"
            ]
        ) from None


def listed_json(data: bytes) -> list[Any] | None:
    """The JSON list a submission's bytes hold, read as ``read_json(read_text(data))`` reads
    it, without decoding them to text first (``json_text.loads_utf8``); None for any other
    file, which ``read_text`` and ``read_json`` then read, or say what is wrong with. The road
    of most files: a file's text was decoded, encoded again and read, three passes over it.

    >>> listed_json(_UTF8_BOM + b' [{"example_id": 1}]'), listed_json(b'{"1": "B"}')
    ([{'example_id': 1}], None)
    """
    body = data.removeprefix(_UTF8_BOM)
    if not _A_LIST.match(body):
        return None
    value = loads_utf8(body)
    return None if value is NOT_READ else value


def read_json(text: str, example: str, also: str = "") -> Any:
    """One JSON document; SubmissionError in the words of a submission's problems (``also``:
    the other form a file may take, ", or JSON Lines with one such object a line")."""
    try:
        return loads(text)
    except json.JSONDecodeError as exc:
        raise SubmissionError(
            [
                f"the file is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
                f"a submission is a JSON list of objects like {example}{also}"
            ]
        ) from None
    except (ValueError, RecursionError) as exc:
        # ValueError: an integer with more digits than Python converts (its own message advises
        # calling sys.set_int_max_str_digits, which means nothing to the person uploading).
        # RecursionError: nesting deeper than the decoder's stack.
        reason = (
            "it is nested too deeply"
            if isinstance(exc, RecursionError)
            else "it holds a number with thousands of digits"
        )
        raise SubmissionError(
            [
                f"the file could not be read as JSON ({reason}); a submission is a flat JSON list "
                f"of objects like {example}"
            ]
        ) from None


def _after_space(text: str, pos: int) -> int:
    """Where the JSON whitespace from ``pos`` ends."""
    match = _JSON_SPACE.match(text, pos)
    return pos if match is None else match.end()


@dataclass(frozen=True)
class JsonLines:
    """What ``json_lines`` read: the values, whether they are all the text's (not cut at the
    limit), and the first line that is not one JSON value, if any: its number (from 1) and the
    error ``json.loads`` gives for it alone (the values are then those before it)."""

    values: list[Any]
    complete: bool = True
    bad_line: int | None = None
    error: ValueError | RecursionError | None = None


def json_lines(text: str, limit: int) -> JsonLines:
    r"""The values of JSON Lines text, one a line, lines blank to ``str.strip`` skipped: the
    first ``limit`` + 1 of them at most, and whether that is all of them; or where the first
    line that is not one JSON value is, and what ``json.loads`` of that line alone says.

    Each value is parsed where it lies and blank lines are skipped by one regular expression,
    so the cost is the parse of the values read, never a Python step per line.

    >>> json_lines('{"a": 1}\n\n[2]\n', 10).values
    [{'a': 1}, [2]]
    >>> json_lines("0\n" * 5, 2).complete
    False
    >>> read = json_lines('{"a": 1}\n{"a":\n1}', 10)
    >>> read.bad_line, str(read.error)
    (2, 'Expecting value: line 1 column 6 (char 5)')
    """
    values: list[Any] = []
    end_of_text = len(text)
    pos = _after_space(text, 0)
    while pos < end_of_text:
        if len(values) > limit:
            return JsonLines(values, complete=False)
        try:
            value, end = _DECODER.raw_decode(text, pos)
            gap = _after_space(text, end)
            one_line = "\n" not in text[pos:end] and (gap == end_of_text or "\n" in text[end:gap])
        except (ValueError, RecursionError):
            one_line = False
        if one_line:
            values.append(value)
            pos = gap
            continue
        start = text.rfind("\n", 0, pos) + 1
        stop = text.find("\n", pos)
        stop = end_of_text if stop < 0 else stop
        line = text[start:stop]
        if line.strip():  # not a blank line such as a form feed, which JSON does not skip
            try:
                values.append(json.loads(line))
            except (ValueError, RecursionError) as exc:
                return JsonLines(values, bad_line=text.count("\n", 0, start) + 1, error=exc)
        pos = _after_space(text, stop)
    return JsonLines(values)


def wrapped_list(data: Any, wrappers: Sequence[str]) -> str | None:
    """The name of the list an object wraps the entries in ("predictions"), if it does."""
    if isinstance(data, dict):
        return next((n for n in wrappers if isinstance(data.get(n), list)), None)
    return None


@dataclass(frozen=True)
class EntryWords:
    """How a kind's messages name its rows and entries."""

    noun: str  # a row of the key: "question", "episode"
    shape: str  # an entry: '{"example_id": ..., "predicted_answer": ...}'
    unknown: str  # after "not in the answer key (...)": where the valid ids are
    missing: str  # after "expected one entry for each of the N questions": how to abstain
    #: A field an entry may carry instead of the id -> what it is and what to use instead (the
    #: spec's hints: "sample_id is not the id ..."); it replaces the hint to rename an alias.
    look_alikes: Mapping[str, str] = field(default_factory=dict)


def read_id(
    fields: IdFields,
    entry: dict[str, Any],
    position: int,
    problems: Problems,
    look_alikes: Mapping[str, str] | None = None,
) -> int | str | None:
    """The entry's id if it has one of the right type, else None (the problem noted); an
    entry that carries a look-alike of the id (``look_alikes``, the spec's hints) is told what
    that field is instead of to rename it."""
    name = fields.id
    if name not in entry:
        if told_of_a_stand_in(
            entry, name, look_alikes or {}, fields.id_aliases, position, problems
        ):
            return None
        missing = (
            f"no {either(fields.id_parts).replace(' or ', ' and ')} (the fields its id is made of)"
            if fields.id_parts
            else f'no "{name}"'
        )
        problems.add(
            f"{{n}} [entry has|entries have] {missing} (e.g. the {{examples}} [entry|entries])",
            lambda: ordinal(position + 1),
        )
        return None
    ident = entry[name]
    if fields.is_id(ident):
        found: int | str = ident
        return found
    if fields.id_type == "integer":
        problems.add(
            f'{{n}} [entry has|entries have] an "{name}" that is not an integer '
            '(e.g. {examples}); write ids as JSON numbers, e.g. 17, not "17"',
            lambda: f"{nth(position, 'entry')}: {preview(ident)}",
        )
    else:
        problems.add(
            f'{{n}} [entry has|entries have] an "{name}" that is not a non-empty string '
            "(e.g. {examples}); write ids as JSON strings, exactly as in the public file",
            lambda: f"{nth(position, 'entry')}: {preview(ident)}",
        )
    return None


def told_of_a_stand_in(
    entry: Mapping[str, Any],
    name: str,
    look_alikes: Mapping[str, str],
    aliases: Collection[str],
    position: int,
    problems: Problems,
) -> bool:
    """Whether the entry, lacking the field ``name``, carries a stand-in for it, the problem
    noted: a look-alike the spec's hints describe (told what it is), or an alias (told to
    rename it). The id and each kind's answer field are read with it."""
    for alike, hint in look_alikes.items():
        if alike in entry:
            problems.add(
                f'{{n}} [entry has|entries have] "{alike}" but no "{name}" (e.g. the '
                f"{{examples}} [entry|entries]): {_braces(hint)}",
                lambda: ordinal(position + 1),
            )
            return True
    for alias in aliases:
        if alias in entry:
            problems.add(
                f'{{n}} [entry uses|entries use] "{alias}" (e.g. the {{examples}} '
                f'[entry|entries]); rename the field to "{name}"',
                lambda: ordinal(position + 1),
            )
            return True
    return False


def _braces(text: str) -> str:
    """``text`` inside a ``Problems`` template: its braces doubled."""
    return text.replace("{", "{{").replace("}", "}}")


def _uses_an_id_alias(fields: IdFields, entry: object, look_alikes: Collection[str]) -> bool:
    return (
        isinstance(entry, dict)
        and fields.id not in entry
        and any(alias in entry for alias in (*look_alikes, *fields.id_aliases))
    )


def _shifted(ident: int | str, by: int) -> int | str | None:
    """An id with its number moved by ``by``: an integer id, or the number a string id ends
    with ("v1_0" -> "v1_1"); None when it has none to move."""
    if isinstance(ident, int):
        return ident + by
    match = re.search(r"\d+$", ident)
    if match is None or int(match.group()) + by < 0:
        return None
    return ident[: match.start()] + str(int(match.group()) + by)


def shift_problem(
    name: str, named: Collection[int | str], ids: Collection[int | str]
) -> str | None:
    """A message when the ids an entry list names are the key's moved by one (numbered from 0
    where the key numbers from 1, or the other way round), None otherwise.

    >>> shift_problem("example_id", [0, 1, 2], [1, 2, 3])  # doctest: +ELLIPSIS
    'the example_ids look shifted by one: the file names 0, 1, 2 where the answer key has 1, ...
    """
    wanted, given = set(ids), set(named)
    if not given or given == wanted or len(given) != len(wanted):
        return None
    for by in (1, -1):
        moved = {_shifted(i, by) for i in given}
        if moved == wanted:
            pairs = sorted(given, key=lambda i: (isinstance(i, str), i))[:3]
            return (
                f"the {name}s look shifted by one: the file names {examples(pairs)} where the "
                f"answer key has {examples(_shifted(i, by) for i in pairs)}; number them as "
                "the public file does (it counts from "
                f"{'1' if by == 1 else '0'} where the file counts from {'0' if by == 1 else '1'})"
            )
    return None


def check_count(entries: Sequence[Any], rows: int, words: EntryWords) -> None:
    """SubmissionError for an empty list, or one too long to read (before reading it)."""
    if not entries:
        raise SubmissionError(
            [f"the list is empty; expected one entry for each of the {rows} {words.noun}s"]
        )
    if len(entries) > MAX_ENTRIES_PER_QUESTION * rows:
        raise SubmissionError(
            [
                f"the list has {len(entries)} entries; expected one entry for each of the {rows} "
                f"{words.noun}s"
            ]
        )


def in_order(
    ids: Sequence[int | str], order: Sequence[int | str], *columns: Sequence[Any]
) -> list[Sequence[Any]]:
    """Columns read in the entries' order (``ids``) rearranged into ``order``, the same ids in
    the key's order; as they are when the file already follows the key.

    >>> in_order([2, 1], (1, 2), ["b", "a"], [20, 10])
    [['a', 'b'], [10, 20]]
    """
    if tuple(ids) == tuple(order):
        return list(columns)
    at = {ident: n for n, ident in enumerate(ids)}
    positions = [at[ident] for ident in order]
    return [[column[n] for n in positions] for column in columns]


def _which_entry(position: int, entry: object) -> str:
    """'the 3rd entry (string)': where an entry that is not an object is, and what it is."""
    return f"{nth(position, 'entry')} ({json_type(entry)})"


def read_entries(
    fields: IdFields,
    ids: Collection[int | str],
    entries: Sequence[Any],
    read: Callable[[dict[str, Any], int, int | str | None, Problems], tuple[bool, _T]],
    words: EntryWords,
) -> dict[int | str, _T]:
    """Each row's value, read from the entry that names it by ``read(entry, position, id or
    None, problems)`` (``(usable, value)``); SubmissionError lists every problem at once: entries
    that are not objects or name no id, ids unknown, repeated or missing, and what ``read``
    noted. ``read`` runs on every object, so each of its problems is counted."""
    problems = Problems()
    out: dict[int | str, _T] = {}
    seen: Counter[int | str] = Counter()
    unknown: list[int | str] = []
    shape = _braces(words.shape)
    with_ids(fields, entries)
    for position, entry in enumerate(entries):
        if not isinstance(entry, dict):
            problems.add(
                "{n} [entry is|entries are] not [a JSON object|JSON objects] "
                f"(e.g. {{examples}}); each entry must be {shape}",
                partial(_which_entry, position, entry),
            )
            continue
        ident = read_id(fields, entry, position, problems, words.look_alikes)
        if ident is not None:
            seen[ident] += 1
            if ident not in ids:
                unknown.append(ident)
                ident = None
            elif seen[ident] > 1:
                ident = None  # reported once below as a duplicate
        usable, value = read(entry, position, ident, problems)
        if ident is not None and usable:
            out[ident] = value
    name, noun = fields.id, words.noun
    dupes = sorted(i for i, n in seen.items() if n > 1 and i in ids)
    if dupes:
        problems.extend(
            agree(f"{len(dupes)} [{noun} is|{noun}s are]", len(dupes))
            + f" answered more than once ({examples(dupes)}); keep one entry per {name}"
        )
    if unknown:
        listed = sorted(set(unknown))
        problems.extend(
            agree(f"{len(listed)} [{name} is|{name}s are]", len(listed))
            + f" not in the answer key ({examples(listed)}); valid ids are {words.unknown}"
        )
    missing = [i for i in ids if i not in seen]
    # When every entry names its row by another field, that is the one problem to fix.
    if missing and not all(_uses_an_id_alias(fields, e, words.look_alikes) for e in entries):
        missing.sort()
        problems.extend(
            agree(f"{len(missing)} [{noun} has|{noun}s have]", len(missing))
            + f" no answer ({examples(missing)}); expected one entry for each of the "
            f"{len(ids)} {noun}s ({words.missing})"
        )
    rendered = problems.render()
    if rendered:
        shifted = shift_problem(name, seen, ids) if unknown else None
        raise SubmissionError([shifted, *rendered] if shifted else rendered)
    return out


def entry_columns(
    fields: IdFields, ids: Set[int | str], entries: Sequence[Any], names: Sequence[str]
) -> tuple[list[int | str], list[list[Any]]] | None:
    """The road of a file ``read_entries`` would accept as to ids: every entry an object with
    an id of the right type and each field of ``names``, every row of ``ids`` (in the rows'
    order: a dict's keys) named exactly once. Then the ids and each field's values, in the
    entries' order; otherwise None (and ``read_entries`` says what is wrong). Each step runs
    over all entries at once."""
    if len(entries) != len(ids):
        return None
    with_ids(fields, entries)
    try:
        named = list(map(itemgetter(fields.id), entries))
        columns = [list(map(itemgetter(name), entries)) for name in names]
    except (KeyError, TypeError):  # an entry that is not an object, or lacks a field
        return None
    # The type first: True and 1.0 are equal to 1, and hash alike.
    if set(map(type, named)) != {int if fields.id_type == "integer" else str}:
        return None
    # As many entries as rows: none unknown, none twice, none missing. A file in the rows' own
    # order (most are) is told so without hashing every id.
    if named != list(ids) and set(named) != ids:
        return None
    return named, columns
