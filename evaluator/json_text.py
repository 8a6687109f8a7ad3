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
    if shape.count(b"[") <= SAFE_DEPTH:  # no deeper than its "[" and "{" (some in strings)
        return _orjson(raw, wrapped=False)
    return _orjson(b"".join((_OPEN, raw, _CLOSE)), wrapped=True)


def _orjson(raw: bytes, *, wrapped: bool) -> Any:
    """The value orjson reads in ``raw`` (unwrapped), or ``NOT_READ`` when ``json`` must read
    it: orjson refuses it, or the wrap is not as it was put (the text closed a list of the wrap
    and opened another: it is not one value)."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return NOT_READ
    if wrapped:
        for _ in range(_WRAP):
            if type(value) is not list or len(value) != 1:
                return NOT_READ
            value = value[0]
    return value
