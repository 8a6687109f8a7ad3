"""glibc's malloc as ``guard.heap`` sets it: memory a flood took comes back
(test_bounded_checks.py), and an everyday file's parse does not map its buffer afresh.

orjson reads a document into one buffer sized for the worst case (~12 times the text: ~5 MB
for EgoArgus' 437 kB understanding sample), of which it touches what the document needs. With
the mmap threshold pinned at glibc's starting 128 kB that buffer was mapped and unmapped on
every parse, and its pages faulted in again each time: ~245 page faults a parse, ~0.4 ms of a
1 ms parse in process, ~1.3 ms of a score in the bench app. Page faults are counted, not timed: each
case runs in a process of its own, as mallopt's settings are the whole process'."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import threading

import pytest

import evaluator
import spec
from guard import heap
from tests.support import ROOT
from tests.support.demo_keys import demo_key
from web.score_handlers import score_or_refusal

_PARSES = """
import json, resource, sys, threading
import orjson
from guard import heap
if sys.argv[1] == "set":
    assert heap.return_memory()
text = json.dumps([{"example_id": f"q-{n:06d}", "predicted_answer": "B"} for n in range(7000)],
                  indent=1).encode()
assert 400_000 < len(text) < 600_000, len(text)
faults = []
def parse():  # in a worker thread, as the Space scores a file of this size
    for _ in range(5):
        orjson.loads(text)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(20):
        orjson.loads(text)
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
for _ in range(2):
    worker = threading.Thread(target=parse)
    worker.start()
    worker.join()
print(json.dumps(faults))
"""


def faults_of_parses(setting: str) -> list[int]:
    """Page faults of 20 parses of a ~450 kB file, in each of two worker threads in turn."""
    done = subprocess.run(
        [sys.executable, "-c", _PARSES, setting],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    faults: list[int] = json.loads(done.stdout)
    return faults


@pytest.mark.slow  # a process of its own
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_an_everyday_files_parse_reuses_its_buffer() -> None:
    # 20 parses: with the threshold at 128 kB, ~245 faults each (~4,900) in every thread; now
    # the buffer is a heap's, faulted in once. The second thread takes the first's heap, as a
    # server's worker threads do: its parses fault in nothing. (Once, in a fresh clone's full
    # run, the first thread's parses faulted in ~126 pages each, though never alone.)
    faults = faults_of_parses("set")
    assert min(faults) < 200, faults


# --- collections paused while a file is scored ----------------------------------------------------


class Collections:
    """The garbage collections that start while it is entered (gc.callbacks)."""

    def __init__(self) -> None:
        self.started = 0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.started += 1

    def __enter__(self) -> Collections:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *_: object) -> None:
        gc.callbacks.remove(self)


def egoargus_understanding() -> tuple[evaluator.AnyKey, bytes]:
    bench = spec.load_benchmark("egoargus")
    track = bench.track("understanding")
    return demo_key(bench, track), (bench.demo_dir / "sample_submission.json").read_bytes()


def test_a_score_runs_no_garbage_collection_and_they_resume_after() -> None:
    # The sample's 6,978 entries are 6,978 new dicts: ~10 collections of the youngest objects
    # before, each walking the file's entries, which then survived into older generations and
    # were walked by the full collections too (~1 ms of a score in the bench app, measured
    # with gc.callbacks there); a parse makes no reference cycle, so none can find garbage.
    key, data = egoargus_understanding()
    gc.collect()
    with Collections() as seen:
        result = score_or_refusal(key, data)
    assert isinstance(result, evaluator.ScoreResult)
    assert seen.started == 0
    assert gc.isenabled()
    with Collections() as seen:
        [{"entry": n} for n in range(10_000)]
    assert seen.started > 0


def test_collections_resume_when_the_last_of_overlapping_pauses_ends() -> None:
    inside, leave = threading.Event(), threading.Event()

    def other_score() -> None:
        with heap.collections_paused():
            inside.set()
            leave.wait(10)

    worker = threading.Thread(target=other_score)
    with heap.collections_paused():
        worker.start()
        assert inside.wait(10)
    assert not gc.isenabled()  # the other thread's pause still holds
    leave.set()
    worker.join()
    assert gc.isenabled()


def test_a_pause_leaves_collections_off_if_they_were() -> None:
    gc.disable()
    try:
        with heap.collections_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_refused_file_resumes_collections_too() -> None:
    key, _ = egoargus_understanding()
    refused = score_or_refusal(key, b'[{"example_id": "nope"}]')
    assert isinstance(refused, tuple)
    assert gc.isenabled()
