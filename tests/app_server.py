"""Run ``python app.py`` as a real server on a free loopback port, the way a Space runs it.

Example::

    with AppServer(env={"EGOMEM_SCORE_LIMIT": "3"}) as server:
        httpx.get(server.url)
        server.log()  # what the app printed so far
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

import httpx

ROOT = Path(__file__).resolve().parent.parent
BOOT_TIMEOUT_S = 90.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class AppServer:
    """``python app.py`` on 127.0.0.1:<free port> with a clean environment; stopped on exit."""

    def __init__(self, env: Mapping[str, str] | None = None, cwd: Path = ROOT) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._tmp = Path(tempfile.mkdtemp(prefix="egomem-app-"))
        self._log_path = self._tmp / "app.log"
        base = {k: v for k, v in os.environ.items()
                if not k.startswith(("EGOMEM_", "HF_", "GRADIO_", "SPACE_"))}
        base.update({
            "GRADIO_SERVER_NAME": "127.0.0.1",
            "GRADIO_SERVER_PORT": str(self.port),
            "GRADIO_ANALYTICS_ENABLED": "False",
            "GRADIO_TEMP_DIR": str(self._tmp / "gradio"),
            "HF_HOME": str(self._tmp / "hf_home"),
            "HF_HUB_DISABLE_TELEMETRY": "1",
            "PYTHONUNBUFFERED": "1",
        })
        base.update(env or {})
        self.env = base
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def temp_dir(self) -> Path:
        """Gradio's upload cache of this server."""
        return self._tmp / "gradio"

    def start(self) -> AppServer:
        with open(self._log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, str(ROOT / "app.py")], cwd=self.cwd, env=self.env,
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        deadline = time.monotonic() + BOOT_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"app.py exited with {self.proc.returncode}:\n{self.log()}")
            try:
                if httpx.get(self.url + "/", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"app.py did not answer within {BOOT_TIMEOUT_S:g} s:\n{self.log()}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=15)

    def log(self) -> str:
        return self._log_path.read_text(encoding="utf-8", errors="replace")

    def __enter__(self) -> AppServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
