"""Publishing a scored submission as one row: its record, what the board says of it, and what
the row's summary names.

A publication is decided here and written by the caller (scripts/publish_submission.py): the
score's key version agrees with the key file (``versioned``); a score significantly below
chance is refused unless allowed (``below_chance``); the row's fields validate as a record
(``new_row``); then the board decides (``decide``): a submission already on it, a second row of
the same team and method, a ``--supersedes`` naming no row it may supersede are refused
(``board_checks.check_board``); a correction keeps the old row's optional fields it is not given;
and a row left beside its twin by mistake, named by ``--supersedes`` with the file of the row
to keep, is repaired by a withdrawal (``board_checks.twin_repair``) instead of a new row.
Refusals are ``BoardError``s saying how to fix them; warnings are returned, to print.

Example (the shipped demo board, which holds an always-A run: a new method answers B
everywhere; with --submissions-dir the board's older rows are compared by their answers too):

>>> import evaluator, ledger, spec
>>> from maintainer import board_checks
>>> bench = spec.load_benchmark("egomemreason")
>>> track = bench.track()
>>> key = evaluator.load_answer_key(track, bench.demo_key(track).read_bytes())
>>> always_b = "[" + ",".join(f'{{"example_id": {q.id}, "predicted_answer": "B"}}'
...                           for q in key.questions) + "]"
>>> result = evaluator.score(key, always_b.encode())
>>> row = Row("Demo Lab", "Always-B", "", False, "frames-only")
>>> everything, _ = board_checks.read_board(ledger.LocalStore(bench.demo_board))
>>> chosen = decide(everything, bench, track, result, row, submissions_dir=bench.demo_dir)
>>> chosen.record.method_name, chosen.withdrawn, chosen.warnings
('Always-B', None, [])
>>> summary(track, result, row)  # doctest: +ELLIPSIS
'Always-B by Demo Lab: Overall ... (.../500), 0 abstentions'
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from pydantic import ValidationError

import evaluator
import ledger
import spec
from errors import BoardError
from maintainer.board_checks import check_board, older_answers, rows_of, twin_repair
from maintainer.withdraw import twin_withdrawal


@dataclass(frozen=True)
class Row:
    """A row's fields as the submitter's e-mail gives them. The optional ones (from
    ``method_description`` on) are None when not given: a correction keeps the old row's."""

    team_name: str
    method_name: str
    model_size: str
    uses_external: bool
    uses_frames: str
    method_description: str | None = None
    project_url: str | None = None
    publication_url: str | None = None
    note: str | None = None
    model_repo: str | None = None
    supersedes: uuid.UUID | None = None


#: The row's optional fields: a ``supersedes`` correction keeps the old row's unless given.
KEPT_FIELDS = ("method_description", "project_url", "publication_url", "note", "model_repo")


@dataclass(frozen=True)
class Publication:
    """What to write: a new row, or, repairing a row left beside its twin, the withdrawal of
    ``withdrawn`` in favour of ``kept``; the warnings to print; the commit message."""

    record: ledger.Record | ledger.Withdrawal
    message: str
    warnings: list[str] = field(default_factory=list)
    kept: ledger.Record | None = None
    withdrawn: ledger.Record | None = None


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def versioned(
    key: evaluator.AnyKey, result: evaluator.ScoreResult, key_version: str | None
) -> evaluator.ScoreResult:
    """``result`` with the key version the maintainer names (``--key-version``) when the key
    file names none; BoardError when the two disagree."""
    if key_version and key.key_version and key_version != key.key_version:
        raise BoardError(
            f"--key-version {key_version} contradicts the key file, which says "
            f"key_version {key.key_version!r}; drop --key-version or use the matching key"
        )
    if key_version and not key.key_version:
        # The key file does not say its version; the maintainer does, for the provenance.
        return result.model_copy(update={"key_version": key_version})
    return result


def below_chance(
    track: spec.Track, result: evaluator.ScoreResult, flag: str, allowed: bool
) -> str | None:
    """BoardError for a result significantly below chance unless ``allowed`` (then its
    warning, to print); None for any other."""
    warning = evaluator.chance_warning(track, result)
    if warning is None:
        return None
    if not allowed:
        raise BoardError(
            f"{flag}: {warning} Nothing is published from a file this far below "
            "chance unless --allow-below-chance says it is meant to be"
        )
    return f"warning: {flag}: {warning} Published anyway (--allow-below-chance)."


def new_row(
    result: evaluator.ScoreResult, bench: spec.Benchmark, track: spec.Track, row: Row
) -> ledger.Record:
    """The record of ``row`` scored as ``result``; BoardError naming each flag whose value
    does not validate."""
    try:
        return ledger.rescored_record(
            result,
            bench,
            track,
            team_name=row.team_name,
            method_name=row.method_name,
            model_size=row.model_size,
            uses_external=row.uses_external,
            uses_frames=row.uses_frames,
            method_description=row.method_description or "",
            project_url=row.project_url,
            publication_url=row.publication_url,
            supersedes=row.supersedes,
            note=row.note or None,
            model_repo=row.model_repo or None,
        )
    except ValidationError as exc:
        problems = "; ".join(
            f"{_flag(str(e['loc'][0]))}: {str(e['msg']).removeprefix('Value error, ')}"
            if e["loc"]
            else str(e["msg"])
            for e in exc.errors()
        )
        raise BoardError(f"the row does not validate: {problems}") from None
    except ledger.RecordError as exc:
        raise BoardError(f"the row does not validate: {exc}") from None


def kept_fields(row: Row, old: ledger.Record) -> tuple[Row, list[str]]:
    """``row`` correcting ``old``: each optional field given, else the old row's (a correction
    that drops the project link no one asked to drop is a row that lost it); and the flags
    whose value was kept."""
    kept = [n for n in KEPT_FIELDS if getattr(row, n) is None and getattr(old, n)]
    return replace(row, **{n: getattr(old, n) for n in kept}), [_flag(n) for n in kept]


def decide(
    everything: Sequence[ledger.Entry],
    bench: spec.Benchmark,
    track: spec.Track,
    result: evaluator.ScoreResult,
    row: Row,
    *,
    force: bool = False,
    submissions_dir: Path | None = None,
) -> Publication:
    """What publishing ``row`` scored as ``result`` writes on the board ``everything`` (every
    record of the store); BoardError if the board refuses it (``check_board``).

    ``submissions_dir`` holds the files of rows older than answer fingerprints, so they are
    compared by their answers too; ``force`` supersedes a row of another team or method name,
    or leaves one of the same team and method on another key version.
    """
    rows = rows_of(everything, bench, track)
    known, unmatched = older_answers(rows, track, submissions_dir)
    team, method = row.team_name, row.method_name
    repair = twin_repair(
        everything,
        bench,
        track,
        result,
        row.supersedes,
        team_name=team,
        method_name=method,
        answers_of=known,
    )
    if repair is not None:
        kept, dropped = repair
        return Publication(
            twin_withdrawal(kept, dropped, bench),
            f"Withdraw {dropped.method_name} by {dropped.team_name} in favour of {kept.id}",
            [
                f"note: this submission is already on the board as {kept.id}, beside "
                f"{dropped.id} (the same team and method on the same key version): the row to "
                "keep stays as it is and the other is withdrawn in its favour; the row flags "
                "are not used"
            ],
            kept=kept,
            withdrawn=dropped,
        )
    warnings = check_board(
        everything,
        bench,
        track,
        result,
        row.supersedes,
        team_name=team,
        method_name=method,
        force=force,
        answers_of=known,
    )
    if row.supersedes is not None:
        old = next(r for r in rows if r.id == row.supersedes)  # check_board found it
        row, kept_flags = kept_fields(row, old)
        if kept_flags:
            warnings.append(
                f"note: kept from {old.id} the fields not given: {', '.join(kept_flags)} "
                '(give a flag to change one, "" to clear it)'
            )
    if unmatched and result.answers_sha256 is not None:
        had = (
            "had no submission file in --submissions-dir"
            if submissions_dir
            else (
                "were compared by file sha256 only; pass --submissions-dir with their files to "
                "compare their answers too"
            )
        )
        warnings.append(
            f"note: {evaluator.counted(unmatched, 'row', 'rows')} of the board predate"
            f"{'s' if unmatched == 1 else ''} answer fingerprints "
            f"(provenance.answers_sha256) and {had}"
        )
    record = new_row(result, bench, track, row)
    return Publication(record, ledger.commit_message(record, track), warnings)


def summary(track: spec.Track, result: evaluator.ScoreResult, row: Row) -> str:
    """ "DemoVLM-7B by Demo Lab: Overall 61.4 % (307/500), 0 abstentions": the row's ranking
    metric with its count where the metric has one (accuracy), else its interval (a decision
    F1)."""
    ranking = track.ranking
    count = result.counts.get(ranking)
    low, high = result.intervals[ranking]
    display = track.display[ranking]
    detail = (
        f"{count.correct}/{count.total}"
        if count is not None
        else f"95 % CI {track.shown(display, low)}–{track.shown(display, high)}"
    )
    return (
        f"{row.method_name} by {row.team_name}: {track.labels[ranking]} "
        f"{track.shown(display, result.metrics[ranking])} ({detail}), "
        f"{result.n_abstained} abstentions"
    )


def chance_line(track: spec.Track, result: evaluator.ScoreResult) -> str:
    """ "scored on answer key version demo-1 (chance 20.7 %)": what a published score names."""
    version = result.key_version or "(unversioned: the key names no key_version)"
    chance = "" if result.chance is None else f" (chance {track.shown('percent', result.chance)})"
    return f"scored on answer key version {version}{chance}"
