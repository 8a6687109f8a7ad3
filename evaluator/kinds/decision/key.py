"""A decision key and the episodes of a public file: read, checked, looked up."""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from errors import AnswerKeyError, DataFileError, PublicFileError
from evaluator.files import read_rows
from evaluator.messages import MAX_EXAMPLES, agree, examples, nth, preview
from spec import DecisionTrack
from spec.decision import ASSIST_TYPE, ASSIST_TYPES, NONE, TIME


@dataclass(frozen=True, slots=True)
class Episode:
    """One row of a validated decision key."""

    id: int | str
    scenario: str  # the value of the scenario field
    assist_type: str  # safety, non_safety or none
    time_s: float | None  # the reviewed earliest useful time; None when no assistance is due
    record: Mapping[str, Any]  # the row as the file has it

    @property
    def needs_assistance(self) -> bool:
        return self.assist_type != NONE


@dataclass(frozen=True)
class EpisodeSet:
    """The episodes of a decision track as its public file has them, without answers: their
    ids. What ``validate`` checks a submission against, and all it needs."""

    track: DecisionTrack
    ids: Set[int | str]  # in the file's order (a dict's keys)
    key_version: str | None

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class DecisionKey:
    """A validated decision key of one track, with its episodes by id and its sha256."""

    track: DecisionTrack
    episodes: tuple[Episode, ...]
    key_version: str | None
    sha256: str
    by_id: Mapping[int | str, Episode]

    #: Rows flagged out of option: a decision key has none.
    flagged = 0

    def __len__(self) -> int:
        return len(self.episodes)

    @cached_property
    def ids(self) -> tuple[int | str, ...]:
        """Its episodes' ids, in the key's order."""
        return tuple(e.id for e in self.episodes)

    @cached_property
    def asked(self) -> EpisodeSet:
        """Its episodes without their answers, as the public file released with it has them."""
        return EpisodeSet(self.track, self.by_id.keys(), self.key_version)

    @cached_property
    def cells(self) -> Cells:
        """Its episodes sorted into cells of one scenario and assist type, for scoring."""
        kinds = {(e.scenario, e.assist_type): 0 for e in self.episodes}
        index = {kind: i for i, kind in enumerate(kinds)}
        of = tuple(index[(e.scenario, e.assist_type)] for e in self.episodes)
        return Cells(
            kinds=tuple(kinds),
            of=np.array(of, np.intp),
            sizes=tuple(Counter(of)[i] for i in range(len(kinds))),
            timed_needs=np.array(
                [e.needs_assistance and e.time_s is not None for e in self.episodes], np.bool_
            ),
            times=np.array([e.time_s for e in self.episodes], np.float64),
        )


@dataclass(frozen=True, eq=False)
class Cells:
    """A key's episodes by cell (one scenario and one assist type), each column in key order
    (numpy's): what scoring counts over all episodes at once."""

    kinds: tuple[tuple[str, str], ...]  # each cell's (scenario, assist type)
    of: np.ndarray  # each episode's cell (intp)
    sizes: tuple[int, ...]  # each cell's episodes
    #: Each episode's: it needs assistance and has a reviewed time (bool): a TP episode's
    #: timing error is measured against it.
    timed_needs: np.ndarray
    times: np.ndarray  # each episode's reviewed time (float64; NaN: none reviewed)


def is_time(value: object) -> bool:
    """A number of seconds: finite and >= 0 (a boolean is not a number here)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(float(value)) and value >= 0
    except OverflowError:  # an integer too large for a float
        return False


def _row_problems(track: DecisionTrack, record: object, index: int, *, key: bool) -> list[str]:
    """What makes one row of a key (or, without ``key``, of a public file: its id alone)
    unusable, each as "<where>: <field>: <problem>"."""
    f, field = track.fields, track.scenarios.field
    if not isinstance(record, dict):
        return [f"{nth(index, 'episode')}: entry: expected a JSON object"]
    ident = record.get(f.id)
    where = f"{f.id} {ident!r}" if f.id in record else nth(index, "episode")
    out = []
    if f.id not in record:
        out.append(f"{where}: {f.absent_id(record)}")
    elif not f.is_id(ident):
        out.append(f"{where}: {f.id}: Input should be a valid {f.id_kind}")
    if not key:
        return out
    for name in (field, ASSIST_TYPE):
        if name not in record:
            out.append(f"{where}: {name}: Field required")
        elif not isinstance(record[name], str):
            out.append(f"{where}: {name}: Input should be a valid string")
    if isinstance(record.get(ASSIST_TYPE), str) and record[ASSIST_TYPE] not in ASSIST_TYPES:
        out.append(
            f"{where}: {ASSIST_TYPE}: expected one of {', '.join(ASSIST_TYPES)}, got "
            f"{preview(record[ASSIST_TYPE])}"
        )
    if TIME not in record:
        out.append(f"{where}: {TIME}: Field required (null on a no-assistance episode)")
    elif record[TIME] is not None and not is_time(record[TIME]):
        out.append(
            f"{where}: {TIME}: expected a number of seconds >= 0, or null; got "
            f"{preview(record[TIME])}"
        )
    return out


def _some(problems: list[str], kind: str, ids: Sequence[object], tail: str) -> None:
    """Note ``kind`` for ``ids`` (its count and first few), if there are any."""
    if ids:
        problems.append(agree(f"{len(ids)} {kind}", len(ids)) + f" ({examples(ids)}){tail}")


def _valid_rows(track: DecisionTrack, data: Sequence[Any], *, key: bool) -> list[dict[str, Any]]:
    """The rows of a key (or, without ``key``, of a public file), each checked; AnswerKeyError
    (PublicFileError) lists every problem. A public file's checks are the key's for the ids."""
    error: type[ValueError] = AnswerKeyError if key else PublicFileError
    what = "the answer key" if key else f"the public file {track.public.name}"
    bad = [
        p for index, record in enumerate(data) for p in _row_problems(track, record, index, key=key)
    ]
    if bad:
        raise error(
            agree(f"{what} has {len(bad)} invalid [field|fields]: ", len(bad))
            + "; ".join(bad[:MAX_EXAMPLES])
        )
    f = track.fields
    rows: list[dict[str, Any]] = list(data)
    problems: list[str] = []
    counts = Counter(r[f.id] for r in rows)
    _some(
        problems, f"duplicate [{f.id}|{f.id}s]", sorted(i for i, n in counts.items() if n > 1), ""
    )
    if key:
        problems += _answer_problems(track, rows)
    elif not rows:
        problems.append("no episodes at all")
    if problems:
        raise error(f"invalid {what.removeprefix('the ')}: " + "; ".join(problems))
    return rows


def _answer_problems(track: DecisionTrack, rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Where the key's scenarios, assist types and times disagree, or a scenario is absent."""
    f, field, silent = track.fields, track.scenarios.field, track.silent_scenario
    problems: list[str] = []
    values = [g.value for g in track.scenarios.groups]
    _some(
        problems,
        "[episode|episodes] with an unknown " + field,
        [r[f.id] for r in rows if r[field] not in values],
        f"; expected one of: {', '.join(values)}",
    )
    _some(
        problems,
        f"[episode|episodes] of an assistance {field} whose {ASSIST_TYPE} is none",
        [
            r[f.id]
            for r in rows
            if r[field] in values and r[field] != silent and r[ASSIST_TYPE] == NONE
        ],
        f"; {ASSIST_TYPE} is none exactly on the {silent} episodes",
    )
    _some(
        problems,
        f"{silent} [episode|episodes] whose {ASSIST_TYPE} is not none",
        [r[f.id] for r in rows if r[field] == silent and r[ASSIST_TYPE] != NONE],
        f"; a {silent} episode needs no assistance: write none",
    )
    _some(
        problems,
        f"assistance [episode|episodes] without an {TIME}",
        [r[f.id] for r in rows if r[ASSIST_TYPE] != NONE and r[TIME] is None],
        "; each needs its reviewed earliest useful time in seconds",
    )
    _some(
        problems,
        f"no-assistance [episode|episodes] with an {TIME}",
        [r[f.id] for r in rows if r[ASSIST_TYPE] == NONE and r[TIME] is not None],
        "; write null: such an episode has no intervention time",
    )
    present = {r[field] for r in rows}
    absent = [v for v in values if v not in present]
    if absent and rows:
        problems.append(f"no episodes of {field} {', '.join(absent)}")
    if not rows:
        problems.append("no episodes at all")
    return problems


def parse_key(
    track: DecisionTrack, data: Any, sha256: str = "", key_version: str | None = None
) -> DecisionKey:
    """Validate already-decoded key rows (a list, or ``{"samples": ...}``) against ``track``;
    AnswerKeyError lists every problem."""
    if isinstance(data, dict) and "samples" in data:
        key_version = data.get("key_version") if key_version is None else key_version
        if not (key_version is None or isinstance(key_version, str)):
            raise AnswerKeyError("the answer key's key_version must be a string")
        data = data["samples"]
    if not isinstance(data, (list, tuple)):
        raise AnswerKeyError(
            "a decision answer key must be JSON Lines of episodes, a JSON list "
            'of them or an object {"samples": [...]}'
        )
    rows = _valid_rows(track, data, key=True)
    f, field = track.fields, track.scenarios.field
    episodes = tuple(
        Episode(
            id=r[f.id],
            scenario=r[field],
            assist_type=r[ASSIST_TYPE],
            time_s=None if r[TIME] is None else float(r[TIME]),
            record=r,
        )
        for r in rows
    )
    key = DecisionKey(track, episodes, key_version, sha256, {e.id: e for e in episodes})
    _ = key.cells, key.asked  # what scoring reads, built now, not on the first score
    return key


def load_key(track: DecisionTrack, data: bytes) -> DecisionKey:
    """Decode and validate the bytes of a decision key file (its declared format)."""
    try:
        rows = read_rows(track, data, track.key.format)
    except DataFileError as exc:
        raise AnswerKeyError(f"the answer key is {exc}") from None
    return parse_key(track, list(rows.records), hashlib.sha256(data).hexdigest(), rows.key_version)


def load_questions(track: DecisionTrack, data: bytes) -> EpisodeSet:
    """Decode and validate the bytes of a decision track's public file (its declared format):
    the episodes a submission answers, for ``validate``; PublicFileError if it does not."""
    try:
        rows = read_rows(track, data, track.public.format)
    except DataFileError as exc:
        raise PublicFileError(f"the public file {track.public.name}: {exc}") from None
    valid = _valid_rows(track, rows.records, key=False)
    ids = dict.fromkeys(r[track.fields.id] for r in valid).keys()
    return EpisodeSet(track, ids, rows.key_version)


def size_problems(key: DecisionKey) -> list[str]:
    """Where the key's scenarios disagree with the sizes its spec declares."""
    grouping = key.track.scenarios
    found = Counter(e.scenario for e in key.episodes)
    wrong = [
        f"{g.value} has {found[g.value]} (expected {g.size})"
        for g in grouping.groups
        if found[g.value] != g.size
    ]
    if not wrong:
        return []
    return [
        f"{len(wrong)} of the {len(grouping.groups)} {grouping.field} groups differ from the "
        f"spec: {'; '.join(wrong[:MAX_EXAMPLES])}"
    ]


def same_questions(a: DecisionKey, b: DecisionKey) -> bool:
    """Whether two keys ask the same episodes: a decision key has no letters to rotate, so two
    are the same only byte for byte."""
    return a.sha256 == b.sha256


def assist_types(key: DecisionKey) -> dict[str, int]:
    """Episodes of each assist type, in the order safety, non_safety, none."""
    found = Counter(e.assist_type for e in key.episodes)
    return {t: found[t] for t in ASSIST_TYPES}
