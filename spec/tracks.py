"""The registry of track kinds: each kind once, its spec model and the module that scores it.

A kind of track is its spec model (``spec.<kind>``: what a benchmark declares of such a track,
a ``spec.common.CommonTrack``) and its implementation (``evaluator.kinds.<kind>``: how such a
track's files are read, scored and worded, a module that satisfies
``evaluator.kinds.base.Kind``). ``REGISTRY`` lists both, one line per kind; everything else is
derived from it: ``KINDS`` (each kind's name -> its model), ``Track`` (a [[tracks]] entry,
checked as the model its ``kind`` names), and ``evaluator.kinds.KINDS`` (each name -> its
implementation, imported there: the spec imports no scorer). As lm-evaluation-harness'
``Registry.get``, ``REGISTRY.get`` names the kinds it knows when asked for another.

>>> REGISTRY.names
('multiple_choice', 'decision', 'short_answer')
>>> REGISTRY.get("decision").implementation
'evaluator.kinds.decision'
>>> REGISTRY.get("ranking")
Traceback (most recent call last):
...
KeyError: "no kind of track 'ranking'; the kinds are multiple_choice, decision, short_answer"
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Annotated, Any, TypeAlias, Union, get_args

from pydantic import Discriminator, Tag

from spec.common import CommonTrack
from spec.decision import DecisionTrack
from spec.multiple_choice import MultipleChoiceTrack
from spec.short_answer import ShortAnswerTrack


@dataclass(frozen=True)
class Registered:
    """A kind of track: its spec model and where its implementation is (a module path)."""

    model: type[CommonTrack]
    implementation: str

    @cached_property
    def name(self) -> str:
        """The kind's name, as a track's ``kind`` says it: its model's ``kind`` literal."""
        name: str = get_args(self.model.model_fields["kind"].annotation)[0]
        return name


class Registry:
    """The kinds of track by name, in the order they were registered."""

    def __init__(self, *kinds: Registered) -> None:
        self._kinds = {kind.name: kind for kind in kinds}

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._kinds)

    def get(self, name: str) -> Registered:
        """The kind ``name`` names; KeyError naming the kinds there are for any other."""
        if name not in self._kinds:
            raise KeyError(f"no kind of track {name!r}; the kinds are {', '.join(self._kinds)}")
        return self._kinds[name]

    def __iter__(self) -> Iterator[Registered]:
        return iter(self._kinds.values())

    def __contains__(self, name: object) -> bool:
        return name in self._kinds


#: Every kind of track: its model and its implementation. A new kind is one line here.
REGISTRY = Registry(
    Registered(MultipleChoiceTrack, "evaluator.kinds.multiple_choice"),
    Registered(DecisionTrack, "evaluator.kinds.decision"),
    Registered(ShortAnswerTrack, "evaluator.kinds.short_answer"),
)


def track_type(registry: Registry) -> Any:
    """A track of any kind of ``registry``, as pydantic checks one: the model its ``kind`` names;
    an entry that names no kind of it is checked as the first kind's (its ``kind`` is then
    reported wrong, with everything else wrong in the entry)."""
    default = registry.names[0]

    def kind_tag(value: Any) -> str:
        kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
        return f"kind={kind if kind in registry else default}"

    tagged = tuple(Annotated[k.model, Tag(f"kind={k.name}")] for k in registry)
    return Annotated[Union[tagged], Discriminator(kind_tag)]  # noqa: UP007


#: Each kind's name (its ``kind`` literal) -> its model.
KINDS: Mapping[str, type[CommonTrack]] = {kind.name: kind.model for kind in REGISTRY}
#: What an entry that names no known kind is checked as (``track_type``).
DEFAULT_KIND = REGISTRY.names[0]

if TYPE_CHECKING:
    #: A track of any kind: generic code asks what every kind answers (``CommonTrack``).
    Track: TypeAlias = CommonTrack
else:
    #: A track of any kind, checked as the model its ``kind`` names.
    Track = track_type(REGISTRY)
