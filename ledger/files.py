"""Reading a local input file safely: a regular file, not too large, and not a link if asked.

A maintainer's command line or a board folder can name anything: ``/dev/zero`` (a read that
never ends until memory does), a named pipe (a read that blocks forever), a symbolic link out of
a board folder (to the answer key, or to ``/proc/self/environ``). ``read_regular_file`` refuses
each with a one-line reason, before reading a byte.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from errors import UnreadableFileError
from spec.folder_files import file_kind

#: Large enough for any real key, public file or submission of the shipped benchmarks (the
#: largest demo file is ~4 MB), small enough that a mistake cannot exhaust memory.
INPUT_LIMIT_BYTES = 64 * 1024 * 1024
RECORD_LIMIT_BYTES = 1024 * 1024  # a record is ~2 kB


def read_regular_file(
    path: Path, limit: int = INPUT_LIMIT_BYTES, follow_links: bool = True
) -> bytes:
    """The bytes of ``path``; UnreadableFileError (one line, naming the path) otherwise.

    The file is opened without blocking and checked on the open descriptor, so what is read is
    what was checked: a pipe or device is refused without waiting on it.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow_links else os.O_NOFOLLOW)
    try:
        if not follow_links and stat.S_ISLNK(os.lstat(path).st_mode):
            raise UnreadableFileError(
                f"{path} is a symbolic link; links are not followed here (a record folder holds "
                "record files only): replace it with the file itself"
            )
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise UnreadableFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UnreadableFileError(f"{path} is a folder, not a file") from None
    except OSError as exc:
        raise UnreadableFileError(f"{path} cannot be read ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFileError(
                f"{path} is {file_kind(info.st_mode)}, not a regular file; pass a file"
            )
        if info.st_size > limit:
            raise UnreadableFileError(
                f"{path} is {info.st_size / 2**20:.1f} MB; files here are at most "
                f"{limit / 2**20:g} MB: is this the right file?"
            )
        data = handle.read(limit + 1)
    if len(data) > limit:  # it grew while being read
        raise UnreadableFileError(f"{path} grew past {limit / 2**20:g} MB while being read")
    return data
