"""The shipped benchmarks' demo answer keys, each loaded once a test process.

Loading EgoArgus' understanding key (6,978 rows, each row checked) takes a fifth of a second,
and the tests that only read a demo key (a track served on a page, a chart, a handler's answer)
asked for it hundreds of times a run. A key is a frozen value (its lookups computed once, on
first use), so sharing one cannot carry one test's change into another. The key is loaded again
when its file's bytes or the track differ from the ones it was loaded with. A test of loading a
key itself loads its own.
"""

from __future__ import annotations

from pathlib import Path

import evaluator
import spec

#: (key file, track id) -> the track and the bytes it was loaded with, and the key.
_LOADED: dict[tuple[Path, str], tuple[spec.Track, bytes, evaluator.AnyKey]] = {}


def demo_key(bench: spec.Benchmark, track: spec.Track) -> evaluator.AnyKey:
    """``track``'s demo key as ``evaluator.load_answer_key`` reads it from
    ``bench.demo_key(track)``, loaded once a process."""
    path = bench.demo_key(track)
    data = path.read_bytes()
    loaded = _LOADED.get((path, track.id))
    if loaded is not None and loaded[0] == track and loaded[1] == data:
        return loaded[2]
    key = evaluator.load_answer_key(track, data)
    _LOADED[(path, track.id)] = (track, data, key)
    return key
