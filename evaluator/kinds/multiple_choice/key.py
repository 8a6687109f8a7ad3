"""A multiple-choice answer key and the questions of a public file: read, checked, looked up.

The checks of a public file are the key's but for the answers: ids, option letters, groups.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from errors import AnswerKeyError, DataFileError, PublicFileError
from evaluator.accuracy import size_problems as tree_size_problems
from evaluator.files import read_rows
from evaluator.kinds.multiple_choice.coding import OUT_OF_OPTION, Coding, letter_codes
from evaluator.kinds.multiple_choice.digest import AnswersText
from evaluator.kinds.multiple_choice.layouts import (
    answer_hint,
    answer_letter,
    answer_type_problem,
    keeps_texts,
    options_of,
    options_problem,
    question_text,
    text_letters,
)
from evaluator.kinds.multiple_choice.printed import unprinted
from evaluator.messages import MAX_EXAMPLES, agree, examples, nth
from spec import MultipleChoiceTrack


@dataclass(frozen=True, slots=True)
class Question:
    """One row of a validated answer key."""

    id: int | str
    text: str
    options: Mapping[str, str]  # letters to texts, whatever the layout the release uses
    answer: str  # its letter (the key's own answer when out of option)
    groups: tuple[str, ...]  # the value of each grouping's field, in the track's order
    out_of_option: bool  # flagged: its answer is not among its options
    record: Mapping[str, Any]  # the row as the file has it


@dataclass(frozen=True, slots=True)
class Item:
    """What scoring needs of a question: its letters, its right letter, its groups."""

    letters: frozenset[str]
    correct: str | None  # None: out of option, never right
    groups: tuple[int, ...]  # per grouping, the index of the row's group


@dataclass(frozen=True)
class QuestionSet:
    """The questions of a track as its public file asks them, without answers: each id's
    option letters. What ``validate`` checks a submission against, and all it needs."""

    track: MultipleChoiceTrack
    letters: Mapping[int | str, frozenset[str]]
    key_version: str | None
    #: Each id's option texts to their letters, when predictions may be written as texts
    #: (``keeps_texts``); empty otherwise.
    texts: Mapping[int | str, Mapping[str, str]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.letters)

    @cached_property
    def allowed(self) -> tuple[tuple[int | str, ...], tuple[frozenset[str], ...]]:
        """Its ids in order, and the answers each may be given: its letters, or "" to
        abstain."""
        return tuple(self.letters), tuple(letters | {""} for letters in self.letters.values())

    @cached_property
    def everywhere(self) -> frozenset[str]:
        """The answers every question may be given: the letters they all have, and ""."""
        shared = frozenset.intersection(*self.letters.values()) if self.letters else frozenset()
        return shared | {""}

    @cached_property
    def coding(self) -> Coding:
        """Its answers as codes (``coding``): ids, rows and the codes each row takes."""
        return Coding.of(self.track, self.letters)


@dataclass(frozen=True)
class AnswerKey:
    """A validated answer key of one track, with the lookups scoring needs and its sha256."""

    track: MultipleChoiceTrack
    questions: tuple[Question, ...]
    key_version: str | None
    sha256: str
    items: Mapping[int | str, Item]

    def __len__(self) -> int:
        return len(self.questions)

    @cached_property
    def ids(self) -> tuple[int | str, ...]:
        """Its questions' ids, in the key's order."""
        return tuple(q.id for q in self.questions)

    @cached_property
    def flagged(self) -> int:
        """Its rows flagged out of option."""
        return sum(q.out_of_option for q in self.questions)

    @cached_property
    def columns(self) -> KeyColumns:
        """Its questions as columns in key order, for scoring all at once."""
        items = [self.items[i] for i in self.ids]
        order = sorted(range(len(items)), key=lambda n: id_order(self.ids[n]))
        groups = tuple(zip(*(item.groups for item in items), strict=True))
        tallies = [Counter(of) for of in groups]
        codes = letter_codes(self.track)
        corrects = tuple(item.correct for item in items)
        return KeyColumns(
            corrects=corrects,
            groups=groups,
            sizes=tuple(
                tuple(tally[i] for i in range(len(grouping.groups)))
                for tally, grouping in zip(tallies, self.track.groupings, strict=True)
            ),
            answerable=sum(c is not None for c in corrects),
            answers_text=AnswersText.of(self.ids, order, codes),
            correct_codes=np.array(
                [OUT_OF_OPTION if c is None else codes[c] for c in corrects], np.uint8
            ),
            outcome_slots=tuple(3 * np.array(of, np.intp) for of in groups),
        )

    @cached_property
    def chance(self) -> Fraction:
        """What answering every question at random scores in expectation, as a fraction of
        the questions: the sum of ``1 / n`` (``n`` a row's option count, an out-of-option row
        0) over the rows, exact (counted by option count), divided by their number."""
        by_count = Counter(len(i.letters) for i in self.items.values() if i.correct is not None)
        return sum((Fraction(rows, n) for n, rows in by_count.items()), Fraction(0)) / len(self)

    @cached_property
    def asked(self) -> QuestionSet:
        """Its questions without their answers, as the public file released with it has them."""
        texts = (
            {q.id: text_letters(q.options) for q in self.questions}
            if keeps_texts(self.track)
            else {}
        )
        return QuestionSet(
            self.track,
            {i: item.letters for i, item in self.items.items()},
            self.key_version,
            texts,
        )


@dataclass(frozen=True)
class KeyColumns:
    """A key's questions as columns, each in key order: what scoring counts over all questions
    at once."""

    corrects: tuple[str | None, ...]  # each question's right letter, None out of option
    groups: tuple[tuple[int, ...], ...]  # per grouping, each question's group index
    sizes: tuple[tuple[int, ...], ...]  # per grouping, each group's number of questions
    answerable: int  # the questions an answer can get right (not out of option)
    # Not compared (a key is its questions): the text ``answers_sha256`` hashes, each answer to
    # fill in, and the columns above as numpy arrays.
    answers_text: AnswersText = field(compare=False)
    correct_codes: np.ndarray = field(compare=False)  # each right letter's code, or OUT_OF_OPTION
    #: Per grouping, each question's group index times 3: where its outcome (unanswered, wrong,
    #: right) is counted among its group's three.
    outcome_slots: tuple[np.ndarray, ...] = field(compare=False)


def id_order(ident: int | str) -> tuple[int, int, str]:
    """Ids sorted integers first, by value, then strings."""
    return (0, ident, "") if isinstance(ident, int) else (1, 0, ident)


def _row_problems(
    track: MultipleChoiceTrack, record: object, index: int, *, key: bool
) -> list[str]:
    """What makes one row of a key (or, without ``key``, of a public file: no answer fields)
    unusable, each as "<where>: <field>: <problem>"."""
    f = track.fields
    if not isinstance(record, dict):
        return [f"{nth(index, 'question')}: entry: expected a JSON object"]
    ident = record.get(f.id)
    where = f"{f.id} {ident!r}" if f.id in record else nth(index, "question")
    out = []
    if f.id not in record:
        out.append(f"{where}: {f.absent_id(record)}")
    elif not f.is_id(ident):
        out.append(f"{where}: {f.id}: Input should be a valid {f.id_kind}")
    elif isinstance(ident, int) and ident < 0:
        out.append(f"{where}: {f.id}: Value error, {f.id} must be a non-negative integer")
    text_fields = [f.question, *(g.field for g in track.groupings)]
    for name in text_fields:
        if name not in record:
            out.append(f"{where}: {name}: Field required")
        elif not isinstance(record[name], str):
            out.append(f"{where}: {name}: Input should be a valid string")
    if key and f.answer not in record:
        out.append(f"{where}: {f.answer}: Field required")
    elif key and (problem := answer_type_problem(track, record[f.answer])) is not None:
        out.append(f"{where}: {f.answer}: {problem}")
    options = options_problem(track, record)
    if options is not None:
        out.append(f"{where}: {options}")
    flag = track.out_of_option
    if (
        key
        and flag is not None
        and flag.field in record
        and not isinstance(record[flag.field], str)
    ):
        out.append(f"{where}: {flag.field}: Input should be a valid string")
    return out


def _valid_rows(
    track: MultipleChoiceTrack, data: Sequence[Any], *, key: bool
) -> tuple[
    list[dict[str, Any]], list[dict[str, str]], list[dict[str, int]], dict[int | str, str | None]
]:
    """The rows of a key (or, without ``key``, of a public file), each checked; their options
    as letters to texts (in the rows' order), whatever layout the release writes them in; per
    grouping the index of each group value; and for a key each row's answer letter (None: it
    names none of its options). AnswerKeyError (PublicFileError) lists the problems."""
    error: type[ValueError] = AnswerKeyError if key else PublicFileError
    what = "the answer key" if key else f"the public file {track.public.name}"
    bad = [
        p for index, record in enumerate(data) for p in _row_problems(track, record, index, key=key)
    ]
    if bad:
        raise error(
            agree(f"{what} has {len(bad)} invalid [field|fields]: ", len(bad))
            + "; ".join(bad[:MAX_EXAMPLES])
        )

    f, opts = track.fields, track.options
    rows: list[dict[str, Any]] = list(data)
    options: list[dict[str, str]] = [options_of(track, r) or {} for r in rows]
    letters: dict[int | str, str | None] = (
        {r[f.id]: answer_letter(track, r[f.answer], o) for r, o in zip(rows, options, strict=True)}
        if key
        else {}
    )
    problems: list[str] = []
    counts = Counter(r[f.id] for r in rows)
    dupes = sorted(i for i, n in counts.items() if n > 1)
    if dupes:
        problems.append(
            agree(f"{len(dupes)} duplicate [{f.id}|{f.id}s]", len(dupes)) + f" ({examples(dupes)})"
        )
    bad_options = [
        r[f.id]
        for r, o in zip(rows, options, strict=True)
        if not opts.min <= len(o) <= opts.max or sorted(o) != list(opts.letters[: len(o)])
    ]
    if bad_options:
        problems.append(
            agree(f"{len(bad_options)} [question|questions]", len(bad_options))
            + f" whose option letters are not {opts.letters[0]}.. without gaps, "
            f"{opts.min} to {opts.max} of them ({examples(bad_options)})"
        )
    if key:
        problems += _answer_problems(track, rows, options, letters)
    group_index: list[dict[str, int]] = []
    for grouping in track.groupings:
        values = {v: i for i, g in enumerate(grouping.groups) for v in g.values}
        group_index.append(values)
        bad_group = [r[f.id] for r in rows if r[grouping.field] not in values]
        if bad_group:
            problems.append(
                agree(f"{len(bad_group)} [question|questions]", len(bad_group))
                + f" with an unknown {grouping.field} ({examples(bad_group)}); "
                f"expected one of: {', '.join(values)}"
            )
        else:
            present = {r[grouping.field] for r in rows}
            absent = [g.spelled for g in grouping.groups if not present.intersection(g.values)]
            if absent:
                label = grouping.field.replace("_", " ")
                problems.append(f"no questions of {label} {', '.join(absent)}")
    if problems:
        raise error(f"invalid {what.removeprefix('the ')}: " + "; ".join(problems))
    return rows, options, group_index, letters


def is_flagged(track: MultipleChoiceTrack, row: Mapping[str, Any]) -> bool:
    """Whether a row is flagged out of option (its answer lies outside its options)."""
    flag = track.out_of_option
    return flag is not None and row.get(flag.field) == flag.value


def _answer_problems(
    track: MultipleChoiceTrack,
    rows: Sequence[Mapping[str, Any]],
    options: Sequence[Mapping[str, str]],
    letters: Mapping[int | str, str | None],
) -> list[str]:
    """Answers that are not among their options (``options``: each row's, ``letters``: each
    row's answer letter, None when it names none), unless flagged out of option, with what they
    look like when they look like answers of another ``answer_format``; and flags on answers
    that are."""
    f, flag = track.fields, track.out_of_option
    problems = []
    bad_rows = [
        (r, o)
        for r, o in zip(rows, options, strict=True)
        if letters[r[f.id]] is None and not is_flagged(track, r)
    ]
    bad_answer = [r[f.id] for r, _ in bad_rows]
    if bad_answer:
        problems.append(
            agree(f"{len(bad_answer)} [question|questions]", len(bad_answer))
            + f" whose {f.answer} is not one of their options ({examples(bad_answer)})"
            + answer_hint(track, [(r[f.answer], o) for r, o in bad_rows])
            + (
                f"; such rows are accepted only when flagged {flag.field} = {flag.value}"
                if flag is not None
                else ""
            )
        )
    if flag is not None:
        wrongly = [r[f.id] for r in rows if is_flagged(track, r) and letters[r[f.id]] is not None]
        if wrongly:
            problems.append(
                agree(f"{len(wrongly)} [question is|questions are]", len(wrongly))
                + f" flagged {flag.field} = {flag.value} although their {f.answer} is one of "
                f"their options ({examples(wrongly)})"
            )
    return problems


def parse_answer_key(
    track: MultipleChoiceTrack, data: Any, sha256: str = "", key_version: str | None = None
) -> AnswerKey:
    """Validate already-decoded key rows (a list, or ``{"samples": ...}``) against ``track``."""
    if isinstance(data, dict) and "samples" in data:
        key_version = data.get("key_version") if key_version is None else key_version
        if not (key_version is None or isinstance(key_version, str)):
            raise AnswerKeyError("the answer key's key_version must be a string")
        data = data["samples"]
    if not isinstance(data, (list, tuple)):
        raise AnswerKeyError(
            'an answer key must be a JSON list of questions or an object {"samples": [...]}'
        )
    rows, options, group_index, letters = _valid_rows(track, data, key=True)
    f = track.fields
    questions = tuple(
        Question(
            id=r[f.id],
            text=question_text(track, r),
            options=o,
            answer=letters[r[f.id]] or str(r[f.answer]),
            groups=tuple(r[g.field] for g in track.groupings),
            out_of_option=is_flagged(track, r),
            record=r,
        )
        for r, o in zip(rows, options, strict=True)
    )
    items = {
        q.id: Item(
            frozenset(q.options),
            None if q.out_of_option else q.answer,
            tuple(index[value] for index, value in zip(group_index, q.groups, strict=True)),
        )
        for q in questions
    }
    key = AnswerKey(track, questions, key_version, sha256, items)
    _ = key.columns, key.asked.coding, key.asked.allowed  # what scoring reads, built now
    return key


def load_key(track: MultipleChoiceTrack, data: bytes) -> AnswerKey:
    """Decode and validate the bytes of a track's answer-key file (its declared format)."""
    try:
        rows = read_rows(track, data, track.key.format)
    except DataFileError as exc:
        if track.key.format == "json" and str(exc).startswith("expected a JSON list"):
            raise AnswerKeyError(
                'an answer key must be a JSON list of questions or an object {"samples": [...]}'
            ) from None
        raise AnswerKeyError(f"the answer key is {exc}") from None
    return parse_answer_key(
        track, list(rows.records), hashlib.sha256(data).hexdigest(), rows.key_version
    )


def load_questions(track: MultipleChoiceTrack, data: bytes) -> QuestionSet:
    """Decode and validate the bytes of a track's public file (its declared format): the
    questions a submission answers, without answers, for ``validate``. PublicFileError if it
    does not validate (the key's checks, but for the answers)."""
    try:
        rows = read_rows(track, data, track.public.format)
    except DataFileError as exc:
        raise PublicFileError(f"the public file {track.public.name}: {exc}") from None
    valid, options, _, _ = _valid_rows(track, rows.records, key=False)
    ids = [r[track.fields.id] for r in valid]
    texts = (
        {i: text_letters(o) for i, o in zip(ids, options, strict=True)}
        if keeps_texts(track)
        else {}
    )
    return QuestionSet(
        track, {i: frozenset(o) for i, o in zip(ids, options, strict=True)}, rows.key_version, texts
    )


def size_problems(key: AnswerKey) -> list[str]:
    """Where the key disagrees with the sizes its spec declares (the release checks' part that
    needs only the key): group sizes and the number of out-of-option rows."""
    track = key.track
    problems = tree_size_problems(track, [q.groups for q in key.questions])
    flag = track.out_of_option
    if flag is not None:
        n = sum(q.out_of_option for q in key.questions)
        if n != flag.rows:
            problems.append(
                f"{n} rows are flagged {flag.field} = {flag.value}; the spec declares {flag.rows}"
            )
    return problems


def same_questions(a: AnswerKey, b: AnswerKey) -> bool:
    """Whether two keys ask the same questions: the same ids, and for each the same text and
    the same option texts, whatever their letters, printed ones too (a key and its rotations
    do)."""

    def asked(key: AnswerKey) -> dict[int | str, tuple[str, list[str]]]:
        return {q.id: (q.text, sorted(map(unprinted, q.options.values()))) for q in key.questions}

    return a.track.id == b.track.id and asked(a) == asked(b)
