"""A release whose authors print their table with two decimals (issue 28), taken from release to
board as the README's maintainer does it: ``scripts/new_benchmark.py --decimals 2`` writes the
folder, ``scripts/publish_submission.py`` publishes the authors' predictions onto a local board.

151 questions (every third with five options, the rest four), grouped by ``domain`` (76 and 75
questions); the predictions answer 51 of each group right, so Overall is 102 of 151,
67.5497 %: 67.55 at two decimals, 67.5 at one. What the tests expect is computed here from
counts with ``Fraction``, never by the code under test.

Example::

    release = write_release(tmp_path)
    release.folder, release.key, release.board, release.published  # the publish command's output
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from tests.support.scripts import run_script

QUESTIONS = 151
DOMAINS = {"perception": 76, "reasoning": 75}
RIGHT = {"perception": 51, "reasoning": 51}  # 102 of 151 in all
OVERALL = float(100 * Fraction(sum(RIGHT.values()), QUESTIONS))  # 67.5496...
#: What answering at random scores: a fifth on the five-option questions, a quarter on the rest.
FIVES = len(range(0, QUESTIONS, 3))
CHANCE = float(100 * (Fraction(FIVES, 5) + Fraction(QUESTIONS - FIVES, 4)) / QUESTIONS)
METHOD = "Two-decimal model"


@dataclass(frozen=True)
class Release:
    """The folder the scaffold wrote, the real key, the predictions and the board published."""

    folder: Path
    key: Path
    predictions: Path
    board: Path
    scaffolded: str  # new_benchmark.py's output
    published: str  # publish_submission.py's output


def _run(*args: str) -> str:
    done = run_script(*args)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _rows() -> list[dict[str, object]]:
    rows = []
    for i in range(QUESTIONS):
        n = 5 if i % 3 == 0 else 4
        rows.append(
            {
                "example_id": i + 1,
                "question": f"Which of these happens in clip {i + 1}?",
                "options": [f"event {k} of clip {i + 1}" for k in range(n)],
                "answer": "ABCDE"[i % n],
                "domain": "perception" if i < DOMAINS["perception"] else "reasoning",
            }
        )
    return rows


def _predictions(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    """``RIGHT[domain]`` answers right in each domain, a wrong letter for the rest."""
    left = dict(RIGHT)
    out = []
    for row in rows:
        domain, answer = str(row["domain"]), str(row["answer"])
        right = left[domain] > 0
        left[domain] -= right
        wrong = "B" if answer == "A" else "A"
        predicted = answer if right else wrong
        out.append({"example_id": row["example_id"], "predicted_answer": predicted})
    return out


def write_release(tmp_path: Path) -> Release:
    """The release, its folder scaffolded with ``--decimals 2`` and a board holding its
    authors' row, under ``tmp_path``."""
    rows = _rows()
    key = tmp_path / "release" / "dev_key.json"
    key.parent.mkdir(parents=True)
    key.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    predictions = tmp_path / "predictions.json"
    predictions.write_text(json.dumps(_predictions(rows)), encoding="utf-8")
    folder = tmp_path / "twodec"
    scaffolded = _run(
        "scripts/new_benchmark.py",
        *("--id", "twodec", "--key", str(key), "--out", str(folder), "--decimals", "2"),
    )
    board = tmp_path / "board"
    board.mkdir()
    published = _run(
        "scripts/publish_submission.py",
        *("--benchmark", str(folder), "--leaderboard-dir", str(board)),
        *("--submission", str(predictions), "--private", str(key)),
        *("--team-name", "Authors", "--method-name", METHOD, "--model-size", "7B"),
        *("--uses-external", "no", "--uses-frames", "default"),
    )
    return Release(folder, key, predictions, board, scaffolded, published)
