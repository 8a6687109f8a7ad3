"""The spec keys of issue 28, in process: a JSON file written by levels (keyed by id, nested
down to lists), options written inside the question, answers written "B. right", the
prediction forms a benchmark opts into, and a track without groups; each with the messages a
wrong file gets.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import evaluator
import spec
from errors import AnswerKeyError, PublicFileError

BASE: dict[str, Any] = {
    "id": "main",
    "title": "Main",
    "kind": "multiple_choice",
    "scorer_version": "x 1",
    "min_rows": 1,
    "key": {"name": "key.json", "format": "json"},
    "public": {"name": "public.json", "format": "json"},
    "options": {"letters": "ABC", "min": 2, "max": 3},
    "views": [{"title": "Board"}],
}


def _track(fields: dict[str, Any], **more: Any) -> spec.MultipleChoiceTrack:
    return spec.MultipleChoiceTrack.model_validate(
        {**BASE, "fields": fields, "overall": {"size": 4}, **more}
    )


def _score(track: spec.MultipleChoiceTrack, key: object, submission: object) -> Any:
    answer_key = evaluator.kinds.multiple_choice.load_key(track, json.dumps(key).encode())
    return evaluator.score(answer_key, json.dumps(submission).encode())


def _refusal(track: spec.MultipleChoiceTrack, key: object, submission: object) -> str:
    with pytest.raises(evaluator.SubmissionError) as raised:
        _score(track, key, submission)
    return "; ".join(raised.value.problems)


NESTED = {
    "v1": {
        "color": [
            {"question": "q?", "events": ["red", "blue"], "answer": "B"},
            {"question": "r?", "events": ["red", "blue", "green"], "answer": "C"},
        ],
        "count": [{"question": "s?", "events": ["one", "two"], "answer": "A"}],
    },
    "v2": {"count": [{"question": "t?", "events": ["one", "two"], "answer": "A"}]},
}
NESTED_FIELDS = {
    "id": ["video", "dimension", "position"],
    "levels": ["video", "dimension"],
    "options": "events",
    "answer": "answer",
    "prediction": "prediction",
}


def test_a_nested_key_s_path_and_place_make_each_row_s_id() -> None:
    track = _track(NESTED_FIELDS)
    key = evaluator.kinds.multiple_choice.load_key(track, json.dumps(NESTED).encode())
    assert key.ids == ("v1_color_0", "v1_color_1", "v1_count_0", "v2_count_0")
    assert key.questions[1].options == {"A": "red", "B": "blue", "C": "green"}


def test_predictions_nested_like_the_key_score_as_a_list_of_ids_does() -> None:
    track = _track(NESTED_FIELDS)
    nested = json.loads(json.dumps(NESTED))
    for dimensions in nested.values():
        for rows in dimensions.values():
            for row in rows:
                row["prediction"] = "A"
    flat = [{"video": "v1", "dimension": "color", "position": 0, "prediction": "A"}]
    flat += [{"video": "v1", "dimension": "color", "position": 1, "prediction": "A"}]
    flat += [{"video": "v1", "dimension": "count", "position": 0, "prediction": "A"}]
    flat += [{"video": "v2", "dimension": "count", "position": 0, "prediction": "A"}]
    by_id = {"v1_color_0": "A", "v1_color_1": "A", "v1_count_0": "A", "v2_count_0": "A"}
    scores = [_score(track, NESTED, s).counts["overall"] for s in (nested, flat, by_id)]
    assert [(c.correct, c.total) for c in scores] == [(2, 4)] * 3
    # A row missing from a nested file is named by its id.
    del nested["v2"]
    assert "1 question has no answer (v2_count_0)" in _refusal(track, NESTED, nested)


def test_a_keyed_key_gives_each_row_its_key_as_the_id() -> None:
    track = _track({"id": "qid", "id_type": "string", "levels": ["qid"], "answer": "answer"})
    key = {
        "a1": {"question": "q?", "options": {"A": "x", "B": "y"}, "answer": "B"},
        "a2": {"question": "r?", "options": {"A": "x", "B": "y"}, "answer": "A"},
        "a3": {"question": "s?", "options": {"A": "x", "B": "y"}, "answer": "A"},
        "a4": {"question": "t?", "options": {"A": "x", "B": "y"}, "answer": "A"},
    }
    assert _score(track, key, {"a1": "B", "a2": "B", "a3": None, "a4": "A"}).metrics == {
        "overall": 50.0
    }
    # A row that names another id of its own than its key is refused, naming both.
    clash = {**key, "a2": {**key["a2"], "qid": "a9"}}
    with pytest.raises(AnswerKeyError, match=r"the row at 'a2' has a qid of its own \('a9'\)"):
        evaluator.kinds.multiple_choice.load_key(track, json.dumps(clash).encode())
    with pytest.raises(AnswerKeyError, match="the top level is a JSON list; the file is written"):
        evaluator.kinds.multiple_choice.load_key(track, json.dumps(list(key.values())).encode())


INLINE = [
    {"qid": "a", "question": "Where?\nA. left\nB. right", "answer": "B. right"},
    {"qid": "b", "question": "How many?\nA) one\nB) two\nC) three", "answer": "A. one"},
    {"qid": "c", "question": "Which?\nA. x\nB. y", "answer": "A. x"},
    {"qid": "d", "question": "Why?\nA. p\nB. q\nC. r", "answer": "C. r"},
]
INLINE_FIELDS = {
    "id": "qid",
    "id_type": "string",
    "options": "question",
    "answer": "answer",
    "answer_format": "letter_text",
}


def test_options_written_inside_the_question_and_answers_written_letter_dot_text() -> None:
    track = _track(INLINE_FIELDS)
    key = evaluator.kinds.multiple_choice.load_key(track, json.dumps(INLINE).encode())
    assert [q.text for q in key.questions] == ["Where?", "How many?", "Which?", "Why?"]
    assert [q.answer for q in key.questions] == ["B", "A", "A", "C"]
    assert key.questions[1].options == {"A": "one", "B": "two", "C": "three"}
    # A prediction is a letter, or written as the key writes its answers; not "B)" or a text.
    entries = [
        {"qid": "a", "predicted_answer": "B. right"},
        {"qid": "b", "predicted_answer": "a"},
        {"qid": "c", "predicted_answer": "B"},
        {"qid": "d", "predicted_answer": None},
    ]
    assert _score(track, INLINE, entries).counts["overall"].correct == 2
    entries[2] = {"qid": "c", "predicted_answer": "A. y"}  # the letter's text is another's
    assert "1 answer carries more than the option letter" in _refusal(track, INLINE, entries)


def test_a_key_whose_answer_text_is_not_its_letter_s_is_refused() -> None:
    track = _track(INLINE_FIELDS)
    bad = [*INLINE[:3], {**INLINE[3], "answer": "C. q"}]
    with pytest.raises(AnswerKeyError, match=r"1 question whose answer is not one of their"):
        evaluator.kinds.multiple_choice.load_key(track, json.dumps(bad).encode())
    unsplit = [*INLINE[:3], {**INLINE[3], "question": "Why? p, q or r"}]
    with pytest.raises(AnswerKeyError, match=r"the options are not written at the end of the"):
        evaluator.kinds.multiple_choice.load_key(track, json.dumps(unsplit).encode())


def test_the_forms_a_spec_declares_read_a_prefixed_letter_or_an_option_s_text() -> None:
    entries = [
        {"qid": "a", "predicted_answer": "B) right"},
        {"qid": "b", "predicted_answer": "A."},
        {"qid": "c", "predicted_answer": "x"},
        {"qid": "d", "predicted_answer": "C. anything"},
    ]
    plain = _track(INLINE_FIELDS)
    assert "3 answers" in _refusal(plain, INLINE, entries)  # none of these read by default
    prefixed = _track({**INLINE_FIELDS, "prediction_forms": ["letter_prefix"]})
    assert "1 answer is not among" in _refusal(prefixed, INLINE, entries)  # "x" is not read
    both = _track({**INLINE_FIELDS, "prediction_forms": ["letter_prefix", "option_text"]})
    assert _score(both, INLINE, entries).counts["overall"].correct == 4


def test_a_track_without_groups_shows_overall_alone_and_declares_its_rows() -> None:
    track = _track(INLINE_FIELDS)
    assert track.groupings == () and track.metric_keys == ("overall",) and track.total == 4
    result = _score(track, INLINE, [{"qid": q["qid"], "predicted_answer": "A"} for q in INLINE])
    assert set(result.counts) == {"overall"} and result.counts["overall"].total == 4
    problems = _track(INLINE_FIELDS, overall={}).problems("tracks[0]")
    assert problems == [
        "tracks[0].overall.size: a track without groupings declares its rows here, e.g. "
        "overall = { size = 431 }"
    ]
    key = evaluator.kinds.multiple_choice.load_key(track, json.dumps(INLINE[:3]).encode())
    assert evaluator.size_problems(key) == [
        "the key has 3 rows; the spec declares 4 (overall.size)"
    ]


def test_levels_that_repeat_a_field_are_a_spec_error() -> None:
    track = _track({**NESTED_FIELDS, "levels": ["video", "position"]})
    assert "tracks[0].fields.levels: expected distinct fields, none of them the position" in (
        "; ".join(track.problems("tracks[0]"))
    )


def test_a_public_file_written_by_levels_is_checked_as_the_key_is() -> None:
    track = _track(NESTED_FIELDS)
    public = json.loads(json.dumps(NESTED))
    for dimensions in public.values():
        for rows in dimensions.values():
            for row in rows:
                del row["answer"]
    questions = evaluator.load_questions(track, json.dumps(public).encode())
    assert len(questions) == 4
    public["v2"]["count"][0]["events"] = "one or two"
    with pytest.raises(PublicFileError, match="v2_count_0"):
        evaluator.load_questions(track, json.dumps(public).encode())


def test_letter_dot_text_answers_under_another_format_are_told_the_format_to_set() -> None:
    track = _track({**INLINE_FIELDS, "answer_format": "letter"})
    with pytest.raises(AnswerKeyError, match=r'set fields\.answer_format = "letter_text"'):
        evaluator.kinds.multiple_choice.load_key(track, json.dumps(INLINE).encode())
