"""P4: boot to the first HTTP 200, and idle RSS, of ``python app.py`` vs a hello-world app."""

from __future__ import annotations

import statistics
import time

from perf.report import Row
from tests.support.procs import ServerProcess, rss_bytes

RUNS = 3  # each, alternating
SETTLE_S = 3.0  # after the first 200, before reading the idle RSS
BOOT_GOAL, RSS_GOAL_MB = 1.3, 60.0


def _measure(args: list[str]) -> tuple[float, float]:
    with ServerProcess(args) as server:
        time.sleep(SETTLE_S)
        return server.boot_s, rss_bytes(server.pid) / 2**20


def run() -> list[Row]:
    boots: dict[str, list[float]] = {"app": [], "hello": []}
    rss: dict[str, list[float]] = {"app": [], "hello": []}
    commands = {"app": ["app.py"], "hello": ["-m", "perf.hello_app"]}
    for i in range(RUNS):
        for name in ("app", "hello") if i % 2 == 0 else ("hello", "app"):
            boot, resident = _measure(commands[name])
            boots[name].append(boot)
            rss[name].append(resident)
    app_boot, hello_boot = statistics.median(boots["app"]), statistics.median(boots["hello"])
    app_rss, hello_rss = statistics.median(rss["app"]), statistics.median(rss["hello"])
    ratio, extra = app_boot / hello_boot, app_rss - hello_rss
    return [
        Row(
            "P4",
            f"boot to first 200: app.py / hello world (median of {RUNS})",
            f"{app_boot:.2f} s / {hello_boot:.2f} s = {ratio:.2f}x",
            f"<= {BOOT_GOAL:g}x",
            ratio <= BOOT_GOAL,
        ),
        Row(
            "P4",
            "idle RSS: app.py / hello world",
            f"{app_rss:.0f} MB / {hello_rss:.0f} MB = {extra:+.0f} MB",
            f"<= +{RSS_GOAL_MB:g} MB",
            extra <= RSS_GOAL_MB,
        ),
    ]
