"""The track kinds' implementations, by name, as the spec's registry names them.

A kind is registered once, in ``spec.tracks.REGISTRY``: its spec model and the module that
implements it (``evaluator.kinds.<kind>``, satisfying ``evaluator.kinds.base.Kind``: its files,
submissions, scores, records, releases and words). ``KINDS`` imports each of those modules; the
rest of the house asks ``kind_of(track)`` instead of testing a track's type. The kinds today:
``multiple_choice``, ``decision`` and ``short_answer``, each a package of its own.

>>> import spec
>>> kind_of(spec.load_benchmark("egoargus").track("decision")).ROWS
('episode', 'episodes')
>>> sorted(KINDS) == sorted(spec.REGISTRY.names)
True
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import Any, cast

from evaluator.kinds.base import AnyKey, AnyQuestions, Kind, Scoring, Summary, Wording
from spec import REGISTRY, Registry, Track


def implementations(registry: Registry) -> dict[str, Kind[Any, Any, Any]]:
    """Each kind's name -> its implementation, the module ``registry`` names (imported here)."""
    return {k.name: cast(Kind[Any, Any, Any], import_module(k.implementation)) for k in registry}


#: Each kind's name (a track's ``kind``) -> its implementation.
KINDS: Mapping[str, Kind[Any, Any, Any]] = implementations(REGISTRY)


def kind_of(track: Track) -> Kind[Any, Any, Any]:
    """The implementation of ``track``'s kind (KeyError naming the kinds there are for a kind
    the registry does not know)."""
    kind = KINDS.get(track.kind)
    return kind if kind is not None else KINDS[REGISTRY.get(track.kind).name]


__all__ = [
    "KINDS",
    "AnyKey",
    "AnyQuestions",
    "Kind",
    "Scoring",
    "Summary",
    "Wording",
    "implementations",
    "kind_of",
]
