"""The Space as ``app.main`` builds it, plus a hidden no-op event: the framework floor for P2.

The no-op takes the same ``gr.File`` input as Score, under the same concurrency limit, and
does nothing; so ``/score`` minus ``/noop`` is what scoring itself costs over Gradio's upload
handling, queue and HTTP. Configured by the same environment as ``app.py`` (the bench raises
``LEADERBOARD_SCORE_LIMIT``).

Example::

    GRADIO_SERVER_PORT=7861 LEADERBOARD_SCORE_LIMIT=1000000 python -m bench.bench_app
"""

from __future__ import annotations

import logging
import os

import gradio as gr

import app
import ledger

NOOP_CONCURRENCY = 4  # as Score's concurrency_limit in app.build_demo


def build() -> gr.Blocks:
    """app.main's demo with the extra ``/noop`` event."""
    os.environ["FORWARDED_ALLOW_IPS"] = ""  # as app.main
    demo = app.build_from_config(ledger.load_config())

    async def noop(path: str | None) -> None:
        """Accept the upload and return nothing."""

    with demo:
        hidden = gr.File(file_types=[".json"], type="filepath", visible=False)
        hidden.upload(noop, hidden, None, api_name="noop", concurrency_limit=NOOP_CONCURRENCY,
                      api_visibility="undocumented")
    return demo


def main() -> None:
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    build().queue(default_concurrency_limit=8).launch(**app.launch_kwargs())


if __name__ == "__main__":
    main()
