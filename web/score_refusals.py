"""What the evaluator lately refused, so the same file sent again is refused without being read.

A refusal of a file's shape gives the visitor's score slot back (a file that does not score
costs no allowance), so without this one upload of a file that is slow to refuse could be sent
again and again, each call costing its whole check. ``Refusals`` keeps the message of the last
``SIZE`` refusals by the file's sha256 and what the message turned on (the track asked for, or
"auto", and the keys it could be checked against): the same bytes then cost one sha256 of them,
read before anything parses the file (the guess of its track included: issue 30), a few times
less than their check (BENCHMARKS.md, P6). A rotated key is another key: its files are checked
afresh. Nothing about a file but its digest and the message it was given is kept, in memory.

The same file sent many times at once is checked once: ``one_at_a_time`` holds the others until
the first is told, and they then find its refusal here (a file that scores is scored for each).
And the very upload refused before (its path, inode, size and time of change: ``digest_of``) is
not even read again: 5 MB read and hashed per call of the same upload was most of what a flood
of them cost.

>>> from evaluator import submission_sha256
>>> refusals, keys, digest = Refusals(size=2), (object(),), submission_sha256(b"[1]")
>>> refusals.told(keys, "memory", digest) is None
True
>>> refusals.keep(keys, "memory", digest, "an entry is not an object")
>>> refusals.told(keys, "memory", digest)
'an entry is not an object'
>>> refusals.told((object(),), "memory", digest) is None  # another key (a rotation)
True
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Hashable, Sequence
from dataclasses import dataclass, field

SIZE = 256  # refusals kept: their messages are a few kB at most


class Refusals:
    """The messages of the last ``size`` files refused, by (sha256, what the message turned
    on); the keys themselves are held beside them and compared by identity, so a key that went
    away (a rotation) can never be taken for its successor."""

    def __init__(self, size: int = SIZE) -> None:
        self._size = size
        self._kept: OrderedDict[tuple[str, str], tuple[tuple[object, ...], str]] = OrderedDict()
        self._digests: OrderedDict[Hashable, str] = OrderedDict()  # a refused upload's sha256
        self._lock = threading.Lock()
        self._checks: dict[tuple[str, str], _Check] = {}  # on the event loop only

    def told(self, keys: Sequence[object], about: str, digest: str) -> str | None:
        """The message the file of ``digest`` (its sha256) was refused with when checked
        against ``keys`` (those it could be checked against, in order), asked as ``about``
        says (the track, or "auto"); None if it was not."""
        with self._lock:
            kept = self._kept.get((digest, about))
        if kept is None or len(kept[0]) != len(keys):
            return None
        same = all(a is b for a, b in zip(kept[0], keys, strict=True))
        return kept[1] if same else None

    def keep(
        self,
        keys: Sequence[object],
        about: str,
        digest: str,
        message: str,
        mark: Hashable | None = None,
    ) -> None:
        """Remember that the file of ``digest``, checked against ``keys`` as ``about`` asks,
        was refused so; and that the upload ``mark`` names (its stat) has that digest."""
        entry = (digest, about)
        with self._lock:
            self._kept[entry] = (tuple(keys), message)
            self._kept.move_to_end(entry)
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)
            if mark is not None:
                self._digests[mark] = digest
                self._digests.move_to_end(mark)
                while len(self._digests) > self._size:
                    self._digests.popitem(last=False)

    def digest_of(self, mark: Hashable) -> str | None:
        """The sha256 of the refused upload ``mark`` names (its path and stat), if it is one."""
        with self._lock:
            return self._digests.get(mark)

    @contextlib.asynccontextmanager
    async def one_at_a_time(self, digest: str, about: str) -> AsyncIterator[None]:
        """Held while the file of ``digest`` is checked as ``about`` asks: the same file asked
        the same way waits, then finds the first one's refusal (``told``). On the event loop."""
        entry = (digest, about)
        check = self._checks.setdefault(entry, _Check())
        check.users += 1
        try:
            async with check.lock:
                yield
        finally:
            check.users -= 1
            if not check.users:
                del self._checks[entry]


@dataclass
class _Check:
    """A file being checked: the lock its callers take in turn, and how many hold or await it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0
