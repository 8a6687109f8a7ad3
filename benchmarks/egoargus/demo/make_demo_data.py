"""Write EgoArgus's synthetic demo data: for each track a key, its public file, a sample run.

The review release carries no reuse licence, so nothing here comes from it: every question,
option, dialogue, issue and step is made up and marked ``[SYNTHETIC DEMO]``. Only the shape is
the release's. Understanding: the group sizes of the spec (6,978 rows over five scenarios and
three source tasks), the scenario x task split of the paper, ``sample_id``s shared by the
off-topic and on-topic scenarios, four options A-D, and the out-of-option rows (the spec's
count, all in the multimodal and contradictory scenarios, 8 answered "E" and the rest in free
text). Decision: the spec's 789 episodes by scenario (116 / 104 / 102 / 118 / 110 / 239) over
311 videos, a plausible split of safety and non-safety episodes (``SAFETY_OF``; the release's
is not public), reviewed intervention times in seconds after the dialogue, and ids and row
order that say nothing about the scenario (the public file must not give it away).

The understanding key and its public file name their key version in a ``key_version`` column
(``KEY_VERSION``, the same on every row), so whoever answers the public file knows which
letters they answer. A fixed seed per track makes every run write the same bytes.

Example::

    python benchmarks/egoargus/demo/make_demo_data.py
    python benchmarks/egoargus/demo/make_demo_data.py --out-dir /tmp/egoargus-demo
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import spec

HERE = Path(__file__).resolve().parent
BENCHMARK_DIR = HERE.parent
SEED = 20260601
KEY_VERSION = "demo-1"
DECISION_SEED = 20260602
DECISION_SAMPLE = "decision_sample_submission.json"
MARK = "[SYNTHETIC DEMO] "

#: The source tasks of each scenario, sharing its rows equally (the paper's composition).
TASKS_OF = {
    "multimodal_grounded": ("EgoPlan-Bench2", "QaEgo4D"),
    "contradictory": ("EgoPlan-Bench2", "QaEgo4D"),
    "video_grounded_offtopic": ("EgoPlan-Bench2", "QaEgo4D"),
    "video_grounded_ontopic": ("EgoPlan-Bench2", "QaEgo4D"),
    "text_grounded": ("MIntRec",),
}
#: These two scenarios ask the same questions (same sample_id) with other dialogues.
SHARED_SCENARIOS = ("video_grounded_offtopic", "video_grounded_ontopic")
#: Where the out-of-option rows are, and how many of them answer "E" (the rest: free text).
OUT_OF_OPTION_SCENARIOS = ("multimodal_grounded", "contradictory")
OUT_OF_OPTION_E = 8
PREFIX = {
    "multimodal_grounded": "mmg",
    "contradictory": "con",
    "video_grounded_offtopic": "off",
    "video_grounded_ontopic": "on",
    "text_grounded": "txt",
}
N_VIDEOS = 240

#: The sample run's chance of being right, per scenario (about 45 % overall), and of abstaining.
RUN_ACCURACY = {
    "multimodal_grounded": 0.62,
    "contradictory": 0.20,
    "video_grounded_offtopic": 0.42,
    "video_grounded_ontopic": 0.47,
    "text_grounded": 0.62,
}
RUN_ABSTAIN = 0.02

KEY_COLUMNS = (
    "example_id",
    "sample_id",
    "video_uid",
    "scenario",
    "task",
    "dialogue",
    "question",
    "options",
    "correct_answer",
    "label_status",
    "key_version",
)
#: The public file has no answer, and no flag either: "out of option" says the answer is not
#: among the options, which is itself answer information.
PUBLIC_COLUMNS = tuple(c for c in KEY_COLUMNS if c not in ("correct_answer", "label_status"))

GOALS = (
    "make a cup of tea",
    "repot the basil",
    "fix the bicycle chain",
    "fold the laundry",
    "bake a tray of scones",
    "hang the picture frame",
    "clean the aquarium",
    "assemble the bookshelf",
    "wrap the gift",
    "sort the recycling",
)
ACTIONS = (
    "pick up the kettle",
    "open the cupboard",
    "rinse the sponge",
    "turn on the tap",
    "grab the screwdriver",
    "put down the scissors",
    "close the drawer",
    "wipe the counter",
    "lift the lid",
    "unplug the cable",
    "fetch the ladder",
    "measure the shelf",
    "peel the tape",
    "stir the bowl",
)
OBJECTS = (
    "blue mug",
    "spare key",
    "pair of pliers",
    "notebook",
    "phone charger",
    "rolling pin",
    "watering can",
    "headphones",
    "roll of tape",
    "wooden spoon",
)
PLACES = (
    "on the windowsill",
    "in the top drawer",
    "next to the sink",
    "under the table",
    "on the bookshelf",
    "in the backpack",
    "beside the stove",
    "on the sofa",
    "in the garage",
    "by the front door",
)
INTENTS = (
    "ask for help",
    "complain",
    "thank someone",
    "apologise",
    "agree",
    "joke",
    "make a plan",
    "express doubt",
    "greet",
    "refuse an offer",
)
OFF_TOPICS = (
    "the weather this weekend",
    "a football match",
    "a new film",
    "a holiday plan",
    "a friend's birthday",
)
FREE_TEXT = ("Purple", "a soldering iron", "Seven", "the red bucket", "Nobody")


@dataclass(frozen=True)
class Item:
    """A synthetic question before it is placed in a scenario."""

    sample_id: str
    video_uid: str
    task: str
    phrase: str  # what the user wants, as a verb phrase: "repot the basil", "find the notebook"
    question: str
    options: dict[str, str]
    answer: str


def _video_uid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _options(
    rng: random.Random, correct: str, pool: Sequence[str], letters: str
) -> tuple[dict[str, str], str]:
    distractors = rng.sample([p for p in pool if p != correct], len(letters) - 1)
    answer = rng.choice(letters)
    texts = iter(distractors)
    options = {letter: correct if letter == answer else next(texts) for letter in letters}
    return options, answer


def _item(rng: random.Random, task: str, sample_id: str, video_uid: str, letters: str) -> Item:
    if task == "EgoPlan-Bench2":
        phrase = rng.choice(GOALS)
        correct = rng.choice(ACTIONS)
        question = f"{MARK}To {phrase}, what should the camera wearer do next?"
        pool: Sequence[str] = ACTIONS
    elif task == "QaEgo4D":
        thing = rng.choice(OBJECTS)
        phrase = f"find the {thing}"
        correct = rng.choice(PLACES)
        question = f"{MARK}Where did the camera wearer leave the {thing}?"
        pool = PLACES
    else:
        phrase = correct = rng.choice(INTENTS)
        question = f"{MARK}What does the user mean to do with their last remark?"
        pool = INTENTS
    options, answer = _options(rng, correct, pool, letters)
    return Item(sample_id, video_uid, task, phrase, question, options, answer)


def _dialogue(rng: random.Random, scenario: str, item: Item) -> str:
    """A short user-assistant exchange whose content suits the scenario."""
    if scenario == "video_grounded_offtopic":
        user = f"Did you hear anything about {rng.choice(OFF_TOPICS)}?"
    elif scenario == "contradictory":
        user = f"I do not need to {item.phrase} any more, do I?"
    elif scenario == "text_grounded":
        user = f"Honestly, all I wanted was to {item.phrase}."
    else:
        user = f"Can you help me {item.phrase}?"
    turns = [
        {"speaker": "user", "text": MARK + user},
        {"speaker": "assistant", "text": MARK + "Sure, tell me when you need me."},
    ]
    if rng.random() < 0.5:
        turns.append({"speaker": "user", "text": MARK + "Thanks, I will."})
    return json.dumps(turns)


def build_key(track: spec.MultipleChoiceTrack, rng: random.Random) -> list[dict[str, str]]:
    """Every key row, in key order: scenario by scenario, task by task."""
    scenarios = {g.spelled: g.size for g in track.groupings[0].groups}
    if set(scenarios) != set(TASKS_OF):
        raise SystemExit(
            f"the spec's scenarios {sorted(scenarios)} are not this generator's "
            f"{sorted(TASKS_OF)}; update TASKS_OF"
        )
    letters = track.options.letters[: track.options.max]
    videos = [_video_uid(rng) for _ in range(N_VIDEOS)]
    per_video: dict[str, int] = {}
    mintrec = 0

    def new_item(task: str) -> Item:
        nonlocal mintrec
        video = rng.choice(videos)
        if task == "MIntRec":
            mintrec += 1
            return _item(rng, task, f"mintrec_{mintrec - 1:04d}", video, letters)
        per_video[video] = per_video.get(video, 0) + 1
        return _item(rng, task, f"{video}_{per_video[video]}", video, letters)

    shared: dict[str, list[Item]] = {}
    rows: list[dict[str, str]] = []
    for scenario, size in scenarios.items():
        tasks = TASKS_OF[scenario]
        if size % len(tasks):
            raise SystemExit(f"{scenario} has {size} rows, not divisible by its {len(tasks)} tasks")
        number = 0
        for task in tasks:
            if scenario in SHARED_SCENARIOS and task in shared:
                items = shared[task]
            else:
                items = [new_item(task) for _ in range(size // len(tasks))]
                if scenario in SHARED_SCENARIOS:
                    shared[task] = items
            for item in items:
                number += 1
                rows.append(
                    {
                        "example_id": f"{PREFIX[scenario]}-{number:06d}",
                        "sample_id": item.sample_id,
                        "video_uid": item.video_uid,
                        "scenario": scenario,
                        "task": task,
                        "dialogue": _dialogue(rng, scenario, item),
                        "question": item.question,
                        "options": json.dumps(item.options),
                        "correct_answer": item.answer,
                        "label_status": "",
                        "key_version": KEY_VERSION,
                    }
                )
    for grouping in track.groupings[1:]:
        found = Counter(r[grouping.field] for r in rows)
        expected = {g.value: g.size for g in grouping.groups}
        if found != expected:
            raise SystemExit(
                f"the rows' {grouping.field} counts {dict(found)} are not the "
                f"spec's {expected}; update TASKS_OF"
            )
    _flag_out_of_option(track, rng, rows)
    return rows


def _flag_out_of_option(
    track: spec.MultipleChoiceTrack, rng: random.Random, rows: list[dict[str, str]]
) -> None:
    flag = track.out_of_option
    if flag is None:
        return
    candidates = [r for r in rows if r["scenario"] in OUT_OF_OPTION_SCENARIOS]
    chosen = sorted(rng.sample(range(len(candidates)), flag.rows))
    for n, index in enumerate(chosen):
        row = candidates[index]
        row["correct_answer"] = "E" if n < OUT_OF_OPTION_E else FREE_TEXT[n % len(FREE_TEXT)]
        row[flag.field] = flag.value


def build_run(
    rows: list[dict[str, str]], letters: str, rng: random.Random
) -> list[dict[str, str | None]]:
    """A plausible model's answers: right about 45 % of the time, abstaining about 2 %."""
    out: list[dict[str, str | None]] = []
    for row in rows:
        answer: str | None
        if rng.random() < RUN_ABSTAIN:
            answer = None
        elif row["correct_answer"] in letters and rng.random() < RUN_ACCURACY[row["scenario"]]:
            answer = row["correct_answer"]
        else:
            answer = rng.choice([x for x in letters if x != row["correct_answer"]])
        out.append({"example_id": row["example_id"], "predicted_answer": answer})
    return out


# --- the decision episodes ---------------------------------------------------------------------

N_EPISODE_VIDEOS = 311
#: Safety episodes of each assistance scenario (the rest are non-safety): 272 of 550.
SAFETY_OF = {
    "multimodal_grounded": 58,
    "contradictory": 60,
    "video_grounded_ontopic": 50,
    "video_grounded_offtopic": 48,
    "text_grounded": 56,
}
DECISION_PUBLIC = ("example_id", "video_id", "video_filename", "dialogue_time_s", "dialogue")
HAZARDS = (
    "a pan left on a lit hob",
    "a knife at the table's edge",
    "a wet floor by the sink",
    "a ladder on an uneven step",
    "a cable across the walkway",
    "an open oven door",
)
SLIPS = (
    "the wrong jar of spice",
    "a skipped step of the recipe",
    "the lid left on the shelf",
    "a missing screw",
    "the label facing the wrong way",
    "the timer never started",
)
#: The sample run's chance of assisting: on safety, non-safety and no-assistance episodes.
RUN_ASSIST = {"safety": 0.82, "non_safety": 0.68, "none": 0.28}
RUN_UNTIMED = 0.06  # of its assists, the share without a time
RUN_EARLY_S, RUN_SPREAD_S = -1.6, 2.2  # its timing error: a normal, mostly too early


def _decision_dialogue(rng: random.Random, scenario: str, silent: str) -> list[dict[str, str]]:
    if scenario == silent:
        user = rng.choice(
            (
                "Just tidying up, nothing special.",
                "I know what I am doing here.",
                "Let me finish this on my own.",
            )
        )
    elif scenario == "contradictory":
        user = "I think everything is already done, right?"
    elif scenario == "video_grounded_offtopic":
        user = f"Did you hear anything about {rng.choice(OFF_TOPICS)}?"
    else:
        user = f"Can you keep an eye on me while I {rng.choice(GOALS)}?"
    return [
        {"speaker": "user", "text": MARK + user},
        {"speaker": "assistant", "text": MARK + "I am here if you need me."},
    ]


def build_decision_key(track: spec.DecisionTrack, rng: random.Random) -> list[dict[str, object]]:
    """Every episode, shuffled, with ids in the shuffled order."""
    sizes = {g.value: g.size for g in track.scenarios.groups}
    silent = track.silent_scenario
    if set(sizes) - {silent} != set(SAFETY_OF):
        raise SystemExit(
            f"the spec's scenarios {sorted(sizes)} are not this generator's "
            f"{sorted(SAFETY_OF)} and {silent}; update SAFETY_OF"
        )
    videos = [_video_uid(rng) for _ in range(N_EPISODE_VIDEOS)]
    kinds = [
        (
            scenario,
            "none" if scenario == silent else "safety" if n < SAFETY_OF[scenario] else "non_safety",
        )
        for scenario, size in sizes.items()
        for n in range(size)
    ]
    rng.shuffle(kinds)
    order = videos + [rng.choice(videos) for _ in range(len(kinds) - len(videos))]
    rng.shuffle(order)  # every video at least once
    rows: list[dict[str, object]] = []
    for number, ((scenario, assist_type), video) in enumerate(zip(kinds, order, strict=True), 1):
        duration = rng.uniform(40.0, 240.0)
        said = round(rng.uniform(3.0, duration * 0.6), 1)
        needed = assist_type != "none"
        when = round(min(said + rng.uniform(0.5, 20.0), duration - 1.0), 1) if needed else None
        pool = HAZARDS if assist_type == "safety" else SLIPS
        thing = rng.choice(pool) if needed else None
        rows.append(
            {
                "example_id": f"ep-{number:06d}",
                "video_id": video,
                "video_filename": f"VISTA/{video}.mp4",
                "scenario": scenario,
                "assist_type": assist_type,
                "intervention_time_s": when,
                "dialogue_time_s": said,
                "dialogue": _decision_dialogue(rng, scenario, silent),
                "issue": f"{MARK}Watch out: {thing}." if thing else None,
                "steps": [f"{MARK}Stop and point out {thing}.", f"{MARK}Suggest how to fix it."]
                if thing
                else [],
            }
        )
    found = Counter(str(r["scenario"]) for r in rows)
    if found != sizes:
        raise SystemExit(f"the episodes' scenarios {dict(found)} are not the spec's {sizes}")
    return rows


def build_decision_run(
    rows: list[dict[str, object]], rng: random.Random
) -> list[dict[str, object]]:
    """A plausible model's decisions: assists on most episodes that need it, on some that do
    not, mostly a little too early, sometimes without a time, abstaining about 2 %."""
    out: list[dict[str, object]] = []
    for row in rows:
        entry: dict[str, object] = {"example_id": row["example_id"]}
        if rng.random() < RUN_ABSTAIN:
            out.append({**entry, "assist": None, "intervention_time_s": None})
            continue
        assists = rng.random() < RUN_ASSIST[str(row["assist_type"])]
        when = None
        if assists and rng.random() >= RUN_UNTIMED:
            base = row["intervention_time_s"]
            if not isinstance(base, float):
                base = float(str(row["dialogue_time_s"])) + rng.uniform(0.0, 10.0)
            when = round(max(0.0, base + rng.gauss(RUN_EARLY_S, RUN_SPREAD_S)), 1)
        entry.update({"assist": assists, "intervention_time_s": when})
        if assists:
            entry.update(
                {
                    "issue": f"{MARK}Something needs your attention.",
                    "evidence": f"{MARK}Seen in the last seconds of the video.",
                    "steps": [f"{MARK}Pause.", f"{MARK}Look at it together."],
                }
            )
        out.append(entry)
    return out


def _jsonl(rows: Sequence[dict[str, object]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


def _csv(rows: list[dict[str, str]], columns: Sequence[str]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([row[c] for c in columns] for row in rows)
    return buffer.getvalue().encode("utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Write EgoArgus's synthetic demo key, public file and sample submission.",
        epilog="Example: python benchmarks/egoargus/demo/make_demo_data.py --out-dir /tmp/demo",
    )
    parser.add_argument(
        "--out-dir",
        type=Path,
        default=HERE,
        help="the folder to write into (default: this script's folder)",
    )
    args = parser.parse_args(argv)
    bench = spec.load_benchmark(str(BENCHMARK_DIR))
    track = bench.track("understanding", kind=spec.MultipleChoiceTrack)
    rng = random.Random(SEED)
    rows = build_key(track, rng)
    run = build_run(rows, track.options.letters[: track.options.max], rng)
    out: Path = args.out_dir
    out.mkdir(parents=True, exist_ok=True)
    (out / track.key.name).write_bytes(_csv(rows, KEY_COLUMNS))
    (out / track.public.name).write_bytes(_csv(rows, PUBLIC_COLUMNS))
    (out / "sample_submission.json").write_text(json.dumps(run, indent=1) + "\n", encoding="utf-8")
    print(
        f"wrote {len(rows)} rows to {out / track.key.name}, {out / track.public.name} and "
        f"{out / 'sample_submission.json'}"
    )

    decision = bench.track("decision", kind=spec.DecisionTrack)
    if not isinstance(decision, spec.DecisionTrack):
        raise SystemExit("the decision track of the spec is not of kind decision")
    rng = random.Random(DECISION_SEED)
    episodes = build_decision_key(decision, rng)
    decisions = build_decision_run(episodes, rng)
    (out / decision.key.name).write_bytes(_jsonl(episodes))
    (out / decision.public.name).write_bytes(
        _jsonl([{c: e[c] for c in DECISION_PUBLIC} for e in episodes])
    )
    (out / DECISION_SAMPLE).write_text(
        json.dumps(decisions, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(
        f"wrote {len(episodes)} episodes to {out / decision.key.name}, "
        f"{out / decision.public.name} and {out / DECISION_SAMPLE}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
