"""What the upload cache may hold, its budget and its sweep (guard/upload_cache.py): finding 2
of the security review, in process; through a real server: tests/guard/test_uploads.py.

The policy the LEADERBOARD_UPLOAD_* variables set (and a bad one stopping the boot with one
line), the budget's count between sweeps, one sweep of a folder laid out as Gradio's cache, and
the private upload folder.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

import ledger
from guard import upload_cache
from ledger import variables
from tests.support.app_server import ROOT
from tests.support.procs import clean_env


def test_sweep_deletes_old_files_and_folders_and_keeps_young_ones(
    tmp_path: Path, cached_uploads: list[Path]
) -> None:
    files = cached_uploads
    (tmp_path / "link").symlink_to("/etc/passwd")
    young = upload_cache.sweep(tmp_path, 60, time.time())
    assert young.removed == frozenset() and young.kept_files == 5
    result = upload_cache.sweep(tmp_path, 60, time.time() + 120, keep={str(files[0])})
    assert result.removed == {str(f) for f in files[1:]} | {
        str(tmp_path / "tmpabcdef"),
        str(tmp_path / "link"),
    }
    assert result.kept_files == 1 and result.errors == ()
    assert sorted(p.name for p in tmp_path.iterdir()) == [files[0].parent.name]
    assert Path("/etc/passwd").exists()


def test_the_budget_counts_uploads_between_sweeps_and_errs_high() -> None:
    budget = upload_cache.CacheBudget(max_files=3, max_bytes=100)
    assert budget.reserve_file() and budget.reserve_bytes(60)
    assert not budget.reserve_bytes(41)  # 60 in flight
    budget.settle(1, 60, stored=True)
    mark = budget.mark()
    assert budget.reserve_file() and budget.reserve_bytes(30)
    budget.settle(1, 30, stored=True)  # stored while the sweep walks: it may or may not see it
    budget.recount(files=1, size=60, mark=mark)  # the walk saw only the first
    assert (budget.used_files, budget.used_bytes) == (2, 90)
    assert budget.reserve_file() and not budget.reserve_file()
    budget.settle(1, 0, stored=False)
    assert budget.used_files == 2


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        (variables.UPLOAD_MAX_AGE_S.name, "soon"),
        (variables.UPLOAD_MAX_AGE_S.name, "0"),
        (variables.UPLOAD_MAX_AGE_S.name, "inf"),
        (variables.UPLOAD_CACHE_FILES.name, "-1"),
        (variables.UPLOAD_CACHE_MB.name, "nan"),
    ],
)
def test_a_bad_cache_variable_is_refused_by_name(name: str, raw: str) -> None:
    with pytest.raises(ledger.ConfigError, match=f"{name} must be a (whole )?number") as err:
        upload_cache.cache_policy(ledger.load_config({name: raw}))
    assert repr(raw) in str(err.value)


def test_the_cache_variables_set_the_policy() -> None:
    env = {
        variables.UPLOAD_MAX_AGE_S.name: "8",
        variables.UPLOAD_CACHE_FILES.name: "10",
        variables.UPLOAD_CACHE_MB.name: "3",
    }
    policy = upload_cache.cache_policy(ledger.load_config(env))
    assert policy == upload_cache.CachePolicy(8.0, 10, 3 * 2**20, 5 * 2**20)
    assert (policy.every_s, policy.stall_s) == (2.0, 4.0)
    assert upload_cache.cache_policy(ledger.load_config({})) == upload_cache.CachePolicy()


def test_the_upload_folder_is_made_private_unless_given(tmp_path: Path) -> None:
    made = upload_cache.private_upload_folder(None)
    assert made.is_dir() and made.name.startswith("leaderboard-uploads-")
    made.rmdir()
    given = ledger.load_config({variables.UPLOAD_FOLDER.name: f" {tmp_path} "}).upload_folder
    assert given == tmp_path and upload_cache.private_upload_folder(given) == tmp_path


@pytest.mark.server
def test_a_bad_cache_variable_stops_the_boot_with_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "app.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=clean_env({variables.UPLOAD_CACHE_FILES.name: "many"}),
        timeout=120,
    )
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stderr.strip().splitlines() == [
        f"error: {variables.UPLOAD_CACHE_FILES.name} must be a whole number from 1 to "
        "10,000,000, in digits; found 'many'. Fix it, or unset it for the default (2000)."
    ]
