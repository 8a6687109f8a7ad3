"""Rows that can be corrected and withdrawn (issue 32): publish_submission.py, withdraw_row.py
and reproduce_row.py on a local board, through ``main([...])``, as the README runs them.

The observed finding: the same team and method got two rows on the same key version, with no
way back (a second, different file published without ``--supersedes`` succeeded; every repair
tried afterwards was refused, and no script removed a row).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import evaluator
import ledger
import spec
from scripts import publish_submission, reproduce_row, withdraw_row
from tests.support.hub_server import READ_TOKEN, WRITE_TOKEN, HubServer

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track(kind=spec.MultipleChoiceTrack)
KEY = BENCH.demo_key(TRACK)
SAMPLE = BENCH.demo_dir / "sample_submission.json"
ROW = {
    "--team-name": "Demo Lab",
    "--method-name": "DemoVLM-7B",
    "--model-size": "7B",
    "--uses-external": "no",
    "--uses-frames": "frames-only",
}


def publish(submission: Path, board: Path, *extra: str, **row: str) -> int:
    """publish_submission.py into ``board``, as "DemoVLM-7B by Demo Lab" unless ``row`` says."""
    flags = {**ROW, **{f"--{k.replace('_', '-')}": v for k, v in row.items()}}
    return publish_submission.main(
        [
            "--submission",
            str(submission),
            "--private",
            str(KEY),
            *(part for item in flags.items() for part in item),
            "--leaderboard-dir",
            str(board),
            *extra,
        ]
    )


def entries(board: Path) -> list[ledger.Entry]:
    folder = board / ledger.RECORDS_FOLDER
    return [ledger.read_entry(p.read_bytes()) for p in sorted(folder.glob("*.json"))]


@pytest.fixture
def board(tmp_path: Path) -> Path:
    folder = tmp_path / "board"
    folder.mkdir()
    return folder


@pytest.fixture
def always_a(tmp_path: Path) -> Path:
    """Another valid submission: "A" for every question of the demo key."""
    key = evaluator.kinds.multiple_choice.load_key(TRACK, KEY.read_bytes())
    path = tmp_path / "always_a.json"
    path.write_text(
        json.dumps([{"example_id": q.id, "predicted_answer": "A"} for q in key.questions])
    )
    return path


def test_a_second_row_of_the_same_team_and_method_on_the_same_key_is_refused(
    board: Path, always_a: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The observed duplicate: a second, different file of the same team and method on the
    same key version, without --supersedes, was published beside the first (both ranked)."""
    assert publish(SAMPLE, board) == 0
    [first] = entries(board)
    capsys.readouterr()
    assert publish(always_a, board) == 1
    err = capsys.readouterr().err
    assert (
        f"DemoVLM-7B by Demo Lab is already on the board of egomemreason/memory as {first.id}"
        in err
    )
    assert f"--supersedes {first.id}" in err and "nothing was written" in err
    assert entries(board) == [first]
    # --force does not list the same method twice on the same key either
    assert publish(always_a, board, "--force") == 1
    assert entries(board) == [first]


def twin_board(folder: Path, always_a: Path) -> tuple[ledger.Record, ledger.Record]:
    """A board as the observed finding left it: the sample's row A, then the always-A file's
    row B, both "DemoVLM-7B by Demo Lab" on demo-1 (written as the old code let them be)."""
    key = evaluator.kinds.multiple_choice.load_key(TRACK, KEY.read_bytes())
    store = ledger.LocalStore(folder)
    rows = []
    for path in (SAMPLE, always_a):
        result = evaluator.score(key, path.read_bytes())
        row = ledger.rescored_record(
            result,
            BENCH,
            TRACK,
            team_name="Demo Lab",
            method_name="DemoVLM-7B",
            model_size="7B",
            uses_external=False,
            uses_frames="frames-only",
        )
        store.write(row, "the old code's twin")
        rows.append(row)
    return rows[0], rows[1]


def shown(board: Path) -> ledger.BoardSnapshot:
    """The board as the app shows it (ledger.BoardCache over the folder)."""
    return ledger.BoardCache(ledger.LocalStore(board), BENCH, TRACK).refresh()


@pytest.mark.parametrize("keep", ["first", "second"])
def test_a_row_left_beside_its_twin_is_repaired_by_supersedes_either_way(
    board: Path, always_a: Path, keep: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file of the row to keep, with --supersedes the row to drop: the other row is
    withdrawn in its favour (before, both directions were refused, and --force too)."""
    first, second = twin_board(board, always_a)
    kept, dropped = (first, second) if keep == "first" else (second, first)
    kept_file = SAMPLE if kept is first else always_a
    assert {r.id for r in shown(board).records} == {first.id, second.id}
    before = entries(board)

    assert publish(kept_file, board, "--supersedes", str(dropped.id), "--dry-run") == 0
    assert entries(board) == before
    capsys.readouterr()
    assert publish(kept_file, board, "--supersedes", str(dropped.id)) == 0
    out = capsys.readouterr().out
    assert f"it withdraws {dropped.id}, which the board now hides; {kept.id} stays" in out
    [withdrawal] = [e for e in entries(board) if isinstance(e, ledger.Withdrawal)]
    assert (withdrawal.withdraws, withdrawal.replaced_by) == (dropped.id, kept.id)
    snapshot = shown(board)
    assert [r.id for r in snapshot.records] == [kept.id]
    status = snapshot.status(str(dropped.id))
    assert status is not None and status.state == "withdrawn"
    assert "by mistake" in withdrawal.reason
    # Done: naming the dropped row again is refused, as any superseding of a withdrawn twin.
    assert publish(kept_file, board, "--supersedes", str(dropped.id)) == 1


def test_a_wrong_row_is_corrected_and_the_correction_undone_with_supersedes(
    board: Path, always_a: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert publish(always_a, board) == 0  # the wrong file
    [wrong] = entries(board)
    assert isinstance(wrong, ledger.Record)
    assert publish(SAMPLE, board, "--supersedes", str(wrong.id)) == 0
    snapshot = shown(board)
    [right] = snapshot.records
    assert right.supersedes == wrong.id
    status = snapshot.status(str(wrong.id))
    assert status is not None and status.state == "superseded"
    assert [s.row.id for s in status.history] == [wrong.id, right.id]
    # the other direction: the first file was right after all
    assert publish(always_a, board, "--supersedes", str(right.id)) == 0
    [back] = shown(board).records
    assert back.supersedes == right.id and back.provenance == wrong.provenance


def test_a_row_is_withdrawn_dry_run_first_and_stays_reproducible(
    board: Path, always_a: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert publish(SAMPLE, board) == 0
    assert publish(always_a, board, method_name="Always-A") == 0
    row = next(r for r in shown(board).records if r.method_name == "DemoVLM-7B")
    before = entries(board)
    target = ["--leaderboard-dir", str(board)]
    reason = "The team asked to withdraw it: their sampler read the test videos."
    capsys.readouterr()

    assert withdraw_row.main(["--row", str(row.id), "--reason", reason, *target, "--dry-run"]) == 0
    out, err = capsys.readouterr()
    planned = ledger.read_entry(out.encode())
    assert entries(board) == before and "dry run, nothing written" in err
    assert withdraw_row.main(["--row", str(row.id), "--reason", reason, *target]) == 0
    assert f"it withdraws {row.id}" in capsys.readouterr().out
    [written] = [e for e in entries(board) if isinstance(e, ledger.Withdrawal)]
    assert written.id == planned.id  # the dry run printed the id the real run wrote
    assert (written.withdraws, written.reason, written.track) == (row.id, reason, TRACK.id)
    assert all(e in entries(board) for e in before)  # nothing deleted, nothing rewritten

    snapshot = shown(board)
    assert [r.method_name for r in snapshot.records] == ["Always-A"]
    status = snapshot.status(str(row.id))
    assert status is not None and status.state == "withdrawn" and status.withdrawal == written

    reproduce = ["--record", str(row.id), "--submission", str(SAMPLE), "--private", str(KEY)]
    assert reproduce_row.main([*reproduce, *target]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("reproduced: DemoVLM-7B by Demo Lab")
    assert f"no longer on the board (withdrawn on {written.created_at:%Y-%m-%d}" in err

    for argv, words in (
        (["--row", str(row.id)], "is already withdrawn"),
        (["--row", str(written.id)], "that is a withdrawal record"),
        (["--row", "00000000-0000-4000-8000-000000000000"], "no such row"),
        (["--row", "nope"], "is not a uuid"),
    ):
        assert withdraw_row.main([*argv, "--reason", "again", *target]) == 1
        assert words in capsys.readouterr().err
    other = snapshot.records[0]
    assert withdraw_row.main(["--row", str(other.id), "--reason", " \n", *target]) == 1
    assert "--reason: must say why the row is withdrawn" in capsys.readouterr().err


def test_a_withdrawn_submission_comes_back_only_over_its_withdrawn_row(
    board: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert publish(SAMPLE, board) == 0
    [row] = entries(board)
    target = ["--leaderboard-dir", str(board)]
    assert withdraw_row.main(["--row", str(row.id), "--reason", "Asked.", *target]) == 0
    capsys.readouterr()
    assert publish(SAMPLE, board) == 1
    err = capsys.readouterr().err
    assert f"was on the board of egomemreason/memory as {row.id}, withdrawn on" in err
    assert f"--supersedes {row.id}" in err
    assert publish(SAMPLE, board, "--supersedes", str(row.id)) == 0
    assert "names a withdrawn row" in capsys.readouterr().err
    [back] = shown(board).records
    assert back.supersedes == row.id


def test_a_superseded_row_is_withdrawn_through_the_row_that_replaced_it(
    board: Path, always_a: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert publish(always_a, board) == 0
    [old] = entries(board)
    assert publish(SAMPLE, board, "--supersedes", str(old.id)) == 0
    [new] = shown(board).records
    capsys.readouterr()
    argv = ["--row", str(old.id), "--reason", "x", "--leaderboard-dir", str(board)]
    assert withdraw_row.main(argv) == 1
    err = capsys.readouterr().err
    assert f"{new.id} superseded it; withdraw the row the board shows in its place" in err


MIXED = "G\u0435mini-3.1-Pro"  # a Cyrillic е (U+0435) for the Latin e


@pytest.mark.parametrize("flag", ["method_name", "team_name"])
def test_a_name_mixing_scripts_is_refused_naming_the_odd_letter(
    board: Path, flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert publish(SAMPLE, board, **{flag: MIXED}) == 1
    err = capsys.readouterr().err
    assert "mixes Latin with Cyrillic (U+0435 CYRILLIC SMALL LETTER IE at position 1)" in err
    assert "--allow-mixed-scripts" in err and entries(board) == []
    assert publish(SAMPLE, board, "--allow-mixed-scripts", **{flag: MIXED}) == 0
    [row] = entries(board)
    assert isinstance(row, ledger.Record) and MIXED in (row.team_name, row.method_name)


def test_the_model_repo_is_recorded_checked_and_kept_by_a_correction(
    board: Path, always_a: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert publish(SAMPLE, board, model_repo="https://huggingface.co/demo/vlm") == 1
    assert '--model-repo: must be a Hub repo id, "org/name"' in capsys.readouterr().err
    assert publish(SAMPLE, board, model_repo="demo-lab/DemoVLM-7B") == 0
    [row] = entries(board)
    assert isinstance(row, ledger.Record) and row.model_repo == "demo-lab/DemoVLM-7B"
    assert publish(always_a, board, "--supersedes", str(row.id)) == 0
    [corrected] = shown(board).records
    assert corrected.model_repo == "demo-lab/DemoVLM-7B"
    assert "--model-repo" in capsys.readouterr().err  # named among the fields kept


def test_a_withdrawal_on_the_hub_is_one_commit_of_a_new_file(
    hub: HubServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = BENCH.hub.records_repo
    hub.create_repo(repo)
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("HF_TOKEN", READ_TOKEN)
    store = ledger.HubStore(repo, endpoint=hub.url, token=WRITE_TOKEN)
    key = evaluator.kinds.multiple_choice.load_key(TRACK, KEY.read_bytes())
    row = ledger.rescored_record(
        evaluator.score(key, SAMPLE.read_bytes()),
        BENCH,
        TRACK,
        team_name="Demo Lab",
        method_name="DemoVLM-7B",
        model_size="7B",
        uses_external=False,
        uses_frames="frames-only",
    )
    store.write(row, "add")
    head = hub.head(repo)
    argv = ["--row", str(row.id), "--reason", "The team asked."]
    assert withdraw_row.main(argv) == 1  # a read token: refused, nothing written
    err = capsys.readouterr().err
    assert "403" in err and READ_TOKEN not in err and hub.head(repo) == head
    monkeypatch.setenv("HF_TOKEN", WRITE_TOKEN)
    assert withdraw_row.main(argv) == 0
    assert hub.commit_messages(repo)[-1].startswith("Withdraw DemoVLM-7B by Demo Lab: The team")
    files = {p: d for p, d in hub.files(repo).items() if p.startswith("submissions/")}
    assert len(files) == 2 and files[row.path()] == row.to_json()  # the row's file untouched
    snapshot = ledger.BoardCache(ledger.HubStore(repo, endpoint=hub.url), BENCH, TRACK).refresh()
    assert snapshot.records == () and snapshot.withdrawals[0].withdraws == row.id
