"""Run ``python app.py`` as a real server on a free loopback port, the way a Space runs it.

The process handling is the bench's (``tests.support.procs.ServerProcess``): one copy of it.

Example::

    with AppServer(env={"LEADERBOARD_SCORE_LIMIT": "3"}) as server:
        httpx.get(server.url)
        server.log()  # what the app printed so far
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tests.support import ROOT
from tests.support.procs import ServerProcess, free_port

__all__ = ["ROOT", "AppServer", "free_port", "served_in_process"]


class AppServer(ServerProcess):
    """``python app.py`` on 127.0.0.1:<free port> with a clean environment; stopped on exit."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        super().__init__(["app.py"], env)

    @property
    def temp_dir(self) -> Path:
        """Gradio's upload cache of this server."""
        return self._tmp / "gradio"


@contextlib.contextmanager
def served_in_process(
    uploads: Path, config: Mapping[str, str], **launch: Any
) -> Iterator[tuple[str, Any]]:
    """app.main's page for ``config`` (the variables ledger.load_config reads) served on a
    loopback port of this process, as ``app.launch_kwargs(config, **launch)`` serves it, with the
    upload folder ``uploads``: its URL and Blocks (a test can reach its queue and handlers).
    The two variables it sets are put back after."""
    import app  # gradio and the page: only for the tests that serve one
    import ledger

    saved = {k: os.environ.get(k) for k in ("FORWARDED_ALLOW_IPS", "GRADIO_TEMP_DIR")}
    os.environ["FORWARDED_ALLOW_IPS"] = ""
    os.environ["GRADIO_TEMP_DIR"] = str(uploads)
    configured = ledger.load_config(config)
    demo = app.build_from_config(configured)
    port = free_port()
    demo.queue(default_concurrency_limit=8).launch(
        server_name="127.0.0.1",
        server_port=port,
        prevent_thread_lock=True,
        quiet=True,
        **app.launch_kwargs(configured, **launch),
    )
    try:
        yield f"http://127.0.0.1:{port}", demo
    finally:
        demo.close()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
