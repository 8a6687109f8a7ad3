"""What a decision release needs beyond a valid key: public rows that have ids, no answer left
in them (no scenario, assist type or time: the silent scenario alone says "stay silent"), and
the key's values in every field the two files share.

``maintainer.release`` runs these beside the checks every kind shares (ids, key versions).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evaluator.kinds.decision.key import DecisionKey, assist_types
from evaluator.messages import counted, first_few
from evaluator.public_files import row_problems, where
from spec import DecisionTrack
from spec.decision import ASSIST_TYPE, TIME


def shape_problems(track: DecisionTrack, records: Sequence[Any]) -> list[str]:
    """Rows of a decision public file that are not usable rows: not objects, or no id."""
    return row_problems(track.fields, records)


def leak_problems(track: DecisionTrack, records: Sequence[Any]) -> list[str]:
    """Answers left in a decision public file: the scenario, assist type or reviewed time."""
    rows = [(i, r) for i, r in enumerate(records) if isinstance(r, dict)]
    problems = []
    for name in (track.scenarios.field, ASSIST_TYPE, TIME):
        leaked = [where(track.fields, r, i) for i, r in rows if name in r]
        if leaked:
            problems.append(
                f"{counted(len(leaked), 'row', 'rows')} of the public file "
                f"{'carries' if len(leaked) == 1 else 'carry'} a {name} "
                f"({first_few(leaked)}); a public file must not contain answers (the "
                f"{track.silent_scenario} {track.scenarios.field} alone says whether "
                "to assist): drop the field"
            )
    return problems


def public_problems(track: DecisionTrack, records: Sequence[Any]) -> tuple[list[str], list[str]]:
    """What makes the public rows unusable on their own, and the answers left in them."""
    return shape_problems(track, records), leak_problems(track, records)


def agreement_problems(key: DecisionKey, public: Sequence[Mapping[str, Any]]) -> list[str]:
    """Where a decision key and its (usable) public rows differ, ids aside: any field they
    share."""
    ident = key.track.fields.id
    private_by_id = {e.id: e.record for e in key.episodes}
    public_by_id = {r[ident]: r for r in public}
    both = [i for i in private_by_id if i in public_by_id]
    shared = dict.fromkeys(n for i in both for n in public_by_id[i] if n in private_by_id[i])
    problems = []
    for name in shared:
        differ = [
            i
            for i in both
            if name in private_by_id[i]
            and name in public_by_id[i]
            and private_by_id[i][name] != public_by_id[i][name]
        ]
        if differ:
            problems.append(
                f"{counted(len(differ), 'episode', 'episodes')} whose {name} "
                f"{'differs' if len(differ) == 1 else 'differ'} ({first_few(differ)})"
            )
    return problems


def release_summary(key: DecisionKey) -> str:
    """What a consistent release holds, after its row count: episodes, scenarios, assist
    types."""
    track = key.track
    grouping = track.scenarios
    types = ", ".join(f"{t} {n}" for t, n in assist_types(key).items())
    return (
        f"{len(key)} episodes in {track.key.name} and {track.public.name}, the same ids in "
        f"both and no answers in the public file; {len(grouping.groups)} {grouping.field} "
        "groups ("
        + ", ".join(f"{g.value} {g.size}" for g in grouping.groups)
        + f"); {ASSIST_TYPE}: {types}"
    )


def release_warnings(key: DecisionKey) -> list[str]:
    """What a consistent release would still hide from its visitors: a decision metric turns on
    the episodes a file assists on or not (``scoring.withheld``), which the visitor chooses, never
    on a fixed group of the key; only a key of fewer episodes than ``min_rows`` has every
    metric withheld from every file."""
    track, n = key.track, len(key)
    if n >= track.min_rows:
        return []
    return [
        f"min_rows = {track.min_rows} is above the {n} episodes of {track.key.name}: a "
        "visitor's score never shows any metric; lower min_rows to "
        f"{n} (the track {track.id}'s, in benchmark.toml)"
    ]
