"""A decision submission read against the episodes alone: each episode's prediction, or every
problem of the file (a JSON list or JSON Lines) with how to fix it."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from errors import SubmissionError
from evaluator.kinds.decision.key import EpisodeSet
from evaluator.messages import Problems, json_type, nth, ordinal, preview
from evaluator.submissions import (
    MAX_ENTRIES_PER_QUESTION,
    EntryWords,
    check_count,
    entry_columns,
    json_lines,
    listed_json,
    read_entries,
    read_json,
    read_text,
    told_of_a_stand_in,
    wrapped_list,
)
from spec import DecisionTrack
from spec.decision import ASSIST, TIME

#: Strings people write for a boolean; "assist" must be the JSON literal.
_BOOLEAN_WORDS = frozenset({"yes", "no", "true", "false", "y", "n", "1", "0"})
#: What an entry's assist and time may be, as types (a boolean is not a number of seconds).
_ASSISTS = frozenset({bool, type(None)})
_TIMES = frozenset({int, float, type(None)})
#: Lists people wrap their entries in; the message says to upload the list itself.
_WRAPPERS = ("predictions", "results", "episodes", "submissions", "samples", "answers")
_LINES = ", or JSON Lines with one such object a line"


@dataclass(frozen=True, slots=True)
class Prediction:
    """What a submission says about one episode."""

    assist: bool | None  # None: no answer (scored as not assisting)
    time_s: float | None


def entry_fields(track: DecisionTrack) -> tuple[str, ...]:
    """The fields of a submission's entry, its id first (a composed id's parts): id, assist
    and time."""
    return (*track.fields.id_names, ASSIST, TIME)


def own_fields(track: DecisionTrack) -> tuple[str, ...]:
    """The fields only this kind's entries carry: a decision's assist and time."""
    return (ASSIST, TIME)


def keyed_entry(track: DecisionTrack, name: str, value: Any) -> dict[str, Any] | None:
    """None: a decision submission is a list or JSON Lines, never an object keyed by id, so
    such an object tells no decision track (``evaluator.track_fit``)."""
    return None


def _example(track: DecisionTrack) -> str:
    ident = "1" if track.fields.id_type == "integer" else '"<id>"'
    return f'{{"{track.fields.id}": {ident}, "{ASSIST}": true, "{TIME}": 12.5}}'


def _shape(track: DecisionTrack) -> str:
    return f'{{"{track.fields.id}": ..., "{ASSIST}": ..., "{TIME}": ...}}'


def _words(track: DecisionTrack) -> EntryWords:
    return EntryWords(
        noun="episode",
        shape=_shape(track),
        unknown=f"those of the public file ({track.public.name})",
        missing=f'use "{ASSIST}": null for no answer',
        look_alikes=track.hints.fields,
    )


def _top_level_hint(track: DecisionTrack, data: Any) -> str:
    if isinstance(data, dict):
        name = wrapped_list(data, _WRAPPERS)
        if name is not None:
            # Who writes such files is the benchmark's to say (its spec's hints), no one's else.
            who = track.hints.results if name == "results" else None
            return (
                f'the top level is an object with a "{name}" list'
                + (f", as {who} write it" if who else "")
                + f"; upload the list itself (a JSON array of {_shape(track)} objects, or "
                "JSON Lines)"
            )
        return (
            f"the top level is a JSON object; expected a JSON list (or JSON Lines) of "
            f"{_shape(track)} objects, one per episode"
        )
    return (
        f"the top level is a JSON {json_type(data)}; expected a JSON list (or "
        f"JSON Lines) of {_shape(track)} objects, one per episode"
    )


def decode(track: DecisionTrack, data: bytes, rows: int) -> list[Any]:
    """The entries of a submission file: a JSON list, or JSON Lines (one object a line); JSON
    Lines of more entries than a submission of ``rows`` episodes may hold are refused once that
    many are read."""
    example = _example(track)
    listed = listed_json(data)  # a list: the road of most files
    if listed is not None:
        return listed
    text = read_text(data, f"a JSON list (or JSON Lines) of objects such as {example}")
    if text.lstrip().startswith("["):
        decoded = read_json(text, example, _LINES)
        if not isinstance(decoded, list):
            raise SubmissionError([_top_level_hint(track, decoded)])
        return decoded
    limit = MAX_ENTRIES_PER_QUESTION * rows
    read = json_lines(text, limit)
    if read.error is not None:
        try:
            whole = json.loads(text)  # one document over several lines, e.g. an object
        except (ValueError, RecursionError):
            exc = read.error
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "unreadable"
            raise SubmissionError(
                [
                    f"line {read.bad_line} is not valid JSON ({reason}); a submission is a JSON "
                    f"list of objects like {example}{_LINES}"
                ]
            ) from None
        raise SubmissionError([_top_level_hint(track, whole)]) from None
    entries = read.values
    if not read.complete:
        raise SubmissionError(
            [
                f"the file has more than {limit} lines of entries; expected one entry for each of "
                f"the {rows} {_words(track).noun}s"
            ]
        )
    if len(entries) == 1 and not (isinstance(entries[0], dict) and track.fields.id in entries[0]):
        raise SubmissionError([_top_level_hint(track, entries[0])])
    return entries


def _read_assist(
    track: DecisionTrack, entry: dict[str, Any], position: int, problems: Problems
) -> tuple[bool, bool | None]:
    """(usable, the entry's assist); a problem is noted when it is not usable (an entry that
    carries a look-alike the spec's hints describe is told what it is)."""
    if ASSIST not in entry:
        if told_of_a_stand_in(entry, ASSIST, track.hints.fields, (), position, problems):
            return False, None
        problems.add(
            f'{{n}} [entry has|entries have] no "{ASSIST}" (e.g. the {{examples}} '
            "[entry|entries]); write true or false, or null if the model gave no answer",
            lambda: ordinal(position + 1),
        )
        return False, None
    raw = entry[ASSIST]
    if raw is None or isinstance(raw, bool):
        return True, raw

    def shown() -> str:
        return f"{nth(position, 'entry')}: {preview(raw)}"

    if isinstance(raw, str) and raw.strip().lower() in _BOOLEAN_WORDS:
        problems.add(
            f'{{n}} [entry writes|entries write] "{ASSIST}" as a string (e.g. '
            "{examples}); write the JSON literal true or false, without quotes: "
            f'"{ASSIST}": true, not "{ASSIST}": "yes"',
            shown,
        )
    else:
        problems.add(
            f'{{n}} [entry has|entries have] an "{ASSIST}" that is not true, false or '
            "null (e.g. {examples}); write true or false, or null if the model gave "
            "no answer",
            shown,
        )
    return False, None


def _read_time(
    entry: dict[str, Any], position: int, problems: Problems
) -> tuple[bool, float | None]:
    """(usable, the entry's time in seconds); a problem is noted when it is not usable."""
    if TIME not in entry:
        problems.add(
            f'{{n}} [entry has|entries have] no "{TIME}" (e.g. the {{examples}} '
            "[entry|entries]); give the time in seconds, or null when there is none",
            lambda: ordinal(position + 1),
        )
        return False, None
    raw = entry[TIME]
    if raw is None:
        return True, None

    def shown() -> str:
        return f"{nth(position, 'entry')}: {preview(raw)}"

    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        problems.add(
            f'{{n}} [entry has|entries have] an "{TIME}" that is not a number (e.g. '
            "{examples}); write seconds as a JSON number such as 12.5, not a string, "
            "or null",
            shown,
        )
        return False, None
    try:
        value = float(raw)
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        problems.add(
            f'{{n}} [entry has|entries have] an "{TIME}" that is not a finite number '
            "(e.g. {examples}); write a number of seconds, or null",
            shown,
        )
        return False, None
    if value < 0:
        problems.add(
            f'{{n}} [entry has|entries have] a negative "{TIME}" (e.g. {{examples}}); '
            "times are seconds from the start of the video, 0 or more",
            shown,
        )
        return False, None
    return True, value


#: How many times an episode's reviewed time the file's times are, at the median, past which
#: they are read as milliseconds: a time in milliseconds is 1,000 times the seconds, while a
#: model's times, however poor, stay within a few times of the right one.
MILLISECONDS_RATIO = 100.0
#: And the median time given must be at least a second's worth of milliseconds: a file of
#: short times over reviewed times near 0 is a poor model, not another unit.
MILLISECONDS_FLOOR = 1000.0


def millisecond_times(times: np.ndarray, reviewed: np.ndarray, min_rows: int) -> str | None:
    """Why the file's times (seconds, in key order; NaN: none given) look like milliseconds,
    or None: over the episodes both time (a reviewed time over 0), the median time given is at
    least ``MILLISECONDS_FLOOR`` and the median ratio to the reviewed time past
    ``MILLISECONDS_RATIO`` (each median the ``n // 2``-th of the ``n`` sorted values). The bound
    is the key's (the public file gives no episode's length), so the check is made where the
    key is, when a file is scored (validate_submission.py cannot make it); the message tells no
    reviewed time.

    A check that reads the key follows the rule of every such check (``Kind.score``): it is
    made over at least ``min_rows`` episodes (the track's) or not at all, and a refusal by it
    counts against the score limit like a score (``KeyedRefusal``). Over fewer, the file is
    scored as it is, and its timing means, over as few timed episodes, are withheld. Without
    that, whether a file was refused turned on one episode's reviewed time, for free: probes
    that each timed one episode read its time to 2 ms (issue 30).

    >>> millisecond_times(np.full(20, 9000.0), np.full(20, 9.0), 20)[:40]
    'the "intervention_time_s" values look li'
    >>> millisecond_times(np.full(19, 9000.0), np.full(19, 9.0), 20) is None  # too few
    True
    """
    both = ~np.isnan(times) & (reviewed > 0)  # a NaN compares false: none reviewed
    given = times[both]
    middle = len(given) // 2
    if len(given) < max(min_rows, 1):
        return None
    median = np.partition(given, middle)[middle]
    ratio = np.partition(given / reviewed[both], middle)[middle]
    if median < MILLISECONDS_FLOOR or ratio <= MILLISECONDS_RATIO:
        return None
    return (
        f'the "{TIME}" values look like milliseconds: at the median they are over '
        f"{MILLISECONDS_RATIO:g} times the episodes' reviewed times; write each time in "
        "seconds from the start of the video, a JSON number such as 12.5 (for 12,500 ms)"
    )


#: A file's predictions as columns, in its entries' order: ids, assists, times (seconds, an
#: integer as the file has it, or None).
Columns = tuple[list[int | str], list[bool | None], list[int | float | None]]


def _fast_columns(episodes: EpisodeSet, entries: list[Any]) -> Columns | None:
    """The predictions of a file that scores, each check over all entries at once; None for
    any other file (``read_entries`` then lists its problems)."""
    read = entry_columns(episodes.track.fields, episodes.ids, entries, (ASSIST, TIME))
    if read is None:
        return None
    ids, (assists, times) = read
    if not set(map(type, assists)) <= _ASSISTS or not set(map(type, times)) <= _TIMES:
        return None
    given = [t for t in times if t is not None]
    try:
        if not all(map(math.isfinite, given)) or (given and min(given) < 0):
            return None
    except OverflowError:  # an integer too large for a float
        return None
    return ids, assists, times


def _careful_columns(episodes: EpisodeSet, entries: list[Any]) -> Columns:
    """The predictions read entry by entry (``read_entries``), every problem noted: the road
    of a file the fast one leaves, and the one that writes the messages."""
    track = episodes.track

    def read(
        entry: dict[str, Any], position: int, ident: int | str | None, problems: Problems
    ) -> tuple[bool, Prediction]:
        assist_ok, assist = _read_assist(track, entry, position, problems)
        time_ok, time_s = _read_time(entry, position, problems)
        return assist_ok and time_ok, Prediction(assist, time_s)

    found = read_entries(track.fields, episodes.ids, entries, read, _words(track))
    return (
        list(found),
        [p.assist for p in found.values()],
        [p.time_s for p in found.values()],
    )


def columns(episodes: EpisodeSet, data: bytes) -> Columns:
    """``validate``'s predictions as columns, in the entries' order: the same checks and the
    same SubmissionError."""
    track = episodes.track
    entries = decode(track, data, len(episodes))
    check_count(entries, len(episodes), _words(track))
    fast = _fast_columns(episodes, entries)
    return _careful_columns(episodes, entries) if fast is None else fast


def validate(episodes: EpisodeSet, data: bytes) -> dict[int | str, Prediction]:
    """Every episode's prediction, the submission checked against the episodes alone (a public
    file's, or a key's ``asked``); SubmissionError lists every problem of the file at once."""
    ids, assists, times = columns(episodes, data)
    return {
        i: Prediction(a, None if t is None else float(t))
        for i, a, t in zip(ids, assists, times, strict=True)
    }


def abstentions(predictions: Mapping[int | str, Prediction]) -> int:
    """The episodes a valid file gives no answer (``assist`` null)."""
    return sum(p.assist is None for p in predictions.values())
