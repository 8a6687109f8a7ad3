"""A short-answer key and the questions of a public file: read, checked, and what scoring needs
of each question (its rule set, its answers as that set compares them, its groups).

A row's fields are its own, plus those ``fields.id_pattern`` reads from its id; the checks of a
public file are the key's but for the answers.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import KeysView, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

from errors import AnswerKeyError, DataFileError, PublicFileError
from evaluator.accuracy import size_problems as tree_size_problems
from evaluator.files import read_rows
from evaluator.kinds.short_answer.rules import Accepted, accepted
from evaluator.messages import MAX_EXAMPLES, agree, examples, nth, preview, short
from spec import ShortAnswerTrack


@dataclass(frozen=True, slots=True)
class Question:
    """One row of a validated key: what it is, its answers as the key writes them, its rule
    set's name, its groups (each grouping's value) and the row as read."""

    id: int | str
    choice: bool  # multiple-choice (its answer a letter), else open
    letters: tuple[str, ...]  # a multiple-choice question's letters; () for an open one
    options: Mapping[str, str]  # its option texts by letter, when the release has them
    answers: tuple[str, ...]  # the letter, or the accepted texts
    rule: str
    groups: tuple[str, ...]
    record: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Item:
    """What scoring needs of a question: its rule set's name, its answers as that set compares
    them, its groups (per grouping, the index of the row's group) and its letter count."""

    rule: str
    accepted: Accepted
    groups: tuple[int, ...]
    letters: int  # of a multiple-choice question (its chance is 1 / letters); 0 for an open one


@dataclass(frozen=True)
class ShortAnswerQuestions:
    """The questions of a track as its public file asks them, without answers: their ids in
    order, and whether each is multiple-choice. What ``validate`` checks a submission against."""

    track: ShortAnswerTrack
    choice: Mapping[int | str, bool]
    key_version: str | None

    def __len__(self) -> int:
        return len(self.choice)

    @property
    def ids(self) -> KeysView[int | str]:
        """Its ids, in order."""
        return self.choice.keys()


@dataclass(frozen=True)
class ShortAnswerKey:
    """A validated short-answer key of one track, with what scoring needs and its sha256."""

    track: ShortAnswerTrack
    questions: tuple[Question, ...]
    key_version: str | None
    sha256: str
    items: Mapping[int | str, Item]

    def __len__(self) -> int:
        return len(self.questions)

    @cached_property
    def ids(self) -> tuple[int | str, ...]:
        return tuple(q.id for q in self.questions)

    @property
    def flagged(self) -> int:
        """Rows flagged out of option: a short-answer key has none."""
        return 0

    @cached_property
    def chance(self) -> Fraction:
        """What answering every question at random scores in expectation, as a fraction of the
        questions: ``1 / n`` for a multiple-choice question of ``n`` letters, 0 for an open one,
        summed exactly and divided by their number."""
        by_count = Counter(item.letters for item in self.items.values() if item.letters)
        return sum((Fraction(rows, n) for n, rows in by_count.items()), Fraction(0)) / len(self)

    @cached_property
    def asked(self) -> ShortAnswerQuestions:
        """Its questions without their answers, as the public file released with it has them."""
        return ShortAnswerQuestions(
            self.track, {q.id: q.choice for q in self.questions}, self.key_version
        )


def with_derived(track: ShortAnswerTrack, records: Sequence[Any]) -> list[str]:
    """Each row given the fields ``fields.id_pattern`` reads from its id (a row that has them
    already keeps them, to be compared); the rows whose id the pattern does not match, by id."""
    f = track.fields
    regex = f.id_regex
    if regex is None:
        return []
    unmatched = []
    for record in records:
        if not isinstance(record, dict) or not f.is_id(record.get(f.id)):
            continue
        match = regex.fullmatch(str(record[f.id]))
        if match is None or None in match.groupdict().values():
            unmatched.append(short(record[f.id]))
            continue
        for name, value in match.groupdict().items():
            record.setdefault(name, value)
    return unmatched


def options_of(track: ShortAnswerTrack, record: Mapping[str, Any]) -> dict[str, str] | None:
    """A row's options as letters to texts (a JSON object of them, or a list of texts in letter
    order); {} when the release has none; None when the field is not written so."""
    name = track.fields.options
    if name is None:
        return {}
    value = record.get(name)
    letters = track.options.letters
    if isinstance(value, list) and len(value) <= len(letters):
        texts = dict(zip(letters, value, strict=False))
    elif isinstance(value, dict):
        texts = dict(value)
    else:
        return None
    ordered = list(texts) == list(letters[: len(texts)])
    fine = ordered and len(texts) >= 2 and all(isinstance(t, str) for t in texts.values())
    return texts if fine else None


def answers_of(raw: object) -> tuple[str, ...] | None:
    """An open question's accepted answers: a text, a number (read as its text) or a non-empty
    list of them; None when it is none of these (or a text is blank)."""
    listed = raw if isinstance(raw, list) and raw else [raw]
    out = []
    for value in listed:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            return None
        text = value if isinstance(value, str) else str(value)
        if not text.strip():
            return None
        out.append(text)
    return tuple(out)


def question_problems(
    track: ShortAnswerTrack, record: object, index: int, *, key: bool
) -> list[str]:
    """What makes one row of a key (or, without ``key``, of a public file) unusable, each as
    "<where>: <field>: <problem>"."""
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
    texts = [*(g.field for g in track.groupings), *((f.question,) if f.question else ())]
    for name in texts:
        if not isinstance(record.get(name), str):
            missing = name not in record
            out.append(f"{where}: {name}: {'Field required' if missing else 'expected a text'}")
    types = track.types
    choice = track.is_choice(record.get(types.field)) if types is not None else False
    if types is not None and choice is None:
        declared = ", ".join(repr(v) for v in (*types.choice, *types.open))
        found = preview(record.get(types.field))
        out.append(f"{where}: {types.field}: expected one of {declared}, got {found}")
    if choice and options_of(track, record) is None:
        out.append(
            f"{where}: {f.options}: expected an object of letters to texts from A, or a list of "
            f"2 to {len(track.options.letters)} texts"
        )
    rule_field = track.rule_field
    if rule_field and rule_field in record and not isinstance(record[rule_field], str):
        out.append(f"{where}: {rule_field}: expected a text (it picks the question's rule set)")
    if key and f.answer not in record:
        out.append(f"{where}: {f.answer}: Field required")
    elif key and choice is not None:
        raw = record[f.answer]
        if choice:
            letters = list(options_of(track, record) or track.options.letters)
            if not (isinstance(raw, str) and raw in letters):
                out.append(
                    f"{where}: {f.answer}: a multiple-choice answer is one of the letters "
                    f"{letters[0]}-{letters[-1]}, got {preview(raw)}"
                )
        elif answers_of(raw) is None:
            out.append(
                f"{where}: {f.answer}: an open answer is a text, a number, or a list of them "
                f"(each accepted), got {preview(raw)}"
            )
    return out


def _valid_rows(track: ShortAnswerTrack, data: Sequence[Any], *, key: bool) -> list[dict[str, Any]]:
    """The rows of a key (or, without ``key``, of a public file), checked, with the fields
    their ids give; AnswerKeyError (PublicFileError) lists the problems."""
    error: type[ValueError] = AnswerKeyError if key else PublicFileError
    what = "the answer key" if key else f"the public file {track.public.name}"
    f = track.fields
    unmatched = with_derived(track, data)
    if unmatched:  # before the rows' own checks, which would miss the fields it gives
        raise error(
            f"invalid {what.removeprefix('the ')}: "
            + agree(f"{len(unmatched)} [id does|ids do]", len(unmatched))
            + f" not match fields.id_pattern {f.id_pattern!r} ({examples(unmatched)}); every "
            "id must give each of its named groups"
        )
    bad = [p for i, record in enumerate(data) for p in question_problems(track, record, i, key=key)]
    if bad:
        raise error(
            agree(f"{what} has {len(bad)} invalid [field|fields]: ", len(bad))
            + "; ".join(bad[:MAX_EXAMPLES])
        )
    rows: list[dict[str, Any]] = list(data)
    problems = []
    dupes = sorted(i for i, n in Counter(r[f.id] for r in rows).items() if n > 1)
    if dupes:
        problems.append(
            agree(f"{len(dupes)} duplicate [{f.id}|{f.id}s]", len(dupes)) + f" ({examples(dupes)})"
        )
    for grouping in track.groupings:
        values = {v for g in grouping.groups for v in g.values}
        unknown = [r[f.id] for r in rows if r.get(grouping.field) not in values]
        if unknown:
            problems.append(
                agree(f"{len(unknown)} [question|questions]", len(unknown))
                + f" with an unknown {grouping.field} ({examples(unknown)}); expected one of: "
                + ", ".join(sorted(values))
            )
    rule_field = track.rule_field
    if key and track.rules.by and rule_field and not any(rule_field in r for r in rows):
        problems.append(
            f"no row has the field {rule_field!r} whose values pick a rule set (rules.by)"
        )
    if problems:
        raise error(f"invalid {what.removeprefix('the ')}: " + "; ".join(problems))
    return rows


def _question(track: ShortAnswerTrack, row: Mapping[str, Any]) -> Question:
    f, types = track.fields, track.types
    choice = bool(track.is_choice(row.get(types.field))) if types is not None else False
    options = options_of(track, row) or {}
    raw = row[f.answer]
    return Question(
        id=row[f.id],
        choice=choice,
        letters=tuple(options or track.options.letters) if choice else (),
        options=options,
        answers=(raw,) if choice else answers_of(raw) or (),
        rule=track.rule_name(choice, row.get(track.rule_field or "")),
        groups=tuple(row[g.field] for g in track.groupings),
        record=row,
    )


def parse_key(
    track: ShortAnswerTrack, data: Sequence[Any], sha256: str = "", key_version: str | None = None
) -> ShortAnswerKey:
    """Validate already-read key rows against ``track``."""
    rows = _valid_rows(track, data, key=True)
    questions = tuple(_question(track, r) for r in rows)
    index = [{v: i for i, g in enumerate(gr.groups) for v in g.values} for gr in track.groupings]
    rules = track.rule_sets
    items = {
        q.id: Item(
            rule=q.rule,
            accepted=accepted(rules[q.rule], q.answers),
            groups=tuple(at[value] for at, value in zip(index, q.groups, strict=True)),
            letters=len(q.letters),
        )
        for q in questions
    }
    return ShortAnswerKey(track, questions, key_version, sha256, items)


def load_key(track: ShortAnswerTrack, data: bytes) -> ShortAnswerKey:
    """Decode and validate the bytes of a track's answer-key file (its declared format)."""
    try:
        rows = read_rows(track, data, track.key.format)
    except DataFileError as exc:
        raise AnswerKeyError(f"the answer key is {exc}") from None
    return parse_key(track, list(rows.records), hashlib.sha256(data).hexdigest(), rows.key_version)


def load_questions(track: ShortAnswerTrack, data: bytes) -> ShortAnswerQuestions:
    """Decode and validate the bytes of a track's public file: the questions a submission
    answers, without answers; PublicFileError if it does not validate (the key's checks, but
    for the answers)."""
    try:
        rows = read_rows(track, data, track.public.format)
    except DataFileError as exc:
        raise PublicFileError(f"the public file {track.public.name}: {exc}") from None
    valid = _valid_rows(track, list(rows.records), key=False)
    types, f = track.types, track.fields
    choice = {
        r[f.id]: bool(types is not None and track.is_choice(r.get(types.field))) for r in valid
    }
    return ShortAnswerQuestions(track, choice, rows.key_version)


def size_problems(key: ShortAnswerKey) -> list[str]:
    """Where the key disagrees with the sizes its spec declares: group sizes, or the rows of a
    track without groups."""
    return tree_size_problems(key.track, [q.groups for q in key.questions])


def same_questions(a: ShortAnswerKey, b: ShortAnswerKey) -> bool:
    """Whether two keys ask the same questions: the same ids, and for each the same type,
    question text and option texts."""

    def asked(key: ShortAnswerKey) -> dict[int | str, tuple[bool, Any, list[str]]]:
        question = key.track.fields.question
        return {
            q.id: (
                q.choice,
                q.record.get(question) if question else None,
                sorted(q.options.values()),
            )
            for q in key.questions
        }

    return a.track.id == b.track.id and asked(a) == asked(b)
