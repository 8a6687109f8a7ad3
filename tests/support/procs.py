"""Server processes for the bench: start on a free loopback port, time the boot, read the RSS.

Example::

    with ServerProcess(["-m", "perf.bench_app"],
                       env={"LEADERBOARD_SCORE_LIMIT": "1000000"}) as srv:
        srv.boot_s, rss_bytes(srv.pid)
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self

import httpx

from tests.support import ROOT

BOOT_TIMEOUT_S = 90.0

#: For a server whose load comes from one address (a load test, the bench): that client's share
#: of the events and of the upload cache (guard.event_shares, guard.upload_cache) is lifted, so
#: what is measured is the server's own capacity and bounds.
ONE_CLIENT = {"LEADERBOARD_EVENT_RATE": "1000000000", "LEADERBOARD_UPLOAD_CLIENT_PERCENT": "100"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def rss_bytes(pid: int) -> int:
    """Resident set size of a process (VmRSS in /proc/<pid>/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def isolate_hub_environment(prefix: str) -> None:
    """Before huggingface_hub is imported (it reads these once): a fresh HF_HOME, no stored
    token, endpoint or offline switch, no telemetry, no progress bars."""
    os.environ["HF_HOME"] = tempfile.mkdtemp(prefix=prefix)
    os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    for name in ("HF_TOKEN", "HF_ENDPOINT", "HF_HUB_OFFLINE"):
        os.environ.pop(name, None)


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This environment without the project's and the Hub's variables, plus ``extra``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LEADERBOARD_", "EGOMEM_", "HF_", "GRADIO_", "SPACE_"))
    }
    env.update(
        {
            "GRADIO_ANALYTICS_ENABLED": "False",
            "HF_HUB_DISABLE_TELEMETRY": "1",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra or {})
    return env


def _signals_as_a_shell_leaves_them() -> None:
    """In the server's process before it runs: SIGINT and SIGTERM at their defaults and no
    signal blocked, whatever the test process's state (a blocked or ignored signal is
    inherited). In two full runs the app, sent SIGINT, kept sleeping in Gradio's block_thread
    as if it never came, though it stops on SIGINT when started alone."""
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


class ServerProcess:
    """``python <args>`` serving on 127.0.0.1:<free port>; ``boot_s`` is spawn to first 200."""

    def __init__(self, args: Sequence[str], env: Mapping[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._tmp = Path(tempfile.mkdtemp(prefix="leaderboard-bench-"))
        atexit.register(shutil.rmtree, self._tmp, True)  # its log is read until this process ends
        self.log_path = self._tmp / "server.log"
        self.args = list(args)
        self.env = clean_env(
            {
                "GRADIO_SERVER_NAME": "127.0.0.1",
                "GRADIO_SERVER_PORT": str(self.port),
                "GRADIO_TEMP_DIR": str(self._tmp / "gradio"),
                "HF_HOME": str(self._tmp / "hf_home"),
                **(env or {}),
            }
        )
        self.proc: subprocess.Popen[bytes] | None = None
        self.boot_s = float("nan")

    @property
    def pid(self) -> int:
        if self.proc is None:
            raise RuntimeError("the server has not been started")
        return self.proc.pid

    def start(self) -> Self:
        started = time.perf_counter()
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, *self.args],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_signals_as_a_shell_leaves_them,
            )
        deadline = time.monotonic() + BOOT_TIMEOUT_S
        with httpx.Client(timeout=2) as http:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise RuntimeError(
                        f"{self.args} exited with {self.proc.returncode}:\n{self.log()}"
                    )
                try:
                    if http.get(self.url + "/").status_code == 200:
                        self.boot_s = time.perf_counter() - started
                        return self
                except httpx.HTTPError:
                    pass
                time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"{self.args} did not answer within {BOOT_TIMEOUT_S:g} s")

    def stop(self) -> None:
        """SIGTERM the process group (our own child only), SIGKILL if it lingers."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=15)
        shutil.rmtree(self._tmp / "gradio", ignore_errors=True)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
