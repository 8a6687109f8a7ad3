"""Option letters a release prints in its option texts: ``"A. season the soup"``.

Many releases write each option's letter into its text (``"A. ..."``, ``"A) ..."``, ``"(A) ..."``,
``"A: ..."``), so that a model shown the options sees the letters it answers with. Such a row
*prints its letters* when every option (two or more) starts with such a mark and the marks are
the row's own letters in some order: then a mark is the letter of its option, or a mistake (a
rotation that moved the options and not their marks left most of them printing another letter,
which a model then answers). An option that merely starts like one (``"I. M. Pei"``) in a row
whose other options do not is no printed letter.

``misprinted`` says which options of a row print another letter than their own (release checks:
``release.printed_problems``); ``reprinted`` writes an option's text with a new letter in the
same style (a rotation: ``maintainer.rotation``); ``unprinted`` is the text without its mark
(comparing two rotations of a question).

>>> row = {"A": "A. season the soup", "B": "B. boil it", "C": "C. serve it cold"}
>>> printed_letters(row), misprinted(row)
({'A': 'A', 'B': 'B', 'C': 'C'}, [])
>>> moved = {"A": row["C"], "B": row["A"], "C": row["B"]}  # options moved, marks kept
>>> misprinted(moved)
[('A', 'C'), ('B', 'A'), ('C', 'B')]
>>> reprinted("(b) boil it", "D"), reprinted("A) x", "C"), unprinted("C. serve it cold")
('(d) boil it', 'C) x', 'serve it cold')
>>> printed_letters({"A": "I. M. Pei", "B": "Frank Gehry"}) is None
True
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: A printed letter at the start of an option's text: "A. ", "A) ", "A: " or "(A) ", then a
#: space (so "U.S. Army" and "A.M." are not one); upper or lower case.
_MARK = re.compile(r"\s*(?:\((?P<paren>[A-Za-z])\)|(?P<bare>[A-Za-z])[.):])(?=\s)")


def _mark(text: str) -> re.Match[str] | None:
    return _MARK.match(text)


def _letter(match: re.Match[str]) -> str:
    return (match.group("paren") or match.group("bare")).upper()


def printed_letter(text: str) -> str | None:
    """The letter ``text`` starts by printing (upper case), if it does."""
    match = _mark(text)
    return _letter(match) if match is not None else None


def printed_letters(options: Mapping[str, str]) -> dict[str, str] | None:
    """Each option's letter -> the letter its text prints, when the row prints its letters
    (every option, two or more, starts with a mark, and the marks are the row's letters in some
    order); None when it does not."""
    if len(options) < 2:
        return None
    found: dict[str, str] = {}
    for letter, text in options.items():
        shown = printed_letter(text) if isinstance(text, str) else None
        if shown is None:
            return None
        found[letter] = shown
    return found if sorted(found.values()) == sorted(letter.upper() for letter in found) else None


def misprinted(options: Mapping[str, str]) -> list[tuple[str, str]]:
    """(letter, the letter its text prints) of each option of a row that prints its letters
    whose text prints another; [] for a row that prints them right, or prints none."""
    found = printed_letters(options) or {}
    return [(letter, shown) for letter, shown in found.items() if shown != letter.upper()]


def reprinted(text: str, letter: str) -> str:
    """``text`` with its printed letter replaced by ``letter``, in the same style and case; the
    text as it is when it prints none."""
    match = _mark(text)
    if match is None:
        return text
    group = "paren" if match.group("paren") else "bare"
    start, end = match.span(group)
    old = text[start:end]
    return text[:start] + (letter.lower() if old.islower() else letter.upper()) + text[end:]


def unprinted(text: str) -> str:
    """``text`` without the printed letter it starts with (and the space after it)."""
    match = _mark(text)
    return text[match.end() :].lstrip() if match is not None else text
