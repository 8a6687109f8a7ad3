"""How a release writes its options and answers, and a submission its predictions, read into
the letters the scorer counts: the spec's ``fields.options`` (one field holding a JSON object
of letters to texts or a JSON list of texts, or one field per option) and
``fields.answer_format`` (a letter, a 0-based or 1-based index, or the option's text).

A benchmark's authors publish their release and read their model's predictions in their own
layout; these functions are what lets the board take both as they are, with no converter.

>>> import spec
>>> track = spec.MultipleChoiceTrack.model_validate(
...     {**spec.load_benchmark("egomemreason").track().model_dump(),
...      "fields": {"options": ["a0", "a1", "a2"], "answer_format": "index"}})
>>> options = options_of(track, {"a0": "red", "a1": "blue", "a2": ""})
>>> options, answer_letter(track, "1", options), answer_letter(track, 2, options)
({'A': 'red', 'B': 'blue'}, 'B', None)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from spec import MultipleChoiceTrack

_INDEXED = ("index", "index1")
#: An option written on a line of its own inside a question's text: "A. left", "B) right".
_OPTION_LINE = re.compile(r"[ \t]*([A-Z])([.)])[ \t]+(\S.*?)[ \t]*\r?")
#: An answer written as its letter, a dot and the option's text: "B. right".
_LETTER_TEXT = re.compile(r"([A-Z])\.[ \t]+(\S.*?)\s*", re.S)


def split_question(text: str) -> tuple[str, dict[str, str], str] | None:
    r"""A question whose options are written at its end, one line each ("A. left", "B)
    right"), as its own text, its options (letters to texts, from A without gaps) and the mark
    after their letters ("." or ")"); None when its last lines are not two or more such options.

    >>> split_question("Where does it go?\nA. left\nB. right\nC. up")
    ('Where does it go?', {'A': 'left', 'B': 'right', 'C': 'up'}, '.')
    >>> split_question("Where does it go?") is None
    True
    """
    lines = text.rstrip().split("\n")
    found: list[re.Match[str]] = []
    while lines and (match := _OPTION_LINE.fullmatch(lines[-1])) is not None:
        found.insert(0, match)
        lines.pop()
    # From the last "A" line on: an earlier run belongs to the question's own text.
    start = max((n for n, m in enumerate(found) if m.group(1) == "A"), default=None)
    if start is None:
        return None
    lines += [m.group(0) for m in found[:start]]
    found = found[start:]
    letters = "".join(m.group(1) for m in found)
    marks = {m.group(2) for m in found}
    if len(found) < 2 or letters != "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: len(found)] or len(marks) > 1:
        return None
    return "\n".join(lines).rstrip(), {m.group(1): m.group(3) for m in found}, marks.pop()


def question_text(track: MultipleChoiceTrack, record: Mapping[str, Any]) -> Any:
    """A row's question as it asks it: the question field, without the option lines when the
    options are written inside it."""
    value = record.get(track.fields.question)
    if track.fields.options_in_question and isinstance(value, str):
        parts = split_question(value)
        return value if parts is None else parts[0]
    return value


def _empty(value: object) -> bool:
    """An option field that ends a row's options: absent, null or an empty cell."""
    return value is None or value == ""


def options_of(track: MultipleChoiceTrack, record: Mapping[str, Any]) -> dict[str, str] | None:
    """A row's options as letters to texts, in letter order, from the layout the spec declares;
    None when they are not written as it says (``options_problem`` says how)."""
    f, letters = track.fields, track.options.letters
    if f.options_in_question:
        text = record.get(f.question)
        parts = split_question(text) if isinstance(text, str) else None
        return None if parts is None else parts[1]
    if f.option_parts:
        values = [record.get(part) for part in f.option_parts]
        count = next((n for n, v in enumerate(values) if _empty(v)), len(values))
        texts = [v for v in values[:count] if isinstance(v, str)]
        if len(texts) != count or not all(map(_empty, values[count:])):
            return None
        return dict(zip(letters, texts, strict=False))
    value = record.get(f.options)
    if isinstance(value, list):
        if len(value) > len(letters) or not all(isinstance(t, str) for t in value):
            return None
        return dict(zip(letters, value, strict=False))
    if isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(t, str) for k, t in value.items()
    ):
        return value
    return None


def options_problem(track: MultipleChoiceTrack, record: Mapping[str, Any]) -> str | None:
    """Why a row's options are not written as the spec declares, "<field>: <problem>"; None
    when they are."""
    f = track.fields
    if f.options_in_question:
        if options_of(track, record) is None:
            return (
                f"{f.question}: the options are not written at the end of the question, one "
                'a line from A ("A. <text>", or "A) <text>")'
            )
        return None
    if f.option_parts:
        if not any(part in record for part in f.option_parts):
            return f"{f.option_parts[0]}: Field required (the first of the option fields)"
        for part in f.option_parts:
            value = record.get(part)
            if not _empty(value) and not isinstance(value, str):
                return f"{part}: Input should be a valid string (an option's text)"
        if options_of(track, record) is None:
            return (
                f"{'/'.join(f.option_parts)}: a non-empty option after an empty one; an empty "
                "field ends the row's options, so write them from the first field on"
            )
        return None
    if f.options not in record:
        return f"{f.options}: Field required"
    if options_of(track, record) is None:
        return (
            f"{f.options}: Input should be an object of letters to texts, or a list of at most "
            f"{len(track.options.letters)} texts in letter order"
        )
    return None


def index_of(value: object) -> int | None:
    """An option index as a key or a submission writes it: an integer (not a boolean), or a
    cell of decimal digits; None otherwise."""
    if type(value) is int:
        return value
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 6:
        return int(value.strip())
    return None


def answer_type_problem(track: MultipleChoiceTrack, raw: object) -> str | None:
    """Why a key's answer is not of the type its ``answer_format`` writes; None when it is."""
    fmt = track.fields.answer_format
    if fmt in _INDEXED:
        if index_of(raw) is None:
            return "Input should be an integer (the option's index)"
        return None
    if isinstance(raw, str):
        return None
    if index_of(raw) is not None:
        return (
            "Input should be a valid string (an integer: if the key writes its answers as option "
            'indices, set fields.answer_format = "index" (0-based) or "index1" (1-based))'
        )
    return "Input should be a valid string"


def answer_letter(
    track: MultipleChoiceTrack, raw: object, options: Mapping[str, str]
) -> str | None:
    """The letter of the option an answer written in the track's ``answer_format`` names; None
    when it names none of ``options`` (letters in order from the first)."""
    fmt = track.fields.answer_format
    if fmt == "letter":
        return raw if isinstance(raw, str) and raw in options else None
    if fmt == "letter_text":
        match = _LETTER_TEXT.fullmatch(raw) if isinstance(raw, str) else None
        if match is None or match.group(1) not in options:
            return None
        return match.group(1) if match.group(2) == options[match.group(1)].strip() else None
    if fmt in _INDEXED:
        n = index_of(raw)
        if n is None:
            return None
        n -= fmt == "index1"
        letters = track.options.letters
        return letters[n] if 0 <= n < len(options) else None
    named = [letter for letter, text in options.items() if text == raw]
    return named[0] if len(named) == 1 else None


def answer_hint(track: MultipleChoiceTrack, bad: Sequence[tuple[object, Mapping[str, str]]]) -> str:
    """What answers that name none of their options look like, when they all look like
    answers written in another ``answer_format`` ("; they look like option indices: set ...");
    "" when they do not. ``bad``: each such answer with its row's options."""
    if not bad:
        return ""
    fmt = track.fields.answer_format
    indices = [index_of(raw) for raw, _ in bad]
    if fmt not in _INDEXED and all(n is not None for n in indices):
        zero = any(n == 0 for n in indices)
        which = (
            '"index" (0-based: 0 is the first option)'
            if zero
            else '"index" (0-based) or "index1" (1-based: 1 is the first option)'
        )
        return f"; they look like option indices: set fields.answer_format = {which}"
    if fmt != "text" and all(raw in options.values() for raw, options in bad):
        return '; they look like option texts: set fields.answer_format = "text"'
    if fmt != "letter" and all(isinstance(r, str) and r in o for r, o in bad):
        return '; they look like option letters: set fields.answer_format = "letter" (the default)'
    written = [_LETTER_TEXT.fullmatch(r) if isinstance(r, str) else None for r, _ in bad]
    if fmt != "letter_text" and all(
        m is not None and o.get(m.group(1), "").strip() == m.group(2)
        for m, (_, o) in zip(written, bad, strict=True)
    ):
        return (
            '; they look like a letter, a dot and the option\'s text ("B. right"): set '
            'fields.answer_format = "letter_text"'
        )
    if fmt == "index" and all(n is not None and n >= 1 for n in indices):
        return (
            "; none of them is 0: if the key counts options from 1, set fields.answer_format = "
            '"index1"'
        )
    return ""


def written_options(
    track: MultipleChoiceTrack, record: Mapping[str, Any], options: Mapping[str, str]
) -> dict[str, Any]:
    """The fields of ``record`` that hold ``options`` (letters to texts, from the first letter
    on) in the layout the spec declares and the row already uses: one field per option (the
    fields past its options keep their empty cells), a JSON list in letter order, or a JSON
    object. The inverse of ``options_of``, for a rewrite of the row (a rotation's).

    >>> import spec
    >>> track = spec.MultipleChoiceTrack.model_validate(
    ...     {**spec.load_benchmark("egomemreason").track().model_dump(),
    ...      "fields": {"options": ["a0", "a1", "a2"]}})
    >>> written_options(track, {"a0": "red", "a1": "blue", "a2": ""}, {"A": "blue", "B": "red"})
    {'a0': 'blue', 'a1': 'red', 'a2': ''}
    """
    f, letters = track.fields, track.options.letters
    if f.options_in_question:
        text = record.get(f.question)
        parts = split_question(text) if isinstance(text, str) else None
        stem, mark = (str(text or ""), ".") if parts is None else (parts[0], parts[2])
        lines = [f"{letter}{mark} {options[letter]}" for letter in letters if letter in options]
        return {f.question: "\n".join([stem, *lines])}
    if f.option_parts:
        return {
            part: options[letters[n]] if letters[n] in options else record.get(part)
            for n, part in enumerate(f.option_parts)
            if part in record or letters[n] in options
        }
    ordered = {letter: options[letter] for letter in letters if letter in options}
    if isinstance(record.get(f.options), list):
        return {f.options: list(ordered.values())}
    return {f.options: ordered}


def written_answer(
    track: MultipleChoiceTrack, letter: str, options: Mapping[str, str], like: object
) -> Any:
    """The answer ``letter`` (of ``options``) written in the track's ``answer_format``, an
    index as an integer or as a cell of digits as ``like`` (the row's own answer) is: the
    inverse of ``answer_letter``."""
    fmt = track.fields.answer_format
    if fmt == "letter":
        return letter
    if fmt == "text":
        return options[letter]
    if fmt == "letter_text":
        return f"{letter}. {options[letter]}"
    number = track.options.letters.index(letter) + (fmt == "index1")
    return number if type(like) is int else str(number)


def reads_texts(track: MultipleChoiceTrack) -> bool:
    """Whether a prediction may name its option by its text alone: the key writes its answers
    so (``text``), or the spec reads a prediction that is an option's text."""
    f = track.fields
    return f.answer_format == "text" or "option_text" in f.prediction_forms


def keeps_texts(track: MultipleChoiceTrack) -> bool:
    """Whether reading a prediction needs each question's option texts: to read a text
    (``reads_texts``), or a letter followed by its text as a ``letter_text`` key writes it."""
    return reads_texts(track) or track.fields.answer_format == "letter_text"


def text_letters(options: Mapping[str, str]) -> dict[str, str]:
    """A row's option texts to their letters, for predictions written as texts (a text two
    options share names neither)."""
    out: dict[str, str] = {}
    shared: set[str] = set()
    for letter, text in options.items():
        if text in out:
            shared.add(text)
        out[text] = letter
    return {t: letter for t, letter in out.items() if t not in shared}
