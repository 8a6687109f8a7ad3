"""A benchmark as data: ``benchmarks/<id>/benchmark.toml``, read once into a frozen model.

The code knows no benchmark. Everything that differs between benchmarks (their groups and
sizes, labels, links, repositories, prose, file formats, field names, letters) is written in
the benchmark's folder and reaches the code as a ``Benchmark``; every other module takes the
model, or one of its tracks, as a parameter.

A track has a ``kind``: ``multiple_choice`` (``MultipleChoiceTrack``, also called ``Track``:
letters, groupings, micro and macro aggregates) or ``decision`` (``DecisionTrack``: whether and
when to assist, scored by ``decision.py``). Both give generic code the same names: ``id``,
``title``, ``kind``, ``scorer_version``, ``key``, ``public``, ``fields.id`` / ``fields.id_type``,
``metric_keys`` (this Space's metrics, display order), ``paper_metric_keys`` (metrics only paper
rows carry), ``labels``, ``names``, ``display`` (percent, ratio, seconds or count),
``higher_is_better`` (True, False, or None for a signed error whose best value is 0),
``ranking`` / ``ranking_for(source)``, ``views`` and ``chart``.

``parse_benchmark`` is pure (a decoded TOML document in, a model out); ``load_benchmark`` reads
the folder. A spec error names its TOML path and what was expected::

    tracks[0].groupings[0].groups[3].size: expected a positive integer, got "100"

Example::

    bench = load_benchmark("egomemreason")      # an id under benchmarks/, or a folder's path
    track = bench.tracks[0]
    track.metric_keys                           # ("overall", "entity", ...), display order
    track.sizes["entity"]                       # 200: the rows the metric counts
    decision = load_benchmark("egoargus").any_track("decision")
    decision.display["decision_f1"], decision.higher_is_better["timing_mae_s"]  # ratio, False
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from collections.abc import Mapping
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal
from uuid import UUID, uuid5

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    StringConstraints,
    Tag,
    ValidationError,
)

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS_DIR = ROOT / "benchmarks"
SPEC_FILENAME = "benchmark.toml"
DEMO_FOLDER = "demo"  # inside a benchmark's folder: its demo key(s), public file(s), board
DEMO_BOARD = "leaderboard"  # inside the demo folder

#: The board's info columns a view may list after its metrics (the app names them).
BoardColumn = Literal["rank_range", "source", "team", "size", "date", "ci", "external", "input",
                      "links", "note"]

Key = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*$", max_length=64)]
#: A metric key: a key, or two joined by "/" (``decision_accuracy/contradictory``).
MetricKey = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*(/[a-z][a-z0-9_]*)?$",
                                             max_length=129)]
Ident = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_-]*$", max_length=64)]
Text = Annotated[str, StringConstraints(min_length=1, max_length=300)]
Url = Annotated[str, StringConstraints(pattern=r"^https?://[^\s/]+\S*$", max_length=500)]
RepoId = Annotated[str, StringConstraints(
    pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")]
FileName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")]


#: How a metric is shown: a percent (0-100, one decimal), a 0-1 ratio (three decimals, as papers
#: print F1), seconds (two decimals) or a count of rows (whole).
Display = Literal["percent", "ratio", "seconds", "count"]
#: Which way a metric is better: higher, lower, or nearer zero (a signed error).
Better = Literal["higher", "lower", "zero"]
PAPER_PREFIX = "paper_"  # the key of every paper-only metric starts so


def format_metric(display: Display, value: float | None) -> str:
    """A metric as a board shows it: "45.2 %", "0.812", "2.74 s", "412"; "—" for no value."""
    if value is None:
        return "—"
    if display == "percent":
        return f"{value:.1f} %"
    if display == "ratio":
        return f"{value:.3f}"
    if display == "seconds":
        return f"{value:.2f} s"
    return f"{value:.0f}"


def _positive_int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"expected a positive integer, got {_quote(value)}")
    return value


Size = Annotated[int, BeforeValidator(_positive_int)]


class SpecError(ValueError):
    """A benchmark folder or its benchmark.toml is unusable; the message names the TOML path."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


# --- the parts of a track ----------------------------------------------------------------------


class DataFile(_Model):
    """A file of a track: its name and how its rows are written."""

    name: FileName
    #: json: a list of objects or {"samples": [...]}; jsonl: one object a line; csv: a header
    #: row, with the options cell holding a JSON object.
    format: Literal["json", "jsonl", "csv"]


class Fields(_Model):
    """What the key's, the public file's and a submission's fields are called."""

    id: Key = "example_id"
    id_type: Literal["integer", "string"] = "integer"
    question: Key = "question"
    options: Key = "options"
    answer: Key = "correct_answer"
    prediction: Key = "predicted_answer"
    #: Names people use instead of ``id`` / ``prediction``; a submission using one is told to
    #: rename it.
    id_aliases: tuple[Key, ...] = Field(default=(), strict=False)
    prediction_aliases: tuple[Key, ...] = Field(default=(), strict=False)


class Options(_Model):
    """The letters a question's options use: always from the first letter, without gaps."""

    letters: Annotated[str, StringConstraints(pattern=r"^[A-Z]{2,26}$")] = "ABCD"
    min: Size = 2
    max: Size = 4


class Group(_Model):
    """One value of a grouping field: a metric of its own."""

    value: Text  # as spelled in the data
    key: Key  # the metric key
    label: Text  # the board's column label
    name: Text | None = None  # the long name (score table); default: the value
    size: Size  # rows in the released benchmark


class Grouping(_Model):
    """Rows grouped by one field of the key; each value of the field is a group."""

    id: Key
    field: Key
    title: Text
    groups: tuple[Group, ...] = Field(min_length=1, strict=False)


class Aggregate(_Model):
    """A metric over several groups: micro = correct over all their rows (weight by size),
    macro = the mean of the groups' accuracies."""

    key: Key
    label: Text
    name: Text | None = None
    of: tuple[Key, ...] = Field(min_length=1, strict=False)  # group keys, or one grouping id
    aggregation: Literal["micro", "macro"] = "micro"


class Overall(_Model):
    """The metric over every row (micro by definition)."""

    key: Key = "overall"
    label: Text = "Overall"


class OutOfOption(_Model):
    """Rows whose answer lies outside their options: accepted only when flagged, they count in
    the paper scope and can never be answered right; ``answerable`` scores the rest."""

    field: Key  # the flag's column, e.g. label_status
    value: Text  # its value on such rows, e.g. out_of_option
    rows: Annotated[int, Field(ge=0)]  # how many the release has
    answerable: Aggregate = Aggregate(key="overall_answerable", label="Answerable",
                                      name="Overall without out-of-option rows", of=("all",))


class View(_Model):
    """A column group of the board: the ranking metric, then these metrics and columns."""

    title: Text
    metrics: tuple[MetricKey, ...] = Field(default=(), strict=False)
    columns: tuple[BoardColumn, ...] = Field(default=(), strict=False)


class Metric(_Model):
    """How one metric of a decision track is shown: its column label, long name, display, and
    which way is better."""

    key: MetricKey
    label: Text  # the board's column label
    name: Text | None = None  # the long name (score table); default: the label
    display: Display
    better: Better
    #: Followed by the same metric over each scenario, ``<key>/<scenario key>``, labelled and
    #: named by the scenario's group.
    by_scenario: bool = False


class MultipleChoiceTrack(_Model):
    """One scored part of a benchmark, with its files, fields, letters and metric tree.

    Every metric is an accuracy in percent, higher is better.
    """

    #: A record of this kind keeps no intervals: they follow from its counts (Wilson).
    keeps_intervals: ClassVar[bool] = False

    id: Ident
    title: Text
    kind: Literal["multiple_choice"]
    scorer_version: Text  # in every re-scored record's provenance: bump it when scoring changes
    key: DataFile
    public: DataFile
    fields: Fields = Fields()
    options: Options = Options()
    overall: Overall = Overall()
    groupings: tuple[Grouping, ...] = Field(min_length=1, strict=False)
    aggregates: tuple[Aggregate, ...] = Field(default=(), strict=False)
    out_of_option: OutOfOption | None = None
    views: tuple[View, ...] = Field(min_length=1, strict=False)
    #: Shown under the chart of groups: the metrics a per-group bar chart shows.
    chart: tuple[Key, ...] = Field(default=(), strict=False)

    # --- derived, computed once ---------------------------------------------------------------

    @cached_property
    def groups(self) -> tuple[Group, ...]:
        return tuple(g for grouping in self.groupings for g in grouping.groups)

    @cached_property
    def summaries(self) -> tuple[Aggregate, ...]:
        """The answerable overall (if any) and the declared aggregates, in display order."""
        head = (self.out_of_option.answerable,) if self.out_of_option else ()
        return (*head, *self.aggregates)

    @cached_property
    def metric_keys(self) -> tuple[str, ...]:
        """Every metric key, in display order: overall, summaries, then every group."""
        return (self.overall.key, *(a.key for a in self.summaries),
                *(g.key for g in self.groups))

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

    @property
    def paper_metric_keys(self) -> tuple[str, ...]:
        """Metrics only paper rows carry: none (a paper prints this Space's accuracies)."""
        return ()

    @property
    def all_metric_keys(self) -> tuple[str, ...]:
        """Every metric a row of this track may carry, in display order."""
        return self.metric_keys

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
        """Rows in the released benchmark (each grouping covers them all)."""
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
        out.update({g.key: g.name or g.value for g in self.groups})
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


Track = MultipleChoiceTrack  # the name the multiple-choice code has always used


class DecisionFields(_Model):
    """What a decision key's, public file's and submission's id is called; the other fields of a
    decision track are fixed by ``decision.py`` (scenario's comes from ``scenarios.field``)."""

    id: Key = "example_id"
    id_type: Literal["integer", "string"] = "string"
    #: Names people use instead of ``id``; a submission using one is told to rename it.
    id_aliases: tuple[Key, ...] = Field(default=(), strict=False)


class DecisionTrack(_Model):
    """A track of assistant episodes: should the model assist, and when (``decision.py``).

    ``metrics`` declares how each of the kind's metrics (``decision.METRICS``) is shown, in
    display order; the one ``by_scenario`` is followed by its value over each scenario.
    ``paper_metrics`` are the columns only paper rows carry (keys starting with ``paper_``): a
    paper's own numbers, not this Space's definitions.
    """

    #: A record of this kind keeps its intervals: the F1's bootstrap interval cannot be
    #: recomputed from counts alone without the scorer.
    keeps_intervals: ClassVar[bool] = True

    id: Ident
    title: Text
    kind: Literal["decision"]
    scorer_version: Text  # in every re-scored record's provenance: bump it when scoring changes
    key: DataFile
    public: DataFile
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
    views: tuple[View, ...] = Field(min_length=1, strict=False)
    #: The metrics a per-scenario bar chart shows (one display, so one axis).
    chart: tuple[MetricKey, ...] = Field(default=(), strict=False)

    # --- derived, computed once ---------------------------------------------------------------

    @property
    def groupings(self) -> tuple[Grouping, ...]:
        return (self.scenarios,)

    @property
    def groups(self) -> tuple[Group, ...]:
        return self.scenarios.groups

    @property
    def aggregates(self) -> tuple[Aggregate, ...]:
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

    def ranking_for(self, source: str) -> str:
        """The metric a row of that source ("rescored" or "paper") is ranked by."""
        return self.paper_ranking if source == "paper" else self.ranking

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
                out.update({f"{metric.key}/{g.key}": metric.model_copy(update={
                    "key": f"{metric.key}/{g.key}", "label": g.label, "name": g.name or g.value,
                    "by_scenario": False}) for g in self.scenarios.groups})
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
        return {k: {"higher": True, "lower": False, "zero": None}[b]
                for k, b in self.better.items()}

    @cached_property
    def sizes(self) -> Mapping[str, int]:
        """Metric key -> episodes it counts in the released benchmark: the ``by_scenario``
        metric all of them, each of its scenarios that scenario's."""
        if self.by_scenario is None:
            return {}
        out = {self.by_scenario: self.total}
        out.update({self.scenario_key(g): g.size for g in self.scenarios.groups})
        return out


def _track_kind(value: Any) -> str:
    """Which model a [[tracks]] entry is checked as: decision if it says so, else multiple
    choice (so a wrong kind is reported with everything else wrong in the entry)."""
    kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
    return "kind=decision" if kind == "decision" else "kind=multiple_choice"


#: A track of any kind, told apart by its ``kind``.
AnyTrack = Annotated[
    Annotated[MultipleChoiceTrack, Tag("kind=multiple_choice")]
    | Annotated[DecisionTrack, Tag("kind=decision")],
    Discriminator(_track_kind),
]


# --- the benchmark -----------------------------------------------------------------------------


class Links(_Model):
    paper: Url | None = None
    project: Url | None = None
    code: Url | None = None
    data: Url | None = None


class Hub(_Model):
    """Where the benchmark lives on the Hub: the private key repo and the public records."""

    private_repo: RepoId
    records_repo: RepoId


class PaperTable(_Model):
    """Another table of the paper, with the rows of another track: a CSV beside the spec."""

    track: Ident
    table: Text  # e.g. "Table 2"
    csv: FileName


class Paper(_Model):
    """The paper rows: ``paper_baselines.csv`` beside the spec, one row per method; ``tables``
    adds the tables of other tracks, each with its own CSV (same team, date and link)."""

    csv: FileName = "paper_baselines.csv"
    track: Ident
    table: Text  # e.g. "Table 1"
    team: Text
    date: date
    url: Url
    namespace: UUID = Field(strict=False)  # of the rows' uuid5 ids: never change it
    tables: tuple[PaperTable, ...] = Field(default=(), strict=False)

    @property
    def all_tables(self) -> tuple[PaperTable, ...]:
        """Every table, the main one (``track``, ``table``, ``csv``) first."""
        return (PaperTable(track=self.track, table=self.table, csv=self.csv), *self.tables)

    def record_id(self, table: PaperTable, method: str) -> UUID:
        """A paper row's id: uuid5 of its method name (of its track and method name in another
        table, so one model in two tables gives two rows)."""
        if table.track == self.track:
            return uuid5(self.namespace, method)
        return uuid5(self.namespace, f"{table.track}/{method}")


class Input(_Model):
    """The board's "what the model saw" field (``uses_frames`` in a record) and its choices."""

    label: Text = "Input"
    choices: dict[Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9+_-]*$",
                                                   max_length=64)],
                  Text] = Field(min_length=1)


class Benchmark(_Model):
    """A benchmark folder: identity, links, repos, tracks, and where its prose lives."""

    id: Ident
    title: Text
    description: Annotated[str, StringConstraints(min_length=1, max_length=500)]
    contact_email: Annotated[str, StringConstraints(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")]
    links: Links = Links()
    hub: Hub
    input: Input
    tracks: tuple[AnyTrack, ...] = Field(min_length=1, strict=False)
    paper: Paper | None = None
    #: Records written before records named their benchmark (schema 1) belong to this track.
    unnamed_records_track: Ident | None = None
    folder: Path = Field(exclude=True, strict=False)

    def any_track(self, track_id: str | None = None) -> AnyTrack:
        """The track of that id, of any kind (default: the first); SpecError names the known
        ones."""
        if track_id is None:
            return self.tracks[0]
        for track in self.tracks:
            if track.id == track_id:
                return track
        known = ", ".join(t.id for t in self.tracks)
        raise SpecError(f"{self.id} has no track {track_id!r}; its tracks are: {known}")

    def track(self, track_id: str | None = None) -> MultipleChoiceTrack:
        """The multiple-choice track of that id (default: the first of them), for code that
        serves only that kind; SpecError if there is none, or the id names another kind."""
        choices = [t for t in self.tracks if isinstance(t, MultipleChoiceTrack)]
        if track_id is None and choices:
            return choices[0]
        found = self.any_track(track_id)
        if isinstance(found, MultipleChoiceTrack):
            return found
        named = ", ".join(t.id for t in choices) or "none"
        raise SpecError(f"{self.id}/{found.id} is a {found.kind} track; this needs a "
                        f"multiple-choice track ({self.id}'s: {named})")

    @property
    def about_path(self) -> Path:
        return self.folder / "about.md"

    @property
    def citation_path(self) -> Path:
        return self.folder / "citation.bib"

    @property
    def demo_dir(self) -> Path:
        return self.folder / DEMO_FOLDER

    def demo_key(self, track: AnyTrack) -> Path:
        return self.demo_dir / track.key.name

    def demo_public(self, track: AnyTrack) -> Path:
        return self.demo_dir / track.public.name

    @property
    def demo_board(self) -> Path:
        return self.demo_dir / DEMO_BOARD


# --- checks a field cannot make on its own -----------------------------------------------------


def _track_problems(track: Track, where: str) -> list[str]:
    problems = []
    groupings = Counter(g.id for g in track.groupings)
    keys = Counter(track.metric_keys)
    for key, n in keys.items():
        if n > 1:
            problems.append(f"{where}: the metric key {key!r} is declared {n} times")
    for name, n in groupings.items():
        if n > 1:
            problems.append(f"{where}.groupings: the grouping id {name!r} is declared {n} times")
    for i, grouping in enumerate(track.groupings):
        values = Counter(g.value for g in grouping.groups)
        for value, n in values.items():
            if n > 1:
                problems.append(f"{where}.groupings[{i}].groups: the value {value!r} appears "
                                f"{n} times")
        total = sum(g.size for g in grouping.groups)
        if total != track.total:
            problems.append(
                f"{where}.groupings[{i}] ({grouping.id}): its groups have {total} rows in all, "
                f"but groupings[0] ({track.groupings[0].id}) has {track.total}; every grouping "
                "covers every row")
    group_keys = {g.key for g in track.groups}
    names = group_keys | set(groupings)
    for i, aggregate in enumerate(track.aggregates):
        unknown = [k for k in aggregate.of if k not in names]
        if unknown:
            problems.append(
                f"{where}.aggregates[{i}].of: {', '.join(map(repr, unknown))} is neither a group "
                "key nor a grouping id of this track")
    if track.out_of_option is not None and track.out_of_option.rows >= track.total:
        problems.append(f"{where}.out_of_option.rows: expected fewer than the {track.total} "
                        f"rows of the track, got {track.out_of_option.rows}")
    known = set(track.metric_keys)
    for i, view in enumerate(track.views):
        unknown = [k for k in view.metrics if k not in known]
        if unknown:
            problems.append(f"{where}.views[{i}].metrics: unknown metric "
                            f"{', '.join(map(repr, unknown))}; known: "
                            f"{', '.join(track.metric_keys)}")
    unknown_chart = [k for k in track.chart if k not in known]
    if unknown_chart:
        problems.append(f"{where}.chart: unknown metric {', '.join(map(repr, unknown_chart))}")
    opts = track.options
    if len(set(opts.letters)) != len(opts.letters):
        problems.append(f"{where}.options.letters: expected distinct letters, got "
                        f"{opts.letters!r}")
    if opts.min > opts.max or opts.max > len(opts.letters):
        problems.append(f"{where}.options: expected 1 <= min <= max <= {len(opts.letters)} "
                        f"(the letters), got min {opts.min}, max {opts.max}")
    return problems


def _decision_problems(track: DecisionTrack, where: str) -> list[str]:
    # The kind's metrics are its scorer's: decision.py is imported when a spec has the kind
    # (it imports this module, which is loaded by then).
    from evaluator import decision

    problems = []
    for name in ("key", "public"):
        data: DataFile = getattr(track, name)
        if data.format == "csv":
            problems.append(f"{where}.{name}.format: expected 'json' or 'jsonl' (a decision "
                            f"track's files are JSON), got 'csv'")
    groups = track.scenarios.groups
    for field in ("value", "key"):
        for value, n in Counter(getattr(g, field) for g in groups).items():
            if n > 1:
                problems.append(f"{where}.scenarios.groups: the {field} {value!r} appears "
                                f"{n} times")
    values = [g.value for g in groups]
    if track.silent_scenario not in values:
        problems.append(f"{where}.silent_scenario: expected one of the values of its "
                        f"scenarios.groups ({', '.join(values)}), got {track.silent_scenario!r}")
    elif len(values) < 2:
        problems.append(f"{where}.scenarios.groups: expected a group that needs assistance "
                        f"besides {track.silent_scenario!r}")
    own = Counter(m.key for m in track.metrics)
    for key, n in own.items():
        if n > 1:
            problems.append(f"{where}.metrics: the metric key {key!r} is declared {n} times")
    unknown = [k for k in own if k not in decision.METRICS]
    missing = [k for k in decision.METRICS if k not in own]
    if unknown or missing:
        found = ([f"missing {', '.join(missing)}"] if missing else []) + (
            [f"unknown {', '.join(unknown)}"] if unknown else [])
        problems.append(f"{where}.metrics: expected each metric of a decision track once "
                        f"({', '.join(decision.METRICS)}); found {'; '.join(found)}")
    for i, metric in enumerate(track.metrics):
        kind = decision.METRICS.get(metric.key)
        if kind is not None and metric.display not in decision.DISPLAYS[kind]:
            allowed = " or ".join(repr(d) for d in decision.DISPLAYS[kind])
            noun = {"proportion": "a proportion", "seconds": "a time in seconds",
                    "count": "a count"}[kind]
            problems.append(f"{where}.metrics[{i}].display: {metric.key} is {noun}, shown as "
                            f"{allowed}; got {metric.display!r}")
        if metric.by_scenario != (metric.key == decision.BY_SCENARIO):
            want, have = ("false", "true") if metric.by_scenario else ("true", "false")
            problems.append(f"{where}.metrics[{i}].by_scenario: expected {want}, got {have} "
                            f"(the metric shown per scenario is {decision.BY_SCENARIO})")
    ranked = {m.key: m for m in track.metrics}.get(track.ranking)
    if ranked is None or ranked.better != "higher":
        best = ", ".join(m.key for m in track.metrics if m.better == "higher")
        problems.append(f"{where}.ranking: expected one of this track's metrics where higher is "
                        f"better ({best}), got {track.ranking!r}")
    for i, metric in enumerate(track.paper_metrics):
        if not metric.key.startswith(PAPER_PREFIX):
            problems.append(f"{where}.paper_metrics[{i}].key: expected a key starting with "
                            f"{PAPER_PREFIX!r} (a paper-only metric), got {metric.key!r}")
        if metric.by_scenario:
            problems.append(f"{where}.paper_metrics[{i}].by_scenario: expected false (a paper "
                            f"metric lists each scenario's column itself, e.g. "
                            f"{metric.key}/<scenario key>), got true")
    every = Counter([*track.metric_keys, *track.paper_metric_keys])
    for key, n in every.items():
        if n > 1 and own.get(key, 0) <= 1:
            problems.append(f"{where}: the metric key {key!r} is declared {n} times")
    labels = Counter(track.labels[k] for k in every)
    for label, n in labels.items():
        if n > 1:
            problems.append(f"{where}: the label {label!r} is given to {n} metrics; each "
                            "column of the board needs its own")
    if track.paper_ranking_key is not None and track.paper_ranking_key not in \
            track.paper_metric_keys:
        problems.append(f"{where}.paper_ranking: expected one of the paper metrics "
                        f"({', '.join(track.paper_metric_keys) or 'none declared'}), got "
                        f"{track.paper_ranking_key!r}")
    known = set(every)
    for i, view in enumerate(track.views):
        bad = [k for k in view.metrics if k not in known]
        if bad:
            problems.append(f"{where}.views[{i}].metrics: unknown metric "
                            f"{', '.join(map(repr, bad))}; known: {', '.join(every)}")
    bad_chart = [k for k in track.chart if k not in known]
    if bad_chart:
        problems.append(f"{where}.chart: unknown metric {', '.join(map(repr, bad_chart))}")
    elif len({track.display[k] for k in track.chart}) > 1:
        problems.append(f"{where}.chart: expected metrics of one display (one axis), got "
                        + ", ".join(f"{k} ({track.display[k]})" for k in track.chart))
    return problems


def _benchmark_problems(bench: Benchmark) -> list[str]:
    problems = []
    ids = Counter(t.id for t in bench.tracks)
    for name, n in ids.items():
        if n > 1:
            problems.append(f"tracks: the track id {name!r} is declared {n} times")
    for i, track in enumerate(bench.tracks):
        if isinstance(track, DecisionTrack):
            problems.extend(_decision_problems(track, f"tracks[{i}]"))
        else:
            problems.extend(_track_problems(track, f"tracks[{i}]"))
    known = sorted(ids)
    if bench.paper is not None and bench.paper.track not in known:
        problems.append(f"paper.track: expected one of {', '.join(known)}, got "
                        f"{bench.paper.track!r}")
    if bench.paper is not None:
        for i, table in enumerate(bench.paper.tables):
            if table.track not in known:
                problems.append(f"paper.tables[{i}].track: expected one of "
                                f"{', '.join(known)}, got {table.track!r}")
        tabled = Counter(t.track for t in bench.paper.all_tables)
        for name, n in tabled.items():
            if n > 1:
                problems.append(f"paper: {n} tables give the rows of the track {name!r}; "
                                "give each track one table")
    if bench.unnamed_records_track is not None and bench.unnamed_records_track not in known:
        problems.append(f"unnamed_records_track: expected one of {', '.join(known)}, got "
                        f"{bench.unnamed_records_track!r}")
    return problems


def _location(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part == "[key]":
            out += " (the key)"
        elif part in ("constrained-str", "function-before", "function-after") or (
                part.startswith("kind=")):
            continue  # pydantic's constraint branch names and track-kind tags, not TOML keys
        elif not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            out += f'."{part}"' if out else f'"{part}"'
        else:
            out += f".{part}" if out else part
    return out or "(top level)"


def _describe(err: Any) -> str:
    kind, found = err["type"], err.get("input")
    expected = {
        "int_type": "an integer", "string_type": "a string", "bool_type": "true or false",
        "greater_than": "a positive integer", "greater_than_equal": "an integer >= 0",
        "missing": "this field", "extra_forbidden": "no such field",
        "literal_error": str(err["msg"]).removeprefix("Input should be "),
        "string_pattern_mismatch": "a string matching "
        + str(err.get("ctx", {}).get("pattern", "its pattern")),
        "date_from_datetime_parsing": "a date such as 2026-05-11",
        "date_type": "a date such as 2026-05-11",
        "uuid_parsing": "a uuid", "uuid_type": "a uuid",
        "too_short": "at least one entry",
    }.get(kind)
    if kind == "missing":
        return "missing; expected this field"
    if kind == "too_short":
        return "expected at least one entry, got none"
    if kind == "extra_forbidden":
        return "unknown field; remove it or check its spelling"
    if kind in ("int_type", "greater_than") and isinstance(found, int) and not isinstance(
            found, bool):
        expected = "a positive integer"
    if kind == "literal_error" and err["loc"][-2:-1] == ("kind=multiple_choice",) and \
            err["loc"][-1] == "kind":
        # Checked as a multiple-choice track because it did not say decision.
        return (f"expected {expected}, got {_quote(found)} (checked as a multiple-choice track; "
                "the other kind is 'decision')")
    if expected is None:
        return str(err["msg"]).removeprefix("Value error, ")
    shown = found if not isinstance(found, (dict, list)) else type(found).__name__
    return f"expected {expected}, got {_quote(shown)}"


def _quote(value: object) -> str:
    if isinstance(value, str):
        text = value if len(value) <= 60 else value[:57] + "..."
        return f'"{text}"'
    return repr(value)


def parse_benchmark(document: Mapping[str, Any], folder: Path) -> Benchmark:
    """Validate a decoded benchmark.toml; SpecError lists every problem with its TOML path."""
    try:
        bench = Benchmark.model_validate({**document, "folder": folder})
    except ValidationError as exc:
        errors = exc.errors()
        # A list whose item failed also reports "too short"; the item's own error says it all.
        errors = [e for e in errors if e["type"] != "too_short" or not any(
            o["loc"][:len(e["loc"])] == e["loc"] and o is not e for o in errors)]
        lines = [f"{_location(e['loc'])}: {_describe(e)}" for e in errors]
        raise SpecError(_report(folder, lines)) from None
    problems = _benchmark_problems(bench)
    if problems:
        raise SpecError(_report(folder, problems))
    return bench


def _report(folder: Path, problems: list[str]) -> str:
    where = folder / SPEC_FILENAME
    if len(problems) == 1:
        return f"{where}: {problems[0]}"
    return f"{where} has {len(problems)} problems:\n" + "\n".join(f"- {p}" for p in problems)


def benchmark_folder(name: str) -> Path:
    """An id under benchmarks/, or the path of a benchmark folder."""
    if re.fullmatch(r"[a-z][a-z0-9_-]*", name) and (BENCHMARKS_DIR / name).is_dir():
        return BENCHMARKS_DIR / name
    path = Path(name).expanduser()
    if path.is_dir():
        return path
    known = ", ".join(sorted(p.parent.name for p in BENCHMARKS_DIR.glob(f"*/{SPEC_FILENAME}")))
    raise SpecError(f"no benchmark {name!r}: give an id under benchmarks/ ({known}) or the path "
                    f"of a folder holding a {SPEC_FILENAME}")


def load_benchmark(name: str) -> Benchmark:
    """Read and validate a benchmark folder's spec (its prose files must exist too)."""
    folder = benchmark_folder(name).resolve()
    path = folder / SPEC_FILENAME
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SpecError(f"{folder} holds no {SPEC_FILENAME}; a benchmark folder needs one") \
            from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"cannot read {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{path} is not valid TOML: {exc}") from None
    bench = parse_benchmark(document, folder)
    missing = [p.name for p in (bench.about_path, bench.citation_path) if not p.is_file()]
    if missing:
        raise SpecError(f"{folder} lacks {' and '.join(missing)}: a benchmark folder holds its "
                        "About text and citation beside benchmark.toml")
    return bench
