"""Benchmark folders whose releases are written as their authors publish them (issue 19), and
the authors' own evaluation of a predictions file, written as a few lines of plain Python over
the files (not through the evaluator), to compare the board's numbers with.

Three layouts, each with its predictions as the benchmark's own evaluation writes them (a JSON
object keyed by id, each value an object holding the prediction and other fields):

- ``videoqa``: a CSV with the id made of two columns (``video`` and a question number that
  repeats across videos), options in ``a0`` ... ``a4`` (an empty cell ending a row's options),
  the answer a 0-based index, and one group covering two codes of the ``type`` column;
- ``textqa``: a JSON key whose options are a list of texts and whose answer is the text;
- ``onebased``: a JSON Lines key with options in columns and 1-based index answers, integer
  ids (the predictions' keys are their decimal digits).

Example::

    release = write_release(tmp_path, "videoqa")
    release.folder, release.key, release.public, release.predictions
    authors_numbers(release)  # {"overall": 55.0, "causal": ..., ...}
"""

from __future__ import annotations

import csv
import io
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LAYOUTS = ("videoqa", "textqa", "onebased")

_HEAD = """
id = "{id}"
title = "{title}"
description = "A release written as its authors publish it."
contact_email = "authors@example.org"

[hub]
private_repo = "authors/{title}-Private"
records_repo = "authors/{title}-Leaderboard"

[input]
label = "Input"
choices = {{ "frames" = "Frames", "other" = "Other" }}

[[tracks]]
id = "main"
title = "Main"
kind = "multiple_choice"
scorer_version = "{id}-scorer 1"
min_rows = 1
"""

SPECS = {
    "videoqa": """
key = { name = "val_private.csv", format = "csv" }
public = { name = "val_public.csv", format = "csv" }
options = { letters = "ABCDE", min = 4, max = 5 }

[tracks.fields]
id = ["video", "qid"]
question = "question"
options = ["a0", "a1", "a2", "a3", "a4"]
answer = "answer"
answer_format = "index"
prediction = "prediction"

[[tracks.groupings]]
id = "category"
field = "type"
title = "Categories"
groups = [
  { value = ["CW", "CH"], key = "causal", label = "Causal", size = 24 },
  { value = "TN", key = "temporal", label = "Temporal", size = 20 },
  { value = "DO", key = "descriptive", label = "Descriptive", size = 16 },
]

[[tracks.views]]
title = "Categories"
metrics = ["causal", "temporal", "descriptive"]
columns = ["rank_range", "source", "team"]
""",
    "textqa": """
key = { name = "key.json", format = "json" }
public = { name = "questions.json", format = "json" }
options = { letters = "ABCD", min = 3, max = 4 }

[tracks.fields]
id = "qid"
id_type = "string"
question = "question"
options = "choices"
answer = "answer"
answer_format = "text"
prediction = "prediction"

[[tracks.groupings]]
id = "domain"
field = "domain"
title = "Domains"
groups = [
  { value = "colour", key = "colour", label = "Colour", size = 25 },
  { value = "shape", key = "shape", label = "Shape", size = 15 },
]

[[tracks.views]]
title = "Domains"
metrics = ["colour", "shape"]
columns = ["rank_range", "source", "team"]
""",
    "onebased": """
key = { name = "key.jsonl", format = "jsonl" }
public = { name = "questions.jsonl", format = "jsonl" }
options = { letters = "ABCD", min = 4, max = 4 }

[tracks.fields]
id = "n"
question = "q"
options = ["opt1", "opt2", "opt3", "opt4"]
answer = "gold"
answer_format = "index1"
prediction = "prediction"

[[tracks.groupings]]
id = "level"
field = "level"
title = "Levels"
groups = [
  { value = ["easy", "e"], key = "easy", label = "Easy", size = 18 },
  { value = "hard", key = "hard", label = "Hard", size = 12 },
]

[[tracks.views]]
title = "Levels"
metrics = ["easy", "hard"]
columns = ["rank_range", "source", "team"]
""",
}

#: The videoqa release's type codes, each with the category the authors' evaluation counts it in.
VIDEOQA_CATEGORIES = {"CW": "causal", "CH": "causal", "TN": "temporal", "DO": "descriptive"}
ONEBASED_LEVELS = {"easy": "easy", "e": "easy", "hard": "hard"}


@dataclass(frozen=True)
class Release:
    """A benchmark folder, its key and public file, and a predictions file in the benchmark's
    own shape (the demo's key and public file are these)."""

    layout: str
    folder: Path
    key: Path
    public: Path
    predictions: Path


def _videoqa(rng: random.Random) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    codes = ["CW"] * 14 + ["CH"] * 10 + ["TN"] * 20 + ["DO"] * 16
    rng.shuffle(codes)
    for n, code in enumerate(codes):
        count = 5 if n % 3 else 4  # every third question has four options: a4 is empty
        texts = [f"[SYNTHETIC] option {k} of {n}" for k in range(count)] + [""] * (5 - count)
        rows.append(
            {
                "video": f"vid{n // 6:03d}",
                "qid": str(n % 6),  # repeats across videos
                "question": f"[SYNTHETIC] what happens in clip {n}?",
                **{f"a{k}": texts[k] for k in range(5)},
                "answer": str(rng.randrange(count)),
                "type": code,
            }
        )
    predictions = {}
    for r in rows:
        count = 5 - (r["a4"] == "")
        guess = int(r["answer"]) if rng.random() < 0.55 else rng.randrange(count)
        predictions[f"{r['video']}_{r['qid']}"] = {
            "prediction": guess,
            "answer": int(r["answer"]),
        }
    return rows, predictions


def _textqa(rng: random.Random) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for n in range(40):
        count = 3 if n % 4 == 0 else 4
        choices = [f"[SYNTHETIC] answer {k} to {n}" for k in range(count)]
        rows.append(
            {
                "qid": f"q{n:03d}",
                "question": f"[SYNTHETIC] question {n}",
                "choices": choices,
                "answer": choices[rng.randrange(count)],
                "domain": "colour" if n < 25 else "shape",
            }
        )
    predictions = {}
    for r in rows:
        guess = r["answer"] if rng.random() < 0.6 else rng.choice(r["choices"])
        predictions[r["qid"]] = {"prediction": guess, "answer": r["answer"]}
    return rows, predictions


def _onebased(rng: random.Random) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    levels = ["easy"] * 10 + ["e"] * 8 + ["hard"] * 12
    for n, level in enumerate(levels, 1):
        rows.append(
            {
                "n": n,
                "q": f"[SYNTHETIC] puzzle {n}",
                **{f"opt{k}": f"[SYNTHETIC] choice {k} of {n}" for k in range(1, 5)},
                "gold": rng.randint(1, 4),
                "level": level,
            }
        )
    predictions = {}
    for r in rows:
        guess = r["gold"] if rng.random() < 0.5 else rng.randint(1, 4)
        predictions[str(r["n"])] = {"prediction": guess, "answer": r["gold"]}
    return rows, predictions


_ANSWER = {"videoqa": "answer", "textqa": "answer", "onebased": "gold"}
_FILES = {
    "videoqa": ("val_private.csv", "val_public.csv"),
    "textqa": ("key.json", "questions.json"),
    "onebased": ("key.jsonl", "questions.jsonl"),
}


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    if path.suffix == ".csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        path.write_text(out.getvalue(), encoding="utf-8")
    elif path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        path.write_text(json.dumps(rows, indent=1), encoding="utf-8")


def _printing_letters(layout: str, rows: list[dict[str, Any]], predictions: dict[str, Any]) -> None:
    """Every option's text led by its letter ("B. ..."), as many releases print them; a text
    answer, and a prediction written as a text, led by it too."""
    if layout == "textqa":
        for row in rows:
            printed = {t: f"{'ABCD'[k]}. {t}" for k, t in enumerate(row["choices"])}
            row["choices"] = list(printed.values())
            row["answer"] = printed[row["answer"]]
            entry = predictions[row["qid"]]
            entry["prediction"], entry["answer"] = printed[entry["prediction"]], row["answer"]
        return
    parts = [f"a{k}" for k in range(5)] if layout == "videoqa" else [f"opt{k}" for k in range(1, 5)]
    for row in rows:
        for letter, part in zip("ABCDE", parts, strict=False):
            if row[part]:
                row[part] = f"{letter}. {row[part]}"


def write_release(root: Path, layout: str, seed: int = 19, printed: bool = False) -> Release:
    """A benchmark folder under ``root`` in ``layout``, its demo key and public file the
    release itself, and a predictions file in the benchmark's own shape; ``printed``: each
    option's text leads with its letter ("B. ...")."""
    rng = random.Random(f"{layout}-{seed}")
    rows, predictions = {"videoqa": _videoqa, "textqa": _textqa, "onebased": _onebased}[layout](rng)
    if printed:
        _printing_letters(layout, rows, predictions)
    folder = root / layout
    (folder / "demo").mkdir(parents=True)
    title = layout.capitalize()
    (folder / "benchmark.toml").write_text(
        _HEAD.format(id=layout, title=title) + SPECS[layout], encoding="utf-8"
    )
    (folder / "about.md").write_text(f"## {title}\n\nA synthetic release.\n", encoding="utf-8")
    (folder / "citation.bib").write_text(f"@misc{{{layout}, title = {{{title}}}}}\n")
    key_name, public_name = _FILES[layout]
    key, public = folder / "demo" / key_name, folder / "demo" / public_name
    _write(key, rows)
    _write(public, [{k: v for k, v in r.items() if k != _ANSWER[layout]} for r in rows])
    sample = folder / "demo" / "sample_submission.json"
    sample.write_text(json.dumps(predictions), encoding="utf-8")
    return Release(layout, folder, key, public, sample)


#: A second track for a release's folder (``write_two_tracks``): the onebased layout.
_SECOND_TRACK = """
[[tracks]]
id = "puzzles"
title = "Puzzles"
kind = "multiple_choice"
scorer_version = "puzzles-scorer 1"
min_rows = 1
"""


def write_two_tracks(root: Path, seed: int = 19) -> tuple[Path, Release, Release]:
    """A benchmark folder of two tracks in their authors' layouts: ``main`` (videoqa: ids of
    two columns, 0-based index answers) and ``puzzles`` (onebased: integer ids, 1-based index
    answers), both predictions files valued ``{"prediction": ...}``; the folder and each
    track's release (the puzzles' files are copied into the folder's demo)."""
    main = write_release(root, "videoqa", seed)
    puzzles = write_release(root / "second", "onebased", seed)
    for path in (puzzles.key, puzzles.public):
        (main.folder / "demo" / path.name).write_bytes(path.read_bytes())
    spec_path = main.folder / "benchmark.toml"
    spec_path.write_text(spec_path.read_text() + _SECOND_TRACK + SPECS["onebased"])
    return main.folder, main, puzzles


def authors_tallies(release: Release) -> dict[str, tuple[int, int]]:
    """What the benchmark's own evaluation counts for the predictions file: correct and total,
    overall and per category, read from the files as the authors' script would (a few lines
    each, no evaluator)."""
    predictions = json.loads(release.predictions.read_text())
    hits: dict[str, list[int]] = {}

    def count(group: str, right: bool) -> None:
        for name in ("overall", group):
            tally = hits.setdefault(name, [0, 0])
            tally[0] += right
            tally[1] += 1

    if release.layout == "videoqa":
        for row in csv.DictReader(io.StringIO(release.key.read_text(encoding="utf-8"))):
            pred = predictions[f"{row['video']}_{row['qid']}"]["prediction"]
            count(VIDEOQA_CATEGORIES[row["type"]], pred == int(row["answer"]))
    elif release.layout == "textqa":
        for row in json.loads(release.key.read_text()):
            count(row["domain"], predictions[row["qid"]]["prediction"] == row["answer"])
    else:
        for line in release.key.read_text().splitlines():
            row = json.loads(line)
            pred = predictions[str(row["n"])]["prediction"]
            count(ONEBASED_LEVELS[row["level"]], pred == row["gold"])
    return {name: (right, total) for name, (right, total) in hits.items()}


def authors_numbers(release: Release) -> dict[str, float]:
    """The accuracies in percent the authors' evaluation prints (``authors_tallies``)."""
    return {k: 100 * right / total for k, (right, total) in authors_tallies(release).items()}


def publish_args(release: Release, board: Path) -> list[str]:
    """publish_submission.py's arguments for the authors' predictions of ``release`` onto the
    local board folder ``board`` (as the README's maintainer does it)."""
    return [
        "--benchmark",
        str(release.folder),
        "--leaderboard-dir",
        str(board),
        "--submission",
        str(release.predictions),
        "--private",
        str(release.key),
        "--team-name",
        "Authors",
        "--method-name",
        "Their model",
        "--model-size",
        "7B",
        "--uses-external",
        "no",
        "--uses-frames",
        "frames",
    ]
