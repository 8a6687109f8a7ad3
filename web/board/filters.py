"""What a visitor asked to see of the board, checked before any work is done for it, pure.

``board_filter`` checks the search and each filter's ticks (``BoardFilter``: in every filter,
none ticked is any; filters combine with and) and refuses with a ``BadInput`` that names the
filter and its choices; ``BoardFilter.apply`` keeps a frame's rows (``rows``) that match;
``filter_labels`` is each filter's label on the page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from errors import BadInput
from spec import Benchmark
from web.board.rows import EXTERNAL_CHOICES, NOT_REPORTED, SIZE_BUCKETS, SOURCE_LABELS
from web.text import listed, quoted

MAX_SEARCH_CHARS = 200  # the longest method name a record may have


MAX_SEARCH_WORDS = 20  # each word is one pass over the board (~0.2 ms)


@dataclass(frozen=True)
class BoardFilter:
    """What the visitor asked to see. Every selection means the same: none ticked is any row;
    ticked values show the rows having one of them (filters combine with and)."""

    search: str = ""
    sources: tuple[str, ...] = ()  # of SOURCE_LABELS' values
    external: tuple[str, ...] = ()  # of EXTERNAL_CHOICES
    inputs: tuple[str, ...] = ()  # labels of the spec's input choices, or NOT_REPORTED
    sizes: tuple[str, ...] = ()  # of SIZE_BUCKETS

    def apply(self, frame: pd.DataFrame) -> pd.DataFrame:
        sources = tuple(key for key, label in SOURCE_LABELS.items() if label in self.sources)
        keep = pd.Series(True, index=frame.index)
        for column, ticked in (
            ("_source", sources),
            ("_external", self.external),
            ("_input", self.inputs),
            ("_size", self.sizes),
        ):
            if ticked:
                keep &= frame[column].isin(ticked)
        for word in self.search.lower().split():
            if SIZE_WORD.fullmatch(word):  # "8b" is not a part of "38b"
                keep &= frame["_text"].str.contains(size_token(word), regex=True)
            else:
                keep &= frame["_text"].str.contains(word, regex=False)
        return frame[keep]


#: A search word that reads as a model size ("8b", "0.5b", "1.5t"; the search is lower case):
#: it matches a whole size token of the text only.
SIZE_WORD = re.compile(r"\d+(?:\.\d+)?[bmt]")


def size_token(word: str) -> str:
    """The pattern of a size as a token: not after a digit or a dot, not before a letter or
    digit ("8b" finds "qwen3-vl-8b" and "8b", not "38b", "0.8b" or "8bit")."""
    return rf"(?<![\d.]){re.escape(word)}(?![a-z0-9])"


#: The filters' labels on the page, as a refusal names them.
FILTER_LABELS = {"sources": "Source", "external": "Uses external data", "sizes": "Model size"}


#: What a filter's label adds on the page: every filter reads the same way (``BoardFilter``).
ANY_HINT = "(none ticked: any)"


def filter_labels(bench: Benchmark) -> dict[str, str]:
    """Each filter's label on the page, by ``BoardFilter`` field, with the hint that none
    ticked is any; the input filter is named by the spec."""
    names = {**FILTER_LABELS, "inputs": bench.input.label}
    return {field: f"{name} {ANY_HINT}" for field, name in names.items()}


def board_filter(
    search: object,
    sources: object,
    external: object,
    inputs: object,
    sizes: object,
    bench: Benchmark,
) -> BoardFilter:
    """What a visitor asked to see, checked before any work is done for it.

    BadInput if the search is not text of at most MAX_SEARCH_CHARS characters and
    MAX_SEARCH_WORDS words (each word costs a pass over the board), or a selection is not a
    list of at most as many values as it has choices, each one of them. None ticks nothing.
    """
    if search is None:
        search = ""
    if not isinstance(search, str):
        raise BadInput(f"The search must be text; got {quoted(search)}.")
    if len(search) > MAX_SEARCH_CHARS:
        raise BadInput(
            f"The search is {len(search)} characters long; search for at most "
            f"{MAX_SEARCH_CHARS} characters ({MAX_SEARCH_WORDS} words)."
        )
    words = len(search.split())
    if words > MAX_SEARCH_WORDS:
        raise BadInput(
            f"The search has {words} words; search for at most {MAX_SEARCH_WORDS} words."
        )
    return BoardFilter(
        search,
        _selection(FILTER_LABELS["sources"], sources, tuple(SOURCE_LABELS.values())),
        _selection(FILTER_LABELS["external"], external, EXTERNAL_CHOICES),
        _selection(bench.input.label, inputs, (*bench.input.choices.values(), NOT_REPORTED)),
        _selection(FILTER_LABELS["sizes"], sizes, SIZE_BUCKETS),
    )


def _selection(label: str, value: object, choices: Sequence[str]) -> tuple[str, ...]:
    """Ticked values of ``choices`` as a tuple; BadInput naming ``label`` if they are not."""
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise BadInput(f"{label}: expected a list of its choices; got {quoted(value)}.")
    if len(value) > len(choices):
        raise BadInput(
            f"{label}: expected at most {len(choices)} of {listed(choices)}; got "
            f"{len(value)} values."
        )
    for item in value:
        if not isinstance(item, str) or item not in choices:
            raise BadInput(f"{label}: {quoted(item)} is not one of {listed(choices)}.")
    return tuple(value)
