"""P1: scoring in process, against json.loads of the same bytes, on every track of every
shipped benchmark (its demo key and the demo sample that scores on it), how it grows with size,
and what the slowest hostile file under the upload limit costs on each track."""

from __future__ import annotations

import contextlib
import functools
import json
import random
from collections.abc import Iterator
from pathlib import Path

import evaluator
import spec
from evaluator import submissions
from perf.report import Row, best_time, median_times, ms
from tests.support import hostile

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track(kind=spec.MultipleChoiceTrack)
SIZES = (1_000, 10_000, 100_000)
#: The goals by kind of track (issue 33: score / json.loads of the same bytes, medians).
RATIO_GOALS = {"multiple_choice": 2.0, "decision": 4.0}
HOSTILE_GOAL = 10.0
#: Per-question time from 1k to 100k questions may grow 1.2x as much as json.loads' own per
#: entry in the same run (the memory's and the parse's growth is not the scorer's).
GROWTH_SLACK = 1.2
ROUNDS = 30  # timed batches per side for the shipped tracks' medians
SIZE_ROUNDS = 10  # and for each synthetic size (a 100k score is ~0.1 s)


def shipped() -> Iterator[tuple[spec.Benchmark, spec.Track, evaluator.AnyKey, Path]]:
    """Every track of every benchmark under benchmarks/, with its demo key and the demo
    sample (``*sample_submission.json`` in its demo folder) that scores on it."""
    for folder in sorted(spec.BENCHMARKS_DIR.glob("*/benchmark.toml")):
        bench = spec.load_benchmark(folder.parent.name)
        for track in bench.tracks:
            key = evaluator.load_answer_key(track, bench.demo_key(track).read_bytes())
            for sample in sorted(bench.demo_dir.glob("*sample_submission.json")):
                with contextlib.suppress(evaluator.SubmissionError):
                    evaluator.score(key, sample.read_bytes())
                    yield bench, track, key, sample
                    break


def synthetic(n: int, seed: int = 7) -> tuple[evaluator.AnswerKey, bytes]:
    """A valid key of ``n`` questions (every group of the track) and a full submission for it."""
    rng = random.Random(seed)
    grouping = TRACK.groupings[0]
    types = [g.value for g in grouping.groups]
    opts = TRACK.options
    questions, answers = [], []
    for i in range(1, n + 1):
        letters = opts.letters[: rng.randint(opts.min, opts.max)]
        questions.append(
            {
                "example_id": i,
                "question": f"synthetic question {i}",
                "options": {letter: f"option {letter}" for letter in letters},
                grouping.field: types[i % len(types)],
                "correct_answer": rng.choice(letters),
            }
        )
        answers.append({"example_id": i, "predicted_answer": rng.choice([*letters, None])})
    return evaluator.parse_answer_key(TRACK, questions), json.dumps(answers, indent=1).encode()


def _parse_cost(data: bytes) -> float:
    """What reading these bytes as JSON costs: json.loads of them, or, for a file it refuses
    at once ("0" then more), of a valid JSON list of the same size, whichever is more."""

    def parse(payload: bytes) -> None:
        with contextlib.suppress(ValueError, RecursionError):
            json.loads(payload)

    filler = b"[" + b"0," * max((len(data) - 2) // 2, 0) + b"0]"
    return max(
        best_time(functools.partial(parse, data), repeats=3, min_repeat_s=0.05),
        best_time(functools.partial(parse, filler), repeats=3, min_repeat_s=0.05),
    )


def _refused_or_scored(key: evaluator.AnyKey, data: bytes) -> None:
    with contextlib.suppress(evaluator.SubmissionError):
        evaluator.score(key, data)


def _hostile_row(name: str, key: evaluator.AnyKey, sample: bytes) -> Row:
    """The slowest hostile file under the upload limit on this track, against its parse."""
    worst_name, worst_t, worst_ratio = "", 0.0, 0.0
    for builder, build in hostile.BUILDERS.items():
        data = build(sample)
        elapsed = best_time(
            functools.partial(_refused_or_scored, key, data), repeats=3, min_repeat_s=0.05
        )
        ratio = elapsed / _parse_cost(data)
        if ratio > worst_ratio:
            worst_name, worst_t, worst_ratio = builder, elapsed, ratio
    return Row(
        "P1",
        f"{name}: slowest hostile file <= 5 MB ({worst_name})",
        f"{ms(worst_t)} ({worst_ratio:.1f}x parsing it)",
        f"<= {HOSTILE_GOAL:g}x",
        worst_ratio <= HOSTILE_GOAL,
    )


def run() -> list[Row]:
    rows: list[Row] = []
    for bench, track, key, path in shipped():
        name = f"{bench.id}/{track.id}"
        sample = path.read_bytes()
        t_score, t_json = median_times(
            functools.partial(evaluator.score, key, sample),
            functools.partial(json.loads, sample),
            rounds=ROUNDS,
        )
        ratio, goal = t_score / t_json, RATIO_GOALS[evaluator.kind_of(track).NAME]
        rows.append(
            Row(
                "P1",
                f"{name}: score {len(key):,} {evaluator.kind_of(track).ROWS[1]} ({path.name}), "
                "median",
                f"{ms(t_score)}, json.loads {ms(t_json)}: {ratio:.2f}x",
                f"<= {goal:g}x",
                ratio <= goal,
            )
        )
        rows.append(_hostile_row(name, key, sample))

    per_question: dict[int, float] = {}
    per_item: dict[int, float] = {}  # json.loads' own, for comparison
    read: dict[int, float] = {}  # the score's own read of the JSON (submissions.listed_json)
    for n in SIZES:
        big_key, data = synthetic(n)
        # In turns, batches of at least 0.1 s (one call at 100k is ~0.05 s): medians.
        t, tj, tr = median_times(
            functools.partial(evaluator.score, big_key, data),
            functools.partial(json.loads, data),
            functools.partial(submissions.listed_json, data),
            rounds=SIZE_ROUNDS,
            min_batch_s=0.1,
        )
        per_question[n], per_item[n], read[n] = t / n, tj / n, tr / n
        rows.append(
            Row(
                "P1",
                f"score {n:,} synthetic questions",
                f"{ms(t)} ({t / n * 1e6:.2f} µs/question, {t / tj:.2f}x json.loads)",
            )
        )
    growth = per_question[SIZES[-1]] / per_question[SIZES[0]]
    parse_growth = per_item[SIZES[-1]] / per_item[SIZES[0]]
    rows.append(
        Row(
            "P1",
            f"per-question time {SIZES[-1]:,} vs {SIZES[0]:,}, against json.loads' own per entry",
            f"{growth:.2f}x against {parse_growth:.2f}x: {growth / parse_growth:.2f}x",
            f"<= {GROWTH_SLACK:g}x",
            growth / parse_growth <= GROWTH_SLACK,
        )
    )
    # For reading the row above: the scorer's own growth, past the JSON read it makes, and
    # that read's (orjson's per-entry time grows more than json.loads' from 1k to 100k).
    first, last = SIZES[0], SIZES[-1]
    own = (per_question[last] - read[last]) / (per_question[first] - read[first])
    rows.append(
        Row(
            "P1",
            "per-question time past the score's read of the JSON (submissions.listed_json), "
            f"{last:,} vs {first:,}, against json.loads' own per entry",
            f"{own:.2f}x against {parse_growth:.2f}x: {own / parse_growth:.2f}x (the read: "
            f"{read[first] * 1e6:.3f} -> {read[last] * 1e6:.3f} µs an entry, "
            f"{read[last] / read[first]:.2f}x)",
        )
    )
    return rows
