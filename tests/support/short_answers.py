"""A short-answer release as a widely used multi-discipline benchmark publishes its validation
split (issue 29), written here with synthetic values: a JSON key keyed by id
(``"validation_<Subject>_<n>"``), each value ``{"question_type": "multiple-choice" |
"short-answer", "ground_truth": ...}`` (a letter A-I, with no option texts anywhere; a text;
or a list of accepted texts), the groups in the ids (the subject, between the first and the
last underscore), disciplines over subjects; and a model's outputs as its authors publish them,
a JSON object keyed by id whose values are the responses.

The reference scorer here (``reference_right``) is plain Python written from the issue's
statement of the official rules, not from the evaluator: what a leaderboard must reproduce.

Example::

    release = write_short_release(tmp_path)
    release.key, release.outputs, release.flags
    reference_tallies(release)  # {"overall": (right, total), "art_theory": ..., "art": ...}
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.readme_steps import served_release

#: Subjects by discipline (the paper's groups of groups), each of ``PER_SUBJECT`` questions.
DISCIPLINES = {
    "Art and Design": ("Art_Theory", "Design"),
    "Health and Medicine": ("Basic_Medical_Science", "Clinical_Medicine"),
    "Science": ("Math", "Physics"),
}
PER_SUBJECT = 30
LETTERS = "ABCDEFGHI"
#: Open questions per subject, at these question numbers.
OPEN_AT = (3, 9, 17, 26)

#: Open answers and responses to them, cycled over the open questions: (answer, responses).
OPEN_CASES: tuple[tuple[Any, tuple[Any, ...]], ...] = (
    ("1.5", ("The answer is 1.50", "so it is 1.499", "Therefore 1.6")),
    ("2,000", ("Thus the total is 2000 units.", "2,000", "about 2 000")),
    ("1/64", ("so the probability is 1/64.", "0.015625", "1/32")),
    (["6", "six"], ("There are six", "the count is 6.", "seven")),
    ("B", ("b", "The answer is (B)", "I think it is B")),
    ("1", ("0.9965", "it is 0.99", "x = 1\nso the answer is: 2")),
    ("-3.5", ("Let me compute.\nx = -3.5", "-3.5 is wrong? no, 3.5", "result = 3.5")),
    ("6.02e23", ("Avogadro: 6.02e23", "6.02 x 10^23", "final answer 602000000000000000000000")),
    ("Paris", ("The capital of France is Paris.", "paris", "Lyon")),
    ("x", ("so the variable is x", "The answer: X", "y")),
)
#: How a model writes its multiple-choice responses, cycled: the letter as is, or otherwise.
CHOICE_FORMS = ("{}", "{}", "{}", "{}", "{}", "{}", "{}", " {}", "{}.", "({})", "{lower}")


@dataclass(frozen=True)
class ShortRelease:
    """A release's key and a model's outputs as published, and the scaffold's flags for it."""

    key: Path
    outputs: Path
    flags: tuple[str, ...]  # new_benchmark.py's, besides --id, --key and --out


def _ids() -> list[tuple[str, str, int]]:
    return [
        (f"validation_{subject}_{n}", subject, n)
        for subjects in DISCIPLINES.values()
        for subject in subjects
        for n in range(1, PER_SUBJECT + 1)
    ]


def release_rows(seed: int = 29) -> tuple[dict[str, Any], dict[str, Any]]:
    """The key (by id) and a model's outputs (by id), as the release publishes them."""
    rng = random.Random(seed)
    key: dict[str, Any] = {}
    outputs: dict[str, Any] = {}
    cases = 0
    for ident, _subject, n in _ids():
        if n in OPEN_AT:
            answer, responses = OPEN_CASES[cases % len(OPEN_CASES)]
            key[ident] = {"question_type": "short-answer", "ground_truth": answer}
            outputs[ident] = responses[(cases // len(OPEN_CASES)) % len(responses)]
            cases += 1
            continue
        answer = LETTERS[rng.randrange(len(LETTERS))]
        key[ident] = {"question_type": "multiple-choice", "ground_truth": answer}
        guess = answer if rng.random() < 0.55 else LETTERS[rng.randrange(len(LETTERS))]
        form = CHOICE_FORMS[n % len(CHOICE_FORMS)]
        outputs[ident] = form.format(guess, lower=guess.lower())
    # An abstention and a response written as a number, as real outputs hold.
    first, second = _ids()[1][0], _ids()[2][0]
    outputs[first], outputs[second] = None, 7
    return key, outputs


FLAGS = (
    "--group-from-id",
    r"validation_(?P<subject>.+)_\d+",
    *(
        flag
        for label, subjects in DISCIPLINES.items()
        for flag in ("--aggregate", f"{label}={','.join(subjects)}")
    ),
)


def write_short_release(root: Path, seed: int = 29) -> ShortRelease:
    """The release under ``root``: its key and a model's outputs, as published."""
    key, outputs = release_rows(seed)
    root.mkdir(parents=True, exist_ok=True)
    (root / "answer_dict_val.json").write_text(json.dumps(key, indent=1), encoding="utf-8")
    (root / "model_outputs_val.json").write_text(json.dumps(outputs, indent=1), encoding="utf-8")
    return ShortRelease(root / "answer_dict_val.json", root / "model_outputs_val.json", FLAGS)


# --- the reference scorer, from the statement of the official rules ------------------

CUES = ("could be ", "so ", "is ", "thus ", "therefore ", "final ", "answer ", "result ")
PUNCTUATION = (":", ",", ".", "!", "?", ";", "'")
NUMBER_PATTERNS = (
    r"-?\b\d{1,3}(?:,\d{3})+\b",  # comma-grouped integers
    r"-?\d+(?:\.\d+)?[eE][+-]?\d+",  # scientific notation
    r"-?(?:\d+\.\d+|\.\d+|\d+)(?![eE][+-]?\d+)(?![,\d])",  # integers and decimals
)


def _normal(text: str) -> list[float | str]:
    text = text.strip()
    try:
        return [round(float(text.replace(",", "")), 2)]
    except ValueError:
        text = text.lower()
        return [" " + text, text + " "] if len(text) == 1 else [text]


def _candidates(response: str) -> list[str]:
    response = response.strip().strip(".").lower()
    lines = response.split("\n")
    found = []
    for n, line in enumerate(lines):
        cues = CUES + (("=",) if n == len(lines) - 1 else ())
        results = [line.split(cue)[-1].strip() for cue in cues if cue in line]
        results = [r for r in results if r]
        if results:
            shortest = min(results, key=len)
            if shortest not in PUNCTUATION:
                found.append(shortest)
    if not found:
        found = [response]
    numbers = [m for text in found for p in NUMBER_PATTERNS for m in re.findall(p, text)]
    return found + numbers


def reference_right(question_type: str, answer: Any, response: Any) -> bool:
    """Whether a response is right by the official rules as the issue states them."""
    if response is None or response == "":
        return False
    if not isinstance(response, str):
        response = str(response)  # a number is read as its text
    if question_type == "multiple-choice":
        return bool(response == answer)
    answers = answer if isinstance(answer, list) else [answer]
    normal_answers = [v for a in answers for v in _normal(a)]
    for candidate in _candidates(response):
        for value in _normal(candidate):
            if isinstance(value, float):
                if value in [a for a in normal_answers if isinstance(a, float)]:
                    return True
            elif any(isinstance(a, str) and a in value for a in normal_answers):
                return True
    return False


def _key(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


def reference_tallies(release: ShortRelease) -> dict[str, tuple[int, int]]:
    """Right and total per subject, per discipline and overall, by ``reference_right``; keyed
    by the metric keys the scaffold gives them (a label lower-cased, runs of other characters
    as one "_")."""
    key = json.loads(release.key.read_text(encoding="utf-8"))
    outputs = json.loads(release.outputs.read_text(encoding="utf-8"))
    tallies: dict[str, list[int]] = {}
    of_subject = {s: d for d, subjects in DISCIPLINES.items() for s in subjects}
    for ident, row in key.items():
        subject = re.fullmatch(r"validation_(.+)_\d+", ident).group(1)  # type: ignore[union-attr]
        right = reference_right(row["question_type"], row["ground_truth"], outputs.get(ident))
        for name in ("overall", _key(subject), _key(of_subject[subject])):
            tally = tallies.setdefault(name, [0, 0])
            tally[0] += right
            tally[1] += 1
    return {name: (right, total) for name, (right, total) in tallies.items()}


def reference_numbers(release: ShortRelease) -> dict[str, float]:
    """Each tally as a percent."""
    return {k: 100 * right / total for k, (right, total) in reference_tallies(release).items()}


def served_board(root: Path) -> tuple[ShortRelease, dict[str, str]]:
    """A release under ``root`` taken through the README's steps: scaffolded with its flags,
    the authors' row published on a board of its own; the release and the environment that
    serves the benchmark, its real key and that board."""
    release = write_short_release(root / "release")
    env = served_release(root, "shortbench", release.key, release.outputs, release.flags)
    return release, env
