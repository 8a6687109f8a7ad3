"""A kind is registered once (issue 33): one line of ``spec.tracks.REGISTRY`` names its model and
its implementation, and what a [[tracks]] entry is checked as and which module scores it follow."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

import evaluator
import spec
from spec.tracks import track_type
from tests.support.toy_kind import ToyTrack

#: A track of two questions, one multiple-choice and one open (as the short-answer docstring's).
ENTRY: dict[str, Any] = {
    "id": "main",
    "title": "Main",
    "kind": "toy",
    "scorer_version": "1",
    "key": {"name": "key.json", "format": "json"},
    "public": {"name": "public.json", "format": "json"},
    "fields": {"id": "id", "levels": ["id"], "answer": "ground_truth"},
    "types": {"field": "question_type", "choice": ["multiple-choice"], "open": ["short-answer"]},
    "overall": {"size": 2},
    "views": [{"title": "Overall"}],
}
KEY = (
    b'{"q1": {"question_type": "multiple-choice", "ground_truth": "B"},'
    b' "q2": {"question_type": "short-answer", "ground_truth": ["0.5", "1/2"]}}'
)


def test_a_new_kind_is_its_modules_and_one_registry_line() -> None:
    registry = spec.Registry(*spec.REGISTRY, spec.Registered(ToyTrack, "tests.support.toy_kind"))
    assert registry.names == (*spec.REGISTRY.names, "toy")
    tracks = TypeAdapter(track_type(registry))
    track = tracks.validate_python(ENTRY)
    assert type(track) is ToyTrack
    assert type(tracks.validate_python({**ENTRY, "kind": "short_answer"})) is spec.ShortAnswerTrack

    toy = evaluator.kinds.implementations(registry)["toy"]
    assert toy.NAME == "toy" and toy.ROWS == ("question", "questions")
    key = toy.load_key(track, KEY)
    data = b'{"q1": "B", "q2": "So the answer is 0.50."}'
    result = toy.score(key, data, evaluator.submission_sha256(data))
    assert (result.counts["overall"].correct, result.counts["overall"].total) == (2, 2)


def test_the_shipped_registry_knows_no_toy_and_says_which_kinds_it_knows() -> None:
    with pytest.raises(ValidationError, match="'multiple_choice'"):
        TypeAdapter(spec.Track).validate_python(ENTRY)
    with pytest.raises(KeyError, match="no kind of track 'toy'; the kinds are multiple_choice, "):
        spec.REGISTRY.get("toy")
    assert "toy" not in evaluator.KINDS
