"""A bounded load: N client threads, each with its own keep-alive connection, calling one event.

Every loop stops at a request count and at a deadline, whichever comes first; the result says
which. Used by ``make bench`` (P2 and the large load) and by tests/app/test_load.py (the small one).

Example::

    result = run_load(url, "score", [sample_bytes], clients=8, requests=500, time_limit_s=60)
    result.ok, result.errors[:3], result.percentile(50), result.throughput
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.support.gradio_http import GradioHTTP, file_data

#: Checks one completed event's outputs; returns a complaint, or None when they are right.
Check = Callable[[int, Any], str | None]


@dataclass
class LoadResult:
    """Latencies of the requests that succeeded, and what went wrong with the others."""

    clients: int
    latencies_s: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    timed_out: bool = False

    @property
    def ok(self) -> int:
        return len(self.latencies_s)

    @property
    def throughput(self) -> float:
        """Completed requests per second of wall time."""
        return self.ok / self.wall_s if self.wall_s > 0 else 0.0

    def percentile(self, pct: float) -> float:
        """Nearest-rank percentile of the latencies, in seconds (nan when none)."""
        if not self.latencies_s:
            return float("nan")
        ordered = sorted(self.latencies_s)
        rank = max(1, -(-len(ordered) * pct // 100))
        return ordered[min(int(rank), len(ordered)) - 1]


def run_load(
    base_url: str,
    api_name: str,
    payloads: Sequence[bytes],
    *,
    clients: int,
    requests: int,
    time_limit_s: float,
    check: Check | None = None,
    via: str = "call",
    reupload_s: float = 60.0,
    extra: Sequence[Any] = (),
) -> LoadResult:
    """``requests`` calls of ``api_name`` spread over ``clients`` threads, within the time limit.

    Client ``i`` uploads ``payloads[i % len(payloads)]`` once, then calls the event with it
    until the shared count is reached. ``check(i % len(payloads), outputs)`` vets each
    completed call; an error event or a complaint counts as an error. ``via`` is how to call:

    - ``"call"``: /gradio_api/call/<api_name> + its event stream, as gradio_client does: the
      queue, and a new session for every call (every call looks like a new visitor);
    - ``"session"``: /gradio_api/queue/join + /queue/data with one session per client, as a
      browser tab does (many scores by the same 8 visitors);
    - ``"run"``: one POST to /gradio_api/run/<api_name>, past the queue (off on a Space).

    ``extra`` are the event's inputs after the file (a several-track page's ``/score`` takes
    the track).

    The app deletes uploads about 2 minutes after they arrive, so a client uploads its file
    again once the last upload is ``reupload_s`` old, as a visitor would.
    """
    result = LoadResult(clients=clients)
    lock = threading.Lock()
    issued = 0
    deadline = time.monotonic() + time_limit_s
    start_line = threading.Barrier(clients + 1, timeout=120)

    def client(index: int) -> None:
        nonlocal issued
        which = index % len(payloads)
        with GradioHTTP(base_url, timeout_s=max(time_limit_s, 1.0)) as http:
            session = uuid.uuid4().hex
            try:
                path = http.upload(f"load-{which}.json", payloads[which])
                uploaded = time.monotonic()
                fn_index = http.fn_index_of(api_name) if via == "session" else -1
            except Exception as exc:  # the start line must still be reached
                with lock:
                    result.errors.append(f"client {index}: upload failed: {exc!r}")
                start_line.wait()
                return
            start_line.wait()
            while True:
                with lock:
                    if issued >= requests:
                        return
                    if time.monotonic() >= deadline:
                        result.timed_out = True
                        return
                    issued += 1
                try:
                    if time.monotonic() - uploaded > reupload_s:
                        path = http.upload(f"load-{which}.json", payloads[which])
                        uploaded = time.monotonic()
                    inputs = [file_data(path), *extra]
                    if via == "session":
                        outcome = http.queue_call(fn_index, inputs, session)
                    elif via == "run":
                        outcome = http.run(api_name, inputs)
                    else:
                        outcome = http.call(api_name, inputs)
                except Exception as exc:
                    complaint: str | None = f"{type(exc).__name__}: {exc}"
                else:
                    complaint = None
                    if outcome.kind != "complete":
                        complaint = f"error event: {outcome.message[:200]}"
                    elif check is not None:
                        complaint = check(which, outcome.data)
                with lock:
                    if complaint is None:
                        result.latencies_s.append(outcome.elapsed_s)
                    else:
                        result.errors.append(f"client {index}: {complaint}")

    threads = [
        threading.Thread(target=client, args=(i,), name=f"load-{i}", daemon=True)
        for i in range(clients)
    ]
    for thread in threads:
        thread.start()
    start_line.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join(timeout=max(deadline - time.monotonic(), 0) + 30)
    result.wall_s = time.perf_counter() - started
    if any(thread.is_alive() for thread in threads):
        result.timed_out = True
        result.errors.append("a client thread did not finish within the time limit + 30 s")
    return result
