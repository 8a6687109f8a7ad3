"""The spec of a multiple-choice track: letters, groupings, micro and macro aggregates.

Every metric is an accuracy in percent, higher is better: ``overall`` over every row, one per
group of each grouping, each declared aggregate over groups (micro: correct over all their
rows; macro: the mean of their accuracies), and ``overall_answerable`` when an out-of-option
policy flags rows whose answer lies outside their options. ``evaluator.kinds.multiple_choice``
scores it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from functools import cached_property
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, StringConstraints, model_validator

from spec.base import (
    MIN_ROWS,
    Composed,
    DataFile,
    Display,
    Hints,
    Ident,
    IdFields,
    Key,
    Model,
    Size,
    Text,
    TrackBase,
    ValuesGroup,
    ValuesGrouping,
    View,
    board_problems,
    composed,
    parts_of,
)

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


class Aggregate(Model):
    """A metric over several groups: micro = correct over all their rows (weight by size),
    macro = the mean of the groups' accuracies."""

    key: Key
    label: Text
    name: Text | None = None
    of: tuple[Key, ...] = Field(min_length=1, strict=False)  # group keys, or one grouping id
    aggregation: Literal["micro", "macro"] = "micro"


class Overall(Model):
    """The metric over every row (micro by definition); ``size``, its rows, is declared when no
    grouping declares them (a track without groups: Overall alone)."""

    key: Key = "overall"
    label: Text = "Overall"
    size: Size | None = None


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


class MultipleChoiceTrack(TrackBase):
    """One scored part of a benchmark, with its files, fields, letters and metric tree."""

    #: A record of this kind keeps no intervals: they follow from its counts (Wilson).
    keeps_intervals: ClassVar[bool] = False

    id: Ident
    title: Text
    kind: Literal["multiple_choice"]
    scorer_version: Text  # in every re-scored record's provenance: bump it when scoring changes
    key: DataFile
    public: DataFile
    fields: Fields = Fields()
    hints: Hints = Hints()
    options: Options = Options()
    overall: Overall = Overall()
    #: None at all: the track shows Overall alone (``overall.size`` then gives its rows).
    groupings: tuple[ValuesGrouping, ...] = Field(default=(), strict=False)
    aggregates: tuple[Aggregate, ...] = Field(default=(), strict=False)
    out_of_option: OutOfOption | None = None
    views: tuple[View, ...] = Field(min_length=1, strict=False)
    #: Shown under the chart of groups: the metrics a per-group bar chart shows.
    chart: tuple[Key, ...] = Field(default=(), strict=False)
    #: The fewest rows of the key a metric a visitor is shown may turn on: one that turns on
    #: fewer is withheld from /score (``evaluator.disclosure``); records keep every value.
    min_rows: Size = MIN_ROWS

    # --- derived, computed once ---------------------------------------------------------------

    @cached_property
    def groups(self) -> tuple[ValuesGroup, ...]:
        return tuple(g for grouping in self.groupings for g in grouping.groups)

    @cached_property
    def summaries(self) -> tuple[Aggregate, ...]:
        """The answerable overall (if any) and the declared aggregates, in display order."""
        head = (self.out_of_option.answerable,) if self.out_of_option else ()
        return (*head, *self.aggregates)

    @cached_property
    def metric_keys(self) -> tuple[str, ...]:
        """Every metric key, in display order: overall, summaries, then every group."""
        return (
            self.overall.key,
            *(a.key for a in self.summaries),
            *(g.key for g in self.groups),
        )

    @property
    def ranking(self) -> str:
        """The metric the board ranks by, best first."""
        return self.overall.key

    @property
    def paper_ranking(self) -> str:
        """The metric a paper row must carry: the ranking metric."""
        return self.ranking

    def ranking_for(self, source: str) -> str:
        """The metric a row of that source ("rescored" or "paper") is ranked by."""
        return self.paper_ranking if source == "paper" else self.ranking

    def reference_of(self, metrics: Mapping[str, float]) -> str | None:
        """What a row is when it is a reference, not an entry: never, on a multiple-choice
        track (its chance row is the board's own, not a record)."""
        return None

    @property
    def paper_metric_keys(self) -> tuple[str, ...]:
        """Metrics only paper rows carry: none (a paper prints this Space's accuracies)."""
        return ()

    @property
    def all_metric_keys(self) -> tuple[str, ...]:
        """Every metric a row of this track may carry, in display order."""
        return self.metric_keys

    @property
    def optional_metric_keys(self) -> frozenset[str]:
        """Metrics a score may lack (without a value): none, every accuracy has one."""
        return frozenset()

    @cached_property
    def macro_keys(self) -> frozenset[str]:
        """The macro means: no count of their own (their metric is not correct / total)."""
        return frozenset(a.key for a in self.summaries if a.aggregation == "macro")

    @property
    def accuracy_keys(self) -> frozenset[str]:
        """The metrics that are accuracies: every one."""
        return frozenset(self.metric_keys)

    @property
    def json_cells(self) -> tuple[str, ...]:
        """The fields whose CSV cell holds JSON: the options, unless they are columns."""
        f = self.fields
        return () if f.option_parts or f.options_in_question else (f.options,)

    @property
    def chart_groups(self) -> str:
        """What a chart's bars are per: "split"."""
        return "split"

    @cached_property
    def display(self) -> Mapping[str, Display]:
        """Metric key -> how it is shown: every accuracy in percent."""
        return dict.fromkeys(self.metric_keys, "percent")

    @cached_property
    def higher_is_better(self) -> Mapping[str, bool | None]:
        """Metric key -> True: a higher accuracy is better."""
        return dict.fromkeys(self.metric_keys, True)

    @cached_property
    def total(self) -> int:
        """Rows in the released benchmark (each grouping covers them all; without one, the
        size Overall declares)."""
        if not self.groupings:
            return self.overall.size or 0
        return sum(g.size for g in self.groupings[0].groups)

    def members(self, aggregate: Aggregate) -> tuple[str, ...]:
        """The group keys an aggregate is over (``of`` may name a grouping)."""
        by_grouping = {g.id: tuple(x.key for x in g.groups) for g in self.groupings}
        out: list[str] = []
        for name in aggregate.of:
            out.extend(by_grouping.get(name, (name,)))
        return tuple(out)

    @cached_property
    def labels(self) -> Mapping[str, str]:
        """Metric key -> the board's column label."""
        out = {self.overall.key: self.overall.label}
        out.update({a.key: a.label for a in self.summaries})
        out.update({g.key: g.label for g in self.groups})
        return out

    @cached_property
    def names(self) -> Mapping[str, str]:
        """Metric key -> its long name (the score table's)."""
        out = {self.overall.key: self.overall.label}
        out.update({a.key: a.name or a.label for a in self.summaries})
        out.update({g.key: g.name or g.spelled for g in self.groups})
        return out

    @cached_property
    def sizes(self) -> Mapping[str, int]:
        """Metric key -> rows it counts in the released benchmark."""
        out = {self.overall.key: self.total}
        out.update({g.key: g.size for g in self.groups})
        for a in self.aggregates:
            out[a.key] = sum(out[k] for k in self.members(a))
        if self.out_of_option is not None:
            out[self.out_of_option.answerable.key] = self.total - self.out_of_option.rows
        return out

    def derived_metrics(self, printed: Mapping[str, float]) -> dict[str, float]:
        """The declared aggregates ``printed`` lacks, from their members when all are there:
        micro weighted by the spec's group sizes, macro their plain mean (a paper's row)."""
        out: dict[str, float] = {}
        for aggregate in self.aggregates:
            members = self.members(aggregate)
            if aggregate.key in printed or not all(m in printed for m in members):
                continue
            if aggregate.aggregation == "macro":
                out[aggregate.key] = sum(printed[m] for m in members) / len(members)
            else:
                total = sum(self.sizes[m] for m in members)
                out[aggregate.key] = sum(printed[m] * self.sizes[m] for m in members) / total
        return out

    # --- checks a field cannot make on its own ----------------------------------------------

    def problems(self, where: str) -> list[str]:
        """What is inconsistent in this track, each with its TOML path (``where``: the
        track's, e.g. ``tracks[0]``)."""
        problems = []
        groupings = Counter(g.id for g in self.groupings)
        for key, n in Counter(self.metric_keys).items():
            if n > 1:
                problems.append(f"{where}: the metric key {key!r} is declared {n} times")
        for name, n in groupings.items():
            if n > 1:
                problems.append(
                    f"{where}.groupings: the grouping id {name!r} is declared {n} times"
                )
        size = self.overall.size
        if not self.groupings and size is None:
            problems.append(
                f"{where}.overall.size: a track without groupings declares its rows here, e.g. "
                "overall = { size = 431 }"
            )
        elif self.groupings and size is not None and size != self.total:
            problems.append(
                f"{where}.overall.size: {size}, but groupings[0] ({self.groupings[0].id}) has "
                f"{self.total} rows; drop it or make it {self.total}"
            )
        for i, grouping in enumerate(self.groupings):
            for value, n in Counter(v for g in grouping.groups for v in g.values).items():
                if n > 1:
                    problems.append(
                        f"{where}.groupings[{i}].groups: the value {value!r} appears {n} times"
                    )
            total = sum(g.size for g in grouping.groups)
            if total != self.total:
                problems.append(
                    f"{where}.groupings[{i}] ({grouping.id}): its groups have {total} rows in "
                    f"all, but groupings[0] ({self.groupings[0].id}) has {self.total}; every "
                    "grouping covers every row"
                )
        names = {g.key for g in self.groups} | set(groupings)
        for i, aggregate in enumerate(self.aggregates):
            unknown = [k for k in aggregate.of if k not in names]
            if unknown:
                problems.append(
                    f"{where}.aggregates[{i}].of: {', '.join(map(repr, unknown))} is neither a "
                    "group key nor a grouping id of this track"
                )
        if self.out_of_option is not None and self.out_of_option.rows >= self.total:
            problems.append(
                f"{where}.out_of_option.rows: expected fewer than the {self.total} rows of the "
                f"track, got {self.out_of_option.rows}"
            )
        problems += board_problems(where, self.views, self.chart, self.metric_keys)
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
