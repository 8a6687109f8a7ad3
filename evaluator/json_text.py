"""JSON text read into Python values: ``json.loads``' answer, at orjson's speed.

``loads(text)`` returns exactly what ``json.loads(text)`` returns, or raises exactly what it
raises (so every message built from its error is unchanged), but reads the text with orjson
(installed with Gradio, pinned in requirements.txt) whenever orjson is sure to agree, which it
is for every file people upload. Where the two differ, ``json`` decides; each difference is
pinned by a test in tests/evaluator/test_json_text.py:

- orjson refuses what ``json`` reads: ``NaN``, ``Infinity`` and numbers beyond a float's range
  (``json``: nan, inf; an integer of 4,000 digits), lone surrogates such as ``"\\ud800"``;
  such a document is read again by ``json``, which takes it or refuses it as it always did;
- orjson reads an integer of more than 64 bits as a float (``json``: the integer): a text with
  19 digits in a row (the shortest such integer, -9223372036854775809) is ``json``'s to read;
- orjson reads documents nested up to 1,024 deep, ``json`` as deep as Python's recursion limit
  leaves room for (under 1,000, fewer in a deep call): a document nested deeper than
  ``SAFE_DEPTH`` is ``json``'s to read (it refuses it with a RecursionError, as before). A
  text with no more "[" and "{" than that is no deeper; any other is read by orjson inside
  ``_WRAP`` lists of one item each, so that its own limit refuses a document deeper than
  ``SAFE_DEPTH``;
- a text that is not one JSON value (an error anywhere) is ``json``'s to refuse, with its
  message and position.

orjson reads a text into one buffer sized for the worst case, ~12 times the text: for a big
text it is mapped afresh and faulted in on every read (60 MB for a 5 MB upload, past glibc's
largest mmap threshold, 32 MB), and its reading outgrows the CPU's caches. So a text over
twice ``PIECE_BYTES`` that is one JSON list is read a piece of about that size at a time, each
cut after an object that ends an item (``_pieces``); a piece that does not read as whole items
(the cut fell in a string or a nested object) sends the text to be read whole, as any other is.

Duplicate keys (the last one wins, in the first one's place), the characters JSON allows in
strings, whitespace and floats (correctly rounded) agree.

>>> loads('[{"example_id": 1, "predicted_answer": "B"}]')
[{'example_id': 1, 'predicted_answer': 'B'}]
>>> loads("[NaN, 18446744073709551616]")
[nan, 18446744073709551616]
>>> loads('[1] [2]')
Traceback (most recent call last):
...
json.decoder.JSONDecodeError: Extra data: line 1 column 5 (char 4)
"""

from __future__ import annotations

import json
from typing import Any

import orjson

ORJSON_DEPTH = 1024  # the deepest document orjson reads (a test pins it)
#: The deepest document orjson reads here: far under any depth ``json`` refuses, whatever the
#: stack under the call.
SAFE_DEPTH = 512
_WRAP = ORJSON_DEPTH - SAFE_DEPTH
_OPEN, _CLOSE = b"[" * _WRAP, b"]" * _WRAP
#: What ``loads`` keeps of a text to look at it, in one pass: each digit as "0", each "[" or
#: "{" as "[", what can end a number ("," ":" "." "e" "E" "-" "+" "]" "}" ...) as " "; other
#: letters, quotes, whitespace and non-ASCII bytes are dropped. A run of digits in the text is
#: a run as long or longer in what is kept (a dropped character may join two runs, in a string).
_KEEP = bytes(48 if chr(b).isdigit() else 91 if b in b"[{" else 32 for b in range(256))
_DROP = bytes(
    b
    for b in range(256)
    if b >= 128 or chr(b) in ' \t\r\n"_\\' or (chr(b).isalpha() and chr(b) not in "eE")
)
#: The shortest integer orjson turns into a float has 19 digits (-9223372036854775809).
_LONG_NUMBER = b"0" * 19
#: About how much of a long JSON list orjson reads at a time (its buffer for a piece, ~3 MB,
#: comes from the heap and is used again).
PIECE_BYTES = 256 * 1024
JSON_SPACE = " \t\n\r"  # what JSON counts as whitespace
_SPACE_BYTES = JSON_SPACE.encode()


def loads(text: str) -> Any:
    """``json.loads(text)``: its value, or its exception (see the module's docstring)."""
    value = _read(text.encode("utf-8", "surrogatepass"))
    return json.loads(text) if value is NOT_READ else value


def loads_utf8(raw: bytes) -> Any:
    """``loads(raw.decode("utf-8"))``'s value, read from the bytes as they are (not decoded
    first: orjson checks that they are UTF-8 as it reads them); ``NOT_READ`` for a text it does
    not read so (not UTF-8, or any text ``loads`` hands to ``json``: no JSON, a long number...):
    then decode it and call ``loads``, whose error says what is wrong.

    >>> loads_utf8(b'[{"example_id": 1}]'), loads_utf8(b"[NaN]") is NOT_READ
    ([{'example_id': 1}], True)
    >>> loads_utf8(b'["\\xe9"]') is NOT_READ, loads_utf8('["é"]'.encode()) == ["é"]
    (True, True)
    """
    return _read(raw)


#: What ``loads_utf8`` returns for a text it leaves to ``loads``; inside, a text orjson left.
NOT_READ = object()


def _read(raw: bytes) -> Any:
    """The value orjson reads in ``raw`` (a text's UTF-8 bytes) where it agrees with ``json``,
    or ``NOT_READ``."""
    shape = raw.translate(_KEEP, _DROP)
    if _LONG_NUMBER in shape:
        return NOT_READ
    # No deeper than its "[" and "{" (some in strings); any other is read inside the wrap.
    wrapped = shape.count(b"[") > SAFE_DEPTH
    if len(raw) > 2 * PIECE_BYTES:
        value = _pieces(raw, wrapped=wrapped)
        if value is not NOT_READ:
            return value
    return _orjson(raw, wrapped=wrapped)


def _orjson(*parts: bytes | memoryview, wrapped: bool) -> Any:
    """The value orjson reads in the text ``parts`` make (inside ``_WRAP`` lists when
    ``wrapped``), or ``NOT_READ`` when ``json`` must read it: orjson refuses it, or the wrap is
    not as it was put (the text closed a list of the wrap and opened another: it is not one
    value)."""
    text = b"".join((_OPEN, *parts, _CLOSE) if wrapped else parts)  # one part: no copy
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return NOT_READ
    if wrapped:
        for _ in range(_WRAP):
            if type(value) is not list or len(value) != 1:
                return NOT_READ
            value = value[0]
    return value


def _pieces(raw: bytes, *, wrapped: bool) -> Any:
    """The JSON list ``raw`` holds, its items read a piece at a time, each piece ending at the
    first "}," past ``PIECE_BYTES`` (that "}" the end of an item, the "," between two); or
    ``NOT_READ`` when the text is no list, has no such cut, or a piece does not read as one or
    more whole items (a cut in a string or a nested object leaves a string or a list open; a
    piece of no item is a stray comma): then the whole text is read. A piece that reads is a
    run of the list's items, so the pieces together are the list."""
    start = len(raw) - len(raw.lstrip(_SPACE_BYTES))
    end = len(raw.rstrip(_SPACE_BYTES)) - 1  # the list's "]"
    if raw[start : start + 1] != b"[" or raw[end : end + 1] != b"]":
        return NOT_READ
    text = memoryview(raw)
    items: list[Any] = []
    start += 1
    while True:
        cut = raw.find(b"},", start + PIECE_BYTES, end)
        if cut < 0 and not items:
            return NOT_READ  # one piece: the whole text
        stop = end if cut < 0 else cut + 1
        piece = _orjson(b"[", text[start:stop], b"]", wrapped=wrapped)
        if type(piece) is not list or not piece:
            return NOT_READ
        items += piece
        if cut < 0:
            return items
        start = stop + 1
