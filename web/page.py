"""The page of a benchmark's Space, its presentation: header, tabs, theme and style.

``build_page`` assembles the page from the spec and what ``ledger`` loaded for each track: the
title and links (``header_markdown``), the demo banner, then the Leaderboard (board.page),
Score (score_page) and About tabs; ``build_demo`` is the page of one track. ``theme()``,
``HEAD``, ``CSS_PATH`` (``page.css``) and ``STATUS_MESSAGES`` are what app.launch_kwargs
hands ``launch()``. Nothing here touches the network or reads data at import.

Example:

>>> import evaluator, ledger, spec
>>> from guard import ScoreLimiter, ScoreLimits
>>> bench = spec.load_benchmark("egomemreason")
>>> track = bench.track()
>>> key = evaluator.load_answer_key(track, bench.demo_key(track).read_bytes())
>>> status = ledger.KeyStatus(key, "synthetic demo key", demo=True, error=None)
>>> board = ledger.BoardCache(ledger.LocalStore(bench.demo_board), bench, track)
>>> demo = build_page(bench, [Served(track, lambda: status, board)], ScoreLimiter(ScoreLimits()))
>>> demo.title
'EgoMemReason Leaderboard'
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import quote

import gradio as gr
from gradio.utils import get_upload_folder

import ledger
from evaluator import kind_of
from guard import ScoreLimiter, sessions
from guard.upload_cache import APP_FILES
from spec import Benchmark, Track, about_text, citation_text
from web.board.page import REMEASURE_JS, build_board_tab
from web.score_page import build_score_tab
from web.served import Served
from web.text import md_escape

#: The header's links, in this order, for those a spec gives.
LINK_LABELS = {"paper": "Paper", "project": "Project page", "code": "Code", "data": "Data"}
#: What a link target keeps as it is: the URL syntax characters that cannot end a Markdown link
#: or an attribute (the spec refuses the others too: spec.links; this is the second fence).
_URL_KEPT = ";/?:@&=+$,#%~!*-._"

#: The page's style, a file of its own (read when the page is launched, not at import).
CSS_PATH = Path(__file__).with_name("page.css")


#: Gradio's status tracker tells screen readers an event finished with the message
#: "common.complete", which its English messages lack: a screen reader would say the key.
STATUS_MESSAGES = gr.I18n(en={"common.complete": "Done"})

#: Style outside the page's blocks, which Gradio's ``css`` cannot reach (it scopes every rule
#: to the blocks, and drops the at-rules it does not know, ``@container`` among them): the
#: page's side margins on a phone, and the board's scroll cue, shown while its frame scrolls
#: sideways (board.table.SCROLL_CUE).
HEAD = """<style>@media (max-width: 640px) { .gradio-container > .app {
  padding-left: 10px !important; padding-right: 10px !important; } }
@container scroll-state(scrollable: x) {
  #board-table .scroll-cue {display: block !important;} }</style>"""


def theme() -> gr.themes.Base:
    """Soft in indigo, every text at WCAG AA's contrast (4.5:1) in both themes: in light, its
    indigo-500 text and fills one shade darker (500 on white, on indigo-100 or under white text
    falls short), in dark, its indigo links two shades lighter (500 on the near-black page falls
    short; the selected tab's text, ``color_accent``, has no dark setting: page.css), and the
    placeholders' grey darker on white, lighter on a dark field (tests/app/test_accessibility.py
    computes every text's contrast in both themes)."""
    return gr.themes.Soft(primary_hue="indigo").set(
        color_accent="*primary_600",  # the selected tab's text
        block_label_text_color="*primary_600",
        block_title_text_color="*primary_600",
        checkbox_label_background_fill_selected="*primary_600",  # a selected radio
        button_primary_background_fill="*primary_600",
        button_primary_background_fill_hover="*primary_700",
        body_text_color_subdued="*neutral_500",  # "- or -", the footer
        link_text_color_visited="*secondary_600",  # 500 on white: 4.47:1
        link_text_color_dark="*secondary_400",
        link_text_color_visited_dark="*secondary_400",
        link_text_color_active_dark="*secondary_400",
        link_text_color_hover_dark="*secondary_300",
        input_placeholder_color="*neutral_500",
        input_placeholder_color_dark="*neutral_300",
    )


def app_logger(bench: Benchmark) -> logging.Logger:
    """The app's log, named by the benchmark ("egomemreason.app")."""
    return logging.getLogger(f"{bench.id}.app")


# --- the page's texts (pure) --------------------------------------------------------------------


def header_markdown(bench: Benchmark) -> str:
    """The title, the spec's description and the links it gives."""
    given = bench.links.model_dump()
    links = " · ".join(
        f"[{label}]({quote(given[name], safe=_URL_KEPT)})"
        for name, label in LINK_LABELS.items()
        if given.get(name)
    )
    return f"# {bench.title} Leaderboard\n{bench.description}" + (f" {links}" if links else "")


def board_origin(bench: Benchmark, board: ledger.BoardCache) -> str:
    """Which board the page shows, as a visitor may read it: never a local path."""
    store = board.store
    if isinstance(store, ledger.LocalStore):
        if store.root.resolve() == bench.demo_board.resolve():
            return "the demo board shipped with it"
        return "a local records folder"
    if isinstance(store, ledger.HubStore):
        return f"the records dataset {md_escape(store.repo_id)}"
    return "its configured board"


def demo_banner(bench: Benchmark, status: ledger.KeyStatus, board: str) -> str:
    """The demo banner: which key Score uses (the shipped demo key, by version) and which
    ``board`` is shown, so a visitor knows what the numbers are."""
    version = status.key.key_version if status.key is not None else None
    which = f" (key version {md_escape(version)})" if version else ""
    return (
        f"**Demo mode.** Score uses the *synthetic* demo key shipped with {bench.title}{which}, "
        f"not its answer key, and the board is {board}: scores here are not {bench.title} "
        "results. Configure the real key and board as the README says."
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


def about_markdown(bench: Benchmark) -> str:
    """The About tab's text: the benchmark's about.md, then what each track's kind writes of
    how it scores, from its spec (``Kind.about``: a short-answer track's rules), under a
    heading of its own."""
    parts = [about_text(bench).rstrip()]
    for track in bench.tracks:
        body = kind_of(track).about(track).strip()
        if body:
            parts.append(f"## How {md_escape(track.title)} scores a response\n\n{body}")
    return "\n\n".join(parts) + "\n"


def own_files() -> Path:
    """The folder of the app's own files (the board's downloads): ``APP_FILES`` in Gradio's
    upload folder as it is when the page is built, where Gradio serves a file in place and the
    upload cache's sweep never enters (guard.upload_cache)."""
    return Path(get_upload_folder()).resolve() / APP_FILES


def build_page(
    bench: Benchmark,
    served: Sequence[Served],
    limiter: ScoreLimiter,
    clock: Callable[[], float] = time.time,
) -> gr.Blocks:
    """The whole page of ``bench``'s ``served`` tracks; every handler is safe for anyone to
    call (hiding is not access control). LayoutError if a spec's board cannot be laid out;
    GradioMismatch if the installed Gradio is not the one guard.sessions was written for (its
    sessions build each block's config on first use: every API call is a new session).

    With one track the page has no track switch. With several, the Leaderboard's Track radio
    (``#board-track``) switches the board, its column groups and its chart between them;
    Score's (``#score-track``) says which track a file is for, or leaves it to the file's
    entries (``DETECT``); ``/score`` takes the file and that track; ``/leaderboard`` gives the
    first track's board and ``/leaderboard_<track id>`` each track's. A track whose key is
    unavailable disables Score for that track alone.
    """
    log = app_logger(bench)
    boot = [s.keys() for s in served]
    about, citation = about_markdown(bench), citation_text(bench)  # regular files, bounded
    demo: gr.Blocks
    # No delete_cache: Gradio's cleanup dies under a burst of uploads; uploads.UploadCache
    # cleans the folder instead (launch_kwargs).
    with gr.Blocks(title=f"{bench.title} Leaderboard") as demo:
        gr.Markdown(header_markdown(bench), elem_id="title")
        shown = next(((s, st) for s, st in zip(served, boot, strict=True) if st.demo), None)
        gr.Markdown(
            demo_banner(bench, shown[1], board_origin(bench, shown[0].board)) if shown else "",
            elem_id="demo-banner",
            visible=shown is not None,
        )
        with gr.Tabs() as tabs:
            with gr.Tab("Leaderboard", id="leaderboard"):
                build_board_tab(demo, bench, served, clock, own_files())
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
        tabs.select(None, js=REMEASURE_JS, api_visibility="private")  # charts drawn while hidden
    sessions.lazy(demo)
    return demo
