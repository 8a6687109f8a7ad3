"""Generate EgoMemReason's synthetic demo data: an answer key, its public file and a sample run.

The real answer key is private; the demo lets the Space, the tests and a new user run with no
account and no network. Every question text says it is synthetic. The query types, their
sizes, the option letters and the file names come from the benchmark's spec
(benchmark.toml); the question templates below are EgoMemReason's. The key names its version
(``{"key_version": "demo-1", "samples": [...]}``) and so does every row of the public file
(``"key_version": "demo-1"``), so whoever answers it knows which letters they answer. The same
seed always gives byte-identical files.

Example:

    python benchmarks/egomemreason/demo/make_demo_data.py
    python benchmarks/egomemreason/demo/make_demo_data.py --out-dir /tmp/egomemreason-demo
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path

import spec

HERE = Path(__file__).resolve().parent
BENCHMARK_DIR = HERE.parent
SEED = 20260713
KEY_VERSION = "demo-1"
IDENTITIES = ("A1_JAKE", "A2_ALICE", "A3_TASHA", "A4_LUCIA", "A5_KATRINA", "A6_SHURE")
THINGS = (
    "mug",
    "laptop",
    "flower vase",
    "guitar",
    "whiteboard marker",
    "power bank",
    "rice cooker",
    "umbrella",
    "camera",
    "tape measure",
    "sketchbook",
    "kettle",
)
PLACES = (
    "kitchen",
    "living room",
    "courtyard",
    "bedroom",
    "balcony",
    "supermarket",
    "dining table",
    "staircase",
    "garden",
    "meeting room",
)
ACTIVITIES = (
    "cooking",
    "dancing",
    "shopping",
    "playing guitar",
    "assembling furniture",
    "arranging flowers",
    "watching a movie",
    "doing makeup",
    "tidying up",
)
FOODS = ("Pancake", "Rice", "Burger", "Dumplings", "Noodles", "Hot pot", "Salad", "Pizza")
#: How many options each query type's questions have (4 to 10; ordering goes up to J).
OPTION_RANGE = {
    "Cumulative State Tracking": (4, 6),
    "Temporal Counting": (4, 6),
    "Event Ordering": (4, 10),
    "Event Linking": (4, 5),
    "Spatial Preference": (4, 5),
    "Activity Pattern": (4, 4),
}


def _question(rng: random.Random, query_type: str, name: str) -> tuple[str, list[str]]:
    thing, place, act = rng.choice(THINGS), rng.choice(PLACES), rng.choice(ACTIVITIES)
    if query_type == "Cumulative State Tracking":
        return f"Where is the {thing} {name} last moved?", [f"In the {p}" for p in PLACES]
    if query_type == "Temporal Counting":
        return (
            f"How many times did {name} use the {thing} this week?",
            [f"{n} times" for n in range(1, 13)],
        )
    if query_type == "Event Ordering":
        steps = [f"{a} in the {p}" for a in ACTIVITIES for p in PLACES[:3]]
        day = rng.randint(1, 7)
        return (
            f"Which sequence matches the order of {name}'s activities on day {day}?",
            [" -> ".join(rng.sample(steps, 3)) for _ in range(12)],
        )
    if query_type == "Event Linking":
        return (
            f"Why did {name} go to the {place} after {act}?",
            [f"To fetch the {t}" for t in THINGS],
        )
    if query_type == "Spatial Preference":
        return f"Where does {name} usually prefer to do {act}?", [f"In the {p}" for p in PLACES]
    return f"What did {name} most often eat for breakfast?", list(FOODS)


def generate(track: spec.MultipleChoiceTrack, seed: int = SEED) -> list[dict[str, object]]:
    """The synthetic key: the spec's query types and sizes, the real schema, answers included."""
    rng = random.Random(seed)
    f, letters = track.fields, track.options.letters
    grouping = track.groupings[0]
    samples: list[dict[str, object]] = []
    example_id = 0
    for group in grouping.groups:
        query_type = group.spelled
        low, high = OPTION_RANGE[query_type]
        for n in range(group.size):
            example_id += 1
            identity = rng.choice(IDENTITIES)
            day, hour = rng.randint(1, 7), rng.randint(9, 22)
            name = identity.split("_")[1].title()
            text, pool = _question(rng, query_type, name)
            count = rng.randint(low, high)
            texts = rng.sample(sorted(set(pool)), count)
            samples.append(
                {
                    f.id: example_id,
                    "p_id": f"{identity}_DAY{day}_{hour:02d}_00_00_q{n + 1:03d}",
                    "identity": identity,
                    "query_time": f"DAY{day}, {hour:02d}:00:00",
                    f.question: f"[SYNTHETIC DEMO] {text}",
                    f.options: dict(zip(letters, texts, strict=False)),
                    grouping.field: query_type,
                    f.answer: letters[rng.randrange(count)],
                }
            )
    return samples


def sample_submission(
    track: spec.MultipleChoiceTrack, samples: list[dict[str, object]], seed: int = SEED
) -> list[dict[str, object]]:
    """A plausible model run: right about a third of the time, abstaining now and then."""
    f = track.fields
    rng = random.Random(seed + 1)
    out: list[dict[str, object]] = []
    for q in samples:
        options = list(q[f.options])  # type: ignore[call-overload]
        roll = rng.random()
        if roll < 0.02:
            answer: str | None = None
        elif roll < 0.30:
            answer = str(q[f.answer])
        else:
            answer = rng.choice(options)
        out.append({f.id: q[f.id], f.prediction: answer})
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--out-dir",
        type=Path,
        default=HERE,
        help="folder to write the demo files into (default: this script's folder)",
    )
    parser.add_argument("--seed", type=int, default=SEED, help=f"random seed (default {SEED})")
    args = parser.parse_args(argv)

    bench = spec.load_benchmark(str(BENCHMARK_DIR))
    track = bench.track(kind=spec.MultipleChoiceTrack)
    samples = generate(track, args.seed)
    out: Path = args.out_dir
    out.mkdir(parents=True, exist_ok=True)
    key = {"key_version": KEY_VERSION, "samples": samples}
    (out / track.key.name).write_text(
        json.dumps(key, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    public_lines = [
        json.dumps(
            {
                **{k: v for k, v in q.items() if k != track.fields.answer},
                "key_version": KEY_VERSION,
            },
            ensure_ascii=False,
        )
        for q in samples
    ]
    (out / track.public.name).write_text("\n".join(public_lines) + "\n", encoding="utf-8")
    (out / "sample_submission.json").write_text(
        json.dumps(sample_submission(track, samples, args.seed), indent=1) + "\n", encoding="utf-8"
    )
    print(f"wrote {len(samples)} synthetic questions to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
