"""The framework floor for P2: a minimal Gradio app with one File input and one JSON output.

``/floor`` is a ``gr.api`` as ``/score`` is: the file arrives as FileData, unprocessed, and
the handler returns a small constant dict, so the call costs what Gradio itself costs for an
endpoint of that kind and nothing of the Space (its page, its session state, its handler).
``/floor_event`` is the same function as a Blocks event (``gr.File`` -> ``gr.JSON``, as
``gr.Interface`` would wire it), shown by the bench for reference: Gradio preprocesses the
file and postprocesses the JSON there, work a ``gr.api`` skips, so it is not the floor of
``/score``. Launched as the Space is (``app.launch_kwargs(config)``: the same queue bounds, upload
guard and session capacity), so only the Blocks differ.

Example::

    GRADIO_SERVER_PORT=7863 python -m perf.floor_app
"""

from __future__ import annotations

import os
from typing import Any

import gradio as gr
from gradio.data_classes import FileData

import app
import ledger

CONCURRENCY = 4  # as /score's concurrency_limit in score_page.build_score_tab
RESULT: dict[str, Any] = {"accuracy": 0.5, "counts": {"correct": 1, "total": 2}}


async def floor(submission: FileData, request: gr.Request) -> dict[str, Any]:
    """Take a file and return a small constant JSON object."""
    return RESULT


async def floor_event(path: str | None) -> dict[str, Any]:
    """The same, as a gr.File -> gr.JSON event."""
    return RESULT


def build() -> gr.Blocks:
    os.environ["FORWARDED_ALLOW_IPS"] = ""  # as app.main
    demo = gr.Blocks(title="Floor")
    with demo:
        gr.api(floor, api_name="floor", concurrency_limit=CONCURRENCY)  # type: ignore[attr-defined]
        upload = gr.File(file_types=[".json"], type="filepath")
        result = gr.JSON()
        upload.upload(
            floor_event, upload, result, api_name="floor_event", concurrency_limit=CONCURRENCY
        )
    return demo


def main() -> None:
    config = ledger.load_config()  # the upload cache and the shares, as the Space's
    build().queue(default_concurrency_limit=8).launch(**app.launch_kwargs(config))


if __name__ == "__main__":
    main()
