"""What the evaluator lately refused, so the same file sent again is refused without being read.

A refusal gives the visitor's score slot back (a file that does not score costs no allowance),
so without this one upload of a file that is slow to refuse could be sent again and again, each
call costing its whole check. ``Refusals`` keeps the message of the last ``SIZE`` refusals by
the file's sha256 and what the message turned on (the key it was checked against, the track
and how the track was chosen): the same bytes then cost one sha256 of them, a few times less
than their check (BENCHMARKS.md, P6). A rotated key is another key: its files are checked
afresh. Nothing about a file but its digest and the message it was given is kept, in memory.

>>> refusals, key, digest = Refusals(size=2), object(), file_digest(b"[1]")
>>> refusals.told(key, "memory", digest) is None
True
>>> refusals.keep(key, "memory", digest, "an entry is not an object")
>>> refusals.told(key, "memory", digest)
'an entry is not an object'
>>> refusals.told(object(), "memory", digest) is None  # another key (a rotation)
True
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

SIZE = 256  # refusals kept: their messages are a few kB at most


def file_digest(data: bytes) -> str:
    """What a refusal is remembered by: the file's sha256, taken once per call."""
    return hashlib.sha256(data).hexdigest()


class Refusals:
    """The messages of the last ``size`` files refused, by (sha256, what the message turned
    on); the key itself is held beside them and compared by identity, so a key that went
    away (a rotation) can never be taken for its successor."""

    def __init__(self, size: int = SIZE) -> None:
        self._size = size
        self._kept: OrderedDict[tuple[str, str], tuple[object, str]] = OrderedDict()
        self._lock = threading.Lock()

    def told(self, key: object, about: str, digest: str) -> str | None:
        """The message the file of ``digest`` (``file_digest``) was refused with when checked
        against ``key``, on what ``about`` names (the track and how it was chosen); None if it
        was not."""
        with self._lock:
            kept = self._kept.get((digest, about))
        return kept[1] if kept is not None and kept[0] is key else None

    def keep(self, key: object, about: str, digest: str, message: str) -> None:
        """Remember that the file of ``digest``, checked against ``key`` on ``about``, was
        refused so."""
        entry = (digest, about)
        with self._lock:
            self._kept[entry] = (key, message)
            self._kept.move_to_end(entry)
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)
