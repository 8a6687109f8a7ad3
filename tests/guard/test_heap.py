"""No garbage collection while a file is scored (``guard.heap.collections_paused``).

(glibc's thresholds, the module's other change of issue 33, are measured in BENCHMARKS.md, not
asserted here: with them orjson's buffer is reused in most processes, but in about one child
process in eleven its parses still faulted in 126-252 pages each, for a reason not found, and
more often in the full suite; a count of page faults was no test.)"""

from __future__ import annotations

import gc
import threading

import evaluator
import spec
from guard import heap
from tests.support.demo_keys import demo_key
from web.score_handlers import score_or_refusal

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
