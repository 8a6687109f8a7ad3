"""The short-answer kind (issue 29) in process: a key keyed by id with multiple-choice and open
questions and its groups in the ids, what it refuses and why, a submission's shapes and
problems, abstentions and responses written as numbers, the answers' digest without the key,
withholding, chance, the release checks and the About's account of the rules.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

import evaluator
import spec
from errors import AnswerKeyError, ReleaseError, SpecError, SubmissionError
from evaluator.kinds import short_answer
from maintainer import release

ROWS: dict[str, dict[str, Any]] = {
    **{
        f"val_Alpha_{n}": {"question_type": "multiple-choice", "ground_truth": "ABCD"[n % 4]}
        for n in range(1, 23)
    },
    **{
        f"val_Beta_{n}": {"question_type": "multiple-choice", "ground_truth": "ABCD"[n % 4]}
        for n in range(1, 21)
    },
    "val_Beta_21": {"question_type": "short-answer", "ground_truth": "2,000"},
    "val_Beta_22": {"question_type": "short-answer", "ground_truth": ["six", "6"]},
}


def make_track(**changes: Any) -> spec.ShortAnswerTrack:
    data: dict[str, Any] = {
        "id": "main",
        "title": "Main",
        "kind": "short_answer",
        "scorer_version": "t 1",
        "key": {"name": "key.json", "format": "json"},
        "public": {"name": "public.json", "format": "json"},
        "options": {"letters": "ABCD"},
        "fields": {
            "id": "id",
            "levels": ["id"],
            "answer": "ground_truth",
            "prediction": "response",
            "prediction_aliases": ["pred"],
            "id_pattern": r"val_(?P<subject>[A-Za-z]+)_\d+",
        },
        "types": {
            "field": "question_type",
            "choice": ["multiple-choice"],
            "open": ["short-answer"],
        },
        "groupings": [
            {
                "id": "subject",
                "field": "subject",
                "title": "Subject",
                "groups": [
                    {"value": "Alpha", "key": "alpha", "label": "Alpha", "size": 22},
                    {"value": "Beta", "key": "beta", "label": "Beta", "size": 22},
                ],
            }
        ],
        "views": [{"title": "Subjects", "metrics": ["alpha", "beta"]}],
    }
    data.update(changes)
    return spec.ShortAnswerTrack.model_validate(data)


TRACK = make_track()


def key_of(rows: dict[str, Any] | None = None, track: spec.ShortAnswerTrack = TRACK) -> Any:
    return evaluator.load_answer_key(track, json.dumps(ROWS if rows is None else rows).encode())


def right_answers() -> dict[str, Any]:
    return {
        i: r["ground_truth"] if isinstance(r["ground_truth"], str) else "6" for i, r in ROWS.items()
    }


def test_a_key_by_id_reads_its_types_its_answers_and_its_groups_from_the_ids() -> None:
    key = key_of()
    assert len(key) == 44 and key.track is TRACK
    beta = {q.id: q for q in key.questions}["val_Beta_22"]
    assert (beta.choice, beta.answers, beta.rule, beta.groups) == (
        False,
        ("six", "6"),
        "open",
        ("Beta",),
    )
    first = key.questions[0]
    assert (first.choice, first.letters, first.rule) == (True, tuple("ABCD"), "exact")
    result = evaluator.score(key, json.dumps(right_answers()).encode())
    assert {k: (c.correct, c.total) for k, c in result.counts.items()} == {
        "overall": (44, 44),
        "alpha": (22, 22),
        "beta": (22, 22),
    }
    assert result.chance == pytest.approx(100 * 42 / 4 / 44)
    assert evaluator.size_problems(key) == []


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ({"question_type": "multiple-choice", "ground_truth": "E"}, "one of the letters A-D, got"),
        ({"question_type": "multiple-choice", "ground_truth": "b"}, "one of the letters A-D"),
        ({"question_type": "short-answer", "ground_truth": []}, "an open answer is a text"),
        ({"question_type": "short-answer", "ground_truth": True}, "an open answer is a text"),
        ({"question_type": "short-answer", "ground_truth": " "}, "an open answer is a text"),
        ({"question_type": "essay", "ground_truth": "x"}, "question_type: expected one of"),
        ({"question_type": "short-answer"}, "ground_truth: Field required"),
    ],
)
def test_a_key_row_that_is_not_a_question_of_its_type_is_refused(
    row: dict[str, Any], problem: str
) -> None:
    with pytest.raises(AnswerKeyError) as caught:
        key_of({**ROWS, "val_Alpha_1": row})
    assert "val_Alpha_1" in str(caught.value) and problem in str(caught.value)


def test_an_id_the_pattern_does_not_match_is_refused_naming_it() -> None:
    with pytest.raises(AnswerKeyError, match=r"1 id does not match fields.id_pattern .*val_9"):
        key_of({**ROWS, "val_9": {"question_type": "short-answer", "ground_truth": "x"}})


def test_the_sizes_the_spec_declares_are_checked() -> None:
    rows = {k: v for k, v in ROWS.items() if k != "val_Alpha_1"}
    assert evaluator.size_problems(key_of(rows)) == [
        "1 of the 2 subject groups differ from the spec: Alpha has 21 (expected 22)"
    ]


def test_a_response_may_be_a_number_and_null_or_empty_abstains() -> None:
    answers = right_answers()
    answers.update({"val_Beta_21": 2000, "val_Beta_22": None, "val_Alpha_1": ""})
    result = evaluator.score(key_of(), json.dumps(answers).encode())
    assert result.counts["overall"].correct == 42 and result.n_abstained == 2
    answers["val_Alpha_2"] = 3  # "3" is not the letter
    assert evaluator.score(key_of(), json.dumps(answers).encode()).counts["alpha"].correct == 20


def test_the_questions_a_file_is_checked_against_come_in_the_key_s_order() -> None:
    key = key_of()
    assert list(key.asked.ids) == list(key.ids) == list(ROWS)


def test_every_shape_a_submission_takes_scores_the_same() -> None:
    answers = right_answers()
    keyed = json.dumps(answers).encode()
    nested = json.dumps({i: {"response": a} for i, a in answers.items()}).encode()
    listed = json.dumps([{"id": i, "response": a} for i, a in answers.items()]).encode()
    lines = "".join(json.dumps({"id": i, "response": a}) + "\n" for i, a in answers.items())
    digests = {
        evaluator.score(key_of(), data).answers_sha256
        for data in (keyed, nested, listed, lines.encode())
    }
    assert len(digests) == 1
    assert evaluator.answers_sha256(TRACK, keyed) == digests.pop()


def test_the_answers_digest_read_without_the_key_is_the_scored_one() -> None:
    answers: dict[str, Any] = {i: "B" for i in ROWS}
    answers.update({"val_Alpha_3": None, "val_Alpha_4": "", "val_Beta_21": 2000.5})
    data = json.dumps(answers).encode()
    assert evaluator.answers_sha256(TRACK, data) == evaluator.score(key_of(), data).answers_sha256
    assert evaluator.answers_sha256(TRACK, b'{"val_Alpha_1": [1]}') is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"val_Alpha_1": ["B"]},
            '1 entry has a "response" that is neither a text nor a number (e.g. the 1st entry '
            "(id val_Alpha_1): a JSON list); write the model's answer as a text, or null to "
            "abstain",
        ),
        ({"val_Alpha_1": True}, 'a "response" that is neither a text nor a number'),
        ({"val_Alpha_99": "B"}, "1 id is not in the answer key (val_Alpha_99)"),
    ],
)
def test_a_response_that_is_no_text_is_refused_with_its_id(
    change: dict[str, Any], message: str
) -> None:
    with pytest.raises(SubmissionError) as caught:
        evaluator.score(key_of(), json.dumps({**right_answers(), **change}).encode())
    assert message in str(caught.value)


def test_a_missing_response_and_a_renamed_field_are_told_apart() -> None:
    answers = right_answers()
    del answers["val_Alpha_1"]
    with pytest.raises(SubmissionError, match=r"1 question has no answer \(val_Alpha_1\)"):
        evaluator.score(key_of(), json.dumps(answers).encode())
    listed = [{"id": i, "pred": a} for i, a in right_answers().items()]
    with pytest.raises(SubmissionError, match='44 entries use "pred"'):
        evaluator.score(key_of(), json.dumps(listed).encode())
    with pytest.raises(SubmissionError, match="none of whose keys is an id"):
        evaluator.score(key_of(), b'{"something": "else"}')


def test_a_subject_answered_on_few_questions_is_withheld_with_what_it_gives() -> None:
    answers: dict[str, Any] = {i: None for i in ROWS}
    answers.update({f"val_Alpha_{n}": "A" for n in range(1, 6)})
    answers.update({f"val_Beta_{n}": "A" for n in range(1, 23)})
    result = evaluator.score(key_of(), json.dumps(answers).encode())
    assert set(result.withheld) == {"overall", "alpha"}
    assert result.withheld["alpha"].startswith("withheld: computed over 5 answered questions")
    shown = evaluator.disclosed(TRACK, result)
    assert set(shown.metrics) == {"beta"}


def test_letters_against_another_order_score_below_chance_and_are_told_so() -> None:
    gamma = {"question_type": "multiple-choice", "ground_truth": "B"}
    rows = {**ROWS, **{f"val_Gamma_{n}": gamma for n in range(1, 41)}}  # a narrower interval
    track = make_track(groupings=[], overall={"size": len(rows)}, views=[{"title": "Overall"}])
    answers = {i: ("B" if r["ground_truth"] == "A" else "A") for i, r in rows.items()}
    result = evaluator.score(key_of(rows, track), json.dumps(answers).encode())
    assert result.counts["overall"].correct == 0 and result.below_chance
    warning = evaluator.chance_warning(track, result)
    assert warning is not None and "a random letter for each multiple-choice question" in warning


def _public(rows: dict[str, Any]) -> bytes:
    return json.dumps(
        {i: {k: v for k, v in r.items() if k != "ground_truth"} for i, r in rows.items()}
    ).encode()


def test_a_release_whose_public_file_describes_its_key_passes_and_says_what_it_holds() -> None:
    report = release.check_release(TRACK, json.dumps(ROWS).encode(), _public(ROWS))
    assert (
        "42 multiple-choice and 2 open questions, 42 by the rule set 'exact', 2 by the rule "
        "set 'open'" in report.summary()
    )


def test_a_public_file_with_answers_or_other_types_is_refused() -> None:
    leaked = json.loads(_public(ROWS))
    leaked["val_Alpha_1"]["ground_truth"] = "B"
    leaked["val_Alpha_2"]["question_type"] = "short-answer"
    with pytest.raises(ReleaseError) as caught:
        release.check_release(TRACK, json.dumps(ROWS).encode(), json.dumps(leaked).encode())
    problems = str(caught.value)
    assert "1 row of the public file carries a ground_truth (val_Alpha_1)" in problems
    assert "1 question whose types differ (val_Alpha_2)" in problems


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"id_pattern": r"val_(.+)_\d+"}, "expected a regular expression with named groups"),
        ({"id_pattern": r"val_(?P<Subject>.+)"}, "Subject is not one"),
        ({"id_pattern": r"val_(?P<id>.+)"}, "its group 'id' names a field the rows have"),
        ({"id_pattern": "val_("}, "not a regular expression"),
    ],
)
def test_an_id_pattern_that_gives_no_field_is_a_spec_problem(
    fields: dict[str, Any], problem: str
) -> None:
    data = TRACK.model_dump()
    data["fields"] = {**data["fields"], **fields}
    try:
        track = spec.ShortAnswerTrack.model_validate(data)
    except ValueError as exc:
        assert problem in str(exc)
    else:
        assert any(problem in p for p in track.problems("tracks[0]")), track.problems("tracks[0]")


def test_a_spec_folder_of_this_kind_loads_and_names_its_toml_paths(tmp_path: Any) -> None:
    track = TRACK.model_dump(mode="json", by_alias=True)
    track["rules"] = {"open": "lenient"}
    with pytest.raises(SpecError, match=r"tracks\[0\]\.rules\.open: no rule set 'lenient'"):
        spec.parse_benchmark(
            {
                "id": "x",
                "title": "X",
                "description": "X.",
                "contact_email": "x@example.org",
                "hub": {"private_repo": "a/b", "records_repo": "a/c"},
                "input": {"choices": {"default": "Default"}},
                "tracks": [track],
            },
            tmp_path,
        )


def test_the_about_says_what_the_declared_rules_do() -> None:
    text = short_answer.about(TRACK)
    assert (
        "- `exact`, for multiple-choice questions (question_type `multiple-choice`): the "
        "response must be exactly the answer" in text
    )
    assert '`"could be "`, `"so "`' in text and '`"="` on the last line only' in text
    assert "rounded to 2 decimals" in text and "holds an answer" in text
    loose = make_track(
        rules={"open": "loose", "sets": {"loose": {"numeric": True, "tolerance": 0.5}}}
    )
    assert "within 0.5 of one" in short_answer.about(loose)


def test_multiple_choice_questions_with_options_take_their_own_letters() -> None:
    """A release may carry a question's options (and its text): its letters are its options',
    its chance 1 / their number, and the public file must describe both."""
    track = make_track(
        fields={**TRACK.fields.model_dump(), "question": "question", "options": "options"},
        groupings=[],
        overall={"size": 3},
        views=[{"title": "Overall"}],
    )
    rows: dict[str, dict[str, Any]] = {
        "val_A_1": {"question_type": "multiple-choice", "question": "Which?",
                    "options": ["red", "blue", "green"], "ground_truth": "C"},
        "val_A_2": {"question_type": "multiple-choice", "question": "Which two?",
                    "options": {"A": "one", "B": "two"}, "ground_truth": "B"},
        "val_A_3": {"question_type": "short-answer", "question": "How many?",
                    "ground_truth": "3"},
    }  # fmt: skip
    key = key_of(rows, track)
    assert [q.letters for q in key.questions] == [("A", "B", "C"), ("A", "B"), ()]
    assert key.chance == (Fraction(1, 3) + Fraction(1, 2)) / 3
    with pytest.raises(AnswerKeyError, match='one of the letters A-B, got "C"'):
        key_of({**rows, "val_A_2": {**rows["val_A_2"], "ground_truth": "C"}}, track)
    public = json.loads(_public(rows))
    public["val_A_1"]["options"] = ["red", "green", "blue"]
    public["val_A_3"]["question"] = "How many? (again)"
    with pytest.raises(ReleaseError) as caught:
        release.check_release(track, json.dumps(rows).encode(), json.dumps(public).encode())
    assert "1 question whose options differ (val_A_1)" in str(caught.value)
    assert "1 question whose question texts differ (val_A_3)" in str(caught.value)


def test_a_min_rows_above_a_subject_is_warned_of_with_the_fix() -> None:
    assert evaluator.release_warnings(key_of()) == []
    warnings = evaluator.release_warnings(key_of(track=make_track(min_rows=23)))
    assert len(warnings) == 2
    assert warnings[0].startswith("min_rows = 23 is above the 22 questions of the group Alpha")
    assert "lower min_rows to 22" in warnings[0]
