"""Tests of the evaluator, the pure scoring core, and of the synthetic demo data it ships with.

Expected scores are computed here independently, from the answer key's raw JSON and tables
typed out from EgoMemReason's published release (its query types, their memory groups and the
reference scripts' output), never from the evaluator's own constants or internals.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import os
import random
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal, getcontext
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evaluator
import spec
from evaluator.submissions import read_text
from tests.support import ROOT

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track(kind=spec.MultipleChoiceTrack)
DEMO = BENCH.demo_dir
KEY_BYTES = (DEMO / "annotations_private.json").read_bytes()
SAMPLES: list[dict[str, Any]] = json.loads(KEY_BYTES)["samples"]
KEY = evaluator.kinds.multiple_choice.load_key(TRACK, KEY_BYTES)
SAMPLE_SUBMISSION = (DEMO / "sample_submission.json").read_bytes()

# Typed out from the benchmark's release, independently of the spec's groupings.
MEMORY_OF = {
    "Cumulative State Tracking": "entity",
    "Temporal Counting": "entity",
    "Event Ordering": "event",
    "Event Linking": "event",
    "Spatial Preference": "behavior",
    "Activity Pattern": "behavior",
}
METRIC_OF = {
    "Cumulative State Tracking": "cumulative_state_tracking",
    "Temporal Counting": "temporal_counting",
    "Event Ordering": "event_ordering",
    "Event Linking": "event_linking",
    "Spatial Preference": "spatial_preference",
    "Activity Pattern": "activity_pattern",
}
REAL_SPLIT_SIZES = {
    "Cumulative State Tracking": 100,
    "Temporal Counting": 100,
    "Event Ordering": 100,
    "Event Linking": 100,
    "Spatial Preference": 50,
    "Activity Pattern": 50,
}
ALL_METRICS = {"overall", "entity", "event", "behavior", *METRIC_OF.values()}
ABCDEFGHIJK = "ABCDEFGHIJK"

FAST = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)

# --- helpers ----------------------------------------------------------------------------------


def dumps(value: object) -> bytes:
    return json.dumps(value).encode("utf-8")


def perfect_entries(samples: Sequence[dict[str, Any]] = SAMPLES) -> list[dict[str, Any]]:
    return [
        {"example_id": q["example_id"], "predicted_answer": q["correct_answer"]} for q in samples
    ]


def expected_counts(
    samples: Sequence[dict[str, Any]], entries: Sequence[dict[str, Any]]
) -> tuple[dict[str, tuple[int, int]], int]:
    """(correct, total) per metric and the number of abstentions, counted by hand."""
    answers = {e["example_id"]: e["predicted_answer"] for e in entries}
    tally: dict[str, list[int]] = {}
    abstained = 0
    for q in samples:
        answer = answers[q["example_id"]]
        given_letter = answer.strip().upper() if isinstance(answer, str) else ""
        abstained += given_letter == ""
        hit = given_letter == q["correct_answer"]
        for name in ("overall", MEMORY_OF[q["query_type"]], METRIC_OF[q["query_type"]]):
            tally.setdefault(name, [0, 0])
            tally[name][0] += hit
            tally[name][1] += 1
    return {k: (c, t) for k, (c, t) in tally.items()}, abstained


def assert_scores_match(
    result: evaluator.ScoreResult,
    samples: Sequence[dict[str, Any]],
    entries: Sequence[dict[str, Any]],
) -> None:
    counts, abstained = expected_counts(samples, entries)
    assert set(result.metrics) == set(counts) == ALL_METRICS
    for name, (correct, total) in counts.items():
        assert (result.counts[name].correct, result.counts[name].total) == (correct, total), name
        assert result.metrics[name] == 100 * correct / total, name  # exact, unrounded
    assert result.n_abstained == abstained
    assert result.n_questions == len(samples)


def submission_error(data: bytes) -> str:
    with pytest.raises(evaluator.SubmissionError) as info:
        evaluator.score(KEY, data)
    assert type(info.value) is evaluator.SubmissionError
    message = str(info.value)
    assert message.startswith("This submission cannot be scored")
    return message


def result_or_error(data: bytes) -> evaluator.ScoreResult | evaluator.SubmissionError:
    """Score ``data``; a SubmissionError is a fine answer, any other exception fails the test."""
    try:
        result = evaluator.score(KEY, data)
    except evaluator.SubmissionError as exc:
        assert str(exc).startswith("This submission cannot be scored")
        assert exc.problems and all(p.strip() for p in exc.problems)
        return exc
    # It scored, so it must be a valid submission: check it against a count by hand.
    entries = json.loads(data.decode("utf-8-sig"))
    assert_scores_match(result, SAMPLES, entries)
    return result


def first(predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    return next(q for q in SAMPLES if predicate(q))


def index_of(example_id: int) -> int:
    return next(i for i, q in enumerate(SAMPLES) if q["example_id"] == example_id)


def valid_range(q: dict[str, Any]) -> str:
    return f"A-{max(q['options'])}"


Q1 = SAMPLES[0]
FOUR = first(lambda q: len(q["options"]) == 4)
ACTIVITY = first(lambda q: q["query_type"] == "Activity Pattern")


def edit(change: Callable[[list[Any]], object]) -> Callable[[], bytes]:
    """A builder: the perfect submission, changed in place by ``change``, as JSON bytes."""

    def build() -> bytes:
        entries: list[Any] = perfect_entries()
        change(entries)
        return dumps(entries)

    return build


def const(data: bytes) -> Callable[[], bytes]:
    return lambda: data


def set_answer(example_id: int, answer: object) -> Callable[[list[dict[str, Any]]], None]:
    def change(entries: list[dict[str, Any]]) -> None:
        entries[index_of(example_id)]["predicted_answer"] = answer

    return change


def rename_all(old: str, new: str) -> Callable[[list[dict[str, Any]]], None]:
    def change(entries: list[dict[str, Any]]) -> None:
        for e in entries:
            e[new] = e.pop(old)

    return change


def reference_results(entries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """What the benchmark's reference evaluation scripts write, built from a submission."""
    by_id = {q["example_id"]: q for q in SAMPLES}
    results = [
        {
            "example_id": e["example_id"],
            "query_type": by_id[e["example_id"]]["query_type"],
            "correct_answer": by_id[e["example_id"]]["correct_answer"],
            "pred": e["predicted_answer"],
            "is_correct": e["predicted_answer"] == by_id[e["example_id"]]["correct_answer"],
        }
        for e in entries
    ]
    return {"results": results, "summary": {"accuracy": 0.446, "total": len(results)}}


def latin1_submission() -> bytes:
    entries = perfect_entries()
    entries[0]["raw_response"] = "Réponse : B"
    return json.dumps(entries, ensure_ascii=False).encode("latin-1")


def several_problems(entries: list[dict[str, Any]]) -> None:
    entries[index_of(1)]["predicted_answer"] = "ZZ"  # not an option
    del entries[index_of(2)]  # missing
    entries.append({"example_id": 3, "predicted_answer": "A"})  # duplicate
    entries.append({"example_id": 777, "predicted_answer": "A"})  # unknown
    four = next(e for e in entries if e["example_id"] == 4)
    four["sample_id"] = four.pop("example_id")  # wrong field name, so 4 is missing too


HUGE_INT = b"1" + b"0" * 5000  # 10**5000: past Python's 4300-digit conversion limit
NEEDS_INT_LIMIT = pytest.mark.skipif(
    sys.get_int_max_str_digits() == 0, reason="this interpreter converts integers of any length"
)


# --- bad submissions: each with the words its message must (and must not) contain -------------

BAD_SUBMISSIONS = [
    pytest.param(
        const(b"example_id,predicted_answer\n1,B\n"),
        ["not valid JSON", "line 1", '{"example_id": 1, "predicted_answer": "B"}'],
        [],
        id="csv-not-json",
    ),
    pytest.param(
        lambda: dumps(perfect_entries())[:-1], ["not valid JSON"], [], id="truncated-json"
    ),
    pytest.param(
        lambda: repr(perfect_entries()).encode(), ["not valid JSON"], [], id="python-repr-not-json"
    ),
    pytest.param(latin1_submission, ["not UTF-8", "save it as UTF-8"], [], id="latin-1"),
    pytest.param(
        lambda: json.dumps(perfect_entries()).encode("utf-16"),
        ["UTF-16", "save it as UTF-8"],
        [],
        id="utf-16-bom",
    ),
    pytest.param(
        lambda: ("\ufeff" + json.dumps(perfect_entries())).encode("utf-16-be"),
        ["UTF-16", "save it as UTF-8"],
        [],
        id="utf-16-be-bom",
    ),
    pytest.param(const(b""), ["empty", "JSON list"], [], id="empty-file"),
    pytest.param(const(b" \n\t\r\n  "), ["empty"], ["not valid JSON"], id="whitespace-only"),
    pytest.param(const(b"\xef\xbb\xbf\n"), ["empty"], ["not valid JSON"], id="bom-only"),
    pytest.param(
        lambda: dumps(reference_results(perfect_entries())),
        [
            '"results" list',
            "reference evaluation scripts",
            'take its "results" list',
            'rename "pred" to "predicted_answer"',
        ],
        [],
        id="reference-script-results",
    ),
    pytest.param(
        lambda: dumps({"predictions": perfect_entries()}),
        ['"predictions" list', "upload the list itself"],
        [],
        id="object-predictions",
    ),
    pytest.param(
        const(dumps({"model": "x", "overall": 44.6})),
        ["top level is a JSON object", "expected a JSON list"],
        [],
        id="object-other",
    ),
    pytest.param(
        const(b'"B"'), ["top level is a JSON string", "expected a list"], [], id="top-level-string"
    ),
    pytest.param(const(b"17"), ["top level is a JSON integer"], [], id="top-level-integer"),
    pytest.param(const(b"0.446"), ["top level is a JSON number"], [], id="top-level-number"),
    pytest.param(const(b"null"), ["top level is a JSON null"], [], id="top-level-null"),
    pytest.param(const(b"true"), ["top level is a JSON boolean"], [], id="top-level-boolean"),
    pytest.param(const(b"NaN"), ["top level is a JSON number"], [], id="top-level-nan"),
    pytest.param(const(b"[]"), ["list is empty", "each of the 500 questions"], [], id="empty-list"),
    pytest.param(
        edit(lambda e: e.__setitem__(slice(0, 4), [17, "B", ["A"], None])),
        [
            "4 entries are not JSON objects",
            "the 1st entry (integer), the 2nd entry (string), the 3rd entry (list), "
            "the 4th entry (null)",
            "4 questions have no answer (1, 2, 3, 4)",
        ],
        [],
        id="entries-not-objects",
    ),
    pytest.param(
        edit(lambda e: e.__setitem__(5, "C")),
        [
            "1 entry is not a JSON object (e.g. the 6th entry (string))",
            "1 question has no answer (6)",
        ],
        ["1 entries"],
        id="one-entry-not-object",
    ),
    pytest.param(
        edit(rename_all("example_id", "sample_id")),
        ['500 entries use "sample_id"', 'rename the field to "example_id"'],
        ["have no answer"],
        id="sample_id",
    ),
    pytest.param(
        edit(rename_all("example_id", "id")),
        ['500 entries use "id"', 'rename the field to "example_id"'],
        [],
        id="id",
    ),
    pytest.param(
        edit(rename_all("predicted_answer", "pred")),
        ['500 entries use "pred"', 'rename the field to "predicted_answer"'],
        ["have no answer"],
        id="pred",
    ),
    pytest.param(
        edit(lambda e: e[0].pop("predicted_answer")),
        ['1 entry has no "predicted_answer" (e.g. the 1st entry)', "use null"],
        [],
        id="no-predicted_answer",
    ),
    pytest.param(
        edit(lambda e: e[0].pop("example_id")),
        ['1 entry has no "example_id" (e.g. the 1st entry)', "1 question has no answer (1)"],
        [],
        id="no-example_id",
    ),
    pytest.param(
        edit(set_answer(Q1["example_id"], f"({Q1['correct_answer']})")),
        [
            "1 answer carries more than the option letter",
            "keep only the letter",
            f'id {Q1["example_id"]}: "({Q1["correct_answer"]})"',
        ],
        ["not among"],
        id="parenthesised-letter",
    ),
    pytest.param(
        edit(set_answer(ACTIVITY["example_id"], f"A. {ACTIVITY['options']['A']}")),
        ["keep only the letter", f'id {ACTIVITY["example_id"]}: "A. {ACTIVITY["options"]["A"]}"'],
        ["not among"],
        id="letter-dot-text",
    ),
    pytest.param(
        edit(set_answer(Q1["example_id"], "ZZ")),
        [
            "1 answer is not among their question's options",
            f'id {Q1["example_id"]}: "ZZ" (valid {valid_range(Q1)})',
        ],
        [],
        id="ZZ",
    ),
    pytest.param(
        edit(set_answer(FOUR["example_id"], "J")),
        [f'id {FOUR["example_id"]}: "J" (valid A-D)'],
        ["keep only"],
        id="J-on-four-options",
    ),
    pytest.param(
        edit(set_answer(FOUR["example_id"], "(J)")),
        [f'id {FOUR["example_id"]}: "(J)" (valid A-D)'],
        ["keep only"],
        id="decorated-letter-not-an-option",
    ),
    pytest.param(
        edit(set_answer(FOUR["example_id"], "T")),
        [f'id {FOUR["example_id"]}: "T" (valid A-D)'],
        [],
        id="first-capital-T",
    ),
    pytest.param(
        edit(set_answer(1, 2)),
        ['"predicted_answer" that is not a string', "the 1st entry: 2", "null to abstain"],
        [],
        id="answer-integer",
    ),
    pytest.param(
        edit(set_answer(1, ["A"])),
        ["not a string", "the 1st entry: a JSON list"],
        [],
        id="answer-list",
    ),
    pytest.param(
        edit(set_answer(1, True)), ["not a string", "the 1st entry: true"], [], id="answer-boolean"
    ),
    pytest.param(
        edit(lambda e: e[16].__setitem__("example_id", "17")),
        [
            '1 entry has an "example_id" that is not an integer',
            'the 17th entry: "17"',
            'JSON numbers, e.g. 17, not "17"',
            "1 question has no answer (17)",
        ],
        [],
        id="string-example_id",
    ),
    pytest.param(
        edit(lambda e: e[16].__setitem__("example_id", 17.0)),
        ["not an integer", "the 17th entry: 17.0"],
        [],
        id="float-example_id",
    ),
    # True == 1 in Python: a boolean id must not answer question 1.
    pytest.param(
        edit(lambda e: e[0].__setitem__("example_id", True)),
        ["not an integer", "the 1st entry: true", "1 question has no answer (1)"],
        [],
        id="boolean-example_id",
    ),
    pytest.param(
        edit(lambda e: e.__delitem__(slice(0, 12))),
        [
            "12 questions have no answer (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ...)",
            "each of the 500 questions",
        ],
        ["11", "12,"],
        id="missing-12",
    ),
    pytest.param(
        edit(lambda e: e.pop()),
        ["1 question has no answer (500)", "use null to abstain"],
        [],
        id="missing-1",
    ),
    pytest.param(
        edit(lambda e: e.extend([dict(e[2]), dict(e[0]), dict(e[1]), dict(e[0])])),
        ["3 questions are answered more than once (1, 2, 3)", "keep one entry"],
        [],
        id="duplicates",
    ),
    pytest.param(
        edit(
            lambda e: e.extend(
                [{"example_id": i, "predicted_answer": "A"} for i in (9999, 501, 0, -1)]
            )
        ),
        ["4 example_ids are not in the answer key (-1, 0, 501, 9999)", "public annotations file"],
        [],
        id="unknown-ids",
    ),
    pytest.param(
        edit(lambda e: e.extend([{"example_id": 501, "predicted_answer": "A"}] * 2)),
        ["1 example_id is not in the answer key (501)"],
        ["more than once"],
        id="unknown-id-twice",
    ),
    pytest.param(
        edit(several_problems),
        [
            "(5 problems)",
            f'id 1: "ZZ" (valid {valid_range(Q1)})',
            '1 entry uses "sample_id"',
            "1 question is answered more than once (3)",
            "1 example_id is not in the answer key (777)",
            "2 questions have no answer (2, 4)",
        ],
        [],
        id="several-problems-at-once",
    ),
    pytest.param(const(b"[" * 100_000), ["nested too deeply"], [], id="deep-nesting"),
    pytest.param(
        const(b"[" * 100_000 + b"]" * 100_000), ["nested too deeply"], [], id="deep-nesting-closed"
    ),
    pytest.param(
        const(b'[{"example_id": 1, "predicted_answer": ' + b"[" * 50_000 + b"]" * 50_000 + b"}]"),
        ["nested too deeply"],
        [],
        id="deep-nesting-in-entry",
    ),
    pytest.param(
        const(b'[{"example_id": ' + HUGE_INT + b', "predicted_answer": "A"}]'),
        ["could not be read as JSON", "digits"],
        ["set_int_max_str_digits"],
        id="huge-integer-id",
        marks=NEEDS_INT_LIMIT,
    ),
    pytest.param(
        const(HUGE_INT),
        ["could not be read as JSON", "digits"],
        [],
        id="huge-integer-top-level",
        marks=NEEDS_INT_LIMIT,
    ),
    pytest.param(
        lambda: dumps(perfect_entries()).replace(
            b'"predicted_answer": "A"}', b'"predicted_answer": NaN}', 1
        ),
        ["not a string", ": NaN"],
        [],
        id="nan-answer",
    ),
    pytest.param(
        lambda: dumps(perfect_entries()).replace(b'"example_id": 1,', b'"example_id": NaN,', 1),
        ["not an integer", "the 1st entry: NaN", "1 question has no answer (1)"],
        [],
        id="nan-example_id",
    ),
    pytest.param(
        lambda: dumps(perfect_entries()).replace(
            b'"example_id": 1,', b'"example_id": -Infinity,', 1
        ),
        ["not an integer", "the 1st entry: -Infinity"],
        [],
        id="infinite-example_id",
    ),
]


@pytest.mark.parametrize(("build", "words", "absent"), BAD_SUBMISSIONS)
def test_bad_submission_message(
    build: Callable[[], bytes], words: list[str], absent: list[str]
) -> None:
    message = submission_error(build())
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    for word in absent:
        assert word not in message, f"{word!r} in {message!r}"


def test_bad_submission_table_starts_from_a_valid_submission() -> None:
    """The table's edits break a submission that is otherwise perfect."""
    assert evaluator.score(KEY, dumps(perfect_entries())).metrics["overall"] == 100


def test_latin1_message_gives_the_offset() -> None:
    data = latin1_submission()
    offset = data.index("é".encode("latin-1"))
    assert f"offset {offset}" in submission_error(data)


def test_several_problems_are_one_bullet_each() -> None:
    entries = perfect_entries()
    several_problems(entries)
    with pytest.raises(evaluator.SubmissionError) as info:
        evaluator.score(KEY, dumps(entries))
    assert len(info.value.problems) == 5
    assert str(info.value).count("\n- ") == 5


def test_bad_letters_are_all_counted_and_ten_quoted() -> None:
    entries = perfect_entries()
    for e in entries[:25]:
        e["predicted_answer"] = "ZZ"
    message = submission_error(dumps(entries))
    assert "25 answers are not among their question's options" in message
    assert message.count('"ZZ"') == 10


def test_reference_results_converted_as_the_hint_says_score_like_the_submission() -> None:
    entries = json.loads(SAMPLE_SUBMISSION)
    data = reference_results(entries)
    # The hint's own expression, applied literally.
    converted = [
        {"example_id": r["example_id"], "predicted_answer": r["pred"]} for r in data["results"]
    ]
    a = evaluator.score(KEY, dumps(converted))
    b = evaluator.score(KEY, SAMPLE_SUBMISSION)
    assert a.model_dump(exclude={"submission_sha256"}) == b.model_dump(
        exclude={"submission_sha256"}
    )


def test_utf8_bom_is_accepted() -> None:
    plain = evaluator.score(KEY, SAMPLE_SUBMISSION)
    with_bom = evaluator.score(KEY, b"\xef\xbb\xbf" + SAMPLE_SUBMISSION)
    assert with_bom.metrics == plain.metrics
    assert with_bom.counts == plain.counts


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                b"\xef\xbb\xbf",
                b" ",
                b"\t",
                b"\x0b",
                b"\x0c",
                b"\r\n",
                b"\xa0",
                b"\xff",
                b"[",
                b"\xc3\xa9",
                b"\xed\xa0\x80",
                b"\xfe\xff",
                b"\x00",
            ]
        ),
        max_size=6,
    ).map(b"".join)
)
def test_a_file_s_text_is_what_utf_8_sig_decodes_and_empty_is_blank_to_strip(data: bytes) -> None:
    """``read_text`` decodes in C and looks for a blank file without copying it: the text,
    the offset of an undecodable byte and what counts as empty are utf-8-sig's and strip()'s."""
    try:
        text = read_text(data, "something")
    except evaluator.SubmissionError as error:
        message = str(error)
        if "empty" in message:
            assert not data.removeprefix(b"\xef\xbb\xbf").strip()
        elif "UTF-16" in message:
            assert data.startswith((b"\xff\xfe", b"\xfe\xff"))
        else:
            with pytest.raises(UnicodeDecodeError) as undecodable:
                data.decode("utf-8-sig")
            assert f"offset {undecodable.value.start})" in message
        return
    assert data.removeprefix(b"\xef\xbb\xbf").strip()
    assert text == data.decode("utf-8-sig")


# --- how messages count entries ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (1, "1st"),
        (2, "2nd"),
        (3, "3rd"),
        (4, "4th"),
        (10, "10th"),
        (11, "11th"),
        (12, "12th"),
        (13, "13th"),
        (14, "14th"),
        (21, "21st"),
        (22, "22nd"),
        (23, "23rd"),
        (100, "100th"),
        (101, "101st"),
        (102, "102nd"),
        (111, "111th"),
        (112, "112th"),
        (113, "113th"),
        (121, "121st"),
        (1001, "1001st"),
        (1011, "1011th"),
    ],
)
def test_ordinals(n: int, expected: str) -> None:
    assert evaluator.ordinal(n) == expected


def test_entries_are_counted_from_one_in_every_message() -> None:
    """The first entry is "the 1st entry", as people count; ids start at 1, positions too."""
    entries: list[Any] = perfect_entries()
    for e in entries[:25]:
        del e["predicted_answer"]
    entries[30]["predicted_answer"] = 7
    entries[111] = "B"
    message = submission_error(dumps(entries))
    assert (
        '25 entries have no "predicted_answer" (e.g. the 1st, 2nd, 3rd, 4th, 5th, 6th, '
        "7th, 8th, 9th, 10th, ... entries); use null"
    ) in message
    assert (
        '1 entry has a "predicted_answer" that is not a string (e.g. the 31st entry: 7)' in message
    )
    assert "1 entry is not a JSON object (e.g. the 112th entry (string))" in message
    assert "#" not in message and "entry 0" not in message


def test_key_rows_are_counted_from_one() -> None:
    records: list[Any] = small_key()
    records[0] = "not a row"
    del records[2]["example_id"]
    with pytest.raises(evaluator.AnswerKeyError) as info:
        evaluator.kinds.multiple_choice.load_key(TRACK, dumps(records))
    assert "the 1st question: entry: expected a JSON object" in str(info.value)
    assert "the 3rd question: example_id: Field required" in str(info.value)
    rows = small_key()
    rows[3]["key_version"] = 2
    del rows[3]["example_id"]
    with pytest.raises(evaluator.DataFileError, match=r"\(the 4th row\)"):
        evaluator.read_rows(TRACK, dumps(rows), "json")


# --- when every entry names a field another way --------------------------------------------------


def renamed(
    entries: list[dict[str, Any]], old: str, new: str, indices: range | None = None
) -> list[dict[str, Any]]:
    out = [dict(e) for e in entries]
    for i in indices if indices is not None else range(len(out)):
        out[i][new] = out[i].pop(old)
    return out


@pytest.mark.parametrize("alias", ["sample_id", "id"])
def test_an_id_alias_on_every_entry_is_the_one_problem(alias: str) -> None:
    entries = renamed(perfect_entries(), "example_id", alias)
    with pytest.raises(evaluator.SubmissionError) as info:
        evaluator.score(KEY, dumps(entries))
    assert info.value.problems == (
        f'500 entries use "{alias}" (e.g. the 1st, 2nd, 3rd, 4th, 5th, 6th, 7th, 8th, 9th, 10th, '
        '... entries); rename the field to "example_id"',
    )


@pytest.mark.parametrize("alias", ["pred", "answer", "prediction"])
def test_a_prediction_alias_on_every_entry_is_the_one_problem(alias: str) -> None:
    entries = renamed(perfect_entries(), "predicted_answer", alias)
    with pytest.raises(evaluator.SubmissionError) as info:
        evaluator.score(KEY, dumps(entries))
    assert len(info.value.problems) == 1
    assert info.value.problems[0].startswith(f'500 entries use "{alias}" (e.g. the 1st, 2nd')


def test_both_aliases_on_every_entry_are_the_two_problems() -> None:
    entries = renamed(
        renamed(perfect_entries(), "example_id", "sample_id"), "predicted_answer", "pred"
    )
    with pytest.raises(evaluator.SubmissionError) as info:
        evaluator.score(KEY, dumps(entries))
    assert [p.split(" (")[0] for p in info.value.problems] == [
        '500 entries use "sample_id"',
        '500 entries use "pred"',
    ]


def test_an_id_alias_on_some_entries_also_names_the_questions_left_unanswered() -> None:
    entries = renamed(perfect_entries(), "example_id", "sample_id", range(3))
    with pytest.raises(evaluator.SubmissionError) as info:
        evaluator.score(KEY, dumps(entries))
    assert info.value.problems == (
        '3 entries use "sample_id" (e.g. the 1st, 2nd, 3rd entries); rename the field to '
        '"example_id"',
        "3 questions have no answer (1, 2, 3); expected one entry for each of the 500 questions "
        "(use null to abstain)",
    )


# --- hints that carry code: the code runs on the file that triggered it --------------------------


@dataclass(frozen=True)
class Board:
    """A multiple-choice track with its demo key and the demo's sample submission."""

    track: spec.MultipleChoiceTrack
    key: evaluator.AnswerKey
    sample: list[dict[str, Any]]
    public: list[dict[str, Any]]


def _board(bench_id: str) -> Board:
    bench = spec.load_benchmark(bench_id)
    track = bench.track(kind=spec.MultipleChoiceTrack)
    key = evaluator.kinds.multiple_choice.load_key(track, bench.demo_key(track).read_bytes())
    public = evaluator.read_rows(
        track, bench.demo_public(track).read_bytes(), track.public.format
    ).records
    return Board(
        track,
        key,
        json.loads((bench.demo_dir / "sample_submission.json").read_text()),
        list(public),
    )


BOARDS = {"egomemreason": _board("egomemreason"), "egoargus": _board("egoargus")}


def reference_output(board: Board, id_name: str, pred_name: str) -> dict[str, Any]:
    """What a reference script writes for the sample run, naming the fields as given."""
    f = board.track.fields
    answers = {q.id: q.answer for q in board.key.questions}
    return {
        "results": [
            {
                id_name: e[f.id],
                "correct_answer": answers[e[f.id]],
                pred_name: e[f.prediction],
                "is_correct": e[f.prediction] == answers[e[f.id]],
            }
            for e in board.sample
        ],
        "summary": {"accuracy": 0.0},
    }


def _mixed_ids(board: Board) -> dict[str, Any]:
    out = reference_output(board, "example_id", "pred")
    for r in out["results"][::2]:
        r["sample_id"] = r.pop("example_id")
    return out


def _renamed_ids(board: Board) -> tuple[str, ...]:
    """The id aliases a results hint tells to rename: not a look-alike its spec's hints
    describe (EgoArgus' sample_id is not its id)."""
    f = board.track.fields
    return tuple(a for a in f.id_aliases if a not in board.track.hints.fields)


def _some_without_pred(board: Board) -> dict[str, Any]:
    out = reference_output(board, _renamed_ids(board)[0], "pred")
    for r in out["results"][:7]:
        del r["pred"]
    return out


def _odd_entries(board: Board) -> dict[str, Any]:
    out = reference_output(board, "example_id", "pred")
    out["results"][3:3] = [None, "oops", 17]
    return out


def _release_sample_ids(board: Board) -> dict[str, Any]:
    """EgoArgus's release sample_id: another value than example_id, and not unique."""
    out = reference_output(board, "example_id", "pred")
    sample_id = {r["example_id"]: r.get("sample_id") for r in board.public}
    for r in out["results"]:
        r["sample_id"] = sample_id[r.pop("example_id")]
    return out


def _both_ids(board: Board) -> dict[str, Any]:
    out = reference_output(board, "example_id", "predicted_answer")
    for r in out["results"]:
        r["sample_id"] = "whatever"
        r["pred"] = "Z"  # the canonical names win: "predicted_answer" is read
    return out


def _trigger_files() -> list[Any]:
    cases = []
    for name, board in BOARDS.items():
        f = board.track.fields
        for id_name in (f.id, *_renamed_ids(board)):
            for pred_name in (f.prediction, *f.prediction_aliases):
                cases.append(
                    pytest.param(
                        board,
                        reference_output(board, id_name, pred_name),
                        id=f"{name}-{id_name}-{pred_name}",
                    )
                )
        for build in (_mixed_ids, _some_without_pred, _odd_entries, _both_ids):
            cases.append(
                pytest.param(board, build(board), id=f"{name}-{build.__name__.strip('_')}")
            )
        cases.append(pytest.param(board, {"results": []}, id=f"{name}-empty-results"))
    return cases


def hint_code(error: evaluator.SubmissionError) -> list[str]:
    """The code a message offers: after an "e.g. ", the rest of a problem when it is a Python
    expression that reads ``data`` (the decoded file)."""
    found = []
    for problem in error.problems:
        for at in re.finditer(r"e\.g\. ", problem):
            tail = problem[at.end() :]
            try:
                tree = ast.parse(tail, mode="eval")
            except SyntaxError:
                continue
            if any(isinstance(n, ast.Name) and n.id == "data" for n in ast.walk(tree)):
                found.append(tail)
    return found


def run_hints(key: evaluator.AnswerKey, data: bytes) -> list[str]:
    """Score ``data``; run every piece of code its message offers on the decoded file, and
    score what the code gives: it scores, or its message is another one. The code run."""
    with pytest.raises(evaluator.SubmissionError) as info:
        evaluator.score(key, data)
    codes = hint_code(info.value)
    for code in codes:
        converted = eval(code, {"data": json.loads(data)})  # the hint, as offered
        try:
            evaluator.score(key, json.dumps(converted).encode())
        except evaluator.SubmissionError as again:
            assert str(again) != str(info.value)
            assert not hint_code(again), str(again)
    return codes


@pytest.mark.parametrize(("board", "output"), _trigger_files())
def test_the_results_hint_code_runs_on_its_file_and_the_result_scores_or_says_more(
    board: Board, output: dict[str, Any]
) -> None:
    codes = run_hints(board.key, dumps(output))
    assert len(codes) == 1, "the results hint offers code for every shape of results"


@pytest.mark.parametrize("board", BOARDS.values(), ids=BOARDS)
def test_the_results_hint_code_of_the_scripts_own_output_gives_the_sample_run(board: Board) -> None:
    sample = evaluator.score(board.key, dumps(board.sample))
    for id_name in ("example_id", *_renamed_ids(board)):
        output = reference_output(board, id_name, "pred")
        (code,) = run_hints(board.key, dumps(output))
        converted = eval(code, {"data": output})
        assert (
            evaluator.score(board.key, dumps(converted)).answers_sha256 == sample.answers_sha256
        ), id_name


def test_egoargus_results_by_sample_id_get_its_spec_s_hint_and_no_rename() -> None:
    """Observed (issue 19): EgoArgus results naming sample_id were told to rename it to
    example_id (EgoMemReason's hint); done, "4978 example_ids are not in the answer key". Its
    spec says what sample_id is: a file naming its questions only by it gets that, no code."""
    board = BOARDS["egoargus"]
    with pytest.raises(evaluator.SubmissionError) as info:
        evaluator.score(board.key, dumps(_release_sample_ids(board)))
    [problem] = info.value.problems
    assert "rename" not in problem and not hint_code(info.value)
    assert "sample_id is not this benchmark's id" in problem


def test_results_whose_entries_name_no_question_get_no_code() -> None:
    output = {"results": [{"question": "q", "pred": "A"}]}
    with pytest.raises(evaluator.SubmissionError) as info:
        evaluator.score(KEY, dumps(output))
    assert info.value.problems == (
        'the file is an object with a "results" list, as the reference evaluation scripts '
        'write it, but no entry of it has an id ("example_id", "sample_id" or "id"); a '
        'submission is a JSON list of {"example_id": ..., "predicted_answer": ...} objects, '
        "one per question",
    )


@pytest.mark.parametrize(("build", "words", "absent"), BAD_SUBMISSIONS)
def test_every_code_a_bad_submission_message_offers_runs(
    build: Callable[[], bytes], words: list[str], absent: list[str]
) -> None:
    data = build()
    try:
        json.loads(data)
    except (ValueError, RecursionError):
        return  # not JSON: there is no ``data`` for code to read
    run_hints(KEY, data)


# --- the rules ----------------------------------------------------------------------------------


def test_answers_are_trimmed_and_upper_cased() -> None:
    q = first(lambda q: q["correct_answer"] == "B")
    entries = perfect_entries()
    entries[index_of(q["example_id"])]["predicted_answer"] = "  b "
    result = evaluator.score(KEY, dumps(entries))
    assert result.metrics["overall"] == 100
    assert result.n_abstained == 0

    padded = [
        {"example_id": e["example_id"], "predicted_answer": f" \t{e['predicted_answer'].lower()}\n"}
        for e in perfect_entries()
    ]
    assert all(v == 100 for v in evaluator.score(KEY, dumps(padded)).metrics.values())


def test_trimmed_wrong_answer_stays_wrong() -> None:
    wrong = next(letter for letter in Q1["options"] if letter != Q1["correct_answer"])
    entries = perfect_entries()
    entries[0]["predicted_answer"] = f" {wrong.lower()} "
    result = evaluator.score(KEY, dumps(entries))
    assert result.counts["overall"].correct == 499
    assert result.n_abstained == 0


def test_null_and_empty_are_abstentions_scored_wrong() -> None:
    entries = perfect_entries()
    for e in entries[:5]:
        e["predicted_answer"] = None
    for e in entries[5:8]:
        e["predicted_answer"] = ""
    entries[8]["predicted_answer"] = "   "  # trims to ""
    result = evaluator.score(KEY, dumps(entries))
    assert result.n_abstained == 9
    assert result.counts["overall"].correct == 491
    assert result.counts["overall"].total == 500
    assert result.metrics["overall"] == 100 * 491 / 500
    assert result.counts[METRIC_OF[Q1["query_type"]]].correct == 91
    assert_scores_match(result, SAMPLES, entries)


def test_extra_keys_on_entries_are_ignored() -> None:
    entries = json.loads(SAMPLE_SUBMISSION)
    noisy = [
        {
            **e,
            "raw_response": "The answer is (Z).",
            "confidence": 0.3,
            "pred": "ZZ",
            "is_correct": True,
            "correct_answer": "A",
            "query_type": "nonsense",
            "extra": [1, {}],
        }
        for e in entries
    ]
    a = evaluator.score(KEY, dumps(noisy))
    b = evaluator.score(KEY, SAMPLE_SUBMISSION)
    assert a.model_dump(exclude={"submission_sha256"}) == b.model_dump(
        exclude={"submission_sha256"}
    )


# --- property tests -----------------------------------------------------------------------------


def test_perfect_submission_scores_100_everywhere() -> None:
    result = evaluator.score(KEY, dumps(perfect_entries()))
    assert set(result.metrics) == ALL_METRICS
    assert all(v == 100.0 for v in result.metrics.values())
    assert all(c.correct == c.total for c in result.counts.values())
    assert result.n_abstained == 0


def answer_for(q: dict[str, Any], choice: int, style: int) -> str | None:
    """Choice 0-9: an option letter; 10: null; 11: ""; 12: whitespace; 13: the right letter."""
    letters = sorted(q["options"])
    if choice == 10:
        return None
    if choice == 11:
        return ""
    if choice == 12:
        return " \t"
    letter: str = q["correct_answer"] if choice == 13 else letters[choice % len(letters)]
    return [letter, letter.lower(), f" {letter}", f"{letter.lower()} \n"][style]


answer_choices = st.tuples(st.integers(0, 13), st.integers(0, 3))


def random_entries(rng: random.Random) -> list[dict[str, Any]]:
    """A random run over the demo key (a seeded Random: 500 list draws would be slow)."""
    return [
        {
            "example_id": q["example_id"],
            "predicted_answer": answer_for(q, rng.randrange(14), rng.randrange(4)),
        }
        for q in SAMPLES
    ]


@FAST
@given(st.randoms(use_true_random=True))
def test_random_submission_scores_the_independent_count(rng: random.Random) -> None:
    entries = random_entries(rng)
    assert_scores_match(evaluator.score(KEY, dumps(entries)), SAMPLES, entries)


def random_key(
    sizes: Sequence[int], options: Sequence[int], correct: Sequence[int], ids: Sequence[int]
) -> list[dict[str, Any]]:
    """A key with ``sizes[i]`` questions of the i-th query type; options and answers cycle."""
    types = [t for t, size in zip(REAL_SPLIT_SIZES, sizes, strict=True) for _ in range(size)]
    records = []
    for n, query_type in enumerate(types):
        count = options[n % len(options)]
        records.append(
            {
                "example_id": ids[n],
                "question": f"[SYNTHETIC TEST] question {n}",
                "options": {ABCDEFGHIJK[i]: f"option {i}" for i in range(count)},
                "query_type": query_type,
                "correct_answer": ABCDEFGHIJK[correct[n % len(correct)] % count],
            }
        )
    return records


@FAST
@given(st.data())
def test_random_key_and_submission_score_the_independent_count(data: st.DataObject) -> None:
    """Uneven group sizes: micro averages weigh each question once, whatever its group."""
    sizes = data.draw(st.lists(st.integers(1, 7), min_size=6, max_size=6))
    total = sum(sizes)
    ids = data.draw(st.lists(st.integers(1, 10**6), min_size=total, max_size=total, unique=True))
    options = data.draw(st.lists(st.integers(4, 10), min_size=1, max_size=total))
    correct = data.draw(st.lists(st.integers(0, 9), min_size=1, max_size=total))
    records = random_key(sizes, options, correct, ids)
    as_object = data.draw(st.booleans())
    key_bytes = dumps({"samples": records, "key_version": "t"} if as_object else records)
    key = evaluator.kinds.multiple_choice.load_key(TRACK, key_bytes)
    picks = data.draw(st.lists(answer_choices, min_size=total, max_size=total))
    entries = [
        {"example_id": q["example_id"], "predicted_answer": answer_for(q, c, s)}
        for q, (c, s) in zip(records, picks, strict=True)
    ]
    entries = data.draw(st.permutations(entries))
    assert_scores_match(evaluator.score(key, dumps(entries)), records, entries)


@FAST
@given(st.randoms(use_true_random=True))
def test_permuting_entries_changes_nothing(rng: random.Random) -> None:
    entries = random_entries(rng)
    shuffled = rng.sample(entries, len(entries))
    if shuffled == entries:  # astronomically unlikely, but then it tests nothing
        shuffled.reverse()
    a = evaluator.score(KEY, dumps(entries))
    b = evaluator.score(KEY, dumps(shuffled))
    assert a.model_dump(exclude={"submission_sha256"}) == b.model_dump(
        exclude={"submission_sha256"}
    )
    assert b.submission_sha256 == hashlib.sha256(dumps(shuffled)).hexdigest()


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_give_a_result_or_the_domain_error(data: bytes) -> None:
    result_or_error(data)


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(
        st.sampled_from([b"[", b"{", b"[{", b'[{"example_id": ', b"\xef\xbb\xbf[", b"\xff\xfe["]),
        st.just(b""),
    ).flatmap(lambda prefix: st.binary(max_size=60).map(lambda tail: prefix + tail))
)
def test_json_like_bytes_give_a_result_or_the_domain_error(data: bytes) -> None:
    result_or_error(data)


COMPACT_SAMPLE = json.dumps(json.loads(SAMPLE_SUBMISSION), separators=(",", ":")).encode()

mutation = st.one_of(
    st.tuples(st.just("truncate"), st.integers(0, len(COMPACT_SAMPLE)), st.just(b"")),
    st.tuples(
        st.just("flip"),
        st.integers(0, len(COMPACT_SAMPLE) - 1),
        st.integers(1, 255).map(lambda b: bytes([b])),
    ),
    st.tuples(
        st.just("insert"), st.integers(0, len(COMPACT_SAMPLE)), st.binary(min_size=1, max_size=8)
    ),
    st.tuples(
        st.just("letter"),
        st.integers(0, len(SAMPLES) - 1),
        st.sampled_from([b"A", b"B", b"J", b"a", b"Z", b"", b" C "]),
    ),
)


def mutate(data: bytes, op: str, at: int, payload: bytes) -> bytes:
    if op == "truncate":
        return data[:at]
    if op == "flip":
        at %= max(len(data), 1)
        return data[:at] + bytes([data[at] ^ payload[0]]) + data[at + 1 :] if data else data
    if op == "insert":
        return data[:at] + payload + data[at:]
    # Replace the at-th answer's letter: mostly still valid, so scores get checked too.
    starts = [m.end() for m in re.finditer(rb'"predicted_answer":"', data)]
    if not starts:
        return data
    start = starts[at % len(starts)]
    end = data.find(b'"', start)
    return data if end < 0 else data[:start] + payload + data[end:]


@settings(max_examples=120, deadline=None)
@given(st.lists(mutation, min_size=1, max_size=3))
def test_mutated_real_submissions_give_a_result_or_the_domain_error(
    ops: list[tuple[str, int, bytes]],
) -> None:
    data = COMPACT_SAMPLE
    for op, at, payload in ops:
        data = mutate(data, op, at, payload)
    result_or_error(data)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
near_entries = st.fixed_dictionaries(
    {},
    optional={
        "example_id": st.one_of(st.sampled_from([1, 2, 500, 501, 0]), json_values),
        "predicted_answer": st.one_of(
            st.sampled_from(["A", "b ", "(C)", "ZZ", "", None]), json_values
        ),
        "sample_id": st.integers(0, 600),
        "pred": st.sampled_from(["A", None]),
    },
)


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(json_values, st.lists(st.one_of(near_entries, json_values), max_size=6)),
    st.booleans(),
)
def test_arbitrary_json_gives_a_result_or_the_domain_error(value: object, append: bool) -> None:
    if append and isinstance(value, list):
        value = perfect_entries() + value  # mostly valid, with a few odd entries
    result_or_error(json.dumps(value).encode())


# --- metric definitions -------------------------------------------------------------------------


def test_overall_is_a_micro_average_not_the_mean_of_memory_types() -> None:
    """Entity and behavior right, event wrong: 300/500 = 60 %, not (100 + 0 + 100) / 3."""
    entries = []
    for q in SAMPLES:
        wrong = next(letter for letter in sorted(q["options"]) if letter != q["correct_answer"])
        right = MEMORY_OF[q["query_type"]] != "event"
        entries.append(
            {
                "example_id": q["example_id"],
                "predicted_answer": q["correct_answer"] if right else wrong,
            }
        )
    result = evaluator.score(KEY, dumps(entries))
    assert result.metrics["entity"] == 100.0
    assert result.metrics["event"] == 0.0
    assert result.metrics["behavior"] == 100.0
    assert result.counts["overall"].correct == 300
    assert result.metrics["overall"] == 60.0
    macro = sum(result.metrics[m] for m in ("entity", "event", "behavior")) / 3
    assert abs(macro - 200 / 3) < 1e-12
    assert result.metrics["overall"] != macro


def test_memory_type_is_a_micro_average_of_its_query_types() -> None:
    """Query types of unequal size: entity = 4/5 = 80 %, not the mean of 100 % and 0 %."""
    records = random_key([4, 1, 1, 1, 1, 1], [4], [0], list(range(1, 10)))
    key = evaluator.kinds.multiple_choice.load_key(TRACK, dumps(records))
    entries = perfect_entries(records)
    entries[4]["predicted_answer"] = "B"  # the one Temporal Counting question, wrong
    result = evaluator.score(key, dumps(entries))
    assert result.metrics["cumulative_state_tracking"] == 100.0
    assert result.metrics["temporal_counting"] == 0.0
    assert result.metrics["entity"] == 80.0
    assert result.metrics["overall"] == 100 * 8 / 9  # unrounded: 88.88888888888889


def test_sample_submission_is_pinned_to_the_last_digit() -> None:
    result = evaluator.score(KEY, SAMPLE_SUBMISSION)
    counts = {k: (c.correct, c.total) for k, c in result.counts.items()}
    assert counts == {
        "overall": (223, 500),
        "entity": (94, 200),
        "event": (86, 200),
        "behavior": (43, 100),
        "cumulative_state_tracking": (49, 100),
        "temporal_counting": (45, 100),
        "event_ordering": (39, 100),
        "event_linking": (47, 100),
        "spatial_preference": (22, 50),
        "activity_pattern": (21, 50),
    }
    assert result.metrics["overall"] == 100 * 223 / 500 == 44.6
    assert result.metrics["spatial_preference"] == 44.0
    assert result.n_abstained == 11
    assert_scores_match(result, SAMPLES, json.loads(SAMPLE_SUBMISSION))


def test_metric_keys_and_demo_denominators() -> None:
    result = evaluator.score(KEY, SAMPLE_SUBMISSION)
    assert set(result.metrics) == set(result.counts) == set(result.intervals) == ALL_METRICS
    totals = {k: c.total for k, c in result.counts.items()}
    assert totals == {
        "overall": 500,
        "entity": 200,
        "event": 200,
        "behavior": 100,
        **{METRIC_OF[t]: n for t, n in REAL_SPLIT_SIZES.items()},
    }


Z_975 = Decimal("1.959963984540054235524594430520551527955550")  # Φ⁻¹(0.975)


def wilson_reference(correct: int, total: int) -> tuple[float, float]:
    """Wilson (1927) in its closed form, at 50 digits: (k + z²/2 ± z√(k(n-k)/n + z²/4))/(n + z²)."""
    getcontext().prec = 50
    k, n, z2 = Decimal(correct), Decimal(total), Z_975 * Z_975
    spread = Z_975 * (k * (n - k) / n + z2 / 4).sqrt()
    low = (k + z2 / 2 - spread) / (n + z2)
    high = (k + z2 / 2 + spread) / (n + z2)
    return float(100 * low), float(100 * high)


@pytest.mark.parametrize("total", [1, 2, 3, 7, 50, 100, 200, 263, 500])
def test_wilson_interval_matches_an_independent_computation(total: int) -> None:
    for correct in range(total + 1):
        low, high = evaluator.wilson_interval(correct, total)
        ref_low, ref_high = wilson_reference(correct, total)
        assert abs(low - ref_low) < 1e-9 and abs(high - ref_high) < 1e-9, (correct, total)
        assert 0.0 <= low <= 100 * correct / total <= high <= 100.0


@pytest.mark.parametrize("total", [1, 3, 10, 50, 100, 200, 500, 10_000])
def test_wilson_interval_is_exact_at_the_ends(total: int) -> None:
    assert evaluator.wilson_interval(0, total)[0] == 0.0
    assert evaluator.wilson_interval(total, total)[1] == 100.0


@pytest.mark.parametrize(
    ("correct", "total", "published"),
    [
        # Newcombe (1998), Stat. Med. 17:857-872, Table I, method 3 (Wilson score, no
        # continuity correction); published to four decimals of the proportion.
        (81, 263, (0.2553, 0.3662)),
        (15, 148, (0.0624, 0.1605)),
        (0, 20, (0.0000, 0.1611)),
        (1, 29, (0.0061, 0.1718)),
    ],
)
def test_wilson_interval_matches_published_values(
    correct: int, total: int, published: tuple[float, float]
) -> None:
    low, high = evaluator.wilson_interval(correct, total)
    assert round(low / 100, 4) == published[0]
    assert round(high / 100, 4) == published[1]


def test_result_intervals_are_the_wilson_intervals_of_their_counts() -> None:
    result = evaluator.score(KEY, SAMPLE_SUBMISSION)
    for name, count in result.counts.items():
        ref_low, ref_high = wilson_reference(count.correct, count.total)
        low, high = result.intervals[name]
        assert abs(low - ref_low) < 1e-9 and abs(high - ref_high) < 1e-9, name
    # 223/500 by hand: centre 0.44655..., so about 40.3 % to 49.0 %.
    low, high = result.intervals["overall"]
    assert 40.2 < low < 40.4 and 48.9 < high < 49.1


# --- the answer key -----------------------------------------------------------------------------


def small_key() -> list[dict[str, Any]]:
    """One question of each query type, ids 1-6, four options, answer A."""
    return random_key([1] * 6, [4], [0], list(range(1, 7)))


def test_answer_key_as_bare_list_and_as_samples_object() -> None:
    records = small_key()
    bare = dumps(records)
    wrapped = dumps({"samples": records, "key_version": "v1.1"})
    a, b = (
        evaluator.kinds.multiple_choice.load_key(TRACK, bare),
        evaluator.kinds.multiple_choice.load_key(TRACK, wrapped),
    )
    assert len(a) == len(b) == 6
    assert a.key_version is None and b.key_version == "v1.1"
    assert a.sha256 == hashlib.sha256(bare).hexdigest()
    assert b.sha256 == hashlib.sha256(wrapped).hexdigest()
    no_version = evaluator.kinds.multiple_choice.load_key(TRACK, dumps({"samples": records}))
    assert no_version.key_version is None
    entries = perfect_entries(records)
    assert evaluator.score(b, dumps(entries)).key_version == "v1.1"
    assert evaluator.score(a, dumps(entries)).metrics == evaluator.score(b, dumps(entries)).metrics


def test_answer_key_option_order_in_the_file_does_not_matter() -> None:
    records = small_key()
    records[0]["options"] = {"C": "c", "A": "a", "D": "d", "B": "b"}
    key = evaluator.kinds.multiple_choice.load_key(TRACK, dumps(records))
    entries = perfect_entries(records)
    entries[0]["predicted_answer"] = "D"
    assert evaluator.score(key, dumps(entries)).counts["overall"].correct == 5


def test_answer_key_with_ten_options_accepts_j() -> None:
    records = small_key()
    records[2]["options"] = {ABCDEFGHIJK[i]: str(i) for i in range(10)}
    records[2]["correct_answer"] = "J"
    key = evaluator.kinds.multiple_choice.load_key(TRACK, dumps(records))
    assert evaluator.score(key, dumps(perfect_entries(records))).metrics["overall"] == 100


def key_edit(change: Callable[[list[dict[str, Any]]], object]) -> Callable[[], bytes]:
    def build() -> bytes:
        records = small_key()
        change(records)
        return dumps(records)

    return build


def set_field(index: int, field: str, value: object) -> Callable[[list[dict[str, Any]]], None]:
    def change(records: list[dict[str, Any]]) -> None:
        records[index][field] = value

    return change


def eleven_duplicates(records: list[dict[str, Any]]) -> None:
    extra = copy.deepcopy(records[0])
    for i in range(11):
        records.append({**extra, "example_id": 100 + i})
        records.append({**extra, "example_id": 100 + i})


BAD_KEYS = [
    pytest.param(
        key_edit(set_field(1, "example_id", 1)), ["1 duplicate example_id (1)"], id="duplicate-id"
    ),
    pytest.param(
        key_edit(eleven_duplicates),
        ["11 duplicate example_ids (100, 101, 102, 103, 104, 105, 106, 107, 108, 109, ...)"],
        id="eleven-duplicates",
    ),
    pytest.param(
        key_edit(set_field(2, "options", {"A": "a", "B": "b", "D": "d", "E": "e"})),
        ["option letters are not A.. without gaps", "(3)"],
        id="gap-ABDE",
    ),
    pytest.param(
        key_edit(set_field(2, "options", {"A": "a", "B": "b", "D": "d"})),
        ["option letters are not A.. without gaps", "4 to 10", "(3)"],
        id="gap-ABD",
    ),
    pytest.param(
        key_edit(set_field(3, "options", {"A": "a", "B": "b", "C": "c"})),
        ["4 to 10", "(4)"],
        id="three-options",
    ),
    pytest.param(
        key_edit(set_field(4, "options", {c: c for c in ABCDEFGHIJK})),
        ["4 to 10", "(5)"],
        id="eleven-options",
    ),
    pytest.param(
        key_edit(set_field(4, "options", {c: c for c in "abcd"})),
        ["option letters", "(5)"],
        id="lower-case-options",
    ),
    pytest.param(
        key_edit(set_field(5, "correct_answer", "E")),
        ["1 question whose correct_answer is not one of their options (6)"],
        id="correct-not-an-option",
    ),
    pytest.param(
        key_edit(set_field(4, "query_type", "Spatial Preference Inference")),
        ["1 question with an unknown query_type (5)", "Spatial Preference"],
        id="unknown-query-type",
    ),
    pytest.param(
        key_edit(lambda r: r.pop()),
        ["no questions of query type Activity Pattern"],
        id="query-type-absent",
    ),
    pytest.param(
        key_edit(set_field(1, "example_id", "7")), ["example_id '7'", "integer"], id="string-id"
    ),
    pytest.param(key_edit(set_field(1, "example_id", -2)), ["non-negative"], id="negative-id"),
    pytest.param(
        key_edit(lambda r: r[1].pop("question")), ["example_id 2", "question"], id="missing-field"
    ),
    pytest.param(
        key_edit(
            lambda r: [set_field(1, "example_id", 1)(r), set_field(5, "correct_answer", "Z")(r)]
        ),
        ["duplicate example_id (1)", "correct_answer is not one of their options (6)"],
        id="several-problems",
    ),
    pytest.param(lambda: dumps({"questions": small_key()}), ['"samples"'], id="wrong-object"),
    pytest.param(lambda: b"[{", ["not valid UTF-8 JSON"], id="not-json"),
    pytest.param(lambda: b"[" * 100_000, ["not valid UTF-8 JSON"], id="deep-nesting"),
]


@pytest.mark.parametrize(("build", "words"), BAD_KEYS)
def test_bad_answer_key_message(build: Callable[[], bytes], words: list[str]) -> None:
    with pytest.raises(evaluator.AnswerKeyError) as info:
        evaluator.kinds.multiple_choice.load_key(TRACK, build())
    for word in words:
        assert word in str(info.value), f"{word!r} not in {str(info.value)!r}"


def test_small_key_is_valid() -> None:
    """The base of the bad-key table loads, so each edit is what breaks it."""
    assert len(evaluator.kinds.multiple_choice.load_key(TRACK, dumps(small_key()))) == 6


# --- determinism and provenance -----------------------------------------------------------------


def test_same_bytes_give_the_same_result() -> None:
    a = evaluator.score(KEY, SAMPLE_SUBMISSION)
    b = evaluator.score(
        evaluator.kinds.multiple_choice.load_key(TRACK, KEY_BYTES), bytes(SAMPLE_SUBMISSION)
    )
    assert a.model_dump() == b.model_dump()
    assert a.model_dump_json() == b.model_dump_json()


def test_result_carries_hashes_and_scorer_version() -> None:
    result = evaluator.score(KEY, SAMPLE_SUBMISSION)
    assert result.submission_sha256 == hashlib.sha256(SAMPLE_SUBMISSION).hexdigest()
    assert result.answer_key_sha256 == hashlib.sha256(KEY_BYTES).hexdigest()
    assert result.scorer_version == "egomemreason-scorer 1.0"  # published in every record
    assert isinstance(result.scorer_version, str) and result.scorer_version
    assert result.key_version == "demo-1"


@pytest.mark.slow
def test_result_is_bit_identical_across_processes_and_hash_seeds() -> None:
    code = (
        "import evaluator, spec; b = spec.load_benchmark('egomemreason'); d = b.demo_dir; "
        "k = evaluator.kinds.multiple_choice.load_key(b.track(), (d / 'annotations_private.json')"
        ".read_bytes()); "
        "print(evaluator.score(k, (d / 'sample_submission.json').read_bytes())"
        ".model_dump_json())"
    )
    outputs = []
    for seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        outputs.append(done.stdout)
    here = evaluator.score(KEY, SAMPLE_SUBMISSION).model_dump_json()
    assert outputs[0] == outputs[1] == here + "\n"


# --- purity ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_evaluator_does_not_import_gradio_or_the_hub_at_runtime() -> None:
    code = (
        "import evaluator, sys; "
        "assert 'gradio' not in sys.modules and 'huggingface_hub' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=60)


def test_evaluator_source_imports_nothing_with_io() -> None:
    imported: set[str] = set()
    # Every module of the package but the decision kind's (its seeded bootstrap draws from
    # random; tests/evaluator/test_decision.py checks its imports).
    trees = [
        ast.parse(p.read_text(encoding="utf-8"))
        for p in (ROOT / "evaluator").rglob("*.py")
        if "decision" not in p.parts
    ]
    for node in (n for tree in trees for n in ast.walk(tree)):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert "pydantic" in imported  # the walk sees the imports at all
    forbidden = {
        "gradio",
        "huggingface_hub",
        "ledger",
        "app",
        "requests",
        "httpx",
        "urllib",
        "socket",
        "os",
        "pathlib",
        "io",
        "time",
        "datetime",
        "random",
    }
    assert not imported & forbidden


# --- the demo data --------------------------------------------------------------------------------


def test_demo_key_has_the_real_split_sizes() -> None:
    assert Counter(q["query_type"] for q in SAMPLES) == REAL_SPLIT_SIZES
    assert sorted(q["example_id"] for q in SAMPLES) == list(range(1, 501))


def test_demo_key_options_are_four_to_ten_letters_from_a() -> None:
    sizes = Counter(len(q["options"]) for q in SAMPLES)
    assert min(sizes) == 4 and max(sizes) == 10
    for q in SAMPLES:
        assert list(q["options"]) == list("ABCDEFGHIJ"[: len(q["options"])]), q["example_id"]
        assert q["correct_answer"] in q["options"]
    assert any(len(q["options"]) == 10 for q in SAMPLES if q["query_type"] == "Event Ordering")


def test_demo_questions_are_all_marked_synthetic() -> None:
    assert all(q["question"].startswith("[SYNTHETIC DEMO] ") for q in SAMPLES)


def test_demo_public_file_is_the_key_without_answers() -> None:
    lines = (DEMO / "annotations_public.jsonl").read_text(encoding="utf-8").splitlines()
    public = [json.loads(line) for line in lines]
    # ...and every row names the key's version, so whoever answers it knows which letters.
    assert public == [
        {**{k: v for k, v in q.items() if k != "correct_answer"}, "key_version": "demo-1"}
        for q in SAMPLES
    ]
    assert all("correct_answer" not in record for record in public)


@pytest.mark.slow
def test_make_demo_data_regenerates_the_committed_files(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(DEMO / "make_demo_data.py"), "--out-dir", str(tmp_path)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=120,
    )
    for name in ("annotations_private.json", "annotations_public.jsonl", "sample_submission.json"):
        assert (tmp_path / name).read_bytes() == (DEMO / name).read_bytes(), name


def test_a_list_far_longer_than_the_key_is_refused_before_its_entries_are_read() -> None:
    key = evaluator.kinds.multiple_choice.load_key(
        TRACK, (DEMO / "annotations_private.json").read_bytes()
    )
    too_long = [0] * (evaluator.MAX_ENTRIES_PER_QUESTION * len(key) + 1)
    with pytest.raises(
        evaluator.SubmissionError,
        match=r"the list has 2001 entries; expected "
        r"one entry for each of the 500 questions$",
    ):
        evaluator.score(key, json.dumps(too_long).encode())


# --- the key against its spec ---------------------------------------------------------------------


def test_the_demo_key_has_the_sizes_its_spec_declares() -> None:
    assert evaluator.size_problems(KEY) == []


def test_a_key_with_a_group_of_the_wrong_size_is_named_by_size_problems() -> None:
    records = [q for q in SAMPLES if q["example_id"] != 500]  # an Activity Pattern question
    problems = evaluator.size_problems(
        evaluator.kinds.multiple_choice.load_key(TRACK, dumps(records))
    )
    assert problems == [
        "1 of the 6 query_type groups differ from the spec: Activity Pattern has 49 (expected 50)"
    ]
