"""The metric tree of a track scored as accuracies, whatever its kind asks (letters, short
answers): ``overall``, its groupings and their groups, its aggregates over groups (micro or
macro), the board's views and chart, and what each metric is called, shown as and counts.

Every metric is an accuracy in percent, higher is better: ``overall`` over every row, one per
group of each grouping, each declared aggregate over groups (micro: correct over all their
rows; macro: the mean of their accuracies), and an answerable overall when a kind leaves some
rows out of it (``answerable``). A kind's model (``spec.multiple_choice``,
``spec.short_answer``) adds its files' fields and its own checks; ``evaluator.accuracy`` scores
the tree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from functools import cached_property
from typing import ClassVar

from pydantic import Field

from spec.base import (
    Display,
    Key,
    Model,
    Size,
    Text,
    ValuesGroup,
    ValuesGrouping,
)
from spec.common import Aggregate, CommonTrack


class Overall(Model):
    """The metric over every row (micro by definition); ``size``, its rows, is declared when no
    grouping declares them (a track without groups: Overall alone)."""

    key: Key = "overall"
    label: Text = "Overall"
    size: Size | None = None


class AccuracyTrack(CommonTrack):
    """What every track scored as accuracies declares and derives: its metric tree and its
    board. A kind's model adds ``kind`` and its ``fields``."""

    #: A record of such a track keeps no intervals: they follow from its counts (Wilson).
    keeps_intervals: ClassVar[bool] = False

    overall: Overall = Overall()
    #: None at all: the track shows Overall alone (``overall.size`` then gives its rows).
    groupings: tuple[ValuesGrouping, ...] = Field(default=(), strict=False)
    aggregates: tuple[Aggregate, ...] = Field(default=(), strict=False)
    #: Shown under the chart of groups: the metrics the per-group chart shows (group keys).
    chart: tuple[Key, ...] = Field(default=(), strict=False)

    # --- what a kind may add to the tree ------------------------------------------------------

    @property
    def answerable(self) -> Aggregate | None:
        """The overall over the rows that can be answered right, when a kind leaves some out
        (``excluded_rows``); None: every row can."""
        return None

    @property
    def excluded_rows(self) -> int:
        """The rows of the released benchmark no answer can get right (out of the answerable
        overall)."""
        return 0

    # --- derived, computed once ---------------------------------------------------------------

    @cached_property
    def groups(self) -> tuple[ValuesGroup, ...]:
        return tuple(g for grouping in self.groupings for g in grouping.groups)

    @cached_property
    def summaries(self) -> tuple[Aggregate, ...]:
        """The answerable overall (if any) and the declared aggregates, in display order."""
        head = (self.answerable,) if self.answerable is not None else ()
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
    def chart_groups(self) -> str:
        """What a chart's rows are: "split"."""
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
    def summary_members(self) -> Mapping[str, tuple[str, ...]]:
        """Each summary's key -> the group keys it is over (``members``), in display order:
        what every score reads, computed once."""
        return {a.key: self.members(a) for a in self.summaries}

    @cached_property
    def group_keys(self) -> tuple[str, ...]:
        """Every group's key, in display order."""
        return tuple(g.key for g in self.groups)

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
        if self.answerable is not None:
            out[self.answerable.key] = self.total - self.excluded_rows
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

    def tree_problems(self, where: str) -> list[str]:
        """What is inconsistent in the metric tree, each with its TOML path (``where``: the
        track's, e.g. ``tracks[0]``): keys declared twice, sizes that disagree, aggregates over
        what the track does not have."""
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
        return problems
