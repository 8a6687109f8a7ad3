"""Carrying a board onto a new answer key: each re-scored row scored again on the new key.

After a rotation (maintainer.rotation) the rows of a board name the old key; ``plan`` finds the
current re-scored rows scored on it (their provenance names its sha256), finds each row's
submission by the sha256 its record names, remaps it with the rotation's letter map (or takes it
as it is when only the key's file changed, ``same_letters``), scores it on the new key and makes
the record that supersedes the row: every field of the row (team, method, description, links,
note, model repo and its date: ``created_at`` is when the row's result was first published,
which a rotation does not change; the commit that adds the record says when it was carried), the
new key version in its provenance. Its id is derived, never drawn (``carried_id``): a dry run
prints the ids the real run writes. Its counts must be the old row's exactly, for a rotation
moves letters, never answers, and each new row must pass the board's checks as a publication
would (``board_checks.check_board``): anything else is a ``BoardError``, before anything is
written (``publish`` writes the rows ``plan`` made). Rows already on the new key, or scored on
another key, are left as they are, each with a line saying why.

Example (the demo board, carried onto a rotation of the demo key made in memory):

>>> import hashlib
>>> import ledger, spec
>>> from maintainer import board_checks, letter_map, rotation, tables
>>> bench = spec.load_benchmark("egomemreason")
>>> track = bench.track(kind=spec.MultipleChoiceTrack)
>>> key_path, public_path = bench.demo_key(track), bench.demo_public(track)
>>> table, key = tables.read_private(track, key_path.read_bytes(), key_path)
>>> public = tables.read_public(track, public_path.read_bytes(), public_path)
>>> rotated = rotation.rotate(table, key, public, hashlib.sha256(public_path.read_bytes())
...                           .hexdigest(), "a salt of sixteen or more", "demo-2")
>>> the_map = letter_map.read_letter_map(track, rotated.letter_map, key_path)
>>> old = rotated_key(the_map, rotated.new_key, map_path=key_path, key_path=key_path)
>>> everything, _ = board_checks.read_board(ledger.LocalStore(bench.demo_board))
>>> carried, left = plan(everything, bench, rotated.new_key, old, bench.demo_dir)
>>> sorted(c.old.method_name for c in carried), left
(['Always-A (synthetic)', 'DemoVLM-7B (synthetic)', 'LongestOption (synthetic)'], [])
>>> {c.record.key_version for c in carried}, all(c.result.counts == c.old.counts for c in carried)
({'demo-2'}, True)
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import evaluator
import ledger
import spec
from errors import BoardError, ReshuffleError
from ledger import submission_file
from maintainer.board_checks import (
    check_board,
    current,
    find_submissions,
    row_name,
    rows_of,
    withdrawals_of,
)
from maintainer.letter_map import LetterMap, remap_submission


@dataclass(frozen=True)
class OldKey:
    """The key the rows to carry were scored on: its sha256 and version, and the letter map
    from it to the new key (None: the two keys share every letter)."""

    sha256: str
    key_version: str | None
    letter_map: LetterMap | None


@dataclass(frozen=True)
class Carry:
    """One row to carry: the old record, its submission (where found, its new bytes), the new
    score and the new record."""

    old: ledger.Record
    source: Path
    data: bytes
    result: evaluator.ScoreResult
    record: ledger.Record


def rotated_key(
    letter_map: LetterMap, key: evaluator.AnswerKey, *, map_path: Path, key_path: Path
) -> OldKey:
    """The key a rotation's letter map goes from, once the map is checked to go to ``key``
    (ReshuffleError, naming both files, if not)."""
    if letter_map.new_private_sha256 != key.sha256:
        raise ReshuffleError(
            f"--letter-map {map_path} goes to the key of sha256 "
            f"{letter_map.new_private_sha256} (key version "
            f"{letter_map.new_key_version}), but --private {key_path} has sha256 "
            f"{key.sha256}; pass the key and the letter map of the same rotation"
        )
    return OldKey(letter_map.old_private_sha256, letter_map.old_key_version, letter_map)


def same_letters(
    old: evaluator.AnswerKey, key: evaluator.AnswerKey, *, old_path: Path, key_path: Path
) -> OldKey:
    """``old``, once it is checked to be another file of the same letters and answers as
    ``key`` (ReshuffleError, naming the questions that differ, if not)."""
    if old.sha256 == key.sha256:
        raise ReshuffleError(
            f"--same-letters {old_path} is the very file of --private; "
            "pass the key the rows were scored on"
        )
    new_by_id = {q.id: q for q in key.questions}
    differ = [
        q.id
        for q in old.questions
        if q.id not in new_by_id
        or (dict(new_by_id[q.id].options), new_by_id[q.id].answer) != (dict(q.options), q.answer)
    ]
    if differ or len(old) != len(key):
        raise ReshuffleError(
            f"--same-letters {old_path}: {len(differ)} questions have other options "
            f"or answers than in --private {key_path} (e.g. "
            f"{', '.join(str(i) for i in differ[: evaluator.MAX_EXAMPLES])}); after a rotation "
            "pass its --letter-map instead"
        )
    return OldKey(old.sha256, old.key_version, None)


def plan(
    everything: Sequence[ledger.Entry],
    bench: spec.Benchmark,
    key: evaluator.AnswerKey,
    old: OldKey,
    submissions_dir: Path,
    *,
    skip_missing: bool = False,
) -> tuple[list[Carry], list[str]]:
    """The rows to carry, each with its new record, and a line for each row left as it is.

    A row whose submission is not in ``submissions_dir`` is a BoardError, unless
    ``skip_missing`` leaves it on its key (with a line).
    """
    track = key.track
    rows = current(rows_of(everything, bench, track), withdrawals_of(everything, bench, track))
    version = key.key_version or "(unversioned)"
    left: list[str] = []
    todo: list[ledger.Record] = []
    for row in rows:
        prov = row.provenance
        if row.source != "rescored" or prov is None:
            continue  # paper-reported: not scored here, counted by the caller
        if prov.answer_key_sha256 == key.sha256:
            left.append(f"{row_name(row)}: already on key version {version}")
        elif prov.answer_key_sha256 != old.sha256:
            left.append(
                f"{row_name(row)}: scored on another key (sha256 "
                f"{prov.answer_key_sha256}) than the one this "
                f"{'letter map rotated' if old.letter_map else '--same-letters names'}; "
                "carry it with the letter maps of the rotations since"
            )
        else:
            todo.append(row)
    files = find_submissions(
        submissions_dir,
        {r.provenance.submission_sha256 for r in todo if r.provenance is not None},
        "--submissions-dir",
    )
    missing = [r for r in todo if r.provenance and r.provenance.submission_sha256 not in files]
    if missing and not skip_missing:
        listed = "; ".join(
            f"{row_name(r)}, sha256 {r.provenance.submission_sha256}"
            for r in missing
            if r.provenance is not None
        )
        raise BoardError(
            f"{evaluator.counted(len(missing), 'row has', 'rows have')} no submission file in "
            f"--submissions-dir {submissions_dir}: {listed}; put their files there, or pass "
            f"--skip-missing to leave them on key version {old.key_version or '(unversioned)'}"
        )
    left += [
        f"{row_name(r)}: its submission is not in --submissions-dir (--skip-missing)"
        for r in missing
    ]
    carried: list[Carry] = []
    for row in todo:
        if row in missing:
            continue
        assert row.provenance is not None
        source = files[row.provenance.submission_sha256]
        try:
            data = ledger.read_regular_file(source, submission_file.LIMIT_BYTES)
        except ledger.UnreadableFileError as exc:
            raise BoardError(f"cannot read the submission: {exc}") from None
        if old.letter_map is not None:
            try:
                data, _, _ = remap_submission(track, data, old.letter_map, source)
            except ReshuffleError as exc:
                raise ReshuffleError(f"{row_name(row)}: {exc}") from None
        result, record = new_record(bench, key, row, data, source)
        carried.append(Carry(row, source, data, result, record))
    board = list(everything)
    for item in carried:  # each new row against the board as it will be
        check_board(
            board,
            bench,
            track,
            item.result,
            item.old.id,
            team_name=item.old.team_name,
            method_name=item.old.method_name,
        )
        board.append(item.record)
    return carried, left


def lettered(bench: spec.Benchmark, track: spec.Track) -> spec.MultipleChoiceTrack:
    """``track``, if its answers are option letters (a rotation moves only those); BoardError
    saying how to correct a row of another kind."""
    try:
        return bench.track(track.id, kind=spec.MultipleChoiceTrack)
    except spec.SpecError:
        raise BoardError(
            f"{bench.id}/{track.id} is a {track.kind} track: its answers have no option "
            "letters, so no rotation moves them; publish a corrected row with "
            "publish_submission.py --supersedes"
        ) from None


def publish(
    store: ledger.RecordStore,
    carried: Sequence[Carry],
    key_version: str,
    remapped_dir: Path | None = None,
) -> None:
    """Write each carried row, in order (and, into ``remapped_dir``, its remapped submission as
    ``<sha256>.json``, so the row can be reproduced). LedgerError if one cannot be written,
    saying how many were and that the same command carries the rest."""
    for done, item in enumerate(carried):
        try:
            if remapped_dir is not None:
                remapped_dir.mkdir(parents=True, exist_ok=True)
                name = remapped_dir / f"{hashlib.sha256(item.data).hexdigest()}.json"
                if not name.exists():
                    name.write_bytes(item.data)
            store.write(
                item.record,
                f"Re-score {item.old.method_name} by {item.old.team_name} on key version "
                f"{key_version} (supersedes {item.old.id})",
            )
        except (OSError, ledger.LedgerError) as exc:
            raise ledger.LedgerError(
                f"after {done} of {len(carried)} rows were published, "
                f"{row_name(item.old)} could not be: {exc}; run the same command "
                "again to carry the rest (carried rows are skipped)"
            ) from None


def paper_rows(everything: Sequence[ledger.Entry], bench: spec.Benchmark, track: spec.Track) -> int:
    """How many rows the board shows of ``track`` that a paper reported (not scored here, so
    never carried)."""
    rows = current(rows_of(everything, bench, track), withdrawals_of(everything, bench, track))
    return sum(r.source == "paper" for r in rows)


def carried_id(old: ledger.Record, key_sha256: str, submission_sha256: str) -> uuid.UUID:
    """The id of ``old`` carried onto the key of ``key_sha256`` from the submission of
    ``submission_sha256``: a uuid5 in the old row's own id, so the same carry has the same id
    in a dry run and in the real one, and no two carries share one (a store never overwrites a
    record, so a repeated carry is refused, not written twice)."""
    return uuid.uuid5(old.id, f"carried onto {key_sha256} from {submission_sha256}")


def new_record(
    bench: spec.Benchmark,
    key: evaluator.AnswerKey,
    old: ledger.Record,
    data: bytes,
    source: Path,
) -> tuple[evaluator.ScoreResult, ledger.Record]:
    """``old`` re-scored on ``key`` from ``data``, and its new record; BoardError if its counts
    differ from the old row's (a wrong map, or not that row's submission)."""
    try:
        result = evaluator.score(key, data)
    except evaluator.SubmissionError as exc:
        raise BoardError(
            f"{row_name(old)}: {source} does not score on the new key: {exc}"
        ) from None
    if result.counts != old.counts or result.n_abstained != old.n_abstained:
        ranking = key.track.ranking
        was, now = (old.counts or {}).get(ranking), result.counts.get(ranking)
        raise BoardError(
            f"{row_name(old)}: re-scored on the new key it gets "
            f"{now.correct if now else '?'}/{now.total if now else '?'} "
            f"{key.track.labels[ranking]}, the row has {was.correct if was else '?'}/"
            f"{was.total if was else '?'}: a rotation moves letters, never answers, so this "
            "is the wrong letter map or not that row's submission"
        )
    return result, ledger.rescored_record(
        result,
        bench,
        key.track,
        team_name=old.team_name,
        method_name=old.method_name,
        model_size=old.model_size,
        uses_external=old.uses_external,
        uses_frames=old.uses_frames,
        method_description=old.method_description,
        project_url=old.project_url,
        publication_url=old.publication_url,
        supersedes=old.id,
        note=old.note,
        model_repo=old.model_repo,
        record_id=carried_id(old, key.sha256, result.submission_sha256),
        created_at=old.created_at,
    )
