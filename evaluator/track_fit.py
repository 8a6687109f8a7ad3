"""Which track of a benchmark a submission's entries are written for, told by its fields, and
how a message names a track's entries (``entry_shape``): the Score tab's "Detect from the file"
and the scripts' choice of a track when none is given read the file this one way, so the page,
``/score`` and the scripts name the same track in the same words.

A file keyed by id (``{"<id>": {"predicted_answer": "B"}, ...}`` or ``{"<id>": "B"}``) is read
through each track's kind (``keyed_entry``): its keys must be shaped as the track's ids and its
values be objects or the track's predictions. Only the first entries are read
(``SHAPE_SAMPLE``), of a JSON Lines file only so many lines (``LINES_TRIED``), read or not, and
nothing past the file's first ``SAMPLE_BYTES``: a guess never parses the whole file (a 5 MB list
of 1.7 million empty lists took ~0.8 s to parse whole; issue 30), whatever it holds.

>>> import spec
>>> bench = spec.load_benchmark("egoargus")
>>> fitting_track(bench, b'[{"example_id": "ep-1", "assist": true}]').id
'decision'
>>> fitting_track(bench, b'{"mmg-000001": {"predicted_answer": "B"}}').id
'understanding'
>>> fitting_track(bench, b"[]") is None
True
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from evaluator.json_text import JSON_SPACE
from evaluator.kinds import kind_of
from spec import Benchmark, Track

SHAPE_SAMPLE = 200  # entries a guess of the file's track reads
LINES_TRIED = 4 * SHAPE_SAMPLE  # lines of JSON Lines it parses at most, read or not
SAMPLE_BYTES = 128 * 1024  # of the file's start, the most a guess parses (~25 ms at worst)
#: A line's text from its first character that is not whitespace: blank lines are skipped in
#: one scan, never one Python step each.
_FILLED_LINE = re.compile(r"\S[^\n]*")
_SPACE = re.compile(f"[{JSON_SPACE}]*")
_DECODER = json.JSONDecoder()


def _head(data: bytes) -> str | None:
    """The file's first ``SAMPLE_BYTES`` as text (a character the cut splits left out); None
    if they are not UTF-8."""
    head = data[:SAMPLE_BYTES]
    try:
        return head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if len(head) < len(data) and exc.start >= len(head) - 3:  # the cut split a character
            return head[: exc.start].decode("utf-8-sig")
        return None


def _value(text: str, at: int) -> tuple[Any, int] | None:
    """The JSON value at ``at`` (after any whitespace) and where it ends; None if there is
    none whole in ``text``."""
    at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
    try:
        return _DECODER.raw_decode(text, at)
    except (ValueError, RecursionError):
        return None


def _next(text: str, at: int) -> tuple[str, int]:
    """The character at ``at`` after any whitespace ("" at the end), and the position past it."""
    at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
    return text[at : at + 1], at + 1


def _items(text: str, at: int) -> tuple[list[Any], int | None]:
    """The first SHAPE_SAMPLE items of the list whose "[" is before ``at``, those whole in
    ``text``; and where the list ends (None if not in ``text``, or past the sample)."""
    items: list[Any] = []
    if _next(text, at)[0] == "]":
        return items, _next(text, at)[1]
    while len(items) < SHAPE_SAMPLE:
        found = _value(text, at)
        if found is None:
            return items, None
        items.append(found[0])
        mark, at = _next(text, found[1])
        if mark != ",":
            return items, at if mark == "]" else None
    return items, None


def _members(text: str, at: int) -> tuple[list[tuple[str, Any]], list[Any] | None, int | None]:
    """The members of the object whose "{" is before ``at``, those whole in ``text`` (a list
    value sampled by ``_items``); the first list value, if one is; where the object ends."""
    members: list[tuple[str, Any]] = []
    if _next(text, at)[0] == "}":
        return members, None, _next(text, at)[1]
    while True:
        name = _value(text, at)
        if name is None or not isinstance(name[0], str):
            return members, None, None
        mark, at = _next(text, name[1])
        if mark != ":":
            return members, None, None
        mark, start = _next(text, at)
        if mark == "[":  # {"results": [...]}: what the list holds tells
            items, _ = _items(text, start)
            return members, items, None
        found = _value(text, at)
        if found is None:
            return members, None, None
        members.append((name[0], found[0]))
        mark, at = _next(text, found[1])
        if mark != ",":
            return members, None, at if mark == "}" else None


def _lines(text: str) -> list[Any]:
    """The first entries of JSON Lines: SHAPE_SAMPLE values at most, of LINES_TRIED lines."""
    decoded: list[Any] = []
    for tried, line in enumerate(_FILLED_LINE.finditer(text)):
        if len(decoded) >= SHAPE_SAMPLE or tried >= LINES_TRIED:
            break
        try:
            decoded.append(json.loads(line.group()))
        except (ValueError, RecursionError):
            continue
    return decoded


def _entries(data: bytes) -> tuple[list[dict[str, Any]], list[tuple[str, Any]]]:
    """The first entries of a submission (a JSON list, a list inside an object, or JSON
    Lines), and of an object that wraps no list its first items (it may be keyed by id; as one
    object it is an entry too); none if the file is none of these. Only the file's first
    ``SAMPLE_BYTES`` are parsed: a value that does not end within them is not read."""
    text = _head(data)
    if text is None:
        return [], []
    first, at = _next(text, 0)
    keyed: list[tuple[str, Any]] = []
    decoded: list[Any]
    if first == "[":
        decoded = _items(text, at)[0]
    elif first == "{":
        members, listed, end = _members(text, at)
        if end is not None and _next(text, end)[0]:  # another value follows: JSON Lines
            decoded = _lines(text)
        elif listed is not None:
            decoded = listed
        else:
            keyed = members[:SHAPE_SAMPLE]
            decoded = [dict(members)]
    else:
        decoded = _lines(text)
    return [e for e in decoded[:SHAPE_SAMPLE] if isinstance(e, dict)], keyed


def entry_shape(track: Track) -> str:
    """An entry of the track's submissions, as a message names it: "example_id/assist/..."."""
    return "/".join(kind_of(track).entry_fields(track))


def fitting_track(bench: Benchmark, data: bytes) -> Track | None:
    """The track whose entries the file's are, told by the fields only that track's entries
    carry (its kind's ``own_fields``), in the file's entries or in those an object keyed by id
    stands for as the track's kind reads one (``keyed_entry``: ids of the track's shape, values
    that are objects or its predictions); None if the file's entries carry no track's, or as
    many of two tracks' (then the visitor names the track)."""
    entries, keyed = _entries(data)

    def votes(track: Track) -> int:
        kind = kind_of(track)
        own = kind.own_fields(track)
        read = [*entries, *(kind.keyed_entry(track, name, value) for name, value in keyed)]
        return sum(e is not None and any(f in e for f in own) for e in read)

    counted = Counter({t.id: votes(t) for t in bench.tracks})
    ranked = counted.most_common(2)
    if not ranked or ranked[0][1] == 0 or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return None
    return bench.track(ranked[0][0])
