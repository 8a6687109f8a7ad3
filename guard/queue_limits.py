"""Bounds on what Gradio's queue keeps per event: finding 7 of the security review.

Every ``/gradio_api/call/<api>`` request is an event of a new session, and Gradio 6.31 keeps
per session an ``asyncio.Queue`` of its messages, result included, until a reader takes it,
in an LRU of 2,000 sessions (``Queue.pending_messages_per_session``), plus the set of its
event ids (``pending_event_ids_session``, never emptied for a result nobody reads, so it
grows without bound). The queue of waiting events has no size limit. When more than 2,000
sessions wait, the LRU evicts the oldest one even if its event is still queued; the queue's
processing task then dies of a KeyError in ``send_message`` and every later event is answered
503 "Queue is stopped": the server holds all it had (~660 MB after 5,000 unread calls) and
serves nothing until restarted. Here instead:

- ``MAX_QUEUED`` events wait at most; more are answered 503 "Queue is full" at once (Gradio's
  own ``max_size``).
- ``SessionMessages`` replaces the LRU: a new session evicts the oldest sessions with no event
  queued or running (their unread results and event ids with them) until fewer than
  ``MAX_IDLE`` such are left. A session whose event is queued or running is never evicted, so
  the processing task cannot die of it; there are at most MAX_QUEUED of those plus the
  running ones, so the map holds at most MAX_IDLE + MAX_QUEUED + running sessions.
- ``ANALYTICS_EVENTS``: the per-event records Gradio keeps for its monitoring dashboard (off
  here, ``enable_monitoring=False``) and turns into a DataFrame after every event.

Example (app.launch_kwargs does it at startup, before any event):

>>> import gradio as gr
>>> with gr.Blocks() as demo:
...     _ = gr.Markdown("a page")
>>> _ = demo.queue(default_concurrency_limit=8)
>>> bound(demo._queue)
>>> demo._queue.max_size, type(demo._queue.pending_messages_per_session).__name__
(256, 'SessionMessages')
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from gradio.utils import LRUCache

MAX_QUEUED = 256  # events waiting to run; more are answered 503 "Queue is full" at once
MAX_IDLE = 256  # sessions kept with no event queued or running, each with its unread messages
ANALYTICS_EVENTS = 100  # per-event records for the (disabled) monitoring dashboard


class SessionMessages(LRUCache[str, Any]):
    """Gradio's per-session message queues, evicting only sessions with no event queued or
    running ("idle"), oldest first, when a new session comes and ``max_idle`` are reached.

    A drop-in for ``Queue.pending_messages_per_session`` (an OrderedDict with ``max_size``);
    used on the event loop only, as Gradio uses the one it replaces.
    """

    def __init__(self, queue: Any, max_idle: int = MAX_IDLE) -> None:
        super().__init__(max_idle)
        self._queue = queue
        self._inserts = 0

    def __setitem__(self, key: str, value: Any) -> None:
        if key in self:
            self.move_to_end(key)
        else:
            self._inserts += 1
            if len(self) >= self.max_size or self._inserts >= self.max_size:
                self._evict_idle(key)
        OrderedDict.__setitem__(self, key, value)

    def live_sessions(self) -> set[str]:
        """Sessions with an event queued or running (Gradio drops an event from
        ``event_ids_to_events`` after its last message is sent)."""
        return {event.session_hash for event in list(self._queue.event_ids_to_events.values())}

    def _evict_idle(self, coming: str) -> None:
        live = self.live_sessions() | {coming}
        ids = self._queue.pending_event_ids_session
        if len(self) >= self.max_size:
            idle = [key for key in self if key not in live]
            for key in idle[: max(0, len(idle) - self.max_size + 1)]:
                OrderedDict.__delitem__(self, key)
                ids.pop(key, None)
        if self._inserts >= self.max_size:  # now and then: event ids of sessions Gradio
            self._inserts = 0  # deleted itself (a reader that went away), never emptied
            for key in [k for k in ids if k not in self and k not in live]:
                del ids[key]


def bound(
    queue: Any,
    max_queued: int = MAX_QUEUED,
    max_idle: int = MAX_IDLE,
    analytics_events: int = ANALYTICS_EVENTS,
) -> None:
    """Apply the bounds to a Gradio ``Queue`` before it serves: a waiting-event limit if it
    has none, ``SessionMessages`` holding what the old LRU held, fewer analytics records."""
    if queue.max_size is None:
        queue.max_size = max_queued
    if not isinstance(queue.pending_messages_per_session, SessionMessages):
        messages = SessionMessages(queue, max_idle)
        for key, value in queue.pending_messages_per_session.items():
            OrderedDict.__setitem__(messages, key, value)
        queue.pending_messages_per_session = messages
    queue.ANALYTICS_MAX_EVENTS = min(queue.ANALYTICS_MAX_EVENTS, analytics_events)
