"""Rotate the answer key's option letters without changing any answer; remap old submissions.

Rotation reads the private key and the public questions released with it, checks that they
describe the same questions, and writes into --out-dir:

- annotations_private.json: the new key, ``{"key_version": ..., "samples": [...]}``;
- annotations_public.jsonl: the new public file (only the letters of ``options`` change);
- letter_map.json: private, per question old letter -> new letter, with both key versions
  and the sha256 of all four files; it never contains the salt.

Each question's permutation comes from sha256 of (salt, new key version, example_id), so the
same inputs give byte-identical files on any machine and another salt another rotation. An
answer's text never changes; its letter always moves. Within each group of questions of the
same query type and option count, correct letters are spread as evenly as the old letters
allow, so answering one letter everywhere scores chance in every column.

Keep the salt with the key (a password manager), never in git. Surrounding whitespace of the
salt is ignored.

Example:

    python scripts/reshuffle_options.py \\
        --private annotations_private.json --public annotations_public.jsonl \\
        --salt "<secret>" --key-version v1.2 --out-dir rotated/

    python scripts/reshuffle_options.py --remap-submission old.json \\
        --letter-map rotated/letter_map.json --out new.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import _cli  # noqa: F401  (puts the repository root on sys.path, for evaluator)
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evaluator import (
    LETTERS,
    MAX_EXAMPLES,
    QUERY_TYPES,
    AnswerKey,
    AnswerKeyError,
    load_answer_key,
    parse_answer_key,
    score,
)

#: Bumping this changes every rotation: the permutation is part of the key's provenance.
DERIVATION = "egomemreason-reshuffle/1"
LETTER_MAP_FORMAT = "egomemreason-letter-map/1"
MIN_SALT_LENGTH = 16
KEY_VERSION_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
PRIVATE_NAME = "annotations_private.json"
PUBLIC_NAME = "annotations_public.jsonl"
LETTER_MAP_NAME = "letter_map.json"
SALT_HINT = (
    "make one with: python -c \"import secrets; print(secrets.token_urlsafe(24))\" "
    "and keep it with the key, never in git"
)


class ReshuffleError(ValueError):
    """An input the rotation or the remapping refuses; the message says how to fix it."""


# --- reading and checking the inputs ---------------------------------------------------------


class PublicQuestion(BaseModel):
    """The fields of a public record that must agree with the private key."""

    model_config = ConfigDict(frozen=True, extra="ignore", strict=True)

    example_id: int
    question: str
    options: dict[str, str]
    query_type: str


class LetterMapEntry(BaseModel):
    """One question of a letter map: its option letters under the old key -> the new key."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    example_id: int
    old_to_new: dict[str, str]


class LetterMap(BaseModel):
    """The ``letter_map.json`` a rotation writes."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    format: str
    note: str
    derivation: str
    old_key_version: str | None
    new_key_version: str
    old_private_sha256: str
    new_private_sha256: str
    old_public_sha256: str
    new_public_sha256: str
    questions: tuple[LetterMapEntry, ...] = Field(strict=False)


def _n(count: int, one: str, many: str) -> str:
    """``count`` with the words that agree with it: "1 line is", "3 lines are"."""
    return f"{count} {one if count == 1 else many}"


def _version(name: str | None) -> str:
    return name if name is not None else "(unversioned)"


def _some(items: Iterable[object]) -> str:
    listed = list(items)
    shown = ", ".join(str(i) for i in listed[:MAX_EXAMPLES])
    return f"{shown}, ..." if len(listed) > MAX_EXAMPLES else shown


def _read_bytes(path: Path, flag: str, what: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise ReshuffleError(f"{flag} {path}: no such file; pass the path of {what}") from None
    except IsADirectoryError:
        raise ReshuffleError(f"{flag} {path} is a folder; pass the path of {what}") from None
    except OSError as exc:
        raise ReshuffleError(f"{flag} {path} cannot be read ({exc.strerror})") from None


def _decode_json(data: bytes, flag: str, path: Path, what: str) -> Any:
    try:
        return json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ReshuffleError(f"{flag} {path} is not UTF-8 text; save it as UTF-8 JSON") from None
    except (ValueError, RecursionError) as exc:
        raise ReshuffleError(
            f"{flag} {path} is not valid JSON ({exc}); {flag} takes {what}"
        ) from None


def read_private(data: bytes, path: Path) -> tuple[dict[str, Any], AnswerKey]:
    """The decoded key file (as an object, its question records under "samples"), and the key."""
    decoded = _decode_json(
        data, "--private", path, "the answer key, one JSON document (not the .jsonl file)")
    try:
        key = parse_answer_key(decoded, hashlib.sha256(data).hexdigest())
    except AnswerKeyError as exc:
        raise ReshuffleError(
            f"--private {path}: {exc}; pass the private answer key (annotations_private.json)"
        ) from None
    payload: dict[str, Any] = {"samples": decoded} if isinstance(decoded, list) else decoded
    return payload, key


def read_public(data: bytes, path: Path) -> list[dict[str, Any]]:
    """The records of a public JSON Lines file, each checked for the fields rotation needs."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ReshuffleError(f"--public {path} is not UTF-8 text; save it as UTF-8") from None
    records: list[dict[str, Any]] = []
    problems: list[str] = []
    leaked: list[object] = []
    # split("\n"), not splitlines(): U+2028 and friends may sit unescaped inside a JSON string.
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            problems.append(f"line {lineno} is not valid JSON ({exc})")
            continue
        if not isinstance(record, dict):
            problems.append(f"line {lineno} is not a JSON object")
            continue
        try:
            PublicQuestion.model_validate(record)
        except ValidationError as exc:
            fields = "; ".join(
                f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()[:3]
            )
            problems.append(f"line {lineno}: {fields}")
            continue
        if "correct_answer" in record:
            leaked.append(record["example_id"])
        records.append(record)
    if problems:
        raise ReshuffleError(
            f"--public {path}: {_n(len(problems), 'line is', 'lines are')} not a public question "
            f"({'; '.join(problems[:MAX_EXAMPLES])}); expected JSON Lines with example_id, "
            "question, options and query_type on every line"
        )
    if leaked:
        raise ReshuffleError(
            f"--public {path}: {_n(len(leaked), 'record carries', 'records carry')} a "
            f"correct_answer ({_some(leaked)}); a public file must not contain answers. "
            "Did you swap --public and --private?"
        )
    if not records:
        raise ReshuffleError(f"--public {path} has no questions; expected one JSON object a line")
    return records


def check_agreement(
    key_records: Sequence[Mapping[str, Any]], public: Sequence[Mapping[str, Any]]
) -> None:
    """Refuse unless the two files hold the same ids, question texts, options and query types."""
    problems: list[str] = []
    counts = Counter(r["example_id"] for r in public)
    dupes = sorted(i for i, n in counts.items() if n > 1)
    if dupes:
        problems.append(
            f"{_n(len(dupes), 'example_id appears', 'example_ids appear')} twice in the "
            f"public file ({_some(dupes)})"
        )
    private_by_id = {r["example_id"]: r for r in key_records}
    public_by_id = {r["example_id"]: r for r in public}
    only_private = sorted(set(private_by_id) - set(public_by_id))
    only_public = sorted(set(public_by_id) - set(private_by_id))
    if only_private:
        problems.append(
            f"{_n(len(only_private), 'example_id', 'example_ids')} only in the private key "
            f"({_some(only_private)})"
        )
    if only_public:
        problems.append(
            f"{_n(len(only_public), 'example_id', 'example_ids')} only in the public file "
            f"({_some(only_public)})"
        )
    for field, label in (
        ("question", "question texts"),
        ("options", "options"),
        ("query_type", "query types"),
    ):
        differ = sorted(
            i for i in private_by_id.keys() & public_by_id.keys()
            if private_by_id[i][field] != public_by_id[i][field]
        )
        if differ:
            problems.append(
                f"{_n(len(differ), 'question', 'questions')} whose {label} differ "
                f"({_some(differ)})"
            )
    if problems:
        raise ReshuffleError(
            "the public file and the private key describe different questions: "
            + "; ".join(problems)
            + ". Pass the public file released with this very key (same key version)."
        )


# --- the rotation ----------------------------------------------------------------------------


def question_digest(salt: str, key_version: str, example_id: int) -> bytes:
    """sha256 of an unambiguous encoding of (salt, new key version, example_id)."""
    message = json.dumps([DERIVATION, salt, key_version, example_id], separators=(",", ":"))
    return hashlib.sha256(message.encode("ascii")).digest()


def _tiebreak(digest: bytes, label: bytes, position: int) -> bytes:
    return hashlib.sha256(digest + label + bytes([position])).digest()


@dataclass(frozen=True, slots=True)
class Slot:
    """What choosing one question's new correct position needs to know."""

    example_id: int
    n_options: int
    old: int  # position of the correct answer under the old key
    query_type: str
    digest: bytes

    @property
    def stratum(self) -> tuple[str, int]:
        return (self.query_type, self.n_options)

    def allowed(self) -> list[int]:
        """Every position but the old one (a one-option question cannot move)."""
        moved = [p for p in range(self.n_options) if p != self.old]
        return moved or [self.old]


def choose_correct_positions(slots: Sequence[Slot]) -> dict[int, int]:
    """The new correct position of every question, spread evenly within each stratum.

    A stratum is the questions of one query type with one option count: spreading within it
    (rather than over the whole key) keeps "always answer the last letter" or "always B" at
    chance in every column. Greedy in digest order, preferring the position least used in the
    stratum, then across that option count, then by the digest; then augmenting paths make
    every stratum exactly as even as the ban on keeping the old position allows.
    """
    in_stratum: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0] * len(LETTERS))
    by_count: dict[int, list[int]] = defaultdict(lambda: [0] * len(LETTERS))
    chosen: dict[int, int] = {}
    ordered = sorted(slots, key=lambda s: s.digest)
    for slot in ordered:
        stratum, across = in_stratum[slot.stratum], by_count[slot.n_options]
        best = min(
            slot.allowed(),
            key=lambda p: (stratum[p], across[p], _tiebreak(slot.digest, b"letter", p)),
        )
        chosen[slot.example_id] = best
        stratum[best] += 1
        across[best] += 1
    groups: dict[tuple[str, int], list[Slot]] = defaultdict(list)
    for slot in ordered:
        groups[slot.stratum].append(slot)
    for members in groups.values():
        _even_out(members, chosen)
    return chosen


def _even_out(members: Sequence[Slot], chosen: dict[int, int]) -> None:
    """Move questions along paths while some position holds 2+ more than another reachable one.

    Each path lowers the sum of squared counts, so this ends; when no path is left the counts
    are optimal (a position holds 2+ fewer than another only when every question that could
    still move there had its correct answer there before).
    """
    n_positions = members[0].n_options
    while True:
        counts = [0] * n_positions
        for slot in members:
            counts[chosen[slot.example_id]] += 1
        path = _improving_path(members, chosen, counts)
        if path is None:
            return
        for slot, position in path:
            chosen[slot.example_id] = position


def _improving_path(
    members: Sequence[Slot], chosen: Mapping[int, int], counts: Sequence[int]
) -> list[tuple[Slot, int]] | None:
    for source in sorted(range(len(counts)), key=lambda p: (-counts[p], p)):
        # Breadth-first over positions; parent[p] = (question moved into p, from where).
        parent: dict[int, tuple[Slot, int]] = {}
        frontier, seen = [source], {source}
        while frontier:
            nxt: list[int] = []
            for here in frontier:
                for slot in members:
                    if chosen[slot.example_id] != here:
                        continue
                    for there in slot.allowed():
                        if there in seen:
                            continue
                        seen.add(there)
                        parent[there] = (slot, here)
                        if counts[there] <= counts[source] - 2:
                            path: list[tuple[Slot, int]] = []
                            at = there
                            while at != source:
                                moved, came_from = parent[at]
                                path.append((moved, at))
                                at = came_from
                            return path
                        nxt.append(there)
            frontier = nxt
    return None


def letter_permutation(slot: Slot, new_correct: int) -> dict[str, str]:
    """Old letter -> new letter: the answer goes to ``new_correct``, the rest by the digest."""
    others_old = sorted(
        (p for p in range(slot.n_options) if p != slot.old),
        key=lambda p: _tiebreak(slot.digest, b"option", p),
    )
    others_new = [p for p in range(slot.n_options) if p != new_correct]
    mapping = {LETTERS[slot.old]: LETTERS[new_correct]}
    mapping.update(
        {LETTERS[o]: LETTERS[n] for o, n in zip(others_old, others_new, strict=True)}
    )
    return {old: mapping[old] for old in LETTERS[: slot.n_options]}


@dataclass(frozen=True)
class Rotation:
    """The three files of a rotation, as bytes, and the key they describe."""

    private: bytes
    public: bytes
    letter_map: bytes
    new_key: AnswerKey


def _dump(value: Any) -> bytes:
    return (json.dumps(value, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def rotate(
    payload: Mapping[str, Any],
    key: AnswerKey,
    public: Sequence[Mapping[str, Any]],
    public_sha256: str,
    salt: str,
    key_version: str,
) -> Rotation:
    """Rotate a validated key and its agreeing public records; pure, no file access."""
    slots = [
        Slot(
            example_id=q.example_id,
            n_options=len(q.options),
            old=LETTERS.index(q.correct_answer),
            query_type=q.query_type,
            digest=question_digest(salt, key_version, q.example_id),
        )
        for q in key.questions
    ]
    correct = choose_correct_positions(slots)
    maps = {s.example_id: letter_permutation(s, correct[s.example_id]) for s in slots}

    def relettered(options: Mapping[str, str], mapping: Mapping[str, str]) -> dict[str, str]:
        moved = {mapping[old]: text for old, text in options.items()}
        return {letter: moved[letter] for letter in sorted(moved)}

    samples = []
    for record in payload["samples"]:
        mapping = maps[record["example_id"]]
        new = dict(record)
        new["options"] = relettered(record["options"], mapping)
        new["correct_answer"] = mapping[record["correct_answer"]]
        samples.append(new)
    others = {k: v for k, v in payload.items() if k not in ("key_version", "samples")}
    private = _dump({"key_version": key_version, "samples": samples, **others})
    new_public = []
    for record in public:
        new = dict(record)
        new["options"] = relettered(record["options"], maps[record["example_id"]])
        new_public.append(new)
    public_bytes = "".join(
        json.dumps(r, ensure_ascii=False) + "\n" for r in new_public
    ).encode("utf-8")

    new_key = load_answer_key(private)
    _self_check(key, new_key, new_public)
    letter_map = {
        "format": LETTER_MAP_FORMAT,
        "note": (
            f"PRIVATE. Option letters of key {_version(key.key_version)} -> key {key_version}. "
            "Remap a submission made against the old letters with: python "
            "scripts/reshuffle_options.py --remap-submission OLD.json --letter-map "
            "letter_map.json --out NEW.json"
        ),
        "derivation": f"{DERIVATION}: sha256 of [derivation, salt, new key version, "
        "example_id] as compact JSON; the salt is not stored",
        "old_key_version": key.key_version,
        "new_key_version": key_version,
        "old_private_sha256": key.sha256,
        "new_private_sha256": new_key.sha256,
        "old_public_sha256": public_sha256,
        "new_public_sha256": hashlib.sha256(public_bytes).hexdigest(),
        "questions": [
            {"example_id": s.example_id, "old_to_new": maps[s.example_id]} for s in slots
        ],
    }
    return Rotation(private, public_bytes, _dump(letter_map), new_key)


def _self_check(old: AnswerKey, new: AnswerKey, new_public: Sequence[Mapping[str, Any]]) -> None:
    """Guard against a bug writing a key that changes an answer; never expected to fire."""
    new_by_id = {q.example_id: q for q in new.questions}
    for q in old.questions:
        n = new_by_id[q.example_id]
        moved = len(q.options) == 1 or n.correct_answer != q.correct_answer
        if n.options[n.correct_answer] != q.options[q.correct_answer] or not moved:
            raise RuntimeError(f"rotation bug: question {q.example_id} lost its answer or letter")
    check_agreement([q.model_dump() for q in new.questions], new_public)


# --- the report --------------------------------------------------------------------------------


def _always(key: AnswerKey, letter: str) -> bytes:
    """A submission answering ``letter`` wherever it is an option, abstaining elsewhere."""
    return json.dumps([
        {"example_id": q.example_id, "predicted_answer": letter if letter in q.options else None}
        for q in key.questions
    ]).encode("utf-8")


def _chance(questions: Iterable[Any], letter: str) -> float:
    """Expected percent of always-``letter`` if each answer were uniform over its options."""
    listed = list(questions)
    hits = sum(1 / len(q.options) for q in listed if letter in q.options)
    return 100 * hits / len(listed)


def spread_report(old: AnswerKey, new: AnswerKey) -> str:
    """Per letter: how many answers it carries, and what answering it everywhere scores."""
    n_letters = max(len(q.options) for q in new.questions)
    counts = {
        "before": Counter(q.correct_answer for q in old.questions),
        "after": Counter(q.correct_answer for q in new.questions),
    }
    by_type: dict[str, list[Any]] = defaultdict(list)
    for q in new.questions:
        by_type[q.query_type].append(q)
    row = "{:<6} {:>8} {:>15} {:>6} {:>23} {:>6} {:>9}"
    lines = [
        row.format("", "", "correct answers", "", "always-letter score %", "", ""),
        row.format("letter", "offered", "before", "after", "before", "after", "chance %"),
    ]
    best: dict[str, tuple[float, str, str, float]] = {}
    for letter in LETTERS[:n_letters]:
        results = {
            "before": score(old, _always(old, letter)),
            "after": score(new, _always(new, letter)),
        }
        lines.append(row.format(
            letter,
            sum(letter in q.options for q in new.questions),
            counts["before"][letter],
            counts["after"][letter],
            f"{results['before'].metrics['overall']:.1f}",
            f"{results['after'].metrics['overall']:.1f}",
            f"{_chance(new.questions, letter):.1f}",
        ))
        for when, result in results.items():
            for query_type, (metric, _) in QUERY_TYPES.items():
                chance = _chance(by_type[query_type], letter)
                excess = result.metrics[metric] - chance
                if when not in best or excess > best[when][0]:
                    best[when] = (excess, query_type, letter, chance)
    guess = 100 * sum(1 / len(q.options) for q in new.questions) / len(new)
    lines.append(
        "offered: questions that have the letter; chance: what always answering it would\n"
        f"score if answers were uniform over options. Random guessing scores {guess:.1f} %."
    )
    for when in ("before", "after"):
        excess, query_type, letter, chance = best[when]
        lines.append(
            f"Furthest above chance in one query type {when}: always {letter} on "
            f"{query_type}, {chance + excess:.1f} % (chance {chance:.1f} %)."
        )
    return "\n".join(line.rstrip() for line in lines)


# --- remapping a submission ------------------------------------------------------------------


def read_letter_map(data: bytes, path: Path) -> LetterMap:
    """A validated letter map: a bijection of A.. onto itself for every question."""
    decoded = _decode_json(data, "--letter-map", path, f"the {LETTER_MAP_NAME} of a rotation")
    hint = f"pass the {LETTER_MAP_NAME} that the rotation wrote, unedited"
    try:
        parsed = LetterMap.model_validate(decoded)
    except ValidationError as exc:
        fields = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'file'}: {err['msg']}"
            for err in exc.errors()[:3]
        )
        raise ReshuffleError(
            f"--letter-map {path} is not a letter map ({fields}); {hint}"
        ) from None
    if parsed.format != LETTER_MAP_FORMAT:
        raise ReshuffleError(
            f"--letter-map {path} has format {parsed.format!r}, expected "
            f"{LETTER_MAP_FORMAT!r}; {hint}"
        )
    counts = Counter(e.example_id for e in parsed.questions)
    dupes = sorted(i for i, n in counts.items() if n > 1)
    broken = [
        e.example_id for e in parsed.questions
        if list(e.old_to_new) != list(LETTERS[: len(e.old_to_new)])
        or sorted(e.old_to_new.values()) != list(LETTERS[: len(e.old_to_new)])
    ]
    damage = []
    if dupes:
        damage.append(f"{_n(len(dupes), 'example_id', 'example_ids')} listed twice "
                      f"({_some(dupes)})")
    if broken:
        damage.append(f"{_n(len(broken), 'map is', 'maps are')} not a reordering of A.. "
                      f"({_some(broken)})")
    if not parsed.questions:
        damage.append("no questions")
    if damage:
        raise ReshuffleError(f"--letter-map {path} is damaged: {'; '.join(damage)}; {hint}")
    return parsed


#: What is wrong with entries of a submission to remap, and how to fix it.
REMAP_PROBLEMS = {
    ("entry is", "entries are"): 'not a JSON object; each must be {"example_id", '
    '"predicted_answer"}',
    ("entry has", "entries have"): 'no integer "example_id" (rename sample_id or id; write '
    "ids as numbers)",
    ("entry lacks", "entries lack"): 'a "predicted_answer" (rename pred or answer; null to '
    "abstain)",
    ("example_id is", "example_ids are"): "not in the letter map (is this the right map?)",
    ("answer is", "answers are"): "not an option letter of their question (keep only the "
    "letter, or null to abstain)",
}


def remap_submission(data: bytes, letter_map: LetterMap, path: Path) -> tuple[bytes, int, int]:
    """The submission with every letter translated; abstentions and other fields kept as they are.

    Returns the new bytes, the number of translated answers and of abstentions.
    """
    decoded = _decode_json(data, "--remap-submission", path, "a submission (a JSON list)")
    where = f"--remap-submission {path}"
    if isinstance(decoded, dict) and isinstance(decoded.get("results"), list):
        raise ReshuffleError(
            f'{where} is an object with a "results" list, as the evaluation scripts write it; '
            'convert it to the submission format first: [{"example_id": r["example_id"], '
            '"predicted_answer": r["pred"]} for r in data["results"]]'
        )
    if not isinstance(decoded, list):
        raise ReshuffleError(
            f'{where}: expected a JSON list of {{"example_id", "predicted_answer"}} objects, '
            f"found {'an object' if isinstance(decoded, dict) else 'a single value'}"
        )
    maps = {e.example_id: e.old_to_new for e in letter_map.questions}
    problems: dict[tuple[str, str], list[str]] = defaultdict(list)
    out: list[Any] = []
    translated = abstained = 0
    for position, entry in enumerate(decoded):
        if not isinstance(entry, dict):
            problems[("entry is", "entries are")].append(f"#{position}")
            continue
        ident = entry.get("example_id")
        if type(ident) is not int:
            problems[("entry has", "entries have")].append(f"#{position}")
            continue
        if "predicted_answer" not in entry:
            problems[("entry lacks", "entries lack")].append(f"#{position}")
            continue
        raw = entry["predicted_answer"]
        if ident not in maps:
            problems[("example_id is", "example_ids are")].append(str(ident))
            continue
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            abstained += 1
            out.append(entry)
            continue
        answer = raw.strip().upper() if isinstance(raw, str) else None
        if answer not in maps[ident]:
            shown = json.dumps(raw, ensure_ascii=False)
            shown = shown if len(shown) <= 20 else shown[:17] + "..."
            valid = f"{min(maps[ident])}-{max(maps[ident])}"
            problems[("answer is", "answers are")].append(f"id {ident}: {shown} (valid {valid})")
            continue
        translated += 1
        out.append({**entry, "predicted_answer": maps[ident][answer]})
    if problems:
        listed = "; ".join(
            f"{_n(len(examples), *words)} {REMAP_PROBLEMS[words]} (e.g. {_some(examples)})"
            for words, examples in problems.items()
        )
        raise ReshuffleError(f"{where} cannot be remapped, nothing was written: {listed}")
    return _dump(out), translated, abstained


# --- files and the command line --------------------------------------------------------------


def _same_file(a: Path, b: Path) -> bool:
    if a.resolve() == b.resolve():
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _write(path: Path, data: bytes, private: bool) -> None:
    """Write via a temporary file and a rename, so a reader never sees half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o600 if private else 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ReshuffleError(f"{message}; see --help")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="reshuffle_options.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rot = parser.add_argument_group("rotate the answer key")
    rot.add_argument("--private", type=Path,
                     help="the current private answer key (annotations_private.json)")
    rot.add_argument("--public", type=Path,
                     help="the public questions released with it (annotations_public.jsonl)")
    secret = rot.add_mutually_exclusive_group()
    secret.add_argument("--salt", help="the secret that keys the permutation (never printed "
                        f"or stored; at least {MIN_SALT_LENGTH} characters)")
    secret.add_argument("--salt-file", type=Path,
                        help="read the salt from this file instead, keeping it out of "
                        "shell history")
    rot.add_argument("--key-version",
                     help="version name of the new key, e.g. v1.2 (letters, digits, . _ + -)")
    rot.add_argument("--out-dir", type=Path,
                     help=f"folder for {PRIVATE_NAME}, {PUBLIC_NAME} and {LETTER_MAP_NAME}; "
                     "created if missing, must be empty unless --force")
    rem = parser.add_argument_group("remap a submission made against the old letters")
    rem.add_argument("--remap-submission", type=Path, metavar="OLD_JSON",
                     help="a submission in the old key's letters")
    rem.add_argument("--letter-map", type=Path,
                     help=f"the {LETTER_MAP_NAME} written by the rotation")
    rem.add_argument("--out", type=Path, help="where to write the remapped submission")
    parser.add_argument("--force", action="store_true",
                        help="write into a non-empty --out-dir or replace an existing --out "
                        "(inputs are never overwritten)")
    return parser


ROTATION_ARGS = ("private", "public", "salt", "salt_file", "key_version", "out_dir")
REMAP_ARGS = ("remap_submission", "letter_map", "out")


def _flags(names: Iterable[str]) -> list[str]:
    return [f"--{n.replace('_', '-')}" for n in names]


def _missing(args: argparse.Namespace, names: Sequence[str]) -> list[str]:
    return _flags(n for n in names if getattr(args, n) is None)


def _given(args: argparse.Namespace, names: Sequence[str]) -> list[str]:
    return _flags(n for n in names if getattr(args, n) is not None)


def _salt(args: argparse.Namespace) -> str:
    if args.salt_file is not None:
        raw = _read_bytes(args.salt_file, "--salt-file", "a file holding the salt")
        try:
            salt = raw.decode("utf-8-sig").strip()
        except UnicodeDecodeError:
            raise ReshuffleError(f"--salt-file {args.salt_file} is not UTF-8 text") from None
    else:
        salt = str(args.salt).strip()
    if len(salt) < MIN_SALT_LENGTH:
        raise ReshuffleError(
            f"the salt has {len(salt)} characters; use at least {MIN_SALT_LENGTH} random ones "
            f"so nobody can guess the rotation ({SALT_HINT})"
        )
    return salt


def run_rotation(args: argparse.Namespace) -> int:
    missing = _missing(args, ("private", "public", "key_version", "out_dir"))
    if args.salt is None and args.salt_file is None:
        missing.append("--salt (or --salt-file)")
    if missing:
        raise ReshuffleError(
            f"missing {', '.join(missing)}; a rotation needs --private, --public, --salt, "
            "--key-version and --out-dir (or --remap-submission, --letter-map and --out)"
        )
    salt = _salt(args)
    version: str = args.key_version
    if not KEY_VERSION_PATTERN.fullmatch(version):
        raise ReshuffleError(
            f"--key-version {version!r} is not a version name; use up to 64 letters, digits, "
            "'.', '_', '+' or '-', starting with a letter or digit, e.g. v1.2"
        )
    out_dir: Path = args.out_dir
    if out_dir.exists() and not out_dir.is_dir():
        raise ReshuffleError(f"--out-dir {out_dir} is a file; pass a folder")
    outputs = [out_dir / PRIVATE_NAME, out_dir / PUBLIC_NAME, out_dir / LETTER_MAP_NAME]
    for flag, path in (("--private", args.private), ("--public", args.public)):
        if any(_same_file(out, path) for out in outputs):
            raise ReshuffleError(
                f"--out-dir {out_dir} would overwrite {flag} {path}; inputs are never "
                "overwritten: pass a new folder, e.g. rotated/"
            )
    if out_dir.is_dir() and any(out_dir.iterdir()) and not args.force:
        raise ReshuffleError(
            f"--out-dir {out_dir} is not empty; pass an empty or new folder, or --force to "
            f"replace its {PRIVATE_NAME}, {PUBLIC_NAME} and {LETTER_MAP_NAME}"
        )

    private_bytes = _read_bytes(args.private, "--private", "the private answer key")
    public_bytes = _read_bytes(args.public, "--public", "the public annotations (.jsonl)")
    payload, key = read_private(private_bytes, args.private)
    public = read_public(public_bytes, args.public)
    if key.key_version == version:
        raise ReshuffleError(
            f"--key-version {version} is the version of the key being rotated; name the new "
            "key, e.g. bump v1.1 to v1.2"
        )
    check_agreement(payload["samples"], public)
    rotation = rotate(payload, key, public, hashlib.sha256(public_bytes).hexdigest(), salt,
                      version)
    report = spread_report(key, rotation.new_key)

    out_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    _write(outputs[0], rotation.private, private=True)
    _write(outputs[1], rotation.public, private=False)
    _write(outputs[2], rotation.letter_map, private=True)
    print(f"Rotated {len(key)} questions from key {_version(key.key_version)} to {version}: every "
          "answer keeps its text, every correct letter moved.")
    print(report)
    print(f"Wrote {outputs[0]} (sha256 {rotation.new_key.sha256}, private)")
    print(f"      {outputs[1]} (publish with the new key)")
    print(f"      {outputs[2]} (private: remaps submissions made against "
          f"{_version(key.key_version)})")
    return 0


def run_remap(args: argparse.Namespace) -> int:
    missing = _missing(args, ("remap_submission", "letter_map", "out"))
    if missing:
        raise ReshuffleError(
            f"missing {', '.join(missing)}; remapping needs --remap-submission, --letter-map "
            "and --out"
        )
    out: Path = args.out
    for flag, path in (("--remap-submission", args.remap_submission),
                       ("--letter-map", args.letter_map)):
        if _same_file(out, path):
            raise ReshuffleError(
                f"--out {out} is also {flag}; inputs are never overwritten: pass a new file name"
            )
    if out.is_dir():
        raise ReshuffleError(f"--out {out} is a folder; pass a file name such as new.json")
    if out.exists() and not args.force:
        raise ReshuffleError(f"--out {out} exists; pass another name, or --force to replace it")
    if not out.parent.is_dir():
        raise ReshuffleError(f"--out {out}: the folder {out.parent} does not exist; create it")
    letter_map = read_letter_map(
        _read_bytes(args.letter_map, "--letter-map", LETTER_MAP_NAME), args.letter_map)
    submission = _read_bytes(args.remap_submission, "--remap-submission", "a submission (.json)")
    data, translated, abstained = remap_submission(submission, letter_map, args.remap_submission)
    _write(out, data, private=False)
    print(f"Remapped {translated} answers ({abstained} abstentions kept) from key "
          f"{_version(letter_map.old_key_version)} to {letter_map.new_key_version}: wrote {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        args, unknown = _parser().parse_known_args(argv)
        if unknown:
            # Only flags are echoed: a bare word may be part of a salt given without quotes.
            flags = [a for a in unknown if a.startswith("-")]
            hidden = len(unknown) - len(flags)
            parts = [f"unrecognized arguments: {' '.join(flags)}"] if flags else []
            if hidden:
                parts.append(
                    f"{_n(hidden, 'unexpected value', 'unexpected values')} (not shown: if "
                    "part of the salt, quote the salt or use --salt-file)"
                )
            raise ReshuffleError("; ".join(parts) + "; see --help")
        remapping, rotating = _given(args, REMAP_ARGS), _given(args, ROTATION_ARGS)
        if remapping and rotating:
            raise ReshuffleError(
                f"{', '.join(rotating)} belong to a rotation and "
                f"{', '.join(remapping)} to remapping a submission; run the two separately"
            )
        return run_remap(args) if remapping else run_rotation(args)
    except ReshuffleError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
