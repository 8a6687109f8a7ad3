"""An API's last input left out over raw HTTP takes its default, as gradio_client fills it.

gradio_client fills a parameter's default itself, but a raw HTTP call that leaves the last input
out (the README's curl example on a benchmark of several tracks, which names no track) got
``event: error`` / ``data: {"error": null}``: Gradio 6.31's ``Blocks.validate_inputs`` wants
every input of an event, and sees them before anything reads them (``preprocess_data`` hands the
same list on to be read). ``optional_last_input`` wraps that method of one Blocks: a call of the
named API one input short gets ``default`` appended there, and is then checked as Gradio checks
any call. ``check`` refuses a Gradio whose ``preprocess_data`` does not validate the list it
reads (``GradioMismatch``, at boot).

Example (web.score_page does it for ``/score``, the track left out scoring as "detect")::

    optional_last_input(demo, "score", DETECT)
"""

from __future__ import annotations

import inspect
from typing import Any

from gradio.blocks import Blocks

from errors import GradioMismatch

__all__ = ["check", "optional_last_input"]

#: What Blocks.preprocess_data must do for the default to be read: validate the list it reads.
VALIDATES = "self.validate_inputs(block_fn, inputs)"


def check(blocks: type = Blocks) -> None:
    """GradioMismatch unless ``blocks.preprocess_data`` validates the very list it reads."""
    source = inspect.getsource(blocks.preprocess_data)  # type: ignore[attr-defined]
    if VALIDATES not in source:
        raise GradioMismatch(
            "guard.optional_inputs appends a default to an event's inputs in "
            f"Blocks.validate_inputs, but the installed Gradio's preprocess_data no longer calls "
            f"{VALIDATES}: read gradio/blocks.py and update guard/optional_inputs.py, or install "
            "the Gradio of requirements.txt."
        )


def optional_last_input(demo: Blocks, api_name: str, default: Any) -> None:
    """A call of ``api_name`` on ``demo`` that leaves out its last input gets ``default`` there
    (over raw HTTP as through gradio_client); GradioMismatch first if Gradio reads its inputs
    otherwise than this was written for."""
    check()
    validate = demo.validate_inputs

    def validate_inputs(block_fn: Any, inputs: list[Any]) -> None:
        if block_fn.api_name == api_name and len(inputs) == len(block_fn.inputs) - 1:
            inputs.append(default)
        validate(block_fn, inputs)

    demo.validate_inputs = validate_inputs  # type: ignore[method-assign]
