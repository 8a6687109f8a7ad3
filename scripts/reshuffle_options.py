"""Rotate the answer key's option letters without changing any answer; remap old submissions.

Rotation reads a track's private key and the public file released with it, checks that they
describe the same questions (release.check_agreement), and writes into --out-dir, each in the
format the benchmark's spec declares for it (json, jsonl or csv; a CSV keeps its columns and
row order):

- the new key, under the key's file name, naming the new version (a JSON key as
  ``{"key_version": ..., "samples": [...]}``; a JSONL or CSV key in a ``key_version`` field or
  column of every row);
- the new public file, under its file name: only the letters of the options change, and every
  row names the new ``key_version`` (a column of a CSV file; a JSON object names it once), so
  whoever answers it knows which letters they answer;
- letter_map.json: private, per question old letter -> new letter, with both key versions
  and the sha256 of all four files; it never contains the salt.

Each question's permutation comes from sha256 of (salt, new key version, id), so the same
inputs give byte-identical files on any machine and another salt another rotation. An
answer's text never changes; its letter always moves. Within each group of questions with the
same value of the track's first grouping and the same option count, correct letters are
spread as evenly as the old letters allow, so answering one letter everywhere scores chance
in every column. A row flagged out of option keeps its answer as it is (it is not among the
options); its options are permuted too, and it takes no part in the spread.

The key and the public file must name the same version (or the public file none: a release
from before public files named theirs). After a rotation, scripts/rescore_board.py carries the
board's re-scored rows onto the new key (README, "Rotating the answer key").

Only a multiple-choice track has letters: for a decision track (whose answers are true or
false and a time) both commands stop with a message saying there is nothing to rotate.

Keep the salt with the key (a password manager), never in git. Surrounding whitespace of the
salt is ignored. `--benchmark` and `--track` choose the spec (default: $LEADERBOARD_BENCHMARK,
else the Space's default, and its first track); `--help` names the track's file names.

Example:

    python scripts/reshuffle_options.py --benchmark egomemreason \\
        --private /path/to/<key file> --public /path/to/<public file> \\
        --salt "<secret>" --key-version v1.2 --out-dir rotated/

    python scripts/reshuffle_options.py --benchmark egomemreason \\
        --remap-submission old.json --letter-map rotated/letter_map.json --out new.json
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import hashlib
import io
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

from pydantic import BaseModel, ConfigDict, Field, ValidationError

import errors
import ledger
from errors import ReshuffleError, SpecError
from evaluator import (
    KEY_VERSION_FIELD,
    MAX_EXAMPLES,
    AnswerKey,
    AnswerKeyError,
    DataFileError,
    counted,
    load_answer_key,
    parse_answer_key,
    read_rows,
    score,
)
from ledger.config import DEFAULT_BENCHMARK
from maintainer import release
from scripts import _cli
from spec import MultipleChoiceTrack

#: Bumping this changes every rotation: the permutation is part of the key's provenance.
DERIVATION = "egomemreason-reshuffle/1"
LETTER_MAP_FORMAT = "egomemreason-letter-map/1"
MIN_SALT_LENGTH = 16
KEY_VERSION_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
LETTER_MAP_NAME = "letter_map.json"
SALT_HINT = (
    'make one with: python -c "import secrets; print(secrets.token_urlsafe(24))" '
    "and keep it with the key, never in git"
)


# --- reading and writing the data files -------------------------------------------------------


class LetterMapEntry(BaseModel):
    """One question of a letter map: its option letters under the old key -> the new key."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    example_id: int | str  # the row's id (the map's own field name, whatever the track's)
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


@dataclass(frozen=True)
class Table:
    """A key or public file as read: its rows, and what writing it back in its format needs."""

    format: str  # json, jsonl or csv
    records: tuple[dict[str, Any], ...]  # the rows as the evaluator reads them
    #: json: the object's fields besides "samples" (None: the file is a bare list).
    top: Mapping[str, Any] | None = None
    #: csv: the header and every row's cells as written, and the line ending.
    header: tuple[str, ...] = ()
    cells: tuple[tuple[str, ...], ...] = ()
    newline: str = "\n"
    changed: tuple[str, ...] = ()  # csv: the columns writing replaces
    key_version: str | None = None  # the version the file names (evaluator.read_rows)


def _version(name: str | None) -> str:
    return name if name is not None else "(unversioned)"


def _some(items: Iterable[object]) -> str:
    listed = list(items)
    shown = ", ".join(str(i) for i in listed[:MAX_EXAMPLES])
    return f"{shown}, ..." if len(listed) > MAX_EXAMPLES else shown


def _read_bytes(path: Path, flag: str, what: str) -> bytes:
    try:
        return ledger.read_regular_file(path)
    except ledger.UnreadableFileError as exc:
        raise ReshuffleError(f"{flag} {exc}; pass the path of {what}") from None


def _decode_json(data: bytes, flag: str, path: Path, what: str) -> Any:
    try:
        return json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ReshuffleError(f"{flag} {path} is not UTF-8 text; save it as UTF-8 JSON") from None
    except (ValueError, RecursionError) as exc:
        raise ReshuffleError(
            f"{flag} {path} is not valid JSON ({exc}); {flag} takes {what}"
        ) from None


def _csv_cells(data: bytes) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...], str]:
    text = data.decode("utf-8-sig")
    rows = [tuple(r) for r in csv.reader(io.StringIO(text, newline="")) if r]
    newline = "\r\n" if "\r\n" in text else "\n"
    return (rows[0] if rows else ()), tuple(rows[1:]), newline


def read_table(
    track: MultipleChoiceTrack, data: bytes, fmt: str, flag: str, path: Path, what: str
) -> Table:
    """The rows of a data file in ``fmt``; ReshuffleError, naming the flag, if unreadable."""
    top: dict[str, Any] | None = None
    if fmt == "json":
        decoded = _decode_json(data, flag, path, what)
        if isinstance(decoded, dict) and isinstance(decoded.get("samples"), list):
            top = {k: v for k, v in decoded.items() if k != "samples"}
        elif not isinstance(decoded, list):
            raise ReshuffleError(
                f'{flag} {path}: expected a JSON list of rows or an object {{"samples": '
                f"[...]}}; {flag} takes {what}"
            )
    try:
        rows = read_rows(track, data, fmt)
    except DataFileError as exc:
        raise ReshuffleError(
            f"{flag} {path} is not a {fmt} file of rows: {exc}; {flag} takes {what}"
        ) from None
    records, version = rows.records, rows.key_version
    if fmt != "csv":
        return Table(fmt, records, top=top, key_version=version)
    header, cells, newline = _csv_cells(data)
    if len(cells) != len(records):  # never expected: the evaluator read the same text
        raise ReshuffleError(f"{flag} {path}: its CSV rows could not be read consistently")
    changed = tuple(c for c in (track.fields.options, track.fields.answer) if c in header)
    return Table(
        fmt,
        records,
        header=header,
        cells=cells,
        newline=newline,
        changed=changed,
        key_version=version,
    )


def naming_version(
    table: Table, records: Sequence[Mapping[str, Any]], version: str, as_object: bool
) -> tuple[Table, list[dict[str, Any]]]:
    """The table and its rows so that writing them names ``version``: a JSON file written as
    an object (``as_object``) names it once, and so does each row that already named one;
    every other file in a ``key_version`` field or column of every row (a CSV gains the
    column if it lacks it)."""
    field = KEY_VERSION_FIELD
    if as_object:
        return table, [{**r, field: version} if field in r else dict(r) for r in records]
    rows = [{**r, field: version} for r in records]
    if table.format == "csv":
        if field not in table.header:
            table = dataclasses.replace(
                table, header=(*table.header, field), cells=tuple((*c, "") for c in table.cells)
            )
        if field not in table.changed:
            table = dataclasses.replace(table, changed=(*table.changed, field))
    return table, rows


def _dump(value: Any) -> bytes:
    return (json.dumps(value, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def write_table(
    table: Table, records: Sequence[Mapping[str, Any]], key_version: str | None = None
) -> bytes:
    """``records`` (the table's rows, changed) in the table's format.

    A JSON file is written as an object naming ``key_version`` when it is given; a CSV keeps
    every cell but those of the changed columns (options as a JSON object).
    """
    if table.format == "json":
        if key_version is not None:
            others = {k: v for k, v in (table.top or {}).items() if k != "key_version"}
            return _dump({"key_version": key_version, "samples": list(records), **others})
        if table.top is None:
            return _dump(list(records))
        return _dump({**table.top, "samples": list(records)})
    if table.format == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=table.newline)
    writer.writerow(table.header)
    columns = {name: table.header.index(name) for name in table.changed}
    for cells, record in zip(table.cells, records, strict=True):
        row = list(cells)
        for name, index in columns.items():
            value = record[name]
            row[index] = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        writer.writerow(row)
    return buffer.getvalue().encode("utf-8")


def read_private(track: MultipleChoiceTrack, data: bytes, path: Path) -> tuple[Table, AnswerKey]:
    """The key file as a table, and the validated key."""
    fmt = track.key.format
    table = read_table(
        track, data, fmt, "--private", path, f"the answer key, one {fmt} file ({track.key.name})"
    )
    try:
        key = parse_answer_key(
            track, list(table.records), hashlib.sha256(data).hexdigest(), table.key_version
        )
    except AnswerKeyError as exc:
        raise ReshuffleError(
            f"--private {path}: {exc}; pass the private answer key ({track.key.name})"
        ) from None
    return table, key


def read_public(track: MultipleChoiceTrack, data: bytes, path: Path) -> Table:
    """The public file as a table, each row checked for the fields rotation needs."""
    fmt = track.public.format
    table = read_table(
        track, data, fmt, "--public", path, f"the public file, one {fmt} file ({track.public.name})"
    )
    problems = release.public_problems(track, table.records)
    if problems:
        leaked = any("must not contain answers" in p for p in problems)
        fields = ", ".join(
            (
                track.fields.id,
                track.fields.question,
                track.fields.options,
                *(g.field for g in track.groupings),
            )
        )
        hint = (
            " Did you swap --public and --private?" if leaked else f" Expected rows with {fields}."
        )
        raise ReshuffleError(f"--public {path}: {'; '.join(problems)}.{hint}")
    return table


# --- the rotation ----------------------------------------------------------------------------


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
            group=q.groups[0],
            digest=question_digest(salt, key_version, q.id),
        )
        for q in key.questions
    ]
    correct = choose_correct_positions([s for s in slots if s.old is not None])
    maps = {s.ident: letter_permutation(s, correct.get(s.ident), letters) for s in slots}
    flagged = {q.id for q in key.questions if q.out_of_option}

    def relettered(options: Mapping[str, str], mapping: Mapping[str, str]) -> dict[str, str]:
        moved = {mapping[old]: text for old, text in options.items()}
        return {letter: moved[letter] for letter in sorted(moved)}

    samples = []
    for record in private.records:
        mapping = maps[record[f.id]]
        new = dict(record)
        new[f.options] = relettered(record[f.options], mapping)
        if record[f.id] not in flagged:
            new[f.answer] = mapping[record[f.answer]]
        samples.append(new)
    # A JSON key is always written as an object; a JSON public file keeps its form.
    private_table, samples = naming_version(
        private, samples, key_version, as_object=private.format == "json"
    )
    private_bytes = write_table(private_table, samples, key_version)
    new_public = []
    for record in public.records:
        new = dict(record)
        new[f.options] = relettered(record[f.options], maps[record[f.id]])
        new_public.append(new)
    public_table, new_public = naming_version(
        public, new_public, key_version, as_object=public.top is not None
    )
    public_bytes = write_table(
        public_table, new_public, key_version if public.top is not None else None
    )

    new_key = load_answer_key(track, private_bytes)
    if (
        new_key.key_version != key_version
        or read_rows(track, public_bytes, public.format).key_version != key_version
    ):
        raise RuntimeError(f"rotation bug: the new files do not name key version {key_version}")
    _self_check(key, new_key, new_public)
    letter_map = {
        "format": LETTER_MAP_FORMAT,
        "note": (
            f"PRIVATE. Option letters of key {_version(key.key_version)} -> key {key_version}. "
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
        "questions": [{"example_id": s.ident, "old_to_new": maps[s.ident]} for s in slots],
    }
    return Rotation(private_bytes, public_bytes, _dump(letter_map), new_key)


def _self_check(old: AnswerKey, new: AnswerKey, new_public: Sequence[Mapping[str, Any]]) -> None:
    """Guard against a bug writing a key that changes an answer; never expected to fire."""
    new_by_id = {q.id: q for q in new.questions}
    for q in old.questions:
        n = new_by_id[q.id]
        if q.out_of_option:
            kept = n.out_of_option and n.answer == q.answer
        else:
            moved = len(q.options) == 1 or n.answer != q.answer
            kept = moved and n.options.get(n.answer) == q.options[q.answer]
        if not kept or sorted(n.options.values()) != sorted(q.options.values()):
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
    grouping = track.groupings[0]
    n_letters = max(len(q.options) for q in new.questions)
    counts = {
        "before": Counter(q.answer for q in old.questions),
        "after": Counter(q.answer for q in new.questions),
    }
    by_group: dict[str, list[Any]] = defaultdict(list)
    for q in new.questions:
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
                f"{results['before'].metrics[track.ranking]:.1f}",
                f"{results['after'].metrics[track.ranking]:.1f}",
                f"{_chance(new.questions, letter):.1f}",
            )
        )
        for when, result in results.items():
            for group in grouping.groups:
                chance = _chance(by_group[group.value], letter)
                excess = result.metrics[group.key] - chance
                if when not in best or excess > best[when][0]:
                    best[when] = (excess, group.value, letter, chance)
    guess = 100 * sum(1 / len(q.options) for q in new.questions if not q.out_of_option) / len(new)
    lines.append(
        "offered: questions that have the letter; chance: what always answering it would\n"
        f"score if answers were uniform over options. Random guessing scores {guess:.1f} %."
    )
    what = grouping.field.replace("_", " ")
    for when in ("before", "after"):
        excess, value, letter, chance = best[when]
        lines.append(
            f"Furthest above chance in one {what} {when}: always {letter} on "
            f"{value}, {chance + excess:.1f} % (chance {chance:.1f} %)."
        )
    return "\n".join(line.rstrip() for line in lines)


# --- remapping a submission ------------------------------------------------------------------


def read_letter_map(track: MultipleChoiceTrack, data: bytes, path: Path) -> LetterMap:
    """A validated letter map: a bijection of A.. onto itself for every question."""
    letters = track.options.letters
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
    dupes = [i for i, n in counts.items() if n > 1]
    dupes.sort(key=str)
    broken = [
        e.example_id
        for e in parsed.questions
        if list(e.old_to_new) != list(letters[: len(e.old_to_new)])
        or sorted(e.old_to_new.values()) != list(letters[: len(e.old_to_new)])
    ]
    damage = []
    if dupes:
        damage.append(
            f"{counted(len(dupes), 'example_id', 'example_ids')} listed twice ({_some(dupes)})"
        )
    if broken:
        damage.append(
            f"{counted(len(broken), 'map is', 'maps are')} not a reordering of "
            f"{letters[0]}.. ({_some(broken)})"
        )
    if not parsed.questions:
        damage.append("no questions")
    id_type = int if track.fields.id_type == "integer" else str
    foreign = [e.example_id for e in parsed.questions if type(e.example_id) is not id_type]
    if foreign and not damage:
        raise ReshuffleError(
            f"--letter-map {path}: {counted(len(foreign), 'id is', 'ids are')} not of the "
            f"{track.fields.id_type} ids of the {track.id} track ({_some(foreign)}); is it the "
            "map of another benchmark? Pass its --benchmark (the map's note names it)"
        )
    if damage:
        raise ReshuffleError(f"--letter-map {path} is damaged: {'; '.join(damage)}; {hint}")
    return parsed


def remap_problems(track: MultipleChoiceTrack) -> dict[tuple[str, str], str]:
    """What can be wrong with entries of a submission to remap, and how to fix it."""
    f = track.fields
    kind, write = (
        ("integer", "write ids as numbers")
        if f.id_type == "integer"
        else ("string", "write ids as strings")
    )

    def rename(aliases: Sequence[str]) -> str:
        if not aliases:
            return ""
        names = ", ".join(aliases[:-1]) + (" or " if len(aliases) > 1 else "") + aliases[-1]
        return f"rename {names}; "

    return {
        ("entry is", "entries are"): f'not a JSON object; each must be {{"{f.id}", '
        f'"{f.prediction}"}}',
        ("entry has", "entries have"): f'no {kind} "{f.id}" ({rename(f.id_aliases)}{write})',
        ("entry lacks", "entries lack"): f'a "{f.prediction}" ({rename(f.prediction_aliases)}'
        "null to abstain)",
        (f"{f.id} is", f"{f.id}s are"): "not in the letter map (is this the right map?)",
        ("answer is", "answers are"): "not an option letter of their question (keep only the "
        "letter, or null to abstain)",
    }


def remap_submission(
    track: MultipleChoiceTrack, data: bytes, letter_map: LetterMap, path: Path
) -> tuple[bytes, int, int]:
    """The submission with every letter translated; abstentions and other fields kept as they are.

    Returns the new bytes, the number of translated answers and of abstentions.
    """
    f = track.fields
    decoded = _decode_json(data, "--remap-submission", path, "a submission (a JSON list)")
    where = f"--remap-submission {path}"
    if isinstance(decoded, dict) and isinstance(decoded.get("results"), list):
        pred = f.prediction_aliases[0] if f.prediction_aliases else f.prediction
        raise ReshuffleError(
            f'{where} is an object with a "results" list, as the evaluation scripts write it; '
            f'convert it to the submission format first: [{{"{f.id}": r["{f.id}"], '
            f'"{f.prediction}": r["{pred}"]}} for r in data["results"]]'
        )
    if not isinstance(decoded, list):
        raise ReshuffleError(
            f'{where}: expected a JSON list of {{"{f.id}", "{f.prediction}"}} objects, '
            f"found {'an object' if isinstance(decoded, dict) else 'a single value'}"
        )
    words = remap_problems(track)
    no_id, lacks = ("entry has", "entries have"), ("entry lacks", "entries lack")
    unknown_id = (f"{f.id} is", f"{f.id}s are")
    maps = {e.example_id: e.old_to_new for e in letter_map.questions}
    problems: dict[tuple[str, str], list[str]] = defaultdict(list)
    out: list[Any] = []
    translated = abstained = 0
    id_type = int if f.id_type == "integer" else str
    for position, entry in enumerate(decoded):
        if not isinstance(entry, dict):
            problems[("entry is", "entries are")].append(f"#{position}")
            continue
        ident = entry.get(f.id)
        if type(ident) is not id_type:
            problems[no_id].append(f"#{position}")
            continue
        if f.prediction not in entry:
            problems[lacks].append(f"#{position}")
            continue
        raw = entry[f.prediction]
        if ident not in maps:
            problems[unknown_id].append(str(ident))
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
        out.append({**entry, f.prediction: maps[ident][answer]})
    if problems:
        listed = "; ".join(
            f"{counted(len(examples), *kind)} {words[kind]} (e.g. {_some(examples)})"
            for kind, examples in problems.items()
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


def _parser(chosen: _cli.Chosen) -> argparse.ArgumentParser:
    track = chosen.track
    key_name, public_name = track.key.name, track.public.name
    parser = _Parser(
        prog="reshuffle_options.py",
        description=__doc__,
        epilog=_cli.describe(chosen),
        formatter_class=_cli.HelpFormatter,
        allow_abbrev=False,
    )
    _cli.add_benchmark_arguments(parser)
    rot = parser.add_argument_group("rotate the answer key")
    rot.add_argument("--private", type=Path, help=f"the current private answer key ({key_name})")
    rot.add_argument(
        "--public", type=Path, help=f"the public questions released with it ({public_name})"
    )
    secret = rot.add_mutually_exclusive_group()
    secret.add_argument(
        "--salt",
        help="the secret that keys the permutation (never printed "
        f"or stored; at least {MIN_SALT_LENGTH} characters)",
    )
    secret.add_argument(
        "--salt-file",
        type=Path,
        help="read the salt from this file instead, keeping it out of shell history",
    )
    rot.add_argument(
        "--key-version", help="version name of the new key, e.g. v1.2 (letters, digits, . _ + -)"
    )
    rot.add_argument(
        "--out-dir",
        type=Path,
        help=f"folder for {key_name}, {public_name} and {LETTER_MAP_NAME}; "
        "created if missing, must be empty unless --force",
    )
    rem = parser.add_argument_group("remap a submission made against the old letters")
    rem.add_argument(
        "--remap-submission",
        type=Path,
        metavar="OLD_JSON",
        help="a submission in the old key's letters",
    )
    rem.add_argument(
        "--letter-map", type=Path, help=f"the {LETTER_MAP_NAME} written by the rotation"
    )
    rem.add_argument("--out", type=Path, help="where to write the remapped submission")
    parser.add_argument(
        "--force",
        action="store_true",
        help="write into a non-empty --out-dir or replace an existing --out "
        "(inputs are never overwritten)",
    )
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


def _benchmark_flags(chosen: _cli.Chosen) -> str:
    """What a later command needs to name this benchmark and track; "" for the defaults (so
    the default benchmark's letter maps read as they always have)."""
    flags = "" if chosen.name == DEFAULT_BENCHMARK else f"--benchmark {chosen.name} "
    return flags + (f"--track {chosen.track.id} " if chosen.track_given else "")


def _lettered(chosen: _cli.Chosen) -> MultipleChoiceTrack:
    """The chosen track, if it has option letters (a multiple-choice track)."""
    try:
        return chosen.bench.track(chosen.track.id, kind=MultipleChoiceTrack)
    except SpecError:
        track = chosen.track
        lettered = ", ".join(t.id for t in chosen.bench.tracks_of(MultipleChoiceTrack))
        raise ReshuffleError(
            f"{chosen.bench.id}/{track.id} is a {track.kind} track: its episodes have no option "
            "letters, so there is nothing to rotate or remap (a decision answer is true or false "
            f"and a time); rotate a multiple-choice track of {chosen.bench.id} "
            f"({lettered or 'none'}) with --track"
        ) from None


def run_rotation(args: argparse.Namespace, chosen: _cli.Chosen) -> int:
    track = _lettered(chosen)
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
    key_name, public_name = track.key.name, track.public.name
    outputs = [out_dir / key_name, out_dir / public_name, out_dir / LETTER_MAP_NAME]
    for flag, path in (("--private", args.private), ("--public", args.public)):
        if any(_same_file(out, path) for out in outputs):
            raise ReshuffleError(
                f"--out-dir {out_dir} would overwrite {flag} {path}; inputs are never "
                "overwritten: pass a new folder, e.g. rotated/"
            )
    if out_dir.is_dir() and any(out_dir.iterdir()) and not args.force:
        raise ReshuffleError(
            f"--out-dir {out_dir} is not empty; pass an empty or new folder, or --force to "
            f"replace its {key_name}, {public_name} and {LETTER_MAP_NAME}"
        )

    private_bytes = _read_bytes(args.private, "--private", "the private answer key")
    public_bytes = _read_bytes(args.public, "--public", f"the public file ({track.public.name})")
    table, key = read_private(track, private_bytes, args.private)
    public = read_public(track, public_bytes, args.public)
    if key.key_version == version:
        raise ReshuffleError(
            f"--key-version {version} is the version of the key being rotated; name the new "
            "key, e.g. bump v1.1 to v1.2"
        )
    if public.key_version is not None and public.key_version != key.key_version:
        raise ReshuffleError(
            f"--public {args.public} names key version {public.key_version}, but --private "
            f"{args.private} is key version {_version(key.key_version)}; pass the public file "
            "released with this very key"
        )
    release.check_agreement(key, public.records)
    rotation = rotate(
        table,
        key,
        public,
        hashlib.sha256(public_bytes).hexdigest(),
        salt,
        version,
        _benchmark_flags(chosen),
    )
    report = spread_report(key, rotation.new_key)

    out_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    _write(outputs[0], rotation.private, private=True)
    _write(outputs[1], rotation.public, private=False)
    _write(outputs[2], rotation.letter_map, private=True)
    flagged = sum(q.out_of_option for q in key.questions)
    its = "its" if flagged == 1 else "their"
    kept = (
        f" ({counted(flagged, 'out-of-option row keeps', 'out-of-option rows keep')} {its} "
        f"answer as it is; {its} options are permuted too)"
        if flagged
        else ""
    )
    print(
        f"Rotated {len(key)} questions from key {_version(key.key_version)} to {version}: every "
        f"answer keeps its text, every correct letter moved{kept}."
    )
    print(report)
    print(f"Wrote {outputs[0]} (sha256 {rotation.new_key.sha256}, private)")
    print(f"      {outputs[1]} (publish with the new key)")
    print(
        f"      {outputs[2]} (private: remaps submissions made against {_version(key.key_version)})"
    )
    where = (
        "its key_version"
        if track.key.format == "json"
        else f"a {KEY_VERSION_FIELD} {'column' if track.key.format == 'csv' else 'field'}"
    )
    print(
        f"Both files name key version {version} (the key in {where}, every public row in "
        f"its {KEY_VERSION_FIELD}). Check them with validate_benchmark.py; then carry the "
        "board's re-scored rows onto the new key with rescore_board.py (README, \"Rotating "
        'the answer key").'
    )
    return 0


def run_remap(args: argparse.Namespace, chosen: _cli.Chosen) -> int:
    track = _lettered(chosen)
    missing = _missing(args, ("remap_submission", "letter_map", "out"))
    if missing:
        raise ReshuffleError(
            f"missing {', '.join(missing)}; remapping needs --remap-submission, --letter-map "
            "and --out"
        )
    out: Path = args.out
    for flag, path in (
        ("--remap-submission", args.remap_submission),
        ("--letter-map", args.letter_map),
    ):
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
        track, _read_bytes(args.letter_map, "--letter-map", LETTER_MAP_NAME), args.letter_map
    )
    submission = _read_bytes(args.remap_submission, "--remap-submission", "a submission (.json)")
    data, translated, abstained = remap_submission(
        track, submission, letter_map, args.remap_submission
    )
    _write(out, data, private=False)
    print(
        f"Remapped {translated} answers ({abstained} abstentions kept) from key "
        f"{_version(letter_map.old_key_version)} to {letter_map.new_key_version}: wrote {out}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        try:
            chosen = _cli.choose(argv)
        except errors.UsageError as exc:
            raise ReshuffleError(str(exc)) from None
        args, unknown = _parser(chosen).parse_known_args(argv)
        if unknown:
            # Only flags are echoed: a bare word may be part of a salt given without quotes.
            flags = [a for a in unknown if a.startswith("-")]
            hidden = len(unknown) - len(flags)
            parts = [f"unrecognized arguments: {' '.join(flags)}"] if flags else []
            if hidden:
                parts.append(
                    f"{counted(hidden, 'unexpected value', 'unexpected values')} (not shown: if "
                    "part of the salt, quote the salt or use --salt-file)"
                )
            raise ReshuffleError("; ".join(parts) + "; see --help")
        remapping, rotating = _given(args, REMAP_ARGS), _given(args, ROTATION_ARGS)
        if remapping and rotating:
            raise ReshuffleError(
                f"{', '.join(rotating)} belong to a rotation and "
                f"{', '.join(remapping)} to remapping a submission; run the two separately"
            )
        return run_remap(args, chosen) if remapping else run_rotation(args, chosen)
    except (ReshuffleError, errors.ReleaseError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
