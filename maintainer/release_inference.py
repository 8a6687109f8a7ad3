"""What a spec says of a multiple-choice release, inferred from its rows.

``infer`` finds the id field or fields (or an object's levels), the question, the options (one
field holding a JSON object or list, one field per option, or lines at the end of the
question), the answer and how it is written (a letter, a 0- or 1-based index, the option's text,
or its letter and text: "B. right"), the letters and option counts, and a grouping field with
its groups and sizes, each from the column names people use and the values, unless an
``Overrides`` names it. A release with no field to group by is a track of Overall alone. What
it cannot tell is a ``ScaffoldError`` naming the override to give.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pydantic

import spec
from errors import ScaffoldError
from maintainer.release_layout import (
    LETTER_TEXT,
    LETTERS,
    POSITION,
    Release,
    cell,
    keyed_id_name,
    name_levels,
    option_texts,
)
from spec.base import MIN_ROWS

#: Field names a release commonly gives each part, tried in order when no override names it.
ID_NAMES = ("example_id", "id", "qid", "question_id", "uid", "sample_id")
QUESTION_NAMES = ("question", "prompt", "query", "q")
OPTION_NAMES = ("options", "choices", "candidates")
ANSWER_NAMES = ("correct_answer", "answer", "label", "gold", "truth", "answer_idx", "target")
#: Names a release gives its category column: preferred over another column of a few values.
CATEGORY_NAMES = (
    "category", "type", "question_type", "task", "task_type", "dimension",
    "domain", "subject", "skill", "scenario", "level", "kind", "class",
)  # fmt: skip
#: What a submission's entries call their answer unless the release's own evaluation says.
DEFAULT_PREDICTION: str = spec.Fields.model_fields["prediction"].default
#: How many decimals a percent is shown with unless the release's own table says.
DEFAULT_DECIMALS: int = spec.TrackBase.model_fields["decimals"].default
#: Names people give a prediction field instead of the one a benchmark reads: a submission
#: using one is told to rename it (the spec's ``prediction_aliases``).
PREDICTION_NAMES = ("prediction", "pred", "predicted_answer", "response", "model_answer", "answer")
#: A grouping field has between these many distinct values (a type, a category, a split).
GROUP_VALUES = (2, 12)
#: The fewest questions a group may have: fewer would let one scored file tell too much of the
#: key (a visitor is shown no metric over fewer than ``min_rows`` rows, which the scaffold
#: then sets no lower than this).
SMALLEST_GROUP = MIN_ROWS // 2
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Overrides:
    """What the command line says instead of what would be inferred."""

    id_fields: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    answer: str | None = None
    answer_format: str | None = None
    group: str | None = None
    no_group: bool = False
    prediction: str | None = None
    #: (label, the group field's values it covers): several values counted as one group.
    merges: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: (label, the groups it is over, "micro" or "macro"): metrics over several groups.
    aggregates: tuple[tuple[str, tuple[str, ...], str], ...] = ()
    prediction_forms: tuple[str, ...] = ()
    decimals: int = DEFAULT_DECIMALS  # a percent's, as the authors' table prints it
    #: A regular expression over the id whose named group is the grouping field (a
    #: short-answer release's ``fields.id_pattern``).
    group_from_id: str | None = None


NO_OVERRIDES = Overrides()


@dataclass(frozen=True)
class Inferred:
    """What the spec will say of the release, and why (``notes``, written as comments)."""

    id_fields: tuple[str, ...]
    id_type: str
    question: str
    options: tuple[str, ...]  # one field, one field per option, or (question,): in its text
    answer: str
    answer_format: str
    letters: str
    min_options: int
    max_options: int
    group_field: str | None  # None: no grouping, Overall alone
    groups: dict[str, int]  # a group's label (a value, or a merge's) -> rows
    prediction: str  # what a submission's entries call their answer
    notes: dict[str, str] = field(default_factory=dict)
    #: A group's label -> the field's values it covers (one, or a merge's).
    group_values: dict[str, tuple[str, ...]] = field(default_factory=dict)
    aggregates: tuple[tuple[str, tuple[str, ...], str], ...] = ()
    levels: tuple[str, ...] = ()  # a JSON object's levels, from the top
    prediction_forms: tuple[str, ...] = ()
    size: int = 0  # the release's rows

    @property
    def options_in_question(self) -> bool:
        """Whether the options are written at the end of the question's text."""
        return self.options == (self.question,)

    def said(self) -> str:
        """What was inferred, in a line."""
        joined = ", joined" if len(self.id_fields) > 1 else ""
        options = (
            f"at the end of {self.question}"
            if self.options_in_question
            else ", ".join(self.options)
        )
        grouped = (
            f"grouped by {self.group_field}: "
            + ", ".join(f"{v} {n}" for v, n in self.groups.items())
            if self.group_field is not None
            else f"not grouped ({self.notes.get('group', 'none')})"
        )
        return (
            f"id {' and '.join(self.id_fields)} ({self.id_type}{joined}), question "
            f"{self.question}, options {options}, answer {self.answer} ({self.answer_format}), "
            f"letters {self.letters} ({self.min_options}-{self.max_options} options), {grouped}; "
            f"a submission's answer is its entries' {self.prediction!r}"
        )


def _first(names: Sequence[str], columns: Sequence[str]) -> str | None:
    lowered = {c.lower(): c for c in columns}
    return next((lowered[n] for n in names if n in lowered), None)


def _option_columns(columns: Sequence[str]) -> tuple[str, ...]:
    """Columns numbered or lettered in a run (``a0`` ... ``a4``, ``option_a`` ... ``option_d``)."""
    runs: dict[str, list[tuple[int, str]]] = {}
    for column in columns:
        # a0 ... a4, option1 ...: digits after any prefix; option_a ...: a letter after "_"
        match = re.fullmatch(r"(.*?)([0-9]+)", column) or re.fullmatch(r"(.*_)([A-Za-z])", column)
        if match and match.group(1):
            tail = match.group(2)
            order = int(tail) if tail.isdigit() else LETTERS.index(tail.upper())
            runs.setdefault(match.group(1), []).append((order, column))
    best: tuple[str, ...] = ()
    for members in runs.values():
        members.sort()
        orders = [o for o, _ in members]
        consecutive = orders == list(range(orders[0], orders[0] + len(orders)))
        if len(members) >= 2 and consecutive and len(members) > len(best):
            best = tuple(c for _, c in members)
    return best


def _id_fields(
    rows: Sequence[Mapping[str, Any]], short: Sequence[str], named: str | None
) -> tuple[str, ...]:
    """The id a release's rows have: the id-named column if it is unique on every row, else
    the first short column that is, else the first two short columns, in the release's order,
    that are unique together (a video and a question number repeating across videos); ()."""

    def unique(*fields: str) -> bool:
        return len({tuple(str(r.get(f)) for f in fields) for r in rows}) == len(rows)

    if named is not None and named in short and unique(named):
        return (named,)
    alone = next((c for c in short if unique(c)), None)
    if alone is not None:
        return (alone,)
    pairs = ((a, b) for i, a in enumerate(short) for b in short[i + 1 :])
    return next((pair for pair in pairs if unique(*pair)), ())


def _is_int(value: Any) -> bool:
    return (type(value) is int) or (
        isinstance(value, str) and bool(re.fullmatch(r"\d{1,9}", value))
    )


def _answer_format(
    rows: Sequence[Mapping[str, Any]], answer: str, texts: Sequence[Sequence[str]]
) -> str:
    """How the key writes its answers: letters, 0- or 1-based indices, the options' texts, or
    a letter, a dot and the option's text."""
    values = [row.get(answer) for row in rows]
    if all(isinstance(v, str) and len(v) == 1 and v in LETTERS for v in values):
        return "letter"
    if all(_is_int(v) for v in values):
        indices = [int(v) for v in values]  # type: ignore[arg-type]
        if 0 in indices:
            return "index"
        if all(1 <= i <= len(t) for i, t in zip(indices, texts, strict=True)):
            return "index1"
        return "index"
    if all(isinstance(v, str) and v in t for v, t in zip(values, texts, strict=True)):
        return "text"
    if all(_letter_text(v, t) for v, t in zip(values, texts, strict=True)):
        return "letter_text"
    raise ScaffoldError(
        f"cannot tell how {answer!r} writes its answers (a letter, an index, an option's "
        'text, or "B. <its text>"): give --answer-format letter, index, index1, text or '
        "letter_text"
    )


def _letter_text(value: Any, texts: Sequence[str]) -> bool:
    """Whether an answer is a letter, a dot and that option's text: "B. right"."""
    match = LETTER_TEXT.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        return False
    n = LETTERS.index(match.group(1))
    return n < len(texts) and texts[n].strip() == match.group(2).strip()


def _options(
    key: Release, overrides: Overrides, taken: set[str]
) -> tuple[tuple[str, ...], str | None]:
    """The options' field(s), and the question's field when they are written inside it."""
    columns, rows = key.columns, key.rows
    if overrides.options:
        return overrides.options, None

    def every_row(options: tuple[str, ...], question: str = "") -> bool:
        return all(len(option_texts(r, options, question)) >= 2 for r in rows)

    named = _first(OPTION_NAMES, columns)
    if named is not None and every_row((named,)):
        return (named,), None
    for column in columns:  # a field holding a JSON list or object of texts: "events": [...]
        if column not in taken and every_row((column,)) and _holds_options(rows, column):
            return (column,), None
    run = _option_columns(columns)
    if run:
        return run, None
    question = _first(QUESTION_NAMES, columns)
    candidates = [question] if question is not None else _texts(rows, columns, taken)
    for column in candidates:
        if every_row((column,), column):
            return (column,), column
    raise ScaffoldError(
        f"cannot find {key.name}'s options: give --options FIELD (one field holding a JSON "
        "object or list), --options a0,a1,a2,a3 (one field per option), or --options QUESTION "
        'when the question field ends with them, one a line ("A. left")'
    )


def _holds_options(rows: Sequence[Mapping[str, Any]], column: str) -> bool:
    for row in rows:
        value = cell(row.get(column))
        if not isinstance(value, (list, dict)):
            return False
    return True


def _texts(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], taken: set[str]) -> list[str]:
    """The columns of text on every row, the longest texts first."""
    texts = [c for c in columns if c not in taken and all(isinstance(r.get(c), str) for r in rows)]
    return sorted(texts, key=lambda c: -sum(len(str(r.get(c))) for r in rows))


def _id(key: Release, overrides: Overrides, notes: dict[str, str]) -> tuple[str, ...]:
    columns, rows = key.columns, key.rows
    if key.levels:
        return (*key.levels, POSITION) if key.listed else key.levels
    if overrides.id_fields:
        return overrides.id_fields
    # An id is short and has no spaces: a question's text is unique too, but no id.
    short = [c for c in columns if all(_short(r.get(c)) for r in rows)]
    found = _id_fields(rows, short, _first(ID_NAMES, columns))
    if not found:
        raise ScaffoldError(
            f"no column of {key.name} is unique on every row, nor two together: give the "
            f"fields that name a question together, e.g. --id-fields "
            f"{','.join(short[:2] or columns[:2])}"
        )
    together = "+".join(map(repr, found))
    notes["id"] = f"inferred: {together} {'is' if len(found) == 1 else 'are'} unique on every row"
    return found


def _short(value: Any) -> bool:
    """Whether a value could be (part of) an id: short, with no spaces."""
    return bool(re.fullmatch(r"\S{1,64}", str(value)))


def _check_unique(key: Release, id_fields: tuple[str, ...]) -> None:
    rows = key.rows
    ids = [tuple(str(r.get(c)) for c in id_fields) for r in rows]
    if len(set(ids)) != len(ids):
        twice = Counter(ids).most_common(1)[0][0]
        short = [
            c for c in key.columns if all(re.fullmatch(r"\S{1,64}", str(r.get(c))) for r in rows)
        ]
        more = [*id_fields, *(c for c in short if c not in id_fields)][: len(id_fields) + 1]
        raise ScaffoldError(
            f"{'+'.join(id_fields)} repeats on several rows (e.g. {'/'.join(twice)}): give "
            f"the fields that name a question together, e.g. --id-fields "
            f"{','.join(more)}"
        )


def with_levels(key: Release, overrides: Overrides = NO_OVERRIDES) -> Release:
    """The release with an object's levels named and its rows read by them: the given
    ``--id-fields``, or for an object keyed by id, ``id`` (or another name its rows do not
    use); the release as it is when it has no levels or they are named."""
    if not key.levels or key.document is None:
        return key
    names = overrides.id_fields
    if len(key.levels) == 1 and not key.listed and not names:
        rows = list(key.document.values())
        names = (keyed_id_name(names, [k for r in rows for k in r]),)
    try:
        return name_levels(key, names)
    except pydantic.ValidationError:
        raise ScaffoldError(
            f"--id-fields {','.join(names)}: name each level in lower case letters, digits and "
            "_ (a field name)"
        ) from None


def infer(key: Release, overrides: Overrides = NO_OVERRIDES) -> Inferred:
    """What a spec says of ``key``, from its columns and values and the ``overrides``."""
    key = with_levels(key, overrides)
    columns, rows, notes = key.columns, key.rows, {}
    if not rows:
        raise ScaffoldError(f"{key.name} has no rows")
    merged = [v for _, values in overrides.merges for v in values]
    given = (*overrides.id_fields, *overrides.options, overrides.answer, overrides.group)
    missing = [c for c in given if c is not None and c not in columns]
    if missing:
        raise ScaffoldError(
            f"{key.name} has no column {', '.join(map(repr, missing))}; its columns are "
            f"{', '.join(columns)}"
        )
    if key.levels:
        notes["id"] = f"the key is an object by {', '.join(key.levels)}" + (
            f"; a row's place in its list is its {POSITION}" if key.listed else ""
        )
    id_fields = _id(key, overrides, notes)
    _check_unique(key, id_fields)
    single = len(id_fields) == 1
    id_type = "integer" if single and all(_is_int(r.get(id_fields[0])) for r in rows) else "string"
    options, in_question = _options(key, overrides, set(id_fields))
    if not all(option_texts(r, options, in_question or "") for r in rows):
        raise ScaffoldError(
            f"the options in {', '.join(options)} are empty on some rows of {key.name}: give "
            "--options FIELD"
        )
    if not overrides.options:
        where = (
            f"inferred: at the end of {in_question!r}, one a line"
            if in_question
            else f"inferred: {' ... '.join(dict.fromkeys((options[0], options[-1])))}"
        )
        notes["options"] = where
    answer = overrides.answer or _first(ANSWER_NAMES, columns)
    if answer is None:
        raise ScaffoldError(f"cannot find {key.name}'s answer column: give --answer FIELD")
    texts = [option_texts(r, options, in_question or "") for r in rows]
    answer_format = overrides.answer_format or _answer_format(rows, answer, texts)
    if not overrides.answer_format:
        notes["answer_format"] = f"inferred from the values of {answer!r}"
    taken = {*id_fields, *options, answer}
    question = in_question or _first(QUESTION_NAMES, columns)
    if question is None or (question in taken and not in_question):
        found = _texts(rows, columns, taken)
        if not found:
            raise ScaffoldError(f"{key.name} has no column of question texts")
        question = found[0]
        notes["question"] = f"inferred: {question!r} holds the longest texts"
    counts = [len(t) for t in texts]
    group, groups, values = _grouping(key, overrides, {*taken, question}, notes)
    unknown = [v for v in merged if v not in {x for vs in values.values() for x in vs}]
    if unknown:
        raise ScaffoldError(
            f"--merge names {', '.join(map(repr, unknown))}, not a value of {group!r}"
            if group
            else "--merge needs a grouping: give --group FIELD"
        )
    return Inferred(
        id_fields=id_fields,
        id_type=id_type,
        question=question,
        options=options,
        answer=answer,
        answer_format=answer_format,
        letters=LETTERS[: max(counts)],
        min_options=min(counts),
        max_options=max(counts),
        group_field=group,
        groups=groups,
        prediction=overrides.prediction or DEFAULT_PREDICTION,
        notes=notes,
        group_values=values,
        aggregates=_aggregates(overrides, values),
        levels=key.levels,
        prediction_forms=overrides.prediction_forms,
        size=len(rows),
    )


def _grouping(
    key: Release, overrides: Overrides, taken: set[str], notes: dict[str, str]
) -> tuple[str | None, dict[str, int], dict[str, tuple[str, ...]]]:
    """The grouping field (None: Overall alone), each group's size and values, by label."""
    rows = key.rows
    if overrides.no_group:
        notes["group"] = "none, as --no-group says: the track shows Overall alone"
        return None, {}, {}
    group = overrides.group
    if group is None:
        group, why = _group_field(rows, key.columns, taken)
        if group is None:
            notes["group"] = f"none: {why}; the track shows Overall alone (--group FIELD to say)"
            return None, {}, {}
        notes["group"] = f"inferred: {group!r} has a few values, each on {SMALLEST_GROUP}+ rows"
    found = Counter(str(r.get(group)) for r in rows)
    if any(v in ("", "None") for v in found):
        raise ScaffoldError(f"{group!r} is empty on some rows: every row needs a group")
    values: dict[str, tuple[str, ...]] = {v: (v,) for v in sorted(found)}
    for label, merged in overrides.merges:
        for v in merged:
            values.pop(v, None)
        values[label] = tuple(merged)
    sizes = {label: sum(found[v] for v in vs) for label, vs in values.items()}
    if len(sizes) < 2:
        raise ScaffoldError(
            f"{group!r} has one value on every row ({', '.join(found)}): a group would repeat "
            "Overall; leave out --group and the track shows Overall alone"
        )
    small = sorted((n, label) for label, n in sizes.items() if n < SMALLEST_GROUP)
    if small:
        shown = ", ".join(f"{label} {n}" for n, label in small[:5])
        raise ScaffoldError(
            f"{group!r} makes {len(small)} of its {len(sizes)} groups smaller than "
            f"{SMALLEST_GROUP} questions ({shown}{', ...' if len(small) > 5 else ''}): a visitor "
            "would never be shown them; count values together with --merge LABEL=V1,V2, group "
            "by another field, or leave out --group and the track shows Overall alone"
        )
    return group, dict(sorted(sizes.items())), dict(sorted(values.items()))


def _group_field(
    rows: Sequence[Mapping[str, Any]], columns: Sequence[str], taken: set[str]
) -> tuple[str | None, str]:
    """The column to group by: a few values of text (not numbers: a width is metadata), each
    on enough rows, one named as a category first; or None and why none is."""
    low, high = GROUP_VALUES
    candidates: list[tuple[bool, int, str]] = []
    seen: list[str] = []
    for n, column in enumerate(columns):
        if column in taken or not all(isinstance(r.get(column), str) for r in rows):
            continue
        counts = Counter(r[column] for r in rows)
        if "" in counts:
            continue
        if not low <= len(counts) <= high:
            seen.append(f"{column!r} has {len(counts)} value{'s' * (len(counts) != 1)}")
            continue
        if min(counts.values()) < SMALLEST_GROUP:
            seen.append(f"{column!r} has a value on fewer than {SMALLEST_GROUP} rows")
            continue
        named = column.lower() in CATEGORY_NAMES
        if not named and all(_NUMBER.fullmatch(v.strip()) for v in counts):
            seen.append(f"{column!r} holds numbers (metadata, not a category)")
            continue
        candidates.append((not named, n, column))
    if candidates:
        return min(candidates)[2], ""
    why = f"no column has {low} to {high} values on {SMALLEST_GROUP}+ rows each"
    return None, f"{why} ({'; '.join(seen[:4])})" if seen else why


def _aggregates(
    overrides: Overrides, values: Mapping[str, tuple[str, ...]]
) -> tuple[tuple[str, tuple[str, ...], str], ...]:
    """The aggregates the command line asks for, each over group labels (``all``: every
    group); ScaffoldError for a name that is no group."""
    out = []
    for label, members, how in overrides.aggregates:
        named = tuple(values) if members == ("all",) else members
        by_value = {v: g for g, vs in values.items() for v in vs}
        groups = tuple(dict.fromkeys(m if m in values else by_value.get(m, "") for m in named))
        if "" in groups or len(groups) < 2:
            raise ScaffoldError(
                f"--aggregate {label}={','.join(members)}: expected two or more groups (or "
                f"all); the groups are {', '.join(values) or 'none: give --group FIELD'}"
            )
        out.append((label, groups, how))
    return tuple(out)
