"""What Gradio builds for every new session, built when it is first read: issue 20.

Every ``/gradio_api/call/<api>`` request (gradio_client, curl, scripts) is a new Gradio
session, and Gradio 6.31's ``SessionState.__init__`` builds the config of every block of the
page for it (``config_values``: each block's ``get_config()``, an ``inspect.signature`` of
its constructor, its API info): 2.5 ms on the event loop for this page's ~64 blocks, and
~80 kB kept per session, where a four-block app spends 0.12 ms. Those configs are read only
to write a deep link (``SessionState.components``) and to keep a value a session changed
(``__setitem__``, ``_update_config``, ``_update_value_in_config``); a call of ``/score``
reads only those of its inputs and its output.

``lazy(demo)`` makes the sessions of ``demo`` hold ``LazyConfigs`` instead: the same keys in
the same order, each block's config built by Gradio's own ``config_for_block`` the first time
it is read (once a block: each session gets its own copy). Any other Blocks keeps Gradio's own
``__init__``. The patch is written against Gradio's source, so ``check`` refuses any Gradio
but the pinned version, and any ``SessionState`` whose members differ from the ones read here
(``GradioMismatch``, at boot).

The page's blocks are not changed after the page is built (tests/guard/test_sessions.py checks
that every block's config is the same after each kind of event as before), so a config built
later, or for another session, is the config Gradio would have built when the session began.

Example (web.page.build_page does it for the page):

>>> import gradio as gr
>>> from gradio.state_holder import SessionState
>>> with gr.Blocks() as demo:
...     note = gr.Markdown("a page")
>>> lazy(demo)
>>> state = SessionState(demo)
>>> type(state.config_values).__name__, state.config_values.built()
('LazyConfigs', 0)
>>> [c["props"]["value"] for c in state.components], state.config_values.built()
(['a page'], 1)
"""

from __future__ import annotations

import hashlib
import inspect
import textwrap
import threading
import weakref
from collections.abc import Callable, Iterator, MutableMapping
from copy import copy
from typing import Any

import gradio
from gradio.blocks import Block, Blocks, BlocksConfig
from gradio.state_holder import SessionState

from errors import GradioMismatch

__all__ = ["PINNED_VERSION", "GradioMismatch", "LazyConfigs", "check", "gradio_init", "lazy"]

#: The Gradio whose SessionState this module was written against (requirements.txt pins it).
PINNED_VERSION = "6.31.0"
#: sha256 (first 16 hex digits) of the dedented source of each member of SessionState that the
#: patch replaces, or whose reading of ``config_values`` it must serve exactly as a dict would;
#: and of config_for_block, which builds a config from the block's attributes when called.
PINNED: dict[str, str] = {
    "SessionState.__init__": "18f17cf415978556",
    "SessionState.__getitem__": "a12f75c621a5936f",
    "SessionState.get": "4ee6bd08b020308b",
    "SessionState.__setitem__": "c76cdeec6eb19a79",
    "SessionState._update_config": "bba27be921eae2bc",
    "SessionState._update_value_in_config": "08fc7ada1af04c85",
    "SessionState.__contains__": "bc4835b9cdd342ef",
    "SessionState.components": "30c21c68b18347dc",
    "SessionState.state_components": "e863cf91272b0021",
    "BlocksConfig.config_for_block": "52f8ea7f0d3533d3",
}

#: How long a closed session's state is kept: Gradio's own 3600 s. (Gradio's __init__ makes it
#: 1 s under GRADIO_IS_E2E_TEST, the switch of Gradio's own browser tests; the app reads its
#: environment in ledger.config alone, and no test here sets it.)
STATE_TTL_WHEN_CLOSED_S = 3600

#: Gradio's own SessionState.__init__, kept before the patch replaces it.
gradio_init: Callable[[SessionState, Blocks], None] = SessionState.__init__
_LAZY: weakref.WeakSet[Blocks] = weakref.WeakSet()
# Built configs and configs Gradio sets are swapped under one lock: deep_link reads a session's
# configs in a worker thread while the event loop may set one of the same session.
_BUILD = threading.Lock()


#: Each block's config as ``config_for_block`` built it the first time a session read it: the
#: blocks are not changed once the page is built, so it is the config built any time after.
_BUILT: weakref.WeakKeyDictionary[Block, dict[str, Any]] = weakref.WeakKeyDictionary()


def _config_of(key: int, block: Block) -> dict[str, Any]:
    """``config_for_block(key, [], block)`` for a session, built once a block (~45 us each, and
    a /score call reads three): each session gets its own copy of the config and of its
    ``props``, the two dicts a session writes (``_update_value_in_config`` sets
    ``props["value"]``; ``__setitem__`` and ``_update_config`` replace a whole config). The
    values inside ``props`` are shared: nothing of Gradio's writes into one. Called under
    ``_BUILD``."""
    built = _BUILT.get(block)
    if built is None:
        built = _BUILT[block] = BlocksConfig.config_for_block(key, [], block)
    return {**built, "props": {**built["props"]}}


def _digest(member: object) -> str:
    if isinstance(member, property):
        member = member.fget
    if isinstance(member, staticmethod):
        member = member.__func__
    source = textwrap.dedent(inspect.getsource(member))  # type: ignore[arg-type]
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]


def _members(session_class: type, blocks_config: type) -> dict[str, object]:
    found: dict[str, object] = {}
    for qualified in PINNED:
        owner_name, name = qualified.split(".")
        owner = session_class if owner_name == "SessionState" else blocks_config
        if name in vars(owner):
            member = vars(owner)[name]
            # Once patched, __init__ is checked as Gradio's own (kept in gradio_init).
            found[qualified] = gradio_init if member is _lazy_init else member
    return found


def check(
    version: str | None = None,
    session_class: type = SessionState,
    blocks_config: type = BlocksConfig,
) -> None:
    """GradioMismatch unless Gradio (``version``, the installed one by default) is the pinned
    one and its SessionState and config_for_block are the ones this patch was written for."""
    version = gradio.__version__ if version is None else version
    changes = []
    if version != PINNED_VERSION:
        changes.append(f"the version is {version}")
    members = _members(session_class, blocks_config)
    for qualified, pinned in PINNED.items():
        if qualified not in members:
            changes.append(f"{qualified} is gone")
        elif _digest(members[qualified]) != pinned:
            changes.append(f"{qualified} changed")
    if changes:
        raise GradioMismatch(
            f"guard.sessions patches gradio.state_holder.SessionState as Gradio {PINNED_VERSION} "
            f"wrote it, but the installed Gradio differs: {'; '.join(changes)}. Read Gradio's "
            "state_holder.py and every reader of SessionState.config_values, then update "
            "guard/sessions.py and its PINNED digests, or install gradio=="
            f"{PINNED_VERSION} (requirements.txt)."
        )


def lazy(demo: Blocks) -> None:
    """Sessions of ``demo`` build each block's config on first read (GradioMismatch first if
    the installed Gradio is not the one this patch was written for)."""
    if SessionState.__init__ is not _lazy_init:
        check()
        SessionState.__init__ = _lazy_init  # type: ignore[method-assign]
    _LAZY.add(demo)


def _lazy_init(self: SessionState, blocks: Blocks) -> None:
    """Gradio 6.31's SessionState.__init__, with ``config_values`` built on first read."""
    if blocks not in _LAZY:
        gradio_init(self, blocks)
        return
    self.blocks_config = copy(blocks.default_config)
    self.config_values = LazyConfigs(  # type: ignore[assignment]
        {k: v for k, v in self.blocks_config.blocks.items() if k in blocks.blocks}
    )
    self.state_data = {}
    self._state_ttl = {}
    self.is_closed = False
    self.STATE_TTL_WHEN_CLOSED = STATE_TTL_WHEN_CLOSED_S


class LazyConfigs(MutableMapping[int, Any]):
    """A session's ``config_values``: block id -> its config, as the dict Gradio builds, each
    config what ``BlocksConfig.config_for_block`` builds from the session's first block of that
    id, when it is first read (``_config_of``). Keys, their order, ``in`` and what a set
    replaces are the dict's.
    """

    __slots__ = ("_items",)

    def __init__(self, blocks: dict[int, Block]) -> None:
        # A Block is a config not built yet; a config is a dict.
        self._items: dict[int, Any] = blocks

    def __getitem__(self, key: int) -> Any:
        value = self._items[key]
        if isinstance(value, Block):
            with _BUILD:
                value = self._items[key]
                if isinstance(value, Block):  # nobody built it meanwhile
                    value = _config_of(key, value)
                    self._items[key] = value  # a key that exists: no iteration is disturbed
        return value

    def __setitem__(self, key: int, value: Any) -> None:
        with _BUILD:
            self._items[key] = value

    def __delitem__(self, key: int) -> None:
        with _BUILD:
            del self._items[key]

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[int]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def built(self) -> int:
        """How many configs have been built or set so far."""
        return sum(not isinstance(v, Block) for v in list(self._items.values()))
