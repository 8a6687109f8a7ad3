"""The parts every kind of track is built of: names, files, groups, views, metrics, displays.

A track kind's model (``spec.multiple_choice``, ``spec.decision``, ``spec.short_answer``, on
their common base ``spec.common.CommonTrack``) is made of these; the benchmark
(``spec.benchmark``) holds its tracks. Every model is frozen and strict, and refuses
fields it does not know.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)

#: The board's info columns a view may list after its metrics (the app names them).
BoardColumn = Literal[
    "rank_range", "source", "team", "size", "date", "ci", "external", "input", "links", "note"
]

Key = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*$", max_length=64)]
#: The fields a value is made of, joined by "+" when there are several: ``fields.id`` (or
#: ``fields.options``) written as a list in the TOML is kept so (``composed``).
Composed = Annotated[
    str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*(\+[a-z][a-z0-9_]*)*$", max_length=300)
]
COMPOSED_JOIN = "+"
_KEY = re.compile(r"^[a-z][a-z0-9_]*$")
#: A metric key: a key, or two joined by "/" (``decision_accuracy/contradictory``).
MetricKey = Annotated[
    str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*(/[a-z][a-z0-9_]*)?$", max_length=129)
]
Ident = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_-]*$", max_length=64)]
Text = Annotated[str, StringConstraints(min_length=1, max_length=300)]
RepoId = Annotated[
    str,
    StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$"),
]
FileName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")]

#: How a metric is shown: a percent (0-100, its track's ``decimals``: one by default), a 0-1
#: ratio (three decimals, as papers print F1), seconds (two decimals) or a count of rows (whole).
Display = Literal["percent", "ratio", "seconds", "count"]
#: Which way a metric is better: higher, lower, or nearer zero (a signed error).
Better = Literal["higher", "lower", "zero"]
#: Decimals a value shows, by its metric's display: a percent's are its track's ``decimals``
#: (``TrackBase.digits``; this one when the spec gives none), the others' are these.
DECIMALS: Mapping[Display, int] = {"percent": 1, "ratio": 3, "seconds": 2, "count": 0}
#: What follows a number of each display: "45.2 %", "2.74 s".
_UNITS: Mapping[Display, str] = {"percent": " %", "ratio": "", "seconds": " s", "count": ""}
MAX_DECIMALS = 4  # the most a track's ``decimals`` may be
PAPER_PREFIX = "paper_"  # the key of every paper-only metric starts so
#: A track's ``min_rows`` unless it gives one: the fewest rows of the key a metric shown to a
#: visitor may turn on (``evaluator.disclosure``); a metric that turns on fewer is withheld from
#: what /score returns and shows, so one scored call tells no single row of the key.
MIN_ROWS = 20


def quote(value: object) -> str:
    """A value as a spec error quotes it: a string in double quotes (cut short), else its repr."""
    if isinstance(value, str):
        text = value if len(value) <= 60 else value[:57] + "..."
        return f'"{text}"'
    return repr(value)


def _positive_int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"expected a positive integer, got {quote(value)}")
    return value


Size = Annotated[int, BeforeValidator(_positive_int)]


def _decimals(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_DECIMALS:
        raise ValueError(f"expected an integer from 0 to {MAX_DECIMALS}, got {quote(value)}")
    return value


Decimals = Annotated[int, BeforeValidator(_decimals)]


class Model(BaseModel):
    """Every part of a spec: frozen, strict, and no field it does not know."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class Reference(Model):
    """A reference policy of a track, ``[[tracks.references]]``: rows read against, never
    ranked (a paper's chance row, a policy that gives one answer everywhere). One rule for
    every track: the board shows such a row apart, labelled with ``what`` and unranked; the
    charts draw it as a level; neither the board's count of entries nor Score's rank counts
    it. A row is one by its method name (``methods``), or by values of its metrics, every one
    equal (``metrics``, in a record's units: a constant policy's tell)."""

    what: Text  # what the policy does, as the board says it: "assists on every episode"
    methods: tuple[Text, ...] = Field(default=(), strict=False)
    metrics: dict[MetricKey, float] = Field(default_factory=dict, strict=False)

    @model_validator(mode="after")
    def _one_tell(self) -> Reference:
        if bool(self.methods) == bool(self.metrics):
            raise ValueError(
                "expected methods (the rows' method names) or metrics (values every such row "
                "carries), one of the two"
            )
        return self

    def tells(self, method: str, metrics: Mapping[str, float]) -> bool:
        """Whether a row of this method name and these metrics is this reference."""
        if self.methods:
            return method in self.methods
        return all(metrics.get(k) == v for k, v in self.metrics.items())


def reference_of(
    references: Sequence[Reference], method: str, metrics: Mapping[str, float]
) -> str | None:
    """What a row is when it is one of a track's ``references`` (None for an entry).

    >>> never = Reference(what="stays silent", metrics={"recall": 0.0})
    >>> guess = Reference(what="uniform guessing", methods=("Random",))
    >>> reference_of([never, guess], "Random", {"overall": 16.8})
    'uniform guessing'
    >>> reference_of([never, guess], "Model", {"recall": 0.0}), reference_of([], "Random", {})
    ('stays silent', None)
    """
    return next((r.what for r in references if r.tells(method, metrics)), None)


class TrackBase(Model):
    """What every kind of track shares: how its numbers are shown, and its reference policies.

    ``decimals`` is how many decimals a percent is shown with, wherever the Space rounds one
    (the board and its CSV, the card, the Score tab, what /score returns, the charts, the
    scripts' messages): a benchmark whose paper prints two (67.55) says ``decimals = 2``.
    Ratios, seconds and counts keep their own (``DECIMALS``), whatever it says. Records,
    /leaderboard and the JSON download keep every value at full precision. Every place that
    rounds asks the track (``digits``, ``number``, ``shown``, ``format_metric``,
    ``interval_text``, ``rounded``); nothing else knows a number of decimals.

    >>> track = TrackBase(decimals=2)
    >>> track.shown("percent", 67.549), track.shown("ratio", 0.81171), track.digits("percent")
    ('67.55 %', '0.812', 2)
    >>> TrackBase().interval_text("percent", 40.3006, 49.0), TrackBase().rounded("percent", -0.04)
    ('40.3–49.0', 0.0)
    """

    decimals: Decimals = DECIMALS["percent"]
    #: The reference policies: rows read against, never ranked (``Reference``).
    references: tuple[Reference, ...] = Field(default=(), strict=False)

    def reference_of(self, method: str, metrics: Mapping[str, float]) -> str | None:
        """What a row of this method name and these metrics is when it is one of the spec's
        reference policies, not an entry (None for an entry): one rule for every kind."""
        return reference_of(self.references, method, metrics)

    @property
    def display(self) -> Mapping[str, Display]:
        """Metric key -> how it is shown (each kind says)."""
        raise NotImplementedError

    def digits(self, display: Display) -> int:
        """Decimals a value of ``display`` shows: ``decimals`` for a percent."""
        return self.decimals if display == "percent" else DECIMALS[display]

    def number(self, display: Display, value: float | None) -> str:
        """A value as a table cell shows it, without its unit: "45.2"; "—" for no value."""
        return "—" if value is None else f"{value:.{self.digits(display)}f}"

    def shown(self, display: Display, value: float | None) -> str:
        """A value as the board shows it: "45.2 %", "0.812", "2.74 s", "412"; "—" for none.

        >>> TrackBase().shown("seconds", -2.5), TrackBase().shown("count", 412.0)
        ('-2.50 s', '412')
        """
        return "—" if value is None else self.number(display, value) + _UNITS[display]

    def format_metric(self, key: str, value: float | None) -> str:
        """The value of metric ``key`` as the board shows it (``shown`` in its display)."""
        return self.shown(self.display[key], value)

    def interval_text(self, display: Display, low: float, high: float) -> str:
        """An interval as the board writes it: "40.3–49.0"."""
        return f"{self.number(display, low)}–{self.number(display, high)}"

    def rounded(self, display: Display, value: float) -> float:
        """``value`` at the decimals it is shown with, as a number (-0.0 as 0.0)."""
        return float(self.number(display, value)) + 0.0


class DataFile(Model):
    """A file of a track: its name and how its rows are written."""

    name: FileName
    #: json: a list of objects or {"samples": [...]}; jsonl: one object a line; csv: a header
    #: row, with the options cell holding a JSON object.
    format: Literal["json", "jsonl", "csv"]


def composed(data: Any, name: str, *, least: int = 2) -> Any:
    """``data`` (a fields table as the TOML has it) with its list ``name`` (the fields a value
    is made of) kept as their names joined by "+" (``Composed``); ValueError, in the words of a
    spec error, for a list that is not ``least`` or more distinct field names.

    >>> composed({"id": ["video", "question"]}, "id")
    {'id': 'video+question'}
    """
    if not isinstance(data, dict) or not isinstance(data.get(name), list):
        return data
    parts = data[name]
    if (
        len(parts) < least
        or not all(isinstance(p, str) and _KEY.match(p) for p in parts)
        or len(set(parts)) != len(parts)
    ):
        raise ValueError(
            f"{name}: expected one field name, or a list of {least} or more distinct field names "
            f"(lower case, digits and _), got {parts!r}"
        )
    return {**data, name: COMPOSED_JOIN.join(parts)}


def parts_of(name: str) -> tuple[str, ...]:
    """The fields a composed name is made of; () for one field.

    >>> parts_of("video+question"), parts_of("example_id")
    (('video', 'question'), ())
    """
    return tuple(name.split(COMPOSED_JOIN)) if COMPOSED_JOIN in name else ()


def _id_part(value: object) -> bool:
    """Whether a composed id's part is usable: an integer (not a boolean), or a text that is
    not blank."""
    return type(value) is int or (isinstance(value, str) and bool(value.strip()))


class IdFields(Model):
    """What a row's and a submission entry's id is called, and what it is.

    ``id`` is one field, or a list of fields whose values (text, or integers written in
    decimal) are joined by ``id_join`` into a string id: a release whose questions are named by
    a video and a question number that repeats across videos. Such an id is kept under the
    name of its fields joined by "+" (``video+question``), in the rows as read and in a
    submission's entries that name the fields rather than the id.
    """

    id: Composed = "example_id"
    #: What joins the values of a composed id (``id`` a list): "v12" and 3 make "v12_3".
    id_join: Annotated[str, StringConstraints(max_length=8)] = "_"
    id_type: Literal["integer", "string"] = "integer"
    #: Names people use instead of ``id``; a submission using one is told to rename it.
    id_aliases: tuple[Key, ...] = Field(default=(), strict=False)
    #: A JSON file written as an object whose keys are field values, level by level from the
    #: top, down to a row or a list of rows: ``["example_id"]`` for ``{"<id>": {...}, ...}``,
    #: ``["video", "dimension"]`` for ``{"<video>": {"<dimension>": [{...}, ...]}}``. Each row
    #: takes the values of its path, and a row of a list its place there (from 0) as
    #: ``position``. The key, the public file and a submission written so are all read so.
    levels: tuple[Key, ...] = Field(default=(), strict=False, max_length=8)
    #: With ``levels``: the field a row of a list takes its place in it (0, 1, ...) as.
    position: Key = "position"

    @model_validator(mode="before")
    @classmethod
    def _compose_id(cls, data: Any) -> Any:
        """A list ``id`` is a composed, string id (``id_type`` "string" unless it says
        otherwise, which ``id_problems`` refuses)."""
        if isinstance(data, dict) and isinstance(data.get("id"), list):
            data = {"id_type": "string", **composed(data, "id")}
        return data

    @property
    def id_parts(self) -> tuple[str, ...]:
        """The fields a composed id is joined from, in order; () for an id of one field."""
        return parts_of(self.id)

    @property
    def id_names(self) -> tuple[str, ...]:
        """The fields an entry names its row by, as a message lists them: the id's parts, or
        the id (never the joined name the reading keeps a composed id under)."""
        return self.id_parts or (self.id,)

    def id_problems(self, where: str) -> list[str]:
        """A composed id declared as an integer, and levels that repeat a field, with their TOML
        path (``where``: the fields')."""
        problems = []
        if self.id_parts and self.id_type == "integer":
            problems.append(
                f'{where}.id_type: a composed id (id a list of fields) is a string: write "string" '
                "or drop id_type"
            )
        named = [*self.levels, self.position]
        if len(set(named)) != len(named):
            problems.append(
                f"{where}.levels: expected distinct fields, none of them the position "
                f"{self.position!r}, got {list(self.levels)}"
            )
        return problems

    def join_id(self, record: Mapping[str, Any]) -> str | None:
        """The composed id of a row or entry from its parts (each text that is not blank, or
        an integer); None when one is missing or not such a value.

        >>> IdFields(id=["video", "question"]).join_id({"video": "v1", "question": 3})
        'v1_3'
        """
        values = [record.get(part) for part in self.id_parts]
        if not all(map(_id_part, values)):
            return None
        return self.id_join.join(map(str, values))

    def absent_id(self, record: Mapping[str, Any]) -> str:
        """Why a row has no id, as "<field>: <problem>": its id field is missing, or, for a
        composed id, which of the fields it joins is missing or blank.

        >>> IdFields(id=["video", "question"]).absent_id({"video": "v1"})
        'question: Field required (a text or an integer: the id joins video and question)'
        """
        if not self.id_parts:
            return f"{self.id}: Field required"
        bad = [p for p in self.id_parts if not _id_part(record.get(p))]
        joined = " and ".join(self.id_parts)
        return f"{'/'.join(bad)}: Field required (a text or an integer: the id joins {joined})"

    def is_id(self, value: object) -> bool:
        """Whether ``value`` is an id of this type: an integer (not a boolean), or a string
        that is not blank.

        >>> IdFields().is_id(17), IdFields().is_id(True), IdFields().is_id("17")
        (True, False, False)
        """
        if self.id_type == "integer":
            return type(value) is int
        return isinstance(value, str) and bool(value.strip())

    @property
    def id_kind(self) -> str:
        """An id as a message names its type: "integer" or "non-empty string"."""
        return "integer" if self.id_type == "integer" else "non-empty string"


def _group_value(value: object) -> str | tuple[str, ...]:
    """A group's value: a text, or a list of one or more distinct texts (a tuple)."""

    def text(v: object) -> bool:
        return isinstance(v, str) and 1 <= len(v) <= 300

    if text(value):
        return value  # type: ignore[return-value]
    if (
        isinstance(value, (list, tuple))
        and value
        and all(map(text, value))
        and len(set(value)) == len(value)
    ):
        return tuple(value)
    raise ValueError(
        "expected a value of the field as the data spells it, or a list of distinct values "
        f"(one group covering them all), got {quote(value)}"
    )


class Hints(Model):
    """What Score's hints may say of this benchmark, a track's ``[tracks.hints]`` (of any kind):
    who writes a ``{"results": [...]}`` file (its own evaluation scripts, if they do), and what
    a field a submission carries instead of the id or the prediction (a letter, a decision) is,
    when it is not the same thing under another name."""

    #: Who writes ``{"results": [...]}`` files (a hint for one says it is theirs); none: no one.
    results: Text | None = None
    #: A field name -> what to tell an entry that carries it instead of the id or prediction
    #: ("sample_id is not the id: take example_id from the public file"); it replaces the
    #: "rename it" hint an alias would get.
    fields: dict[Key, Text] = Field(default_factory=dict, strict=False)


class _GroupParts(Model):
    """What every group is besides its value: a metric of its own."""

    key: Key  # the metric key
    label: Text  # the board's column label
    name: Text | None = None  # the long name (score table); default: the value
    size: Size  # rows in the released benchmark


class Group(_GroupParts):
    """One value of a grouping field: a metric of its own."""

    value: Text  # as spelled in the data

    @property
    def values(self) -> tuple[str, ...]:
        """The field's values the group covers: its one value."""
        return (self.value,)


class ValuesGroup(_GroupParts):
    """One value of a grouping field, or several that count as one group (a benchmark's own
    evaluation merging two codes of its type column into one category): a metric of its own."""

    #: as spelled in the data: one value, or a list of them
    value: Annotated[str | tuple[str, ...], BeforeValidator(_group_value)]

    @property
    def values(self) -> tuple[str, ...]:
        """The field's values the group covers, in the spec's order."""
        return self.value if isinstance(self.value, tuple) else (self.value,)

    @property
    def spelled(self) -> str:
        """Its values as a message names them: "T1" or "T1 + T2"."""
        return " + ".join(self.values)


class _GroupingParts(Model):
    id: Key
    field: Key
    title: Text


class Grouping(_GroupingParts):
    """Rows grouped by one field of the key; each value of the field is a group."""

    groups: tuple[Group, ...] = Field(min_length=1, strict=False)


class ValuesGrouping(_GroupingParts):
    """Rows grouped by one field of the key; each group covers one value of the field or
    several (``ValuesGroup``)."""

    groups: tuple[ValuesGroup, ...] = Field(min_length=1, strict=False)


class View(Model):
    """A column group of the board: the ranking metric, then these metrics and columns."""

    title: Text
    metrics: tuple[MetricKey, ...] = Field(default=(), strict=False)
    columns: tuple[BoardColumn, ...] = Field(default=(), strict=False)


class Metric(Model):
    """How one metric is shown: its column label, long name, display, and which way is
    better."""

    key: MetricKey
    label: Text  # the board's column label
    name: Text | None = None  # the long name (score table); default: the label
    display: Display
    better: Better
    #: Followed by the same metric over each scenario, ``<key>/<scenario key>``, labelled and
    #: named by the scenario's group.
    by_scenario: bool = False


def board_problems(
    where: str,
    views: Sequence[View],
    chart: Sequence[str],
    known: Sequence[str],
    references: Sequence[Reference] = (),
) -> list[str]:
    """The metrics a track's views, chart and references name that it does not have
    (``known``: every metric a row of the track may carry, in display order), each with its
    TOML path."""
    problems = []
    for i, reference in enumerate(references):
        unknown = [k for k in reference.metrics if k not in known]
        if unknown:
            problems.append(
                f"{where}.references[{i}].metrics: unknown metric "
                f"{', '.join(map(repr, unknown))}; known: {', '.join(known)}"
            )
    for i, view in enumerate(views):
        unknown = [k for k in view.metrics if k not in known]
        if unknown:
            problems.append(
                f"{where}.views[{i}].metrics: unknown metric {', '.join(map(repr, unknown))}; "
                f"known: {', '.join(known)}"
            )
    unknown_chart = [k for k in chart if k not in known]
    if unknown_chart:
        problems.append(f"{where}.chart: unknown metric {', '.join(map(repr, unknown_chart))}")
    return problems
