"""A prediction read and matched by a rule set the spec declares (``spec.short_answer.RuleSet``,
whose docstring states every rule): the candidates a response gives, the values candidates and
answers normalise to, and whether any candidate is right.

Every step is bounded by a small multiple of the response's length: each cue is looked for once
per line, and the numbers are found by patterns that never try a match from inside a run of
digits (a match that starts there fails exactly when one from the run's start does), so a
response of a million digits is read in one pass, not a million.

>>> import spec
>>> rule = spec.PRESETS["open"]
>>> candidates(rule, "The area is 1,200 m.\\nSo the answer is B")
('1,200 m.', 'b', '1,200', '200')
>>> right(rule, "The area is 1,200 m.", accepted(rule, ["1200"]))
True
>>> right(spec.PRESETS["exact"], "b", accepted(spec.PRESETS["exact"], ["B"]))
False
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from spec import RuleSet

#: Comma-grouped integers ("1,234,567"), from a word's start.
_COMMA_GROUPED = re.compile(r"-?\b\d{1,3}(?:,\d{3})+\b")
#: Scientific notation ("6.02e23", "-1E-5"), its digits from a run's start.
_SCIENTIFIC = re.compile(r"-?(?<!\d)\d+(?:\.\d+)?[eE][+-]?\d+")
#: Integers and decimals ("42", "-3.5", ".5") not part of the two above: its digits from a
#: run's start (a decimal's point may follow digits), never before an exponent or a comma.
_PLAIN = re.compile(r"-?(?:(?<!\d)\d+\.\d+|\.\d+|(?<!\d)\d+)(?![eE][+-]?\d+)(?![,\d])")

#: A normalised value: a number, or a text.
Value = float | str


@dataclass(frozen=True)
class Accepted:
    """A question's answers as a rule set normalises them: its numbers and its texts."""

    numbers: tuple[float, ...]
    texts: tuple[str, ...]


def numbers_in(text: str) -> list[str]:
    """The numbers written in ``text``: comma-grouped integers, scientific notation, then plain
    integers and decimals, each as written (a comma-grouped number's last group is a plain
    integer too, as the official patterns find it).

    >>> numbers_in("from -1,000 to .5 or 2e-3, say 7.25")
    ['-1,000', '2e-3', '000', '.5', '7.25']
    """
    return [
        *_COMMA_GROUPED.findall(text),
        *_SCIENTIFIC.findall(text),
        *_PLAIN.findall(text),
    ]


def _line_candidate(rule: RuleSet, line: str, last: bool) -> str | None:
    """What one line of a response says after its cues: for each cue found, the text after its
    last occurrence, trimmed; the shortest that is not empty (the first cue's of equal ones),
    unless it is one the rule drops. None when no cue gives one."""
    cues = (*rule.cues, *rule.last_line_cues) if last else rule.cues
    shortest: str | None = None
    for cue in cues:
        if cue in line:
            after = line.split(cue)[-1].strip()
            if after and (shortest is None or len(after) < len(shortest)):
                shortest = after
    if shortest is None or shortest in rule.drop:
        return None
    return shortest


def read_response(rule: RuleSet, response: str) -> str:
    """A response as the rule reads it before its cues: trimmed, its marks trimmed off its ends,
    lower-cased, as the rule says."""
    if rule.trim:
        response = response.strip()
    if rule.trim_marks:
        response = response.strip(rule.trim_marks)
    return response.lower() if rule.fold_case else response


def candidates(rule: RuleSet, response: str) -> tuple[str, ...]:
    """The candidate answers a response gives under ``rule``: each line's text after its cues
    (the whole response when no line gives one), then, with ``numbers``, the numbers written
    in them."""
    text = read_response(rule, response)
    found: list[str] = []
    if rule.cues or rule.last_line_cues:
        lines = text.split("\n")
        for n, line in enumerate(lines):
            candidate = _line_candidate(rule, line, n == len(lines) - 1)
            if candidate is not None:
                found.append(candidate)
    if not found:
        found.append(text)
    if rule.numbers:
        found += [number for candidate in list(found) for number in numbers_in(candidate)]
    return tuple(found)


def _number(rule: RuleSet, text: str) -> float | None:
    """``text`` as a number when the rule compares numbers and it reads as one once its commas
    are removed (Python's ``float``), rounded to the rule's decimals; None otherwise."""
    if not rule.numeric:
        return None
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        return None
    return value if rule.decimals is None else round(value, rule.decimals)


def normalised(rule: RuleSet, text: str) -> tuple[Value, ...]:
    """What a candidate or an answer is compared as: a number, or a text (a single character
    padded by a space on either side when the rule says, as both of its two forms).

    >>> import spec
    >>> normalised(spec.PRESETS["open"], " 0.9965 "), normalised(spec.PRESETS["open"], "B")
    ((1.0,), (' b', 'b '))
    """
    if rule.trim:
        text = text.strip()
    number = _number(rule, text)
    if number is not None:
        return (number,)
    if rule.fold_case:
        text = text.lower()
    if rule.pad_single and len(text) == 1:
        return (f" {text}", f"{text} ")
    return (text,)


def accepted(rule: RuleSet, answers: Sequence[str]) -> Accepted:
    """A question's answers (one, or a list of accepted ones) as ``rule`` compares them."""
    values = [v for answer in answers for v in normalised(rule, answer)]
    return Accepted(
        numbers=tuple(v for v in values if isinstance(v, float)),
        texts=tuple(dict.fromkeys(v for v in values if isinstance(v, str))),
    )


def _number_right(rule: RuleSet, value: float, numbers: Iterable[float]) -> bool:
    """Whether a number equals one of ``numbers`` or lies within the rule's tolerance of one
    (a difference that floating point puts a hair over the tolerance still counts)."""
    slack = rule.tolerance * (1 + 1e-9)
    return any(value == n or (slack and abs(value - n) <= slack) for n in numbers)


def right(rule: RuleSet, response: str, answers: Accepted) -> bool:
    """Whether a response is right under ``rule``: some candidate, normalised, is a number
    equal to (or within the tolerance of) a numeric answer, or a text that equals or holds a
    text answer (``rule.match``); numbers never match texts."""
    for candidate in candidates(rule, response):
        for value in normalised(rule, candidate):
            if isinstance(value, float):
                if answers.numbers and _number_right(rule, value, answers.numbers):
                    return True
            elif rule.match == "contains":
                if any(text in value for text in answers.texts):
                    return True
            elif value in answers.texts:
                return True
    return False
