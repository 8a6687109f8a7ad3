"""A multiple-choice submission read against the questions alone: each question's letter, or
every problem of the file with how to fix it (a hint for the shapes people upload instead).

A submission is a JSON list of entries, JSON Lines with one entry a line, or a JSON object
keyed by id (what a benchmark's own evaluation often writes), each value the prediction itself
or an object holding it; a prediction is a letter, or written as the key writes its answers
(``fields.answer_format``: an integer index, or the option's text).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Collection, Mapping
from operator import itemgetter
from typing import Any

import numpy as np

from errors import SubmissionError
from evaluator.documents import Shape, shaped_id
from evaluator.documents import entries_of as document_entries
from evaluator.documents import keyed_id as document_keyed_id
from evaluator.files import with_ids
from evaluator.kinds.multiple_choice.coding import looked_up
from evaluator.kinds.multiple_choice.key import QuestionSet
from evaluator.kinds.multiple_choice.layouts import index_of, keeps_texts, reads_texts
from evaluator.kinds.multiple_choice.shapes import (
    WRAPPERS,
    entry_example,
    example_prediction,
    first_index,
    top_level_hint,
)
from evaluator.messages import Problems, letters_text, nth, ordinal, preview
from evaluator.submissions import (
    EntryWords,
    check_count,
    entry_columns,
    in_order,
    read_entries,
    told_of_a_stand_in,
)
from spec import MultipleChoiceTrack

#: What a prediction may be, as types: a string, or null to abstain.
_PREDICTIONS = frozenset({str, type(None)})
#: With an index answer format: an integer, or null to abstain (a boolean is neither).
_INDICES = frozenset({int, type(None)})
#: A file's answers as columns, in its entries' order: ids, and each normalised letter ("" an
#: abstention).
Columns = tuple[list[int | str], list[str]]

_NOT_AN_ANSWER = "?"  # what a prediction that names no option reads as on the fast road


def entry_fields(track: MultipleChoiceTrack) -> tuple[str, ...]:
    """The fields of a submission's entry, its id first (a composed id's parts): id and
    predicted letter."""
    return (*track.fields.id_names, track.fields.prediction)


def own_fields(track: MultipleChoiceTrack) -> tuple[str, ...]:
    """The fields only this kind's entries carry: the prediction, or a name people use for it."""
    return (track.fields.prediction, *track.fields.prediction_aliases)


def _words(track: MultipleChoiceTrack) -> EntryWords:
    f = track.fields
    return EntryWords(
        noun="question",
        shape=f'{{"{f.id}": ..., "{f.prediction}": ...}}',
        unknown="those of the public annotations file",
        missing="use null to abstain",
        look_alikes=track.hints.fields,
    )


def _decorated(track: MultipleChoiceTrack) -> re.Pattern[str]:
    """A letter wrapped in brackets or quotes, or followed by its text: "(A)", "A. Pancake"."""
    letters = re.escape(track.options.letters)
    return re.compile(rf"^[\(\[\{{<\"']?\s*([{letters}])\s*(?:[\)\]\}}>\"'.:,\-]|$)")


def _read_answer(
    track: MultipleChoiceTrack, entry: dict[str, Any], position: int, problems: Problems
) -> str | int | None:
    """The answer as written: a string trimmed and upper-cased ("" for an abstention), an
    integer with an index answer format; None if it is unusable (the problem noted)."""
    f = track.fields
    pred = f.prediction
    if pred not in entry:
        if told_of_a_stand_in(
            entry, pred, track.hints.fields, f.prediction_aliases, position, problems
        ):
            return None
        problems.add(
            f'{{n}} [entry has|entries have] no "{pred}" (e.g. the {{examples}} '
            "[entry|entries]); use null if the model gave no answer",
            lambda: ordinal(position + 1),
        )
        return None
    raw = entry[pred]
    if raw is None:
        return ""
    indexed = f.answer_format in ("index", "index1")
    if type(raw) is int and indexed:
        return raw
    if not isinstance(raw, str):
        written = (
            f"an option's index such as {example_prediction(track)} (counted from "
            f"{first_index(track)}) or its letter"
            if indexed
            else f'one option letter such as "{track.options.letters[1]}"'
            + (" or an option's text" if f.answer_format == "text" else "")
        )
        looks = (
            "; an integer looks like an option index, but this benchmark's predictions are "
            + ("option letters or texts" if f.answer_format == "text" else "option letters")
            if type(raw) is int
            else ""
        )
        problems.add(
            f'{{n}} [entry has|entries have] a "{pred}" that is not '
            f"{'an integer or a string' if indexed else 'a string'} (e.g. {{examples}}){looks}; "
            f"write {written}, or null to abstain",
            f"{nth(position, 'entry')}: {preview(raw)}",
        )
        return None
    if reads_written(track):
        return raw  # read by ``_letter``: a text, a prefixed letter, then a letter
    return raw.strip().upper()


def reads_written(track: MultipleChoiceTrack) -> bool:
    """Whether a prediction may be more than a letter or an index: an option's text, or a
    letter with its text after it (the answer format's, or a form the spec declares)."""
    return keeps_texts(track) or bool(track.fields.prediction_forms)


#: A letter followed by "." or ")" and nothing, or a space and anything: "A.", "B) right".
_PREFIXED = re.compile(r"([A-Z])([.)])(?:\s+(.*))?", re.S)


def _letter(questions: QuestionSet, ident: int | str, answer: str | int) -> str | None:
    """The letter an answer (``_read_answer``'s) names among the options of ``ident``: a
    letter, "" for an abstention, an index counted from the answer format's first, an option's
    text (exactly, or trimmed), its letter and text as a ``letter_text`` key writes them, or a
    prefixed letter when the spec reads one; None when it names none of them."""
    track, letters = questions.track, questions.letters[ident]
    if isinstance(answer, int):
        n = answer - first_index(track)
        letter = track.options.letters[n] if 0 <= n < len(track.options.letters) else ""
        return letter if letter in letters else None
    if reads_written(track):
        texts = questions.texts.get(ident, {})
        named = texts.get(answer) or texts.get(answer.strip())
        if named is not None and reads_texts(track):
            return named
        prefixed = _PREFIXED.fullmatch(answer.strip())
        if prefixed is not None and prefixed.group(1) in letters:
            letter, mark, rest = prefixed.groups()
            if "letter_prefix" in track.fields.prediction_forms:
                return letter
            if mark == "." and rest is not None and texts.get(rest.strip()) == letter:
                return letter  # "B. right", as a letter_text key writes its answers
        answer = answer.strip().upper()
    return answer if answer in letters or answer == "" else None


def _fast_columns(questions: QuestionSet, entries: list[Any]) -> Columns | None:
    """The answers of a file that scores, each check over all entries at once; None for any
    other file (``_careful_columns`` then lists its problems)."""
    track = questions.track
    read = entry_columns(
        track.fields, questions.letters.keys(), entries, (track.fields.prediction,)
    )
    if read is None:
        return None
    ids, (predictions,) = read
    types = set(map(type, predictions))
    fmt = track.fields.answer_format
    if reads_written(track) and types <= _PREDICTIONS:
        named = [_letter(questions, i, p or "") for i, p in zip(ids, predictions, strict=True)]
        answers = [_NOT_AN_ANSWER if a is None else a for a in named]
        given = set(answers)
    else:
        # A file holds a handful of distinct predictions ("A", "B", null): each is read once.
        if types <= _PREDICTIONS:
            read_as = {p: p.strip().upper() if p else "" for p in set(predictions)}
        elif fmt in ("index", "index1") and types <= _INDICES:
            letters, base = track.options.letters, first_index(track)
            read_as = {
                p: ""
                if p is None
                else letters[p - base]
                if 0 <= p - base < len(letters)
                else _NOT_AN_ANSWER
                for p in set(predictions)
            }
        else:
            return None
        answers = list(map(read_as.__getitem__, predictions))
        given = set(read_as.values())
    if not given <= questions.everywhere:  # some answer only some questions take: each checked
        order, allowed = questions.allowed
        if ids != list(order):  # the file's own order: each id's answers looked up
            allowed = tuple(map(dict(zip(order, allowed, strict=True)).__getitem__, ids))
        if not all(map(operator.contains, allowed, answers)):
            return None
    return ids, answers


def _valid(track: MultipleChoiceTrack, letters: Collection[str]) -> str:
    """The answers a question takes, for a message: "A-D", "0-3 or A-D", "an option's text or
    A-D"."""
    shown = letters_text(letters)
    fmt = track.fields.answer_format
    if fmt in ("index", "index1"):
        base = first_index(track)
        return f"{base}-{base + len(letters) - 1} or {shown}"
    return f"an option's text or {shown}" if fmt == "text" else shown


def _careful_columns(questions: QuestionSet, entries: list[Any]) -> Columns:
    """The answers read entry by entry (``read_entries``), every problem noted: the road of a
    file the fast one leaves, and the one that writes the messages."""
    track = questions.track
    decorated = _decorated(track)

    def read(
        entry: dict[str, Any], position: int, ident: int | str | None, problems: Problems
    ) -> tuple[bool, str]:
        answer = _read_answer(track, entry, position, problems)
        if answer is None or ident is None:
            return False, ""
        letters = questions.letters[ident]
        letter = _letter(questions, ident, answer)
        if letter is None:
            raw = entry[track.fields.prediction]
            shown = answer.strip().upper() if isinstance(answer, str) else ""
            match = decorated.match(shown)
            if match and match.group(1) in letters and shown != match.group(1):
                problems.add(
                    "{n} [answer carries|answers carry] more than the option letter "
                    '(e.g. {examples}); keep only the letter, e.g. "A" instead of "(A)" or '
                    '"A. Pancake"',
                    f"id {ident}: {preview(raw)}",
                )
            else:
                looks = (
                    " (they look like option indices: this benchmark's predictions are letters)"
                    if track.fields.answer_format in ("letter", "text")
                    and index_of(raw) is not None
                    else ""
                )
                problems.add(
                    "{n} [answer is|answers are] not among their question's options"
                    f"{looks} (e.g. {{examples}})",
                    lambda: f"id {ident}: {preview(raw, 20)} (valid {_valid(track, letters)})",
                )
            return False, ""
        return True, letter

    found = read_entries(track.fields, questions.letters, entries, read, _words(track))
    return list(found), list(found.values())


def keyed_id(track: MultipleChoiceTrack, name: str) -> int | str:
    """A key of an object keyed by id as the id it names (``evaluator.documents.keyed_id``)."""
    return document_keyed_id(track.fields, name)


def keyed_entry(track: MultipleChoiceTrack, name: str, value: Any) -> dict[str, Any] | None:
    """The entry ``name: value`` of an object keyed by id stands for, to tell a file's track
    (``evaluator.track_fit``): None when ``name`` is not shaped as the track's ids (an integer
    id is decimal digits, an id of several fields holds their join) or ``value`` is neither an
    object nor a prediction as the track writes one (a letter, an index of its answer format,
    any text with text answers, or null)."""
    f, letters = track.fields, track.options.letters
    ident = shaped_id(f, name)
    if ident is None:
        return None
    if isinstance(value, dict):
        return {**value, f.id: ident}
    if isinstance(value, str):
        letter = value.strip().upper()
        fits = (len(letter) == 1 and letter in letters) or f.answer_format == "text"
    elif type(value) is int:
        fits = f.answer_format in ("index", "index1") and (
            0 <= value - first_index(track) < len(letters)
        )
    else:
        fits = value is None
    return {f.id: ident, f.prediction: value} if fits else None


def entries_of(
    track: MultipleChoiceTrack, data: bytes, rows: int, ids: Collection[int | str] | None
) -> list[Any]:
    """A submission's entries, whatever shape it takes (``evaluator.documents.entries_of``: a
    JSON list, JSON Lines, an object keyed by id or written by the key's levels; ``ids``: the
    questions', to tell such an object from another). SubmissionError with a hint for any
    other shape."""
    shape = Shape(entry_example(track), track.fields.prediction, ("results", *WRAPPERS))
    decoded = document_entries(track.fields, data, rows, ids, shape)
    if not isinstance(decoded, list):
        raise SubmissionError([top_level_hint(track, decoded)])
    return decoded


def _entries(questions: QuestionSet, data: bytes) -> list[Any]:
    """A submission's entries, refused at once if there are none or too many."""
    track = questions.track
    decoded = entries_of(track, data, len(questions), questions.letters)
    check_count(decoded, len(questions), _words(track))
    return decoded


def _columns_of(questions: QuestionSet, entries: list[Any]) -> Columns:
    fast = _fast_columns(questions, entries)
    return _careful_columns(questions, entries) if fast is None else fast


def columns(questions: QuestionSet, data: bytes) -> Columns:
    """``validate``'s answers as columns, in the entries' order ("" an abstention): the same
    checks and the same SubmissionError."""
    return _columns_of(questions, _entries(questions, data))


def coded(questions: QuestionSet, data: bytes) -> np.ndarray:
    """``validate``'s answers as codes (``coding``: 0 an abstention), one a question in the
    questions' order (a key's ``asked``: the key's): the same checks, the same SubmissionError.
    A file written as the track writes answers takes ``_fast_codes``; any other is read as
    ``columns`` reads it."""
    entries = _entries(questions, data)
    fast = _fast_codes(questions, entries)
    if fast is not None:
        return fast
    coding = questions.coding
    ids, answers = _columns_of(questions, entries)
    (ordered,) = in_order(ids, coding.order, answers)
    return np.frombuffer(bytes(map(coding.codes.__getitem__, ordered)), np.uint8)


def _fast_codes(questions: QuestionSet, entries: list[Any]) -> np.ndarray | None:
    """The answers of a file that scores with every prediction a letter of the track, "" or
    null, as codes in the questions' order, each step over all entries at once; None for any
    other file (``columns`` then reads it, or says what is wrong). A file in the questions'
    own order (most are) is told so in one comparison of its ids."""
    track, coding = questions.track, questions.coding
    f = track.fields
    if reads_written(track) or len(entries) != len(coding.order):
        return None
    with_ids(f, entries)
    try:
        named = list(map(itemgetter(f.id), entries))
        written = bytes(looked_up(coding.exact, tuple(map(itemgetter(f.prediction), entries))))
    except (KeyError, TypeError):  # an entry that is no object or lacks a field, another value
        return None
    # The type first: True and 1.0 are equal to 1, and hash alike. A string id needs no such
    # check: only a string equals one.
    if f.id_type == "integer" and set(map(type, named)) != {int}:
        return None
    codes = np.frombuffer(written, np.uint8)
    if named != coding.order:
        try:
            rows = np.array(looked_up(coding.rows, named), np.intp)
        except (KeyError, TypeError):  # an id unknown (or unhashable)
            return None
        placed = np.zeros(len(named), np.bool_)
        placed[rows] = True
        if not placed.all():  # an id named twice, so another is missing
            return None
        codes = np.empty_like(codes)
        codes[rows] = np.frombuffer(written, np.uint8)
    return codes if coding.all_taken(codes) else None


def validate(questions: QuestionSet, data: bytes) -> dict[int | str, str | None]:
    """The answers of the raw bytes of a submission, checked against the questions alone (a
    public file's, or a key's ``asked``): by id, each normalised letter or None for an
    abstention. SubmissionError, listing every problem, if it cannot be scored."""
    ids, answers = columns(questions, data)
    return {i: a or None for i, a in zip(ids, answers, strict=True)}


def keyless_letter(track: MultipleChoiceTrack, raw: object) -> str | bool | None:
    """A prediction's letter read without its questions (``answers_sha256``): the letter, None
    for an abstention, False when it cannot be read so (not a letter or an index, or an
    option's text, which only the questions turn into a letter)."""
    if raw is None or raw == "":
        return None
    base = first_index(track)
    if track.fields.answer_format in ("index", "index1") and type(raw) is int:
        n = raw - base
        return track.options.letters[n] if 0 <= n < len(track.options.letters) else False
    if not isinstance(raw, str):
        return False
    letter = raw.strip().upper()
    if reads_written(track):
        return letter if len(letter) == 1 and letter in track.options.letters else False
    return letter or None


def abstentions(answers: Mapping[int | str, str | None]) -> int:
    """The questions a valid file leaves without an answer."""
    return sum(letter is None for letter in answers.values())
