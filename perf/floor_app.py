"""The honest floor for P2: a minimal Gradio app with one File input and one JSON output.

``/floor`` is a ``gr.api`` as ``/score`` is: the file arrives as FileData, unprocessed; the
handler reads the file and parses it with ``json.loads`` (in a worker thread past the size
/score scores in one, ``web.score_handlers.THREAD_SCORE_BYTES``) and returns a small constant
dict. So the call costs what Gradio costs for an endpoint of that kind plus reading the file,
the least any scorer must do, and nothing of the Space (its page, its session state, its
checks, its scoring). Until issue 33 the floor did not read its file.
``/floor_event`` is the same function as a Blocks event (``gr.File`` -> ``gr.JSON``, as
``gr.Interface`` would wire it), shown by the bench for reference: Gradio preprocesses the
file and postprocesses the JSON there, work a ``gr.api`` skips, so it is not the floor of
``/score``. Served as the Space is (``app.serve``: the heap frozen, the same queue bounds,
upload guard and session capacity), so only the Blocks differ.

Example::

    GRADIO_SERVER_PORT=7863 python -m perf.floor_app
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import gradio as gr
from anyio import to_thread
from gradio.data_classes import FileData

import app
import ledger
from guard import heap
from web.score_handlers import THREAD_SCORE_BYTES

CONCURRENCY = 4  # as /score's concurrency_limit in score_page.build_score_tab
RESULT: dict[str, Any] = {"accuracy": 0.5, "counts": {"correct": 1, "total": 2}}


async def floor(submission: FileData, request: gr.Request) -> dict[str, Any]:
    """Read the file, parse it, and return a small constant JSON object."""
    # Gradio hands a gr.api its FileData as JSON (a dict), as /score's handler reads it.
    given: Any = submission
    data = Path(given["path"]).read_bytes()
    if len(data) > THREAD_SCORE_BYTES:
        await to_thread.run_sync(json.loads, data)
    else:
        json.loads(data)
    return RESULT


async def floor_event(path: str | None) -> dict[str, Any]:
    """The same, as a gr.File -> gr.JSON event (the file as Gradio's preprocessed path)."""
    if path:
        json.loads(Path(path).read_bytes())
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
    heap.return_memory()  # as app.main, before any thread starts
    config = ledger.load_config()  # the upload cache and the shares, as the Space's
    app.serve(build(), config)


if __name__ == "__main__":
    main()
