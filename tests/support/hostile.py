"""Hostile submission files: what a careless or malicious visitor can upload within 5 MB.

Each builder takes a real, valid submission (bytes) and returns the hostile variant. Shared by
tests/app/test_fuzz.py (every one must give the domain error, in process and over HTTP) and by the
bench (the slowest of them is the worst case one upload can cost the server).
"""

from __future__ import annotations

import json
from collections.abc import Callable

LIMIT = 5 * 1024 * 1024  # the Space's upload limit (guard.MAX_FILE_SIZE, "5mb")
UNDER = LIMIT - 64 * 1024  # comfortably inside it, multipart overhead included


def _entries(valid: bytes) -> list[dict[str, object]]:
    entries = json.loads(valid)
    assert isinstance(entries, list)
    return entries


def _fill(unit: bytes, head: bytes = b"[", tail: bytes = b"0]", size: int = UNDER) -> bytes:
    """``head`` + ``unit`` repeated to about ``size`` bytes + ``tail``."""
    return head + unit * ((size - len(head) - len(tail)) // len(unit)) + tail


def truncated(valid: bytes) -> bytes:
    return valid[: len(valid) * 2 // 3]


def deeply_nested(valid: bytes) -> bytes:
    return b"[" * 200_000 + b"]" * 200_000


def nested_in_entry(valid: bytes) -> bytes:
    return valid.replace(
        b'"predicted_answer": "A"', b'"predicted_answer": ' + b"[" * 100_000 + b"]" * 100_000, 1
    )


def huge_integer_ids(valid: bytes) -> bytes:
    """Ids of 4,000 digits: below Python's conversion limit, so they parse, and are unknown."""
    huge = "9" * 4000
    return (
        "["
        + ",".join(f'{{"example_id": {huge}{i}, "predicted_answer": "A"}}' for i in range(200))
        + "]"
    ).encode()


def huge_floats(valid: bytes) -> bytes:
    return valid.replace(b'"example_id": 1,', b'"example_id": 1e999,', 1).replace(
        b'"example_id": 2,', b'"example_id": -1e999,', 1
    )


def nan_everywhere(valid: bytes) -> bytes:
    return valid.replace(b'"A"', b"NaN").replace(b'"B"', b"Infinity")


def duplicate_keys(valid: bytes) -> bytes:
    """Every entry names its id twice; JSON keeps the last, which is never a known id."""
    return valid.replace(b'"predicted_answer"', b'"example_id": 999999, "predicted_answer"')


def duplicate_entries(valid: bytes) -> bytes:
    """The same 500 answers over and over, to just under the limit."""
    body = valid.strip()[1:-1] + b","
    return _fill(body, tail=body[:-1] + b"]")


def utf8_bom_twice(valid: bytes) -> bytes:
    return b"\xef\xbb\xbf\xef\xbb\xbf" + valid


def utf16_no_bom(valid: bytes) -> bytes:
    return valid.decode().encode("utf-16-le")


def utf32(valid: bytes) -> bytes:
    return valid.decode().encode("utf-32")


def latin1_text(valid: bytes) -> bytes:
    return valid.replace(b'"A"', '"Â"'.encode("latin-1"))


def shift_jis_text(valid: bytes) -> bytes:
    return valid.replace(b'"A"', '"回答"'.encode("shift_jis"))


def lone_surrogates(valid: bytes) -> bytes:
    return valid.replace(b'"A"', b'"\\ud800"').replace(b'"example_id": 7,', b'"\\udfff": 7,')


def nul_bytes(valid: bytes) -> bytes:
    return valid.replace(b",", b",\x00", 3)


def whitespace_5mb(valid: bytes) -> bytes:
    return b" \n\t\r" * (UNDER // 4)


def whitespace_then_valid(valid: bytes) -> bytes:
    """Valid JSON that is not a valid submission: every question missing."""
    return b" " * (UNDER - 4) + b"[{}]"


def million_zeros(valid: bytes) -> bytes:
    """Over two million entries that are not objects: the most problems per byte."""
    return _fill(b"0,")


def million_empty_objects(valid: bytes) -> bytes:
    return _fill(b"{},", tail=b"{}]")


def unknown_ids(valid: bytes) -> bytes:
    """Every id unknown, all different: the largest set of ids to sort and report."""
    parts, size, i = [], 2, 10_000
    while size < UNDER:
        part = f'{{"example_id":{i},"predicted_answer":"A"}}'
        parts.append(part)
        size += len(part) + 1
        i += 1
    return ("[" + ",".join(parts) + "]").encode()


def long_answer(valid: bytes) -> bytes:
    entries = _entries(valid)
    entries[0]["predicted_answer"] = "A" + " A" * (UNDER // 2 - 1000)
    return json.dumps(entries).encode()


def long_key_names(valid: bytes) -> bytes:
    entries = _entries(valid)
    entries[0]["k" * (UNDER - len(valid) - 1000)] = 1
    return json.dumps(entries).encode()


BUILDERS: dict[str, Callable[[bytes], bytes]] = {
    fn.__name__.replace("_", "-"): fn
    for fn in (
        truncated,
        deeply_nested,
        nested_in_entry,
        huge_integer_ids,
        huge_floats,
        nan_everywhere,
        duplicate_keys,
        duplicate_entries,
        utf8_bom_twice,
        utf16_no_bom,
        utf32,
        latin1_text,
        shift_jis_text,
        lone_surrogates,
        nul_bytes,
        whitespace_5mb,
        whitespace_then_valid,
        million_zeros,
        million_empty_objects,
        unknown_ids,
        long_answer,
        long_key_names,
    )
}
