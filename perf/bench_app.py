"""The Space as ``app.main`` builds and serves it (``app.serve``), plus an undocumented no-op
endpoint for P2.

``/noop`` is the same kind of endpoint as ``/score``: a ``gr.api`` whose one parameter is the
submission file (FileData, unprocessed) and whose one output is a JSON object, under the same
concurrency limit; it returns an empty dict without reading the file. So ``/score`` minus
``/noop`` is what scoring costs in this app over Gradio's queue, session and HTTP work for one
such call. Configured by the same environment as ``app.py`` (the bench raises
``LEADERBOARD_SCORE_LIMIT``). ``BENCH_SESSIONS=gradio`` serves it with Gradio's own
``SessionState.__init__`` instead of guard.sessions' (every block's config built for every new
session: the figures before issue 20).

Example::

    GRADIO_SERVER_PORT=7861 LEADERBOARD_SCORE_LIMIT=1000000 python -m perf.bench_app
"""

from __future__ import annotations

import logging
import os
from typing import Any

import gradio as gr
from gradio.data_classes import FileData
from gradio.state_holder import SessionState

import app
import ledger
from guard import heap, sessions

NOOP_CONCURRENCY = 4  # as /score's concurrency_limit in score_page.build_score_tab
SESSIONS_VARIABLE = "BENCH_SESSIONS"  # "gradio": Gradio's own sessions, for the before figures


async def noop(submission: FileData, request: gr.Request) -> dict[str, Any]:
    """Accept the file as /score does and return an empty JSON object."""
    return {}


def build(config: ledger.Config | None = None) -> gr.Blocks:
    """app.main's demo (as ``config`` says, by default the environment) with the extra
    ``/noop`` endpoint."""
    os.environ["FORWARDED_ALLOW_IPS"] = ""  # as app.main
    demo = app.build_from_config(config or ledger.load_config())
    with demo:
        gr.api(  # type: ignore[attr-defined]
            noop,
            api_name="noop",
            concurrency_limit=NOOP_CONCURRENCY,
            api_visibility="undocumented",
        )
    return demo


def main() -> None:
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)
    heap.return_memory()  # as app.main, before any thread starts
    config = ledger.load_config()
    demo = build(config)
    if os.environ.get(SESSIONS_VARIABLE) == "gradio":
        SessionState.__init__ = sessions.gradio_init  # type: ignore[method-assign, assignment]
    app.serve(demo, config)


if __name__ == "__main__":
    main()
