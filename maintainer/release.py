"""Release checks: does a track's answer key and public file make a release its spec describes?

Pure: bytes in, a report or a ``ReleaseError`` out; no file, network or clock access. The key
must validate (the evaluator's rules: ids, option letters in range, answers among the options
unless flagged out of option), every group must have the size the spec declares and exactly
the declared number of rows be flagged (``evaluator.size_problems``), the public file must
describe the same rows (ids, question texts, options, every grouping field) and carry no
answers (no answer field, no out-of-option flag), and both files must name the same key
version (a JSON key object's ``key_version``, or a ``key_version`` field or column on every
row), so whoever answers the public file knows which letters they answer. ``ReleaseError``
lists every problem, each with its count and the first ids.

A decision track's release is checked alike: the key validates (``decision.py``'s rules), its
scenarios have their declared sizes, and the public file has the key's episodes, once each,
with no answer (no scenario, assist type or intervention time: the no-assistance scenario
alone would say "stay silent") and the key's values in every field they share.

Example::

    track = spec.load_benchmark("egomemreason").track()
    report = check_release(track, key_path.read_bytes(), public_path.read_bytes())
    print(report.summary())     # rows, groups and their sizes, flagged rows, sha256s
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import evaluator
from evaluator import counted, decision
from spec import AnyTrack, DecisionTrack, Track

MAX_EXAMPLES = evaluator.MAX_EXAMPLES
#: Appended to a disagreement of the two files: the usual cause.
SAME_RELEASE_HINT = "Pass the public file released with this very key (same key version)."


class ReleaseError(ValueError):
    """A key and public file that do not make a release; the message lists every problem."""

    def __init__(self, message: str, problems: Sequence[str]) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


@dataclass(frozen=True)
class ReleaseReport:
    """A release that passed every check: its key, its public rows and their sha256s."""

    track: AnyTrack
    key: evaluator.AnyKey
    public_rows: int
    key_sha256: str
    public_sha256: str
    public_key_version: str | None = None  # the version the public file names

    @property
    def key_version(self) -> str | None:
        return self.key.key_version

    @property
    def flagged(self) -> int:
        """Rows flagged out of option (a decision key has none)."""
        if not isinstance(self.key, evaluator.AnswerKey):
            return 0
        return sum(q.out_of_option for q in self.key.questions)

    def summary(self) -> str:
        """One paragraph: rows, groups with their sizes, flagged rows, key version, sha256s."""
        if isinstance(self.key, decision.DecisionKey):
            return self._decision_summary(self.key)
        track = self.key.track
        groupings = "; ".join(
            f"{len(g.groups)} {g.field} groups ("
            + ", ".join(f"{x.value} {x.size}" for x in g.groups) + ")"
            for g in track.groupings)
        flag = track.out_of_option
        flagged = (f"{self.flagged} rows flagged {flag.field} = {flag.value}, as the spec "
                   "declares" if flag is not None else "no out-of-option rows")
        version = self._version()
        return (f"The {track.id} release is consistent: {len(self.key)} rows in "
                f"{track.key.name} and {track.public.name}, the same ids, questions, options "
                f"and groups in both; {groupings}; {flagged}; key version {version}; "
                f"{track.key.name} sha256 {self.key_sha256}, {track.public.name} sha256 "
                f"{self.public_sha256}.")

    def _version(self) -> str:
        if self.key_version is None:
            return "(unversioned: the key file names no key_version)"
        return f"{self.key_version}, named by both files"

    def _decision_summary(self, key: decision.DecisionKey) -> str:
        track = key.track
        grouping = track.scenarios
        types = ", ".join(f"{t} {n}" for t, n in decision.assist_types(key).items())
        version = self._version()
        return (f"The {track.id} release is consistent: {len(key)} episodes in "
                f"{track.key.name} and {track.public.name}, the same ids in both and no answers "
                f"in the public file; {len(grouping.groups)} {grouping.field} groups ("
                + ", ".join(f"{g.value} {g.size}" for g in grouping.groups)
                + f"); {decision.ASSIST_TYPE}: {types}; key version {version}; "
                f"{track.key.name} sha256 {self.key_sha256}, {track.public.name} sha256 "
                f"{self.public_sha256}.")


def _some(items: Iterable[object]) -> str:
    """The first few, in file order, each once."""
    listed = list(dict.fromkeys(items))
    shown = ", ".join(str(i) for i in listed[:MAX_EXAMPLES])
    return f"{shown}, ..." if len(listed) > MAX_EXAMPLES else shown


def _is_id(track: AnyTrack, value: object) -> bool:
    if track.fields.id_type == "integer":
        return type(value) is int
    return isinstance(value, str) and bool(value.strip())


def _where(track: AnyTrack, record: Mapping[str, Any], index: int) -> object:
    """A row's id for a message, or its position when it has no usable id."""
    ident = record.get(track.fields.id)
    return ident if _is_id(track, ident) else evaluator.nth(index, "row")


def public_problems(track: Track, records: Sequence[Any]) -> list[str]:
    """What makes the public rows unusable on their own: their shape, and answers left in."""
    return shape_problems(track, records) + leak_problems(track, records)


def shape_problems(track: Track, records: Sequence[Any]) -> list[str]:
    """Rows of the public file that are not usable rows: no id, question, options or group."""
    f = track.fields
    if not records:
        return ["the public file has no rows"]
    not_objects = [i for i, r in enumerate(records) if not isinstance(r, dict)]
    rows = [(i, r) for i, r in enumerate(records) if isinstance(r, dict)]
    problems = []
    if not_objects:
        problems.append(f"{counted(len(not_objects), 'row', 'rows')} of the public file "
                        f"{'is not an object' if len(not_objects) == 1 else 'are not objects'} "
                        f"({_some(evaluator.nth(i, 'row') for i in not_objects)})")
    kind = "an integer" if f.id_type == "integer" else "a non-empty string"
    bad_id = [evaluator.nth(i, "row") for i, r in rows if not _is_id(track, r.get(f.id))]
    if bad_id:
        problems.append(f"{counted(len(bad_id), 'row', 'rows')} of the public file "
                        f"{'has' if len(bad_id) == 1 else 'have'} no {f.id} that is {kind} "
                        f"({_some(bad_id)})")
    for name in (f.question, *(g.field for g in track.groupings)):
        bad = [_where(track, r, i) for i, r in rows if not isinstance(r.get(name), str)]
        if bad:
            problems.append(f"{counted(len(bad), 'row', 'rows')} of the public file "
                            f"{'has' if len(bad) == 1 else 'have'} no text {name} "
                            f"({_some(bad)})")
    bad_options = [_where(track, r, i) for i, r in rows
                   if not isinstance(r.get(f.options), dict)
                   or not all(isinstance(k, str) and isinstance(v, str)
                              for k, v in r[f.options].items())]
    if bad_options:
        problems.append(f"{counted(len(bad_options), 'row', 'rows')} of the public file "
                        f"{'has' if len(bad_options) == 1 else 'have'} no {f.options} object "
                        f"of letters to texts ({_some(bad_options)})")
    return problems


def leak_problems(track: Track, records: Sequence[Any]) -> list[str]:
    """Answers left in the public rows: an answer field, or the out-of-option flag."""
    f = track.fields
    rows = [(i, r) for i, r in enumerate(records) if isinstance(r, dict)]
    problems = []
    leaked = [_where(track, r, i) for i, r in rows if f.answer in r]
    if leaked:
        problems.append(f"{counted(len(leaked), 'row', 'rows')} of the public file "
                        f"{'carries' if len(leaked) == 1 else 'carry'} a {f.answer} "
                        f"({_some(leaked)}); a public file must not contain answers")
    flag = track.out_of_option
    if flag is not None:
        flagged = [_where(track, r, i) for i, r in rows if flag.field in r]
        if flagged:
            problems.append(
                f"{counted(len(flagged), 'row', 'rows')} of the public file "
                f"{'carries' if len(flagged) == 1 else 'carry'} the {flag.field} field "
                f"({_some(flagged)}); a public file must not say which rows are out of option "
                "(that is answer information): drop the field")
    return problems


def _id_problems(ident: str, private_by_id: Mapping[Any, Any],
                 public: Sequence[Mapping[str, Any]]) -> list[str]:
    """Ids the public file repeats, and ids only one of the two files has."""
    problems: list[str] = []
    counts = Counter(r[ident] for r in public)
    dupes = [i for i, n in counts.items() if n > 1]
    if dupes:
        problems.append(f"{counted(len(dupes), f'{ident} appears', f'{ident}s appear')} twice "
                        f"in the public file ({_some(dupes)})")
    public_ids = {r[ident] for r in public}
    only_private = [i for i in private_by_id if i not in public_ids]
    only_public = [i for i in counts if i not in private_by_id]
    if only_private:
        problems.append(f"{counted(len(only_private), ident, f'{ident}s')} only in the private "
                        f"key ({_some(only_private)})")
    if only_public:
        problems.append(f"{counted(len(only_public), ident, f'{ident}s')} only in the public "
                        f"file ({_some(only_public)})")
    return problems


def agreement_problems(key: evaluator.AnswerKey, public: Sequence[Mapping[str, Any]]) -> list[str]:
    """Where the key and the public rows describe different rows: ids, question texts,
    options, and the field of every grouping."""
    track = key.track
    f = track.fields
    ident = f.id
    private_by_id = {q.id: q.record for q in key.questions}
    public_by_id = {r[ident]: r for r in public}
    problems = _id_problems(ident, private_by_id, public)
    compared = [(f.question, "question texts"), (f.options, "options"),
                *((g.field, g.title.lower()) for g in track.groupings)]
    both = [i for i in private_by_id if i in public_by_id]
    for name, label in compared:
        differ = [i for i in both if private_by_id[i].get(name) != public_by_id[i].get(name)]
        if differ:
            problems.append(f"{counted(len(differ), 'question', 'questions')} whose {label} "
                            f"differ ({_some(differ)})")
    return problems


# --- a decision track's public file ---------------------------------------------------------


def _decision_shape_problems(track: DecisionTrack, records: Sequence[Any]) -> list[str]:
    """Rows of a decision public file that are not usable rows: not objects, or no id."""
    if not records:
        return ["the public file has no rows"]
    not_objects = [i for i, r in enumerate(records) if not isinstance(r, dict)]
    problems = []
    if not_objects:
        problems.append(f"{counted(len(not_objects), 'row', 'rows')} of the public file "
                        f"{'is not an object' if len(not_objects) == 1 else 'are not objects'} "
                        f"({_some(evaluator.nth(i, 'row') for i in not_objects)})")
    kind = "an integer" if track.fields.id_type == "integer" else "a non-empty string"
    bad_id = [evaluator.nth(i, "row") for i, r in enumerate(records)
              if isinstance(r, dict) and not _is_id(track, r.get(track.fields.id))]
    if bad_id:
        problems.append(f"{counted(len(bad_id), 'row', 'rows')} of the public file "
                        f"{'has' if len(bad_id) == 1 else 'have'} no {track.fields.id} that is "
                        f"{kind} ({_some(bad_id)})")
    return problems


def _decision_leak_problems(track: DecisionTrack, records: Sequence[Any]) -> list[str]:
    """Answers left in a decision public file: the scenario, assist type or reviewed time."""
    rows = [(i, r) for i, r in enumerate(records) if isinstance(r, dict)]
    problems = []
    for name in (track.scenarios.field, decision.ASSIST_TYPE, decision.TIME):
        leaked = [_where(track, r, i) for i, r in rows if name in r]
        if leaked:
            problems.append(f"{counted(len(leaked), 'row', 'rows')} of the public file "
                            f"{'carries' if len(leaked) == 1 else 'carry'} a {name} "
                            f"({_some(leaked)}); a public file must not contain answers (the "
                            f"{track.silent_scenario} {track.scenarios.field} alone says whether "
                            "to assist): drop the field")
    return problems


def _decision_agreement_problems(key: decision.DecisionKey,
                                 public: Sequence[Mapping[str, Any]]) -> list[str]:
    """Where a decision key and its public rows differ: ids, and any field they share."""
    ident = key.track.fields.id
    private_by_id = {e.id: e.record for e in key.episodes}
    public_by_id = {r[ident]: r for r in public}
    problems = _id_problems(ident, private_by_id, public)
    both = [i for i in private_by_id if i in public_by_id]
    shared = dict.fromkeys(n for i in both for n in public_by_id[i] if n in private_by_id[i])
    for name in shared:
        differ = [i for i in both if name in private_by_id[i] and name in public_by_id[i]
                  and private_by_id[i][name] != public_by_id[i][name]]
        if differ:
            problems.append(f"{counted(len(differ), 'episode', 'episodes')} whose {name} "
                            f"{'differs' if len(differ) == 1 else 'differ'} ({_some(differ)})")
    return problems


def version_problems(track: AnyTrack, key_version: str | None,
                     public_version: str | None) -> list[str]:
    """Where the key and the public file name different key versions (or one names none)."""
    key_name, public_name = track.key.name, track.public.name
    field = evaluator.KEY_VERSION_FIELD
    where = "a column" if track.public.format == "csv" else "a field of every row"
    if key_version == public_version:
        return []
    if public_version is None:
        return [f"{public_name} names no key version, {key_name} names {key_version!r}: every "
                f"row of the public file names the letters it was released with ({field} "
                f"{key_version!r}, {where}); publish the public file reshuffle_options.py "
                "wrote with this key, or add the field"]
    if key_version is None:
        return [f"{public_name} names key version {public_version!r}, {key_name} names none; "
                f"give the key its version ({field} {public_version!r}), or pass the key of "
                "that version"]
    return [f"{key_name} is key version {key_version!r} but {public_name} names "
            f"{public_version!r}; pass the public file of the same rotation (reshuffle_options.py "
            "writes both)"]


def check_agreement(key: evaluator.AnswerKey, public: Sequence[Mapping[str, Any]]) -> None:
    """ReleaseError unless the public rows describe the key's rows (usable rows assumed)."""
    problems = agreement_problems(key, public)
    if problems:
        raise ReleaseError(
            "the public file and the private key describe different questions: "
            + "; ".join(problems) + f". {SAME_RELEASE_HINT}", problems)


def check_release(track: AnyTrack, key_bytes: bytes, public_bytes: bytes) -> ReleaseReport:
    """Every check of a release of ``track``; ReleaseError lists every problem found."""
    problems: list[str] = []
    key: evaluator.AnyKey | None = None
    try:
        key = evaluator.load_answer_key(track, key_bytes)
    except evaluator.AnswerKeyError as exc:
        problems.append(f"{track.key.name}: {exc}")
    public: tuple[Any, ...] | None = None
    public_version: str | None = None
    try:
        rows = evaluator.read_rows(track, public_bytes, track.public.format)
        public, public_version = rows.records, rows.key_version
    except evaluator.DataFileError as exc:
        problems.append(f"{track.public.name}: cannot be read as {track.public.format}: {exc}")
    shape: list[str] = []
    if public is not None:
        if isinstance(track, DecisionTrack):
            shape = _decision_shape_problems(track, public)
            leaks = _decision_leak_problems(track, public)
        else:
            shape, leaks = shape_problems(track, public), leak_problems(track, public)
        problems.extend(f"{track.public.name}: {p}" for p in shape + leaks)
    hint = ""
    if key is not None:
        problems.extend(f"{track.key.name}: {p}" for p in evaluator.size_problems(key))
        if public is not None:
            problems.extend(version_problems(track, key.key_version, public_version))
        if public is not None and not shape:  # unusable rows would differ in every field
            disagree = (agreement_problems(key, public) if isinstance(key, evaluator.AnswerKey)
                        else _decision_agreement_problems(key, public))
            problems.extend(f"{track.key.name} and {track.public.name}: {p}" for p in disagree)
            hint = f"\n{SAME_RELEASE_HINT}" if disagree else ""
    if problems:
        raise ReleaseError(
            f"the {track.id} release has {counted(len(problems), 'problem', 'problems')}:\n"
            + "\n".join(f"- {p}" for p in problems) + hint, problems)
    assert key is not None and public is not None
    return ReleaseReport(track=track, key=key, public_rows=len(public),
                         key_sha256=hashlib.sha256(key_bytes).hexdigest(),
                         public_sha256=hashlib.sha256(public_bytes).hexdigest(),
                         public_key_version=public_version)
