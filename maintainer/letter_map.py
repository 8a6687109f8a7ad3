"""Letter maps: per question, the option letters of the old key -> those of the new one.

A rotation (maintainer.rotation) writes one beside the new key: ``letter_map.json``, private,
with both key versions and the sha256 of the four files, never the salt. ``read_letter_map``
reads it back checked (every question's map a reordering of its letters, each id once, ids of
the track's type); ``remap_submission`` translates a submission made against the old letters
into the new key's, keeping abstentions and every other field as they are, so it scores on the
new key what it scored on the old one. Every entry it writes names the new version in a
``key_version`` field (as every row of the public file names its version; the scorer ignores
extra fields), which is how a remapped file is recognised: one whose entries name the map's new
version is refused, for remapping it again would move every letter twice, and so is one whose
entries name another version than the map's old one. Pure: bytes in, bytes out;
``ReshuffleError`` says what is wrong and how to fix it.

Example (the demo sample, remapped onto a rotation of the demo key, made in memory):

>>> import hashlib
>>> from pathlib import Path
>>> import evaluator, spec
>>> from maintainer import rotation, tables
>>> bench = spec.load_benchmark("egomemreason")
>>> track = bench.track(kind=spec.MultipleChoiceTrack)
>>> key_path, public_path = bench.demo_key(track), bench.demo_public(track)
>>> table, key = tables.read_private(track, key_path.read_bytes(), key_path)
>>> public = tables.read_public(track, public_path.read_bytes(), public_path)
>>> rotated = rotation.rotate(table, key, public, hashlib.sha256(public_path.read_bytes())
...                           .hexdigest(), "a salt of sixteen or more", "demo-2")
>>> letter_map = read_letter_map(track, rotated.letter_map, Path(LETTER_MAP_NAME))
>>> letter_map.old_key_version, letter_map.new_key_version, len(letter_map.questions)
('demo-1', 'demo-2', 500)
>>> sample = (bench.demo_dir / "sample_submission.json").read_bytes()
>>> new, translated, abstained = remap_submission(track, sample, letter_map, Path("old.json"))
>>> evaluator.score(rotated.new_key, new).counts == evaluator.score(key, sample).counts
True
>>> try:
...     remap_submission(track, new, letter_map, Path("new.json"))
... except ReshuffleError as error:
...     print(error)  # doctest: +NORMALIZE_WHITESPACE
--remap-submission new.json is already in the letters of key version demo-2: its 500 entries
name "key_version": "demo-2", as a remap writes them; remapping it again with this map would
move every letter twice. Score or publish it as it is
>>> try:
...     remap_submission(track, b'[{"example_id": 1}]', letter_map, Path("old.json"))
... except ReshuffleError as error:
...     print(error)  # doctest: +NORMALIZE_WHITESPACE
--remap-submission old.json cannot be remapped, nothing was written: 1 entry lacks a
"predicted_answer" (rename pred, answer or prediction; null to abstain) (e.g. #0)
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from errors import DataFileError, ReshuffleError
from evaluator import KEY_VERSION_FIELD, counted
from evaluator.files import levelled_rows, with_ids
from evaluator.kinds.multiple_choice.answers import keyed_id
from evaluator.kinds.multiple_choice.printed import printed_letter, reprinted
from evaluator.messages import first_few, short
from maintainer.release_layout import nested
from maintainer.tables import decode_json, dump_json
from spec import MultipleChoiceTrack

LETTER_MAP_FORMAT = "egomemreason-letter-map/1"
LETTER_MAP_NAME = "letter_map.json"


class LetterMapEntry(BaseModel):
    """One question of a letter map: its option letters under the old key -> the new key."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    example_id: int | str  # the row's id (the map's own field name, whatever the track's)
    old_to_new: dict[str, str]
    #: The row's option texts print their letters ("A. ..."): each was printed anew, and so
    #: is a prediction written as an option's text (absent: false).
    printed: bool = False


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


def read_letter_map(track: MultipleChoiceTrack, data: bytes, path: Path) -> LetterMap:
    """A validated letter map: a bijection of A.. onto itself for every question."""
    letters = track.options.letters
    decoded = decode_json(data, "--letter-map", path, f"the {LETTER_MAP_NAME} of a rotation")
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
            f"{counted(len(dupes), 'example_id', 'example_ids')} listed twice ({first_few(dupes)})"
        )
    if broken:
        damage.append(
            f"{counted(len(broken), 'map is', 'maps are')} not a reordering of "
            f"{letters[0]}.. ({first_few(broken)})"
        )
    if not parsed.questions:
        damage.append("no questions")
    id_type = int if track.fields.id_type == "integer" else str
    foreign = [e.example_id for e in parsed.questions if type(e.example_id) is not id_type]
    if foreign and not damage:
        raise ReshuffleError(
            f"--letter-map {path}: {counted(len(foreign), 'id is', 'ids are')} not of the "
            f"{track.fields.id_type} ids of the {track.id} track ({first_few(foreign)}); is it the "
            "map of another benchmark? Pass its --benchmark (the map's note names it)"
        )
    if damage:
        raise ReshuffleError(f"--letter-map {path} is damaged: {'; '.join(damage)}; {hint}")
    return parsed


def _id_name(track: MultipleChoiceTrack) -> str:
    """The id field as a message names it: '"example_id"', or for an id of several fields
    '"video"+"qid"' (never the name the reading keeps it under)."""
    f = track.fields
    return "+".join(f'"{part}"' for part in f.id_parts) if f.id_parts else f'"{f.id}"'


def _ids_noun(track: MultipleChoiceTrack) -> tuple[str, str]:
    f = track.fields
    return ("id is", "ids are") if f.id_parts else (f"{f.id} is", f"{f.id}s are")


def remap_problems(track: MultipleChoiceTrack) -> dict[tuple[str, str], str]:
    """What can be wrong with entries of a submission to remap, and how to fix it."""
    f = track.fields
    name = _id_name(track)
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
        ("entry is", "entries are"): f"not a JSON object; each must be {{{name}, "
        f'"{f.prediction}"}}',
        ("entry has", "entries have"): f"no {kind} {name} ({rename(f.id_aliases)}{write})",
        ("entry lacks", "entries lack"): f'a "{f.prediction}" ({rename(f.prediction_aliases)}'
        "null to abstain)",
        _ids_noun(track): "not in the letter map (is this the right map?)",
        ("answer is", "answers are"): "not an option letter of their question"
        + (
            f" nor an index of one (counted from {1 if f.answer_format == 'index1' else 0})"
            if f.answer_format in ("index", "index1")
            else ""
        )
        + " (keep only the letter, or null to abstain)",
    }


_NOT_MOVED = object()  # a prediction that names no letter of its map


def _moved(track: MultipleChoiceTrack, raw: object, mapping: dict[str, str]) -> object:
    """A prediction in the new key's letters, written as it was: a letter (trimmed and upper
    case), an index of the answer format (an integer), or an option's text, which no rotation
    moves (``fields.answer_format = "text"``: a string that is none of the letters);
    ``_NOT_MOVED`` when it is none of these."""
    fmt, letters = track.fields.answer_format, track.options.letters
    if fmt in ("index", "index1") and type(raw) is int:
        base = 1 if fmt == "index1" else 0
        n = raw - base
        if 0 <= n < len(mapping):
            return letters.index(mapping[letters[n]]) + base
        return _NOT_MOVED
    if isinstance(raw, str):
        letter = raw.strip().upper()
        if letter in mapping:
            return mapping[letter]
        prefixed = _PREFIXED.fullmatch(raw.strip())
        if prefixed is not None and prefixed.group(1) in mapping and _reads_prefixed(track):
            return mapping[prefixed.group(1)] + prefixed.group(2)  # "B. right", "B)"
        if fmt == "text" or "option_text" in track.fields.prediction_forms:
            return raw
    return _NOT_MOVED


#: A letter and what follows it when a prediction is written "B. right" or "B)".
_PREFIXED = re.compile(r"([A-Z])([.)].*)", re.S)


def _reads_prefixed(track: MultipleChoiceTrack) -> bool:
    """Whether a prediction may carry more than its letter after it: the answer format's
    "B. right", or the spec's ``letter_prefix``."""
    f = track.fields
    return f.answer_format == "letter_text" or "letter_prefix" in f.prediction_forms


def _printed_anew(text: str, mapping: dict[str, str]) -> str:
    """An option's text as the rotation printed it: its printed letter's new letter."""
    letter = printed_letter(text)
    return reprinted(text, mapping[letter]) if letter in mapping else text


def _entries(
    track: MultipleChoiceTrack, decoded: object, ids: Collection[int | str], where: str
) -> tuple[list[Any], dict[str, bool] | None]:
    """A submission's entries, and for a JSON object keyed by id (what a benchmark's own
    evaluation often writes: some of its keys are ids of the map, ``ids``) each key and
    whether its value was an object (None: a list)."""
    f = track.fields
    if isinstance(decoded, list):
        return decoded, None
    if isinstance(decoded, dict) and f.levels and f.levels != (f.id,):
        try:
            return levelled_rows(f, decoded, bare=f.prediction), None
        except DataFileError as exc:
            raise ReshuffleError(f"{where}: {exc}") from None
    keyed = isinstance(decoded, dict) and any(keyed_id(track, k) in ids for k in decoded)
    if isinstance(decoded, dict) and keyed:
        values = {k: isinstance(v, dict) for k, v in decoded.items()}
        entries = [
            {**v, f.id: keyed_id(track, k)}
            if isinstance(v, dict)
            else {f.id: keyed_id(track, k), f.prediction: v}
            for k, v in decoded.items()
        ]
        return entries, values
    if isinstance(decoded, dict) and isinstance(decoded.get("results"), list):
        pred = f.prediction_aliases[0] if f.prediction_aliases else f.prediction
        raise ReshuffleError(
            f'{where} is an object with a "results" list, as the evaluation scripts write it; '
            f'convert it to the submission format first: [{{"{f.id}": r["{f.id}"], '
            f'"{f.prediction}": r["{pred}"]}} for r in data["results"]]'
        )
    found = (
        "an object none of whose keys is an id of the letter map"
        if isinstance(decoded, dict)
        else "a single value"
    )
    raise ReshuffleError(
        f'{where}: expected a JSON list of {{{_id_name(track)}, "{f.prediction}"}} objects, '
        f"or a JSON object keyed by id, found {found}"
    )


def _json_lines(data: bytes) -> list[Any] | None:
    """The entries of a JSON Lines submission (two or more lines, each one JSON value); None
    for any other file (read as one JSON document)."""
    try:
        lines = [line for line in data.decode("utf-8-sig").split("\n") if line.strip()]
        if len(lines) < 2:
            return None
        return [json.loads(line) for line in lines]
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None


def remap_submission(
    track: MultipleChoiceTrack, data: bytes, letter_map: LetterMap, path: Path
) -> tuple[bytes, int, int]:
    """The submission with every letter translated; abstentions and other fields kept as they
    are, in the file's own shape: a list, JSON Lines (one entry a line), or an object keyed by
    id (a value that was the prediction itself becomes an object holding it, so it can name the
    new version), each prediction written as it was (a letter, an index, an option's text).

    Returns the new bytes, the number of translated answers and of abstentions.
    """
    f = track.fields
    what = "a submission (a JSON list, JSON Lines, or an object keyed by id)"
    lines = _json_lines(data)
    decoded = lines if lines is not None else decode_json(data, "--remap-submission", path, what)
    where = f"--remap-submission {path}"
    maps = {e.example_id: e.old_to_new for e in letter_map.questions}
    printing = {e.example_id for e in letter_map.questions if e.printed}
    entries, keyed = _entries(track, decoded, maps, where)
    _check_version(entries, letter_map, where)
    new_version = {KEY_VERSION_FIELD: letter_map.new_key_version}
    words = remap_problems(track)
    no_id, lacks = ("entry has", "entries have"), ("entry lacks", "entries lack")
    unknown_id = _ids_noun(track)
    problems: dict[tuple[str, str], list[str]] = defaultdict(list)
    out: list[Any] = []
    translated = abstained = 0
    id_type = int if f.id_type == "integer" else str
    # A composed id the reading joins is not written back: the entries name its parts.
    joined = [isinstance(e, dict) and f.id_parts != () and f.id not in e for e in entries]
    with_ids(f, entries)
    for position, entry in enumerate(entries):
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
            out.append({**entry, **new_version})
            continue
        moved = _moved(track, raw, maps[ident])
        if ident in printing and isinstance(raw, str) and moved is raw:  # an option's text
            moved = _printed_anew(raw, maps[ident])
        if moved is _NOT_MOVED:
            shown = json.dumps(raw, ensure_ascii=False)
            shown = shown if len(shown) <= 20 else shown[:17] + "..."
            valid = f"{min(maps[ident])}-{max(maps[ident])}"
            problems[("answer is", "answers are")].append(f"id {ident}: {shown} (valid {valid})")
            continue
        translated += 1
        out.append({**entry, f.prediction: moved, **new_version})
    if problems:
        listed = "; ".join(
            f"{counted(len(examples), *kind)} {words[kind]} (e.g. {first_few(examples)})"
            for kind, examples in problems.items()
        )
        raise ReshuffleError(f"{where} cannot be remapped, nothing was written: {listed}")
    out = [
        {k: v for k, v in entry.items() if k != f.id} if added else entry
        for entry, added in zip(out, joined, strict=True)
    ]
    if isinstance(decoded, dict) and keyed is None:  # written by the key's levels
        place = f.position if f.position in f.id_parts else None
        return dump_json(nested(out, f.levels, place)), translated, abstained
    if lines is not None:
        text = "".join(json.dumps(entry, ensure_ascii=False) + "\n" for entry in out)
        return text.encode("utf-8"), translated, abstained
    if keyed is None:
        return dump_json(out), translated, abstained
    # Keyed by id: each key as it was, its value without the id the reading gave it.
    written = {
        name: {k: v for k, v in entry.items() if k != f.id}
        for name, entry in zip(keyed, out, strict=True)
    }
    return dump_json(written), translated, abstained


def _check_version(entries: list[Any], letter_map: LetterMap, where: str) -> None:
    """Refuse entries that name a key version the map does not go from (ReshuffleError): the
    map's new one (a file already remapped) or another."""
    named = Counter(
        v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
        for e in entries
        if isinstance(e, dict) and (v := e.get(KEY_VERSION_FIELD)) is not None
    )
    old, new = letter_map.old_key_version, letter_map.new_key_version
    if new in named:
        raise ReshuffleError(
            f"{where} is already in the letters of key version {new}: its "
            f"{counted(named[new], 'entry names', 'entries name')} "
            f'"{KEY_VERSION_FIELD}": {json.dumps(new)}, as a remap writes them; remapping it '
            "again with this map would move every letter twice. Score or publish it as it is"
        )
    other = sorted((v for v in named if v != old), key=str)
    if other:
        shown = ", ".join(json.dumps(short(v, 40), ensure_ascii=False) for v in other[:3])
        raise ReshuffleError(
            f'{where}: its entries name "{KEY_VERSION_FIELD}" {shown}, but --letter-map goes '
            f"from key version {old or '(unversioned)'} to {new}; remap it with the letter map "
            "of the rotation from its version (one map a rotation, in order)"
        )
