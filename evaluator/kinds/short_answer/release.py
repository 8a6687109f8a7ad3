"""What a short-answer release needs beyond a valid key: public rows that are rows (an id, a
declared type, every group), no answer left in them, and the key's rows described (the same
types, question texts, options and groups).

``maintainer.release`` runs these beside the checks every kind shares (ids, key versions).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evaluator.accuracy import hidden_groups
from evaluator.kinds.short_answer.key import (
    ShortAnswerKey,
    options_of,
    question_problems,
    with_derived,
)
from evaluator.messages import counted, first_few
from evaluator.public_files import row_problems, where
from spec import ShortAnswerTrack

#: What ``agreement_problems`` compares besides the groups and the type, named apart from any
#: field.
OPTIONS = " options"


def public_problems(track: ShortAnswerTrack, records: Sequence[Any]) -> tuple[list[str], list[str]]:
    """What makes the public rows unusable on their own, and the answers left in them."""
    f = track.fields
    shape = row_problems(f, records)
    rows = [dict(r) for r in records if isinstance(r, dict)]
    unmatched = with_derived(track, rows)
    if unmatched:
        shape.append(
            f"{counted(len(unmatched), 'id', 'ids')} of the public file not matching "
            f"fields.id_pattern ({first_few(unmatched)})"
        )
    bad = [
        where(f, r, i)
        for i, r in enumerate(rows)
        if question_problems(track, r, i, key=False) and f.is_id(r.get(f.id))
    ]
    if bad:
        wanted = [
            *((track.types.field,) if track.types else ()),
            *(g.field for g in track.groupings),
            *((f.question,) if f.question else ()),
        ]
        shape.append(
            f"{counted(len(bad), 'row', 'rows')} of the public file "
            f"{'has' if len(bad) == 1 else 'have'} no usable {', '.join(wanted) or 'fields'} "
            f"({first_few(bad)})"
        )
    leaked = [where(f, r, i) for i, r in enumerate(rows) if f.answer in r]
    leaks = (
        [
            f"{counted(len(leaked), 'row', 'rows')} of the public file "
            f"{'carries' if len(leaked) == 1 else 'carry'} a {f.answer} ({first_few(leaked)}); "
            "a public file must not contain answers"
        ]
        if leaked
        else []
    )
    return shape, leaks


def agreement_problems(key: ShortAnswerKey, public: Sequence[Mapping[str, Any]]) -> list[str]:
    """Where the key and the (usable) public rows describe different rows, ids aside: each
    question's type, question text, options, and the field of every grouping."""
    track = key.track
    f = track.fields
    compared = [
        *(((track.types.field, "types"),) if track.types else ()),
        *(((f.question, "question texts"),) if f.question else ()),
        *(((OPTIONS, "options"),) if f.options else ()),
        *((g.field, g.title.lower()) for g in track.groupings),
    ]

    def described(row: Mapping[str, Any]) -> dict[str, Any]:
        return {**{name: row.get(name) for name, _ in compared}, OPTIONS: options_of(track, row)}

    rows = [dict(r) for r in public]
    with_derived(track, rows)
    private_by_id = {q.id: described(q.record) for q in key.questions}
    public_by_id = {r[f.id]: described(r) for r in rows}
    both = [i for i in private_by_id if i in public_by_id]
    problems = []
    for name, label in compared:
        differ = [i for i in both if private_by_id[i][name] != public_by_id[i][name]]
        if differ:
            problems.append(
                f"{counted(len(differ), 'question', 'questions')} whose {label} differ "
                f"({first_few(differ)})"
            )
    return problems


def release_summary(key: ShortAnswerKey) -> str:
    """What a consistent release holds, after its row count: its questions of each type, its
    groups, and the rule sets that read them."""
    track = key.track
    choice = sum(q.choice for q in key.questions)
    groupings = (
        "; ".join(
            f"{len(g.groups)} {g.field} groups ("
            + ", ".join(f"{x.spelled} {x.size}" for x in g.groups)
            + ")"
            for g in track.groupings
        )
        or f"no groups (Overall alone, over {track.total} rows as the spec declares)"
    )
    rules: dict[str, int] = {}
    for q in key.questions:
        rules[q.rule] = rules.get(q.rule, 0) + 1
    read = ", ".join(f"{n} by the rule set {name!r}" for name, n in rules.items())
    return (
        f"{len(key)} rows in {track.key.name} and {track.public.name}, the same ids, types and "
        f"groups in both; {choice} multiple-choice and {len(key) - choice} open questions, "
        f"{read}; {groupings}"
    )


def release_warnings(key: ShortAnswerKey) -> list[str]:
    """What a consistent release would still hide from its visitors: a group with fewer
    questions than the track's ``min_rows`` (``evaluator.accuracy.hidden_groups``; every
    question of a short-answer key can be answered right)."""
    track = key.track
    told = {
        group.key: sum(key.items[i].groups[n] == g for i in key.ids)
        for n, grouping in enumerate(track.groupings)
        for g, group in enumerate(grouping.groups)
    }
    return hidden_groups(track, told, len(key))
