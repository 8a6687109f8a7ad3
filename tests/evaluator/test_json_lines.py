"""evaluator.submissions.json_lines: JSON Lines read at the cost of parsing the values, with
exactly the answers of the plain reader (every line split off and parsed alone), which is
written out again here as the reference."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evaluator
import spec
from evaluator.kinds import decision
from evaluator.submissions import json_lines


def _reference(text: str) -> tuple[str, Any]:
    """Each line split off at "\\n"; one blank to ``str.strip`` skipped; any other parsed
    alone by ``json.loads``: ("ok", values) or ("bad", (line number, json's message))."""
    values = []
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            values.append(json.loads(line))
        except (ValueError, RecursionError) as exc:
            return "bad", (lineno, str(exc))
    return "ok", values


def _read(text: str) -> tuple[str, Any]:
    read = json_lines(text, len(text) + 1)
    if read.error is not None:
        return "bad", (read.bad_line, str(read.error))
    assert read.complete
    return "ok", read.values


#: Pieces of lines, ordinary and odd: objects, blank lines of JSON's whitespace and of other
#: whitespace, values over two lines, two values on one line, broken values, nesting.
PIECES = [
    '{"example_id": "e1", "assist": true}',
    "[1, 2]",
    "0",
    '"text"',
    "",
    " ",
    "\t",
    "\r",
    "\x0c",
    "\u00a0",
    "\u2028",
    "{",
    "}",
    '{"a":',
    "1}",
    "[1,",
    "2]",
    '{"a": 1} {"b": 2}',
    "1 2",
    "nul\x00l",
    "[" * 50 + "]" * 50,
    '"\u2028 inside a string"',
    "NaN",
    "-0.0e5",
]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(PIECES), min_size=0, max_size=3).map(" ".join), max_size=12),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)
def test_json_lines_answers_as_the_plain_reader_does(
    lines: list[str], newline: str, final: bool
) -> None:
    text = newline.join(lines) + (newline if final else "")
    assert _read(text) == _reference(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n\n",
        '{"a": 1}\n\x0c\n{"b": 2}',
        '{"a":\n1}',
        '{"a": 1}\n{"b": 2} {"c": 3}\n',
        "\u00a0\n0",
        "0\n\u00a00",
        "  0  \n\t1\t\n",
        "[" * 100_000 + "]" * 100_000,
    ],
)
def test_json_lines_on_chosen_texts(text: str) -> None:
    assert _read(text) == _reference(text)


def test_json_lines_stops_past_its_limit() -> None:
    read = json_lines("0\n" * 1000, 10)
    assert (len(read.values), read.complete) == (11, False)
    assert json_lines("0\n" * 10, 10) == evaluator.submissions.JsonLines([0] * 10)


BENCH = spec.load_benchmark("egoargus")
TRACK = BENCH.track("decision", kind=spec.DecisionTrack)


def test_a_decision_file_of_too_many_lines_is_refused_once_its_limit_is_read() -> None:
    rows = 789
    with pytest.raises(evaluator.SubmissionError) as raised:
        decision.decode(TRACK, b"0\n" * 2_000_000, rows)
    assert str(raised.value).endswith(
        f"the file has more than {4 * rows} lines of entries; expected one entry for each of "
        f"the {rows} episodes"
    )


def test_a_decision_file_s_bad_line_keeps_its_message() -> None:
    with pytest.raises(evaluator.SubmissionError) as raised:
        decision.decode(TRACK, b'{"example_id": "a", "assist": true}\n{"example_id":\n', 789)
    assert "line 2 is not valid JSON (Expecting value)" in str(raised.value)
