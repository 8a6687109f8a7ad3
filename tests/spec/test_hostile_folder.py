"""A benchmark folder arrives by pull request (issue 22, finding 5): reading it must stay
inside it, bounded, and every field that reaches a link must be a plain link.

Each hostile folder is a copy of ``benchmarks/egomemreason`` in ``tmp_path`` with one thing
planted: a symbolic link to a file outside holding a planted secret (or to
``/proc/self/environ``, or ``/dev/zero``), a folder link on the way to a file, a file over its
bound, a FIFO, bytes that are not UTF-8, a TOML array nested 5,000 deep, a ``contact_email``
that carries a ``bcc``. ``load_benchmark`` refuses each with one SpecError that names the file
and says how to fix it, without the secret; ``scripts/validate_benchmark.py`` exits 1 with
that line, not a traceback.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import errors
import ledger
import spec
from errors import SpecError
from spec import folder_files
from tests.support.scripts import run_script

SOURCE = spec.BENCHMARKS_DIR / "egomemreason"
BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track()
SECRET = f"planted-secret-{uuid.uuid4().hex}"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A copy of the EgoMemReason folder, to plant things in."""
    copy = tmp_path / "bench"
    shutil.copytree(SOURCE, copy)
    return copy


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside the benchmark folder holding the planted secret (an answer key, say)."""
    path = tmp_path / "outside" / "secret.txt"
    path.parent.mkdir()
    path.write_text(f"HF_TOKEN={SECRET}\n", encoding="utf-8")
    return path


def _replace_with_link(path: Path, target: Path | str) -> None:
    path.unlink()
    path.symlink_to(target)


def _refusal(folder: Path) -> str:
    with pytest.raises(SpecError) as caught:
        spec.load_benchmark(str(folder))
    message = str(caught.value)
    assert SECRET not in message
    return message


# --- every file of the folder is a regular file inside it -----------------------------------

#: Each file the code reads from a benchmark folder, relative to it.
READ_FILES = [
    spec.SPEC_FILENAME,
    "about.md",
    "citation.bib",
    "paper_baselines.csv",
    f"demo/{TRACK.key.name}",
    f"demo/{TRACK.public.name}",
]


@pytest.mark.parametrize("name", READ_FILES)
def test_a_link_to_a_file_outside_is_refused_by_name(folder: Path, secret: Path, name: str) -> None:
    _replace_with_link(folder / name, secret)
    message = _refusal(folder)
    assert f"{name} is a symbolic link" in message, message
    assert "replace the link with the file itself" in message


def test_about_linked_to_the_process_environment_is_refused(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEADERBOARD_TEST_PLANTED", SECRET)
    _replace_with_link(folder / "about.md", "/proc/self/environ")
    assert "about.md is a symbolic link" in _refusal(folder)


def test_a_link_inside_the_folder_is_refused_too(folder: Path) -> None:
    # Even a link that stays inside is refused: whether a link stays inside is a question
    # asked at one moment about a path that may change; a file is a file.
    _replace_with_link(folder / "citation.bib", folder / "about.md")
    assert "citation.bib is a symbolic link" in _refusal(folder)


def test_a_folder_link_on_the_way_is_refused(folder: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside-demo"
    shutil.move(folder / "demo", outside)
    (folder / "demo").symlink_to(outside)
    message = _refusal(folder)
    assert "demo is a symbolic link" in message, message


def test_the_demo_board_folder_may_not_be_a_link(folder: Path, tmp_path: Path) -> None:
    board = folder / "demo" / spec.DEMO_BOARD
    shutil.move(board, tmp_path / "board")
    board.symlink_to(tmp_path / "board")
    assert f"demo/{spec.DEMO_BOARD} is a symbolic link" in _refusal(folder)


def test_a_device_or_a_pipe_is_refused_without_reading_it(folder: Path) -> None:
    _replace_with_link(folder / spec.SPEC_FILENAME, "/dev/zero")
    # Before: tomllib got read_text() of /dev/zero: MemoryError after seconds.
    assert f"{spec.SPEC_FILENAME} is a symbolic link" in _refusal(folder)
    (folder / "about.md").unlink()
    os.mkfifo(folder / "about.md")
    (folder / spec.SPEC_FILENAME).unlink()
    shutil.copy(SOURCE / spec.SPEC_FILENAME, folder / spec.SPEC_FILENAME)
    message = _refusal(folder)  # opened without blocking: a FIFO with no writer answers at once
    assert "about.md is a named pipe, not a regular file" in message, message


def test_the_reader_refuses_a_device_it_is_handed_directly(folder: Path) -> None:
    # What load_benchmark's checks stand on: a device is refused on the open descriptor.
    with pytest.raises(SpecError, match="is a character device, not a regular file"):
        folder_files.read_folder_file(Path("/dev"), Path("/dev/zero"), 1024)


@pytest.mark.parametrize(
    ("name", "limit"),
    [
        (spec.SPEC_FILENAME, folder_files.SPEC_LIMIT_BYTES),
        ("about.md", folder_files.PROSE_LIMIT_BYTES),
        ("citation.bib", folder_files.PROSE_LIMIT_BYTES),
        ("paper_baselines.csv", folder_files.TABLE_LIMIT_BYTES),
    ],
)
def test_a_file_over_its_bound_is_refused(folder: Path, name: str, limit: int) -> None:
    with open(folder / name, "r+b") as file:
        file.truncate(limit + 1)  # sparse: no disk, no memory
    message = _refusal(folder)
    assert f"{name} is {limit + 1:,} bytes" in message and f"at most {limit:,}" in message, message


def test_the_bound_holds_for_a_file_that_says_it_is_empty(tmp_path: Path) -> None:
    # /proc files say they are 0 bytes long; what is read is bounded all the same.
    with pytest.raises(SpecError, match="over 16 bytes"):
        folder_files.read_folder_file(Path("/proc/self"), Path("/proc/self/environ"), 16)


def test_the_shipped_files_are_well_within_their_bounds() -> None:
    for bench in (BENCH, spec.load_benchmark("egoargus")):
        spec_size = (bench.folder / spec.SPEC_FILENAME).stat().st_size
        assert spec_size * 8 < folder_files.SPEC_LIMIT_BYTES
        for path in (bench.about_path, bench.citation_path):
            assert path.stat().st_size * 8 < folder_files.PROSE_LIMIT_BYTES


def test_a_file_outside_the_folder_is_refused_by_the_reader(folder: Path, secret: Path) -> None:
    for path in (secret, folder / ".." / "outside" / "secret.txt"):
        with pytest.raises(SpecError, match="not inside the benchmark folder") as caught:
            folder_files.read_folder_file(folder, path, 1024)
        assert SECRET not in str(caught.value)


def test_text_that_is_not_utf8_names_the_file_and_the_fix(folder: Path) -> None:
    (folder / "about.md").write_bytes("Caf\u00e9".encode("latin-1"))
    message = _refusal(folder)
    assert "about.md is not UTF-8 text" in message and "save it as UTF-8" in message, message


def test_the_page_reads_the_prose_through_the_same_reader(folder: Path) -> None:
    bench = spec.load_benchmark(str(folder))
    assert folder_files.about_text(bench) == (SOURCE / "about.md").read_text(encoding="utf-8")
    assert folder_files.citation_text(bench).startswith("@")
    _replace_with_link(folder / "about.md", folder / "citation.bib")  # after the load
    with pytest.raises(SpecError, match=r"about\.md is a symbolic link"):
        folder_files.about_text(bench)


# --- benchmark.toml nested too deep ---------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    ["[" * 5000 + "]" * 5000, "{a = " * 5000 + "1" + "}" * 5000],
    ids=["array", "inline-table"],
)
def test_toml_nested_5000_deep_is_one_line(folder: Path, value: str) -> None:
    path = folder / spec.SPEC_FILENAME
    path.write_text(path.read_text(encoding="utf-8") + f"\nnested = {value}\n", encoding="utf-8")
    message = _refusal(folder)
    assert "\n" not in message and "nests arrays or inline tables too deeply" in message, message
    assert str(path) in message


# --- fields that reach a link ----------------------------------------------------------------

BASE: dict[str, Any] = tomllib.loads((SOURCE / spec.SPEC_FILENAME).read_text(encoding="utf-8"))
Edit = Callable[[dict[str, Any]], None]


def _parsed(edit: Edit) -> spec.Benchmark:
    import copy

    doc = copy.deepcopy(BASE)
    edit(doc)
    return spec.parse_benchmark(doc, SOURCE)


def _email(value: str) -> Edit:
    return lambda doc: doc.__setitem__("contact_email", value)


def _link(name: str, value: str) -> Edit:
    return lambda doc: doc["links"].__setitem__(name, value)


def _paper_url(value: str) -> Edit:
    return lambda doc: doc["paper"].__setitem__("url", value)


BAD_EMAILS = [
    "x@y.z?bcc=attacker%40evil.example&x=",
    "x@y.z&cc=attacker@evil.example",
    "x%40y@y.z",
    "x/y@y.z",
    "mailto:x@y.z",
    "x@y.z:25",
    "x y@y.z",
    "x@y.z\r\nbcc: attacker@evil.example",
    "x\u200b@y.z",
    "x@y",
    "@y.z",
    "x@@y.z",
    "x@-y.z",
]


@pytest.mark.parametrize("value", BAD_EMAILS)
def test_contact_email_is_a_plain_address(value: str) -> None:
    with pytest.raises(SpecError) as caught:
        _parsed(_email(value))
    message = str(caught.value)
    assert "contact_email: expected a plain e-mail address such as name@example.org" in message


@pytest.mark.parametrize(
    "value",
    [
        "ziyangw@cs.unc.edu",
        "egoargus-maintainers@example.org",
        "first.last+leaderboard@sub.example.co.uk",
    ],
)
def test_plain_addresses_pass(value: str) -> None:
    assert _parsed(_email(value)).contact_email == value


BAD_URLS = [
    ("http://example.org/paper", "https"),
    ("javascript:alert(1)", "https"),
    ("https://", "names no host"),
    ("https:///path", "names no host"),
    ("https://example.org/a)[x](javascript:alert(1))", "U+0029"),
    ('https://example.org/"onmouseover="alert(1)', "U+0022"),
    ("https://example.org/<script>", "U+003C"),
    ("https://example.org/a b", "U+0020"),
    ("https://example.org/\u0007", "U+0007"),
    ("https://example.org/\u202eevil", "U+202E"),
    ("https://user:pw@example.org/", "user name or password"),
    ("https://exa_mple.org/", "host"),
    ("https://example.org:99999/", "port"),
]


@pytest.mark.parametrize(("value", "said"), BAD_URLS)
@pytest.mark.parametrize("where", ["links.paper", "links.code", "paper.url"])
def test_a_spec_link_is_a_plain_https_link(value: str, said: str, where: str) -> None:
    edit = _paper_url(value) if where == "paper.url" else _link(where.split(".")[1], value)
    with pytest.raises(SpecError) as caught:
        _parsed(edit)
    message = str(caught.value)
    assert f"{where}: " in message and said in message, message


def test_the_shipped_links_pass() -> None:
    for bench in (BENCH, spec.load_benchmark("egoargus")):
        given = [u for u in bench.links.model_dump().values() if u]
        assert given and all(u.startswith("https://") for u in given)


# --- validate_benchmark.py on such a folder --------------------------------------------------


def _validate(folder: Path) -> subprocess.CompletedProcess[str]:
    demo = SOURCE / spec.DEMO_FOLDER
    return run_script(
        "validate_benchmark.py",
        *("--benchmark", str(folder)),
        *("--private", str(demo / TRACK.key.name), "--public", str(demo / TRACK.public.name)),
    )


def test_validate_benchmark_refuses_a_spec_linked_to_dev_zero(folder: Path) -> None:
    _replace_with_link(folder / spec.SPEC_FILENAME, "/dev/zero")
    done = _validate(folder)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --benchmark: "), lines
    assert f"{spec.SPEC_FILENAME} is a symbolic link" in lines[0]


def test_validate_benchmark_refuses_a_spec_nested_5000_deep(folder: Path) -> None:
    path = folder / spec.SPEC_FILENAME
    path.write_text(
        path.read_text(encoding="utf-8") + "\nnested = " + "[" * 5000 + "]" * 5000 + "\n",
        encoding="utf-8",
    )
    done = _validate(folder)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "nests arrays or inline tables too deeply" in lines[0], lines


# --- the ledger reads the demo key through the same reader ------------------------------------


def test_the_demo_key_is_read_as_a_regular_file_inside_the_folder(
    folder: Path, secret: Path
) -> None:
    config = ledger.load_config({"LEADERBOARD_BENCHMARK": str(folder)})
    demo_key = config.benchmark.demo_key(TRACK)
    assert ledger.load_key(config, TRACK).key is not None
    _replace_with_link(demo_key, secret)  # after the boot's checks: the read itself refuses it
    with pytest.raises(errors.LedgerError) as caught:
        ledger.load_key(config, TRACK)
    message = str(caught.value)
    assert f"{demo_key} is a symbolic link" in message and SECRET not in message, message
