"""The kinds of track a spec may declare: one model each, told apart by the entry's ``kind``.

This is the spec's registry of kinds: a new kind adds its model to ``Track`` and ``KINDS``;
``evaluator.kinds`` registers how it is scored (a test checks that both name the same kinds).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Discriminator, Tag

from spec.base import Model
from spec.decision import DecisionTrack
from spec.multiple_choice import MultipleChoiceTrack
from spec.short_answer import ShortAnswerTrack

#: Each kind's name (its ``kind`` literal) -> its model.
KINDS: Mapping[str, type[Model]] = {
    "multiple_choice": MultipleChoiceTrack,
    "decision": DecisionTrack,
    "short_answer": ShortAnswerTrack,
}
#: What an entry that names no known kind is checked as: its ``kind`` is then reported wrong,
#: with everything else wrong in the entry.
DEFAULT_KIND = "multiple_choice"


def _track_kind(value: Any) -> str:
    """Which model a [[tracks]] entry is checked as: its kind's, else the default's."""
    kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
    return f"kind={kind if kind in KINDS else DEFAULT_KIND}"


#: A track of any kind, told apart by its ``kind``.
Track = Annotated[
    Annotated[MultipleChoiceTrack, Tag("kind=multiple_choice")]
    | Annotated[DecisionTrack, Tag("kind=decision")]
    | Annotated[ShortAnswerTrack, Tag("kind=short_answer")],
    Discriminator(_track_kind),
]
