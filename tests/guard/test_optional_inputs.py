"""guard.optional_inputs: the last input of one API may be left out; the README's curl example
over it is tests/test_docs_tracks.py."""

from __future__ import annotations

from typing import Any

import gradio as gr
import pytest

from errors import GradioMismatch
from guard import optional_inputs


def _page() -> tuple[gr.Blocks, dict[str, Any]]:
    with gr.Blocks() as demo:
        first, second = gr.Textbox(), gr.Textbox()
        out = gr.Textbox()
        first.change(lambda a, b: a + b, [first, second], out, api_name="joined")
        second.change(lambda a, b: a + b, [first, second], out, api_name="other")
    return demo, {fn.api_name: fn for fn in demo.fns.values()}


def test_a_call_one_input_short_gets_the_default_and_others_are_checked_as_before() -> None:
    demo, fns = _page()
    optional_inputs.optional_last_input(demo, "joined", "the default")
    inputs: list[Any] = ["a"]
    demo.validate_inputs(fns["joined"], inputs)
    assert inputs == ["a", "the default"]
    with pytest.raises(ValueError, match="didn't receive enough input values"):
        demo.validate_inputs(fns["other"], ["a"])
    with pytest.raises(ValueError, match="didn't receive enough input values"):
        demo.validate_inputs(fns["joined"], [])  # two short: not the optional one alone


def test_a_gradio_that_reads_its_inputs_otherwise_is_refused() -> None:
    optional_inputs.check()  # the installed one

    class Other:
        def preprocess_data(self, block_fn: Any, inputs: list[Any]) -> list[Any]:
            return list(inputs)

    with pytest.raises(GradioMismatch, match="preprocess_data no longer calls"):
        optional_inputs.check(Other)
