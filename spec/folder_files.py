"""Reading a benchmark folder's files: regular files inside it, each within a bound.

A benchmark folder arrives by pull request, so anything in it may be hostile: ``about.md`` as a
symbolic link to ``/proc/self/environ`` (the process environment on the About tab, an
``HF_TOKEN`` with it), ``citation.bib`` linked to the answer key, ``benchmark.toml`` linked to
``/dev/zero`` (a read that ends when memory does), a named pipe (a read that never ends). Every
file of a folder is read here, and refused with a SpecError that names it and the fix unless
it is a regular file, reached from the folder through real folders only (no symbolic link on
the way, none at the end, no ``..``), and within its bound.

The walk opens each part of the path relative to the one before with ``O_NOFOLLOW``, and the
file without blocking; what is checked is the open descriptor, so what is read is what was
checked (a link swapped in between two looks is refused too). A link is refused even when it
points inside the folder: where it points is a question about a moment, a file is a file. At
most ``limit + 1`` bytes are ever read, whatever the file says its size is (``/proc`` files
say 0).

Example:

>>> from spec import load_benchmark
>>> bench = load_benchmark("egomemreason")
>>> about_text(bench).startswith("#")
True
>>> try:
...     read_folder_file(bench.folder, bench.folder / ".." / "egoargus" / "about.md", 1024)
... except SpecError as error:
...     print(str(error).replace(str(bench.folder), "<folder>"))  # doctest: +NORMALIZE_WHITESPACE
<folder>/../egoargus/about.md is not inside the benchmark folder <folder>: a benchmark's
files live in its own folder
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from errors import SpecError
from spec.benchmark import Benchmark, PaperTable

#: benchmark.toml: the shipped ones are 4 and 12 kB.
SPEC_LIMIT_BYTES = 256 * 1024
#: about.md and citation.bib: the shipped ones are 0.2 to 12 kB; a page of prose, not a book.
PROSE_LIMIT_BYTES = 256 * 1024
#: A paper table (paper_baselines.csv and the others): the shipped ones are 0.2 to 2 kB.
TABLE_LIMIT_BYTES = 1024 * 1024

#: A folder walked whole (the demo board): the shipped ones hold ~25 entries.
TREE_LIMIT_ENTRIES = 10_000

_LINK_FIX = "replace the link with the file itself (a benchmark folder holds its files, not links)"


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, in words (``ledger.files`` says it too)."""
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a symbolic link"),
    ):
        if test(mode):
            return name
    return "not a file"


def _parts(folder: Path, path: Path) -> tuple[str, ...]:
    """The parts of ``path`` below ``folder``, by the names alone (nothing is resolved)."""
    outside = SpecError(
        f"{path} is not inside the benchmark folder {folder}: a benchmark's files live in its "
        "own folder"
    )
    try:
        parts = path.relative_to(folder).parts if path.is_absolute() else path.parts
    except ValueError:
        raise outside from None
    if not parts or any(p in ("..", ".") for p in parts):
        raise outside
    return parts


def _open_inside(folder: Path, parts: tuple[str, ...], *, want_folder: bool = False) -> int:
    """A descriptor of ``folder/parts``, every part opened from the one before without
    following a link; SpecError names the first part that is a link or missing."""
    here = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    walked = folder
    try:
        for i, part in enumerate(parts):
            walked = walked / part
            last = i == len(parts) - 1
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
            if not last or want_folder:
                flags |= os.O_DIRECTORY
            try:
                opened = os.open(part, flags, dir_fd=here)
            except OSError as exc:
                if stat.S_ISLNK(_lstat_mode(part, here)):
                    raise SpecError(f"{walked} is a symbolic link; {_LINK_FIX}") from None
                if exc.errno == errno.ENOENT:
                    raise FileNotFoundError(errno.ENOENT, "no such file", str(walked)) from None
                if exc.errno == errno.ENOTDIR:
                    raise SpecError(f"{walked} is not a folder; it should be one") from None
                raise SpecError(f"{walked} cannot be read ({exc.strerror or exc})") from None
            os.close(here)
            here = opened
        return here
    except BaseException:
        os.close(here)
        raise


def _lstat_mode(name: str, dir_fd: int) -> int:
    try:
        return os.lstat(name, dir_fd=dir_fd).st_mode
    except OSError:
        return 0


def _refuse_unless_regular(path: Path, info: os.stat_result, limit: int | None) -> None:
    if stat.S_ISLNK(info.st_mode):
        raise SpecError(f"{path} is a symbolic link; {_LINK_FIX}")
    if not stat.S_ISREG(info.st_mode):
        raise SpecError(
            f"{path} is {file_kind(info.st_mode)}, not a regular file; a benchmark folder holds "
            "regular files: replace it with the file"
        )
    if limit is not None and info.st_size > limit:
        raise SpecError(
            f"{path} is {info.st_size:,} bytes; this file is at most {limit:,} bytes: is it the "
            "right file?"
        )


def read_folder_file(folder: Path, path: Path, limit: int) -> bytes:
    """The bytes of ``path``, a regular file inside ``folder`` (no link on the way) of at most
    ``limit`` bytes; SpecError naming it otherwise, FileNotFoundError if it is not there."""
    fd = _open_inside(folder, _parts(folder, path))
    with os.fdopen(fd, "rb") as handle:
        _refuse_unless_regular(path, os.fstat(fd), limit)
        data = handle.read(limit + 1)
    if len(data) > limit:  # it grew, or (a /proc file) said it was smaller than it is
        raise SpecError(f"{path} is over {limit:,} bytes; this file is at most {limit:,} bytes")
    return data


def read_folder_text(folder: Path, path: Path, limit: int) -> str:
    """``read_folder_file`` decoded as UTF-8; SpecError naming the file and the first bad byte."""
    data = read_folder_file(folder, path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(
            f"{path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}): "
            "save it as UTF-8"
        ) from None


def check_folder_file(folder: Path, path: Path, limit: int | None = None) -> bool:
    """Whether ``path`` is there; SpecError (as ``read_folder_file``) if it is there but no
    regular file inside ``folder`` (within ``limit`` bytes, if given). The file itself is not
    opened (a script that never reads the answer key never opens it, not even to look)."""
    *on_the_way, name = _parts(folder, path)
    try:
        fd = _open_inside(folder, tuple(on_the_way), want_folder=True)
    except FileNotFoundError:
        return False
    try:
        info = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise SpecError(f"{path} cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    _refuse_unless_regular(path, info, limit)
    return True


def check_folder_tree(folder: Path, path: Path) -> bool:
    """Whether the folder ``path`` is there; SpecError if it, a part on the way or anything in
    it is a link or no regular file or folder, or if it holds over ``TREE_LIMIT_ENTRIES``."""
    try:
        fd = _open_inside(folder, _parts(folder, path), want_folder=True)
    except FileNotFoundError:
        return False
    seen = 0
    pending = [(fd, path)]
    try:
        while pending:
            here, where = pending.pop()
            try:
                with os.scandir(here) as entries:
                    for entry in entries:
                        seen += 1
                        if seen > TREE_LIMIT_ENTRIES:
                            raise SpecError(
                                f"{path} holds over {TREE_LIMIT_ENTRIES:,} entries; a demo "
                                "board holds a few dozen records"
                            )
                        inner = where / entry.name
                        if entry.is_symlink():
                            raise SpecError(f"{inner} is a symbolic link; {_LINK_FIX}")
                        if entry.is_dir(follow_symlinks=False):
                            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                            pending.append((os.open(entry.name, flags, dir_fd=here), inner))
                        elif not entry.is_file(follow_symlinks=False):
                            mode = entry.stat(follow_symlinks=False).st_mode
                            raise SpecError(
                                f"{inner} is {file_kind(mode)}, not a regular file; a benchmark "
                                "folder holds regular files: remove it"
                            )
            finally:
                os.close(here)
    finally:
        for left, _ in pending:
            os.close(left)
    return True


def about_text(bench: Benchmark) -> str:
    """The About tab's Markdown (``about.md``)."""
    return read_folder_text(bench.folder, bench.about_path, PROSE_LIMIT_BYTES)


def citation_text(bench: Benchmark) -> str:
    """The citation shown under it (``citation.bib``)."""
    return read_folder_text(bench.folder, bench.citation_path, PROSE_LIMIT_BYTES)


def paper_table(bench: Benchmark, table: PaperTable) -> bytes:
    """The CSV of one of the paper's tables (``paper_baselines.csv`` and the others)."""
    return read_folder_file(bench.folder, bench.folder / table.csv, TABLE_LIMIT_BYTES)
