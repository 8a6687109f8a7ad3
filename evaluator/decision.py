"""Scoring a decision track: should the assistant intervene in an episode, and when.

A pure function of (track, answer key, submission bytes) -> ``evaluator.ScoreResult``, as for
multiple choice: no I/O, no clock, no gradio, no huggingface_hub. ``evaluator.load_answer_key``,
``evaluator.load_questions``, ``evaluator.validate``, ``evaluator.score`` and
``evaluator.size_problems`` hand a ``spec.DecisionTrack`` (or its key or episodes) to this module.
A submission is validated against the episode ids alone (``EpisodeSet``: a public file's, or a
key's ``asked``), so a check without the key gives the messages scoring gives.

These are **this Space's own definitions**: the benchmark's official decision scorer is not
public. Each is written once, here and in the benchmark's about.md (Decision); changing one
means bumping the track's ``scorer_version``. Numbers a paper reports are shown as
paper-reported, in columns of their own (the spec's ``paper_metrics``), never as these.

**The key**, one row per episode (JSON Lines or a JSON list): ``example_id`` (unique; the
spec's ``fields.id``), the scenario (the spec's ``scenarios.field``, one of its values),
``assist_type`` (``safety``, ``non_safety``, or ``none`` exactly when the scenario is the spec's
``silent_scenario``) and ``intervention_time_s`` (the reviewed earliest useful time in seconds: a
number >= 0 on an assistance episode, null on the others). Other fields are kept, not read.

**A submission**, a JSON list or JSON Lines, one object per episode: ``example_id``, ``assist``
(true or false; null = no answer, scored as not assisting and counted in ``n_abstained``),
``intervention_time_s`` (seconds >= 0, or null), and optionally ``issue``, ``evidence`` and
``steps``: accepted and not scored (the paper judges them with an LLM-assisted error taxonomy,
which this Space does not run). A time is read only where the episode is a TP. Every problem of
a file is reported at once.

Each episode is one of four (an *assistance* episode is one whose ``assist_type`` is not none):

- TP: an assistance episode and ``assist`` true;  FN: an assistance episode, ``assist`` not true;
- FP: a no-assistance episode and ``assist`` true;  TN: a no-assistance episode, not true.

**Metrics** (a proportion is a percent or a 0-1 ratio, as the spec's ``display`` says; a
proportion whose denominator is 0 is 0):

- ``decision_precision`` = TP / (TP + FP); ``decision_recall`` = TP / (TP + FN);
  ``decision_f1`` = 2 TP / (2 TP + FP + FN);
- over the TP episodes whose prediction gives a time: ``timing_mae_s`` = mean of
  |predicted - reviewed|, ``timing_signed_s`` = mean of (predicted - reviewed), in seconds
  (negative = too early); ``timing_n`` = those episodes, ``timing_missing`` = TP episodes without
  a time. With ``timing_n`` 0 the two means have no value: they are left out of ``metrics``
  (absent, not null, in the ``/score`` JSON and in records; a board shows "—");
- ``safety_fn_rate`` = FN among safety episodes / safety episodes; ``non_safety_fn_rate`` the
  same over non-safety episodes; ``no_assist_fp_rate`` = FP / no-assistance episodes;
- ``decision_accuracy`` = (TP + TN) / episodes; ``decision_accuracy/<scenario key>`` the same
  over one scenario's episodes.

**Counts** (``Count(correct, total)``): precision TP of TP + FP, recall TP of TP + FN, each
error rate its FN or FP over its episodes, each accuracy its right decisions over its
episodes; none for F1 and the timing metrics (the two timing counts are metrics themselves),
nor for a proportion whose denominator is 0.

**Intervals** (95 %, in the metric's display): Wilson for every proportion but F1 (the whole
range when the denominator is 0); for F1 the percentile interval of a seeded bootstrap over
episodes. F1 depends only on the episodes' four outcomes, so a resample draws ``n`` episodes
with replacement from the ``n`` of the key sorted TP, FN, FP, TN: episode
``int(random() * n)``, with ``random = random.Random(BOOTSTRAP_SEED).random``, whose sequence
Python guarantees. Of ``BOOTSTRAP_RESAMPLES`` (2,000) resampled F1s, sorted, the interval runs
from the 50th to the 1,950th. The same four counts always give the same interval, whatever
the order of the key's rows. The timing metrics have no interval.

Example::

    track = spec.load_benchmark("egoargus").any_track("decision")
    key = evaluator.load_answer_key(track, Path("decision_private.jsonl").read_bytes())
    result = evaluator.score(key, Path("submission.jsonl").read_bytes())
    result.metrics["decision_f1"], result.intervals["decision_f1"]
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

import evaluator
from evaluator import AnswerKeyError, Count, ScoreResult, SubmissionError
from spec import DecisionTrack, Display

#: What a decision track scores, each defined above, and what each is: a proportion is shown
#: as a percent or a ratio (``DISPLAYS``). A track's [[tracks.metrics]] declare each once.
METRICS: Mapping[str, Literal["proportion", "seconds", "count"]] = {
    "decision_f1": "proportion", "decision_precision": "proportion",
    "decision_recall": "proportion", "timing_mae_s": "seconds", "timing_signed_s": "seconds",
    "timing_n": "count", "timing_missing": "count", "safety_fn_rate": "proportion",
    "non_safety_fn_rate": "proportion", "no_assist_fp_rate": "proportion",
    "decision_accuracy": "proportion",
}
DISPLAYS: Mapping[str, tuple[Display, ...]] = {
    "proportion": ("percent", "ratio"), "seconds": ("seconds",), "count": ("count",)}
BY_SCENARIO = "decision_accuracy"  # also scored per scenario: decision_accuracy/<scenario key>
#: The metrics without a value when nothing could be timed (``timing_n`` 0): then absent.
NULLABLE = frozenset({"timing_mae_s", "timing_signed_s"})
ASSIST_TYPE = "assist_type"  # key: safety, non_safety or none
TIME = "intervention_time_s"  # key: the reviewed time; submission: the predicted time
ASSIST = "assist"  # submission: true, false or null
SAFETY, NON_SAFETY, NONE = "safety", "non_safety", "none"
ASSIST_TYPES = (SAFETY, NON_SAFETY, NONE)
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20260601  # part of the definition: changing it changes every F1 interval
LOWER_RANK, UPPER_RANK = 50, 1950  # of the sorted resampled F1s: the 2.5 % and 97.5 % points
#: The proportions, each with its Wilson interval (F1 with its bootstrap one).
PROPORTIONS = ("decision_f1", "decision_precision", "decision_recall", "safety_fn_rate",
               "non_safety_fn_rate", "no_assist_fp_rate", BY_SCENARIO)
#: Strings people write for a boolean; "assist" must be the JSON literal.
_BOOLEAN_WORDS = frozenset({"yes", "no", "true", "false", "y", "n", "1", "0"})
#: Lists people wrap their entries in; the message says to upload the list itself.
_WRAPPERS = ("predictions", "results", "episodes", "submissions", "samples", "answers")


# --- the key ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Episode:
    """One row of a validated decision key."""

    id: int | str
    scenario: str  # the value of the scenario field
    assist_type: str  # safety, non_safety or none
    time_s: float | None  # the reviewed earliest useful time; None when no assistance is due
    record: Mapping[str, Any]  # the row as the file has it

    @property
    def needs_assistance(self) -> bool:
        return self.assist_type != NONE


@dataclass(frozen=True)
class EpisodeSet:
    """The episodes of a decision track as its public file has them, without answers: their
    ids. What ``validate`` checks a submission against, and all it needs."""

    track: DecisionTrack
    ids: frozenset[int | str]
    key_version: str | None

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class DecisionKey:
    """A validated decision key of one track, with its episodes by id and its sha256."""

    track: DecisionTrack
    episodes: tuple[Episode, ...]
    key_version: str | None
    sha256: str
    _by_id: Mapping[int | str, Episode]

    def __len__(self) -> int:
        return len(self.episodes)

    @cached_property
    def asked(self) -> EpisodeSet:
        """Its episodes without their answers, as the public file released with it has them."""
        return EpisodeSet(self.track, frozenset(self._by_id), self.key_version)


def _is_time(value: object) -> bool:
    """A number of seconds: finite and >= 0 (a boolean is not a number here)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(float(value)) and value >= 0
    except OverflowError:  # an integer too large for a float
        return False


def _row_problems(track: DecisionTrack, record: object, index: int, *, key: bool) -> list[str]:
    """What makes one row of a key (or, without ``key``, of a public file: its id alone)
    unusable, each as "<where>: <field>: <problem>"."""
    f, field = track.fields, track.scenarios.field
    if not isinstance(record, dict):
        return [f"{evaluator.nth(index, 'episode')}: entry: expected a JSON object"]
    ident = record.get(f.id)
    where = f"{f.id} {ident!r}" if f.id in record else evaluator.nth(index, "episode")
    out = []
    if f.id not in record:
        out.append(f"{where}: {f.id}: Field required")
    elif not evaluator._is_id(track, ident):
        kind = "integer" if f.id_type == "integer" else "non-empty string"
        out.append(f"{where}: {f.id}: Input should be a valid {kind}")
    if not key:
        return out
    for name in (field, ASSIST_TYPE):
        if name not in record:
            out.append(f"{where}: {name}: Field required")
        elif not isinstance(record[name], str):
            out.append(f"{where}: {name}: Input should be a valid string")
    if isinstance(record.get(ASSIST_TYPE), str) and record[ASSIST_TYPE] not in ASSIST_TYPES:
        out.append(f"{where}: {ASSIST_TYPE}: expected one of {', '.join(ASSIST_TYPES)}, got "
                   f"{evaluator._preview(record[ASSIST_TYPE])}")
    if TIME not in record:
        out.append(f"{where}: {TIME}: Field required (null on a no-assistance episode)")
    elif record[TIME] is not None and not _is_time(record[TIME]):
        out.append(f"{where}: {TIME}: expected a number of seconds >= 0, or null; got "
                   f"{evaluator._preview(record[TIME])}")
    return out


def _some(problems: list[str], kind: str, ids: Sequence[object], tail: str) -> None:
    """Note ``kind`` for ``ids`` (its count and first few), if there are any."""
    if ids:
        problems.append(evaluator._agree(f"{len(ids)} {kind}", len(ids))
                        + f" ({evaluator._examples(ids)}){tail}")


def _valid_rows(track: DecisionTrack, data: Sequence[Any], *, key: bool) -> list[dict[str, Any]]:
    """The rows of a key (or, without ``key``, of a public file), each checked; AnswerKeyError
    (PublicFileError) lists every problem. A public file's checks are the key's for the ids."""
    error: type[ValueError] = AnswerKeyError if key else evaluator.PublicFileError
    what = "the answer key" if key else f"the public file {track.public.name}"
    bad = [p for index, record in enumerate(data)
           for p in _row_problems(track, record, index, key=key)]
    if bad:
        raise error(evaluator._agree(f"{what} has {len(bad)} invalid [field|fields]: ", len(bad))
                    + "; ".join(bad[:evaluator.MAX_EXAMPLES]))
    f = track.fields
    rows: list[dict[str, Any]] = list(data)
    problems: list[str] = []
    counts = Counter(r[f.id] for r in rows)
    _some(problems, f"duplicate [{f.id}|{f.id}s]",
          sorted(i for i, n in counts.items() if n > 1), "")
    if key:
        problems += _answer_problems(track, rows)
    elif not rows:
        problems.append("no episodes at all")
    if problems:
        raise error(f"invalid {what.removeprefix('the ')}: " + "; ".join(problems))
    return rows


def _answer_problems(track: DecisionTrack, rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Where the key's scenarios, assist types and times disagree, or a scenario is absent."""
    f, field, silent = track.fields, track.scenarios.field, track.silent_scenario
    problems: list[str] = []
    values = [g.value for g in track.scenarios.groups]
    _some(problems, "[episode|episodes] with an unknown " + field,
          [r[f.id] for r in rows if r[field] not in values], f"; expected one of: "
          f"{', '.join(values)}")
    _some(problems, f"[episode|episodes] of an assistance {field} whose {ASSIST_TYPE} is none",
          [r[f.id] for r in rows if r[field] in values and r[field] != silent
           and r[ASSIST_TYPE] == NONE],
          f"; {ASSIST_TYPE} is none exactly on the {silent} episodes")
    _some(problems, f"{silent} [episode|episodes] whose {ASSIST_TYPE} is not none",
          [r[f.id] for r in rows if r[field] == silent and r[ASSIST_TYPE] != NONE],
          f"; a {silent} episode needs no assistance: write none")
    _some(problems, f"assistance [episode|episodes] without an {TIME}",
          [r[f.id] for r in rows if r[ASSIST_TYPE] != NONE and r[TIME] is None],
          "; each needs its reviewed earliest useful time in seconds")
    _some(problems, f"no-assistance [episode|episodes] with an {TIME}",
          [r[f.id] for r in rows if r[ASSIST_TYPE] == NONE and r[TIME] is not None],
          "; write null: such an episode has no intervention time")
    present = {r[field] for r in rows}
    absent = [v for v in values if v not in present]
    if absent and rows:
        problems.append(f"no episodes of {field} {', '.join(absent)}")
    if not rows:
        problems.append("no episodes at all")
    return problems


def parse_key(track: DecisionTrack, data: Any, sha256: str = "",
              key_version: str | None = None) -> DecisionKey:
    """Validate already-decoded key rows (a list, or ``{"samples": ...}``) against ``track``;
    AnswerKeyError lists every problem."""
    if isinstance(data, dict) and "samples" in data:
        key_version = data.get("key_version") if key_version is None else key_version
        if not (key_version is None or isinstance(key_version, str)):
            raise AnswerKeyError("the answer key's key_version must be a string")
        data = data["samples"]
    if not isinstance(data, (list, tuple)):
        raise AnswerKeyError('a decision answer key must be JSON Lines of episodes, a JSON list '
                             'of them or an object {"samples": [...]}')
    rows = _valid_rows(track, data, key=True)
    f, field = track.fields, track.scenarios.field
    episodes = tuple(
        Episode(id=r[f.id], scenario=r[field], assist_type=r[ASSIST_TYPE],
                time_s=None if r[TIME] is None else float(r[TIME]), record=r)
        for r in rows)
    return DecisionKey(track, episodes, key_version, sha256, {e.id: e for e in episodes})


def load_key(track: DecisionTrack, data: bytes) -> DecisionKey:
    """Decode and validate the bytes of a decision key file (its declared format)."""
    try:
        rows = evaluator.read_rows(track, data, track.key.format)
    except evaluator.DataFileError as exc:
        raise AnswerKeyError(f"the answer key is {exc}") from None
    return parse_key(track, list(rows.records), hashlib.sha256(data).hexdigest(),
                     rows.key_version)


def load_episodes(track: DecisionTrack, data: bytes) -> EpisodeSet:
    """Decode and validate the bytes of a decision track's public file (its declared format):
    the episodes a submission answers, for ``validate``; PublicFileError if it does not."""
    try:
        rows = evaluator.read_rows(track, data, track.public.format)
    except evaluator.DataFileError as exc:
        raise evaluator.PublicFileError(f"the public file {track.public.name}: {exc}") from None
    valid = _valid_rows(track, rows.records, key=False)
    return EpisodeSet(track, frozenset(r[track.fields.id] for r in valid), rows.key_version)


def size_problems(key: DecisionKey) -> list[str]:
    """Where the key's scenarios disagree with the sizes its spec declares."""
    grouping = key.track.scenarios
    found = Counter(e.scenario for e in key.episodes)
    wrong = [f"{g.value} has {found[g.value]} (expected {g.size})"
             for g in grouping.groups if found[g.value] != g.size]
    if not wrong:
        return []
    return [f"{len(wrong)} of the {len(grouping.groups)} {grouping.field} groups differ from the "
            f"spec: {'; '.join(wrong[:evaluator.MAX_EXAMPLES])}"]


def assist_types(key: DecisionKey) -> dict[str, int]:
    """Episodes of each assist type, in the order safety, non_safety, none."""
    found = Counter(e.assist_type for e in key.episodes)
    return {t: found[t] for t in ASSIST_TYPES}


# --- reading a submission -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Prediction:
    """What a submission says about one episode."""

    assist: bool | None  # None: no answer (scored as not assisting)
    time_s: float | None


def _example(track: DecisionTrack) -> str:
    ident = "1" if track.fields.id_type == "integer" else '"<id>"'
    return f'{{"{track.fields.id}": {ident}, "{ASSIST}": true, "{TIME}": 12.5}}'


def _shape(track: DecisionTrack) -> str:
    return f'{{"{track.fields.id}": ..., "{ASSIST}": ..., "{TIME}": ...}}'


def _top_level_hint(track: DecisionTrack, data: Any) -> str:
    if isinstance(data, dict):
        for name in _WRAPPERS:
            if isinstance(data.get(name), list):
                return (f'the top level is an object with a "{name}" list; upload the list '
                        f"itself (a JSON array of {_shape(track)} objects, or JSON Lines)")
        return (f"the top level is a JSON object; expected a JSON list (or JSON Lines) of "
                f"{_shape(track)} objects, one per episode")
    return (f"the top level is a JSON {evaluator._json_type(data)}; expected a JSON list (or "
            f"JSON Lines) of {_shape(track)} objects, one per episode")


def _json(text: str, example: str) -> Any:
    """One JSON document; SubmissionError in the words of a submission's problems."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SubmissionError(
            [f"the file is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
             f"a submission is a JSON list of objects like {example}, or JSON Lines with one "
             "such object a line"]) from None
    except (ValueError, RecursionError) as exc:
        reason = ("it is nested too deeply" if isinstance(exc, RecursionError)
                  else "it holds a number with thousands of digits")
        raise SubmissionError(
            [f"the file could not be read as JSON ({reason}); a submission is a flat JSON list "
             f"of objects like {example}"]) from None


def decode(track: DecisionTrack, data: bytes) -> list[Any]:
    """The entries of a submission file: a JSON list, or JSON Lines (one object a line)."""
    example = _example(track)
    if not data.removeprefix(b"\xef\xbb\xbf").strip():
        raise SubmissionError([f"the file is empty; expected a JSON list (or JSON Lines) of "
                               f"objects such as {example}"])
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise SubmissionError(
            ["the file is UTF-16 encoded; save it as UTF-8 (json.dump(..., ensure_ascii=True) "
             "or your editor's 'UTF-8' encoding) and upload it again"])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SubmissionError(
            [f"the file is not UTF-8 text (undecodable byte at offset {exc.start}); save it as "
             "UTF-8 JSON and upload it again"]) from None
    if text.lstrip().startswith("["):
        decoded = _json(text, example)
        if not isinstance(decoded, list):
            raise SubmissionError([_top_level_hint(track, decoded)])
        return decoded
    entries = []
    # split("\n"), not splitlines(): U+2028 and friends may sit unescaped in a JSON string.
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            entries.append(json.loads(line))
        except (ValueError, RecursionError) as exc:
            try:
                whole = json.loads(text)  # one document over several lines, e.g. an object
            except (ValueError, RecursionError):
                reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "unreadable"
                raise SubmissionError(
                    [f"line {lineno} is not valid JSON ({reason}); a submission is a JSON list "
                     f"of objects like {example}, or JSON Lines with one such object a line"]
                ) from None
            raise SubmissionError([_top_level_hint(track, whole)]) from None
    if len(entries) == 1 and not (isinstance(entries[0], dict) and track.fields.id in
                                  entries[0]):
        raise SubmissionError([_top_level_hint(track, entries[0])])
    return entries


def _read_assist(entry: dict[str, Any], position: int,
                 problems: evaluator._Problems) -> tuple[bool, bool | None]:
    """(usable, the entry's assist); a problem is noted when it is not usable."""
    if ASSIST not in entry:
        problems.add(f'{{n}} [entry has|entries have] no "{ASSIST}" (e.g. the {{examples}} '
                     "[entry|entries]); write true or false, or null if the model gave no answer",
                     evaluator.ordinal(position + 1))
        return False, None
    raw = entry[ASSIST]
    if raw is None or isinstance(raw, bool):
        return True, raw
    shown = f"{evaluator.nth(position, 'entry')}: {evaluator._preview(raw)}"
    if isinstance(raw, str) and raw.strip().lower() in _BOOLEAN_WORDS:
        problems.add(f'{{n}} [entry writes|entries write] "{ASSIST}" as a string (e.g. '
                     "{examples}); write the JSON literal true or false, without quotes: "
                     f'"{ASSIST}": true, not "{ASSIST}": "yes"', shown)
    else:
        problems.add(f'{{n}} [entry has|entries have] an "{ASSIST}" that is not true, false or '
                     "null (e.g. {examples}); write true or false, or null if the model gave "
                     "no answer", shown)
    return False, None


def _read_time(entry: dict[str, Any], position: int,
               problems: evaluator._Problems) -> tuple[bool, float | None]:
    """(usable, the entry's time in seconds); a problem is noted when it is not usable."""
    if TIME not in entry:
        problems.add(f'{{n}} [entry has|entries have] no "{TIME}" (e.g. the {{examples}} '
                     "[entry|entries]); give the time in seconds, or null when there is none",
                     evaluator.ordinal(position + 1))
        return False, None
    raw = entry[TIME]
    if raw is None:
        return True, None
    shown = f"{evaluator.nth(position, 'entry')}: {evaluator._preview(raw)}"
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        problems.add(f'{{n}} [entry has|entries have] an "{TIME}" that is not a number (e.g. '
                     "{examples}); write seconds as a JSON number such as 12.5, not a string, "
                     "or null", shown)
        return False, None
    try:
        value = float(raw)
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        problems.add(f'{{n}} [entry has|entries have] an "{TIME}" that is not a finite number '
                     "(e.g. {examples}); write a number of seconds, or null", shown)
        return False, None
    if value < 0:
        problems.add(f'{{n}} [entry has|entries have] a negative "{TIME}" (e.g. {{examples}}); '
                     "times are seconds from the start of the video, 0 or more", shown)
        return False, None
    return True, value


def validate(episodes: EpisodeSet, data: bytes) -> dict[int | str, Prediction]:
    """Every episode's prediction, the submission checked against the episodes alone (a public
    file's, or a key's ``asked``); SubmissionError lists every problem of the file at once."""
    track = episodes.track
    name = track.fields.id
    entries = decode(track, data)
    if not entries:
        raise SubmissionError([f"the list is empty; expected one entry for each of the "
                               f"{len(episodes)} episodes"])
    if len(entries) > evaluator.MAX_ENTRIES_PER_QUESTION * len(episodes):
        # Refused before reading the entries, as for multiple choice.
        raise SubmissionError([f"the list has {len(entries)} entries; expected one entry for "
                               f"each of the {len(episodes)} episodes"])
    problems = evaluator._Problems()
    out: dict[int | str, Prediction] = {}
    seen: Counter[int | str] = Counter()
    unknown: list[int | str] = []
    for position, entry in enumerate(entries):
        if not isinstance(entry, dict):
            problems.add("{n} [entry is|entries are] not [a JSON object|JSON objects] (e.g. "
                         "{examples}); each entry must be "
                         + _shape(track).replace("{", "{{").replace("}", "}}"),
                         evaluator._not_an_object(entry, position))
            continue
        ident = evaluator._read_id(track, entry, position, problems)
        if ident is not None:
            seen[ident] += 1
            if ident not in episodes.ids:
                unknown.append(ident)
                ident = None
            elif seen[ident] > 1:
                ident = None  # reported once below as a duplicate
        assist_ok, assist = _read_assist(entry, position, problems)
        time_ok, time_s = _read_time(entry, position, problems)
        if ident is not None and assist_ok and time_ok:
            out[ident] = Prediction(assist, time_s)

    dupes = sorted(i for i, n in seen.items() if n > 1 and i in episodes.ids)
    if dupes:
        problems.extend(evaluator._agree(f"{len(dupes)} [episode is|episodes are]", len(dupes))
                        + f" answered more than once ({evaluator._examples(dupes)}); keep one "
                        f"entry per {name}")
    if unknown:
        listed = sorted(set(unknown))
        problems.extend(evaluator._agree(f"{len(listed)} [{name} is|{name}s are]", len(listed))
                        + f" not in the answer key ({evaluator._examples(listed)}); valid ids "
                        f"are those of the public file ({track.public.name})")
    missing = sorted(i for i in episodes.ids if i not in seen)
    # When every entry names its episode by another field, that is the one problem to fix.
    if missing and not all(evaluator._uses_an_id_alias(track, e) for e in entries):
        problems.extend(evaluator._agree(f"{len(missing)} [episode has|episodes have]",
                                         len(missing))
                        + f" no answer ({evaluator._examples(missing)}); expected one entry for "
                        f"each of the {len(episodes)} episodes (use "
                        f'"{ASSIST}": null for no answer)')
    rendered = problems.render()
    if rendered:
        raise SubmissionError(rendered)
    return out


# --- scoring ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tally:
    """The outcomes of every episode, and the timing errors of the timed TP episodes."""

    tp: int
    fn: int
    fp: int
    tn: int
    right: Mapping[str, tuple[int, int]]  # scenario value -> (right decisions, episodes)
    missed: Mapping[str, tuple[int, int]]  # safety, non_safety -> (FN, episodes)
    alarms: tuple[int, int]  # (FP, no-assistance episodes)
    errors: tuple[float, ...]  # predicted - reviewed, over timed TP episodes, in key order
    untimed: int  # TP episodes without a predicted time
    abstained: int  # episodes whose assist is null


def tally(key: DecisionKey, predictions: Mapping[int | str, Prediction]) -> Tally:
    """Sort every episode into TP, FN, FP or TN and collect the timing errors."""
    outcomes: Counter[str] = Counter()
    right: dict[str, list[int]] = {g.value: [0, 0] for g in key.track.scenarios.groups}
    missed = {SAFETY: [0, 0], NON_SAFETY: [0, 0]}
    errors: list[float] = []
    untimed = abstained = 0
    for episode in key.episodes:
        guess = predictions[episode.id]
        assists = guess.assist is True
        abstained += guess.assist is None
        if episode.needs_assistance:
            outcome = "tp" if assists else "fn"
            missed[episode.assist_type][0] += not assists
            missed[episode.assist_type][1] += 1
        else:
            outcome = "fp" if assists else "tn"
        outcomes[outcome] += 1
        right[episode.scenario][0] += outcome in ("tp", "tn")
        right[episode.scenario][1] += 1
        if outcome == "tp":
            if guess.time_s is None or episode.time_s is None:
                untimed += 1
            else:
                errors.append(guess.time_s - episode.time_s)
    no_assist = outcomes["fp"] + outcomes["tn"]
    return Tally(tp=outcomes["tp"], fn=outcomes["fn"], fp=outcomes["fp"], tn=outcomes["tn"],
                 right={k: (v[0], v[1]) for k, v in right.items()},
                 missed={k: (v[0], v[1]) for k, v in missed.items()},
                 alarms=(outcomes["fp"], no_assist), errors=tuple(errors), untimed=untimed,
                 abstained=abstained)


def _is_proportion(key: str) -> bool:
    return key in PROPORTIONS or key.startswith(f"{BY_SCENARIO}/")


def _scale(track: DecisionTrack, metric: str) -> float:
    return 100.0 if track.display[metric] == "percent" else 1.0


def _f1(tp: int, fn: int, fp: int) -> float:
    denominator = 2 * tp + fp + fn
    return 2 * tp / denominator if denominator else 0.0


def counts_of(track: DecisionTrack, t: Tally) -> dict[str, Count]:
    """The count of every proportion but F1, in display order; none where nothing is counted."""
    pairs = {
        "decision_precision": (t.tp, t.tp + t.fp),
        "decision_recall": (t.tp, t.tp + t.fn),
        "safety_fn_rate": t.missed[SAFETY],
        "non_safety_fn_rate": t.missed[NON_SAFETY],
        "no_assist_fp_rate": t.alarms,
        BY_SCENARIO: (t.tp + t.tn, t.tp + t.fn + t.fp + t.tn),
    }
    pairs.update({track.scenario_key(g): t.right[g.value] for g in track.scenarios.groups})
    return {k: Count(correct=pairs[k][0], total=pairs[k][1])
            for k in track.metric_keys if k in pairs and pairs[k][1] > 0}


def _outcomes(counts: Mapping[str, Count]) -> tuple[int, int, int, int]:
    """(TP, FN, FP, TN) from the counts of recall, precision and accuracy."""
    recall, precision = counts.get("decision_recall"), counts.get("decision_precision")
    accuracy = counts.get(BY_SCENARIO)
    tp = recall.correct if recall else 0
    fn = recall.total - tp if recall else 0
    fp = precision.total - tp if precision else 0
    tn = accuracy.correct - tp if accuracy else 0
    return tp, fn, fp, tn


def proportions(track: DecisionTrack, counts: Mapping[str, Count]) -> dict[str, float]:
    """Every proportion (F1 included) from the counts, in its display; 0 where not counted."""
    out = {}
    for key in track.metric_keys:
        if key == "decision_f1":
            tp, fn, fp, _ = _outcomes(counts)
            out[key] = _scale(track, key) * _f1(tp, fn, fp)
        elif key in counts:
            count = counts[key]
            out[key] = _scale(track, key) * count.correct / count.total
        elif _is_proportion(key):
            out[key] = 0.0
    return out


def f1_interval(tp: int, fn: int, fp: int, tn: int) -> tuple[float, float]:
    """The bootstrap percentile interval of F1 (0-1) for these outcomes (module docstring)."""
    n = tp + fn + fp + tn
    if n == 0:
        return (0.0, 0.0)
    outcomes = [0] * tp + [1] * fn + [2] * fp + [3] * tn
    draw = random.Random(BOOTSTRAP_SEED).random
    resampled = []
    for _ in range(BOOTSTRAP_RESAMPLES):
        sample = [outcomes[int(draw() * n)] for _ in range(n)]
        resampled.append(_f1(sample.count(0), sample.count(1), sample.count(2)))
    resampled.sort()
    return (resampled[LOWER_RANK - 1], resampled[UPPER_RANK - 1])


def wilson_intervals(track: DecisionTrack,
                     counts: Mapping[str, Count]) -> dict[str, tuple[float, float]]:
    """The Wilson interval of every proportion but F1, in its display (the whole range when
    nothing is counted)."""
    out = {}
    for key in proportions(track, counts):
        if key == "decision_f1":
            continue
        count = counts.get(key, Count(correct=0, total=0))
        low, high = evaluator.wilson_bounds(count.correct, count.total)
        scale = _scale(track, key)
        out[key] = (scale * low, scale * high)
    return out


def score(key: DecisionKey, data: bytes) -> ScoreResult:
    """Score the raw bytes of a submission against a decision key; SubmissionError if it cannot
    be scored."""
    track = key.track
    t = tally(key, validate(key.asked, data))
    counts = counts_of(track, t)
    values = proportions(track, counts)
    timed = len(t.errors)
    values["timing_n"] = float(timed)
    values["timing_missing"] = float(t.untimed)
    if timed:
        values["timing_mae_s"] = math.fsum(abs(e) for e in t.errors) / timed
        values["timing_signed_s"] = math.fsum(t.errors) / timed
    wilson = wilson_intervals(track, counts)
    scale = _scale(track, "decision_f1")
    low, high = f1_interval(t.tp, t.fn, t.fp, t.tn)
    wilson["decision_f1"] = (scale * low, scale * high)
    return ScoreResult(
        metrics={k: values[k] for k in track.metric_keys if k in values},
        counts=counts,
        intervals={k: wilson[k] for k in track.metric_keys if k in wilson},
        n_questions=len(key),
        n_abstained=t.abstained,
        submission_sha256=hashlib.sha256(data).hexdigest(),
        answer_key_sha256=key.sha256,
        key_version=key.key_version,
        scorer_version=track.scorer_version,
    )


# --- checking a record's numbers ------------------------------------------------------------


def record_problems(track: DecisionTrack, metrics: Mapping[str, float],
                    counts: Mapping[str, Count],
                    intervals: Mapping[str, tuple[float, float]] | None) -> list[str]:
    """Where a re-scored record's numbers do not follow from its counts: every proportion
    (F1 from the outcomes), every Wilson interval, and the timing metrics' presence.

    The F1's bootstrap interval is only checked to lie within its range (recomputing it takes
    the scorer's time; ``scripts/reproduce_row.py`` compares it bit for bit).
    """
    problems = []
    counted = {k for k in track.metric_keys if _is_proportion(k)} - {"decision_f1"}
    extra = [k for k in counts if k not in counted]
    if extra:
        problems.append(f"counts: unexpected {', '.join(extra)} (only the proportions other "
                        "than F1 have counts)")
        return problems
    expected = proportions(track, counts)
    off = [k for k, v in expected.items()
           if k in metrics and not math.isclose(metrics[k], v, rel_tol=1e-9, abs_tol=1e-9)]
    if off:
        problems.append(f"metrics do not match counts for {', '.join(off)}")
    tp, _, _, _ = _outcomes(counts)
    timed, untimed = metrics.get("timing_n"), metrics.get("timing_missing")
    if timed is not None and untimed is not None and timed + untimed != tp:
        problems.append(f"timing_n ({timed:g}) and timing_missing ({untimed:g}) do not add up "
                        f"to the {tp} TP episodes of the counts")
    means = sorted(k for k in NULLABLE if k in metrics)
    if timed is not None and means != ([] if timed == 0 else sorted(NULLABLE)):
        problems.append(f"{' and '.join(sorted(NULLABLE))} must be absent exactly when "
                        f"timing_n is 0 (timing_n {timed:g}, present: "
                        f"{', '.join(sorted(means)) or 'none'})")
    if intervals is None:
        return problems
    missing = [k for k in expected if k not in intervals]
    extra = sorted(k for k in intervals if k not in expected)
    if missing or extra:
        found = ([f"missing {', '.join(missing)}"] if missing else []) + (
            [f"unexpected {', '.join(extra)}"] if extra else [])
        problems.append(f"intervals: must have exactly the keys {', '.join(expected)} "
                        f"({'; '.join(found)})")
        return problems
    wilson = wilson_intervals(track, counts)
    wrong = [k for k, v in wilson.items()
             if not all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
                        for a, b in zip(intervals[k], v, strict=True))]
    low, high = intervals["decision_f1"]
    if not 0 <= low <= high <= _scale(track, "decision_f1"):
        wrong.append("decision_f1")
    if wrong:
        problems.append(f"intervals do not match counts for {', '.join(wrong)}")
    return problems
