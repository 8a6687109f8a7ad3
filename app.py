"""A benchmark's leaderboard Space, its edge: the configured page, served.

The benchmark comes from its spec (``benchmarks/<id>/benchmark.toml``, chosen by
``LEADERBOARD_BENCHMARK``): this module knows none. ``build_from_config`` loads each track's key
and board as the configuration says and hands them to ``web.page.build_page`` (the page's
presentation; ``build_demo``: one track, both importable from here); ``launch_kwargs`` says how
``launch()`` serves it (limits, the upload cache, theme and style). Nothing here touches the
network or reads data at import.
``python app.py`` (or ``make run``) serves it on http://127.0.0.1:7860, or where
``GRADIO_SERVER_NAME``/``GRADIO_SERVER_PORT`` say.

Example (``main`` then serves it: ``demo.queue(default_concurrency_limit=8)
.launch(**launch_kwargs(config))``):

>>> config = ledger.load_config({"LEADERBOARD_BENCHMARK": "egoargus"})
>>> demo = build_from_config(config)
>>> demo.title, launch_kwargs(config)["max_file_size"]
('EgoArgus Leaderboard', '5mb')
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import gradio as gr
from starlette.middleware import Middleware

import ledger
from errors import LeaderboardError
from guard import (
    MAX_FILE_SIZE,
    MAX_UPLOAD_BYTES,
    BodyLimit,
    EventRoutes,
    ProgressIds,
    ScoreLimiter,
    event_shares,
    heap,
    log_refusals_briefly,
    queue_limits,
    score_limits,
    temp_folders,
    upload_progress,
    uploads,
)
from guard.clients import ClientIdentity, client_identity
from guard.closed_routes import ClosedRoutes
from guard.headers import NoSniff
from web.page import (
    CSS_PATH,
    HEAD,
    STATUS_MESSAGES,
    app_logger,
    build_demo,
    build_page,
    theme,
)
from web.score_page import rows_noun
from web.served import Served

#: What the tests, perf/ and the Space's runner use of this module (the page's assembly lives in
#: web.page; build_demo, build_page and app_logger are given here too).
__all__ = [
    "SESSION_CAPACITY",
    "app_logger",
    "build_demo",
    "build_from_config",
    "build_page",
    "launch_kwargs",
    "main",
    "upload_policy",
]

SESSION_CAPACITY = 1000  # Gradio keeps ~80 kB per session: every API call is a new one


def launch_kwargs(
    config: ledger.Config,
    cache: uploads.UploadCache | None = None,
    clients: ClientIdentity | None = None,
    events: event_shares.EventPolicy | None = None,
) -> dict[str, Any]:
    """How ``launch()`` serves the page ``config`` configures: each client's share of the
    events (``events``, by default as ``config`` says: the LEADERBOARD_EVENT_* variables) and of
    the upload cache, clients told apart as ``clients`` says (by default as ``config`` says:
    the peer address off a Space), upload and body limits, the upload cache and its cleanup
    (``cache``, by default as ``upload_policy(config)`` says), the queue's bounds
    (queue_limits), the upload progress Gradio keeps (guard.upload_progress), sessions kept,
    theme, style, no monitoring dashboard (Gradio's /monitoring is open to anyone), no run
    history, Gradio's routes that write files or fetch for a visitor closed
    (guard.closed_routes), and nosniff on every answer (guard.headers)."""
    cache = cache or uploads.UploadCache(upload_policy(config))
    clients = clients or client_identity(config)
    policy = events or event_shares.event_policy(config)
    shares = event_shares.event_share(policy, clients)  # first: a flood is refused unread
    return {
        "max_file_size": MAX_FILE_SIZE,
        "state_session_capacity": SESSION_CAPACITY,
        "ssr_mode": False,
        "theme": theme(),
        "css": CSS_PATH.read_text(encoding="utf-8"),
        "head": HEAD,
        "footer_links": ["api"],
        "enable_monitoring": False,
        "run_history": False,  # nothing of a visitor's call recorded (guard.closed_routes)
        "i18n": STATUS_MESSAGES,
        "app_kwargs": {
            "middleware": [
                Middleware(NoSniff),
                Middleware(ClosedRoutes),
                shares,
                Middleware(ProgressIds, upload_progress.install()),
                Middleware(BodyLimit),
                Middleware(EventRoutes),
                cache.middleware(clients),
            ],
            "lifespan": functools.partial(_serving, cache),
        },
    }


@contextlib.asynccontextmanager
async def _serving(cache: uploads.UploadCache, server: Any) -> AsyncIterator[None]:
    """While the server runs: Gradio's queue within queue_limits' bounds (set before the first
    event), the upload cache cleaned."""
    queue_limits.bound(server.get_blocks()._queue)
    async with cache.lifespan(server):
        yield


def upload_policy(config: ledger.Config) -> uploads.CachePolicy:
    """What the upload cache takes: one file per upload, of a submission's size at most and
    of any name (Score reads a file by its bytes, and refuses one that is neither JSON nor JSON
    Lines in words gradio_client shows, which the upload route's could not), kept as
    ``config`` says: the LEADERBOARD_UPLOAD_* variables (uploads.cache_policy)."""
    return uploads.cache_policy(config, max_file_bytes=MAX_UPLOAD_BYTES)


def build_from_config(config: ledger.Config) -> gr.Blocks:
    """The page of the configured benchmark: every track, each with its key and its board
    loaded as ``config`` says. A track whose local key cannot be used disables Score for that
    track alone (with one track, or when no track's can be used, it stops the boot)."""
    bench = config.benchmark
    log = app_logger(bench)
    limits = score_limits(config)
    many = len(bench.tracks) > 1
    served, refused = [], []
    for track in bench.tracks:
        try:
            keys: Callable[[], ledger.KeyStatus] = ledger.KeyLoader(config, track)
        except ledger.ConfigError as exc:
            if not many:
                raise
            refused.append(exc)
            keys = functools.partial(
                ledger.KeyStatus, None, "LEADERBOARD_ANSWER_KEY", False, str(exc)
            )
        key_status = keys()
        which = f" of {track.title}" if many else ""
        if key_status.key is None:
            log.warning("Score%s is disabled until the key loads: %s", which, key_status.error)
        else:
            log.info(
                "answer key%s: %d %s from %s",
                which,
                len(key_status.key),
                rows_noun(track),
                key_status.origin,
            )
        board = ledger.BoardCache(
            ledger.board_store(config), bench, track, ttl_s=config.cache_ttl_s
        )
        hub = hub_results(config, log) if track is bench.tracks[0] else None
        served.append(Served(track, keys, board, hub))
    if len(refused) == len(bench.tracks):
        raise refused[0]
    return build_page(bench, served, ScoreLimiter(limits))


def hub_results(config: ledger.Config, log: logging.Logger) -> ledger.HubResultsCache | None:
    """The Hub's own results for the benchmark's dataset, when its spec shows them
    (``hub.show_hub_results``) and the board is not the demo's; beside the first track, as
    the Hub's leaderboard API gives one list, its first task's."""
    hub = config.benchmark.hub
    if not hub.show_hub_results or hub.dataset is None:
        return None
    if config.demo:
        log.info("the Hub's results for %s are not shown in demo mode", hub.dataset)
        return None
    log.info("the Hub's results for %s are shown beside the board, unverified", hub.dataset)
    return ledger.HubResultsCache(
        hub.dataset,
        endpoint=config.endpoint,
        token=config.token,
        ttl_s=config.cache_ttl_s,
        site=config.hub_name,
    )


def main() -> int:
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)  # no request lines in the log
    heap.return_memory()  # before any thread starts
    # uvicorn trusts X-Forwarded-For from loopback by default, which would let a local client
    # pick its own address for the score limit; the Space's proxy address is read explicitly.
    os.environ["FORWARDED_ALLOW_IPS"] = ""
    try:
        config = ledger.load_config()  # every variable, read once
        cache = uploads.UploadCache(upload_policy(config))
        # The cleanup deletes whatever is old in the upload folder: it must be this app's
        # alone. Set before any block is built: each reads GRADIO_TEMP_DIR once. One the app
        # made is removed when it stops (SIGTERM stops it as Ctrl-C does): nothing is stored.
        folder = uploads.private_upload_folder(config.upload_folder)
        os.environ["GRADIO_TEMP_DIR"] = str(folder)
        if config.upload_folder is None:
            temp_folders.owned(folder)
        temp_folders.stop_on_sigterm()
        demo = build_from_config(config)
    except LeaderboardError as exc:
        # A configuration mistake is one line that names the variable, not a traceback.
        print(f"error: {exc}", file=sys.stderr)
        return 1
    log_refusals_briefly(app_logger(config.benchmark))
    serve(demo, config, cache)
    return 0


def serve(demo: gr.Blocks, config: ledger.Config, cache: uploads.UploadCache | None = None) -> None:
    """Serve ``demo`` as the Space is served, until Ctrl-C or SIGTERM: what the process holds
    now (the page, its keys and boards) left out of every garbage collection, then Gradio's
    queue and ``launch_kwargs``. ``make bench``'s servers (perf/) are served so too, after
    ``heap.return_memory()`` as ``main`` calls it, before any thread starts."""
    heap.freeze_boot()  # the page, keys and boards: no collection walks them again
    try:
        demo.queue(default_concurrency_limit=8).launch(
            **launch_kwargs(config, cache), prevent_thread_lock=True
        )
        demo.block_thread()  # returns on Ctrl-C or SIGTERM, the server closed
    except KeyboardInterrupt:
        # Landed before block_thread waited (launch() still finishing after the server
        # answers): a stop all the same, not a traceback and exit -2.
        demo.close()


if __name__ == "__main__":
    raise SystemExit(main())
