"""The server's memory under a flood of big files: it comes back, and collecting it is cheap
(issue 30); and no collection while a file is scored (issue 33).

A 5 MB submission parses into up to ~150 MB of objects (a list of 1.7 million empty lists).
Two things made such files costly long after their check:

- ``return_memory``: glibc's malloc kept much of the memory freed. Its threshold for giving a
  large block a mapping of its own rises with every large block freed (after a 5 MB one, 5 MB
  blocks come from the heap and stay there), and each worker thread that checks a file may get
  a heap of its own: three such files left the server 70 MB larger for good. It fixes the
  threshold (a block of ``MMAP_THRESHOLD`` or more is mapped apart, and unmapped when freed),
  how much free memory a heap keeps at its top (``TRIM_THRESHOLD``) and the heaps
  (``ARENAS``), as MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_ and MALLOC_ARENA_MAX would
  if the Space's runner set them; it must run before the server starts its threads. Off glibc
  it does nothing. The threshold is over the buffer orjson reads an everyday file into (sized
  for the worst case, ~12 times the text: ~5 MB for a 437 kB file, of which it touches ~1 MB):
  at glibc's starting 128 kB that buffer was mapped afresh for every parse and its pages
  faulted in again (~245 faults, ~1.3 ms of an EgoArgus understanding score in the bench app);
  from a heap it is reused (in most processes: BENCHMARKS.md). A flood's big blocks (a 5 MB
  file's ~60 MB buffer, the 14 MB list of its 1.7 million items) are still mapped apart and
  given back.
- ``freeze_boot``: a file of many small lists or objects makes Python's garbage collector run
  a full collection, which walks every object the server holds (Gradio, pandas, the keys, the
  boards: ~230,000 objects, ~300 ms on these machines), with the GIL held: a 256 kB file
  checked on the event loop or in a thread stopped the loop 120-400 ms. The objects built at
  boot live as long as the server; frozen (``gc.freeze``), collections skip them, and the same
  file costs ~6 ms.

And one thing made every score dearer than its parse:

- ``collections_paused``: a file's parse makes thousands of containers (EgoArgus' 437 kB
  understanding sample: 6,978 dicts) and no reference cycle. With collections on, ~10
  collections of the youngest objects ran during each score, each walking the entries made so
  far, which then survived into older generations and made the full collections come sooner
  and walk them too: ~1 ms of a score in the bench app (gc.callbacks there), finding nothing.
  The Score tab scores with collections paused; they resume when the last such score in any
  thread ends, its file freed, so its entries are never walked.

>>> return_memory() in (True, False)
True
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import logging
import platform
import threading
from collections.abc import Iterator

MMAP_THRESHOLD = 8 * 2**20  # over orjson's buffer for a file of up to ~600 kB
#: The most a heap keeps free at its top: such a buffer. (Twice the threshold, glibc's own rule
#: when the threshold rises, left a flood's files 37 MB of the server's memory, against 0-18.)
TRIM_THRESHOLD = MMAP_THRESHOLD
ARENAS = 2  # the event loop's heap and one for every worker thread
_M_TRIM_THRESHOLD = -1  # mallopt's parameters (glibc's malloc.h)
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8

_log = logging.getLogger(__name__)
_pauses = threading.Lock()
_paused = 0  # the pauses under way, in every thread
_resume = False  # whether collections were on when the first of them began


def return_memory() -> bool:
    """Set glibc's malloc as the module says; whether it could (False off glibc)."""
    if platform.libc_ver()[0] != "glibc":
        return False
    try:
        set_option = ctypes.CDLL(ctypes.util.find_library("c")).mallopt
    except (OSError, AttributeError, TypeError):
        return False
    done = (
        set_option(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        and set_option(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
        and set_option(_M_ARENA_MAX, ARENAS)
    )
    if not done:
        _log.warning("glibc's malloc refused its settings; memory may not return after a flood")
    return bool(done)


def freeze_boot() -> None:
    """What the process holds now (the page built, its keys and boards loaded) is left out of
    every garbage collection from now on: call it once, just before serving."""
    gc.collect()  # what boot left behind goes first, not into the frozen generation
    gc.freeze()


@contextlib.contextmanager
def collections_paused() -> Iterator[None]:
    """No garbage collection while the block runs, in any thread: for work that makes many
    objects and no reference cycle (a file parsed and scored). Pauses in several threads may
    overlap: collections resume when the last ends, if they were on when the first began."""
    global _paused, _resume
    with _pauses:
        if _paused == 0:
            _resume = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _pauses:
            _paused -= 1
            if _paused == 0 and _resume:
                gc.enable()
