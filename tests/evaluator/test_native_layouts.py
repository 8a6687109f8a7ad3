"""Each key of issue 19, in process: a composed id, options in columns or as a list, the answer
formats, a group over several values, submissions keyed by id or in JSON Lines, the spec's own
hints, and the messages that follow (index-looking answers, ids shifted by one, exact chance).

The releases are ``tests.support.native_releases``'; the end-to-end runs through the app and
the scripts are ``tests/app/test_native_layouts.py``.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

import evaluator
import spec
from errors import AnswerKeyError
from tests.support.native_releases import Release, authors_numbers, write_release


def _track(release: Release, **fields: Any) -> spec.MultipleChoiceTrack:
    """The release's track, its fields changed by ``fields``."""
    track = spec.load_benchmark(str(release.folder)).track(kind=spec.MultipleChoiceTrack)
    data = track.model_dump()
    data["fields"].update(fields)
    return spec.MultipleChoiceTrack.model_validate(data)


def _key(release: Release, track: spec.MultipleChoiceTrack | None = None) -> evaluator.AnswerKey:
    track = track or _track(release)
    return evaluator.kinds.multiple_choice.load_key(track, release.key.read_bytes())


def _problems(key: evaluator.AnswerKey, submission: object) -> list[str]:
    with pytest.raises(evaluator.SubmissionError) as raised:
        evaluator.score(key, json.dumps(submission).encode())
    return list(raised.value.problems)


@pytest.fixture
def videoqa(tmp_path: Path) -> Release:
    return write_release(tmp_path, "videoqa")


@pytest.fixture
def textqa(tmp_path: Path) -> Release:
    return write_release(tmp_path, "textqa")


@pytest.fixture
def onebased(tmp_path: Path) -> Release:
    return write_release(tmp_path, "onebased")


# --- the spec's keys -------------------------------------------------------------------------


def test_an_id_of_two_fields_is_their_values_joined_by_id_join(videoqa: Release) -> None:
    key = _key(videoqa)
    assert key.ids[:2] == ("vid000_0", "vid000_1") and len(set(key.ids)) == 60
    slashed = _key(videoqa, _track(videoqa, id_join="/"))
    assert slashed.ids[0] == "vid000/0"
    # A list entry may name the id's fields instead of the joined id.
    entries = [
        {"video": video, "qid": int(qid), "prediction": 0}
        for video, qid in (str(i).split("_") for i in key.ids)
    ]
    assert evaluator.score(key, json.dumps(entries).encode()).n_questions == 60
    entries[3] = {"video": "vid000", "prediction": 0}
    assert _problems(key, entries)[0] == (
        '1 entry has no "video" and "qid" (the fields its id is made of) (e.g. the 4th entry)'
    )


def test_a_key_row_without_an_id_part_names_that_field(videoqa: Release) -> None:
    """Not the id's inner name ("video+qid: Field required", as it was): the field to fill."""
    lines = videoqa.key.read_text().splitlines()
    lines[2] = lines[2].replace("vid000,1,", "vid000,,", 1)
    with pytest.raises(AnswerKeyError) as raised:
        evaluator.kinds.multiple_choice.load_key(_track(videoqa), "\n".join(lines).encode())
    assert (
        "the 2nd question: qid: Field required (a text or an integer: the id joins video and qid)"
        in str(raised.value)
    )
    assert "video+qid" not in str(raised.value)


def test_a_composed_id_is_a_string_id() -> None:
    assert spec.Fields.model_validate({"id": ["video", "qid"]}).id_type == "string"
    fields = spec.Fields.model_validate({"id": ["video", "qid"], "id_type": "integer"})
    assert fields.id_problems("tracks[0].fields") == [
        'tracks[0].fields.id_type: a composed id (id a list of fields) is a string: write "string" '
        "or drop id_type"
    ]
    with pytest.raises(ValueError, match="a list of 2 or more distinct field names"):
        spec.Fields.model_validate({"id": ["video"]})


def test_options_in_columns_end_at_the_first_empty_one(videoqa: Release) -> None:
    key = _key(videoqa)
    assert [len(q.options) for q in key.questions[:3]] == [4, 5, 5]  # a4 empty on the first
    rows = [q.record for q in key.questions]
    gap = [{k: v for k, v in r.items() if k != "a0+a1+a2+a3+a4"} for r in rows]
    gap[0] = {**gap[0], "a2": ""}  # a3 follows an empty a2
    track = _track(videoqa)
    with pytest.raises(evaluator.AnswerKeyError, match="a non-empty option after an empty one"):
        evaluator.parse_answer_key(track, gap)


def test_options_as_a_json_list_are_lettered_in_order(textqa: Release) -> None:
    key = _key(textqa)
    first = json.loads(textqa.key.read_text())[0]
    assert key.questions[0].options == dict(zip("ABC", first["choices"], strict=True))


def test_every_answer_format_scores_as_the_same_letter(onebased: Release) -> None:
    """One release written four ways (letters, 0-based, 1-based, texts): one key, one score."""
    rows = [json.loads(line) for line in onebased.key.read_text().splitlines()]
    base = _key(onebased)
    letters = {q.id: q.answer for q in base.questions}
    written = {
        "letter": lambda r: "ABCD"[r["gold"] - 1],
        "index": lambda r: r["gold"] - 1,
        "index1": lambda r: r["gold"],
        "text": lambda r: r[f"opt{r['gold']}"],
    }
    for fmt, write in written.items():
        track = _track(onebased, answer_format=fmt)
        key = evaluator.parse_answer_key(
            track, [{**r, "gold": write(r)} for r in copy.deepcopy(rows)]
        )
        assert {q.id: q.answer for q in key.questions} == letters, fmt
        predictions = {str(r["n"]): {"prediction": write(r)} for r in rows}
        assert evaluator.score(key, json.dumps(predictions).encode()).metrics["overall"] == 100.0


def test_a_group_may_cover_several_values(videoqa: Release) -> None:
    result = evaluator.score(_key(videoqa), videoqa.predictions.read_bytes())
    assert result.counts["causal"].total == 24  # CW and CH
    assert result.metrics == authors_numbers(videoqa)
    data = _track(videoqa).model_dump()
    data["groupings"][0]["groups"][1]["value"] = ["TN", "CH"]  # CH in two groups
    problems = spec.MultipleChoiceTrack.model_validate(data).problems("tracks[0]")
    assert "tracks[0].groupings[0].groups: the value 'CH' appears 2 times" in problems


# --- the key's messages ----------------------------------------------------------------------


def test_index_answers_under_the_letter_format_name_answer_format(videoqa: Release) -> None:
    """Observed: "2000 questions whose correct_answer is not one of their options", no hint."""
    track = _track(videoqa, answer_format="letter")
    with pytest.raises(evaluator.AnswerKeyError) as raised:
        evaluator.kinds.multiple_choice.load_key(track, videoqa.key.read_bytes())
    assert "60 questions whose answer is not one of their options" in str(raised.value)
    assert (
        'they look like option indices: set fields.answer_format = "index" (0-based: 0 is the '
        "first option)" in str(raised.value)
    )


def test_text_answers_under_the_letter_format_name_answer_format(textqa: Release) -> None:
    track = _track(textqa, answer_format="letter")
    with pytest.raises(
        evaluator.AnswerKeyError, match=re.escape('set fields.answer_format = "text"')
    ):
        evaluator.kinds.multiple_choice.load_key(track, textqa.key.read_bytes())


def test_chance_is_exact() -> None:
    """Observed: chance 19.99999999999929 on a key of five options everywhere."""
    track = spec.load_benchmark("egomemreason").track(kind=spec.MultipleChoiceTrack)
    data = track.model_dump()
    data["groupings"] = [{**data["groupings"][0], "groups": [data["groupings"][0]["groups"][0]]}]
    data["groupings"][0]["groups"][0]["size"] = 2000
    data["aggregates"], data["chart"] = [], []
    data["views"] = [{"title": "All", "metrics": []}]
    five = spec.MultipleChoiceTrack.model_validate(data)
    value = five.groupings[0].groups[0].value
    rows = [
        {
            "example_id": n,
            "question": "q",
            "options": dict(zip("ABCDE", "vwxyz", strict=True)),
            "correct_answer": "A",
            "query_type": value,
        }
        for n in range(2000)
    ]
    key = evaluator.parse_answer_key(five, rows)
    assert evaluator.chance(key) == 20.0


# --- submissions -----------------------------------------------------------------------------


def test_a_file_keyed_by_id_holds_the_prediction_or_an_object_with_it(onebased: Release) -> None:
    key = _key(onebased)
    objects = json.loads(onebased.predictions.read_text())
    bare = {i: v["prediction"] for i, v in objects.items()}
    listed = [{"n": int(i), "prediction": v["prediction"]} for i, v in objects.items()]
    scores = [evaluator.score(key, json.dumps(f).encode()) for f in (objects, bare, listed)]
    assert scores[0].metrics == scores[1].metrics == scores[2].metrics == authors_numbers(onebased)
    assert scores[0].answers_sha256 == scores[2].answers_sha256
    assert (
        evaluator.answers_sha256(key.track, json.dumps(bare).encode()) == scores[0].answers_sha256
    )
    assert "none of whose keys is an id of the questions" in _problems(key, {"model": "x"})[0]


def test_a_json_lines_file_is_read_on_a_multiple_choice_track(onebased: Release) -> None:
    """Observed (issue 21): accepted on the decision track, refused here with no hint."""
    key = _key(onebased)
    objects = json.loads(onebased.predictions.read_text())
    lines = "".join(json.dumps({"n": int(i), **v}) + "\n" for i, v in objects.items())
    result = evaluator.score(key, lines.encode())
    assert result.metrics == authors_numbers(onebased)


def test_ids_shifted_by_one_are_said_first(onebased: Release) -> None:
    """Observed (issue 21): zero-based ids first got "41 answers are not among their options"."""
    key = _key(onebased)
    objects = json.loads(onebased.predictions.read_text())
    shifted = [{"n": int(i) - 1, "prediction": 1} for i in objects]
    problems = _problems(key, shifted)
    assert problems[0].startswith(
        "the ns look shifted by one: the file names 0, 1, 2 where the answer key has 1, 2, 3"
    )


def test_an_index_prediction_out_of_range_names_the_valid_indices(onebased: Release) -> None:
    key = _key(onebased)
    objects = json.loads(onebased.predictions.read_text())
    objects["1"]["prediction"] = 5
    [problem] = _problems(key, objects)
    assert problem == (
        "1 answer is not among their question's options (e.g. id 1: 5 (valid 1-4 or A-D))"
    )


# --- hints are the benchmark's ----------------------------------------------------------------


def _egoargus() -> evaluator.AnswerKey:
    bench = spec.load_benchmark("egoargus")
    track = bench.track("understanding", kind=spec.MultipleChoiceTrack)
    return evaluator.kinds.multiple_choice.load_key(track, bench.demo_key(track).read_bytes())


def test_egoargus_results_naming_sample_id_get_its_own_hint() -> None:
    """Observed: told to rename sample_id to example_id, the hint EgoMemReason's."""
    key = _egoargus()
    results = {
        "results": [{"sample_id": q.record["sample_id"], "pred": "A"} for q in key.questions]
    }
    [problem] = _problems(key, results)
    assert "reference evaluation" not in problem and "rename" not in problem
    assert problem.startswith(
        'the file is an object with a "results" list, but its entries name no "example_id" and '
        'carry "sample_id": sample_id is not this benchmark\'s id'
    )
    assert "take each question's example_id from the public file" in problem


def test_egomemreason_results_still_name_its_reference_scripts() -> None:
    bench = spec.load_benchmark("egomemreason")
    track = bench.track(kind=spec.MultipleChoiceTrack)
    assert track.hints.results == "the reference evaluation scripts"
    key = evaluator.kinds.multiple_choice.load_key(track, bench.demo_key(track).read_bytes())
    [problem] = _problems(key, {"results": [{"sample_id": i, "pred": "A"} for i in key.ids]})
    assert problem.startswith(
        'the file is an object with a "results" list, as the reference evaluation scripts '
        'write it; take its "results" list and rename "sample_id" to "example_id"'
    )


# --- the observed messages, on a shipped benchmark --------------------------------------------


def _egomemreason() -> tuple[evaluator.AnswerKey, list[dict[str, Any]]]:
    bench = spec.load_benchmark("egomemreason")
    track = bench.track(kind=spec.MultipleChoiceTrack)
    key = evaluator.kinds.multiple_choice.load_key(track, bench.demo_key(track).read_bytes())
    return key, json.loads((bench.demo_dir / "sample_submission.json").read_text())


def test_zero_based_ids_on_egomemreason_say_shifted_first() -> None:
    key, sample = _egomemreason()
    shifted = [{**e, "example_id": e["example_id"] - 1} for e in sample]
    problems = _problems(key, shifted)
    assert problems[0].startswith("the example_ids look shifted by one"), problems[0]


def test_json_lines_named_json_scores_on_egomemreason() -> None:
    key, sample = _egomemreason()
    lines = "".join(json.dumps(e) + "\n" for e in sample).encode()
    assert (
        evaluator.score(key, lines).metrics
        == evaluator.score(key, json.dumps(sample).encode()).metrics
    )
