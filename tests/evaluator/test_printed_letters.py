"""Option texts that print their letters (``evaluator.kinds.multiple_choice.printed``, issue 28).

A row prints its letters when every option starts with a mark ("A. ", "A) ", "(A) ", "A: ")
and the marks are the row's own letters in some order; only then is a mark a letter that can
be wrong. Texts that merely start like a mark (initials, "U.S.", a lone "I. M. Pei") are left
alone, by the checks and by a rotation.
"""

from __future__ import annotations

import pytest

from evaluator.kinds.multiple_choice.printed import (
    misprinted,
    printed_letter,
    printed_letters,
    reprinted,
    unprinted,
)


@pytest.mark.parametrize(
    ("options", "prints"),
    [
        ({"A": "A. red", "B": "B. blue"}, {"A": "A", "B": "B"}),
        ({"A": "(a) red", "B": "(b) blue", "C": "(c) green"}, {"A": "A", "B": "B", "C": "C"}),
        ({"A": "A) red", "B": "B: blue"}, {"A": "A", "B": "B"}),
        ({"A": "B. red", "B": "A. blue"}, {"A": "B", "B": "A"}),  # a permutation: misprinted
        # Not a row that prints its letters:
        ({"A": "I. M. Pei", "B": "Frank Gehry"}, None),  # one option alone
        ({"A": "A. Lincoln", "B": "G. Washington"}, None),  # initials, not the row's letters
        ({"A": "U.S. Army", "B": "U.K. Navy"}, None),
        ({"A": "A.M.", "B": "P.M."}, None),
        ({"A": "A. only"}, None),  # one option
        ({"A": "A. red", "B": "A. blue"}, None),  # a letter twice
    ],
)
def test_a_row_prints_its_letters_only_when_every_option_prints_one_of_them(
    options: dict[str, str], prints: dict[str, str] | None
) -> None:
    assert printed_letters(options) == prints


def test_misprinted_names_each_option_printing_another_letter() -> None:
    assert misprinted({"A": "A. red", "B": "B. blue"}) == []
    assert misprinted({"A": "C. red", "B": "A. blue", "C": "B. green"}) == [
        ("A", "C"),
        ("B", "A"),
        ("C", "B"),
    ]
    assert misprinted({"A": "A. Lincoln", "B": "G. Washington"}) == []


@pytest.mark.parametrize(
    ("text", "letter", "written"),
    [
        ("A. season the soup", "C", "C. season the soup"),
        ("(b) boil it", "D", "(d) boil it"),
        ("  A)  spaced", "B", "  B)  spaced"),
        ("no mark here", "B", "no mark here"),
    ],
)
def test_reprinted_keeps_the_style_and_the_rest_of_the_text(
    text: str, letter: str, written: str
) -> None:
    assert reprinted(text, letter) == written
    assert unprinted(written) == unprinted(text)
    if printed_letter(text) is not None:
        assert printed_letter(written) == letter
