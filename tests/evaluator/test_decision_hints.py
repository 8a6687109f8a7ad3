"""A decision track's Score hints are its benchmark's, declared in the spec (issue 19): the
same ``[tracks.hints]`` table a multiple-choice track reads, ``results`` (who writes
``{"results": [...]}`` files) and ``fields`` (a field an entry carries instead of the id or the
decision that is not the same thing under another name, with what to tell the visitor).

Before the fix a decision track refused the table (``hints: Extra inputs are not permitted``),
so a look-alike of its id could only be an alias, told to be renamed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import evaluator
import spec

EGOARGUS = spec.load_benchmark("egoargus")
SHIPPED = EGOARGUS.track("decision", kind=spec.DecisionTrack)
LOOK_ALIKE = "sample_id is not an episode's id; take each episode's example_id from the public file"
NOT_THE_DECISION = (
    "intervene is the model's raw flag, not its decision; write assist as true or false"
)


def _track(**hints: Any) -> spec.DecisionTrack:
    data = SHIPPED.model_dump(by_alias=True)
    data["hints"] = hints
    return spec.DecisionTrack.model_validate(data)


def _problems(track: spec.DecisionTrack, submission: object) -> list[str]:
    questions = evaluator.load_questions(track, EGOARGUS.demo_public(SHIPPED).read_bytes())
    with pytest.raises(evaluator.SubmissionError) as raised:
        evaluator.validate(questions, json.dumps(submission).encode())
    return list(raised.value.problems)


def _entries() -> list[dict[str, Any]]:
    public = EGOARGUS.demo_public(SHIPPED).read_text().splitlines()
    return [
        {"example_id": json.loads(line)["example_id"], "assist": False, "intervention_time_s": None}
        for line in public
    ]


def test_a_decision_track_declares_its_hints_in_the_spec(tmp_path: Path) -> None:
    folder = tmp_path / "egoargus"
    shutil.copytree(EGOARGUS.demo_dir.parent, folder)
    toml = folder / "benchmark.toml"
    toml.write_text(
        toml.read_text()
        + "\n[tracks.hints]\n"
        + f'results = "the authors\' runner"\nfields = {{ sample_id = "{LOOK_ALIKE}" }}\n'
    )
    track = spec.load_benchmark(str(folder)).track("decision", kind=spec.DecisionTrack)
    assert track.hints.results == "the authors' runner"
    assert track.hints.fields == {"sample_id": LOOK_ALIKE}
    assert SHIPPED.hints.fields == {} and SHIPPED.hints.results is None  # as it shipped


def test_a_look_alike_of_the_id_gets_the_spec_s_words_not_a_rename() -> None:
    entries = _entries()
    entries[0] = {"sample_id": "x", "assist": True, "intervention_time_s": 1.0}
    [told] = [
        p for p in _problems(_track(fields={"sample_id": LOOK_ALIKE}), entries) if "sample_id" in p
    ]
    assert told == f'1 entry has "sample_id" but no "example_id" (e.g. the 1st entry): {LOOK_ALIKE}'
    # The shipped track, without the hint: the alias is renamed, as before.
    [renamed] = [p for p in _problems(SHIPPED, entries) if "sample_id" in p]
    assert renamed.endswith('rename the field to "example_id"')


def test_a_look_alike_of_the_decision_gets_the_spec_s_words() -> None:
    entries = _entries()
    entries[1] = {"example_id": entries[1]["example_id"], "intervene": 1, "intervention_time_s": 2}
    problems = _problems(_track(fields={"intervene": NOT_THE_DECISION}), entries)
    assert problems == [
        f'1 entry has "intervene" but no "assist" (e.g. the 2nd entry): {NOT_THE_DECISION}'
    ]
    [plain] = _problems(SHIPPED, entries)
    assert plain.startswith('1 entry has no "assist"')


def test_a_results_file_names_who_writes_it_only_when_the_spec_says() -> None:
    wrapped = {"results": _entries()}
    [named] = _problems(_track(results="the authors' runner"), wrapped)
    assert named.startswith(
        'the top level is an object with a "results" list, as the authors\' runner write it; '
        "upload the list itself"
    )
    [plain] = _problems(SHIPPED, wrapped)
    assert plain.startswith('the top level is an object with a "results" list; upload the list')
