"""How a board's rows are ranked, pure: rank ranges from the ranking metric's intervals.

Rows are ranked against the rows ranked by the same metric: on a decision board the re-scored
rows by this Space's macro F1, the paper rows after them by the paper's own F1
(``ranking_for``), since the two need not be the same quantity. A reference row (one of the
spec's reference policies, the track's ``reference_of``: a paper's chance row, a constant policy)
is shown but never ranked, nor counted as an entry: it is a level to read the entries against
(``entries``, ``reference``). A row's rank range runs from 1 +
the rows whose interval lies entirely better than its own to the worst rank it could hold
(``rank_ranges``); ``ranked`` gives the rows best first with their ranges and intervals, for
the board's frame (``rows``).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import evaluator
from evaluator import Count
from records import Record, metric_interval
from spec import Track


def record_counts(record: Record, track: Track) -> dict[str, Count]:
    """A record's counts; for paper rows, its percentages over the track's sizes (a macro mean
    has no count of its own to recover, so it gets none)."""
    if record.counts is not None:
        return dict(record.counts)
    macro = track.macro_keys
    return {
        key: Count(correct=round(record.metrics[key] * total / 100), total=total)
        for key, total in track.sizes.items()
        if key in record.metrics and key not in macro
    }


def rank_ranges(
    intervals: Sequence[tuple[float, float]], higher_is_better: bool | None = True
) -> list[tuple[int, int]]:
    """Per row: 1 + rows whose interval lies entirely better than it (above it; below it when
    lower is better; nearer 0 for a signed error), and the worst rank it could hold."""
    if higher_is_better is False:
        intervals = [(-high, -low) for low, high in intervals]
    elif higher_is_better is None:  # the distance from 0, negated: nearer is better
        intervals = [
            (-max(abs(low), abs(high)), 0.0 if low <= 0 <= high else -min(abs(low), abs(high)))
            for low, high in intervals
        ]
    lows = sorted(low for low, _ in intervals)
    highs = sorted(high for _, high in intervals)
    n = len(intervals)
    out = []
    for low, high in intervals:
        above = n - bisect.bisect_right(lows, high)
        below = bisect.bisect_left(highs, low)
        out.append((1 + above, n - below))
    return out


def ranking_interval(record: Record, track: Track) -> tuple[float, float] | None:
    """The 95 % interval of the metric a row is ranked by, in its display: the one it keeps or
    Wilson's from its count (a paper row's from its percentage over the sizes); None when there
    is neither (a paper row's F1) or the row lacks the metric."""
    return shown_interval(record, track, track.ranking_for(record.source))


def shown_interval(record: Record, track: Track, key: str) -> tuple[float, float] | None:
    """A row's 95 % interval of one metric, in its display, as the board and its charts show
    it: the one it keeps or Wilson's from its count (a paper row's from its percentage over the
    sizes); None when there is neither or the row lacks the metric."""
    if key not in record.metrics:
        return None
    interval = metric_interval(record, track, key)
    if interval is not None:
        return interval
    count = record_counts(record, track).get(key)
    if count is not None and track.display.get(key) == "percent":
        return evaluator.wilson_interval(count.correct, count.total)
    return None


def reference(record: Record, track: Track) -> str | None:
    """What a reference row is ("assists on every episode"); None for an entry: its track's
    ``reference_of`` says, by the spec's reference policies."""
    return track.reference_of(record.method_name, record.metrics)


def entries(records: Sequence[Record], track: Track) -> list[Record]:
    """The board's entries: the rows ranked by the track's ranking metric (references aside),
    which a new score is ranked against and the board counts as entries."""
    key = track.ranking
    return [
        r
        for r in records
        if track.ranking_for(r.source) == key and key in r.metrics and reference(r, track) is None
    ]


def ranked(
    records: Sequence[Record], track: Track
) -> list[tuple[Record, tuple[int, int] | None, tuple[float, float] | None]]:
    """Rows best first, each with its rank range and ranking interval. Rows are ranked against
    those ranked by the same metric: the track's ranking first, then a paper-only ranking; the
    reference rows of a ranking come after its entries, unranked (with their interval); rows
    lacking their metric come last, unranked. A row without an interval is ranked by its value
    alone (a point interval)."""
    metrics = list(dict.fromkeys([track.ranking, *(track.ranking_for(r.source) for r in records)]))
    out: list[tuple[Record, tuple[int, int] | None, tuple[float, float] | None]] = []
    unranked = []
    for key in metrics:
        better = track.higher_is_better.get(key, True)
        rows = [r for r in records if track.ranking_for(r.source) == key and key in r.metrics]
        references = [r for r in rows if reference(r, track) is not None]
        rows = [r for r in rows if reference(r, track) is None]

        def order(r: Record, better: bool | None = better, key: str = key) -> tuple[float, str]:
            value = r.metrics[key]  # best first: the highest, the lowest, or the nearest 0
            return ({True: -value, False: value, None: abs(value)}[better], r.method_name)

        rows.sort(key=order)
        intervals = [ranking_interval(r, track) for r in rows]
        points = [
            i or (r.metrics[key], r.metrics[key]) for r, i in zip(rows, intervals, strict=True)
        ]
        ranks = rank_ranges(points, better)
        out.extend(zip(rows, ranks, intervals, strict=True))
        references.sort(key=order)
        out.extend((r, None, ranking_interval(r, track)) for r in references)
        unranked += [
            r for r in records if track.ranking_for(r.source) == key and key not in r.metrics
        ]
    out.extend((r, None, None) for r in sorted(unranked, key=lambda r: r.method_name))
    return out
