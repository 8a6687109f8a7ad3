"""What a multiple-choice release needs beyond a valid key: public rows that are rows (an id,
a question, options, every group), no answer left in them, and the key's rows described.

``maintainer.release`` runs these beside the checks every kind shares (ids, key versions).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import compress
from typing import Any

from evaluator.accuracy import hidden_groups
from evaluator.kinds.multiple_choice.key import AnswerKey
from evaluator.kinds.multiple_choice.layouts import options_of, options_problem, question_text
from evaluator.kinds.multiple_choice.printed import misprinted
from evaluator.messages import counted, first_few
from evaluator.public_files import has, row_problems, where
from spec import MultipleChoiceTrack

#: What ``agreement_problems`` compares besides the groups, named apart from any field.
QUESTION, OPTIONS = " question", " options"


def shape_problems(track: MultipleChoiceTrack, records: Sequence[Any]) -> list[str]:
    """Rows of the public file that are not usable rows: no id, question, options or group."""
    f = track.fields
    problems = row_problems(f, records)
    if not records:
        return problems
    rows = [(i, r) for i, r in enumerate(records) if isinstance(r, dict)]
    for name in (f.question, *(g.field for g in track.groupings)):
        bad = [where(f, r, i) for i, r in rows if not isinstance(r.get(name), str)]
        if bad:
            problems.append(
                f"{counted(len(bad), 'row', 'rows')} of the public file "
                f"{has(len(bad))} no text {name} ({first_few(bad)})"
            )
    bad_options = [where(f, r, i) for i, r in rows if options_problem(track, r) is not None]
    if bad_options:
        written = (
            f"option fields {', '.join(f.option_parts)} (texts, an empty one ending them)"
            if f.option_parts
            else f'options at the end of its {f.question} ("A. <text>" a line)'
            if f.options_in_question
            else f"{f.options} object of letters to texts (or list of texts)"
        )
        problems.append(
            f"{counted(len(bad_options), 'row', 'rows')} of the public file "
            f"{has(len(bad_options))} no {written} ({first_few(bad_options)})"
        )
    return problems


def leak_problems(track: MultipleChoiceTrack, records: Sequence[Any]) -> list[str]:
    """Answers left in the public rows: an answer field, or the out-of-option flag."""
    f = track.fields
    rows = [(i, r) for i, r in enumerate(records) if isinstance(r, dict)]
    problems = []
    leaked = [where(f, r, i) for i, r in rows if f.answer in r]
    if leaked:
        problems.append(
            f"{counted(len(leaked), 'row', 'rows')} of the public file "
            f"{'carries' if len(leaked) == 1 else 'carry'} a {f.answer} "
            f"({first_few(leaked)}); a public file must not contain answers"
        )
    flag = track.out_of_option
    if flag is not None:
        flagged = [where(f, r, i) for i, r in rows if flag.field in r]
        if flagged:
            problems.append(
                f"{counted(len(flagged), 'row', 'rows')} of the public file "
                f"{'carries' if len(flagged) == 1 else 'carry'} the {flag.field} field "
                f"({first_few(flagged)}); a public file must not say which rows are out of "
                "option (that is answer information): drop the field"
            )
    return problems


def printed_problems(track: MultipleChoiceTrack, records: Sequence[Any]) -> list[str]:
    """Rows that print their options' letters in the texts ("A. ...": ``printed``) but print
    another letter than an option's own: a model shown them answers the letter it reads."""
    f = track.fields
    rows = [(i, r) for i, r in enumerate(records) if isinstance(r, dict)]
    wrong = []
    options = 0
    for i, row in rows:
        found = misprinted(options_of(track, row) or {})
        if found:
            options += len(found)
            wrong.append((where(f, row, i), found))
    if not wrong:
        return []
    of_all = sum(len(options_of(track, r) or {}) for _, r in rows)
    ident, found = wrong[0]
    example = ", ".join(f"{letter} prints {shown}" for letter, shown in found)
    return [
        f"{counted(len(wrong), 'row', 'rows')} of the public file "
        f"{'prints' if len(wrong) == 1 else 'print'} option letters that are not their own "
        f"({options} of {of_all} options, e.g. {ident}: {example}): a model answers the "
        "letter it reads. Print each option's own letter (scripts/reshuffle_options.py "
        "rewrites them as it rotates)"
    ]


def public_problems(
    track: MultipleChoiceTrack, records: Sequence[Any]
) -> tuple[list[str], list[str]]:
    """What makes the public rows unusable on their own; and what is wrong in rows that are
    usable: answers left in them, option letters printed wrong (``printed_problems``)."""
    return shape_problems(track, records), leak_problems(track, records) + printed_problems(
        track, records
    )


def agreement_problems(key: AnswerKey, public: Sequence[Mapping[str, Any]]) -> list[str]:
    """Where the key and the (usable) public rows describe different rows, ids aside: question
    texts, options, and the field of every grouping."""
    track = key.track
    f = track.fields

    def described(row: Mapping[str, Any]) -> dict[str, Any]:
        # The question and its options as read, whatever layout the release writes them in.
        return {
            **{g.field: row.get(g.field) for g in track.groupings},
            QUESTION: question_text(track, row),
            OPTIONS: options_of(track, row),
        }

    private_by_id = {q.id: described(q.record) for q in key.questions}
    public_by_id = {r[f.id]: described(r) for r in public}
    compared = [
        (QUESTION, "question texts"),
        (OPTIONS, "options"),
        *((g.field, g.title.lower()) for g in track.groupings),
    ]
    both = [i for i in private_by_id if i in public_by_id]
    problems = []
    for name, label in compared:
        differ = [i for i in both if private_by_id[i].get(name) != public_by_id[i].get(name)]
        if differ:
            problems.append(
                f"{counted(len(differ), 'question', 'questions')} whose {label} "
                f"differ ({first_few(differ)})"
            )
    return problems


def release_summary(key: AnswerKey) -> str:
    """What a consistent release holds, after its row count: "... and groups in both; 4
    query_type groups (...); no out-of-option rows"."""
    track = key.track
    groupings = (
        "; ".join(
            f"{len(g.groups)} {g.field} groups ("
            + ", ".join(f"{x.spelled} {x.size}" for x in g.groups)
            + ")"
            for g in track.groupings
        )
        or f"no groups (Overall alone, over {track.total} rows as the spec declares)"
    )
    flag = track.out_of_option
    flagged = (
        f"{key.flagged} rows flagged {flag.field} = {flag.value}, as the spec declares"
        if flag is not None
        else "no out-of-option rows"
    )
    return (
        f"{len(key)} rows in {track.key.name} and {track.public.name}, the same ids, "
        f"questions, options and groups in both; {groupings}; {flagged}"
    )


def release_warnings(key: AnswerKey) -> list[str]:
    """What a consistent release would still hide from its visitors: a group with fewer
    questions a file can answer (out-of-option rows aside) than the track's ``min_rows``
    (``evaluator.accuracy.release_warnings``, on the rows of a file that answers every
    question)."""
    track, table = key.track, key.columns
    answerable = [correct is not None for correct in table.corrects]
    told: dict[str, int] = {}
    for grouping, of in zip(track.groupings, table.groups, strict=True):
        open_ = Counter(compress(of, answerable))
        told.update({g.key: open_[i] for i, g in enumerate(grouping.groups)})
    return hidden_groups(track, told, sum(answerable))
