"""Brief log lines for refused payloads: Gradio's tracebacks of failed requests, cut short.

``log_refusals_briefly`` routes them through ``RefusalLog``: a refused event input becomes one
line without the payload, any other failure keeps a bounded traceback. ``RefusalLog`` stands in
for the ``traceback`` module, whose other functions it hands on:

>>> RefusalLog(logging.getLogger("doctest")).format_exc is traceback.format_exc
True
>>> _own_code(__file__), _own_code(gradio.__file__)  # this app's code, not a package's
(True, False)
"""

from __future__ import annotations

import logging
import sys
import traceback
from pathlib import Path
from typing import Any

import gradio.queueing
import gradio.routes

MAX_TRACEBACK_CHARS = 8000  # of an error of the app's own code, in the log


class RefusalLog:
    """Stands in for ``traceback`` in the Gradio modules that report failed requests.

    Gradio prints each event input it refuses before the handler runs (a bare string for a
    File, a path outside the upload folder, a value no choice has, too few inputs) with
    ``traceback.print_exc()``, straight to stderr: ~25 lines that echo the payload, 100 kB of
    log for a 100 kB "path". Here such a refusal is one short line without the payload. Any
    other failure, an error of the app's own code above all, keeps its traceback, each line
    and the whole cut short (MAX_TRACEBACK_CHARS).
    """

    def __init__(self, log: logging.Logger) -> None:
        self._log = log

    def __getattr__(self, name: str) -> Any:
        return getattr(traceback, name)

    def print_exc(self, limit: int | None = None, file: Any = None, chain: bool = True) -> None:
        exc = sys.exception()
        if exc is None:
            return
        frames = traceback.extract_tb(exc.__traceback__)
        refused = any(f.name == "preprocess_data" for f in frames) and not any(
            _own_code(f.filename) for f in frames
        )
        if refused:
            where = next(
                (
                    f"{Path(f.filename).stem}.{f.name}"
                    for f in reversed(frames)
                    if "gradio" in Path(f.filename).parts
                ),
                "gradio",
            )
            self._log.warning(
                "refused an event's input before its handler ran: %s in %s",
                type(exc).__name__,
                where,
            )
            return
        text = bounded_traceback(exc)
        self._log.error("an event failed:\n%s", text)


def bounded_traceback(exc: BaseException) -> str:
    """``exc``'s traceback, each line and the whole cut short (MAX_TRACEBACK_CHARS)."""
    lines = [
        line if len(line) <= 300 else line[:300] + "…"
        for line in "".join(traceback.format_exception(exc)).splitlines()
    ]
    text = "\n".join(lines)
    if len(text) > MAX_TRACEBACK_CHARS:
        half = MAX_TRACEBACK_CHARS // 2
        text = f"{text[:half]}\n[… {len(text) - 2 * half} characters …]\n{text[-half:]}"
    return text


def failure_report(exc: BaseException) -> tuple[int, str]:
    """How to log an exception a route let out: its level and text. One line (WARNING) when
    every exception of its chain rose in a package's code, Gradio's or Starlette's (a request
    Gradio could not serve: the traceback says nothing about this app); a bounded traceback
    (ERROR) when one rose in this app's own code (guard's middleware, say), a bug to fix.

    >>> import json
    >>> try:
    ...     json.loads("{")
    ... except ValueError as exc:
    ...     failure_report(exc) == (logging.WARNING, "JSONDecodeError in decoder.raw_decode")
    True
    """
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    raised_in = [traceback.extract_tb(e.__traceback__)[-1:] for e in chain]
    if any(_own_code(frames[0].filename) for frames in raised_in if frames):
        return logging.ERROR, "\n" + bounded_traceback(exc)
    where = next((f"{Path(f[0].filename).stem}.{f[0].name}" for f in reversed(raised_in) if f), "?")
    names = " from ".join(type(e).__name__ for e in chain)
    return logging.WARNING, f"{names} in {where}"


_APP_DIR = Path(__file__).resolve().parent.parent


def _own_code(filename: str) -> bool:
    """A file of this app (app.py, ledger, evaluator, ...), not of an installed package."""
    path = Path(filename)
    return path.is_relative_to(_APP_DIR) and not {"site-packages", "dist-packages"} & set(
        path.parts
    )


def log_refusals_briefly(log: logging.Logger) -> None:
    """Route Gradio's tracebacks of failed requests through RefusalLog into ``log``."""
    for module in (gradio.queueing, gradio.routes):
        vars(module)["traceback"] = RefusalLog(log)  # each calls traceback.print_exc()
