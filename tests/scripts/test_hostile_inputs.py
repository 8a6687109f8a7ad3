"""Every maintainer script reads its input files as the Space does (issue 28, item 7).

Each file a script is given on its command line (a key, a public file, a submission, a record,
a letter map, a salt, a paper table) is read by one reader, ``ledger.read_regular_file``: a
regular file, not a symbolic link, within its size, and JSON nested no deeper than
``ledger.files.JSON_DEPTH_LIMIT``. Before, ``new_benchmark.py --key /dev/zero`` grew until the
kernel killed it, a named pipe as its key hung, a link was followed to whatever it named and
that file's first line quoted in the error, and deep JSON ended in a ``RecursionError``
traceback; the other scripts followed links too, and said "maximum recursion depth exceeded".

The scripts run in process (``main([...])``), and, where only a process can show it (a read
bounded in memory, a pipe that would block), as the README runs them (``slow``); every refusal
is one line on stderr that names the file and what to do, exit status 1, no traceback.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
from pathlib import Path

import pytest

import ledger
import spec
from tests.support import ROOT
from tests.support.scripts import run_script, run_script_process

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track()
KEY = BENCH.demo_key(TRACK)
PUBLIC = BENCH.demo_public(TRACK)
SAMPLE = BENCH.demo_dir / "sample_submission.json"
RECORD = BENCH.demo_board / "submissions" / "5694e658-3eb0-487c-b1e2-cba563c80b88.json"
PAPER = BENCH.folder / "paper_baselines.csv"
SALT = "a salt of sixteen or more characters"
#: Something a followed link would show: the first line of the file it points at.
SECRET = "TOPSECRET_7f3a:x:0:0:root:/root:/bin/bash"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """A script's ``main([...])`` in this process (``args[0]`` the script's path)."""
    return run_script(*args)


def run_process(
    *args: str, timeout: float = 60, memory: int | None = None
) -> subprocess.CompletedProcess[str]:
    """A script as the README runs it, a process; ``memory`` bounds its address space (bytes),
    so a script that reads without end fails here instead of taking the machine's memory."""

    def bounded() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    try:
        return run_script_process(*args, timeout=timeout, preexec_fn=bounded)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{args[0]} did not finish within {timeout} s (it is waiting on a read)")


def refused(done: subprocess.CompletedProcess[str], *words: str) -> str:
    """The one line a refusal is: exit 1, no traceback, ``words`` in its first line."""
    assert done.returncode == 1, (done.returncode, done.stdout[-500:], done.stderr[-2000:])
    assert "Traceback" not in done.stderr and "Error:" not in done.stderr, done.stderr[-2000:]
    assert "recursion" not in done.stderr.lower(), done.stderr[-2000:]
    first = done.stderr.strip().splitlines()[0]
    for word in words:
        assert word in first, first
    return first


@pytest.fixture(scope="module")
def rotated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A rotation of the demo key (its letter map is what --letter-map takes)."""
    out = tmp_path_factory.mktemp("rotated") / "out"
    done = run(
        "scripts/reshuffle_options.py",
        *("--private", str(KEY), "--public", str(PUBLIC), "--salt", SALT),
        *("--key-version", "demo-9", "--out-dir", str(out)),
    )
    assert done.returncode == 0, done.stderr
    return out


#: Every file a script takes: (script, flag, the file it normally gets, the command line with
#: ``{file}`` where that file goes). Paths in ``{tmp}`` are the test's own.
def _roles(rotated: Path) -> dict[str, tuple[Path, list[str]]]:
    publish = [
        "scripts/publish_submission.py",
        "--dry-run",
        *("--leaderboard-dir", "{tmp}/board", "--team-name", "T", "--method-name", "M"),
        *("--model-size", "7B", "--uses-external", "no", "--uses-frames", "frames-only"),
    ]
    rescore = [
        "scripts/rescore_board.py",
        "--dry-run",
        *("--leaderboard-dir", "{tmp}/board", "--submissions-dir", str(BENCH.demo_dir)),
        *("--out-dir", "{tmp}/carried"),
    ]
    rotate = [
        "scripts/reshuffle_options.py",
        *("--key-version", "demo-9", "--out-dir", "{tmp}/new"),
    ]
    remap = ["scripts/reshuffle_options.py", "--out", "{tmp}/remapped.json"]
    letter_map = rotated / "letter_map.json"
    salt = rotated.parent / "salt.txt"
    salt.write_text(SALT + "\n", encoding="utf-8")
    return {
        "new_benchmark --key": (
            KEY,
            ["scripts/new_benchmark.py", "--id", "x", "--out", "{tmp}/x", "--key", "{file}"],
        ),
        "validate_benchmark --private": (
            KEY,
            ["scripts/validate_benchmark.py", "--public", str(PUBLIC), "--private", "{file}"],
        ),
        "validate_benchmark --public": (
            PUBLIC,
            ["scripts/validate_benchmark.py", "--private", str(KEY), "--public", "{file}"],
        ),
        "validate_submission --public": (
            PUBLIC,
            ["scripts/validate_submission.py", str(SAMPLE), "--public", "{file}"],
        ),
        "validate_submission SUBMISSION": (
            SAMPLE,
            ["scripts/validate_submission.py", "--public", str(PUBLIC), "{file}"],
        ),
        "publish_submission --submission": (
            SAMPLE,
            [*publish, "--private", str(KEY), "--submission", "{file}"],
        ),
        "publish_submission --private": (
            KEY,
            [*publish, "--submission", str(SAMPLE), "--private", "{file}"],
        ),
        "reproduce_row --record": (
            RECORD,
            [
                "scripts/reproduce_row.py",
                *("--submission", str(SAMPLE), "--private", str(KEY), "--record", "{file}"),
            ],
        ),
        "reproduce_row --submission": (
            SAMPLE,
            [
                "scripts/reproduce_row.py",
                *("--record", str(RECORD), "--private", str(KEY), "--submission", "{file}"),
            ],
        ),
        "reproduce_row --private": (
            KEY,
            [
                "scripts/reproduce_row.py",
                *("--record", str(RECORD), "--submission", str(SAMPLE), "--private", "{file}"),
            ],
        ),
        "rescore_board --private": (
            rotated / KEY.name,
            [*rescore, "--letter-map", str(letter_map), "--private", "{file}"],
        ),
        "rescore_board --letter-map": (
            letter_map,
            [*rescore, "--private", str(rotated / KEY.name), "--letter-map", "{file}"],
        ),
        "rescore_board --same-letters": (
            KEY,
            [*rescore, "--private", str(KEY), "--same-letters", "{file}"],
        ),
        "reshuffle_options --private": (
            KEY,
            [*rotate, "--public", str(PUBLIC), "--salt", SALT, "--private", "{file}"],
        ),
        "reshuffle_options --public": (
            PUBLIC,
            [*rotate, "--private", str(KEY), "--salt", SALT, "--public", "{file}"],
        ),
        "reshuffle_options --salt-file": (
            salt,
            [*rotate, "--private", str(KEY), "--public", str(PUBLIC), "--salt-file", "{file}"],
        ),
        "reshuffle_options --remap-submission": (
            SAMPLE,
            [*remap, "--letter-map", str(letter_map), "--remap-submission", "{file}"],
        ),
        "reshuffle_options --letter-map": (
            letter_map,
            [*remap, "--remap-submission", str(SAMPLE), "--letter-map", "{file}"],
        ),
        "seed_paper_baselines --csv": (
            PAPER,
            [
                "scripts/seed_paper_baselines.py",
                *("--dry-run", "--leaderboard-dir", "{tmp}/board", "--csv", "{file}"),
            ],
        ),
    }


ROLES = [
    "new_benchmark --key",
    "validate_benchmark --private",
    "validate_benchmark --public",
    "validate_submission --public",
    "validate_submission SUBMISSION",
    "publish_submission --submission",
    "publish_submission --private",
    "reproduce_row --record",
    "reproduce_row --submission",
    "reproduce_row --private",
    "rescore_board --private",
    "rescore_board --letter-map",
    "rescore_board --same-letters",
    "reshuffle_options --private",
    "reshuffle_options --public",
    "reshuffle_options --salt-file",
    "reshuffle_options --remap-submission",
    "reshuffle_options --letter-map",
    "seed_paper_baselines --csv",
]


#: Scripts that take no file of the maintainer's: their inputs are the board's records (read by
#: the ledger's stores, which refuse links and bound every file) and the Hub (bounded reads).
NO_INPUT_FILE = {"withdraw_row", "hub_eval_results"}


def test_the_roles_name_every_script() -> None:
    """A script added later gets its files into ROLES (and so into these tests), or says why
    it reads none in NO_INPUT_FILE."""
    scripts = {p.stem for p in (ROOT / "scripts").glob("[!_]*.py")}
    assert {role.split()[0] for role in ROLES} | NO_INPUT_FILE == scripts


def _command(rotated: Path, role: str, tmp: Path, file: Path) -> list[str]:
    board = tmp / "board"
    if not board.exists():
        shutil.copytree(BENCH.demo_board, board)
    _, template = _roles(rotated)[role]
    return [a.replace("{tmp}", str(tmp)).replace("{file}", str(file)) for a in template]


@pytest.mark.parametrize("role", ROLES)
def test_a_linked_file_is_refused_not_followed(rotated: Path, role: str, tmp_path: Path) -> None:
    """The link names the very file the script would take: it is refused all the same, with
    the reason, and nothing of the file it points at is shown."""
    target = _roles(rotated)[role][0]
    link = tmp_path / f"link{target.suffix}"
    link.symlink_to(target)
    done = run(*_command(rotated, role, tmp_path, link))
    line = refused(done, str(link), "is a symbolic link")
    assert "file itself" in line


DEEP = b"[" * 5000 + b"]" * 5000


@pytest.mark.parametrize("role", ROLES)
def test_deep_json_is_refused_in_words(rotated: Path, role: str, tmp_path: Path) -> None:
    target = _roles(rotated)[role][0]
    deep = tmp_path / f"deep{target.suffix}"
    deep.write_bytes(DEEP)
    done = run(*_command(rotated, role, tmp_path, deep))
    refused(done, str(deep), f"more than {ledger.files.JSON_DEPTH_LIMIT} levels deep")


# --- the scaffold, as the issue found it --------------------------------------------------------

GIB = 2**30


def _scaffold(
    key: str, tmp_path: Path, *, timeout: float = 60, memory: int | None = None
) -> subprocess.CompletedProcess[str]:
    """new_benchmark.py on ``key``: in process, or as a process when bounded (``timeout`` or
    ``memory`` given)."""
    args = ("scripts/new_benchmark.py", "--id", "x", "--out", str(tmp_path / "x"), "--key", key)
    if memory is None and timeout == 60:
        return run(*args)
    return run_process(*args, timeout=timeout, memory=memory)


@pytest.mark.slow
def test_the_scaffold_refuses_a_device_before_reading_it(tmp_path: Path) -> None:
    # Bounded to 2 GiB: the read that never ended fails here in a MemoryError, not the machine.
    done = _scaffold("/dev/zero", tmp_path, memory=2 * GIB)
    refused(done, "/dev/zero is a character device, not a regular file")
    assert not (tmp_path / "x").exists()


@pytest.mark.slow
def test_the_scaffold_refuses_a_named_pipe_at_once(tmp_path: Path) -> None:
    pipe = tmp_path / "key.json"
    os.mkfifo(pipe)  # nobody writes to it: a read would wait forever
    refused(_scaffold(str(pipe), tmp_path, timeout=30), "is a named pipe, not a regular file")


def test_the_scaffold_refuses_a_file_past_the_bound(tmp_path: Path) -> None:
    huge = tmp_path / "key.json"
    with open(huge, "wb") as out:  # sparse: no disk is used
        out.truncate(ledger.files.INPUT_LIMIT_BYTES + 1)
    refused(_scaffold(str(huge), tmp_path), "key.json is 64.0 MB", "at most 64 MB")


def test_the_scaffold_never_shows_what_a_link_points_at(tmp_path: Path) -> None:
    """The issue's case: a key linked to /etc/passwd had its first line quoted as the fields
    to give. Here the link points at a file of our own, its first line a marker."""
    secret = tmp_path / "passwd"
    secret.write_text(f"{SECRET}\nnobody:x:65534:65534::/:/bin/false\n", encoding="utf-8")
    link = tmp_path / "key.csv"
    link.symlink_to(secret)
    done = _scaffold(str(link), tmp_path)
    refused(done, f"{link} is a symbolic link")
    assert "TOPSECRET" not in done.stdout + done.stderr
    assert not (tmp_path / "x").exists()
