"""What protects the Space from its visitors, one module each:

- ``guard.limits``: a score limit per client (``ScoreLimiter``, ``score_limits``);
- ``guard.clients``: who a client is behind the Space's proxy (``client_address``);
- ``guard.body``: bounded request bodies (``BodyLimit``, ``MAX_FILE_SIZE``, ``UPLOAD_ROUTE``);
- ``guard.refusals``: brief log lines for refused payloads (``log_refusals_briefly``);
- ``guard.routes``: events start only through the queue, and a request naming no event is
  a 404 and one line of log (``EventRoutes``);
- ``guard.closed_routes``: Gradio's routes that write files or fetch for a visitor (deep
  links, the screen recorder, files by URL), answered 404 (``ClosedRoutes``);
- ``guard.headers``: ``X-Content-Type-Options: nosniff`` on every answer (``NoSniff``);
- ``guard.upload_cache`` and ``guard.uploads``: Gradio's upload cache, bounded and cleaned,
  and the guard of its route (``UploadCache``);
- ``guard.event_shares``: each client's share of the events it starts and of its GETs
  (``EventShare``);
- ``guard.queue_limits``: bounds on what Gradio's queue keeps per event;
- ``guard.upload_progress``: Gradio's upload progress, bounded (``ProgressIds``, ``install``);
- ``guard.temp_folders``: the app's own temporary folders, removed when it stops;
- ``guard.optional_inputs``: an API's last input left out over raw HTTP takes its default, as
  gradio_client fills it (``optional_last_input``);
- ``guard.sessions``: what Gradio builds for each new session (every API call is one), built
  on first use (``lazy``, pinned to the installed Gradio's ``SessionState``);
- ``guard.heap``: memory a big file took comes back after it, and the objects built at boot
  are left out of garbage collections (``return_memory``, ``freeze_boot``).

Every event handler is reachable by anyone (hiding an event is not access control), so these
are the app's only defences besides the evaluator's own validation; none of them knows a
benchmark. The names below are the package's interface (``guard.uploads``,
``guard.queue_limits`` and ``guard.sessions`` are used as modules).
"""

from guard.body import (
    MAX_FILE_SIZE,
    MAX_REQUEST_BYTES,
    MAX_UPLOAD_BODY,
    MAX_UPLOAD_BYTES,
    UPLOAD_ROUTE,
    BodyLimit,
)
from guard.clients import INTERNAL_NETWORKS, Address, client_address, forwarded_summary
from guard.limits import ScoreLimiter, ScoreLimits, score_limits
from guard.refusals import MAX_TRACEBACK_CHARS, RefusalLog, log_refusals_briefly
from guard.routes import EventRoutes
from guard.upload_progress import ProgressIds

__all__ = [
    "INTERNAL_NETWORKS",
    "MAX_FILE_SIZE",
    "MAX_REQUEST_BYTES",
    "MAX_TRACEBACK_CHARS",
    "MAX_UPLOAD_BODY",
    "MAX_UPLOAD_BYTES",
    "UPLOAD_ROUTE",
    "Address",
    "BodyLimit",
    "EventRoutes",
    "ProgressIds",
    "RefusalLog",
    "ScoreLimiter",
    "ScoreLimits",
    "client_address",
    "forwarded_summary",
    "log_refusals_briefly",
    "score_limits",
]
