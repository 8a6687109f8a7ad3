"""A short-answer release, as its authors publish it: what a spec says of it, inferred from its
rows, and the folder's files (``maintainer.scaffold`` writes and checks them).

A release is read as short-answer when it has no options the multiple-choice inference finds
and some answers are not letters: texts, numbers, or lists of accepted texts. ``infer_short``
finds the answer field, the field that tells a multiple-choice question (all its answers
letters) from an open one, the letters (from A to the last any answer uses), the id and its
type, and the groups: a field of the rows, or one a named group of ``--group-from-id`` reads
from each id (``"validation_(?P<subject>.+)_\\d+"``). The spec it writes declares the rule sets
every short-answer track has (``spec.PRESETS``) as data, to read and edit.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import spec
from errors import ScaffoldError
from maintainer.release_inference import (
    ANSWER_NAMES,
    DEFAULT_PREDICTION,
    PREDICTION_NAMES,
    Overrides,
    _aggregates,
    _check_unique,
    _first,
    _grouping,
    _id,
    _is_int,
)
from maintainer.release_layout import LETTERS, Release, encode
from maintainer.spec_toml import (
    grouping_toml,
    metric_key,
    one,
    spec_head,
    toml_value,
    track_head,
)

#: Names a release gives its answer field, tried before the multiple-choice ones.
OPEN_ANSWER_NAMES = ("ground_truth", "gt", "answers", "gold_answer", *ANSWER_NAMES)
#: Names a release gives the field that says what a question is, preferred over another.
TYPE_NAMES = ("question_type", "type", "answer_type", "format", "kind", "task_type")
SEED = 19  # the demo's answers and the sample's responses: the same folder every run


@dataclass(frozen=True)
class ShortInferred:
    """What the spec will say of a short-answer release, and why (``notes``)."""

    id_fields: tuple[str, ...]
    id_type: str
    answer: str
    type_field: str | None  # None: every question is open
    choice: tuple[str, ...]  # the type field's values of a multiple-choice question
    open: tuple[str, ...]
    letters: str
    group_field: str | None
    groups: dict[str, int]
    prediction: str
    id_pattern: str | None = None
    notes: dict[str, str] = field(default_factory=dict)
    group_values: dict[str, tuple[str, ...]] = field(default_factory=dict)
    aggregates: tuple[tuple[str, tuple[str, ...], str], ...] = ()
    levels: tuple[str, ...] = ()
    size: int = 0

    def said(self) -> str:
        """What was inferred, in a line."""
        kinds = (
            f"{self.type_field} tells multiple-choice ({', '.join(self.choice)}, letters "
            f"{self.letters}) from open ({', '.join(self.open)})"
            if self.type_field
            else "every question open"
        )
        grouped = (
            f"grouped by {self.group_field}"
            + (" (from the id)" if self.id_pattern else "")
            + ": "
            + ", ".join(f"{v} {n}" for v, n in self.groups.items())
            if self.group_field
            else f"not grouped ({self.notes.get('group', 'none')})"
        )
        return (
            f"short answers: id {' and '.join(self.id_fields)} ({self.id_type}), answer "
            f"{self.answer}, {kinds}, {grouped}; a submission's answer is its entries' "
            f"{self.prediction!r} (or the value of an object keyed by id)"
        )


def _letter(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 1 and value in LETTERS


def _open(value: Any) -> bool:
    """Whether an answer is an open one: a list, a number, or a text that is not a letter."""
    if isinstance(value, list):
        return bool(value)
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float)) or (isinstance(value, str) and not _letter(value))


def _type_field(
    rows: Sequence[Mapping[str, Any]], answer: str, columns: Sequence[str], taken: set[str]
) -> tuple[str | None, tuple[str, ...], tuple[str, ...]]:
    """The field whose values tell a multiple-choice question (every answer of the value a
    letter) from an open one, named as a type first; (None, (), ()) when none does."""
    named = [c for c in columns if c.lower() in TYPE_NAMES]
    others = [c for c in columns if c not in named]
    for column in [*named, *others]:
        if column in taken or not all(isinstance(r.get(column), str) for r in rows):
            continue
        values = Counter(r[column] for r in rows)
        if not 2 <= len(values) <= 4:
            continue
        choice = tuple(v for v in values if all(_letter(r[answer]) for r in rows if r[column] == v))
        open_ = tuple(v for v in values if v not in choice)
        if choice and open_:
            return column, choice, open_
    return None, (), ()


def with_id_fields(key: Release, pattern: str, ident: str) -> Release:
    """The release's rows each given the fields a named group of ``pattern`` reads from their
    id (the field ``ident``; ``--group-from-id``); ScaffoldError for a pattern that is none, or
    an id it does not match."""
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise ScaffoldError(
            f"--group-from-id {pattern!r} is not a regular expression ({exc})"
        ) from None
    if not compiled.groupindex:
        raise ScaffoldError(
            f"--group-from-id {pattern!r} has no named group: name the part of the id that is "
            'the group, e.g. "validation_(?P<subject>.+)_\\d+"'
        )
    taken = [n for n in compiled.groupindex if n in key.columns]
    if taken:
        raise ScaffoldError(
            f"--group-from-id {pattern!r}: the rows have a field {taken[0]!r} already; name the "
            "group after what it holds, e.g. (?P<subject>...)"
        )
    rows = []
    for row in key.rows:
        match = compiled.fullmatch(str(row.get(ident)))
        if match is None or None in match.groupdict().values():
            raise ScaffoldError(
                f"--group-from-id {pattern!r} does not match the id {row.get(ident)!r}; the "
                "pattern must match every id whole"
            )
        rows.append({**row, **match.groupdict()})
    return replace(key, rows=rows, columns=[*key.columns, *compiled.groupindex])


def infer_short(key: Release, overrides: Overrides) -> ShortInferred | None:
    """What a spec says of a short-answer release; None when ``key`` is not one (no answer
    field, or every answer a letter)."""
    answer = overrides.answer or _first(OPEN_ANSWER_NAMES, key.columns)
    if answer is None or not any(_open(r.get(answer)) for r in key.rows):
        return None
    notes: dict[str, str] = {}
    if key.levels:
        notes["id"] = f"the key is an object keyed by {', '.join(key.levels)}"
    id_fields = _id(key, overrides, notes)
    _check_unique(key, id_fields)
    rows = key.rows
    single = len(id_fields) == 1
    id_type = "integer" if single and all(_is_int(r.get(id_fields[0])) for r in rows) else "string"
    taken = {*id_fields, answer}
    type_field, choice, open_ = _type_field(rows, answer, key.columns, taken)
    if type_field is not None:
        notes["types"] = (
            f"inferred: the answers of {type_field} = {', '.join(choice)} are all letters"
        )
    else:
        notes["types"] = "none: no field tells letter answers from the others, every one is open"
    used = [r[answer] for r in rows if type_field and r[type_field] in choice]
    last = max((LETTERS.index(a) for a in used), default=1)
    pattern = overrides.group_from_id
    if pattern and not single:
        raise ScaffoldError(
            f"--group-from-id reads one id field; this key's id is {'+'.join(id_fields)}"
        )
    grouped = with_id_fields(key, pattern, id_fields[0]) if pattern else key
    group_overrides = overrides
    if pattern and overrides.group is None and not overrides.no_group:
        group_overrides = replace(overrides, group=next(iter(re.compile(pattern).groupindex)))
    if type_field is not None:
        taken.add(type_field)
    group, groups, values = _grouping(grouped, group_overrides, taken, notes)
    if pattern and group is not None:
        notes["group"] = f"{group!r}, read from each id by --group-from-id {pattern!r}"
    return ShortInferred(
        id_fields=id_fields,
        id_type=id_type,
        answer=answer,
        type_field=type_field,
        choice=choice,
        open=open_,
        letters=LETTERS[: max(last + 1, 2)],
        group_field=group,
        groups=groups,
        prediction=overrides.prediction or DEFAULT_PREDICTION,
        id_pattern=pattern if pattern and group in re.compile(pattern).groupindex else None,
        notes=notes,
        group_values=values,
        aggregates=_aggregates(overrides, values),
        levels=key.levels,
        size=len(rows),
    )


def _rule_sets() -> str:
    """The preset rule sets written out, to read and edit."""
    out = []
    for name, rule in spec.PRESETS.items():
        body = [
            f"{k} = {toml_value(v)}"
            for k, v in rule.model_dump().items()
            if v != spec.RuleSet.model_fields[k].default and v is not None
        ]
        body = body or ["# every setting at its default: the response is exactly the answer"]
        out.append(f"[tracks.rules.sets.{name}]\n" + "\n".join(body))
    return "\n\n".join(out)


def spec_text(
    bench_id: str, found: ShortInferred, key: Release, public_name: str, decimals: int
) -> str:
    """A commented ``benchmark.toml`` of what was inferred."""
    taken = {"overall"}
    keys = {g: metric_key(g, taken) for g in found.groups}
    keys.update({label: metric_key(label, taken) for label, _, _ in found.aggregates})
    notes = "\n".join(f"# - {part}: {why}" for part, why in found.notes.items())
    smallest = min(found.groups.values(), default=found.size)
    overall = "" if found.groups else f"overall = {{ size = {found.size} }}\n"
    fields = [f"id = {toml_value(one(found.id_fields))}", f"id_type = {toml_value(found.id_type)}"]
    if found.levels:
        fields.append(f"levels = {toml_value(found.levels)}  # the JSON files are keyed by it")
    fields.append(f"answer = {toml_value(found.answer)}  # a letter, a text, or a list of texts")
    fields.append(f"prediction = {toml_value(found.prediction)}  # an entry's answer field")
    aliases = [n for n in PREDICTION_NAMES if n not in (found.prediction, *found.id_fields)]
    fields.append(f"prediction_aliases = {toml_value(aliases)}")
    if found.id_pattern:
        fields.append("# Fields read from each id: each named group of this regular expression.")
        fields.append(f"id_pattern = {toml_value(found.id_pattern)}")
    types = (
        f"""
# What a question is: its answer a letter (choice) or a text or list of texts (open).
[tracks.types]
field = {toml_value(found.type_field)}
choice = {toml_value(found.choice)}
open = {toml_value(found.open)}
"""
        if found.type_field
        else ""
    )
    description = f"{found.size} questions, multiple-choice and open."
    return f"""{spec_head(bench_id, key.name, found.size, notes, description)}
{track_head(bench_id, "short_answer", smallest, decimals, (key.name, key.format), public_name)}
# The letters of a multiple-choice question (from A to the last letter any answer uses: widen
# them if its options run further).
options = {{ letters = {toml_value(found.letters)} }}
{overall}
[tracks.fields]
{chr(10).join(fields)}
{types}
# How a response is read and matched (the About tab says it, from these): multiple-choice
# questions by the set "choice" names, open ones by "open"; "by" may pick a set by a field's
# value (rules.field). The sets below are the presets, written out to read and edit.
[tracks.rules]
choice = "exact"
open = "open"

{_rule_sets()}
{grouping_toml(found, keys)}"""


def demo_rows(key: Release, found: ShortInferred, seed: int = SEED) -> list[dict[str, Any]]:
    """The key's rows with every answer drawn anew: a letter of a multiple-choice question, a
    number for an open one (a list of two where the release lists several)."""
    rng = random.Random(seed)
    out = []
    for row in key.rows:
        raw = row.get(found.answer)
        choice = bool(found.type_field) and row.get(found.type_field or "") in found.choice
        if choice:
            answer: Any = found.letters[rng.randrange(len(found.letters))]
        elif isinstance(raw, list):
            answer = [str(rng.randrange(2, 500)), f"[SYNTHETIC DEMO] {rng.randrange(2, 500)}"]
        else:
            answer = str(rng.randrange(2, 500))
        out.append({**row, found.answer: answer})
    return out


def sample_submission(rows: Sequence[Mapping[str, Any]], found: ShortInferred) -> bytes:
    """An object keyed by id, as the authors' evaluation writes one: a letter for a
    multiple-choice question, a sentence ending in a number for an open one."""
    rng = random.Random(SEED + 1)
    out = {}
    for row in rows:
        ident = "_".join(str(row.get(name)) for name in found.id_fields)
        choice = bool(found.type_field) and row.get(found.type_field or "") in found.choice
        guess = found.letters[rng.randrange(len(found.letters))]
        out[ident] = guess if choice else f"The answer is {rng.randrange(2, 500)}."
    return (json.dumps(out, indent=1, ensure_ascii=False) + "\n").encode()


def about(bench_id: str, found: ShortInferred) -> str:
    """A stub about.md: what to write, the groups, and the submission format."""
    if found.group_field is None:
        grouped = f"Its {found.size} questions are scored together: Overall alone."
    else:
        groups = ", ".join(f"{v} ({n})" for v, n in found.groups.items())
        grouped = f"Its {found.size} questions are grouped by {found.group_field}: {groups}."
    return (
        f"## What {bench_id} measures\n\nDescribe the benchmark here.\n\n{grouped}\n\n"
        "## Submission format\n\n"
        'A JSON object keyed by id, each value the model\'s response (`{"<id>": "B", ...}`), '
        f"or a JSON list (or JSON Lines) with one entry per question: its id and "
        f"`{found.prediction}`, the response; null abstains. A multiple-choice question's "
        "response is its letter; an open question's is any text. How each is read and matched "
        "is written below, from the spec.\n"
    )


def public_rows(rows: Sequence[Mapping[str, Any]], found: ShortInferred) -> list[dict[str, Any]]:
    """The rows without their answers (and without the fields the scaffold read from ids)."""
    derived = set(re.compile(found.id_pattern).groupindex) if found.id_pattern else set()
    return [{k: v for k, v in r.items() if k != found.answer and k not in derived} for r in rows]


def files(
    bench_id: str,
    key: Release,
    found: ShortInferred,
    public_name: str,
    decimals: int,
    *,
    release: bool,
) -> dict[str, bytes]:
    """The folder's files, by their path inside it (``release``: the public file of the real
    key too, under ``release/``)."""
    fmt = Path(public_name).suffix.lstrip(".").lower()
    fmt = fmt if fmt in ("csv", "jsonl") else "json"
    demo = demo_rows(key, found)
    out = {
        spec.SPEC_FILENAME: spec_text(bench_id, found, key, public_name, decimals).encode(),
        "about.md": about(bench_id, found).encode(),
        "citation.bib": (
            f"@misc{{{bench_id.replace('-', '_')},\n  title = {{{bench_id}}},\n"
            "  note = {Replace with the paper's BibTeX}\n}\n"
        ).encode(),
        f"demo/{key.name}": encode(key, demo),
        f"demo/{public_name}": encode(key, public_rows(demo, found), fmt),
        "demo/sample_submission.json": sample_submission(demo, found),
    }
    if release:
        out[f"release/{public_name}"] = encode(key, public_rows(key.rows, found), fmt)
    return out
