"""The board's rows, as a publication checks them: whose they are, which are current, which
a new row duplicates or may supersede.

A board is every record of a store, of every benchmark (``read_board``): rows, and the
withdrawals that retract some of them (records.withdrawals). A benchmark and track see their own
rows (``rows_of``) and withdrawals (``withdrawals_of``), and the current ones are those no row
supersedes and no withdrawal retracts (``current``). ``check_board`` refuses a row the board
must not take, as a ``BoardError`` saying how to fix it: a submission already on it (the same
file, or the same answers on the same key version), a second row of the same team and method
on the same key version (``twins``), a ``--supersedes`` naming no current row of the same
benchmark and track, or a row of another team or method, unless forced; a submission whose row
was carried onto a new key is refused as already there (``newest``, ``carried_to``). A row left
beside its twin by mistake is repaired either way by naming the row to drop with
``--supersedes`` and the file of the row to keep (``twin_repair``). A team or method name
whose letters mix scripts is refused unless allowed (``check_names``). Rows published before
records kept their answers' sha256 are compared by answers too when their submission files are
at hand (``older_answers``, ``find_submissions``).

Example (the shipped demo board, and its sample submission published once more):

>>> import evaluator, ledger, spec
>>> bench = spec.load_benchmark("egomemreason")
>>> track = bench.track()
>>> everything, unreadable = read_board(ledger.LocalStore(bench.demo_board))
>>> board = rows_of(everything, bench, track)
>>> len(board), len(current(board)), unreadable
(21, 21, [])
>>> key = evaluator.load_answer_key(track, bench.demo_key(track).read_bytes())
>>> result = evaluator.score(key, (bench.demo_dir / "sample_submission.json").read_bytes())
>>> try:
...     check_board(everything, bench, track, result, None, team_name="Demo Lab",
...                 method_name="DemoVLM-7B (synthetic)")
... except BoardError as error:
...     print(error)  # doctest: +NORMALIZE_WHITESPACE
this submission (sha256 c3cbfacf41c5065aa20f9beb66161f0dec84f81b5ce115fd7e7db2fb19b390fa) is
already on the board of egomemreason/memory as 5694e658-3eb0-487c-b1e2-cba563c80b88
(DemoVLM-7B (synthetic) by Demo Lab); to correct that row, publish again with --supersedes
<its uuid>
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path

import evaluator
import ledger
import spec
from errors import BoardError, RecordError
from ledger.submission_file import LIMIT_BYTES
from records import history

#: The command that retracts a row (scripts/withdraw_row.py), as refusals name it.
WITHDRAW = "scripts/withdraw_row.py"


def read_board(
    store: ledger.RecordStore,
) -> tuple[list[ledger.Entry], list[tuple[str, RecordError]]]:
    """Every record on the board, of every benchmark, superseded and withdrawn rows and the
    withdrawals included; and each file that is no valid record, with why (not checked: the
    caller names them)."""
    records: list[ledger.Entry] = []
    unreadable: list[tuple[str, RecordError]] = []
    for path, record in ledger.records_of(store):
        if isinstance(record, RecordError):
            unreadable.append((path, record))
        else:
            records.append(record)
    return records, unreadable


def owner(record: ledger.Entry) -> str:
    """Whose row a record is, for messages: "egoargus/understanding"."""
    if record.benchmark is None:
        return "no benchmark (a schema 1 record)"
    return f"{record.benchmark}/{record.track}"


def rows_of(
    everything: Iterable[ledger.Entry], bench: spec.Benchmark, track: spec.Track
) -> list[ledger.Record]:
    """The rows of one benchmark and track, superseded and withdrawn ones included."""
    return [
        r
        for r in everything
        if isinstance(r, ledger.Record) and ledger.record_track(r, bench) == track.id
    ]


def withdrawals_of(
    everything: Iterable[ledger.Entry], bench: spec.Benchmark, track: spec.Track
) -> list[ledger.Withdrawal]:
    """The withdrawals of one benchmark's track."""
    return [
        w
        for w in everything
        if isinstance(w, ledger.Withdrawal) and (w.benchmark, w.track) == (bench.id, track.id)
    ]


def current(
    rows: Sequence[ledger.Record], withdrawals: Iterable[ledger.Withdrawal] = ()
) -> list[ledger.Record]:
    """The rows no other row supersedes and no withdrawal retracts: those a board shows."""
    return history.shown(rows, withdrawals)


def twins(
    rows: Iterable[ledger.Record], team_name: str, method_name: str, key_version: str | None
) -> list[ledger.Record]:
    """The re-scored rows among ``rows`` of this team and method on this key version: a board
    lists a method once per key version (the paper's own rows aside)."""
    return [
        r
        for r in rows
        if r.source == "rescored"
        and (r.team_name, r.method_name) == (team_name, method_name)
        and r.key_version == key_version
    ]


def newest(row: ledger.Record, rows: Sequence[ledger.Record]) -> ledger.Record:
    """The row the board shows in place of ``row``: the end of the chain of rows superseding
    it (``row`` itself when it is current)."""
    after = {r.supersedes: r for r in rows if r.supersedes is not None}
    seen = {row.id}
    while row.id in after and after[row.id].id not in seen:
        row = after[row.id]
        seen.add(row.id)
    return row


def carried_to(row: ledger.Record, head: ledger.Record) -> bool:
    """Whether ``head``, the row the board shows in place of ``row``, is ``row`` carried onto
    another key: a re-scored row of the same team and method with the same counts on another
    key (a rotation moves letters, never answers; rescore_board.py or a --supersedes with the
    remapped file put it there)."""
    return (
        head is not row
        and head.source == row.source == "rescored"
        and head.provenance is not None
        and row.provenance is not None
        and head.provenance.answer_key_sha256 != row.provenance.answer_key_sha256
        and (head.team_name, head.method_name) == (row.team_name, row.method_name)
        and (head.counts, head.n_abstained) == (row.counts, row.n_abstained)
    )


def row_name(record: ledger.Record) -> str:
    """A row as messages name it: "<uuid> (DemoVLM-7B by Demo Lab, key demo-1)"."""
    version = (
        f", key {record.key_version or '(unversioned)'}"
        if record.source == "rescored"
        else ", paper-reported"
    )
    return f"{record.id} ({record.method_name} by {record.team_name}{version})"


def find_submissions(folder: Path, wanted: Collection[str], flag: str) -> dict[str, Path]:
    """The files under ``folder`` (searched recursively, of any name: a submission is read by
    its bytes) whose sha256 is wanted."""
    if not folder.is_dir():
        raise BoardError(
            f"{flag} {folder}: no such folder; give the folder where the board's "
            "submission files are kept"
        )
    found: dict[str, Path] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if len(found) == len(wanted):
            break
        try:
            digest = hashlib.sha256(ledger.read_regular_file(path, LIMIT_BYTES)).hexdigest()
        except ledger.UnreadableFileError:
            continue
        if digest in wanted and digest not in found:
            found[digest] = path
    return found


def older_answers(
    rows: Sequence[ledger.Record], track: spec.Track, folder: Path | None
) -> tuple[dict[uuid.UUID, str], int]:
    """The answers sha256 of rows published before records kept one, computed from their
    submissions found in ``folder`` by sha256; and how many such rows were not found."""
    older = [r for r in rows if r.provenance is not None and r.provenance.answers_sha256 is None]
    if folder is None or not older:
        return {}, len(older)
    files = find_submissions(
        folder,
        {r.provenance.submission_sha256 for r in older if r.provenance is not None},
        "--submissions-dir",
    )
    out: dict[uuid.UUID, str] = {}
    for row in older:
        assert row.provenance is not None
        path = files.get(row.provenance.submission_sha256)
        digest = (
            evaluator.answers_sha256(track, ledger.read_regular_file(path, LIMIT_BYTES))
            if path is not None
            else None
        )
        if digest is not None:
            out[row.id] = digest
    return out, len(older) - len(out)


def _same_submission(
    board: Sequence[ledger.Record],
    result: evaluator.ScoreResult,
    known: Mapping[uuid.UUID, str],
) -> tuple[list[ledger.Record], list[ledger.Record]]:
    """The rows of ``board`` holding this submission: of the same file, and (others) of the
    same answers on the same key version."""

    def answers(r: ledger.Record) -> str | None:
        return (r.provenance.answers_sha256 if r.provenance is not None else None) or known.get(
            r.id
        )

    sha256 = result.submission_sha256
    same_bytes = [r for r in board if r.provenance and r.provenance.submission_sha256 == sha256]
    same_answers = [
        r
        for r in board
        if r not in same_bytes
        and result.answers_sha256 is not None
        and r.key_version == result.key_version
        and answers(r) == result.answers_sha256
    ]
    return same_bytes, same_answers


def twin_repair(
    everything: Sequence[ledger.Entry],
    bench: spec.Benchmark,
    track: spec.Track,
    result: evaluator.ScoreResult,
    supersedes: uuid.UUID | None,
    *,
    team_name: str,
    method_name: str,
    answers_of: Mapping[uuid.UUID, str] | None = None,
) -> tuple[ledger.Record, ledger.Record] | None:
    """A row left beside its twin by mistake, repaired by ``--supersedes``: when this
    submission is the row ``kept`` on the board and ``--supersedes`` names ``dropped``, a row
    the board shows of the same team and method on the same key version, (kept, dropped);
    else None. Either row may be kept: the repair is a withdrawal of the other in its favour
    (records.withdrawals ``replaced_by``), for a new row of the kept file would be its twin."""
    if supersedes is None:
        return None
    board = rows_of(everything, bench, track)
    shown = current(board, withdrawals_of(everything, bench, track))
    same_bytes, same_answers = _same_submission(board, result, answers_of or {})
    held = [r for r in (*same_bytes, *same_answers) if r in shown]
    dropped = next((r for r in shown if r.id == supersedes), None)
    if not held or dropped is None or dropped in held:
        return None
    kept = held[0]
    if (kept.team_name, kept.method_name) != (team_name, method_name):
        return None
    if not twins([kept], dropped.team_name, dropped.method_name, dropped.key_version):
        return None
    return kept, dropped


def check_board(
    everything: Sequence[ledger.Entry],
    bench: spec.Benchmark,
    track: spec.Track,
    result: evaluator.ScoreResult,
    supersedes: uuid.UUID | None,
    *,
    team_name: str,
    method_name: str,
    force: bool = False,
    answers_of: Mapping[uuid.UUID, str] | None = None,
) -> list[str]:
    """Refuse a duplicate submission, a second row of the same team and method on the same key
    version, or a --supersedes that names no row of the same benchmark and track the board
    shows (or a withdrawn one); rows of other benchmarks and tracks do not count. The warnings
    to print are returned.

    A duplicate is a row of the same file (sha256), or of the same answers on the same key
    version (the same ids and letters after normalisation, whatever the file's bytes;
    ``answers_of`` gives the answers of rows older than ``provenance.answers_sha256``). A row
    superseded by one of another team or method name, or left beside a row of the same team
    and method scored on another key version, needs ``force``; a row beside its twin on the
    same key version is never published (``twin_repair`` says how to repair one left so).

    A duplicate whose rows the board no longer shows is named with the row it shows instead
    (``newest``), or with the withdrawal that retracted it, so every refusal points at a
    command that works: a row carried onto another key (``carried_to``) leaves nothing to do,
    whatever --supersedes names; a row another replaced, or one withdrawn, may come back by
    superseding the row that replaced it, or the withdrawn row.
    """
    here = f"{bench.id}/{track.id}"
    board = rows_of(everything, bench, track)
    retracted = history.withdrawn(withdrawals_of(everything, bench, track))
    by_id = {r.id: r for r in board}
    sha256 = result.submission_sha256  # whole in messages: the maintainer looks the file up
    same_bytes, same_answers = _same_submission(board, result, answers_of or {})
    same = same_bytes + same_answers
    shown = current(board, retracted.values())
    heads = {r.id: newest(r, board) for r in same}
    version = result.key_version or "(unversioned)"
    if same and not any(r in shown for r in same):
        # Every row of this submission has been replaced: name the row the board shows.
        carried = [r for r in same if carried_to(r, heads[r.id])]
        if carried:
            head = heads[carried[0].id]
            raise BoardError(
                f"this submission is {row_name(carried[0])} on the board of {here}, and this "
                f"row was carried to {head.key_version or '(unversioned)'} as {head.id}; "
                "nothing to do (the board shows that row, with the same numbers)"
            )
    warnings: list[str] = []
    if supersedes is None:
        replaced = [r for r in same if r not in shown]
        if same and len(replaced) == len(same):
            rows = ", ".join(_gone(r, heads[r.id], retracted) for r in replaced)
            raise BoardError(
                f"this submission (sha256 {sha256}) was on the board of {here} as {rows}; "
                f"to bring it back, publish again with --supersedes {heads[replaced[0].id].id}"
            )
        if same_bytes:
            rows = ", ".join(f"{r.id} ({r.method_name} by {r.team_name})" for r in same_bytes)
            raise BoardError(
                f"this submission (sha256 {sha256}) is already on the board of {here} "
                f"as {rows}; to correct that row, publish again with --supersedes <its uuid>"
            )
        if same_answers:
            rows = ", ".join(row_name(r) for r in same_answers)
            raise BoardError(
                f"this submission's answers are already on the board of {here} as {rows}: the "
                "same ids and letters (trimmed and upper-cased) on the same key version, in a "
                f"file of other bytes (answers sha256 {result.answers_sha256}); to "
                "correct that row, publish again with --supersedes <its uuid>"
            )
        same_key = twins(shown, team_name, method_name, result.key_version)
        if same_key:
            raise BoardError(
                f"{method_name} by {team_name} is already on the board of {here} as "
                f"{', '.join(row_name(r) for r in same_key)}, and a board lists a method once "
                f"per key version; to replace that row with this file, publish again with "
                f"--supersedes {same_key[0].id} (its description, links and note are kept "
                "unless given); if this is another method, give it its own --method-name"
            )
        others = [
            r
            for r in shown
            if r.source == "rescored"
            and (r.team_name, r.method_name) == (team_name, method_name)
            and r.key_version != result.key_version
        ]
        if others:
            rows = ", ".join(row_name(r) for r in others)
            if not force:
                raise BoardError(
                    f"{method_name} by {team_name} is already on the board of {here} as {rows}, "
                    f"scored on another key version; if this file is its submission remapped "
                    f"onto key version {version}, publish with --supersedes <its uuid> (or "
                    "carry every row over at once with scripts/rescore_board.py); to list both "
                    "rows anyway, add --force"
                )
            warnings.append(
                f"warning: {method_name} by {team_name} stays on the board twice: "
                f"{rows} and this row on key version {version} (--force)"
            )
        return warnings
    if supersedes not in by_id:
        elsewhere = [r for r in everything if r.id == supersedes]
        if elsewhere and isinstance(elsewhere[0], ledger.Withdrawal):
            raise BoardError(
                f"--supersedes {supersedes}: that is a withdrawal record (of "
                f"{elsewhere[0].withdraws}), not a row; give the uuid of a row"
            )
        if elsewhere:
            raise BoardError(
                f"--supersedes {supersedes}: that row belongs to {owner(elsewhere[0])}, not "
                f"{here}; a row can only supersede a row of the same benchmark and track"
            )
        raise BoardError(
            f"--supersedes {supersedes}: no such row on the board of {here}; give the uuid of "
            "an existing row (the name of its submissions/<uuid>.json)"
        )
    # The row the board shows in place of this submission's own may be superseded by it.
    if same and supersedes not in {r.id for r in same} | {h.id for h in heads.values()}:
        rows = ", ".join(str(r.id) for r in same)
        raise BoardError(
            f"this submission is already on the board as {rows}, but --supersedes names "
            f"{supersedes}; supersede the row that holds this submission"
        )
    old = by_id[supersedes]
    if old not in shown and supersedes not in retracted:
        head = newest(old, board)
        newer = [r.id for r in board if r.supersedes == supersedes]
        raise BoardError(
            f"--supersedes {supersedes}: that row is already superseded by "
            f"{', '.join(str(i) for i in newer)}; supersede the newest row instead, "
            f"{row_name(head)}, the one the board shows"
        )
    if supersedes in retracted:
        warnings.append(
            f"note: --supersedes {supersedes} names a withdrawn row "
            f"({withdrawn_text(retracted[supersedes])}); this row takes its place on the board"
        )
    if (old.team_name, old.method_name) != (team_name, method_name):
        if not force:
            raise BoardError(
                f"--supersedes {supersedes}: that row is {row_name(old)}, this one is "
                f"{method_name} by {team_name}; a row supersedes a row of the same team and "
                "method. If it really replaces that row (a renamed method, a corrected team "
                "name), add --force"
            )
        warnings.append(
            f"warning: --supersedes {supersedes} hides {row_name(old)}, a row of "
            f"another team or method name than this one ({method_name} by "
            f"{team_name}) (--force)"
        )
    beside = [
        r for r in twins(shown, team_name, method_name, result.key_version) if r.id != supersedes
    ]
    if beside:
        rows = ", ".join(row_name(r) for r in beside)
        raise BoardError(
            f"{rows} would stay on the board of {here} beside this row, and a board lists a "
            f"method once per key version; withdraw it first ({WITHDRAW} --row "
            f'{beside[0].id} --reason "..."), or keep it instead: publish its own file with '
            f"--supersedes {supersedes}"
        )
    return warnings


def withdrawn_text(withdrawal: ledger.Withdrawal) -> str:
    """A withdrawal as messages name it: "withdrawn on 2026-07-20 by <uuid>: <reason>"."""
    return (
        f"withdrawn on {withdrawal.created_at:%Y-%m-%d} by {withdrawal.id}: "
        f"{withdrawal.reason.splitlines()[0]}"
    )


def check_names(team_name: str, method_name: str, *, allow_mixed_scripts: bool) -> None:
    """Refuse a team or method name whose letters mix scripts no writing mixes (a Cyrillic
    "е" in "Gеmini" shows on the board as another "Gemini"), unless allowed."""
    if allow_mixed_scripts:
        return
    for flag, name in (("--team-name", team_name), ("--method-name", method_name)):
        odd = ledger.mixed_scripts(name)
        if odd is not None:
            raise BoardError(
                f"{flag} {name!r} {odd}, so the board would show it beside the name it looks "
                "like; write it in one script (a look-alike letter is often a copy-paste "
                "accident), or pass --allow-mixed-scripts if the name is really written so"
            )


def _gone(
    row: ledger.Record, head: ledger.Record, retracted: Mapping[uuid.UUID, ledger.Withdrawal]
) -> str:
    """What became of a row the board no longer shows, for a refusal."""
    if row.id in retracted:
        return f"{row.id}, {withdrawn_text(retracted[row.id])}"
    return f"{row.id}, which {head.id} has replaced ({row_name(head)})"
