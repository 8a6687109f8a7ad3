"""What a visitor's score reveals: the scorer's result without the metrics it withholds, every
value at the precision the board shows.

Per-group counts are the Space's promise, so a scored call always tells something about the
key: how many of the rows a metric counts the file got right. What it must not be is a finer
oracle than that. A metric whose value turns on fewer rows of the key than the track's
``min_rows`` (each kind's scoring decides which rows, from what the visitor's own file makes
of them, so that withholding itself tells nothing: ``ScoreResult.withheld``) is left out of
``metrics``, ``counts`` and ``intervals``, with the reason in ``withheld``; a value that is
shown is rounded to the decimals its track shows it with (``Track.rounded``: a percent at the
spec's ``decimals``), as the board prints it: the timing means of a few episodes at full float
precision give their reviewed times back.
Counts stay exact. Several calls that differ in a few rows still tell about those rows: the
score limit is what bounds that (the benchmarks' about.md says so).

The maintainer's result (records, ``scripts/reproduce_row.py``) is the scorer's, never this.

>>> import spec, evaluator
>>> bench = spec.load_benchmark("egomemreason")
>>> track = bench.track()
>>> key = evaluator.load_answer_key(track, bench.demo_key(track).read_bytes())
>>> full = evaluator.score(key, (bench.demo_dir / "sample_submission.json").read_bytes())
>>> full.metrics["overall"], disclosed(track, full).metrics["overall"]
(44.6, 44.6)
>>> full.intervals["overall"][0], disclosed(track, full).intervals["overall"][0]
(40.300639158533016, 40.3)
>>> withheld_reason(3, ("answered question", "answered questions"), 20)
'withheld: computed over 3 answered questions, fewer than 20'
"""

from __future__ import annotations

from collections.abc import Iterable

from evaluator.messages import counted
from evaluator.results import ScoreResult
from spec import Track


def too_few(rows: int, min_rows: int) -> bool:
    """Whether a value that turns on ``rows`` rows is withheld: some, but fewer than
    ``min_rows`` (a value that turns on none is the same whatever the key says)."""
    return 0 < rows < min_rows


def fewest(sizes: Iterable[int]) -> int:
    """The fewest rows a count turns on, of the sets it can be read over (0 when every one is
    empty: the count is then the same whatever the key says). A count of the key's rows in a
    set the file chose is also the key's total less the count over the rest."""
    return min((n for n in sizes if n > 0), default=0)


def withheld_reason(rows: int, nouns: tuple[str, str], min_rows: int) -> str:
    """Why a metric is withheld, as a visitor reads it."""
    return f"withheld: computed over {counted(rows, *nouns)}, fewer than {min_rows}"


def disclosed(track: Track, result: ScoreResult) -> ScoreResult:
    """What a visitor is shown of ``result`` (the scorer's, on ``track``): its withheld metrics
    out of ``metrics``, ``counts`` and ``intervals``, every value and interval at the board's
    precision, and ``below_chance`` False when the ranking metric it is read from is withheld.
    The rest (sha256s, versions, abstentions, ``withheld``) is the result's."""
    hidden = result.withheld
    display = track.display
    shown = track.rounded
    return result.model_copy(
        update={
            "metrics": {
                k: shown(display[k], v) for k, v in result.metrics.items() if k not in hidden
            },
            "counts": {k: c for k, c in result.counts.items() if k not in hidden},
            "intervals": {
                k: (shown(display[k], low), shown(display[k], high))
                for k, (low, high) in result.intervals.items()
                if k not in hidden
            },
            "below_chance": result.below_chance and track.ranking not in hidden,
        }
    )
