"""P1: scoring in process, against json.loads of the same bytes, and how it grows with size."""

from __future__ import annotations

import contextlib
import functools
import json
import random
import time

import evaluator
import spec
from perf.report import Row, best_time, ms
from tests.support import hostile

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track(kind=spec.MultipleChoiceTrack)
DEMO_KEY = BENCH.demo_key(TRACK)
SAMPLE = BENCH.demo_dir / "sample_submission.json"
SIZES = (1_000, 10_000, 100_000)
RATIO_GOAL = 10.0
LINEAR_SLACK = 1.5  # per-question time at 100k within 1.5x of that at 1k counts as linear


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


def run() -> list[Row]:
    rows: list[Row] = []
    key = evaluator.load_answer_key(TRACK, DEMO_KEY.read_bytes())
    sample = SAMPLE.read_bytes()
    t_score = best_time(lambda: evaluator.score(key, sample))
    t_json = best_time(lambda: json.loads(sample))
    ratio = t_score / t_json
    rows.append(Row("P1", "score 500 answers (demo key, sample file)", ms(t_score)))
    rows.append(Row("P1", "json.loads of the same bytes", ms(t_json)))
    rows.append(
        Row("P1", "score / json.loads", f"{ratio:.1f}x", f"<= {RATIO_GOAL:g}x", ratio <= RATIO_GOAL)
    )

    per_question: dict[int, float] = {}
    for n in SIZES:
        big_key, data = synthetic(n)
        # Five batches of at least half a second each: one call at 100k is ~0.2 s, and a busy
        # neighbour on a shared machine can spoil a few batches in a row.
        t = best_time(
            functools.partial(evaluator.score, big_key, data), repeats=5, min_repeat_s=0.5
        )
        tj = best_time(functools.partial(json.loads, data), repeats=5, min_repeat_s=0.5)
        per_question[n] = t / n
        rows.append(
            Row(
                "P1",
                f"score {n:,} synthetic questions",
                f"{ms(t)} ({t / n * 1e6:.2f} µs/question, {t / tj:.1f}x json.loads)",
            )
        )
    growth = per_question[SIZES[-1]] / per_question[SIZES[0]]
    rows.append(
        Row(
            "P1",
            f"per-question time {SIZES[-1]:,} vs {SIZES[0]:,}",
            f"{growth:.2f}x",
            f"~linear (<= {LINEAR_SLACK:g}x)",
            growth <= LINEAR_SLACK,
        )
    )

    # What one upload can cost: the slowest hostile file under the 5 MB limit.
    worst_name, worst_t, worst_ratio = "", 0.0, 0.0
    for name, build in hostile.BUILDERS.items():
        data = build(sample)
        start = time.perf_counter()
        with contextlib.suppress(evaluator.SubmissionError):
            evaluator.score(key, data)
        elapsed = time.perf_counter() - start
        if elapsed > worst_t:
            start = time.perf_counter()
            with contextlib.suppress(ValueError, RecursionError):
                json.loads(data)
            parse = max(time.perf_counter() - start, 1e-6)
            worst_name, worst_t, worst_ratio = name, elapsed, elapsed / parse
    rows.append(
        Row(
            "P1",
            f"slowest hostile file <= 5 MB ({worst_name})",
            f"{ms(worst_t)} ({worst_ratio:.0f}x json.loads of it)",
            f"<= {RATIO_GOAL:g}x json.loads",
            worst_ratio <= RATIO_GOAL,
        )
    )
    return rows
