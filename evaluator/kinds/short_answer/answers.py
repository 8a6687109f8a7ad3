"""A short-answer submission read against the questions alone: each question's response as
text, or every problem of the file with how to fix it.

A submission is a JSON object keyed by id whose values are the responses (what the authors'
own evaluation writes), or whose values are objects holding one; a JSON list of entries; JSON
Lines; or the key's own structure (``fields.levels``). A response is a text (any text: the rule
set of its question reads it), a number (read as its text), or null or "" to abstain.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from errors import SubmissionError
from evaluator.documents import Shape, shaped_id
from evaluator.documents import entries_of as document_entries
from evaluator.kinds.short_answer.key import ShortAnswerQuestions
from evaluator.messages import Problems, json_type, nth, ordinal, preview
from evaluator.submissions import (
    EntryWords,
    check_count,
    entry_columns,
    read_entries,
    told_of_a_stand_in,
)
from spec import ShortAnswerTrack

#: Lists people wrap their entries in; the message says to upload the list itself.
WRAPPERS = ("results", "predictions", "submissions", "samples", "answers", "outputs")


def entry_fields(track: ShortAnswerTrack) -> tuple[str, ...]:
    """The fields of a submission's entry, its id first (a composed id's parts): id and
    response."""
    return (*track.fields.id_names, track.fields.prediction)


def own_fields(track: ShortAnswerTrack) -> tuple[str, ...]:
    """The fields only this kind's entries carry: the response, or a name people use for it."""
    return (track.fields.prediction, *track.fields.prediction_aliases)


def _example(track: ShortAnswerTrack) -> str:
    f = track.fields
    ident = '"<id>"' if f.id_type == "string" else "1"
    return f'{{"{f.id}": {ident}, "{f.prediction}": "<the model\'s answer>"}}'


def submission_shape(track: ShortAnswerTrack) -> Shape:
    return Shape(_example(track), track.fields.prediction, WRAPPERS)


def _words(track: ShortAnswerTrack) -> EntryWords:
    f = track.fields
    return EntryWords(
        noun="question",
        shape=f'{{"{f.id}": ..., "{f.prediction}": ...}}',
        unknown="those of the public annotations file",
        missing="use null to abstain",
        look_alikes=track.hints.fields,
    )


def shapes(track: ShortAnswerTrack) -> str:
    """The shapes a submission may take, for a message."""
    f = track.fields
    return (
        f'a JSON object keyed by id, {{"<id>": "<the model\'s answer>", ...}}, or a JSON list of '
        f'{{"{f.id}": ..., "{f.prediction}": ...}} objects, one per question (or JSON Lines '
        "with one object a line)"
    )


def keyed_entry(track: ShortAnswerTrack, name: str, value: Any) -> dict[str, Any] | None:
    """The entry ``name: value`` of an object keyed by id stands for, to tell a file's track:
    None when ``name`` is not shaped as the track's ids or ``value`` is neither an object nor a
    response (a text, a number, or null)."""
    f = track.fields
    ident = shaped_id(f, name)
    if ident is None:
        return None
    if isinstance(value, dict):
        return {**value, f.id: ident}
    if value is None or (isinstance(value, (str, int, float)) and not isinstance(value, bool)):
        return {f.id: ident, f.prediction: value}
    return None


def response_text(raw: object) -> str | bool | None:
    """A response as scored: a text as it is, a number as its text, None for an abstention
    (null or ""); False when it is none of these (a boolean, a list, an object)."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, str):
        return raw
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return str(raw)
    return False


def entries_of(track: ShortAnswerTrack, data: bytes, rows: int, ids: Any) -> list[Any]:
    """A submission's entries, whatever shape it takes; SubmissionError for any other shape."""
    decoded = document_entries(track.fields, data, rows, ids, submission_shape(track))
    if isinstance(decoded, list):
        return decoded
    if isinstance(decoded, dict):
        listed = next((n for n in WRAPPERS if isinstance(decoded.get(n), list)), None)
        if listed is not None:
            raise SubmissionError(
                [f'the top level is an object with a "{listed}" list; upload {shapes(track)}']
            )
        raise SubmissionError(
            [
                "the top level is a JSON object none of whose keys is an id of the questions; "
                f"expected {shapes(track)}"
            ]
        )
    raise SubmissionError(
        [f"the top level is a JSON {json_type(decoded)}; expected {shapes(track)}"]
    )


def _read(
    track: ShortAnswerTrack,
) -> Any:
    """How ``read_entries`` reads an entry's response (``response_text``), noting a problem."""
    f = track.fields

    def read(
        entry: dict[str, Any], position: int, ident: int | str | None, problems: Problems
    ) -> tuple[bool, str | None]:
        if f.prediction not in entry:
            if not told_of_a_stand_in(
                entry, f.prediction, track.hints.fields, f.prediction_aliases, position, problems
            ):
                problems.add(
                    f'{{n}} [entry has|entries have] no "{f.prediction}" (e.g. the {{examples}} '
                    "[entry|entries]); use null if the model gave no answer",
                    lambda: ordinal(position + 1),
                )
            return False, None
        text = response_text(entry[f.prediction])
        if text is False:
            raw = entry[f.prediction]
            problems.add(
                f'{{n}} [entry has|entries have] a "{f.prediction}" that is neither a text nor a '
                "number (e.g. {examples}); write the model's answer as a text, or null to "
                "abstain",
                lambda: (
                    f"{nth(position, 'entry')}"
                    + (f" (id {ident})" if ident is not None else "")
                    + f": {preview(raw)}"
                ),
            )
            return False, None
        return True, text if isinstance(text, str) else None

    return read


def validate(questions: ShortAnswerQuestions, data: bytes) -> dict[int | str, str | None]:
    """The responses of the raw bytes of a submission, checked against the questions alone (a
    public file's, or a key's ``asked``): by id, each response's text or None for an
    abstention. SubmissionError, listing every problem, if it cannot be scored."""
    track = questions.track
    decoded = entries_of(track, data, len(questions), questions.choice)
    check_count(decoded, len(questions), _words(track))
    fast = entry_columns(track.fields, questions.ids, decoded, (track.fields.prediction,))
    if fast is not None:
        ids, (raws,) = fast
        texts = list(map(response_text, raws))
        if False not in texts:
            return {i: t if isinstance(t, str) else None for i, t in zip(ids, texts, strict=True)}
    return read_entries(track.fields, questions.choice, decoded, _read(track), _words(track))


def abstentions(answers: Mapping[int | str, str | None]) -> int:
    """The questions a valid file leaves without an answer."""
    return sum(text is None for text in answers.values())
