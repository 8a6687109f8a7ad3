"""Result rows, the printed table, machine facts and the generated part of BENCHMARKS.md."""

from __future__ import annotations

import gc
import os
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "BENCHMARKS.md"
BEGIN, END = "<!-- bench:begin (written by make bench) -->", "<!-- bench:end -->"


@dataclass(frozen=True)
class Row:
    """One measurement; ``met`` is None when the row has no goal."""

    part: str
    measure: str
    value: str
    goal: str = ""
    met: bool | None = None

    @property
    def verdict(self) -> str:
        return "" if self.met is None else "met" if self.met else "**missed**"


def best_time(fn: Callable[[], object], *, repeats: int = 5, min_repeat_s: float = 0.2) -> float:
    """Seconds per call of ``fn``: the fastest of ``repeats`` timed batches, garbage collector
    off while timing (timeit's rules; on a shared machine the minimum is the least disturbed)."""
    fn()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _best(fn, repeats, min_repeat_s)
    finally:
        if was_enabled:
            gc.enable()


def _best(fn: Callable[[], object], repeats: int, min_repeat_s: float) -> float:
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        if time.perf_counter() - start >= min_repeat_s or number >= 1 << 20:
            break
        number *= 2
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def median_times(
    *fns: Callable[[], object], rounds: int = 30, min_batch_s: float = 0.01
) -> list[float]:
    """Seconds per call of each of ``fns``: the median of ``rounds`` timed batches (each at
    least ``min_batch_s``), the functions taking turns in every round so that a busy neighbour
    or a drift of the machine hits them alike; the garbage collector off while timing."""
    numbers = []
    for fn in fns:
        fn()
        number = 1
        while True:
            start = time.perf_counter()
            for _ in range(number):
                fn()
            if time.perf_counter() - start >= min_batch_s or number >= 1 << 20:
                break
            number *= 2
        numbers.append(number)
    times: list[list[float]] = [[] for _ in fns]
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            for fn, number, out in zip(fns, numbers, times, strict=True):
                start = time.perf_counter()
                for _ in range(number):
                    fn()
                out.append((time.perf_counter() - start) / number)
    finally:
        if was_enabled:
            gc.enable()
    return [statistics.median(out) for out in times]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds >= 0.01 else f"{seconds * 1000:.3f} ms"


def machine() -> dict[str, str]:
    """CPU model, cores, load, Python and library versions, date."""
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.partition(":")[2].strip()
                break
    except OSError:
        pass

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "load average at start": " ".join(f"{x:.2f}" for x in load),
        "python": platform.python_version(),
        "gradio": version("gradio"),
        "huggingface_hub": version("huggingface_hub"),
        "pydantic": version("pydantic"),
        "httpx (bench client)": version("httpx"),
    }


def table(rows: Sequence[Row]) -> str:
    lines = ["| part | measure | value | goal | |", "|---|---|---|---|---|"]
    lines += [f"| {r.part} | {r.measure} | {r.value} | {r.goal} | {r.verdict} |" for r in rows]
    return "\n".join(lines)


def generated(rows: Sequence[Row], facts: dict[str, str], seconds: float) -> str:
    info = "\n".join(f"- {name}: {value}" for name, value in facts.items())
    return (
        f"{BEGIN}\n## Latest run\n\n{info}\n- bench wall time: {seconds:.0f} s\n\n"
        f"{table(rows)}\n{END}"
    )


def write_benchmarks(
    rows: Sequence[Row], facts: dict[str, str], seconds: float, path: Path = BENCHMARKS
) -> None:
    """Replace the generated block of BENCHMARKS.md; the hand-written analysis around it stays."""
    block = generated(rows, facts, seconds)
    text = (
        path.read_text(encoding="utf-8")
        if path.exists()
        else (
            "# Benchmarks\n\n`make bench` reruns everything below the title and rewrites the "
            f"block between the markers.\n\n{BEGIN}\n{END}\n"
        )
    )
    if BEGIN in text and END in text:
        head, _, rest = text.partition(BEGIN)
        _, _, tail = rest.partition(END)
        text = head + block + tail
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")
