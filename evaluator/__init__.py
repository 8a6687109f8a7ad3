"""Scoring: a pure function of (track, answer key, submission bytes) -> result.

No I/O, no clock, no gradio, no huggingface_hub: the app, the ledger and the scripts all call
this one module, so a score means the same thing everywhere. What is scored (groups, sizes,
letters, field names) comes from the track of a benchmark's spec (``spec.Track``); this module
knows no benchmark. ``load_answer_key``, ``load_questions``, ``validate``, ``score`` and
``size_problems`` take a track, key or questions of either kind: a decision track's are
``decision.py``'s (its definitions are in its docstring); the rest of this module is multiple
choice.

Validation needs no answers: ``load_questions`` reads a public file into the questions alone
(ids and option letters; a decision track's episode ids), ``validate`` checks a submission
against them, and ``score`` runs that very check on its key's questions (``key.asked``) before
it scores. So a file checked against the public file gets exactly the message Score gives.

Metric definitions of a multiple-choice track (written once, here and in each benchmark's
about.md):

- every metric is accuracy in percent, unrounded: ``100 * correct / total``;
- a group metric (one value of a grouping field, e.g. a query type or a scenario) counts the
  rows of that group;
- ``overall`` and every aggregate declared ``micro`` (the default) are *micro* averages:
  correct answers over all rows they cover (weight by size), not the mean of their groups;
- an aggregate declared ``macro`` is the plain mean of its groups' accuracies (each group
  weighs the same); its count is still the rows' correct and total, so the metric is not
  ``correct / total``;
- an out-of-option row (a row the spec's label policy flags: its answer is not among its
  options) counts in every metric's denominator and can never be answered right;
  ``overall_answerable`` is the micro average over the other rows;
- an abstention (the prediction null or empty) scores as wrong and is counted;
- each micro metric carries a 95 % Wilson score interval for its proportion; a macro metric
  the normal-approximation interval of a mean of independent proportions,
  ``mean ± z * sqrt(sum(p_i * (1 - p_i) / n_i)) / k``, clipped to 0-100;
- ``chance`` is what answering every question at random scores in expectation, in percent:
  the mean over all rows of ``1 / n`` (``n`` the row's option count), an out-of-option row
  counting 0. A result is *below chance* when the upper bound of ``overall``'s Wilson interval
  is under it: almost always letters chosen against another version of the key
  (``chance_warning`` says so). A decision track has no such rate: its ``chance`` is None.

Versions of the key: a JSON key object names its ``key_version``; rows of any file may name
theirs in a ``key_version`` field (a CSV column), which must then be the same on every row
(and agree with the JSON object's own). ``read_rows`` reports the version a file names.

Example::

    track = spec.load_benchmark("egomemreason").track()
    key = load_answer_key(track, Path("annotations_private.json").read_bytes())
    result = score(key, Path("submission.json").read_bytes())
    result.metrics["overall"], result.counts["overall"].correct
    # without the key: the same checks, on the public file's questions
    questions = load_questions(track, Path("annotations_public.jsonl").read_bytes())
    validate(questions, Path("submission.json").read_bytes())  # letters by id, or SubmissionError
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeAlias, overload

from pydantic import BaseModel, ConfigDict

from spec import Aggregate, AnyTrack, DecisionTrack, Track

if TYPE_CHECKING:
    from evaluator.decision import DecisionKey, EpisodeSet, Prediction

WILSON_Z = 1.959963984540054  # two-sided 95 %
KEY_VERSION_FIELD = "key_version"  # a key object's version, and a row's (a CSV column)
ANSWERS_FORMAT = "answers/1"  # tags what answers_sha256 hashes, so it can change visibly
MAX_EXAMPLES = 10  # ids quoted per kind of problem
MAX_ENTRIES_PER_QUESTION = 4  # a longer list is refused without examining its entries
REFERENCE_PREDICTION = "pred"  # what the reference evaluation scripts call a prediction


class AnswerKeyError(ValueError):
    """The answer key does not validate; the message names the offending ids."""


class DataFileError(ValueError):
    """A key or public file cannot be read as rows of its declared format."""


class PublicFileError(ValueError):
    """The public file does not validate; the message names the offending rows."""


class SubmissionError(ValueError):
    """A submission that cannot be scored; the message lists every problem and how to fix it."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        head = "This submission cannot be scored"
        if len(self.problems) == 1:
            super().__init__(f"{head}: {self.problems[0]}")
        else:
            lines = "\n".join(f"- {p}" for p in self.problems)
            super().__init__(f"{head} ({len(self.problems)} problems):\n{lines}")


# --- reading the rows of a key or public file ---------------------------------------------------


@dataclass(frozen=True)
class Rows:
    """The records of a data file, and the key version it names (a JSON object's own, else
    the one every row names)."""

    records: tuple[Any, ...]
    key_version: str | None


def _row_name(track: AnyTrack, record: Any, index: int) -> str:
    ident = record.get(track.fields.id) if isinstance(record, dict) else None
    return _short(ident) if _is_id(track, ident) else nth(index, "row")


def _rows_version(track: AnyTrack, records: Sequence[Any],
                  declared: str | None = None) -> str | None:
    """The key version the rows name; DataFileError if they name several, or one that is
    not the file's own (``declared``, a JSON object's ``key_version``).

    Without ``declared`` every row names the same version or none does (an empty CSV cell is
    none); with it, a row may name none, and one that names a version names that one.
    """
    named: dict[str | None, list[str]] = {}
    bad: list[str] = []
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            continue  # reported by the checks of the rows themselves
        value = record.get(KEY_VERSION_FIELD)
        if value is not None and not isinstance(value, str):
            bad.append(_row_name(track, record, index))
            continue
        if declared is not None and not value:
            continue
        named.setdefault(value or None, []).append(_row_name(track, record, index))
    if bad:
        raise DataFileError(
            _agree(f"{len(bad)} [row has|rows have] a {KEY_VERSION_FIELD} that is not a string",
                   len(bad)) + f" ({_examples(bad)}); write it as text, e.g. \"v1.2\"")
    if declared is not None:
        other = {v: ids for v, ids in named.items() if v != declared}
        if other:
            n = sum(len(ids) for ids in other.values())
            found = "; ".join(f"{v} ({_examples(ids)})" for v, ids in other.items())
            raise DataFileError(
                _agree(f"{n} [row names|rows name] another {KEY_VERSION_FIELD} than the "
                       f"file's own {declared!r}: ", n) + found
                + f"; a file holds one version of the key: make every row's {KEY_VERSION_FIELD} "
                f"{declared!r} or drop the field from the rows")
        return declared
    if len(named) > 1:
        found = "; ".join(
            _agree(f"{v if v is not None else 'none'} in {len(ids)} [row|rows] ", len(ids))
            + f"({_examples(ids)})" for v, ids in named.items())
        raise DataFileError(
            f"the rows name {len(named)} different key versions ({found}); a file holds one "
            f"version of the key: every row names the same {KEY_VERSION_FIELD}, or none does")
    return next(iter(named), None)


def read_rows(track: AnyTrack, data: bytes, fmt: str) -> Rows:
    """The records of a file in ``fmt`` (json, jsonl or csv); DataFileError if unreadable.

    CSV cells are text; the options cell holds a JSON object, and an integer id is converted.
    The key version is a JSON object's ``key_version``, else the one its rows name (a
    ``key_version`` field or column, the same on every row); DataFileError if they disagree.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataFileError(f"not UTF-8 text (undecodable byte at offset {exc.start})") from None
    if fmt == "json":
        try:
            decoded = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise DataFileError(f"not valid UTF-8 JSON: {exc}") from None
        if isinstance(decoded, list):
            return Rows(tuple(decoded), _rows_version(track, decoded))
        if not isinstance(decoded, dict) or "samples" not in decoded:
            raise DataFileError(
                'expected a JSON list of rows or an object {"samples": [...]}')
        samples, version = decoded["samples"], decoded.get(KEY_VERSION_FIELD)
        if not isinstance(samples, list) or not (version is None or isinstance(version, str)):
            raise DataFileError('"samples" must be a list and "key_version" a string')
        return Rows(tuple(samples), _rows_version(track, samples, version))
    if fmt == "jsonl":
        records = []
        # split("\n"), not splitlines(): U+2028 and friends may sit unescaped in a JSON string.
        for lineno, line in enumerate(text.split("\n"), 1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except (ValueError, RecursionError) as exc:
                raise DataFileError(f"line {lineno} is not valid JSON ({exc})") from None
        return Rows(tuple(records), _rows_version(track, records))
    if not isinstance(track, Track):
        raise DataFileError(f"a {track.kind} track's files are JSON or JSON Lines, not {fmt}")
    rows = _csv_rows(track, text)
    return Rows(tuple(rows), _rows_version(track, rows))


def _csv_rows(track: Track, text: str) -> list[dict[str, Any]]:
    lines = [line + "\n" for line in text.split("\n")]
    try:
        reader = csv.DictReader(lines)
        rows = list(reader)
    except csv.Error as exc:
        raise DataFileError(f"not a valid CSV file ({exc})") from None
    fields = track.fields
    out: list[dict[str, Any]] = []
    for lineno, row in enumerate(rows, 2):
        if None in row or any(v is None for v in row.values()):
            raise DataFileError(f"CSV line {lineno} has a different number of cells than the "
                                "header")
        record: dict[str, Any] = dict(row)
        cell = record.get(fields.options)
        if cell is not None:
            try:
                record[fields.options] = json.loads(cell)
            except (ValueError, RecursionError):
                raise DataFileError(
                    f"CSV line {lineno}: the {fields.options} cell is not a JSON object such "
                    'as {"A": "...", "B": "..."}') from None
        ident = record.get(fields.id)
        if fields.id_type == "integer" and isinstance(ident, str) and re.fullmatch(
                r"-?\d{1,18}", ident.strip()):
            record[fields.id] = int(ident)
        out.append(record)
    return out


# --- the answer key -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Question:
    """One row of a validated answer key."""

    id: int | str
    text: str
    options: Mapping[str, str]
    answer: str
    groups: tuple[str, ...]  # the value of each grouping's field, in the track's order
    out_of_option: bool  # flagged: its answer is not among its options
    record: Mapping[str, Any]  # the row as the file has it


@dataclass(frozen=True, slots=True)
class _Item:
    letters: frozenset[str]
    correct: str | None  # None: out of option, never right
    groups: tuple[int, ...]  # per grouping, the index of the row's group


@dataclass(frozen=True)
class QuestionSet:
    """The questions of a track as its public file asks them, without answers: each id's
    option letters. What ``validate`` checks a submission against, and all it needs."""

    track: Track
    letters: Mapping[int | str, frozenset[str]]
    key_version: str | None

    def __len__(self) -> int:
        return len(self.letters)


@dataclass(frozen=True)
class AnswerKey:
    """A validated answer key of one track, with the lookups scoring needs and its sha256."""

    track: Track
    questions: tuple[Question, ...]
    key_version: str | None
    sha256: str
    _items: Mapping[int | str, _Item]

    def __len__(self) -> int:
        return len(self.questions)

    @cached_property
    def asked(self) -> QuestionSet:
        """Its questions without their answers, as the public file released with it has them."""
        return QuestionSet(self.track, {i: item.letters for i, item in self._items.items()},
                           self.key_version)


#: An answer key of either kind of track.
AnyKey: TypeAlias = "AnswerKey | DecisionKey"
#: The questions (or episodes) of either kind of track, as a public file has them.
AnyQuestions: TypeAlias = "QuestionSet | EpisodeSet"


def _short(item: object, width: int = 60) -> str:
    text = str(item)
    return text if len(text) <= width else f"{text[:20]}...({len(text)} characters)"


def _examples(ids: Iterable[object]) -> str:
    listed = list(ids)
    shown = ", ".join(_short(i) for i in listed[:MAX_EXAMPLES])
    return f"{shown}, ..." if len(listed) > MAX_EXAMPLES else shown


_ONE_OR_MANY = re.compile(r"\[([^|\]]*)\|([^\]]*)\]")


def _agree(template: str, n: int) -> str:
    """Resolve each ``[singular|plural]`` in ``template`` for ``n`` things ("1 entry uses")."""
    return _ONE_OR_MANY.sub(lambda m: m.group(1) if n == 1 else m.group(2), template)


def ordinal(n: int) -> str:
    """``n`` as an ordinal: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd, 101st, 111th."""
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def counted(count: int, one: str, many: str) -> str:
    """``count`` with the words that agree with it: "1 row is", "3 rows are"."""
    return f"{count} {one if count == 1 else many}"


def nth(index: int, noun: str) -> str:
    """The thing at ``index`` (from 0), counted from 1 as people count: "the 1st entry"."""
    return f"the {ordinal(index + 1)} {noun}"


def _letters_text(letters: Iterable[str]) -> str:
    ordered = sorted(letters)
    return f"{ordered[0]}-{ordered[-1]}" if ordered else "none"


def _is_id(track: AnyTrack, value: object) -> bool:
    if track.fields.id_type == "integer":
        return type(value) is int
    return isinstance(value, str) and bool(value.strip())


def _row_problems(track: Track, record: object, index: int, *, key: bool) -> list[str]:
    """What makes one row of a key (or, without ``key``, of a public file: no answer fields)
    unusable, each as "<where>: <field>: <problem>"."""
    f = track.fields
    if not isinstance(record, dict):
        return [f"{nth(index, 'question')}: entry: expected a JSON object"]
    ident = record.get(f.id)
    where = f"{f.id} {ident!r}" if f.id in record else nth(index, "question")
    out = []
    if f.id not in record:
        out.append(f"{where}: {f.id}: Field required")
    elif not _is_id(track, ident):
        kind = "integer" if f.id_type == "integer" else "non-empty string"
        out.append(f"{where}: {f.id}: Input should be a valid {kind}")
    elif isinstance(ident, int) and ident < 0:
        out.append(f"{where}: {f.id}: Value error, {f.id} must be a non-negative integer")
    text_fields = [f.question, *([f.answer] if key else []), *(g.field for g in track.groupings)]
    for name in text_fields:
        if name not in record:
            out.append(f"{where}: {name}: Field required")
        elif not isinstance(record[name], str):
            out.append(f"{where}: {name}: Input should be a valid string")
    options = record.get(f.options)
    if f.options not in record:
        out.append(f"{where}: {f.options}: Field required")
    elif not isinstance(options, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in options.items()):
        out.append(f"{where}: {f.options}: Input should be an object of letters to texts")
    flag = track.out_of_option
    if (key and flag is not None and flag.field in record
            and not isinstance(record[flag.field], str)):
        out.append(f"{where}: {flag.field}: Input should be a valid string")
    return out


def _valid_rows(track: Track, data: Sequence[Any], *,
                key: bool) -> tuple[list[dict[str, Any]], list[dict[str, int]]]:
    """The rows of a key (or, without ``key``, of a public file), each checked, and per grouping
    the index of each group value; AnswerKeyError (PublicFileError) lists the problems.

    The checks of a public file are the key's, but for the answers: ids, option letters, groups.
    """
    error: type[ValueError] = AnswerKeyError if key else PublicFileError
    what = "the answer key" if key else f"the public file {track.public.name}"
    bad: list[str] = []
    n_bad = 0
    for index, record in enumerate(data):
        found = _row_problems(track, record, index, key=key)
        n_bad += len(found)
        bad.extend(found)
    if n_bad:
        raise error(_agree(f"{what} has {n_bad} invalid [field|fields]: ", n_bad)
                    + "; ".join(bad[:MAX_EXAMPLES]))

    f, opts = track.fields, track.options
    rows: list[dict[str, Any]] = list(data)
    problems: list[str] = []
    counts = Counter(r[f.id] for r in rows)
    dupes = sorted(i for i, n in counts.items() if n > 1)
    if dupes:
        problems.append(
            _agree(f"{len(dupes)} duplicate [{f.id}|{f.id}s]", len(dupes))
            + f" ({_examples(dupes)})"
        )
    bad_options = [
        r[f.id] for r in rows
        if not opts.min <= len(r[f.options]) <= opts.max
        or sorted(r[f.options]) != list(opts.letters[: len(r[f.options])])
    ]
    if bad_options:
        problems.append(
            _agree(f"{len(bad_options)} [question|questions]", len(bad_options))
            + f" whose option letters are not {opts.letters[0]}.. without gaps, "
            f"{opts.min} to {opts.max} of them ({_examples(bad_options)})"
        )
    if key:
        problems += _answer_problems(track, rows)
    group_index: list[dict[str, int]] = []
    for grouping in track.groupings:
        values = {g.value: i for i, g in enumerate(grouping.groups)}
        group_index.append(values)
        label = grouping.field.replace("_", " ")
        bad_group = [r[f.id] for r in rows if r[grouping.field] not in values]
        if bad_group:
            problems.append(
                _agree(f"{len(bad_group)} [question|questions]", len(bad_group))
                + f" with an unknown {grouping.field} ({_examples(bad_group)}); "
                f"expected one of: {', '.join(values)}"
            )
        else:
            present = {r[grouping.field] for r in rows}
            absent = [v for v in values if v not in present]
            if absent:
                problems.append(f"no questions of {label} {', '.join(absent)}")
    if problems:
        raise error(f"invalid {what.removeprefix('the ')}: " + "; ".join(problems))
    return rows, group_index


def _flagged(track: Track, row: Mapping[str, Any]) -> bool:
    flag = track.out_of_option
    return flag is not None and row.get(flag.field) == flag.value


def _answer_problems(track: Track, rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Answers that are not among their options, unless flagged out of option, and flags on
    answers that are."""
    f, flag = track.fields, track.out_of_option
    problems = []
    bad_answer = [r[f.id] for r in rows
                  if r[f.answer] not in r[f.options] and not _flagged(track, r)]
    if bad_answer:
        problems.append(
            _agree(f"{len(bad_answer)} [question|questions]", len(bad_answer))
            + f" whose {f.answer} is not one of their options "
            f"({_examples(bad_answer)})"
            + (f"; such rows are accepted only when flagged {flag.field} = {flag.value}"
               if flag is not None else "")
        )
    if flag is not None:
        wrongly = [r[f.id] for r in rows if _flagged(track, r) and r[f.answer] in r[f.options]]
        if wrongly:
            problems.append(
                _agree(f"{len(wrongly)} [question is|questions are]", len(wrongly))
                + f" flagged {flag.field} = {flag.value} although their {f.answer} is one of "
                f"their options ({_examples(wrongly)})"
            )
    return problems


def parse_answer_key(track: Track, data: Any, sha256: str = "",
                     key_version: str | None = None) -> AnswerKey:
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
    rows, group_index = _valid_rows(track, data, key=True)
    f = track.fields
    questions = tuple(
        Question(
            id=r[f.id], text=r[f.question], options=dict(r[f.options]), answer=r[f.answer],
            groups=tuple(r[g.field] for g in track.groupings), out_of_option=_flagged(track, r),
            record=r,
        )
        for r in rows
    )
    items: dict[int | str, _Item] = {
        q.id: _Item(frozenset(q.options), None if q.out_of_option else q.answer,
                    tuple(index[value] for index, value in zip(group_index, q.groups,
                                                              strict=True)))
        for q in questions
    }
    return AnswerKey(track, questions, key_version, sha256, items)


@overload
def load_answer_key(track: Track, data: bytes) -> AnswerKey: ...
@overload
def load_answer_key(track: DecisionTrack, data: bytes) -> DecisionKey: ...
@overload
def load_answer_key(track: AnyTrack, data: bytes) -> AnyKey: ...


def load_answer_key(track: AnyTrack, data: bytes) -> AnyKey:
    """Decode and validate the bytes of a track's answer-key file (its declared format)."""
    if isinstance(track, DecisionTrack):
        from evaluator import (
            decision,  # decision.py builds on this module: imported when first needed
        )

        return decision.load_key(track, data)
    try:
        rows = read_rows(track, data, track.key.format)
    except DataFileError as exc:
        if track.key.format == "json" and str(exc).startswith("expected a JSON list"):
            raise AnswerKeyError(
                'an answer key must be a JSON list of questions or an object {"samples": [...]}'
            ) from None
        raise AnswerKeyError(f"the answer key is {exc}") from None
    return parse_answer_key(track, list(rows.records), hashlib.sha256(data).hexdigest(),
                            rows.key_version)


@overload
def load_questions(track: Track, data: bytes) -> QuestionSet: ...
@overload
def load_questions(track: DecisionTrack, data: bytes) -> EpisodeSet: ...
@overload
def load_questions(track: AnyTrack, data: bytes) -> AnyQuestions: ...


def load_questions(track: AnyTrack, data: bytes) -> AnyQuestions:
    """Decode and validate the bytes of a track's public file (its declared format): the
    questions a submission answers, without answers, for ``validate``. PublicFileError if it
    does not validate (the key's checks, but for the answers)."""
    if isinstance(track, DecisionTrack):
        from evaluator import decision

        return decision.load_episodes(track, data)
    try:
        rows = read_rows(track, data, track.public.format)
    except DataFileError as exc:
        raise PublicFileError(f"the public file {track.public.name}: {exc}") from None
    valid, _ = _valid_rows(track, rows.records, key=False)
    f = track.fields
    return QuestionSet(track, {r[f.id]: frozenset(r[f.options]) for r in valid},
                       rows.key_version)


def size_problems(key: AnyKey) -> list[str]:
    """Where the key disagrees with the sizes its spec declares (the release checks' part that
    needs only the key): group sizes and the number of out-of-option rows."""
    if not isinstance(key, AnswerKey):
        from evaluator import decision

        return decision.size_problems(key)
    track, problems = key.track, []
    for i, grouping in enumerate(track.groupings):
        found = Counter(q.groups[i] for q in key.questions)
        wrong = [f"{g.value} has {found[g.value]} (expected {g.size})"
                 for g in grouping.groups if found[g.value] != g.size]
        if wrong:
            problems.append(
                f"{len(wrong)} of the {len(grouping.groups)} {grouping.field} groups differ "
                f"from the spec: {'; '.join(wrong[:MAX_EXAMPLES])}")
    flag = track.out_of_option
    if flag is not None:
        n = sum(q.out_of_option for q in key.questions)
        if n != flag.rows:
            problems.append(f"{n} rows are flagged {flag.field} = {flag.value}; the spec "
                            f"declares {flag.rows}")
    return problems


# --- results ----------------------------------------------------------------------------------


class Count(BaseModel):
    """Correct answers out of questions, for one metric."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    correct: int
    total: int


class ScoreResult(BaseModel):
    """What a submission scored, with everything needed to reproduce it.

    ``metrics``, ``counts`` and ``intervals`` are keyed by the track's metric keys, in display
    order. A metric without a value (a decision track's timing means when nothing could be
    timed) is absent from ``metrics``; a metric without a count (a decision F1) from
    ``counts``. Every value is in its metric's display (``spec``): a percent, a 0-1 ratio,
    seconds or a count.

    ``chance`` is the percent answering at random scores on the key's questions and
    ``below_chance`` whether ``overall``'s 95 % interval lies entirely under it (a decision
    track: None and False, it has no such rate). ``answers_sha256`` identifies the answers
    themselves (ids and normalised letters, whatever the file's bytes; None on a decision
    track): two files with the same answers have the same one.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    metrics: dict[str, float]
    counts: dict[str, Count]
    intervals: dict[str, tuple[float, float]]
    n_questions: int
    n_abstained: int
    submission_sha256: str
    answer_key_sha256: str
    key_version: str | None
    scorer_version: str
    chance: float | None = None
    below_chance: bool = False
    answers_sha256: str | None = None


def wilson_interval(correct: int, total: int, z: float = WILSON_Z) -> tuple[float, float]:
    """95 % Wilson score interval for ``correct / total``, in percent."""
    low, high = wilson_bounds(correct, total, z)
    return (100 * low, 100 * high)


def wilson_bounds(correct: int, total: int, z: float = WILSON_Z) -> tuple[float, float]:
    """95 % Wilson score interval for ``correct / total``, as proportions (0 to 1)."""
    if total <= 0:
        return (0.0, 1.0)
    p = correct / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    # The bounds are exactly 0 and 1 at p = 0 and p = 1; rounding would leave 5.6e-15 or
    # 99.99999999999999, which then show up as such in tables.
    low = 0.0 if correct <= 0 else max(0.0, centre - half)
    high = 1.0 if correct >= total else min(1.0, centre + half)
    return (low, high)


def _macro(track: Track) -> dict[str, Aggregate]:
    return {a.key: a for a in track.summaries if a.aggregation == "macro"}


def metrics_from_counts(track: Track, counts: Mapping[str, Count]) -> dict[str, float]:
    """Percent accuracy per key, unrounded; a macro aggregate is the mean of its groups'."""
    out = {k: 100 * c.correct / c.total for k, c in counts.items() if c.total > 0}
    for key, aggregate in _macro(track).items():
        members = [out[m] for m in track.members(aggregate) if m in out]
        if key in out and len(members) == len(track.members(aggregate)):
            out[key] = sum(members) / len(members)
    return out


def intervals_from_counts(track: Track,
                          counts: Mapping[str, Count]) -> dict[str, tuple[float, float]]:
    """A 95 % interval per key: Wilson, or for a macro aggregate the normal approximation."""
    out = {k: wilson_interval(c.correct, c.total) for k, c in counts.items()}
    for key, aggregate in _macro(track).items():
        members = [counts[m] for m in track.members(aggregate) if m in counts]
        if key not in counts or not members or any(c.total <= 0 for c in members):
            continue
        ps = [c.correct / c.total for c in members]
        mean = sum(ps) / len(ps)
        half = WILSON_Z * math.sqrt(sum(p * (1 - p) / c.total
                                        for p, c in zip(ps, members, strict=True))) / len(ps)
        out[key] = (100 * max(0.0, mean - half), 100 * min(1.0, mean + half))
    return out


def aggregate(track: Track, per_group: Mapping[str, Count],
              answerable: Count | None = None) -> dict[str, Count]:
    """Counts of every metric key, in display order, from the counts of every group.

    ``overall`` sums the first grouping (each grouping covers every row); an aggregate sums
    its members; ``answerable`` is the count over rows that are not out of option.
    """
    first = [per_group[g.key] for g in track.groupings[0].groups]
    out: dict[str, Count] = {track.overall.key: Count(correct=sum(c.correct for c in first),
                                                      total=sum(c.total for c in first))}
    for summary in track.summaries:
        if track.out_of_option is not None and summary is track.out_of_option.answerable:
            if answerable is not None:
                out[summary.key] = answerable
            continue
        members = [per_group[k] for k in track.members(summary)]
        out[summary.key] = Count(correct=sum(c.correct for c in members),
                                 total=sum(c.total for c in members))
    out.update({g.key: per_group[g.key] for g in track.groups})
    return out


# --- reading a submission ---------------------------------------------------------------------

def _decorated(track: Track) -> re.Pattern[str]:
    """A letter wrapped in brackets or quotes, or followed by its text: "(A)", "A. Pancake"."""
    letters = re.escape(track.options.letters)
    return re.compile(rf"^[\(\[\{{<\"']?\s*([{letters}])\s*(?:[\)\]\}}>\"'.:,\-]|$)")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def _entry_example(track: Track) -> str:
    """``{"example_id": 1, "predicted_answer": "B"}``, in the track's names."""
    ident = "1" if track.fields.id_type == "integer" else '"<id>"'
    return (f'{{"{track.fields.id}": {ident}, "{track.fields.prediction}": '
            f'"{track.options.letters[1]}"}}')


def _decode(track: Track, data: bytes) -> Any:
    example = _entry_example(track)
    if not data.removeprefix(b"\xef\xbb\xbf").strip():
        raise SubmissionError(
            [f"the file is empty; expected a JSON list such as [{example}, ...]"]
        )
    if data.startswith(_UTF16_BOMS):
        raise SubmissionError(
            ["the file is UTF-16 encoded; save it as UTF-8 (json.dump(..., ensure_ascii=True) "
             "or your editor's 'UTF-8' encoding) and upload it again"]
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SubmissionError(
            [f"the file is not UTF-8 text (undecodable byte at offset {exc.start}); "
             "save it as UTF-8 JSON and upload it again"]
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SubmissionError(
            [f"the file is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
             f"a submission is a JSON list of objects like {example}"]
        ) from None
    except (ValueError, RecursionError) as exc:
        # ValueError: an integer with more digits than Python converts (its own message advises
        # calling sys.set_int_max_str_digits, which means nothing to the person uploading).
        # RecursionError: nesting deeper than the decoder's stack.
        reason = (
            "it is nested too deeply"
            if isinstance(exc, RecursionError)
            else "it holds a number with thousands of digits"
        )
        raise SubmissionError(
            [f"the file could not be read as JSON ({reason}); a submission is a flat JSON list "
             f"of objects like {example}"]
        ) from None


def _top_level_hint(track: Track, data: Any) -> str:
    ident, pred = track.fields.id, track.fields.prediction
    if isinstance(data, dict):
        if isinstance(data.get("results"), list):
            return _results_hint(track, data["results"])
        for name in ("predictions", "submissions", "samples", "answers"):
            if isinstance(data.get(name), list):
                return (
                    f'the top level is an object with a "{name}" list; upload the list itself '
                    f'(a JSON array of {{"{ident}", "{pred}"}} objects)'
                )
        return (
            "the top level is a JSON object; expected a JSON list of "
            f'{{"{ident}": ..., "{pred}": ...}} objects, one per question'
        )
    return (
        f"the top level is a JSON {_json_type(data)}; "
        f'expected a list of {{"{ident}": ..., "{pred}": ...}} objects'
    )


def _either(names: Sequence[str]) -> str:
    """'"a"', '"a" or "b"', '"a", "b" or "c"'."""
    quoted = [f'"{n}"' for n in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def _read_from(entries: Sequence[dict[str, Any]], names: Sequence[str]) -> list[str]:
    """The field names of ``names`` that the entries use, each one some entry needs (it has
    none of the names before it), in the order of ``names``."""
    used: list[str] = []
    for name in names:
        if any(name in r and not any(u in r for u in used) for r in entries):
            used.append(name)
    return used


def _reading(entries: Sequence[dict[str, Any]], used: Sequence[str]) -> str:
    """A Python expression for the value of an entry ``r`` under one of ``used``, that runs on
    every entry: ``r["pred"]`` when each has that one, else ``r.get(...)`` (None when none)."""
    if len(used) == 1 and all(used[0] in r for r in entries):
        return f'r["{used[0]}"]'
    expression = f'r.get("{used[-1]}")'
    for name in reversed(used[:-1]):
        expression = f'r.get("{name}", {expression})'
    return expression


def _results_hint(track: Track, results: list[Any]) -> str:
    """How to turn the reference scripts' ``{"results": [...]}`` into a submission, with code
    that runs on this very file (its own field names, entries that lack one, odd entries)."""
    f = track.fields
    head = 'the file is an object with a "results" list, as the reference evaluation scripts ' \
           "write it"
    entries = [r for r in results if isinstance(r, dict)]
    id_names, pred_names = (f.id, *f.id_aliases), (f.prediction, *f.prediction_aliases)
    if entries:
        ids, preds = _read_from(entries, id_names), _read_from(entries, pred_names)
    else:  # nothing to go by: the names the scripts write
        ids, preds = [f.id], [REFERENCE_PREDICTION]
    lacking = [f"{what} ({_either(names)})" for what, names, used in
               (("an id", id_names, ids), ("a prediction", pred_names, preds)) if not used]
    if lacking:
        return (f"{head}, but no entry of it has {' or '.join(lacking)}; a submission is a JSON "
                f'list of {{"{f.id}": ..., "{f.prediction}": ...}} objects, one per question')
    renames = [f'{_either(others)} to "{name}"'
               for name, used in ((f.id, ids), (f.prediction, preds))
               if (others := [n for n in used if n != name])]
    odd = "" if len(entries) == len(results) else " if isinstance(r, dict)"
    code = (f'[{{"{f.id}": {_reading(entries, ids)}, "{f.prediction}": '
            f'{_reading(entries, preds)}}} for r in data["results"]{odd}]')
    rename = f" and rename {' and '.join(renames)} in each entry" if renames else ""
    return f'{head}; take its "results" list{rename}, e.g. {code}'


def _json_type(value: Any) -> str:
    names = {bool: "boolean", int: "integer", float: "number", str: "string",
             list: "list", dict: "object", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _preview(value: Any, width: int = 40) -> str:
    """A short, safe rendering of an uploaded value for an error message."""
    if isinstance(value, (list, dict)):
        return f"a JSON {_json_type(value)}"
    text = json.dumps(value)
    return text if len(text) <= width else text[: width - 3] + "..."


class _Problems:
    """Problems grouped by kind, so a message quotes a few examples of each and counts all."""

    def __init__(self) -> None:
        self._kinds: dict[str, list[str]] = {}
        self._order: list[str] = []

    def add(self, kind: str, example: str) -> None:
        if kind not in self._kinds:
            self._kinds[kind] = []
            self._order.append(kind)
        self._kinds[kind].append(example)

    def extend(self, message: str) -> None:
        self._order.append(message)

    def render(self) -> list[str]:
        out = []
        for kind in self._order:
            examples = self._kinds.get(kind)
            if examples is None:
                out.append(kind)
            else:
                text = _agree(kind, len(examples))
                out.append(text.format(n=len(examples), examples=_examples(examples)))
        return out


def _read_answer(track: Track, entry: dict[str, Any], position: int,
                 problems: _Problems) -> str | None:
    """The trimmed, upper-cased answer ("" for an abstention), or None if it is unusable."""
    pred = track.fields.prediction
    if pred not in entry:
        for alias in track.fields.prediction_aliases:
            if alias in entry:
                problems.add(
                    f'{{n}} [entry uses|entries use] "{alias}" (e.g. the {{examples}} '
                    f'[entry|entries]); rename the field to "{pred}"',
                    ordinal(position + 1),
                )
                return None
        problems.add(
            f'{{n}} [entry has|entries have] no "{pred}" (e.g. the {{examples}} '
            "[entry|entries]); use null if the model gave no answer",
            ordinal(position + 1),
        )
        return None
    raw = entry[pred]
    if raw is None:
        return ""
    if not isinstance(raw, str):
        problems.add(
            f'{{n}} [entry has|entries have] a "{pred}" that is not a string '
            f'(e.g. {{examples}}); write one option letter such as "{track.options.letters[1]}", '
            "or null to abstain",
            f"{nth(position, 'entry')}: {_preview(raw)}",
        )
        return None
    return raw.strip().upper()


def _uses_an_id_alias(track: AnyTrack, entry: object) -> bool:
    return (isinstance(entry, dict) and track.fields.id not in entry
            and any(alias in entry for alias in track.fields.id_aliases))


def _read_id(track: AnyTrack, entry: dict[str, Any], position: int,
             problems: _Problems) -> int | str | None:
    """The entry's id if it has one of the right type, else None (the problem noted)."""
    name = track.fields.id
    if name not in entry:
        for alias in track.fields.id_aliases:
            if alias in entry:
                problems.add(
                    f'{{n}} [entry uses|entries use] "{alias}" (e.g. the {{examples}} '
                    f'[entry|entries]); rename the field to "{name}"',
                    ordinal(position + 1),
                )
                return None
        problems.add(
            f'{{n}} [entry has|entries have] no "{name}" (e.g. the {{examples}} [entry|entries])',
            ordinal(position + 1),
        )
        return None
    ident = entry[name]
    if not _is_id(track, ident):
        if track.fields.id_type == "integer":
            problems.add(
                f'{{n}} [entry has|entries have] an "{name}" that is not an integer '
                '(e.g. {examples}); write ids as JSON numbers, e.g. 17, not "17"',
                f"{nth(position, 'entry')}: {_preview(ident)}",
            )
        else:
            problems.add(
                f'{{n}} [entry has|entries have] an "{name}" that is not a non-empty string '
                "(e.g. {examples}); write ids as JSON strings, exactly as in the public file",
                f"{nth(position, 'entry')}: {_preview(ident)}",
            )
        return None
    return ident  # type: ignore[no-any-return]


def _not_an_object(entry: object, position: int) -> str:
    """An entry that is not an object, as an example in a message: "the 1st entry (integer)"."""
    return f"{nth(position, 'entry')} ({_json_type(entry)})"


def _answers(questions: QuestionSet, decoded: list[Any]) -> dict[int | str, str | None]:
    """Every question's normalised answer (None: abstained); SubmissionError lists all problems."""
    track = questions.track
    ident_name = track.fields.id
    problems = _Problems()
    answers: dict[int | str, str | None] = {}
    seen: Counter[int | str] = Counter()
    unknown: list[int | str] = []
    for position, entry in enumerate(decoded):
        if not isinstance(entry, dict):
            problems.add(
                "{n} [entry is|entries are] not [a JSON object|JSON objects] "
                "(e.g. {examples}); each entry must be "
                f'{{{{"{ident_name}": ..., "{track.fields.prediction}": ...}}}}',
                _not_an_object(entry, position),
            )
            continue
        ident = _read_id(track, entry, position, problems)
        if ident is not None:
            seen[ident] += 1
            if ident not in questions.letters:
                unknown.append(ident)
                ident = None
            elif seen[ident] > 1:
                ident = None  # reported once below as a duplicate
        answer = _read_answer(track, entry, position, problems)
        if ident is None or answer is None:
            continue
        letters = questions.letters[ident]
        if answer and answer not in letters:
            raw = entry[track.fields.prediction]
            match = _decorated(track).match(answer)
            if match and match.group(1) in letters and answer != match.group(1):
                problems.add(
                    "{n} [answer carries|answers carry] more than the option letter "
                    '(e.g. {examples}); keep only the letter, e.g. "A" instead of "(A)" or '
                    '"A. Pancake"',
                    f"id {ident}: {_preview(raw)}",
                )
            else:
                problems.add(
                    "{n} [answer is|answers are] not among their question's options "
                    "(e.g. {examples})",
                    f"id {ident}: {_preview(raw, 20)} (valid {_letters_text(letters)})",
                )
            continue
        answers[ident] = answer or None

    dupes = sorted(i for i, n in seen.items() if n > 1 and i in questions.letters)
    if dupes:
        problems.extend(
            _agree(f"{len(dupes)} [question is|questions are]", len(dupes))
            + f" answered more than once ({_examples(dupes)}); keep one entry per {ident_name}"
        )
    if unknown:
        unknown_sorted = sorted(set(unknown))
        problems.extend(
            _agree(f"{len(unknown_sorted)} [{ident_name} is|{ident_name}s are]",
                   len(unknown_sorted))
            + " not in the answer key "
            f"({_examples(unknown_sorted)}); valid ids are those of the public annotations file"
        )
    missing = [i for i in questions.letters if i not in seen]
    # When every entry names its question by another field, that is the one problem to fix.
    if missing and not all(_uses_an_id_alias(track, e) for e in decoded):
        missing.sort()
        problems.extend(
            _agree(f"{len(missing)} [question has|questions have]", len(missing))
            + f" no answer ({_examples(missing)}); expected one "
            f"entry for each of the {len(questions)} questions (use null to abstain)"
        )
    rendered = problems.render()
    if rendered:
        raise SubmissionError(rendered)
    return answers


@overload
def validate(questions: QuestionSet, data: bytes) -> dict[int | str, str | None]: ...
@overload
def validate(questions: EpisodeSet, data: bytes) -> dict[int | str, Prediction]: ...


def validate(questions: AnyQuestions,
             data: bytes) -> dict[int | str, str | None] | dict[int | str, Prediction]:
    """The answers of the raw bytes of a submission, checked against the questions alone (a
    public file's, or a key's ``asked``): by id, each normalised letter or None for an
    abstention (a decision track: each ``decision.Prediction``). SubmissionError, listing every
    problem, if it cannot be scored; ``score`` gives exactly the same for the same questions.

    Example::

        questions = load_questions(track, Path("annotations_public.jsonl").read_bytes())
        answers = validate(questions, Path("submission.json").read_bytes())
    """
    if not isinstance(questions, QuestionSet):
        from evaluator import decision

        return decision.validate(questions, data)
    track = questions.track
    decoded = _decode(track, data)
    if not isinstance(decoded, list):
        raise SubmissionError([_top_level_hint(track, decoded)])
    if not decoded:
        raise SubmissionError(
            [f"the list is empty; expected one entry for each of the {len(questions)} questions"]
        )
    if len(decoded) > MAX_ENTRIES_PER_QUESTION * len(questions):
        # Refused before reading the entries: a 5 MB list of millions costs seconds of CPU.
        raise SubmissionError(
            [f"the list has {len(decoded)} entries; expected one entry for each of the "
             f"{len(questions)} questions"]
        )
    return _answers(questions, decoded)


def score(key: AnyKey, data: bytes) -> ScoreResult:
    """Score the raw bytes of a submission against ``key`` (of its track); SubmissionError if
    it cannot be scored (``validate``'s, on the key's questions)."""
    if not isinstance(key, AnswerKey):
        from evaluator import decision

        return decision.score(key, data)
    track = key.track
    answers = validate(key.asked, data)

    tallies = [[[0, 0] for _ in grouping.groups] for grouping in track.groupings]
    answerable = [0, 0]
    abstained = 0
    for ident, item in key._items.items():
        answer = answers[ident]
        hit = answer is not None and answer == item.correct
        abstained += answer is None
        for level, index in enumerate(item.groups):
            tally = tallies[level][index]
            tally[0] += hit
            tally[1] += 1
        if item.correct is not None:
            answerable[0] += hit
            answerable[1] += 1
    per_group = {
        group.key: Count(correct=tally[0], total=tally[1])
        for grouping, level in zip(track.groupings, tallies, strict=True)
        for group, tally in zip(grouping.groups, level, strict=True)
    }
    counts = aggregate(track, per_group, Count(correct=answerable[0], total=answerable[1]))
    intervals = intervals_from_counts(track, counts)
    rate = chance(key)
    return ScoreResult(
        metrics=metrics_from_counts(track, counts),
        counts=counts,
        intervals=intervals,
        n_questions=len(key),
        n_abstained=abstained,
        submission_sha256=hashlib.sha256(data).hexdigest(),
        answer_key_sha256=key.sha256,
        key_version=key.key_version,
        scorer_version=track.scorer_version,
        chance=rate,
        below_chance=intervals[track.overall.key][1] < rate,
        answers_sha256=_answers_digest(answers),
    )


# --- chance, and answers as content -----------------------------------------------------------


def chance(key: AnswerKey) -> float:
    """What answering every question at random scores in expectation, in percent: the mean of
    ``1 / n`` over all rows (``n`` its option count), an out-of-option row counting 0."""
    hits = sum(1 / len(item.letters) for item in key._items.values() if item.correct is not None)
    return 100 * hits / len(key)


def chance_warning(track: AnyTrack, result: ScoreResult) -> str | None:
    """The warning a below-chance result gets (None otherwise): what it scored, the chance
    rate, the likely cause and the fix. Plain text, one paragraph."""
    if not result.below_chance or result.chance is None or not isinstance(track, Track):
        return None
    key = track.overall.key
    low, high = result.intervals[key]
    version = result.key_version or "(unversioned)"
    return (
        f"{track.labels[key]} {result.metrics[key]:.1f} % (95 % CI {low:.1f}–{high:.1f}) is "
        f"significantly below chance, {result.chance:.1f} % (what answering at random scores "
        "on these questions). The likely cause: the letters were chosen against another "
        f"version of the answer key than this one, key version {version}. Answer the "
        f"questions of the public file of key version {version} (its rows name their "
        f"{KEY_VERSION_FIELD}); a file made against older letters can be remapped by the "
        "maintainer with the README's command (\"Rotating the answer key\": "
        "scripts/reshuffle_options.py --remap-submission OLD.json --letter-map "
        "letter_map.json --out NEW.json)."
    )


def _id_order(ident: int | str) -> tuple[int, int, str]:
    return (0, ident, "") if isinstance(ident, int) else (1, 0, ident)


def _answers_digest(answers: Mapping[int | str, str | None]) -> str:
    """sha256 of the answers as compact JSON, ``[format, [[id, letter or null], ...]]`` by id."""
    listed = [[ident, answers[ident]] for ident in sorted(answers, key=_id_order)]
    text = json.dumps([ANSWERS_FORMAT, listed], separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def answers_sha256(track: AnyTrack, data: bytes) -> str | None:
    """The ``answers_sha256`` of a submission, read without its key (the file of a row scored
    on another key version); None if it is not a list of entries that each name one id and
    a text or null prediction (a file that was scored never is).

    Equal to the scored result's for every file that scores: letters trimmed and
    upper-cased, null and "" both an abstention, other fields ignored.
    """
    if not isinstance(track, Track):
        return None
    try:
        decoded = json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(decoded, list):
        return None
    answers: dict[int | str, str | None] = {}
    for entry in decoded:
        if not isinstance(entry, dict) or track.fields.prediction not in entry:
            return None
        ident, raw = entry.get(track.fields.id), entry[track.fields.prediction]
        if (not isinstance(ident, (int, str)) or not _is_id(track, ident) or ident in answers
                or not (raw is None or isinstance(raw, str))):
            return None
        answers[ident] = (raw or "").strip().upper() or None
    return _answers_digest(answers)


def same_questions(a: AnyKey, b: AnyKey) -> bool:
    """Whether two keys ask the same questions: the same ids, and for each the same text and
    the same option texts, whatever their letters (a key and its rotations do). A decision key
    has no letters to rotate: two are the same only byte for byte."""
    if not (isinstance(a, AnswerKey) and isinstance(b, AnswerKey)):
        return a.sha256 == b.sha256

    def asked(key: AnswerKey) -> dict[int | str, tuple[str, list[str]]]:
        return {q.id: (q.text, sorted(q.options.values())) for q in key.questions}

    return a.track.id == b.track.id and asked(a) == asked(b)
