"""The spec of a decision track: should the assistant intervene in an episode, and when.

The kind's own vocabulary is here, once: the metrics it scores (``METRICS``, each a proportion,
seconds or a count, and the displays each may take), the one shown per scenario
(``BY_SCENARIO``), those without a value when nothing could be timed (``NULLABLE``), and the
fields of its key and submissions (``ASSIST_TYPE``, ``TIME``, ``ASSIST``). A track declares how
each metric is shown; ``evaluator.kinds.decision`` scores it and defines every metric.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from functools import cached_property
from typing import ClassVar, Literal

from pydantic import Field

from spec.base import (
    PAPER_PREFIX,
    Better,
    Display,
    Group,
    Grouping,
    IdFields,
    Metric,
    MetricKey,
    Text,
    board_problems,
)
from spec.common import CommonTrack

#: What a decision track scores (``evaluator.kinds.decision`` defines each), and what each is:
#: a proportion is shown as a percent or a ratio (``DISPLAYS``). A track declares each once.
METRICS: Mapping[str, Literal["proportion", "seconds", "count"]] = {
    "decision_f1": "proportion",
    "decision_macro_f1": "proportion",
    "decision_precision": "proportion",
    "decision_recall": "proportion",
    "timing_mae_s": "seconds",
    "timing_signed_s": "seconds",
    "timing_n": "count",
    "timing_missing": "count",
    "safety_fn_rate": "proportion",
    "non_safety_fn_rate": "proportion",
    "no_assist_fp_rate": "proportion",
    "decision_accuracy": "proportion",
}
DISPLAYS: Mapping[str, tuple[Display, ...]] = {
    "proportion": ("percent", "ratio"),
    "seconds": ("seconds",),
    "count": ("count",),
}
BY_SCENARIO = "decision_accuracy"  # also scored per scenario: decision_accuracy/<scenario key>
#: The metrics without a value when nothing could be timed (``timing_n`` 0): then absent.
NULLABLE = frozenset({"timing_mae_s", "timing_signed_s"})
ASSIST_TYPE = "assist_type"  # key: safety, non_safety or none
TIME = "intervention_time_s"  # key: the reviewed time; submission: the predicted time
ASSIST = "assist"  # submission: true, false or null
SAFETY, NON_SAFETY, NONE = "safety", "non_safety", "none"
ASSIST_TYPES = (SAFETY, NON_SAFETY, NONE)
_NOUNS = {"proportion": "a proportion", "seconds": "a time in seconds", "count": "a count"}


class DecisionFields(IdFields):
    """What a decision key's, public file's and submission's id is called; the other fields of a
    decision track are the kind's own (``ASSIST_TYPE``, ``TIME``, ``ASSIST``; the scenario's
    comes from ``scenarios.field``)."""

    id_type: Literal["integer", "string"] = "string"


class DecisionTrack(CommonTrack):
    """A track of assistant episodes: should the model assist, and when.

    ``metrics`` declares how each of the kind's metrics (``METRICS``) is shown, in display
    order; the one ``by_scenario`` is followed by its value over each scenario.
    ``paper_metrics`` are the columns only paper rows carry (keys starting with ``paper_``): a
    paper's own numbers, not this Space's definitions.
    """

    #: A record of this kind keeps its intervals: the F1's bootstrap interval cannot be
    #: recomputed from counts alone without the scorer.
    keeps_intervals: ClassVar[bool] = True

    kind: Literal["decision"]
    fields: DecisionFields = DecisionFields()
    #: The scenario field of the key and its values, each a group with its size.
    scenarios: Grouping
    silent_scenario: Text  # the scenario value whose episodes need no assistance (silence)
    metrics: tuple[Metric, ...] = Field(min_length=1, strict=False)
    #: The metric the board ranks by, best first (one of ``metrics``, higher is better).
    ranking_key: MetricKey = Field(alias="ranking")
    paper_metrics: tuple[Metric, ...] = Field(default=(), strict=False)
    #: The paper metric a paper row must carry and is ranked by (default: the ranking metric).
    paper_ranking_key: MetricKey | None = Field(None, alias="paper_ranking")

    # --- derived, computed once ---------------------------------------------------------------

    @property
    def groupings(self) -> tuple[Grouping, ...]:
        return (self.scenarios,)

    @property
    def groups(self) -> tuple[Group, ...]:
        return self.scenarios.groups

    @property
    def aggregates(self) -> tuple[()]:
        return ()

    @property
    def total(self) -> int:
        """Episodes in the released benchmark."""
        return sum(g.size for g in self.scenarios.groups)

    @property
    def ranking(self) -> str:
        return self.ranking_key

    @property
    def paper_ranking(self) -> str:
        return self.paper_ranking_key or self.ranking

    @property
    def rotation_refusal(self) -> str | None:
        """Why the key's letters cannot be rotated (``scripts/reshuffle_options.py``)."""
        return (
            "its episodes have no option letters, so there is nothing to rotate or remap (a "
            "decision answer is true or false and a time)"
        )

    @property
    def by_scenario(self) -> str | None:
        """The key of the metric shown per scenario (None if none is)."""
        return next((m.key for m in self.metrics if m.by_scenario), None)

    def scenario_key(self, group: Group) -> str:
        """The metric key of the ``by_scenario`` metric over one scenario: ``<key>/<group>``."""
        return f"{self.by_scenario}/{group.key}"

    @cached_property
    def _metrics(self) -> Mapping[str, Metric]:
        """Every own metric, in display order, each ``by_scenario`` one's scenarios after it."""
        out: dict[str, Metric] = {}
        for metric in self.metrics:
            out[metric.key] = metric
            if metric.by_scenario:
                out.update(
                    {
                        f"{metric.key}/{g.key}": metric.model_copy(
                            update={
                                "key": f"{metric.key}/{g.key}",
                                "label": g.label,
                                "name": g.name or g.value,
                                "by_scenario": False,
                            }
                        )
                        for g in self.scenarios.groups
                    }
                )
        return out

    @cached_property
    def metric_keys(self) -> tuple[str, ...]:
        """This Space's metrics, in display order (what a re-scored row carries)."""
        return tuple(self._metrics)

    @cached_property
    def paper_metric_keys(self) -> tuple[str, ...]:
        return tuple(m.key for m in self.paper_metrics)

    @cached_property
    def all_metric_keys(self) -> tuple[str, ...]:
        """Every metric a row of this track may carry: this Space's, then the paper's."""
        return (*self.metric_keys, *self.paper_metric_keys)

    @property
    def optional_metric_keys(self) -> frozenset[str]:
        """Metrics a score may lack: the timing means when nothing could be timed."""
        return NULLABLE

    @property
    def macro_keys(self) -> frozenset[str]:
        """Macro means: none."""
        return frozenset()

    @cached_property
    def accuracy_keys(self) -> frozenset[str]:
        """The metrics that are accuracies: the one shown per scenario, and each scenario's."""
        key = self.by_scenario
        if key is None:
            return frozenset()
        return frozenset({key, *(self.scenario_key(g) for g in self.scenarios.groups)})

    @property
    def json_cells(self) -> tuple[str, ...]:
        """The fields whose CSV cell holds JSON: none (a decision track's files are JSON)."""
        return ()

    @property
    def chart_groups(self) -> str:
        """What a chart's rows are: the scenario field, in words ("scenario")."""
        return self.scenarios.field.replace("_", " ")

    def derived_metrics(self, printed: Mapping[str, float]) -> dict[str, float]:
        """The aggregates a paper's row lacks: none (a decision track declares none)."""
        return {}

    @cached_property
    def _every(self) -> Mapping[str, Metric]:
        return {**self._metrics, **{m.key: m for m in self.paper_metrics}}

    @cached_property
    def labels(self) -> Mapping[str, str]:
        """Metric key -> the board's column label (paper metrics included)."""
        return {k: m.label for k, m in self._every.items()}

    @cached_property
    def names(self) -> Mapping[str, str]:
        """Metric key -> its long name (the score table's)."""
        return {k: m.name or m.label for k, m in self._every.items()}

    @cached_property
    def display(self) -> Mapping[str, Display]:
        """Metric key -> how it is shown (percent, ratio, seconds or count)."""
        return {k: m.display for k, m in self._every.items()}

    @cached_property
    def better(self) -> Mapping[str, Better]:
        """Metric key -> which way it is better: higher, lower, or nearer zero."""
        return {k: m.better for k, m in self._every.items()}

    @cached_property
    def higher_is_better(self) -> Mapping[str, bool | None]:
        """Metric key -> True, False, or None for a signed error (best at 0): how to sort."""
        return {
            k: {"higher": True, "lower": False, "zero": None}[b] for k, b in self.better.items()
        }

    @cached_property
    def sizes(self) -> Mapping[str, int]:
        """Metric key -> episodes it counts in the released benchmark: the ``by_scenario``
        metric all of them, each of its scenarios that scenario's."""
        if self.by_scenario is None:
            return {}
        out = {self.by_scenario: self.total}
        out.update({self.scenario_key(g): g.size for g in self.scenarios.groups})
        return out

    # --- checks a field cannot make on its own ----------------------------------------------

    def problems(self, where: str) -> list[str]:
        """What is inconsistent in this track, each with its TOML path (``where``: the
        track's, e.g. ``tracks[1]``)."""
        problems = [
            f"{where}.{name}.format: expected 'json' or 'jsonl' (a decision track's files are "
            "JSON), got 'csv'"
            for name in ("key", "public")
            if getattr(self, name).format == "csv"
        ]
        groups = self.scenarios.groups
        for field in ("value", "key"):
            for value, n in Counter(getattr(g, field) for g in groups).items():
                if n > 1:
                    problems.append(
                        f"{where}.scenarios.groups: the {field} {value!r} appears {n} times"
                    )
        values = [g.value for g in groups]
        if self.silent_scenario not in values:
            problems.append(
                f"{where}.silent_scenario: expected one of the values of its scenarios.groups "
                f"({', '.join(values)}), got {self.silent_scenario!r}"
            )
        elif len(values) < 2:
            problems.append(
                f"{where}.scenarios.groups: expected a group that needs assistance besides "
                f"{self.silent_scenario!r}"
            )
        problems += self._metric_problems(where)
        return problems + self._board_problems(where)

    def _metric_problems(self, where: str) -> list[str]:
        problems = []
        own = Counter(m.key for m in self.metrics)
        for key, n in own.items():
            if n > 1:
                problems.append(f"{where}.metrics: the metric key {key!r} is declared {n} times")
        unknown = [k for k in own if k not in METRICS]
        missing = [k for k in METRICS if k not in own]
        if unknown or missing:
            found = ([f"missing {', '.join(missing)}"] if missing else []) + (
                [f"unknown {', '.join(unknown)}"] if unknown else []
            )
            problems.append(
                f"{where}.metrics: expected each metric of a decision track once "
                f"({', '.join(METRICS)}); found {'; '.join(found)}"
            )
        for i, metric in enumerate(self.metrics):
            kind = METRICS.get(metric.key)
            if kind is not None and metric.display not in DISPLAYS[kind]:
                allowed = " or ".join(repr(d) for d in DISPLAYS[kind])
                problems.append(
                    f"{where}.metrics[{i}].display: {metric.key} is {_NOUNS[kind]}, shown as "
                    f"{allowed}; got {metric.display!r}"
                )
            if metric.by_scenario != (metric.key == BY_SCENARIO):
                want, have = ("false", "true") if metric.by_scenario else ("true", "false")
                problems.append(
                    f"{where}.metrics[{i}].by_scenario: expected {want}, got {have} (the metric "
                    f"shown per scenario is {BY_SCENARIO})"
                )
        ranked = {m.key: m for m in self.metrics}.get(self.ranking)
        if ranked is None or ranked.better != "higher":
            best = ", ".join(m.key for m in self.metrics if m.better == "higher")
            problems.append(
                f"{where}.ranking: expected one of this track's metrics where higher is better "
                f"({best}), got {self.ranking!r}"
            )
        for i, metric in enumerate(self.paper_metrics):
            if not metric.key.startswith(PAPER_PREFIX):
                problems.append(
                    f"{where}.paper_metrics[{i}].key: expected a key starting with "
                    f"{PAPER_PREFIX!r} (a paper-only metric), got {metric.key!r}"
                )
            if metric.by_scenario:
                problems.append(
                    f"{where}.paper_metrics[{i}].by_scenario: expected false (a paper metric "
                    f"lists each scenario's column itself, e.g. {metric.key}/<scenario key>), "
                    "got true"
                )
        return problems

    def _board_problems(self, where: str) -> list[str]:
        problems = []
        own = Counter(m.key for m in self.metrics)
        every = Counter([*self.metric_keys, *self.paper_metric_keys])
        for key, n in every.items():
            if n > 1 and own.get(key, 0) <= 1:
                problems.append(f"{where}: the metric key {key!r} is declared {n} times")
        for label, n in Counter(self.labels[k] for k in every).items():
            if n > 1:
                problems.append(
                    f"{where}: the label {label!r} is given to {n} metrics; each column of the "
                    "board needs its own"
                )
        if (
            self.paper_ranking_key is not None
            and self.paper_ranking_key not in self.paper_metric_keys
        ):
            problems.append(
                f"{where}.paper_ranking: expected one of the paper metrics "
                f"({', '.join(self.paper_metric_keys) or 'none declared'}), got "
                f"{self.paper_ranking_key!r}"
            )
        problems += board_problems(where, self.views, self.chart, list(every), self.references)
        charted = all(k in every for k in self.chart)
        if charted and len({self.display[k] for k in self.chart}) > 1:
            problems.append(
                f"{where}.chart: expected metrics of one display (one axis), got "
                + ", ".join(f"{k} ({self.display[k]})" for k in self.chart)
            )
        return problems
