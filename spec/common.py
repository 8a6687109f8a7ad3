"""What every kind of track declares and answers: the common base of the kinds' models.

A kind's model (``spec.multiple_choice``, ``spec.decision``, ``spec.short_answer``) is a
``CommonTrack``: the fields every track has are declared here once (``id``, ``title``, ``kind``,
``scorer_version``, ``key``, ``public``, ``fields``, ``hints``, ``views``, ``chart``,
``min_rows``), with what generic code asks of any track (its metrics in display order, their
labels, names, displays and sizes, its ranking, its groups, its checks), which each kind answers
in its own terms. Generic code is typed against this base (``spec.Track``), so it reads no
kind's own fields; ``tests/test_house.py`` checks every registered kind answers all of it.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from spec.base import (
    MIN_ROWS,
    DataFile,
    Group,
    Grouping,
    Hints,
    Ident,
    IdFields,
    Key,
    MetricKey,
    Model,
    Size,
    Text,
    TrackBase,
    ValuesGroup,
    ValuesGrouping,
    View,
)


class Aggregate(Model):
    """A metric over several groups: micro = correct over all their rows (weight by size),
    macro = the mean of the groups' accuracies."""

    key: Key
    label: Text
    name: Text | None = None
    of: tuple[Key, ...] = Field(min_length=1, strict=False)  # group keys, or one grouping id
    aggregation: Literal["micro", "macro"] = "micro"


class CommonTrack(TrackBase):
    """A track of some kind: the fields every kind declares, and what every kind answers.

    The abstract members are each kind's to answer (a model missing one cannot be built)."""

    #: Whether a record keeps its intervals (they cannot all be recomputed from its counts).
    keeps_intervals: ClassVar[bool]

    id: Ident
    title: Text
    kind: Key  # each kind's model narrows it to its own name (a Literal)
    scorer_version: Text  # in every re-scored record's provenance: bump it when scoring changes
    key: DataFile
    public: DataFile
    #: What a row's and a submission entry's fields are called (each kind's own ``IdFields``).
    fields: IdFields = IdFields()
    #: What Score's hints may say of this benchmark (``spec.base.Hints``): a look-alike of the
    #: id or of the prediction and what to tell an entry that carries it; who writes results files.
    hints: Hints = Hints()
    views: tuple[View, ...] = Field(min_length=1, strict=False)
    #: The metrics the chart of groups shows.
    chart: tuple[MetricKey, ...] = Field(default=(), strict=False)
    #: The fewest rows of the key a metric a visitor is shown may turn on: one that turns on
    #: fewer is withheld from /score (``evaluator.disclosure``); records keep every value.
    min_rows: Size = MIN_ROWS

    def ranking_for(self, source: str) -> str:
        """The metric a row of that source ("rescored" or "paper") is ranked by."""
        return self.paper_ranking if source == "paper" else self.ranking

    if TYPE_CHECKING:  # a field of one kind, a property of another: declared for the type only

        @property
        def groupings(self) -> tuple[Grouping | ValuesGrouping, ...]:
            """The groupings of the rows, each a field of the key and its groups."""

        @property
        def aggregates(self) -> tuple[Aggregate, ...]:
            """The metrics over several groups."""

    # --- what each kind answers ----------------------------------------------------------------

    @property
    @abstractmethod
    def ranking(self) -> str:
        """The metric the board ranks by, best first."""

    @property
    @abstractmethod
    def paper_ranking(self) -> str:
        """The metric a paper row must carry and is ranked by."""

    @property
    @abstractmethod
    def metric_keys(self) -> tuple[str, ...]:
        """This Space's metrics, in display order (what a re-scored row carries)."""

    @property
    @abstractmethod
    def paper_metric_keys(self) -> tuple[str, ...]:
        """Metrics only paper rows carry."""

    @property
    @abstractmethod
    def all_metric_keys(self) -> tuple[str, ...]:
        """Every metric a row of this track may carry, in display order."""

    @property
    @abstractmethod
    def optional_metric_keys(self) -> frozenset[str]:
        """Metrics a score may lack (without a value)."""

    @property
    @abstractmethod
    def macro_keys(self) -> frozenset[str]:
        """The macro means: no count of their own."""

    @property
    @abstractmethod
    def accuracy_keys(self) -> frozenset[str]:
        """The metrics that are accuracies."""

    @property
    @abstractmethod
    def labels(self) -> Mapping[str, str]:
        """Metric key -> the board's column label."""

    @property
    @abstractmethod
    def names(self) -> Mapping[str, str]:
        """Metric key -> its long name (the score table's)."""

    @property
    @abstractmethod
    def higher_is_better(self) -> Mapping[str, bool | None]:
        """Metric key -> True, False, or None for a signed error (best at 0): how to sort."""

    @property
    @abstractmethod
    def sizes(self) -> Mapping[str, int]:
        """Metric key -> rows it counts in the released benchmark."""

    @property
    @abstractmethod
    def groups(self) -> tuple[Group | ValuesGroup, ...]:
        """Every group of every grouping, in order."""

    @property
    @abstractmethod
    def total(self) -> int:
        """Rows in the released benchmark."""

    @property
    @abstractmethod
    def chart_groups(self) -> str:
        """What a chart's rows are, in words ("split", "scenario")."""

    @property
    @abstractmethod
    def rotation_refusal(self) -> str | None:
        """Why the key's letters cannot be rotated (None: they can)."""

    @property
    @abstractmethod
    def json_cells(self) -> tuple[str, ...]:
        """The fields whose CSV cell holds JSON."""

    @abstractmethod
    def derived_metrics(self, printed: Mapping[str, float]) -> dict[str, float]:
        """The metrics a paper's row lacks that follow from those it prints."""

    @abstractmethod
    def problems(self, where: str) -> list[str]:
        """What is inconsistent in this track, each with its TOML path (``where``: the
        track's, e.g. ``tracks[0]``)."""
