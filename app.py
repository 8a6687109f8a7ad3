"""A benchmark's leaderboard Space: Leaderboard, Score and About.

The benchmark comes from its spec (``benchmarks/<id>/benchmark.toml``, chosen by
``LEADERBOARD_BENCHMARK``): this module knows none. ``build_page`` assembles the page from the
spec and what ``ledger`` loaded for each track (``build_demo``: one track); nothing here touches
the network or reads data at import.
``python app.py`` (or ``make run``) serves it on http://127.0.0.1:7860, or where
``GRADIO_SERVER_NAME``/``GRADIO_SERVER_PORT`` say.

Example::

    config = ledger.load_config()
    demo = build_from_config(config)  # every track of the benchmark, a switch between them
    demo.queue(default_concurrency_limit=8).launch(**launch_kwargs())
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import gradio as gr
import gradio.queueing
import gradio.routes
from starlette.middleware import Middleware

import ledger
from errors import LeaderboardError
from guard import (
    MAX_FILE_SIZE,
    MAX_UPLOAD_BYTES,
    BodyLimit,
    ScoreLimiter,
    log_refusals_briefly,
    queue_limits,
    score_limits,
    uploads,
)
from spec import Benchmark, Track
from web.board_page import build_board_tab
from web.score_page import build_score_tab, rows_noun
from web.served import Served

SESSION_CAPACITY = 1000  # Gradio keeps ~80 kB per session: every API call is a new one
UPLOAD_SUFFIXES = (".json",)  # the page's one file input takes submissions only


#: The header's links, in this order, for those a spec gives.
LINK_LABELS = {"paper": "Paper", "project": "Project page", "code": "Code", "data": "Data"}

#: The page's style, a file of its own (read when the page is launched, not at import).
CSS_PATH = Path(__file__).with_name("web") / "page.css"


#: Gradio's status tracker tells screen readers an event finished with the message
#: "common.complete", which its English messages lack: a screen reader would say the key.
STATUS_MESSAGES = gr.I18n(en={"common.complete": "Done"})

#: Style outside the page's blocks, which Gradio's ``css`` cannot reach (it scopes every rule
#: to the blocks): the page's side margins on a phone.
HEAD = """<style>@media (max-width: 640px) { .gradio-container > .app {
  padding-left: 10px !important; padding-right: 10px !important; } }</style>"""


def theme() -> gr.themes.Base:
    """Soft in indigo, its indigo-500 text and fills one shade darker: 500 on white, on
    indigo-100 or under white text falls short of 4.5:1 (WCAG AA, axe's color-contrast)."""
    return gr.themes.Soft(primary_hue="indigo").set(
        color_accent="*primary_600",  # the selected tab's text
        block_label_text_color="*primary_600",
        block_title_text_color="*primary_600",
        checkbox_label_background_fill_selected="*primary_600",  # a selected radio
        button_primary_background_fill="*primary_600",
        button_primary_background_fill_hover="*primary_700",
        body_text_color_subdued="*neutral_500",  # "- or -", the footer
    )


def app_logger(bench: Benchmark) -> logging.Logger:
    """The app's log, named by the benchmark ("egomemreason.app")."""
    return logging.getLogger(f"{bench.id}.app")


# --- the page's texts (pure) --------------------------------------------------------------------


def header_markdown(bench: Benchmark) -> str:
    """The title, the spec's description and the links it gives."""
    given = bench.links.model_dump()
    links = " · ".join(
        f"[{label}]({given[name]})" for name, label in LINK_LABELS.items() if given.get(name)
    )
    return f"# {bench.title} Leaderboard\n{bench.description}" + (f" {links}" if links else "")


def demo_banner(bench: Benchmark) -> str:
    return (
        "**Demo mode.** This Space runs on a *synthetic* answer key and a demo board: scores "
        f"here are not {bench.title} results. Configure the real key and board as the "
        "README says."
    )


# --- the page -----------------------------------------------------------------------------------


def build_demo(
    bench: Benchmark,
    track: Track,
    keys: Callable[[], ledger.KeyStatus],
    board: ledger.BoardCache,
    limiter: ScoreLimiter,
    clock: Callable[[], float] = time.time,
) -> gr.Blocks:
    """The whole page of one track of ``bench`` (``build_page`` with that track alone).

    ``keys`` gives the current answer key of ``track`` (ledger.KeyLoader retries one that
    failed at boot); ``board`` is the track's board.
    """
    return build_page(bench, [Served(track, keys, board)], limiter, clock)


def build_page(
    bench: Benchmark,
    served: Sequence[Served],
    limiter: ScoreLimiter,
    clock: Callable[[], float] = time.time,
) -> gr.Blocks:
    """The whole page of ``bench``'s ``served`` tracks; every handler is safe for anyone to
    call (hiding is not access control). LayoutError if a spec's board cannot be laid out.

    With one track the page has no track switch. With several, the Leaderboard's Track radio
    (``#board-track``) switches the board, its column groups and its chart between them;
    Score's (``#score-track``) says which track a file is for, or leaves it to the file's
    entries (``DETECT``); ``/score`` takes the file and that track; ``/leaderboard`` gives the
    first track's board and ``/leaderboard_<track id>`` each track's. A track whose key is
    unavailable disables Score for that track alone.
    """
    log = app_logger(bench)
    boot = [s.keys() for s in served]
    about = bench.about_path.read_text(encoding="utf-8")
    citation = bench.citation_path.read_text(encoding="utf-8")
    demo: gr.Blocks
    # No delete_cache: Gradio's cleanup dies under a burst of uploads; uploads.UploadCache
    # cleans the folder instead (launch_kwargs).
    with gr.Blocks(title=f"{bench.title} Leaderboard") as demo:
        gr.Markdown(header_markdown(bench), elem_id="title")
        shown_demo = any(status.demo for status in boot)
        gr.Markdown(
            demo_banner(bench) if shown_demo else "", elem_id="demo-banner", visible=shown_demo
        )
        with gr.Tabs():
            with gr.Tab("Leaderboard", id="leaderboard"):
                build_board_tab(demo, bench, served, clock)
            with gr.Tab("Score", id="score"):
                build_score_tab(demo, bench, served, limiter, log)
            with gr.Tab("About", id="about"):
                gr.Markdown(about, elem_id="about-text")
                gr.Markdown("## Citation")
                gr.Code(
                    citation,
                    language=None,
                    interactive=False,
                    label="BibTeX",
                    wrap_lines=True,
                    elem_id="citation",
                )
    return demo


def launch_kwargs(cache: uploads.UploadCache | None = None) -> dict[str, Any]:
    """How ``launch()`` serves the page: upload and body limits, the upload cache and its
    cleanup (``cache``, by default as ``upload_policy()`` says), the queue's bounds
    (queue_limits), sessions kept, theme, style, and no monitoring dashboard (Gradio's
    /monitoring is open to anyone)."""
    cache = cache or uploads.UploadCache(upload_policy())
    return {
        "max_file_size": MAX_FILE_SIZE,
        "state_session_capacity": SESSION_CAPACITY,
        "ssr_mode": False,
        "theme": theme(),
        "css": CSS_PATH.read_text(encoding="utf-8"),
        "head": HEAD,
        "footer_links": ["api"],
        "enable_monitoring": False,
        "i18n": STATUS_MESSAGES,
        "app_kwargs": {
            "middleware": [Middleware(BodyLimit), cache.middleware()],
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


def upload_policy(environ: Mapping[str, str] | None = None) -> uploads.CachePolicy:
    """What the upload cache takes: one submission file per upload, kept as the
    LEADERBOARD_UPLOAD_* variables say (uploads.cache_policy)."""
    return uploads.cache_policy(environ, max_file_bytes=MAX_UPLOAD_BYTES, suffixes=UPLOAD_SUFFIXES)


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
        served.append(Served(track, keys, board))
    if len(refused) == len(bench.tracks):
        raise refused[0]
    return build_page(bench, served, ScoreLimiter(limits))


def main() -> int:
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)  # no request lines in the log
    # uvicorn trusts X-Forwarded-For from loopback by default, which would let a local client
    # pick its own address for the score limit; the Space's proxy address is read explicitly.
    os.environ["FORWARDED_ALLOW_IPS"] = ""
    try:
        config = ledger.load_config()
        cache = uploads.UploadCache(upload_policy())
        # The cleanup deletes whatever is old in the upload folder: it must be this app's
        # alone. Made before any block is built: each reads it once.
        uploads.private_upload_folder()
        demo = build_from_config(config)
    except LeaderboardError as exc:
        # A configuration mistake is one line that names the variable, not a traceback.
        print(f"error: {exc}", file=sys.stderr)
        return 1
    log_refusals_briefly(app_logger(config.benchmark))
    demo.queue(default_concurrency_limit=8).launch(**launch_kwargs(cache))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
