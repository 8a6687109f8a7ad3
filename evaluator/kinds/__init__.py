"""The registry of track kinds: each kind's name -> the module that implements it.

A kind implements ``evaluator.kinds.base.Kind`` (its files, submissions, scores, records,
releases and words); the rest of the house asks ``kind_of(track)`` instead of testing a
track's type. The spec's registry of kind models is ``spec.tracks``; both name the same kinds.

>>> import spec
>>> kind_of(spec.load_benchmark("egoargus").track("decision")).ROWS
('episode', 'episodes')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import evaluator.kinds.decision as decision
import evaluator.kinds.multiple_choice as multiple_choice
import evaluator.kinds.short_answer as short_answer
from evaluator.kinds.base import Kind, Summary
from spec import Track

#: Each kind's name (a track's ``kind``) -> its implementation.
KINDS: Mapping[str, Kind[Any, Any, Any]] = {
    multiple_choice.NAME: multiple_choice,
    decision.NAME: decision,
    short_answer.NAME: short_answer,
}


def kind_of(track: Track) -> Kind[Any, Any, Any]:
    """The implementation of ``track``'s kind."""
    return KINDS[track.kind]


__all__ = ["KINDS", "Kind", "Summary", "decision", "kind_of", "multiple_choice", "short_answer"]
