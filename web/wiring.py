"""A handler over a context, bound for Gradio to call: ``bound(handler, context)``.

The tabs' handlers are module-level functions whose first parameter is their tab's context
(board.handlers.BoardTab, score_handlers.ScoreTab), so a test calls one directly. Gradio hands a
handler the ``gr.Request`` or ``gr.EventData`` by its parameters' annotations, which it reads
from a plain function only: through ``functools.partial`` it sees none (gradio.utils'
get_type_hints gives ``{}``) and would pass the request as an input. ``bound`` makes a real
function instead, async when the handler is, with the handler's name, docstring and remaining
parameters, so an event's handler and a ``gr.api`` endpoint look to Gradio as the handler does.

Example::

    >>> def greet(context: str, name: str) -> str:
    ...     "Say hello."
    ...     return f"{context}, {name}"
    >>> hello = bound(greet, "Hello")
    >>> hello("you"), hello.__name__, hello.__doc__
    ('Hello, you', 'greet', 'Say hello.')
    >>> import inspect
    >>> str(inspect.signature(hello))
    '(name: str) -> str'
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Awaitable, Callable
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

C = TypeVar("C")
P = ParamSpec("P")
R = TypeVar("R")


def bound(handler: Callable[Concatenate[C, P], R], context: C) -> Callable[P, R]:
    """``handler`` with ``context`` as its first argument: a function of the others, whose
    signature and annotations are the handler's without the first (a coroutine function when
    the handler is one)."""
    call: Callable[..., Any]
    if inspect.iscoroutinefunction(handler):

        async def call_async(*args: Any, **kwargs: Any) -> Any:
            return await cast(Awaitable[Any], handler(context, *args, **kwargs))

        call = call_async
    else:

        def call_sync(*args: Any, **kwargs: Any) -> Any:
            return handler(context, *args, **kwargs)

        call = call_sync
    # The name, docstring and module stay the handler's.
    functools.update_wrapper(call, handler)
    signature = resolved(handler)
    _context, *rest = signature.parameters.values()
    call.__signature__ = signature.replace(parameters=rest)  # type: ignore[union-attr]
    # As types, not strings: Gradio reads them on every call (helpers.special_args), and a
    # string is compiled and evaluated each time.
    call.__annotations__ = {p.name: p.annotation for p in rest if p.annotation is not p.empty}
    if signature.return_annotation is not signature.empty:
        call.__annotations__["return"] = signature.return_annotation
    return cast(Callable[P, R], call)


def resolved(fn: Callable[..., Any]) -> inspect.Signature:
    """``fn``'s signature with its annotations as types, not the strings ``from __future__
    import annotations`` leaves: Gradio reads a ``gr.api`` endpoint's outputs from the
    signature's return annotation as it is, and shows a string as "Any" on the API page and in
    gradio_client's ``view_api``."""
    hints = typing.get_type_hints(fn)
    signature = inspect.signature(fn)
    parameters = [
        p.replace(annotation=hints.get(p.name, p.annotation)) for p in signature.parameters.values()
    ]
    returned = hints.get("return", signature.return_annotation)
    return signature.replace(parameters=parameters, return_annotation=returned)


def typed(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` itself, its signature ``resolved``: for a ``gr.api`` endpoint that is not
    ``bound``."""
    fn.__signature__ = resolved(fn)  # type: ignore[attr-defined]
    return fn
