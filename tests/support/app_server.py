"""Run ``python app.py`` as a real server on a free loopback port, the way a Space runs it.

The process handling is the bench's (``tests.support.procs.ServerProcess``): one copy of it.

Example::

    with AppServer(env={"LEADERBOARD_SCORE_LIMIT": "3"}) as server:
        httpx.get(server.url)
        server.log()  # what the app printed so far
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tests.support import ROOT
from tests.support.procs import ServerProcess, free_port

__all__ = ["ROOT", "AppServer", "free_port"]


class AppServer(ServerProcess):
    """``python app.py`` on 127.0.0.1:<free port> with a clean environment; stopped on exit."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        super().__init__(["app.py"], env)

    @property
    def temp_dir(self) -> Path:
        """Gradio's upload cache of this server."""
        return self._tmp / "gradio"
