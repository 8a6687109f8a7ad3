"""maintainer.board_checks, carry, reproduce and paper_rows: the board's library, called directly.

On EgoMemReason's demo board (21 rows: 3 re-scored from the demo's submissions, 18 paper rows).
The scripts over them (publish_submission.py, rescore_board.py, reproduce_row.py,
seed_paper_baselines.py), with their flags and what they write, are in test_scripts.py and
test_key_versions.py; the refusals here are the same messages, raised as the error tree's.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

import evaluator
import ledger
from errors import BoardError, ReshuffleError
from maintainer import board_checks, carry, letter_map, paper_rows, reproduce, rotation, tables
from tests.maintainer.keys import BENCH, DEMO_PRIVATE, DEMO_PUBLIC, DEMO_SUBMISSION, SALT, TRACK

KEY = evaluator.kinds.multiple_choice.load_key(TRACK, DEMO_PRIVATE.read_bytes())
SAMPLE = DEMO_SUBMISSION.read_bytes()
RESULT = evaluator.score(KEY, SAMPLE)
EVERYTHING, UNREADABLE = board_checks.read_board(ledger.LocalStore(BENCH.demo_board))
BOARD = board_checks.rows_of(EVERYTHING, BENCH, TRACK)
SAMPLE_ROW = next(
    r for r in BOARD if r.provenance and r.provenance.submission_sha256 == RESULT.submission_sha256
)
OTHER_ROW = next(r for r in BOARD if r.source == "rescored" and r is not SAMPLE_ROW)
HERE = f"{BENCH.id}/{TRACK.id}"


def _check(
    everything: list[ledger.Entry],
    result: evaluator.ScoreResult = RESULT,
    supersedes: uuid.UUID | None = None,
    *,
    force: bool = False,
    answers_of: dict[uuid.UUID, str] | None = None,
) -> list[str]:
    """check_board for a row of the sample's team and method."""
    return board_checks.check_board(
        everything,
        BENCH,
        TRACK,
        result,
        supersedes,
        team_name=SAMPLE_ROW.team_name,
        method_name=SAMPLE_ROW.method_name,
        force=force,
        answers_of=answers_of,
    )


# --- the board's rows -------------------------------------------------------------------------


def test_the_demo_board_reads_whole_and_shows_every_row() -> None:
    assert (len(EVERYTHING), len(BOARD), UNREADABLE) == (21, 21, [])
    assert board_checks.current(BOARD) == BOARD
    assert sum(r.source == "rescored" for r in BOARD) == 3
    assert board_checks.row_name(SAMPLE_ROW) == (
        f"{SAMPLE_ROW.id} ({SAMPLE_ROW.method_name} by {SAMPLE_ROW.team_name}, key demo-1)"
    )
    paper = next(r for r in BOARD if r.source == "paper")
    assert board_checks.row_name(paper).endswith(", paper-reported)")
    assert board_checks.owner(SAMPLE_ROW) == HERE


def test_an_unreadable_record_is_named_not_dropped_silently(tmp_path: Path) -> None:
    shutil.copytree(BENCH.demo_board, tmp_path / "board")
    (tmp_path / "board" / "submissions" / f"{uuid.uuid4()}.json").write_text("{}")
    records, unreadable = board_checks.read_board(ledger.LocalStore(tmp_path / "board"))
    assert len(records) == 21 and len(unreadable) == 1
    path, error = unreadable[0]
    assert path.startswith("submissions/") and isinstance(error, ledger.RecordError)


def test_rows_of_another_benchmark_or_track_do_not_count_and_superseded_rows_are_hidden() -> None:
    foreign = SAMPLE_ROW.model_copy(update={"id": uuid.uuid4(), "benchmark": "egoargus"})
    newer = OTHER_ROW.model_copy(update={"id": uuid.uuid4(), "supersedes": OTHER_ROW.id})
    rows = board_checks.rows_of([*EVERYTHING, foreign, newer], BENCH, TRACK)
    assert foreign not in rows and newer in rows
    shown = board_checks.current(rows)
    assert OTHER_ROW not in shown and newer in shown and len(shown) == 21


# --- what a new row may not be ----------------------------------------------------------------


def _reformatted() -> evaluator.ScoreResult:
    """The sample's answers in a file of other bytes."""
    return evaluator.score(KEY, json.dumps(json.loads(SAMPLE), indent=2).encode())


ANSWERS = str(RESULT.answers_sha256)
assert SAMPLE_ROW.provenance is not None and SAMPLE_ROW.provenance.answers_sha256 is None
#: The sample's row as a record of today keeps it: its answers' sha256, its file another.
FINGERPRINTED = SAMPLE_ROW.model_copy(
    update={
        "id": uuid.uuid4(),
        "provenance": SAMPLE_ROW.provenance.model_copy(
            update={"answers_sha256": ANSWERS, "submission_sha256": "0" * 64}
        ),
    }
)
SUPERSEDED = OTHER_ROW.model_copy(update={"id": uuid.uuid4(), "supersedes": OTHER_ROW.id})
FOREIGN = SAMPLE_ROW.model_copy(update={"id": uuid.uuid4(), "benchmark": "egoargus"})

REFUSALS: list[tuple[str, Callable[[], object], str]] = [
    (
        "the same file",
        lambda: _check(EVERYTHING),
        f"this submission (sha256 {RESULT.submission_sha256}) is already on the board "
        f"of {HERE} as {SAMPLE_ROW.id} (",
    ),
    (
        "the same answers (a row older than answer fingerprints)",
        lambda: _check(EVERYTHING, _reformatted(), answers_of={SAMPLE_ROW.id: ANSWERS}),
        f"this submission's answers are already on the board of {HERE} as {SAMPLE_ROW.id} (",
    ),
    (
        "the same answers",
        lambda: _check([*EVERYTHING, FINGERPRINTED], _reformatted()),
        f"already on the board of {HERE} as {FINGERPRINTED.id} (",
    ),
    (
        "an unknown row",
        lambda: _check(EVERYTHING, supersedes=uuid.UUID(int=1)),
        f"--supersedes {uuid.UUID(int=1)}: no such row on the board of {HERE}",
    ),
    (
        "a row of another benchmark",
        lambda: _check([*EVERYTHING, FOREIGN], supersedes=FOREIGN.id),
        f"that row belongs to egoargus/{TRACK.id}, not {HERE}",
    ),
    (
        "a row not holding this submission",
        lambda: _check(EVERYTHING, supersedes=OTHER_ROW.id),
        f"but --supersedes names {OTHER_ROW.id}; supersede the row that holds this submission",
    ),
]


@pytest.mark.parametrize(
    ("check", "message"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS]
)
def test_a_row_the_board_refuses_is_a_board_error_saying_how_to_fix_it(
    check: Callable[[], object], message: str
) -> None:
    with pytest.raises(BoardError) as refused:
        check()
    assert message in str(refused.value)


def _abstaining() -> evaluator.ScoreResult:
    """A submission on no row of the board: an abstention for every question."""
    entries = [{"example_id": q.id, "predicted_answer": None} for q in KEY.questions]
    return evaluator.score(KEY, json.dumps(entries).encode())


def test_a_row_superseding_a_superseded_row_is_sent_to_the_newest() -> None:
    other = _abstaining()
    with pytest.raises(BoardError, match="is already superseded by"):
        _check([*EVERYTHING, SUPERSEDED], other, supersedes=OTHER_ROW.id)


def test_another_team_s_row_is_superseded_only_when_forced_with_a_warning() -> None:
    other = _abstaining()
    board = [r for r in EVERYTHING if r is not SAMPLE_ROW]  # no twin of the sample's method
    with pytest.raises(BoardError, match="a row supersedes a row of the same team and method"):
        _check(board, other, supersedes=OTHER_ROW.id)
    [warning] = _check(board, other, supersedes=OTHER_ROW.id, force=True)
    assert warning.startswith(f"warning: --supersedes {OTHER_ROW.id} hides ")


def test_the_same_method_left_on_another_key_version_needs_force() -> None:
    assert SAMPLE_ROW.provenance is not None
    older = SAMPLE_ROW.model_copy(
        update={"provenance": SAMPLE_ROW.provenance.model_copy(update={"key_version": "demo-0"})}
    )
    board = [r for r in EVERYTHING if r is not SAMPLE_ROW] + [older]
    with pytest.raises(BoardError, match="scored on another key version; if this file is its"):
        _check(board, _abstaining())
    [warning] = _check(board, _abstaining(), force=True)
    assert warning.startswith(f"warning: {SAMPLE_ROW.method_name} by {SAMPLE_ROW.team_name} stays")


def test_a_correction_of_its_own_row_passes() -> None:
    assert _check(EVERYTHING, supersedes=SAMPLE_ROW.id) == []


def test_a_file_whose_row_was_replaced_on_the_same_key_comes_back_over_its_replacement() -> None:
    """The team's corrected run replaced the sample's row; the sample itself, published again,
    is named with the row that replaced it, and superseding that row is what brings it back
    (before, --supersedes <that row> was refused as 'already on the board as <the old row>')."""
    assert SAMPLE_ROW.provenance is not None
    corrected = SAMPLE_ROW.model_copy(
        update={
            "id": uuid.UUID(int=7),
            "supersedes": SAMPLE_ROW.id,
            "provenance": SAMPLE_ROW.provenance.model_copy(update={"submission_sha256": "3" * 64}),
        }
    )
    board = [*EVERYTHING, corrected]
    with pytest.raises(BoardError) as refused:
        _check(board)
    assert f"was on the board of {HERE} as {SAMPLE_ROW.id}, which {corrected.id} has replaced" in (
        str(refused.value)
    )
    assert f"publish again with --supersedes {corrected.id}" in str(refused.value)
    with pytest.raises(BoardError, match=f"supersede the newest row instead, {corrected.id} "):
        _check(board, supersedes=SAMPLE_ROW.id)
    assert _check(board, supersedes=corrected.id) == []


def test_a_file_whose_row_was_carried_leaves_nothing_to_do_whatever_supersedes_names() -> None:
    assert SAMPLE_ROW.provenance is not None
    moved = SAMPLE_ROW.model_copy(
        update={
            "id": uuid.UUID(int=8),
            "supersedes": SAMPLE_ROW.id,
            "provenance": SAMPLE_ROW.provenance.model_copy(
                update={
                    "answer_key_sha256": "1" * 64,
                    "key_version": "demo-2",
                    "submission_sha256": "2" * 64,  # the file remapped
                }
            ),
        }
    )
    for supersedes in (None, SAMPLE_ROW.id, moved.id):
        with pytest.raises(BoardError, match=f"carried to demo-2 as {moved.id}; nothing to do"):
            _check([*EVERYTHING, moved], supersedes=supersedes)


def test_rows_older_than_answer_fingerprints_are_compared_by_the_files_found(
    tmp_path: Path,
) -> None:
    assert SAMPLE_ROW.provenance is not None
    old = SAMPLE_ROW.model_copy(
        update={"provenance": SAMPLE_ROW.provenance.model_copy(update={"answers_sha256": None})}
    )
    assert board_checks.older_answers([old], TRACK, None) == ({}, 1)
    assert board_checks.older_answers([old], TRACK, tmp_path) == ({}, 1)
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / "sample.json").write_bytes(SAMPLE)
    assert board_checks.older_answers([old], TRACK, tmp_path) == (
        {old.id: RESULT.answers_sha256},
        0,
    )
    with pytest.raises(BoardError, match="no such folder"):
        board_checks.find_submissions(tmp_path / "none", {"x"}, "--submissions-dir")


# --- carrying the board onto a rotated key ------------------------------------------------------


def _rotation(salt: str = SALT) -> tuple[rotation.Rotation, letter_map.LetterMap]:
    table, key = tables.read_private(TRACK, DEMO_PRIVATE.read_bytes(), DEMO_PRIVATE)
    public = tables.read_public(TRACK, DEMO_PUBLIC.read_bytes(), DEMO_PUBLIC)
    sha256 = hashlib.sha256(DEMO_PUBLIC.read_bytes()).hexdigest()
    done = rotation.rotate(table, key, public, sha256, salt, "demo-2")
    return done, letter_map.read_letter_map(TRACK, done.letter_map, Path("letter_map.json"))


ROTATED, LETTER_MAP = _rotation()
MAP, NEW = Path("letter_map.json"), Path("new.json")
#: What a carry changes of a row: the new record's own id, whom it supersedes, its provenance.
FROM_THE_CARRY = {"id", "supersedes", "provenance"}


def test_the_demo_board_carries_onto_a_rotation_with_the_same_counts() -> None:
    old = carry.rotated_key(LETTER_MAP, ROTATED.new_key, map_path=MAP, key_path=NEW)
    assert (old.sha256, old.key_version) == (KEY.sha256, "demo-1")
    carried, left = carry.plan(EVERYTHING, BENCH, ROTATED.new_key, old, BENCH.demo_dir)
    assert left == [] and len(carried) == 3
    for item in carried:
        assert item.record.supersedes == item.old.id and item.record.key_version == "demo-2"
        assert item.result.counts == item.old.counts
        assert (item.record.team_name, item.record.method_name) == (
            item.old.team_name,
            item.old.method_name,
        )
        # every field of the row, its date included; its id derived from the carry
        assert item.record.model_dump(exclude=FROM_THE_CARRY) == item.old.model_dump(
            exclude=FROM_THE_CARRY
        )
        assert item.record.id == carry.carried_id(
            item.old, ROTATED.new_key.sha256, item.result.submission_sha256
        )
    assert carried == carry.plan(EVERYTHING, BENCH, ROTATED.new_key, old, BENCH.demo_dir)[0]
    # Carried once, nothing is left to carry: every current row is on the new key.
    again, left = carry.plan(
        [*EVERYTHING, *(c.record for c in carried)], BENCH, ROTATED.new_key, old, BENCH.demo_dir
    )
    assert (
        again == [] and len(left) == 3 and all("already on key version demo-2" in x for x in left)
    )


def test_a_wrong_letter_map_or_missing_submissions_stop_the_carry(tmp_path: Path) -> None:
    with pytest.raises(ReshuffleError, match="pass the key and the letter map of the same"):
        carry.rotated_key(LETTER_MAP, KEY, map_path=MAP, key_path=NEW)
    _, other_map = _rotation(SALT + "x")
    wrong = carry.OldKey(KEY.sha256, "demo-1", other_map)
    with pytest.raises(BoardError, match="a rotation moves letters, never answers"):
        carry.plan(EVERYTHING, BENCH, ROTATED.new_key, wrong, BENCH.demo_dir)
    old = carry.rotated_key(LETTER_MAP, ROTATED.new_key, map_path=MAP, key_path=NEW)
    with pytest.raises(BoardError, match="3 rows have no submission file in --submissions-dir"):
        carry.plan(EVERYTHING, BENCH, ROTATED.new_key, old, tmp_path)
    carried, left = carry.plan(EVERYTHING, BENCH, ROTATED.new_key, old, tmp_path, skip_missing=True)
    assert carried == [] and all(line.endswith("(--skip-missing)") for line in left)


def test_a_row_published_from_json_lines_of_any_name_is_found_and_carried(
    tmp_path: Path,
) -> None:
    """Predictions as their authors publish them (issue 28): a row scored from JSON Lines named
    ``run.jsonl`` is found under --submissions-dir by its sha256 (only ``*.json`` was searched)
    and carried, its remapped file JSON Lines as it was (a remap refused JSON Lines)."""
    lines = b"".join(json.dumps(e).encode() + b"\n" for e in json.loads(SAMPLE))
    (tmp_path / "run.jsonl").write_bytes(lines)
    assert SAMPLE_ROW.provenance is not None
    digest = hashlib.sha256(lines).hexdigest()
    row = SAMPLE_ROW.model_copy(
        update={
            "id": uuid.uuid4(),
            "provenance": SAMPLE_ROW.provenance.model_copy(update={"submission_sha256": digest}),
        }
    )
    old = carry.rotated_key(LETTER_MAP, ROTATED.new_key, map_path=MAP, key_path=NEW)
    [item], left = carry.plan([row], BENCH, ROTATED.new_key, old, tmp_path)
    assert left == [] and item.source == tmp_path / "run.jsonl"
    assert item.result.counts == row.counts
    remapped = [json.loads(line) for line in item.data.decode().splitlines()]
    assert len(remapped) == len(json.loads(SAMPLE))
    assert {e["key_version"] for e in remapped} == {"demo-2"}


def test_the_same_letters_need_another_file_of_the_same_answers() -> None:
    with pytest.raises(ReshuffleError, match="is the very file of --private"):
        carry.same_letters(KEY, KEY, old_path=MAP, key_path=NEW)
    with pytest.raises(ReshuffleError, match="500 questions have other options or answers"):
        carry.same_letters(KEY, ROTATED.new_key, old_path=MAP, key_path=NEW)


# --- reproducing a row, and the paper's rows ---------------------------------------------------


def test_a_row_reproduces_bit_for_bit_and_each_differing_field_is_named() -> None:
    assert reproduce.compare(SAMPLE_ROW, RESULT, KEY) == []
    ranking = TRACK.ranking
    value = SAMPLE_ROW.metrics[ranking]
    nudged = SAMPLE_ROW.model_copy(
        update={"metrics": {**SAMPLE_ROW.metrics, ranking: math.nextafter(value, 0)}}
    )
    assert reproduce.compare(nudged, RESULT, KEY) == [
        f"metrics.{ranking}: record {math.nextafter(value, 0)!r}, re-scored {value!r}"
    ]
    other = evaluator.score(ROTATED.new_key, SAMPLE)
    diffs = reproduce.compare(SAMPLE_ROW, other, ROTATED.new_key)
    assert diffs[0].startswith("answer key sha256: record ")
    assert "scored against key version demo-1, this key is version demo-2" in diffs[0]


def test_the_paper_s_rows_are_the_same_records_every_time() -> None:
    paper = BENCH.paper
    assert paper is not None
    path = BENCH.folder / paper.csv
    records = paper_rows.paper_records(BENCH, TRACK, paper, path.read_bytes(), str(path))
    again = paper_rows.paper_records(BENCH, TRACK, paper, path.read_bytes(), str(path))
    assert records == again and {r.source for r in records} == {"paper"}
    assert {r.id for r in records} == {r.id for r in BOARD if r.source == "paper"}
    assert [paper_rows.model_size(m, g) for m, g in (("X-8B", ""), ("Y", "API"), ("Z", ""))] == [
        "8B",
        "API",
        "",
    ]
    with pytest.raises(BoardError, match="has a header but no rows"):
        header = path.read_bytes().splitlines()[0] + b"\n"
        paper_rows.paper_records(BENCH, TRACK, paper, header, "paper.csv")
