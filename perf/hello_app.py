"""The framework floor for P4: a hello-world Gradio app, launched as app.py launches.

Example::

    GRADIO_SERVER_PORT=7862 python -m perf.hello_app
"""

from __future__ import annotations

import gradio as gr


def main() -> None:
    with gr.Blocks(title="Hello") as demo:
        gr.Markdown("# Hello, world")
    demo.launch(ssr_mode=False)


if __name__ == "__main__":
    main()
