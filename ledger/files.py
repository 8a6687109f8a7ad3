"""Reading a local input file safely: a regular file, not a link, not too large, not too deep.

A maintainer's command line or a board folder can name anything: ``/dev/zero`` (a read that
never ends until memory does), a named pipe (a read that blocks forever), a symbolic link (to
the answer key, or to ``/etc/passwd``, whose lines an error about the file would then quote),
JSON nested thousands of levels deep (a ``RecursionError`` in whatever parses it).
``read_regular_file`` refuses each with a one-line reason that names the file and what to do:
the first three before reading a byte. Every input file of the maintainer's scripts (a key, a
public file, a submission, a record, a letter map, a salt, a paper table) and of the Space
(its configured key, the records of a board folder) is read here.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     deep = Path(folder, "deep.json")
...     _ = deep.write_bytes(b"[" * 200 + b"]" * 200)
...     try:
...         read_regular_file(deep)
...     except UnreadableFileError as error:
...         print(str(error).replace(folder, "<folder>"))  # doctest: +NORMALIZE_WHITESPACE
<folder>/deep.json nests its JSON more than 100 levels deep (brackets within brackets); a key,
a public file or a submission nests a few: is this the right file?
"""

from __future__ import annotations

import errno
import operator
import os
import re
import stat
from itertools import accumulate, repeat
from pathlib import Path

from errors import UnreadableFileError
from spec.folder_files import file_kind

#: Large enough for any real key, public file or submission of the shipped benchmarks (the
#: largest demo file is ~4 MB), small enough that a mistake cannot exhaust memory.
INPUT_LIMIT_BYTES = 64 * 1024 * 1024
RECORD_LIMIT_BYTES = 1024 * 1024  # a record is ~2 kB
#: How deep the JSON of a file may nest: the shipped keys, public files, submissions and
#: records nest 2 to 4 levels; Python's parser stops with a RecursionError near 1,000 levels,
#: and what reads the parsed value may recurse too.
JSON_DEPTH_LIMIT = 100

#: A JSON string (its escapes included): what is inside one is no bracket.
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
#: Brackets kept (an opening one as 2, a closing one as 0), every other byte dropped.
_STEPS = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))


def json_depth(data: bytes) -> int:
    r"""How deep the JSON (or JSON Lines) in ``data`` nests, counting the brackets outside its
    strings (an unclosed one too); 0 for data that does not start as JSON (a CSV file). Linear
    in the bytes, with no recursion and no Python step per byte.

    >>> json_depth(b'[{"a": [1, "[[["]}]'), json_depth(b'{"a": 1}\n{"b": [2]}\n')
    (3, 2)
    >>> json_depth(b"[[[" + b"1" * 100), json_depth(b"id,question\n1,[what]\n")
    (3, 0)
    """
    if data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] not in (b"[", b"{"):
        return 0
    steps = _JSON_STRING.sub(b"", data).translate(_STEPS, _NOT_BRACKETS)
    return max(accumulate(map(operator.sub, steps, repeat(1))), default=0)


def read_regular_file(
    path: Path, limit: int = INPUT_LIMIT_BYTES, follow_links: bool = False
) -> bytes:
    """The bytes of ``path``; UnreadableFileError (one line, naming the path and what to do)
    when it is no regular file, a symbolic link (unless ``follow_links``: the Space's own
    configured key may be one), over ``limit`` bytes, or JSON nested deeper than
    ``JSON_DEPTH_LIMIT``.

    The file is opened without blocking and checked on the open descriptor, so what is read is
    what was checked: a pipe or device is refused without waiting on it, and a link swapped in
    after the look is refused by the open itself.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow_links else os.O_NOFOLLOW)
    link = UnreadableFileError(
        f"{path} is a symbolic link; links are not followed here: pass the path of the file itself"
    )
    try:
        if not follow_links and stat.S_ISLNK(os.lstat(path).st_mode):
            raise link
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise UnreadableFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UnreadableFileError(f"{path} is a folder, not a file") from None
    except OSError as exc:
        if not follow_links and exc.errno == errno.ELOOP:  # a link made after the look
            raise link from None
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
    if json_depth(data) > JSON_DEPTH_LIMIT:
        raise UnreadableFileError(
            f"{path} nests its JSON more than {JSON_DEPTH_LIMIT} levels deep (brackets within "
            "brackets); a key, a public file or a submission nests a few: is this the right file?"
        )
    return data
