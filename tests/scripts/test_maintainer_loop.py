"""The maintainer's loop after a rotation (issue 21, "The maintainer's loop"), with the scripts
run through their ``main([...])`` from the repository root (and the README's EgoArgus rotation
as its shell commands, ``slow``), on a copy of the demo board in tmp_path.

Each test reproduces one observed finding: republishing a carried row loops between three
refusals; ``rescore_board.py --dry-run`` prints other ids than the real run; carried rows take
the day of the carry as their date; a remapped file is remapped a second time; a
``--supersedes`` correction drops the old row's fields it was not given; publish's duplicate
message cuts the sha256.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

import ledger
import spec
from tests.support import ROOT
from tests.support.scripts import run_script

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track(kind=spec.MultipleChoiceTrack)
DEMO = BENCH.demo_dir
KEY = BENCH.demo_key(TRACK)
SAMPLE = DEMO / "sample_submission.json"
DEMO_VLM = "5694e658-3eb0-487c-b1e2-cba563c80b88"  # DemoVLM-7B (synthetic) by Demo Lab
DEMO_VLM_FLAGS = [
    "--team-name",
    "Demo Lab",
    "--method-name",
    "DemoVLM-7B (synthetic)",
    "--model-size",
    "7B",
    "--uses-external",
    "no",
    "--uses-frames",
    "frames-only",
]
CARRIED = re.compile(r"(?:would carry|carried) .*? -> ([0-9a-f-]{36}) on key version")


def records_in(folder: Path) -> dict[str, bytes]:
    sub = folder / ledger.RECORDS_FOLDER
    return {p.name: p.read_bytes() for p in sorted(sub.glob("*.json"))} if sub.is_dir() else {}


@dataclass(frozen=True)
class Rotation:
    folder: Path  # rotated/: the demo-2 key, its public file and letter_map.json
    key: Path
    letter_map: Path


@pytest.fixture(scope="module")
def rotation(tmp_path_factory: pytest.TempPathFactory) -> Rotation:
    """The README's step 1 and 2: the demo key rotated to demo-2."""
    base = tmp_path_factory.mktemp("rotation")
    salt = base / "salt.txt"
    salt.write_text("a-salt-for-the-maintainer-loop-tests\n")
    folder = base / "rotated"
    done = run_script(
        "reshuffle_options.py",
        "--private",
        str(KEY),
        "--public",
        str(BENCH.demo_public(TRACK)),
        "--salt-file",
        str(salt),
        "--key-version",
        "demo-2",
        "--out-dir",
        str(folder),
    )
    assert done.returncode == 0, done.stderr
    return Rotation(folder, folder / TRACK.key.name, folder / "letter_map.json")


@pytest.fixture
def board(tmp_path: Path) -> Path:
    """The README's step 4: a copy of the demo board."""
    folder = tmp_path / "board"
    shutil.copytree(BENCH.demo_board, folder)
    return folder


def rescore(
    board: Path, rotation: Rotation, out_dir: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    """The README's step 5."""
    return run_script(
        "rescore_board.py",
        "--leaderboard-dir",
        str(board),
        "--private",
        str(rotation.key),
        "--letter-map",
        str(rotation.letter_map),
        "--submissions-dir",
        str(DEMO),
        "--out-dir",
        str(out_dir),
        *extra,
    )


def carried_ids(stdout: str) -> list[str]:
    return CARRIED.findall(stdout)


@pytest.fixture
def carried(board: Path, rotation: Rotation, tmp_path: Path) -> dict[str, ledger.Record]:
    """The demo board carried onto demo-2: old row id -> its new record."""
    done = rescore(board, rotation, tmp_path / "remapped")
    assert done.returncode == 0, done.stderr
    new = [
        ledger.Record.from_json(data)
        for name, data in records_in(board).items()
        if not (BENCH.demo_board / ledger.RECORDS_FOLDER / name).exists()
    ]
    assert len(new) == 3
    return {str(r.supersedes): r for r in new}


def test_a_dry_run_prints_the_ids_the_real_run_writes(
    board: Path, rotation: Rotation, tmp_path: Path
) -> None:
    dry = rescore(board, rotation, tmp_path / "remapped", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    promised = carried_ids(dry.stdout)
    assert len(promised) == 3
    real = rescore(board, rotation, tmp_path / "remapped")
    assert real.returncode == 0, real.stderr
    assert carried_ids(real.stdout) == promised
    written = {n.removesuffix(".json") for n in records_in(board)}
    assert set(promised) <= written


def test_a_carried_row_keeps_its_original_date(carried: dict[str, ledger.Record]) -> None:
    for old_id, record in carried.items():
        old = ledger.Record.from_json(
            (BENCH.demo_board / ledger.RECORDS_FOLDER / f"{old_id}.json").read_bytes()
        )
        assert record.created_at == old.created_at, record.method_name
        assert record.key_version == "demo-2" and record.counts == old.counts


def test_republishing_a_carried_row_says_where_it_went(
    board: Path, carried: dict[str, ledger.Record]
) -> None:
    """The old file on the old key, after the carry: each of the three commands the
    maintainer tried says the row was carried, instead of sending them to the next."""
    new_id = str(carried[DEMO_VLM].id)
    before = records_in(board)
    expected = f"this row was carried to demo-2 as {new_id}; nothing to do"
    for extra in ([], ["--supersedes", DEMO_VLM], ["--supersedes", new_id]):
        done = run_script(
            "publish_submission.py",
            "--submission",
            str(SAMPLE),
            "--private",
            str(KEY),
            *DEMO_VLM_FLAGS,
            "--leaderboard-dir",
            str(board),
            *extra,
        )
        assert done.returncode == 1, (extra, done.stdout)
        assert expected in done.stderr, (extra, done.stderr)
    assert records_in(board) == before


def test_a_duplicate_is_named_by_its_whole_sha256(board: Path) -> None:
    done = run_script(
        "publish_submission.py",
        "--submission",
        str(SAMPLE),
        "--private",
        str(KEY),
        *DEMO_VLM_FLAGS,
        "--leaderboard-dir",
        str(board),
        "--dry-run",
    )
    assert done.returncode == 1
    whole = hashlib.sha256(SAMPLE.read_bytes()).hexdigest()
    assert f"(sha256 {whole})" in done.stderr, done.stderr


def test_a_remapped_file_is_not_remapped_twice(rotation: Rotation, tmp_path: Path) -> None:
    once, twice = tmp_path / "once.json", tmp_path / "twice.json"
    done = run_script(
        "reshuffle_options.py",
        "--remap-submission",
        str(SAMPLE),
        "--letter-map",
        str(rotation.letter_map),
        "--out",
        str(once),
    )
    assert done.returncode == 0, done.stderr
    done = run_script(
        "reshuffle_options.py",
        "--remap-submission",
        str(once),
        "--letter-map",
        str(rotation.letter_map),
        "--out",
        str(twice),
    )
    assert done.returncode == 1
    assert "already in the letters of key version demo-2" in done.stderr, done.stderr
    assert not twice.exists()


def test_a_correction_keeps_the_old_row_s_fields_it_is_not_given(
    board: Path, tmp_path: Path
) -> None:
    old = ledger.Record.from_json((board / ledger.RECORDS_FOLDER / f"{DEMO_VLM}.json").read_bytes())
    assert old.project_url and old.method_description
    corrected = tmp_path / "corrected.json"
    entries = json.loads(SAMPLE.read_text())
    entries[0]["predicted_answer"] = None  # the team's corrected run: one answer fewer
    corrected.write_text(json.dumps(entries))
    before = records_in(board)
    done = run_script(
        "publish_submission.py",
        "--submission",
        str(corrected),
        "--private",
        str(KEY),
        *DEMO_VLM_FLAGS,
        "--leaderboard-dir",
        str(board),
        "--supersedes",
        DEMO_VLM,
        "--note",
        "corrected run",
    )
    assert done.returncode == 0, done.stderr
    (name,) = set(records_in(board)) - set(before)
    new = ledger.Record.from_json(records_in(board)[name])
    assert new.supersedes == old.id
    assert (new.project_url, new.publication_url, new.method_description) == (
        old.project_url,
        old.publication_url,
        old.method_description,
    )
    assert new.note == "corrected run"  # what is given replaces the old row's
    assert "kept from" in done.stderr and "--project-url" in done.stderr


# --- the README's EgoArgus notes, as written ----------------------------------------------------

README = (ROOT / "README.md").read_text(encoding="utf-8")
ARGUS = spec.load_benchmark("egoargus")


def argus_rotation_block() -> tuple[list[str], dict[str, str]]:
    """The commands of the README's EgoArgus rotation block, and the variables of its
    `make run`."""
    section = README[README.index("**EgoArgus** keeps both tracks' keys") :]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None
    commands = [c.strip() for c in block.group(1).replace("\\\n", " ").splitlines() if c.strip()]
    (run_line,) = [c for c in commands if c.endswith("make run")]
    env = dict(part.split("=", 1) for part in shlex.split(run_line)[:-2])
    return [c for c in commands if c != run_line], env


@pytest.mark.slow
def test_the_readme_s_egoargus_rotation_serves_both_tracks(tmp_path: Path) -> None:
    """Rotating EgoArgus as the README says leaves a key folder the app reads both tracks'
    keys from: the rotated understanding key and the decision key carried as it is (before,
    the README said nothing of the decision key, and a folder without it stops the boot)."""
    home = tmp_path / "home"
    home.mkdir()
    for name in ("scripts", "benchmarks", ".venv"):
        (tmp_path / name).symlink_to(ROOT / name)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["HOME"] = str(home)
    commands, variables = argus_rotation_block()
    for command in commands:
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    config = ledger.load_config(
        {k: str(tmp_path / v) if k == "LEADERBOARD_ANSWER_KEY" else v for k, v in variables.items()}
    )
    assert config.benchmark.id == "egoargus"
    versions = {t.id: ledger.load_key(config, t).key for t in config.benchmark.tracks}
    understanding, decision = versions["understanding"], versions["decision"]
    assert understanding is not None and understanding.key_version == "demo-2"
    shipped = ARGUS.demo_key(ARGUS.track("decision")).read_bytes()
    assert decision is not None and decision.sha256 == hashlib.sha256(shipped).hexdigest()


def test_the_readme_s_decision_paper_rows_command_seeds_them(tmp_path: Path) -> None:
    (command,) = re.findall(r"`(seed_paper_baselines\.py --benchmark egoargus [^`]*)`", README)
    script, *args = shlex.split(command)
    board = tmp_path / "board"
    done = run_script(script, *args, "--leaderboard-dir", str(board))
    assert done.returncode == 0, done.stderr
    rows = [ledger.Record.from_json(data) for data in records_in(board).values()]
    assert rows and {(r.track, r.source) for r in rows} == {("decision", "paper")}
