"""A visitor's latency with an attack on and off, measured in alternation on the same server.

A ratio of a quiet run and an attacked run made one after the other measures the machine as
much as the app: on a shared machine another process's burst lands in one run and not the
other (issue 33, item 7: the flood tests failed at a load average of 10 and passed alone). Here
the attack is switched on and off around each of the visitor's samples, so every attacked
sample has quiet ones beside it in time and a burst of the machine's load falls on both
kinds alike. The attack is real: its threads send real HTTP to the real app while on, and
when switched off they finish what they have in flight before a quiet sample is taken.

The visitor's client and the attack's threads share the test process, whose heap in
``make test`` is the whole suite's: a full collection of it, which the attack's allocations
trigger, stalled the visitor's client for as long as it took (a call flood's visitor went
from x1.8 to x5.3 its quiet time with two million objects in the test's heap). While an
attack runs, that heap is frozen (``frozen_heap``), as the app freezes its own boot's
(``guard.heap``): what is measured is the server.

Example::

    def flood(client: httpx.Client) -> None:
        client.get("/config")

    with Attack(lambda: httpx.Client(base_url=url), flood, threads=16, per_s=200) as attack:
        attack.warm_up(lambda: attack.steps > 60)       # its steady state, not a time
        run = alternate(visit, attack, rounds=8)        # visit() -> seconds
    run.ratio, run.quiet_s, run.attacked_s, run.steps
"""

from __future__ import annotations

import contextlib
import gc
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from types import TracebackType
from typing import Generic, Self, TypeVar

Client = TypeVar("Client")

#: An attack stops by then, whatever the test is waiting for (a bound on every loop).
ATTACK_LIMIT_S = 120.0
#: How long a switched-off attack may take to finish what it has in flight.
DRAIN_LIMIT_S = 60.0


@contextlib.contextmanager
def frozen_heap() -> Iterator[None]:
    """The test process's objects left out of its collections while in the block (a
    collection of the new ones still runs)."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


class Attack(Generic[Client]):
    """``threads`` threads, each with its own client (``connect()``), calling ``step(client)``
    again and again while the attack is on; ``per_s`` paces all of them together (an attacker
    elsewhere is not slowed by this machine's cores, so threads spinning on them must not be
    either; unpaced, each thread sends as fast as it is answered).

    ``steps`` counts the steps completed since the start. A step that raises stops its thread,
    and the error is raised again at ``__exit__`` (or by ``off``)."""

    def __init__(
        self,
        connect: Callable[[], AbstractContextManager[Client]],
        step: Callable[[Client], object],
        threads: int = 1,
        per_s: float | None = None,
    ) -> None:
        self._connect, self._step = connect, step
        self._interval_s = threads / per_s if per_s else 0.0
        self._on = threading.Event()
        self._stopped = threading.Event()
        self._idle = threading.Condition()
        self._in_flight = 0
        self._errors: list[BaseException] = []
        self._deadline = time.monotonic() + ATTACK_LIMIT_S
        self.steps = 0
        self._heap = frozen_heap()
        self._threads = [threading.Thread(target=self._run, daemon=True) for _ in range(threads)]

    def __enter__(self) -> Self:
        self._heap.__enter__()
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stopped.set()
        self._on.set()  # a paused thread wakes to see it is stopped
        for thread in self._threads:
            thread.join(timeout=DRAIN_LIMIT_S)
        self._heap.__exit__(None, None, None)
        if exc is None:
            self._raise()

    def on(self) -> None:
        """Switch the attack on (it starts at once: no thread is still draining)."""
        self._raise()
        self._on.set()

    def off(self) -> None:
        """Switch the attack off, and wait until no step is in flight."""
        self._on.clear()
        with self._idle:
            self._idle.wait_for(lambda: self._in_flight == 0, timeout=DRAIN_LIMIT_S)
            assert self._in_flight == 0, f"{self._in_flight} attack steps still in flight"
        self._raise()

    def warm_up(self, ready: Callable[[], bool]) -> None:
        """Run the attack until ``ready()`` (its steady state: a burst spent, a first check
        done), then switch it off; whatever ``ready`` waits for, not a time."""
        self.on()
        while not ready():
            self._raise()
            assert time.monotonic() < self._deadline, "the attack never reached its steady state"
            time.sleep(0.01)
        self.off()

    def _raise(self) -> None:
        if self._errors:
            raise self._errors[0]

    def _running(self) -> bool:
        return not self._stopped.is_set() and time.monotonic() < self._deadline

    def _run(self) -> None:
        try:
            with self._connect() as client:
                due = time.monotonic()
                while self._running():
                    if not self._on.is_set():
                        self._on.wait(timeout=1.0)
                        due = time.monotonic()  # a paused attack does not catch up
                        continue
                    if (now := time.monotonic()) < due:
                        time.sleep(due - now)  # at most one interval: off is seen by then
                        continue
                    due += self._interval_s
                    with self._idle:
                        if not self._on.is_set():
                            continue
                        self._in_flight += 1
                    try:
                        self._step(client)
                    finally:
                        with self._idle:
                            self._in_flight -= 1
                            self.steps += 1
                            self._idle.notify_all()
        except BaseException as exc:  # raised again in the test's thread
            self._errors.append(exc)


@dataclass(frozen=True)
class Alternation:
    """A visitor's samples (seconds) taken in turn: quiet, attacked, quiet, attacked, ...;
    ``steps`` is how many attack steps each attacked sample's phase completed."""

    quiet_s: list[float]
    attacked_s: list[float]
    steps: list[int]

    @property
    def ratio(self) -> float:
        """The attacked samples' median over the quiet ones'."""
        return statistics.median(self.attacked_s) / statistics.median(self.quiet_s)

    def __str__(self) -> str:
        quiet = ", ".join(f"{s:.3f}" for s in self.quiet_s)
        attacked = ", ".join(f"{s:.3f}" for s in self.attacked_s)
        return f"quiet [{quiet}] s, attacked [{attacked}] s ({self.steps} steps), x{self.ratio:.2f}"


def alternate(
    visit: Callable[[], float], attack: Attack[Client], rounds: int, settle_s: float = 0.2
) -> Alternation:
    """``rounds`` quiet samples of ``visit()`` (its duration in seconds), each followed by one
    taken ``settle_s`` into an attack phase; the attack is off for the quiet ones, with nothing
    of it in flight. Every attacked phase must complete a step of the attack (else that sample
    was not under attack)."""
    quiet: list[float] = []
    attacked: list[float] = []
    steps: list[int] = []
    for _ in range(rounds):
        quiet.append(visit())
        before = attack.steps
        attack.on()
        try:
            time.sleep(settle_s)
            attacked.append(visit())
        finally:
            attack.off()
        steps.append(attack.steps - before)
    run = Alternation(quiet, attacked, steps)
    assert all(steps), f"an attacked sample saw no attack step: {run}"
    return run
