"""Write EgoArgus's synthetic demo data: an understanding key, its public file, a sample run.

The review release carries no reuse licence, so nothing here comes from it: every question,
option and dialogue is made up and marked ``[SYNTHETIC DEMO]``. Only the shape is the
release's: the group sizes of the spec (6,978 rows over five scenarios and three source tasks),
the scenario x task split of the paper, ``sample_id``s shared by the off-topic and on-topic
scenarios, four options A-D, and the out-of-option rows (the spec's count, all in the
multimodal and contradictory scenarios, 8 answered "E" and the rest in free text).

A fixed seed makes every run write the same bytes.

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
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import spec

HERE = Path(__file__).resolve().parent
BENCHMARK_DIR = HERE.parent
SEED = 20260601
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
PREFIX = {"multimodal_grounded": "mmg", "contradictory": "con", "video_grounded_offtopic": "off",
          "video_grounded_ontopic": "on", "text_grounded": "txt"}
N_VIDEOS = 240

#: The sample run's chance of being right, per scenario (about 45 % overall), and of abstaining.
RUN_ACCURACY = {"multimodal_grounded": 0.62, "contradictory": 0.20,
                "video_grounded_offtopic": 0.42, "video_grounded_ontopic": 0.47,
                "text_grounded": 0.62}
RUN_ABSTAIN = 0.02

KEY_COLUMNS = ("example_id", "sample_id", "video_uid", "scenario", "task", "dialogue",
               "question", "options", "correct_answer", "label_status")
#: The public file has no answer, and no flag either: "out of option" says the answer is not
#: among the options, which is itself answer information.
PUBLIC_COLUMNS = KEY_COLUMNS[:-2]

GOALS = ("make a cup of tea", "repot the basil", "fix the bicycle chain", "fold the laundry",
         "bake a tray of scones", "hang the picture frame", "clean the aquarium",
         "assemble the bookshelf", "wrap the gift", "sort the recycling")
ACTIONS = ("pick up the kettle", "open the cupboard", "rinse the sponge", "turn on the tap",
           "grab the screwdriver", "put down the scissors", "close the drawer",
           "wipe the counter", "lift the lid", "unplug the cable", "fetch the ladder",
           "measure the shelf", "peel the tape", "stir the bowl")
OBJECTS = ("blue mug", "spare key", "pair of pliers", "notebook", "phone charger", "rolling pin",
           "watering can", "headphones", "roll of tape", "wooden spoon")
PLACES = ("on the windowsill", "in the top drawer", "next to the sink", "under the table",
          "on the bookshelf", "in the backpack", "beside the stove", "on the sofa",
          "in the garage", "by the front door")
INTENTS = ("ask for help", "complain", "thank someone", "apologise", "agree", "joke",
           "make a plan", "express doubt", "greet", "refuse an offer")
OFF_TOPICS = ("the weather this weekend", "a football match", "a new film", "a holiday plan",
              "a friend's birthday")
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


def _options(rng: random.Random, correct: str, pool: Sequence[str],
             letters: str) -> tuple[dict[str, str], str]:
    distractors = rng.sample([p for p in pool if p != correct], len(letters) - 1)
    answer = rng.choice(letters)
    texts = iter(distractors)
    options = {letter: correct if letter == answer else next(texts) for letter in letters}
    return options, answer


def _item(rng: random.Random, task: str, sample_id: str, video_uid: str,
          letters: str) -> Item:
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
    turns = [{"speaker": "user", "text": MARK + user},
             {"speaker": "assistant", "text": MARK + "Sure, tell me when you need me."}]
    if rng.random() < 0.5:
        turns.append({"speaker": "user", "text": MARK + "Thanks, I will."})
    return json.dumps(turns)


def build_key(track: spec.Track, rng: random.Random) -> list[dict[str, str]]:
    """Every key row, in key order: scenario by scenario, task by task."""
    scenarios = {g.value: g.size for g in track.groupings[0].groups}
    if set(scenarios) != set(TASKS_OF):
        raise SystemExit(f"the spec's scenarios {sorted(scenarios)} are not this generator's "
                         f"{sorted(TASKS_OF)}; update TASKS_OF")
    letters = track.options.letters[:track.options.max]
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
            raise SystemExit(f"{scenario} has {size} rows, not divisible by its {len(tasks)} "
                             "tasks")
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
                rows.append({
                    "example_id": f"{PREFIX[scenario]}-{number:06d}",
                    "sample_id": item.sample_id, "video_uid": item.video_uid,
                    "scenario": scenario, "task": task,
                    "dialogue": _dialogue(rng, scenario, item), "question": item.question,
                    "options": json.dumps(item.options), "correct_answer": item.answer,
                    "label_status": "",
                })
    for grouping in track.groupings[1:]:
        found = Counter(r[grouping.field] for r in rows)
        expected = {g.value: g.size for g in grouping.groups}
        if found != expected:
            raise SystemExit(f"the rows' {grouping.field} counts {dict(found)} are not the "
                             f"spec's {expected}; update TASKS_OF")
    _flag_out_of_option(track, rng, rows)
    return rows


def _flag_out_of_option(track: spec.Track, rng: random.Random,
                        rows: list[dict[str, str]]) -> None:
    flag = track.out_of_option
    if flag is None:
        return
    candidates = [r for r in rows if r["scenario"] in OUT_OF_OPTION_SCENARIOS]
    chosen = sorted(rng.sample(range(len(candidates)), flag.rows))
    for n, index in enumerate(chosen):
        row = candidates[index]
        row["correct_answer"] = "E" if n < OUT_OF_OPTION_E else FREE_TEXT[n % len(FREE_TEXT)]
        row[flag.field] = flag.value


def build_run(rows: list[dict[str, str]], letters: str,
              rng: random.Random) -> list[dict[str, str | None]]:
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
    parser.add_argument("--out-dir", type=Path, default=HERE,
                        help="the folder to write into (default: this script's folder)")
    args = parser.parse_args(argv)
    track = spec.load_benchmark(str(BENCHMARK_DIR)).track("understanding")
    rng = random.Random(SEED)
    rows = build_key(track, rng)
    run = build_run(rows, track.options.letters[:track.options.max], rng)
    out: Path = args.out_dir
    out.mkdir(parents=True, exist_ok=True)
    (out / track.key.name).write_bytes(_csv(rows, KEY_COLUMNS))
    (out / track.public.name).write_bytes(_csv(rows, PUBLIC_COLUMNS))
    (out / "sample_submission.json").write_text(json.dumps(run, indent=1) + "\n",
                                                encoding="utf-8")
    print(f"wrote {len(rows)} rows to {out / track.key.name}, {out / track.public.name} and "
          f"{out / 'sample_submission.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
