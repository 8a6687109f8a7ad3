"""A multiple-choice submission read against the questions alone: each question's letter, or
every problem of the file with how to fix it (a hint for the shapes people upload instead)."""

from __future__ import annotations

import operator
import re
from collections.abc import Mapping, Sequence
from typing import Any

from errors import SubmissionError
from evaluator.kinds.multiple_choice.key import QuestionSet
from evaluator.messages import Problems, either, json_type, letters_text, nth, ordinal, preview
from evaluator.submissions import (
    EntryWords,
    check_count,
    entry_columns,
    read_entries,
    read_json,
    read_text,
    wrapped_list,
)
from spec import MultipleChoiceTrack

#: What a prediction may be, as types: a string, or null to abstain.
_PREDICTIONS = frozenset({str, type(None)})
#: A file's answers as columns, in its entries' order: ids, and each normalised letter ("" an
#: abstention).
Columns = tuple[list[int | str], list[str]]

REFERENCE_PREDICTION = "pred"  # what the reference evaluation scripts call a prediction
_WRAPPERS = ("predictions", "submissions", "samples", "answers")


def entry_fields(track: MultipleChoiceTrack) -> tuple[str, ...]:
    """The fields of a submission's entry, its id first: id and predicted letter."""
    return (track.fields.id, track.fields.prediction)


def own_fields(track: MultipleChoiceTrack) -> tuple[str, ...]:
    """The fields only this kind's entries carry: the prediction, or a name people use for it."""
    return (track.fields.prediction, *track.fields.prediction_aliases)


def _entry_example(track: MultipleChoiceTrack) -> str:
    """``{"example_id": 1, "predicted_answer": "B"}``, in the track's names."""
    ident = "1" if track.fields.id_type == "integer" else '"<id>"'
    return (
        f'{{"{track.fields.id}": {ident}, "{track.fields.prediction}": '
        f'"{track.options.letters[1]}"}}'
    )


def _words(track: MultipleChoiceTrack) -> EntryWords:
    f = track.fields
    return EntryWords(
        noun="question",
        shape=f'{{"{f.id}": ..., "{f.prediction}": ...}}',
        unknown="those of the public annotations file",
        missing="use null to abstain",
    )


def _decorated(track: MultipleChoiceTrack) -> re.Pattern[str]:
    """A letter wrapped in brackets or quotes, or followed by its text: "(A)", "A. Pancake"."""
    letters = re.escape(track.options.letters)
    return re.compile(rf"^[\(\[\{{<\"']?\s*([{letters}])\s*(?:[\)\]\}}>\"'.:,\-]|$)")


def _read_answer(
    track: MultipleChoiceTrack, entry: dict[str, Any], position: int, problems: Problems
) -> str | None:
    """The trimmed, upper-cased answer ("" for an abstention), or None if it is unusable."""
    pred = track.fields.prediction
    if pred not in entry:
        for alias in track.fields.prediction_aliases:
            if alias in entry:
                problems.add(
                    f'{{n}} [entry uses|entries use] "{alias}" (e.g. the {{examples}} '
                    f'[entry|entries]); rename the field to "{pred}"',
                    lambda: ordinal(position + 1),
                )
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
    if not isinstance(raw, str):
        problems.add(
            f'{{n}} [entry has|entries have] a "{pred}" that is not a string '
            f'(e.g. {{examples}}); write one option letter such as "{track.options.letters[1]}", '
            "or null to abstain",
            f"{nth(position, 'entry')}: {preview(raw)}",
        )
        return None
    return raw.strip().upper()


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
    if types == {str}:
        answers = list(map(str.upper, map(str.strip, predictions)))
    elif types <= _PREDICTIONS:
        answers = [p.strip().upper() if p else "" for p in predictions]
    else:
        return None
    order, allowed = questions.allowed
    if tuple(ids) != order:  # the file's own order: each id's answers looked up
        allowed = tuple(map(dict(zip(order, allowed, strict=True)).__getitem__, ids))
    if not all(map(operator.contains, allowed, answers)):
        return None
    return ids, answers


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
        if answer and answer not in letters:
            raw = entry[track.fields.prediction]
            match = decorated.match(answer)
            if match and match.group(1) in letters and answer != match.group(1):
                problems.add(
                    "{n} [answer carries|answers carry] more than the option letter "
                    '(e.g. {examples}); keep only the letter, e.g. "A" instead of "(A)" or '
                    '"A. Pancake"',
                    f"id {ident}: {preview(raw)}",
                )
            else:
                problems.add(
                    "{n} [answer is|answers are] not among their question's options "
                    "(e.g. {examples})",
                    lambda: f"id {ident}: {preview(raw, 20)} (valid {letters_text(letters)})",
                )
            return False, ""
        return True, answer

    found = read_entries(track.fields, questions.letters, entries, read, _words(track))
    return list(found), list(found.values())


def columns(questions: QuestionSet, data: bytes) -> Columns:
    """``validate``'s answers as columns, in the entries' order ("" an abstention): the same
    checks and the same SubmissionError."""
    track = questions.track
    example = _entry_example(track)
    text = read_text(data, f"a JSON list such as [{example}, ...]")
    decoded = read_json(text, example)
    if not isinstance(decoded, list):
        raise SubmissionError([_top_level_hint(track, decoded)])
    check_count(decoded, len(questions), _words(track))
    fast = _fast_columns(questions, decoded)
    return _careful_columns(questions, decoded) if fast is None else fast


def validate(questions: QuestionSet, data: bytes) -> dict[int | str, str | None]:
    """The answers of the raw bytes of a submission, checked against the questions alone (a
    public file's, or a key's ``asked``): by id, each normalised letter or None for an
    abstention. SubmissionError, listing every problem, if it cannot be scored."""
    ids, answers = columns(questions, data)
    return {i: a or None for i, a in zip(ids, answers, strict=True)}


def abstentions(answers: Mapping[int | str, str | None]) -> int:
    """The questions a valid file leaves without an answer."""
    return sum(letter is None for letter in answers.values())


def _top_level_hint(track: MultipleChoiceTrack, data: Any) -> str:
    ident, pred = track.fields.id, track.fields.prediction
    if isinstance(data, dict):
        if isinstance(data.get("results"), list):
            return _results_hint(track, data["results"])
        name = wrapped_list(data, _WRAPPERS)
        if name is not None:
            return (
                f'the top level is an object with a "{name}" list; upload the list itself '
                f'(a JSON array of {{"{ident}", "{pred}"}} objects)'
            )
        return (
            "the top level is a JSON object; expected a JSON list of "
            f'{{"{ident}": ..., "{pred}": ...}} objects, one per question'
        )
    return (
        f"the top level is a JSON {json_type(data)}; "
        f'expected a list of {{"{ident}": ..., "{pred}": ...}} objects'
    )


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


def _results_hint(track: MultipleChoiceTrack, results: list[Any]) -> str:
    """How to turn the reference scripts' ``{"results": [...]}`` into a submission, with code
    that runs on this very file (its own field names, entries that lack one, odd entries)."""
    f = track.fields
    head = (
        'the file is an object with a "results" list, as the reference evaluation scripts write it'
    )
    entries = [r for r in results if isinstance(r, dict)]
    id_names, pred_names = (f.id, *f.id_aliases), (f.prediction, *f.prediction_aliases)
    if entries:
        ids, preds = _read_from(entries, id_names), _read_from(entries, pred_names)
    else:  # nothing to go by: the names the scripts write
        ids, preds = [f.id], [REFERENCE_PREDICTION]
    lacking = [
        f"{what} ({either(names)})"
        for what, names, used in (("an id", id_names, ids), ("a prediction", pred_names, preds))
        if not used
    ]
    if lacking:
        return (
            f"{head}, but no entry of it has {' or '.join(lacking)}; a submission is a JSON "
            f'list of {{"{f.id}": ..., "{f.prediction}": ...}} objects, one per question'
        )
    renames = [
        f'{either(others)} to "{name}"'
        for name, used in ((f.id, ids), (f.prediction, preds))
        if (others := [n for n in used if n != name])
    ]
    odd = "" if len(entries) == len(results) else " if isinstance(r, dict)"
    code = (
        f'[{{"{f.id}": {_reading(entries, ids)}, "{f.prediction}": '
        f'{_reading(entries, preds)}}} for r in data["results"]{odd}]'
    )
    rename = f" and rename {' and '.join(renames)} in each entry" if renames else ""
    return f'{head}; take its "results" list{rename}, e.g. {code}'
