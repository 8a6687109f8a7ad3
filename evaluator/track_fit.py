"""Which track of a benchmark a submission's entries are written for, told by its fields, and
how a message names a track's entries (``entry_shape``): the Score tab's "Detect from the file"
and the scripts' choice of a track when none is given read the file this one way, so the page,
``/score`` and the scripts name the same track in the same words.

A file keyed by id (``{"<id>": {"predicted_answer": "B"}, ...}`` or ``{"<id>": "B"}``) is read
through each track's kind (``keyed_entry``): its keys must be shaped as the track's ids and its
values be objects or the track's predictions. Only the first entries are read
(``SHAPE_SAMPLE``), and of a JSON Lines file only so many lines (``LINES_TRIED``), read or not:
a guess never costs more than a bounded look at the file.

>>> import spec
>>> bench = spec.load_benchmark("egoargus")
>>> fitting_track(bench, b'[{"example_id": "ep-1", "assist": true}]').id
'decision'
>>> fitting_track(bench, b'{"mmg-000001": {"predicted_answer": "B"}}').id
'understanding'
>>> fitting_track(bench, b"[]") is None
True
"""

from __future__ import annotations

import json
import re
from collections import Counter
from itertools import islice
from typing import Any

from evaluator.kinds import kind_of
from spec import Benchmark, Track

SHAPE_SAMPLE = 200  # entries a guess of the file's track reads
LINES_TRIED = 4 * SHAPE_SAMPLE  # lines of JSON Lines it parses at most, read or not
#: A line's text from its first character that is not whitespace: blank lines are skipped in
#: one scan, never one Python step each.
_FILLED_LINE = re.compile(r"\S[^\n]*")


def _entries(data: bytes) -> tuple[list[dict[str, Any]], list[tuple[str, Any]]]:
    """The first entries of a submission (a JSON list, a list inside an object, or JSON
    Lines), and of an object that wraps no list its first items (it may be keyed by id; as one
    object it is an entry too); none if the file is none of these."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return [], []
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
    keyed: list[tuple[str, Any]] = []
    if isinstance(decoded, dict):  # {"results": [...]}: what the list holds tells
        listed = next((v for v in decoded.values() if isinstance(v, list)), None)
        if listed is None:
            keyed = list(islice(decoded.items(), SHAPE_SAMPLE))
        decoded = [decoded] if listed is None else listed
    if not isinstance(decoded, list):
        return [], []
    return [e for e in decoded[:SHAPE_SAMPLE] if isinstance(e, dict)], keyed


def entry_shape(track: Track) -> str:
    """An entry of the track's submissions, as a message names it: "example_id/assist/..."."""
    return "/".join(kind_of(track).entry_fields(track))


def fitting_track(bench: Benchmark, data: bytes) -> Track | None:
    """The track whose entries the file's are, told by the fields only that track's entries
    carry (its kind's ``own_fields``), in the file's entries or in those an object keyed by id
    stands for as the track's kind reads one (``keyed_entry``: ids of the track's shape, values
    that are objects or its predictions); None if the file's entries carry no track's, or as
    many of two tracks' (then the visitor names the track)."""
    entries, keyed = _entries(data)

    def votes(track: Track) -> int:
        kind = kind_of(track)
        own = kind.own_fields(track)
        read = [*entries, *(kind.keyed_entry(track, name, value) for name, value in keyed)]
        return sum(e is not None and any(f in e for f in own) for e in read)

    counted = Counter({t.id: votes(t) for t in bench.tracks})
    ranked = counted.most_common(2)
    if not ranked or ranked[0][1] == 0 or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return None
    return bench.track(ranked[0][0])
