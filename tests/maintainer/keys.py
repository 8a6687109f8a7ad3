"""Answer keys for the rotation's tests: generated ones (hypothesis), the demo's, a small one.

On EgoMemReason (the default benchmark): a ``Key`` is the two files a maintainer holds, as rows;
``rotated`` rotates one with the library, as reshuffle_options.py would.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import evaluator
import spec
from evaluator import AnswerKey
from maintainer import rotation, tables

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track(kind=spec.MultipleChoiceTrack)
LETTERS = TRACK.options.letters
QUERY_TYPES = tuple(g.value for g in TRACK.groupings[0].groups)
DEMO_PRIVATE = BENCH.demo_key(TRACK)
DEMO_PUBLIC = BENCH.demo_public(TRACK)
DEMO_SUBMISSION = BENCH.demo_dir / "sample_submission.json"
SALT = "test-salt-7f3a9c2e41d8b605"
OUTPUTS = ("annotations_private.json", "annotations_public.jsonl", "letter_map.json")
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SALTS = st.text(alphabet="ABCDEFGHJKMNPQRSTVWXYZ0123456789ü", min_size=16, max_size=40)


def load_answer_key(data: bytes) -> AnswerKey:
    return evaluator.kinds.multiple_choice.load_key(TRACK, data)


@contextlib.contextmanager
def workdir() -> Iterator[Path]:
    """A fresh folder per hypothesis example (tmp_path is shared across examples)."""
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


@dataclass
class Key:
    """A generated answer key, as the two files a maintainer holds."""

    samples: list[dict[str, Any]]
    public_order: list[int]  # indices into samples: the public file may list them otherwise
    key_version: str | None  # None: written as a bare JSON list

    def public_records(self) -> list[dict[str, Any]]:
        return [
            {k: copy.deepcopy(v) for k, v in self.samples[i].items() if k != "correct_answer"}
            for i in self.public_order
        ]

    def private_bytes(self) -> bytes:
        payload: Any = (
            self.samples
            if self.key_version is None
            else {"key_version": self.key_version, "samples": self.samples}
        )
        return json.dumps(payload, ensure_ascii=False).encode("utf-8")

    def public_bytes(self) -> bytes:
        lines = [json.dumps(r, ensure_ascii=False) + "\n" for r in self.public_records()]
        return "".join(lines).encode("utf-8")

    def write(self, folder: Path) -> tuple[Path, Path]:
        private, public = folder / OUTPUTS[0], folder / OUTPUTS[1]
        private.write_bytes(self.private_bytes())
        public.write_bytes(self.public_bytes())
        return private, public


def rotated(key: Key, salt: str = SALT, version: str = "v9") -> rotation.Rotation:
    """``key`` rotated by the library, as the command line rotates its two files."""
    private, public = key.private_bytes(), key.public_bytes()
    table, old = tables.read_private(TRACK, private, Path(OUTPUTS[0]))
    public_table = tables.read_public(TRACK, public, Path(OUTPUTS[1]))
    sha256 = hashlib.sha256(public).hexdigest()
    return rotation.rotate(table, old, public_table, sha256, salt, version)


def files_of(done: rotation.Rotation) -> dict[str, bytes]:
    """A rotation's three files by the names the command line writes them under."""
    private, public, letter_map = OUTPUTS
    return {private: done.private, public: done.public, letter_map: done.letter_map}


OPTION_TEXT = st.text(alphabet='abcxyz é→ \u2028"', max_size=5)


@st.composite
def keys(draw: st.DrawFn) -> Key:
    """Keys of 6 to 30 questions, every query type present (the evaluator requires it)."""
    n = draw(st.integers(6, 30))
    ids = draw(st.lists(st.integers(0, 10_000), min_size=n, max_size=n, unique=True))
    types = [
        *QUERY_TYPES,
        *draw(st.lists(st.sampled_from(list(QUERY_TYPES)), min_size=n - 6, max_size=n - 6)),
    ]
    samples = []
    for example_id, query_type in zip(ids, types, strict=True):
        k = draw(st.integers(4, 10))
        texts = draw(st.lists(OPTION_TEXT, min_size=k, max_size=k))
        sample: dict[str, Any] = {
            "example_id": example_id,
            "p_id": f"P{example_id}",
            "question": draw(OPTION_TEXT),
            "options": dict(zip(LETTERS, texts, strict=False)),
            "query_type": query_type,
            "correct_answer": LETTERS[draw(st.integers(0, k - 1))],
        }
        if draw(st.booleans()):
            sample["notes"] = {"kept": [1, "as is"]}
        samples.append(sample)
    order = draw(st.permutations(range(n)))
    version = draw(st.sampled_from([None, "v1.1", "demo-1"]))
    return Key(samples, list(order), version)


def answers_for(key: Key, data: st.DataObject) -> list[str | None]:
    """An answer per question: a letter, a letter as people write it, or an abstention."""
    return [
        data.draw(
            st.one_of(
                st.sampled_from(list(s["options"])),
                st.sampled_from(list(s["options"])).map(lambda a: f" {a.lower()}\n"),
                st.sampled_from([None, "", "  "]),
            )
        )
        for s in key.samples
    ]


def submission_for(key: Key, answers: Sequence[str | None]) -> bytes:
    return json.dumps(
        [
            {"example_id": s["example_id"], "predicted_answer": a, "confidence": 0.5}
            for s, a in zip(key.samples, answers, strict=True)
        ]
    ).encode()


def check_spread(old: AnswerKey, new: AnswerKey) -> None:
    """Within each (query type, option count), a letter holds 2+ fewer correct answers than
    another only if every question that could take it had its answer there before."""
    old_by_id = {q.id: q for q in old.questions}
    strata: dict[tuple[str, int], list[tuple[str, str]]] = defaultdict(list)
    for q in new.questions:
        strata[(q.groups[0], len(q.options))].append((old_by_id[q.id].answer, q.answer))
    for (_, k), pairs in strata.items():
        now = Counter(new_letter for _, new_letter in pairs)
        before = Counter(old_letter for old_letter, _ in pairs)
        for high in LETTERS[:k]:
            for low in LETTERS[:k]:
                if now[high] >= now[low] + 2:
                    assert now[low] == len(pairs) - before[low], (k, now, before)


def small_key() -> Key:
    """Every 25th question of the demo key (each query type among them), key version demo-1."""
    samples = [
        q for q in json.loads(DEMO_PRIVATE.read_bytes())["samples"] if q["example_id"] % 25 == 1
    ]
    assert {q["query_type"] for q in samples} == set(QUERY_TYPES)
    return Key(samples, list(range(len(samples))), "demo-1")


def valid_submission() -> list[dict[str, Any]]:
    """ "A" for every question of ``small_key``."""
    return [{"example_id": s["example_id"], "predicted_answer": "A"} for s in small_key().samples]
