"""Releases written as real benchmarks publish them, with nothing else (issue 28): the key
file, a predictions file in the shape the authors' own evaluation writes, the scaffold flags
that name what the key does not say, and the authors' numbers, computed from the files by a few
lines of plain Python (the official reading of a prediction included), not by the evaluator.

Layouts (``LAYOUTS``):

- ``keyed``: a JSON object keyed by id (``{"q0001": {"question", "options": [...], "answer":
  "C", "category"}}``); predictions a JSON object keyed by id, each value the letter;
- ``nested``: a JSON object whose path is the id (``{video: {dimension: [{question, "events":
  [...], answer}, ...]}}``, no per-question id); predictions the key's own structure with a
  ``"prediction"`` in each row; two of its dimensions counted as one (``--merge``), a macro
  mean over all groups, and a table printed to two decimals (``--decimals 2``);
- ``inquestion``: JSON Lines with the options written inside the question (``"...?\\nA. left
  \\nB. right"``), answers written ``"B. right"``, and no category field (a one-value ``split``,
  clip names of 5 questions each, a numeric ``width``): Overall alone; predictions JSON Lines
  (``preds.jsonl``), letters written as the official scorer reads them (``"B"``,
  ``"B. right"``, ``"B)"``).

Example::

    release = write_published(tmp_path, "nested")
    release.key, release.predictions, release.flags
    official_tallies(release)  # {"overall": (right, total), "color": ..., ...}
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LAYOUTS = ("keyed", "nested", "inquestion")
LETTERS = "ABCDEFGHIJ"


@dataclass(frozen=True)
class Published:
    """A release's key and predictions as published, and the scaffold's flags for it."""

    layout: str
    key: Path
    predictions: Path
    flags: tuple[str, ...]  # new_benchmark.py's, besides --id, --key and --out

    @property
    def decimals(self) -> int:
        """The decimals the release's own table prints a percent with (``--decimals``)."""
        flags = list(self.flags)
        return int(flags[flags.index("--decimals") + 1]) if "--decimals" in flags else 1


def _keyed(rng: random.Random) -> tuple[Any, Any]:
    key, predictions = {}, {}
    for n in range(66):
        options = [f"[SYNTHETIC] option {k} of question {n}" for k in range(4)]
        answer = LETTERS[rng.randrange(4)]
        key[f"q{n:04d}"] = {
            "question": f"[SYNTHETIC] what is true of scene {n}?",
            "options": options,
            "answer": answer,
            "category": ("spatial", "temporal", "causal")[n % 3],
            "width": str((640, 1280, 1920)[n % 3]),  # metadata, not a category
        }
        predictions[f"q{n:04d}"] = answer if rng.random() < 0.6 else LETTERS[rng.randrange(4)]
    return key, predictions


DIMENSIONS = ("color", "count", "location", "speed", "direction")
#: How the nested release's official scorer counts its dimensions: speed and direction as one.
NESTED_GROUPS = {"color": "color", "count": "count", "location": "location"} | {
    "speed": "motion",
    "direction": "motion",
}


def _nested(rng: random.Random) -> tuple[Any, Any]:
    key: dict[str, Any] = {}
    for v in range(10):
        video = f"video_{v:02d}"
        key[video] = {}
        for dimension in DIMENSIONS:
            rows = []
            for q in range(3 if dimension in ("speed", "direction") else 2):
                count = rng.choice((3, 4))
                rows.append(
                    {
                        "question": f"[SYNTHETIC] the {dimension} in {video}, question {q}?",
                        "events": [f"[SYNTHETIC] event {k}" for k in range(count)],
                        "answer": LETTERS[rng.randrange(count)],
                    }
                )
            key[video][dimension] = rows
    predictions = json.loads(json.dumps(key))
    for dimensions in predictions.values():
        for rows in dimensions.values():
            for row in rows:
                guess = LETTERS[rng.randrange(len(row["events"]))]
                row["prediction"] = row["answer"] if rng.random() < 0.55 else guess
    return key, predictions


def _inquestion(rng: random.Random) -> tuple[Any, Any]:
    key, predictions = [], []
    for n in range(60):
        count = rng.choice((3, 4, 5))
        texts = [f"[SYNTHETIC] {k} things" for k in range(count)]
        right = rng.randrange(count)
        lines = "\n".join(f"{LETTERS[k]}. {t}" for k, t in enumerate(texts))
        key.append(
            {
                "qid": f"dev_{n:03d}",
                "vid_name": f"clip_{n // 5:03d}",
                "question": f"[SYNTHETIC] how many things in clip {n}?\n{lines}",
                "answer": f"{LETTERS[right]}. {texts[right]}",
                "split": "dev",
                "width": str((640, 1280)[n % 2]),
            }
        )
        guess = right if rng.random() < 0.5 else rng.randrange(count)
        letter = LETTERS[guess]
        # As one model's outputs are: mostly a letter, some the whole answer, some "B)".
        written = (letter, f"{letter}. {texts[guess]}", f"{letter})")[n % 3]
        predictions.append({"qid": f"dev_{n:03d}", "prediction": written})
    return key, predictions


_FILES = {
    "keyed": ("val.json", "preds.json"),
    "nested": ("test.json", "test_predictions.json"),
    "inquestion": ("dev.jsonl", "preds.jsonl"),
}
FLAGS: dict[str, tuple[str, ...]] = {
    "keyed": (),
    "nested": (
        "--id-fields",
        "video,dimension",
        "--group",
        "dimension",
        "--merge",
        "motion=speed,direction",
        "--macro",
        "mean=all",
        "--prediction",
        "prediction",
        "--decimals",
        "2",
    ),
    "inquestion": ("--prediction", "prediction", "--prediction-forms", "letter_prefix"),
}


def write_published(root: Path, layout: str, seed: int = 28) -> Published:
    """The release of ``layout`` under ``root``: its key and predictions files as published."""
    rng = random.Random(f"{layout}-{seed}")
    key, predictions = {"keyed": _keyed, "nested": _nested, "inquestion": _inquestion}[layout](rng)
    root.mkdir(parents=True, exist_ok=True)
    key_name, predictions_name = _FILES[layout]
    for name, body in ((key_name, key), (predictions_name, predictions)):
        if name.endswith(".jsonl"):
            text = "".join(json.dumps(row) + "\n" for row in body)
        else:
            text = json.dumps(body, indent=1)
        (root / name).write_text(text, encoding="utf-8")
    return Published(layout, root / key_name, root / predictions_name, FLAGS[layout])


def _official_letter(prediction: str) -> str | None:
    """The letter the inquestion release's official scorer reads: a bare letter, or a letter
    followed by "." or ")" (the whole answer string, "B. text", is one such)."""
    if len(prediction) == 1:
        return prediction
    if len(prediction) >= 2 and prediction[1] in ".)":
        return prediction[0]
    return None


def official_tallies(release: Published) -> dict[str, tuple[int, int]]:
    """Correct and total per group and overall, as each release's own scorer counts them."""
    hits: dict[str, list[int]] = {}

    def count(group: str | None, right: bool) -> None:
        for name in ("overall", group) if group else ("overall",):
            tally = hits.setdefault(name, [0, 0])
            tally[0] += right
            tally[1] += 1

    if release.layout == "keyed":
        key = json.loads(release.key.read_text())
        predictions = json.loads(release.predictions.read_text())
        for ident, row in key.items():
            count(row["category"], predictions[ident] == row["answer"])
    elif release.layout == "nested":
        predictions = json.loads(release.predictions.read_text())
        for dimensions in predictions.values():
            for dimension, rows in dimensions.items():
                for row in rows:
                    count(NESTED_GROUPS[dimension], row["prediction"] == row["answer"])
    else:
        key = {}
        for line in release.key.read_text().splitlines():
            row = json.loads(line)
            key[row["qid"]] = row["answer"][0]
        for line in release.predictions.read_text().splitlines():
            entry = json.loads(line)
            count(None, _official_letter(entry["prediction"]) == key[entry["qid"]])
    return {name: (right, total) for name, (right, total) in hits.items()}


def official_numbers(release: Published) -> dict[str, float]:
    """The accuracies in percent the release's scorer prints, and the nested release's mean
    over its groups (each group weighing the same)."""
    tallies = official_tallies(release)
    out = {k: 100 * right / total for k, (right, total) in tallies.items()}
    if release.layout == "nested":
        groups = [v for k, v in out.items() if k != "overall"]
        out["mean"] = sum(groups) / len(groups)
    return out
