"""The shapes a multiple-choice submission takes, as its messages describe them, and the hints
for the shapes people upload instead (a wrapped list, a ``{"results": [...]}`` file, ...), each
in the track's own names and formats, and in its benchmark's words (the spec's ``hints``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaluator.messages import either, json_type
from evaluator.submissions import wrapped_list
from spec import MultipleChoiceTrack

#: Lists people wrap their entries in; the message says to upload the list itself.
WRAPPERS = ("predictions", "submissions", "samples", "answers")


def first_index(track: MultipleChoiceTrack) -> int:
    """The index of the first option in the track's answer format: 1 for ``index1``, else 0."""
    return 1 if track.fields.answer_format == "index1" else 0


def example_prediction(track: MultipleChoiceTrack) -> str:
    """A prediction as the track's answer format writes it: "B", 1, "<the option's text>"."""
    fmt = track.fields.answer_format
    if fmt in ("index", "index1"):
        return str(1 + first_index(track))
    return '"<the option\'s text>"' if fmt == "text" else f'"{track.options.letters[1]}"'


def _id_example(track: MultipleChoiceTrack) -> str:
    """An entry's id as the example writes it: an integer, a string, or the composed id's
    fields."""
    f = track.fields
    if f.id_parts:
        return ", ".join(f'"{part}": ...' for part in f.id_parts)
    return f'"{f.id}": ' + ("1" if f.id_type == "integer" else '"<id>"')


def entry_example(track: MultipleChoiceTrack) -> str:
    """``{"example_id": 1, "predicted_answer": "B"}``, in the track's names and formats."""
    return f'{{{_id_example(track)}, "{track.fields.prediction}": {example_prediction(track)}}}'


def _keyed_example(track: MultipleChoiceTrack) -> str:
    """``{"<id>": {"predicted_answer": "B"}}``: a file keyed by id, in the track's names."""
    return f'{{"<id>": {{"{track.fields.prediction}": {example_prediction(track)}}}, ...}}'


def shapes(track: MultipleChoiceTrack, listed: str = "a list") -> str:
    """The shapes a submission may take, for a message: a list (``listed``: how the message
    names it), JSON Lines, an object keyed by id."""
    f = track.fields
    return (
        f'{listed} of {{"{f.id}": ..., "{f.prediction}": ...}} objects, one per question (or '
        "JSON Lines with one object a line), or a JSON object keyed by id such as "
        f"{_keyed_example(track)}"
    )


def top_level_hint(track: MultipleChoiceTrack, data: Any) -> str:
    if isinstance(data, dict):
        if isinstance(data.get("results"), list):
            return _results_hint(track, data["results"])
        name = wrapped_list(data, WRAPPERS)
        if name is not None:
            return (
                f'the top level is an object with a "{name}" list; upload the list itself '
                f"({shapes(track)})"
            )
        return (
            "the top level is a JSON object none of whose keys is an id of the questions; "
            f"expected {shapes(track, 'a JSON list')}"
        )
    return f"the top level is a JSON {json_type(data)}; expected {shapes(track)}"


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
    """How to turn a ``{"results": [...]}`` file (what the benchmark's own scripts write, when
    its spec's ``hints.results`` says they do) into a submission, with code that runs on this
    very file (its own field names, entries that lack one, odd entries). A field the spec's
    ``hints.fields`` describes is not taken for the id or the prediction: its hint is given."""
    f, hints = track.fields, track.hints
    head = 'the file is an object with a "results" list' + (
        f", as {hints.results} write it" if hints.results else ""
    )
    entries = [r for r in results if isinstance(r, dict)]
    id_names = (f.id, *(a for a in f.id_aliases if a not in hints.fields))
    pred_names = (f.prediction, *(a for a in f.prediction_aliases if a not in hints.fields))
    if entries:
        ids, preds = _read_from(entries, id_names), _read_from(entries, pred_names)
    else:  # nothing to go by: the names people use
        ids, preds = [f.id], [f.prediction_aliases[0] if f.prediction_aliases else f.prediction]
    alike = next((a for a in hints.fields if any(a in r for r in entries)), None)
    if not ids and alike is not None:
        return (
            f'{head}, but its entries name no "{f.id}" and carry "{alike}": {hints.fields[alike]}'
        )
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
