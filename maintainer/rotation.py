"""Rotating a multiple-choice key: new option letters for every question, the same answers.

Each question's permutation comes from sha256 of (salt, new key version, id), so the same
inputs give byte-identical files on any machine and another salt another rotation. An answer's
text never changes; its letter always moves (a one-option question aside). Within each
stratum (the questions of one value of the track's first grouping with one option count) the
correct letters are spread as evenly as the old letters allow: greedy in digest order, then
augmenting paths until no position holds two more than another it could give a question to
(``choose_correct_positions``), so answering one letter everywhere scores chance in every
column. A row flagged out of option keeps its answer as it is (it is not among the options);
its options are permuted too, and it takes no part in the spread. Every row is written back in
the release's own layout (``layouts.written_options`` and ``written_answer``: option columns or a
JSON list or object, an answer as a letter, an index or the option's text).

``rotate`` is pure: the key and public tables in, the new key, public file and letter map out
as bytes (maintainer.tables, maintainer.letter_map), checked against the old key before they
are returned; ``spread_report`` says per letter what answering it everywhere scores before
and after.

Example (the demo key, rotated in memory):

>>> import hashlib
>>> import spec
>>> from maintainer import tables
>>> bench = spec.load_benchmark("egomemreason")
>>> track = bench.track(kind=spec.MultipleChoiceTrack)
>>> key_path, public_path = bench.demo_key(track), bench.demo_public(track)
>>> table, key = tables.read_private(track, key_path.read_bytes(), key_path)
>>> public = tables.read_public(track, public_path.read_bytes(), public_path)
>>> public_sha256 = hashlib.sha256(public_path.read_bytes()).hexdigest()
>>> rotated = rotate(table, key, public, public_sha256, "a salt of sixteen or more", "demo-2")
>>> new = rotated.new_key
>>> new.key_version, len(new), sum(q.answer == o.answer for q, o in zip(new.questions,
...                                                                     key.questions))
('demo-2', 500, 0)
>>> print(spread_report(key, new).splitlines()[-1])  # doctest: +ELLIPSIS
Furthest above chance in one query type after: always ... % (chance ... %).

Three questions of four options whose answers were all A, in one stratum: none keeps A, and
the three take the other letters once each.

>>> slots = [Slot(n, 4, 0, "g", question_digest("salt", "v2", n)) for n in (1, 2, 3)]
>>> sorted(choose_correct_positions(slots).values())
[1, 2, 3]
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from errors import ReshuffleError
from evaluator import AnswerKey, counted, read_rows, score
from evaluator.kinds.multiple_choice import load_key
from evaluator.kinds.multiple_choice.layouts import options_of, written_answer, written_options
from evaluator.kinds.multiple_choice.printed import (
    misprinted,
    printed_letters,
    reprinted,
    unprinted,
)
from maintainer import release
from maintainer.letter_map import LETTER_MAP_FORMAT
from maintainer.tables import Table, dump_json, naming_version, version_name, write_table

#: Bumping this changes every rotation: the permutation is part of the key's provenance.
DERIVATION = "egomemreason-reshuffle/1"


def question_digest(salt: str, key_version: str, ident: int | str) -> bytes:
    """sha256 of an unambiguous encoding of (salt, new key version, the row's id)."""
    message = json.dumps([DERIVATION, salt, key_version, ident], separators=(",", ":"))
    return hashlib.sha256(message.encode("ascii")).digest()


def _tiebreak(digest: bytes, label: bytes, position: int) -> bytes:
    return hashlib.sha256(digest + label + bytes([position])).digest()


@dataclass(frozen=True, slots=True)
class Slot:
    """What choosing one question's new correct position needs to know."""

    ident: int | str  # the row's id
    n_options: int
    old: int | None  # position of the correct answer under the old key; None: out of option
    group: str  # the value of the track's first grouping
    digest: bytes

    @property
    def stratum(self) -> tuple[str, int]:
        return (self.group, self.n_options)

    def allowed(self) -> list[int]:
        """Every position but the old one (a one-option question cannot move)."""
        moved = [p for p in range(self.n_options) if p != self.old]
        return moved or [p for p in range(self.n_options) if p == self.old]


def choose_correct_positions(slots: Sequence[Slot]) -> dict[int | str, int]:
    """The new correct position of every question, spread evenly within each stratum.

    A stratum is the questions of one group (of the first grouping) with one option count:
    spreading within it (rather than over the whole key) keeps "always answer the last letter"
    or "always B" at chance in every column. Greedy in digest order, preferring the position
    least used in the stratum, then across that option count, then by the digest; then
    augmenting paths make every stratum exactly as even as the ban on keeping the old position
    allows. Out-of-option slots (no correct position) must not be passed.
    """
    width = max((s.n_options for s in slots), default=0)
    in_stratum: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0] * width)
    by_count: dict[int, list[int]] = defaultdict(lambda: [0] * width)
    chosen: dict[int | str, int] = {}
    ordered = sorted(slots, key=lambda s: s.digest)
    for slot in ordered:
        stratum, across = in_stratum[slot.stratum], by_count[slot.n_options]
        best = min(
            slot.allowed(),
            key=lambda p: (stratum[p], across[p], _tiebreak(slot.digest, b"letter", p)),
        )
        chosen[slot.ident] = best
        stratum[best] += 1
        across[best] += 1
    groups: dict[tuple[str, int], list[Slot]] = defaultdict(list)
    for slot in ordered:
        groups[slot.stratum].append(slot)
    for members in groups.values():
        _even_out(members, chosen)
    return chosen


def _even_out(members: Sequence[Slot], chosen: dict[int | str, int]) -> None:
    """Move questions along paths while some position holds 2+ more than another reachable one.

    Each path lowers the sum of squared counts, so this ends; when no path is left the counts
    are optimal (a position holds 2+ fewer than another only when every question that could
    still move there had its correct answer there before).
    """
    n_positions = members[0].n_options
    while True:
        counts = [0] * n_positions
        for slot in members:
            counts[chosen[slot.ident]] += 1
        path = _improving_path(members, chosen, counts)
        if path is None:
            return
        for slot, position in path:
            chosen[slot.ident] = position


def _improving_path(
    members: Sequence[Slot], chosen: Mapping[int | str, int], counts: Sequence[int]
) -> list[tuple[Slot, int]] | None:
    for source in sorted(range(len(counts)), key=lambda p: (-counts[p], p)):
        # Breadth-first over positions; parent[p] = (question moved into p, from where).
        parent: dict[int, tuple[Slot, int]] = {}
        frontier, seen = [source], {source}
        while frontier:
            nxt: list[int] = []
            for here in frontier:
                for slot in members:
                    if chosen[slot.ident] != here:
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


def letter_permutation(slot: Slot, new_correct: int | None, letters: str) -> dict[str, str]:
    """Old letter -> new letter: the answer goes to ``new_correct``, the rest by the digest.

    An out-of-option slot (``new_correct`` None) has every option ordered by the digest.
    """
    others_old = sorted(
        (p for p in range(slot.n_options) if p != slot.old),
        key=lambda p: _tiebreak(slot.digest, b"option", p),
    )
    others_new = [p for p in range(slot.n_options) if p != new_correct]
    mapping = {}
    if slot.old is not None and new_correct is not None:
        mapping[letters[slot.old]] = letters[new_correct]
    mapping.update({letters[o]: letters[n] for o, n in zip(others_old, others_new, strict=True)})
    return {old: mapping[old] for old in letters[: slot.n_options]}


@dataclass(frozen=True)
class Rotation:
    """The three files of a rotation, as bytes, and the key they describe."""

    private: bytes
    public: bytes
    letter_map: bytes
    new_key: AnswerKey


def rotate(
    private: Table,
    key: AnswerKey,
    public: Table,
    public_sha256: str,
    salt: str,
    key_version: str,
    benchmark_flags: str = "",
) -> Rotation:
    """Rotate a validated key and its agreeing public rows; pure, no file access.

    ``benchmark_flags`` ("--benchmark x ") goes into the letter map's remapping command.
    """
    track = key.track
    letters, f = track.options.letters, track.fields
    slots = [
        Slot(
            ident=q.id,
            n_options=len(q.options),
            old=None if q.out_of_option else letters.index(q.answer),
            group=q.groups[0] if q.groups else "",
            digest=question_digest(salt, key_version, q.id),
        )
        for q in key.questions
    ]
    _refuse_misprinted(key)
    correct = choose_correct_positions([s for s in slots if s.old is not None])
    maps = {s.ident: letter_permutation(s, correct.get(s.ident), letters) for s in slots}
    answers = {q.id: q.answer for q in key.questions if not q.out_of_option}
    printing = {q.id for q in key.questions if printed_letters(q.options) is not None}

    def relettered(record: Mapping[str, Any], answer: bool) -> dict[str, Any]:
        """The row with its options (and, ``answer``, its answer) in the new letters, each
        written in the release's own layout (``written_options``, ``written_answer``); an
        option whose text prints its letter ("A. ...") prints its new one."""
        mapping = maps[record[f.id]]
        old = options_of(track, record) or {}
        moved = {mapping[letter]: text for letter, text in old.items()}
        if record[f.id] in printing:
            moved = {letter: reprinted(text, letter) for letter, text in moved.items()}
        new = {k: v for k, v in record.items() if not (f.id_parts and k == f.id)}
        new.update(written_options(track, record, moved))
        if answer and record[f.id] in answers:
            letter = mapping[answers[record[f.id]]]
            new[f.answer] = written_answer(track, letter, moved, record[f.answer])
        return new

    samples = [relettered(record, answer=True) for record in private.records]
    # A JSON key is always written as an object; a JSON public file keeps its form.
    private_table, samples = naming_version(
        private, samples, key_version, as_object=private.format == "json" and not private.levels
    )
    private_bytes = write_table(private_table, samples, key_version)
    new_public = [relettered(record, answer=False) for record in public.records]
    public_table, new_public = naming_version(
        public, new_public, key_version, as_object=public.top is not None
    )
    public_bytes = write_table(
        public_table, new_public, key_version if public.top is not None else None
    )

    new_key = load_key(track, private_bytes)
    if (
        new_key.key_version != key_version
        or read_rows(track, public_bytes, public.format).key_version != key_version
    ):
        raise RuntimeError(f"rotation bug: the new files do not name key version {key_version}")
    _self_check(key, new_key, read_rows(track, public_bytes, public.format).records)
    letter_map = {
        "format": LETTER_MAP_FORMAT,
        "note": (
            f"PRIVATE. Option letters of key {version_name(key.key_version)} -> key {key_version}. "
            "Remap a submission made against the old letters with: python "
            f"scripts/reshuffle_options.py {benchmark_flags}--remap-submission OLD.json "
            "--letter-map letter_map.json --out NEW.json"
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
            {
                "example_id": s.ident,
                "old_to_new": maps[s.ident],
                **({"printed": True} if s.ident in printing else {}),
            }
            for s in slots
        ],
    }
    return Rotation(private_bytes, public_bytes, dump_json(letter_map), new_key)


def _refuse_misprinted(key: AnswerKey) -> None:
    """ReshuffleError when options print another letter than their own ("B. ..." as option
    A): a rotation prints each option's new letter, and cannot tell which one was meant."""
    wrong = [(q.id, found) for q in key.questions if (found := misprinted(q.options))]
    if wrong:
        ident, found = wrong[0]
        example = ", ".join(f"{letter} prints {shown}" for letter, shown in found)
        raise ReshuffleError(
            f"--private: {counted(len(wrong), 'question', 'questions')} of the key "
            f"{'prints' if len(wrong) == 1 else 'print'} option letters that are not their "
            f"own (e.g. {ident}: {example}); nothing was written. A rotation prints each "
            "option's new letter: give each option its own letter first (validate_benchmark.py "
            "lists the rows)"
        )


def _self_check(old: AnswerKey, new: AnswerKey, new_public: Sequence[Mapping[str, Any]]) -> None:
    """Guard against a bug writing a key that changes an answer; never expected to fire. An
    option's text is compared without the letter it prints (a rotation prints its new one)."""
    new_by_id = {q.id: q for q in new.questions}
    for q in old.questions:
        n = new_by_id[q.id]
        if q.out_of_option:
            kept = n.out_of_option and n.answer == q.answer
        else:
            moved = len(q.options) == 1 or n.answer != q.answer
            kept = moved and unprinted(n.options.get(n.answer, "")) == unprinted(
                q.options[q.answer]
            )
        texts = sorted(map(unprinted, n.options.values()))
        if not kept or texts != sorted(map(unprinted, q.options.values())) or misprinted(n.options):
            raise RuntimeError(f"rotation bug: question {q.id} lost its answer or letter")
    release.check_agreement(new, new_public)


# --- the report --------------------------------------------------------------------------------


def _always(key: AnswerKey, letter: str) -> bytes:
    """A submission answering ``letter`` wherever it is an option, abstaining elsewhere."""
    f = key.track.fields
    return json.dumps(
        [{f.id: q.id, f.prediction: letter if letter in q.options else None} for q in key.questions]
    ).encode("utf-8")


def _chance(questions: Iterable[Any], letter: str) -> float:
    """Expected percent of always-``letter`` if each answer were uniform over its options
    (an out-of-option row is never right)."""
    listed = list(questions)
    hits = sum(1 / len(q.options) for q in listed if letter in q.options and not q.out_of_option)
    return 100 * hits / len(listed)


def spread_report(old: AnswerKey, new: AnswerKey) -> str:
    """Per letter: how many answers it carries, and what answering it everywhere scores."""
    track = new.track
    grouping = track.groupings[0] if track.groupings else None
    n_letters = max(len(q.options) for q in new.questions)
    counts = {
        "before": Counter(q.answer for q in old.questions),
        "after": Counter(q.answer for q in new.questions),
    }
    by_group: dict[str, list[Any]] = defaultdict(list)
    for q in new.questions if grouping is not None else ():
        by_group[q.groups[0]].append(q)
    row = "{:<6} {:>8} {:>15} {:>6} {:>23} {:>6} {:>9}"
    lines = [
        row.format("", "", "correct answers", "", "always-letter score %", "", ""),
        row.format("letter", "offered", "before", "after", "before", "after", "chance %"),
    ]
    best: dict[str, tuple[float, str, str, float]] = {}
    for letter in track.options.letters[:n_letters]:
        results = {
            "before": score(old, _always(old, letter)),
            "after": score(new, _always(new, letter)),
        }
        lines.append(
            row.format(
                letter,
                sum(letter in q.options for q in new.questions),
                counts["before"][letter],
                counts["after"][letter],
                track.number("percent", results["before"].metrics[track.ranking]),
                track.number("percent", results["after"].metrics[track.ranking]),
                track.number("percent", _chance(new.questions, letter)),
            )
        )
        for when, result in results.items():
            for group in grouping.groups if grouping is not None else ():
                chance = _chance([q for v in group.values for q in by_group[v]], letter)
                excess = result.metrics[group.key] - chance
                if when not in best or excess > best[when][0]:
                    best[when] = (excess, group.spelled, letter, chance)
    guess = 100 * sum(1 / len(q.options) for q in new.questions if not q.out_of_option) / len(new)
    lines.append(
        "offered: questions that have the letter; chance: what always answering it would\n"
        "score if answers were uniform over options. Random guessing scores "
        f"{track.shown('percent', guess)}."
    )
    if grouping is None:
        return "\n".join(line.rstrip() for line in lines)
    what = grouping.field.replace("_", " ")
    for when in ("before", "after"):
        excess, value, letter, chance = best[when]
        lines.append(
            f"Furthest above chance in one {what} {when}: always {letter} on "
            f"{value}, {track.shown('percent', chance + excess)} (chance "
            f"{track.shown('percent', chance)})."
        )
    return "\n".join(line.rstrip() for line in lines)
