"""The spec of a multiple-choice track: letters, groupings, micro and macro aggregates.

Every metric is an accuracy in percent, higher is better: ``overall`` over every row, one per
group of each grouping, each declared aggregate over groups (micro: correct over all their
rows; macro: the mean of their accuracies), and ``overall_answerable`` when an out-of-option
policy flags rows whose answer lies outside their options. ``evaluator.kinds.multiple_choice``
scores it; the metric tree is every accuracy kind's (``spec.accuracy``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, model_validator

from spec.accuracy import AccuracyTrack
from spec.base import (
    Composed,
    IdFields,
    Key,
    Model,
    Size,
    Text,
    board_problems,
    composed,
    parts_of,
)
from spec.common import Aggregate

#: How a key writes its answers: the option's letter, its 0-based or 1-based position among the
#: options, the option's own text, or its letter, a dot and its text ("B. right"). Any of them
#: is scored as the same letter.
AnswerFormat = Literal["letter", "index", "index1", "text", "letter_text"]
#: What else a prediction may be read as, when the benchmark's own scorer reads it so (a
#: benchmark opts in; its About says so): ``letter_prefix``, a letter followed by "." or ")"
#: and anything ("A. left", "B)"), read as that letter; ``option_text``, an option's whole text
#: (trimmed), read as its letter.
PredictionForm = Literal["letter_prefix", "option_text"]


class Fields(IdFields):
    """What the key's, the public file's and a submission's fields are called, and how the
    release writes its options and answers.

    ``options`` is one field (a JSON object of letters to texts, or a JSON list of texts in
    letter order; in a CSV file, a cell holding either), or a list of fields, one per option in
    letter order (``a0`` ... ``a4``), an empty one ending that row's options; the list is kept
    as its names joined by "+" (``option_parts``). ``options`` naming the ``question`` field
    says the options are written at the end of the question's text, one a line ("A. left");
    the question is then the text before them. ``answer_format`` says how the key writes its
    answers; a submission's prediction is a letter, or written the same way (an integer for
    ``index`` and ``index1``, the option's text for ``text``, "B. right" for
    ``letter_text``), or in one of the ``prediction_forms`` the benchmark declares.
    """

    question: Key = "question"
    options: Composed = "options"
    answer: Key = "correct_answer"
    answer_format: AnswerFormat = "letter"
    prediction: Key = "predicted_answer"
    #: Names people use instead of ``prediction``; a submission using one is told to rename it.
    prediction_aliases: tuple[Key, ...] = Field(default=(), strict=False)
    #: What else a prediction is read as (``PredictionForm``); none unless the spec says.
    prediction_forms: tuple[PredictionForm, ...] = Field(default=(), strict=False)

    @model_validator(mode="before")
    @classmethod
    def _compose_options(cls, data: Any) -> Any:
        return composed(data, "options", least=2)

    @property
    def option_parts(self) -> tuple[str, ...]:
        """The fields of the options, one per option in letter order; () for one field."""
        return parts_of(self.options)

    @property
    def options_in_question(self) -> bool:
        """Whether the options are written at the end of the question's text ("A. left")."""
        return self.options == self.question


class Options(Model):
    """The letters a question's options use: always from the first letter, without gaps."""

    letters: Annotated[str, StringConstraints(pattern=r"^[A-Z]{2,26}$")] = "ABCD"
    min: Size = 2
    max: Size = 4


class OutOfOption(Model):
    """Rows whose answer lies outside their options: accepted only when flagged, they count in
    the paper scope and can never be answered right; ``answerable`` scores the rest."""

    field: Key  # the flag's column, e.g. label_status
    value: Text  # its value on such rows, e.g. out_of_option
    rows: Annotated[int, Field(ge=0)]  # how many the release has
    answerable: Aggregate = Aggregate(
        key="overall_answerable",
        label="Answerable",
        name="Overall without out-of-option rows",
        of=("all",),
    )


class MultipleChoiceTrack(AccuracyTrack):
    """One scored part of a benchmark, with its files, fields, letters and metric tree."""

    kind: Literal["multiple_choice"]
    fields: Fields = Fields()
    options: Options = Options()
    out_of_option: OutOfOption | None = None

    @property
    def answerable(self) -> Aggregate | None:
        """The overall without the out-of-option rows, when the spec flags some."""
        return self.out_of_option.answerable if self.out_of_option is not None else None

    @property
    def excluded_rows(self) -> int:
        """The rows flagged out of option: no answer gets them right."""
        return self.out_of_option.rows if self.out_of_option is not None else 0

    @property
    def rotation_refusal(self) -> str | None:
        """Why the key's letters cannot be rotated: never, their options move with them."""
        return None

    @property
    def json_cells(self) -> tuple[str, ...]:
        """The fields whose CSV cell holds JSON: the options, unless they are columns."""
        f = self.fields
        return () if f.option_parts or f.options_in_question else (f.options,)

    # --- checks a field cannot make on its own ----------------------------------------------

    def problems(self, where: str) -> list[str]:
        """What is inconsistent in this track, each with its TOML path (``where``: the
        track's, e.g. ``tracks[0]``)."""
        problems = self.tree_problems(where)
        if self.out_of_option is not None and self.out_of_option.rows >= self.total:
            problems.append(
                f"{where}.out_of_option.rows: expected fewer than the {self.total} rows of the "
                f"track, got {self.out_of_option.rows}"
            )
        problems += board_problems(where, self.views, self.chart, self.metric_keys, self.references)
        problems += self.fields.id_problems(f"{where}.fields")
        opts = self.options
        if len(self.fields.option_parts) > len(opts.letters):
            problems.append(
                f"{where}.fields.options: {len(self.fields.option_parts)} option fields, but "
                f"options.letters has {len(opts.letters)} letters"
            )
        if len(set(opts.letters)) != len(opts.letters):
            problems.append(
                f"{where}.options.letters: expected distinct letters, got {opts.letters!r}"
            )
        if opts.min > opts.max or opts.max > len(opts.letters):
            problems.append(
                f"{where}.options: expected 1 <= min <= max <= {len(opts.letters)} (the "
                f"letters), got min {opts.min}, max {opts.max}"
            )
        return problems
