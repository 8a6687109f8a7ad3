"""A kind of track for the registry's tests: the short-answer kind's scoring under a name and a
model of its own. Adding it is what adding any kind is: its modules (this one, model and
implementation together), and one line in a registry."""

from __future__ import annotations

from typing import Literal

from evaluator.kinds.short_answer import *  # noqa: F403
from spec import ShortAnswerTrack

NAME = "toy"


class ToyTrack(ShortAnswerTrack):
    """A track of the toy kind: a short-answer track by another name."""

    kind: Literal["toy"]  # type: ignore[assignment]
