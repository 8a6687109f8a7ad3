"""Release checks: does a track's answer key and public file make a release its spec describes?

Pure: bytes in, a report or a ``ReleaseError`` out; no file, network or clock access. The key
must validate (its kind's rules), its groups must have the sizes the spec declares
(``evaluator.size_problems``), the public file must be rows of its kind with no answer left in
them and describe the key's rows (the same ids, once each, and the same values in what both
carry: each kind says which, ``Kind.public_problems`` and ``Kind.agreement_problems``), and
both files must name the same key version (a JSON key object's ``key_version``, or a
``key_version`` field or column on every row), so whoever answers the public file knows which
letters they answer. ``ReleaseError`` lists every problem, each with its count and the first
ids.

Example:

>>> import spec
>>> bench = spec.load_benchmark("egomemreason")
>>> track = bench.track()
>>> report = check_release(track, bench.demo_key(track).read_bytes(),
...                        bench.demo_public(track).read_bytes())
>>> report.public_rows, report.key_version
(500, 'demo-1')
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import evaluator
from errors import AnswerKeyError, DataFileError, ReleaseError
from evaluator.files import KEY_VERSION_FIELD
from evaluator.messages import counted, first_few
from spec import Track

#: Appended to a disagreement of the two files: the usual cause.
SAME_RELEASE_HINT = "Pass the public file released with this very key (same key version)."


@dataclass(frozen=True)
class ReleaseReport:
    """A release that passed every check: its key, its public rows and their sha256s."""

    track: Track
    key: evaluator.AnyKey
    public_rows: int
    key_sha256: str
    public_sha256: str
    public_key_version: str | None = None  # the version the public file names

    @property
    def warnings(self) -> list[str]:
        """What the release would still hide from its visitors, with the fix
        (``evaluator.release_warnings``: the boot logs the same)."""
        return evaluator.release_warnings(self.key)

    @property
    def key_version(self) -> str | None:
        return self.key.key_version

    @property
    def flagged(self) -> int:
        """Rows flagged out of option (a decision key has none)."""
        return self.key.flagged

    def summary(self) -> str:
        """One paragraph: rows, groups with their sizes, what the kind counts, key version,
        sha256s."""
        track = self.track
        holds = evaluator.kind_of(track).release_summary(self.key)
        version = (
            "(unversioned: the key file names no key_version)"
            if self.key_version is None
            else f"{self.key_version}, named by both files"
        )
        return (
            f"The {track.id} release is consistent: {holds}; key version {version}; "
            f"{track.key.name} sha256 {self.key_sha256}, {track.public.name} sha256 "
            f"{self.public_sha256}."
        )


def public_problems(track: Track, records: Sequence[Any]) -> list[str]:
    """What makes the public rows unusable on their own, and answers left in them."""
    shape, leaks = evaluator.kind_of(track).public_problems(track, records)
    return shape + leaks


def _id_problems(
    ident: str, private_ids: Sequence[Any], public: Sequence[Mapping[str, Any]]
) -> list[str]:
    """Ids the public file repeats, and ids only one of the two files has."""
    problems: list[str] = []
    counts = Counter(r[ident] for r in public)
    dupes = [i for i, n in counts.items() if n > 1]
    if dupes:
        problems.append(
            f"{counted(len(dupes), f'{ident} appears', f'{ident}s appear')} twice "
            f"in the public file ({first_few(dupes)})"
        )
    private = set(private_ids)
    only_private = [i for i in private_ids if i not in counts]
    only_public = [i for i in counts if i not in private]
    if only_private:
        problems.append(
            f"{counted(len(only_private), ident, f'{ident}s')} only in the private "
            f"key ({first_few(only_private)})"
        )
    if only_public:
        problems.append(
            f"{counted(len(only_public), ident, f'{ident}s')} only in the public "
            f"file ({first_few(only_public)})"
        )
    return problems


def agreement_problems(key: evaluator.AnyKey, public: Sequence[Mapping[str, Any]]) -> list[str]:
    """Where the key and the (usable) public rows describe different rows: ids, and what the
    key's kind compares (a multiple-choice key: question texts, options, every grouping)."""
    return _id_problems(key.track.fields.id, key.ids, public) + evaluator.kind_of(
        key.track
    ).agreement_problems(key, public)


def version_problems(
    track: Track, key_version: str | None, public_version: str | None
) -> list[str]:
    """Where the key and the public file name different key versions (or one names none)."""
    key_name, public_name = track.key.name, track.public.name
    field = KEY_VERSION_FIELD
    where = "a column" if track.public.format == "csv" else "a field of every row"
    if key_version == public_version:
        return []
    if public_version is None:
        return [
            f"{public_name} names no key version, {key_name} names {key_version!r}: every "
            f"row of the public file names the letters it was released with ({field} "
            f"{key_version!r}, {where}); publish the public file reshuffle_options.py "
            "wrote with this key, or add the field"
        ]
    if key_version is None:
        return [
            f"{public_name} names key version {public_version!r}, {key_name} names none; "
            f"give the key its version ({field} {public_version!r}), or pass the key of "
            "that version"
        ]
    return [
        f"{key_name} is key version {key_version!r} but {public_name} names "
        f"{public_version!r}; pass the public file of the same rotation (reshuffle_options.py "
        "writes both)"
    ]


def check_agreement(key: evaluator.AnyKey, public: Sequence[Mapping[str, Any]]) -> None:
    """ReleaseError unless the public rows describe the key's rows (usable rows assumed)."""
    problems = agreement_problems(key, public)
    if problems:
        raise ReleaseError(
            "the public file and the private key describe different questions: "
            + "; ".join(problems)
            + f". {SAME_RELEASE_HINT}",
            problems,
        )


def check_release(track: Track, key_bytes: bytes, public_bytes: bytes) -> ReleaseReport:
    """Every check of a release of ``track``; ReleaseError lists every problem found."""
    problems: list[str] = []
    key: evaluator.AnyKey | None = None
    try:
        key = evaluator.load_answer_key(track, key_bytes)
    except AnswerKeyError as exc:
        problems.append(f"{track.key.name}: {exc}")
    public: tuple[Any, ...] | None = None
    public_version: str | None = None
    try:
        rows = evaluator.read_rows(track, public_bytes, track.public.format)
        public, public_version = rows.records, rows.key_version
    except DataFileError as exc:
        problems.append(f"{track.public.name}: cannot be read as {track.public.format}: {exc}")
    shape: list[str] = []
    if public is not None:
        shape, leaks = evaluator.kind_of(track).public_problems(track, public)
        problems.extend(f"{track.public.name}: {p}" for p in shape + leaks)
    hint = ""
    if key is not None:
        problems.extend(f"{track.key.name}: {p}" for p in evaluator.size_problems(key))
        if public is not None:
            problems.extend(version_problems(track, key.key_version, public_version))
        if public is not None and not shape:  # unusable rows would differ in every field
            disagree = agreement_problems(key, public)
            problems.extend(f"{track.key.name} and {track.public.name}: {p}" for p in disagree)
            hint = f"\n{SAME_RELEASE_HINT}" if disagree else ""
    if problems:
        raise ReleaseError(
            f"the {track.id} release has {counted(len(problems), 'problem', 'problems')}:\n"
            + "\n".join(f"- {p}" for p in problems)
            + hint,
            problems,
        )
    assert key is not None and public is not None
    return ReleaseReport(
        track=track,
        key=key,
        public_rows=len(public),
        key_sha256=hashlib.sha256(key_bytes).hexdigest(),
        public_sha256=hashlib.sha256(public_bytes).hexdigest(),
        public_key_version=public_version,
    )
