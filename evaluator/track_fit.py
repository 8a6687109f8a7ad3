"""Which track of a benchmark a submission's entries are written for, told by its fields, and
how a message names a track's entries (``entry_shape``): the Score tab's "Detect from the file"
and the scripts' choice of a track when none is given read the file this one way, so the page,
``/score`` and the scripts name the same track in the same words.

Only the first entries are read (``SHAPE_SAMPLE``), and of a JSON Lines file only so many lines
(``LINES_TRIED``), read or not: a guess never costs more than a bounded look at the file.

>>> import spec
>>> bench = spec.load_benchmark("egoargus")
>>> fitting_track(bench, b'[{"example_id": "ep-1", "assist": true}]').id
'decision'
>>> fitting_track(bench, b"[]") is None
True
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from evaluator.kinds import kind_of
from spec import Benchmark, Track

SHAPE_SAMPLE = 200  # entries a guess of the file's track reads
LINES_TRIED = 4 * SHAPE_SAMPLE  # lines of JSON Lines it parses at most, read or not
#: A line's text from its first character that is not whitespace: blank lines are skipped in
#: one scan, never one Python step each.
_FILLED_LINE = re.compile(r"\S[^\n]*")


def _entries(data: bytes) -> list[dict[str, Any]]:
    """The first entries of a submission: a JSON list, a list inside an object, or JSON Lines;
    none if the file is none of these."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return []
    try:
        decoded: Any = json.loads(text)
    except (ValueError, RecursionError):
        decoded = []
        for tried, line in enumerate(_FILLED_LINE.finditer(text)):
            if len(decoded) >= SHAPE_SAMPLE or tried >= LINES_TRIED:
                break
            try:
                decoded.append(json.loads(line.group()))
            except (ValueError, RecursionError):
                continue
    if isinstance(decoded, dict):  # {"results": [...]}: what the list holds tells
        decoded = next((v for v in decoded.values() if isinstance(v, list)), [decoded])
    if not isinstance(decoded, list):
        return []
    return [e for e in decoded[:SHAPE_SAMPLE] if isinstance(e, dict)]


def entry_shape(track: Track) -> str:
    """An entry of the track's submissions, as a message names it: "example_id/assist/..."."""
    return "/".join(kind_of(track).entry_fields(track))


def fitting_track(bench: Benchmark, data: bytes) -> Track | None:
    """The track whose entries the file's are, told by the fields only that track's entries
    carry (its kind's ``own_fields``); None if the file's entries carry no track's, or as many
    of two tracks' (then the visitor names the track)."""
    entries = _entries(data)
    votes = Counter(
        {
            t.id: sum(any(f in e for f in kind_of(t).own_fields(t)) for e in entries)
            for t in bench.tracks
        }
    )
    ranked = votes.most_common(2)
    if not ranked or ranked[0][1] == 0 or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return None
    return bench.track(ranked[0][0])
