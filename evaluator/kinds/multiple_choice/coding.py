"""Answers as codes: what a multiple-choice score counts over all questions at once.

A code is a small integer, 0 an abstention and then each option letter of the track in order
(``letter_codes``), so that a file's answers are one numpy array and every count is numpy's.
``Coding`` is what reading a file's answers as codes needs of a question set, built once with
it: its ids in order, each id's row, the codes each row takes, and the code of each prediction
as a file usually writes it (a letter, "" or null).

>>> import spec
>>> track = spec.load_benchmark("egomemreason").track()
>>> coding = Coding.of(track, {7: frozenset("ABCD"), 3: frozenset("ABCDE")})
>>> coding.order, coding.exact["B"], coding.exact[None]
([7, 3], 2, 0)
>>> coding.all_taken(np.array([2, 5], np.uint8)), coding.all_taken(np.array([5, 0], np.uint8))
(True, False)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

import numpy as np

from spec import MultipleChoiceTrack

#: An answer's code: 0 an abstention, then each option letter of the track in order.
ABSTAINED = 0
OUT_OF_OPTION = 255  # an out-of-option row's right letter: equal to no answer's code


def letter_codes(track: MultipleChoiceTrack) -> dict[str, int]:
    """Each answer as a small integer for counting over all rows at once: "" (an abstention)
    0, each option letter its place from 1."""
    return {"": ABSTAINED} | {letter: n for n, letter in enumerate(track.options.letters, 1)}


def looked_up(table: Mapping[Any, int], keys: Sequence[Any]) -> tuple[int, ...]:
    """``table[k]`` for each of ``keys`` (a KeyError or TypeError as a lookup raises it), in
    one call: ``itemgetter`` of them all makes no Python call per key.

    >>> looked_up({"A": 1, None: 0}, ["A", None, "A"]), looked_up({"A": 1}, ["A"])
    ((1, 0, 1), (1,))
    """
    if len(keys) == 1:
        return (table[keys[0]],)
    return tuple(itemgetter(*keys)(table)) if keys else ()


@dataclass(frozen=True)
class Coding:
    """A question set's answers as codes, what reading a file's answers at once needs."""

    order: list[int | str]  # the ids in order: a list, compared with a file's in one step
    rows: Mapping[int | str, int]  # each id's place in ``order``
    codes: Mapping[str, int]  # a letter's (or "") code, ``letter_codes``
    #: A prediction as it is read when it is written as the track writes answers: each option
    #: letter, "" and null (an abstention). Only strings and None: a JSON value equal to one of
    #: them is one of them (no number or boolean equals a string or null).
    exact: Mapping[str | None, int]
    #: Per row, in order, a bit for each code it takes (``1 << code``): its letters and 0.
    allowed: np.ndarray = field(compare=False)

    @classmethod
    def of(cls, track: MultipleChoiceTrack, letters: Mapping[int | str, frozenset[str]]) -> Coding:
        """The coding of the questions ``letters`` gives (each id's option letters)."""
        codes = letter_codes(track)
        bits = [sum(1 << codes[x] for x in (*row, "")) for row in letters.values()]
        exact: dict[str | None, int] = {None: ABSTAINED}
        exact.update(codes)
        return cls(
            order=list(letters),
            rows={ident: n for n, ident in enumerate(letters)},
            codes=codes,
            exact=exact,
            allowed=np.array(bits, np.uint32),
        )

    def all_taken(self, codes: np.ndarray) -> bool:
        """Whether every row takes its answer (``codes``, one a row, in order)."""
        return bool(((self.allowed >> codes) & 1).all())
