"""evaluator.json_text.loads is json.loads, value for value and error for error, read by orjson.

Each way orjson differs from ``json`` has a case here: the case shows that orjson alone differs
(so an upgrade that changes it is noticed) and that ``loads`` answers as ``json`` does. Every
text goes through both roads of ``loads``: as it is, and padded past ``SAFE_DEPTH`` characters
(read inside the wrap); and a list, read a piece at a time (``PIECE_BYTES`` made small).
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evaluator
import spec
from evaluator import json_text
from evaluator.json_text import NOT_READ, ORJSON_DEPTH, SAFE_DEPTH, loads, loads_utf8

#: Before a text inside a list, more "[" than SAFE_DEPTH: read inside the wrap.
PAD = "[" + "[]," * SAFE_DEPTH


def padded(text: str) -> str:
    """The text as the last item of a list of many empty lists: read inside the wrap."""
    return f"{PAD}{text}]"


def same(a: Any, b: Any) -> bool:
    """Equal, with the same types all the way down (1 is not 1.0 nor True), NaN equal to NaN
    and keys in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b)
        )
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def outcome(read: Any, text: str | bytes) -> tuple[str, Any]:
    """What ``read(text)`` gives: ("value", it) or ("error", its type and message)."""
    try:
        return "value", read(text)
    except (ValueError, RecursionError) as exc:
        return "error", (type(exc).__name__, str(exc))


def agrees(text: str) -> bool:
    """``loads`` answers as ``json.loads`` does, and ``loads_utf8`` of the text's bytes gives
    the same value or leaves the text to ``loads``."""
    mine, theirs = outcome(loads, text), outcome(json.loads, text)
    if mine[0] != theirs[0]:
        return False
    if not bytes_agree(text, theirs):
        return False
    return same(mine[1], theirs[1]) if mine[0] == "value" else mine[1] == theirs[1]


def bytes_agree(text: str, theirs: tuple[str, Any]) -> bool:
    """``loads_utf8`` of the text's UTF-8 bytes: ``json.loads``' value, or NOT_READ."""
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no UTF-8 file holds this text
        return True
    value = loads_utf8(raw)
    return value is NOT_READ or (theirs[0] == "value" and same(value, theirs[1]))


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


#: Where orjson alone answers otherwise than json: (text, what orjson does instead).
DIFFERENCES = {
    "nan": ("[NaN]", "refuses"),
    "infinity": ("[Infinity, -Infinity]", "refuses"),
    "beyond-a-float": ("[1e400, -1e999]", "refuses"),
    "integer-beyond-64-bits": ("[18446744073709551616]", "a float"),
    "integer-below-64-bits": ("[-9223372036854775809]", "a float"),
    "integer-of-400-digits": ("[" + "9" * 400 + "]", "refuses"),
    "integer-of-4000-digits": ("[" + "9" * 4000 + "]", "refuses"),  # json: the integer
    "integer-past-python-s-limit": ("[" + "9" * 5000 + "]", "refuses"),  # json: ValueError
    "lone-surrogate": ('["\\ud800"]', "refuses"),
    "surrogates-reversed": ('["\\ude00\\ud83d"]', "refuses"),
    "nested-1000-deep": (nested(1000), "reads"),  # json: RecursionError
    "nested-1024-deep-in-an-entry": (
        '[{"example_id": 1, "predicted_answer": ' + nested(1022) + "}]",
        "reads",
    ),
    "nested-past-orjson-s-limit": (nested(ORJSON_DEPTH + 1), "refuses"),
    "extra-data": ("[1] [2]", "refuses"),  # both refuse, in other words: json's are kept
    "trailing-comma": ("[1,]", "refuses"),
    "control-character": ('["a\x01b"]', "refuses"),
    "bom-inside": ("\ufeff[1]", "refuses"),
}


@pytest.mark.parametrize("pad", [False, True], ids=["short", "wrapped"])
@pytest.mark.parametrize("text, instead", DIFFERENCES.values(), ids=DIFFERENCES)
def test_where_orjson_differs_json_decides(text: str, instead: str, pad: bool) -> None:
    assert not agrees_with_orjson(text), f"orjson now agrees with json on this ({instead})"
    assert agrees(padded(text) if pad else text)


def agrees_with_orjson(text: str) -> bool:
    mine = outcome(orjson.loads, text.encode("utf-8", "surrogatepass"))
    theirs = outcome(json.loads, text)
    if mine[0] != theirs[0]:
        return False
    return same(mine[1], theirs[1]) if mine[0] == "value" else mine[1] == theirs[1]


#: Where the two agree (so ``loads`` may take orjson's value as it is).
AGREEMENTS = {
    "duplicate-keys": '{"a": 1, "b": 2, "a": 3}',  # the last wins, in the first one's place
    "whitespace": ' \t\r\n[1, {"a" : [ ] } ] \n',
    "escapes": '["\\u00e9\\n\\t\\"\\\\\\/\\b\\f\\r", "\\ud83d\\ude00", "\\u0000"]',
    "raw-unicode": '["é 漢字 😀 \u2028 \x7f"]',
    "numbers": "[0, -0, -0.0, 1E5, 1e+5, 2.5e-3, 5e-324, 2.2250738585072014e-308, "
    "1.7976931348623157e308, 0.30000000000000004, 123456789.12345678912345e-3, 1e-400]",
    "literals": "[true, false, null]",
}


@pytest.mark.parametrize("pad", [False, True], ids=["short", "wrapped"])
@pytest.mark.parametrize("text", AGREEMENTS.values(), ids=AGREEMENTS)
def test_where_orjson_agrees_its_value_is_taken(
    text: str, pad: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert agrees_with_orjson(text)
    text = padded(text) if pad else text
    expected = json.loads(text)
    monkeypatch.setattr(json, "loads", refuse_to_read)
    assert same(loads(text), expected)


def test_19_digits_in_a_row_are_json_s_to_read_though_orjson_agrees_within_64_bits() -> None:
    text = "[9223372036854775807, -9223372036854775808, 18446744073709551615]"
    assert agrees_with_orjson(text)
    assert agrees(text) and agrees(padded(text))


def refuse_to_read(text: str) -> Any:
    raise AssertionError("json.loads was called: orjson should have read this")


def test_orjson_reads_as_deep_as_the_wrap_counts_on() -> None:
    orjson.loads(nested(ORJSON_DEPTH))
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(nested(ORJSON_DEPTH + 1))


def test_a_document_up_to_the_safe_depth_is_orjson_s_and_deeper_json_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    deepest = nested(SAFE_DEPTH)
    monkeypatch.setattr(json, "loads", refuse_to_read)
    assert loads(deepest) == json.JSONDecoder().decode(deepest)
    with pytest.raises(AssertionError, match=r"json\.loads was called"):
        loads(nested(SAFE_DEPTH + 1))


@pytest.mark.parametrize(
    "text",
    ["1],[2", "1]],[[2", '1]],{"a": [[2', "1] ,[ 2", "]", "[", "", " ", "1]"],
)
def test_a_text_that_closes_the_wrap_is_not_read_as_one_value(text: str) -> None:
    """Inside the wrap, "1],[2" would parse ([[1],[2]]); alone it is not one JSON value."""
    assert outcome(json.loads, padded(text))[0] == "error"
    assert agrees(padded(text)) and agrees(text)


def test_the_files_people_upload_are_read_by_orjson_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every shipped sample, key and public file in JSON: no second parse by json."""
    files = [
        path
        for folder in spec.BENCHMARKS_DIR.iterdir()
        if (folder / "demo").is_dir()
        for path in sorted((folder / "demo").glob("*.json"))
    ]
    assert len(files) >= 4, files
    expected = {path: json.loads(path.read_text("utf-8-sig")) for path in files}
    monkeypatch.setattr(json, "loads", refuse_to_read)
    for path in files:
        assert same(loads(path.read_text("utf-8-sig")), expected[path]), path


def test_a_submission_nested_1000_deep_is_still_refused_as_too_deep() -> None:
    """orjson reads 1,000 levels; json (the Space's reader until now) does not, and says so."""
    bench = spec.load_benchmark("egomemreason")
    track = bench.track()
    key = evaluator.load_answer_key(track, bench.demo_key(track).read_bytes())
    data = ('[{"example_id": 1, "predicted_answer": ' + nested(999) + "}]").encode()
    with pytest.raises(evaluator.SubmissionError, match="nested too deeply"):
        evaluator.score(key, data)


def test_an_id_beyond_64_bits_is_named_as_the_integer_it_is() -> None:
    bench = spec.load_benchmark("egomemreason")
    track = bench.track()
    key = evaluator.load_answer_key(track, bench.demo_key(track).read_bytes())
    data = b'[{"example_id": 18446744073709551616, "predicted_answer": "A"}]'
    with pytest.raises(evaluator.SubmissionError) as caught:
        evaluator.score(key, data)
    assert "18446744073709551616" in str(caught.value), caught.value
    assert "e+19" not in str(caught.value)


# Documents as people and attackers write them: any JSON value, then texts cut and spliced.
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)
_TOKENS = st.sampled_from(
    [
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
        '"',
        "\\",
        "\\u",
        "d800",
        "0",
        "-",
        ".",
        "e",
        "9" * 19,
        "NaN",
        "Infinity",
        "true",
        " ",
        "\n",
        "\ufeff",
        "é",
        "\x01",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    value=_VALUES, ascii_only=st.booleans(), indent=st.sampled_from([None, 1]), pad=st.booleans()
)
def test_any_document_reads_as_json_reads_it(
    value: Any, ascii_only: bool, indent: int | None, pad: bool
) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    assert agrees(padded(text) if pad else text)


@settings(max_examples=300, deadline=None)
@given(
    value=_VALUES,
    cut=st.integers(min_value=0),
    splice=st.lists(_TOKENS, max_size=4).map("".join),
    pad=st.booleans(),
)
def test_any_broken_document_is_refused_as_json_refuses_it(
    value: Any, cut: int, splice: str, pad: bool
) -> None:
    text = json.dumps(value)
    at = cut % (len(text) + 1)
    broken = text[:at] + splice + text[at:]
    assert agrees(padded(broken) if pad else broken)


@settings(max_examples=300, deadline=None)
@given(
    digits=st.text("0123456789", min_size=1, max_size=25),
    fraction=st.text("0123456789", max_size=25),
    exponent=st.integers(min_value=-340, max_value=340),
)
def test_any_number_reads_as_json_reads_it(digits: str, fraction: str, exponent: int) -> None:
    number = digits.lstrip("0") or "0"
    for text in (number, f"-{number}.{fraction or '0'}", f"{number}.{fraction or '0'}e{exponent}"):
        assert agrees(f"[{text}]"), text


@settings(max_examples=300, deadline=None)
@given(value=_VALUES, cut=st.integers(min_value=0), junk=st.binary(max_size=4))
def test_any_bytes_read_as_utf8_are_json_s_value_of_their_text_or_left_to_it(
    value: Any, cut: int, junk: bytes
) -> None:
    """Bytes that are not UTF-8 (a byte spliced into a document) are never read: the text road
    decodes them and says what is wrong; bytes that are, as ``json.loads`` reads their text."""
    raw = json.dumps(value, ensure_ascii=False).encode()
    at = cut % (len(raw) + 1)
    spliced = raw[:at] + junk + raw[at:]
    got = loads_utf8(spliced)
    try:
        text = spliced.decode("utf-8")
    except UnicodeDecodeError:
        assert got is NOT_READ
        return
    theirs = outcome(json.loads, text)
    assert got is NOT_READ or (theirs[0] == "value" and same(got, theirs[1]))


def test_the_files_people_upload_are_read_from_their_bytes() -> None:
    """Every shipped sample: read by loads_utf8 from its bytes, as json reads its text."""
    files = sorted(
        path
        for folder in spec.BENCHMARKS_DIR.iterdir()
        if (folder / "demo").is_dir()
        for path in (folder / "demo").glob("*sample_submission.json")
    )
    assert len(files) >= 3, files
    for path in files:
        data = path.read_bytes()
        value = loads_utf8(data.removeprefix(b"\xef\xbb\xbf"))
        assert value is not NOT_READ and same(value, json.loads(path.read_text("utf-8-sig")))


# --- a long list, read a piece at a time ----------------------------------------------------


@contextlib.contextmanager
def pieces_of(size: int) -> Iterator[None]:
    """A text over twice ``size`` bytes that is a list is read a piece of ~``size`` at a time."""
    kept = json_text.PIECE_BYTES
    json_text.PIECE_BYTES = size
    try:
        yield
    finally:
        json_text.PIECE_BYTES = kept


@pytest.mark.parametrize("items", [400, 30_000], ids=["short", "wrapped"])
def test_a_long_list_is_read_in_small_pieces(monkeypatch: pytest.MonkeyPatch, items: int) -> None:
    """A 1.5 MB submission of 400 entries (read as it is) or 30,000 (more "{" than
    SAFE_DEPTH: read inside the wrap): orjson reads it a piece at a time, not whole (its buffer
    would be ~18 MB), and the value is json's."""
    note = "x" * (1_500_000 // items)
    entries = [
        {"example_id": i, "predicted_answer": "ABCD"[i % 4], "note": note} for i in range(items)
    ]
    text = json.dumps(entries, indent=1)
    read: list[int] = []

    class Counted:
        JSONDecodeError = orjson.JSONDecodeError

        @staticmethod
        def loads(data: bytes) -> Any:
            read.append(len(data))
            return orjson.loads(data)

    monkeypatch.setattr(json_text, "orjson", Counted)
    assert same(loads(text), json.loads(text))
    assert len(text) > 4 * json_text.PIECE_BYTES and len(read) >= 4
    assert max(read) < json_text.PIECE_BYTES + 2 * (ORJSON_DEPTH + 100)


@pytest.mark.parametrize(
    "text",
    [
        '[{"a": 1}, {"b": 2}]',
        '[{"a": 1},]',  # a stray comma: a piece of no item
        '[{"a": 1},  \n]',
        '[{"a": 1} , {"b": 2}]',  # no "}," to cut at
        '[{"a": "},"}, {"b": "}, {"}, {}]',  # cuts in strings
        '[{"a": {"b": 1}, "c": 2}, {"d": [{}, {}]}, 3]',  # cuts in nested objects
        '[{"a": "\\"}, {"b": 2}]',  # an escaped backslash ends the string
        ' \n[{"a": 1}, {"b": 2}] \t',
        '\x0c[{"a": 1}, {"b": 2}]',  # not JSON whitespace
        '[{"a": 1}, {"b": 2}]\x0c',
        '[{"a": 1}, {"b": 2}] [3]',
        '[{"a": 1}, {"b": 2}',
        '{"a": [{}, {}]}',
        "[" + '{"a": 1}, ' * 40 + "{}]",
    ],
)
def test_a_list_read_in_pieces_is_json_s_list_or_json_s_refusal(text: str) -> None:
    for size in (0, 1, 7, 30):
        with pieces_of(size):
            assert agrees(text) and agrees(padded(text)), size


_TRICKY = st.sampled_from(["},", '"},"', "}, {", "]},[", "},]", "\\", '\\"}'])
_ITEMS = st.lists(
    st.recursive(
        _SCALARS | _TRICKY,
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(st.text(max_size=4) | _TRICKY, inner, max_size=4)
        ),
        max_leaves=20,
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=300, deadline=None)
@given(items=_ITEMS, size=st.integers(0, 40), indent=st.sampled_from([None, 1]), pad=st.booleans())
def test_any_list_read_in_pieces_reads_as_json_reads_it(
    items: list[Any], size: int, indent: int | None, pad: bool
) -> None:
    text = json.dumps(items, indent=indent)
    with pieces_of(size):
        assert agrees(padded(text) if pad else text)


@settings(max_examples=300, deadline=None)
@given(
    items=_ITEMS,
    size=st.integers(0, 40),
    cut=st.integers(min_value=0),
    splice=st.lists(_TOKENS, max_size=4).map("".join),
)
def test_any_broken_list_read_in_pieces_is_refused_as_json_refuses_it(
    items: list[Any], size: int, cut: int, splice: str
) -> None:
    text = json.dumps(items)
    at = cut % (len(text) + 1)
    with pieces_of(size):
        assert agrees(text[:at] + splice + text[at:])
