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
import hashlib
import json
import logging
import os
import shutil
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import gradio as gr
import gradio.queueing
import gradio.routes
import pandas as pd
from gradio.components.plot import PlotData
from starlette.middleware import Middleware

import ledger
import queue_limits
import uploads
from board_view import (
    DEFAULT_WIDTH,
    EXTERNAL_CHOICES,
    FILTER_LABELS,
    MAX_PICKS,
    MAX_SEARCH_CHARS,
    NOT_REPORTED,
    SIZE_BUCKETS,
    SOURCE_LABELS,
    BadInput,
    board_filter,
    board_frame,
    board_layout,
    export_csv,
    export_rows,
    formatted,
    listed,
    md_escape,
    quoted,
    visible_columns,
)
from charts import chart_axis, chart_groups, chart_keys, split_chart
from guard import (
    MAX_FILE_SIZE,
    MAX_UPLOAD_BYTES,
    BodyLimit,
    ScoreLimiter,
    log_refusals_briefly,
    score_limits,
)
from score_page import build_score_tab, rows_noun
from served import Served
from spec import AnyTrack, Benchmark, Track

SESSION_CAPACITY = 1000  # Gradio keeps ~80 kB per session: every API call is a new one
UPLOAD_SUFFIXES = (".json",)  # the page's one file input takes submissions only


#: The header's links, in this order, for those a spec gives.
LINK_LABELS = {"paper": "Paper", "project": "Project page", "code": "Code", "data": "Data"}

CSS = """
.gradio-container {max-width: 1280px !important; margin: auto; overflow-x: hidden;}
#title h1 {margin-bottom: 0.2rem;}
#demo-banner {background: #fff7e0; border: 1px solid #f0c36d; border-radius: 8px;
  padding: 0.6rem 1rem; color: #5c4400;}
#demo-banner p {margin: 0;}
#board-status {font-size: 0.9rem; opacity: 0.85;}
#score-summary h3 {margin-top: 0;}
.gradio-container, .gradio-container main, .gradio-container .column {min-width: 0 !important;}
#about-text pre, #about-text pre code {white-space: pre-wrap; overflow-wrap: anywhere;}
#about-text table {display: block; overflow-x: auto;}
#about-text th, #about-text td {overflow-wrap: normal; word-break: normal;}
#board-table, #score-table, #board-chart, #score-chart, #citation, #about-text {
  max-width: calc(100vw - 72px); overflow-x: auto;}
#board-table, #score-table {--font-mono: var(--font);}
#board-actions {justify-content: flex-end; gap: 0.5rem;}
#board-chart .vega-embed, #score-chart .vega-embed {width: 100% !important; display: block;}
@media (max-width: 640px) { .gradio-container .main {padding-left: 10px !important;
  padding-right: 10px !important;} }
"""


def app_logger(bench: Benchmark) -> logging.Logger:
    """The app's log, named by the benchmark ("egomemreason.app")."""
    return logging.getLogger(f"{bench.id}.app")


# --- configuration of the app itself ------------------------------------------------------------


# --- the board as a table (pure) ----------------------------------------------------------------


# --- score presentation (pure) ------------------------------------------------------------------


# --- the page's texts (pure) --------------------------------------------------------------------


def header_markdown(bench: Benchmark) -> str:
    """The title, the spec's description and the links it gives."""
    given = bench.links.model_dump()
    links = " · ".join(f"[{label}]({given[name]})" for name, label in LINK_LABELS.items()
                       if given.get(name))
    return f"# {bench.title} Leaderboard\n{bench.description}" + (f" {links}" if links else "")


def demo_banner(bench: Benchmark) -> str:
    return ("**Demo mode.** This Space runs on a *synthetic* answer key and a demo board: scores "
            f"here are not {bench.title} results. Configure the real key and board as the "
            "README says.")


def chart_texts(track: AnyTrack) -> tuple[str, str]:
    """The board chart's heading and title: "### Compare entries per split", "Accuracy per
    split" (per scenario on a decision board)."""
    per = chart_groups(track)
    noun = chart_axis(track)[0].split(" (")[0]
    return f"### Compare entries per {per}", f"{noun} per {per}"


def paper_caption(track: AnyTrack) -> str:
    """Under a board whose paper rows carry columns of their own: where they are, and that they
    are ranked among themselves ("" for a board without such columns)."""
    if not track.paper_metric_keys:
        return ""
    paper = set(track.paper_metric_keys)
    views = [v.title for v in track.views if paper & set(v.metrics)]
    where = f" (the **{md_escape(views[0])}** view)" if views else ""
    return (f"Rows marked *Paper-reported* carry the paper's own columns{where}, not this "
            "Space's, and are ranked among themselves by "
            f"{md_escape(track.labels[track.paper_ranking])}.")


# --- the page -----------------------------------------------------------------------------------


class _Exports:
    """CSV/JSON files of a board view, named by content so identical views share one file."""

    def __init__(self, stem: str) -> None:
        self._stem = stem  # "<benchmark>-leaderboard"
        self._dir = Path(tempfile.mkdtemp(prefix=f"{stem}-exports-"))

    def write(self, rows: list[dict[str, Any]]) -> tuple[str, str]:
        payloads = {"csv": export_csv(rows),
                    "json": json.dumps(rows, indent=1, ensure_ascii=False).encode()}
        digest = hashlib.sha256(payloads["csv"] + payloads["json"]).hexdigest()[:16]
        folder = self._dir / digest
        if not folder.exists():
            self._prune()
            tmp = Path(tempfile.mkdtemp(dir=self._dir))
            for ext, payload in payloads.items():
                (tmp / f"{self._stem}.{ext}").write_bytes(payload)
            try:
                tmp.rename(folder)
            except OSError:  # another request wrote the same view first
                shutil.rmtree(tmp, ignore_errors=True)
        return str(folder / f"{self._stem}.csv"), str(folder / f"{self._stem}.json")

    def _prune(self, keep: int = 64) -> None:
        folders = sorted(self._dir.iterdir(), key=lambda p: p.stat().st_mtime)
        for old in folders[:-keep]:
            shutil.rmtree(old, ignore_errors=True)


def _status_line(snapshot: ledger.BoardSnapshot, now: float) -> str:
    age = snapshot.age_s(now)
    entries = f"{len(snapshot.records)} entries"
    if age is None:
        return f"The leaderboard could not be loaded yet ({snapshot.error or 'no data'})."
    text = f"{entries} · updated {_ago(age)}"
    if snapshot.stale:
        text += (f" · the records source could not be reached ({snapshot.error}); "
                 f"showing the board as of {_ago(age)}")
    return text


def _ago(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 120:
        return f"{seconds} s ago"
    if seconds < 7200:
        return f"{seconds // 60} min ago"
    return f"{seconds // 3600} h ago"



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


def _notes(frame: pd.DataFrame) -> str:
    """The board's notes under it: one line per note, naming the rows that carry it."""
    rows: dict[str, list[str]] = {}
    for name, text in zip(frame["_name"], frame["_note"], strict=True):
        if text:
            rows.setdefault(str(text), []).append(str(name))
    return "  \n".join(f"† **{md_escape(', '.join(names))}**: {md_escape(text)}"
                       for text, names in rows.items())


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
    tracks = {s.track.id: s for s in served}
    first = served[0]
    many = len(served) > 1
    # Fails here, at boot, on a clashing spec.
    layouts = {tid: board_layout(bench, s.track) for tid, s in tracks.items()}
    offered = {title for layout in layouts.values() for title in layout.groups}
    log = app_logger(bench)
    boot = {tid: s.keys() for tid, s in tracks.items()}
    about = bench.about_path.read_text(encoding="utf-8")
    citation = bench.citation_path.read_text(encoding="utf-8")
    exports = {tid: _Exports(f"{bench.id}-{tid}-leaderboard" if many else
                             f"{bench.id}-leaderboard") for tid in tracks}

    def pick(value: object) -> Served:
        """The track an event names (None: the first); BadInput if it names none."""
        if value is None:
            return first
        if not isinstance(value, str) or value not in tracks:
            raise BadInput(f"Track: {quoted(value)} is not one of {listed(list(tracks))}.")
        return tracks[value]

    def picked(value: object) -> Served:
        try:  # before any work: anyone can send any input
            return pick(value)
        except BadInput as exc:
            raise gr.Error(str(exc), print_exception=False) from None

    def current(s: Served) -> tuple[ledger.BoardSnapshot, pd.DataFrame]:
        snapshot = s.board.snapshot()
        status = s.keys()
        current_key = status.key.key_version if status.key is not None else None
        return snapshot, board_frame(snapshot.records, bench, s.track, current_key)

    def view(search: str, sources: list[str], external: list[str], inputs: list[str],
             sizes: list[str], group: str, track_id: str | None = None) -> tuple[Any, ...]:
        try:  # before any work: anyone can send any input
            wanted = board_filter(search, sources, external, inputs, sizes, bench)
            s = pick(track_id)
            layout = layouts[s.track.id]
            # A group of another track's board (a switch under way) shows this one's first.
            if group is not None and (not isinstance(group, str) or group not in offered):
                raise BadInput(f"Column group: {quoted(group)} is not one of "
                               f"{listed(list(layout.groups))}.")
        except BadInput as exc:
            raise gr.Error(str(exc), print_exception=False) from None
        snapshot, frame = current(s)
        chosen = wanted.apply(frame)
        csv_path, json_path = exports[s.track.id].write(
            export_rows(chosen, snapshot.records, s.track))
        notes = _notes(frame)
        if "paper" in set(frame["_source"]) and paper_caption(s.track):
            notes = f"{paper_caption(s.track)}\n\n{notes}"
        if frame.empty:
            notes = "No entries yet. See **About** for how to get listed."
        shown = visible_columns(chosen, group, bench, s.track)
        table_update = gr.Dataframe(
            value=formatted(shown, layout.formats),
            datatype=[layout.datatypes.get(c, "str") for c in shown.columns],
            column_widths=[layout.widths.get(c, DEFAULT_WIDTH) for c in shown.columns])
        return (table_update, _status_line(snapshot, clock()), notes,
                csv_path, json_path)

    def chart(methods: list[str], track_id: str | None = None) -> PlotData:
        methods = methods or []
        if (not isinstance(methods, list) or len(methods) > MAX_PICKS
                or not all(isinstance(m, str) for m in methods)):
            raise gr.Error(f"Compare at most {MAX_PICKS} entries of the board.",
                           print_exception=False)
        s = picked(track_id)
        snapshot = s.board.snapshot()
        by_name = {r.method_name: r for r in snapshot.records}
        picked_rows = [m for m in methods if m in by_name]  # one gone since the page loaded
        return split_chart({m: dict(by_name[m].metrics) for m in picked_rows},
                           chart_texts(s.track)[1], s.track)

    def on_load(track_id: str | None = None) -> tuple[Any, ...]:
        s = picked(track_id)
        snapshot, frame = current(s)
        keys, by_id = chart_keys(s.track), {str(r.id): r for r in snapshot.records}
        # The rows the chart can show: a paper row of other columns has none of its bars.
        names = [by_id[i].method_name for i in frame["_id"]
                 if any(k in by_id[i].metrics for k in keys)]
        top = names[:5]
        if not names:  # an empty board has nothing to compare: no empty chart under it
            hidden = gr.update(visible=False)
            return hidden, hidden, hidden
        return (gr.update(visible=True, value=chart_texts(s.track)[0]),
                gr.update(choices=names, value=top), chart(top, s.track.id))

    def switch(track_id: str | None) -> tuple[Any, ...]:
        """Another track's board: its column groups, its chart (the table follows)."""
        s = picked(track_id)
        groups = list(layouts[s.track.id].groups)
        return (gr.update(choices=groups, value=groups[0]), *on_load(s.track.id))

    def board_api(s: Served) -> Callable[[], list[dict[str, Any]]]:
        def leaderboard() -> list[dict[str, Any]]:
            snapshot, frame = current(s)
            return export_rows(frame, snapshot.records, s.track)

        # The API page shows this as the endpoint's description.
        which = f"The {s.track.title} board" if many else "The whole board"
        leaderboard.__doc__ = (f"{which}, best {layouts[s.track.id].ranking} first: metrics "
                               "unrounded, ranks, counts, links.")
        return leaderboard

    first_layout = layouts[first.track.id]
    demo: gr.Blocks
    # No delete_cache: Gradio's cleanup dies under a burst of uploads; uploads.UploadCache
    # cleans the folder instead (launch_kwargs).
    with gr.Blocks(title=f"{bench.title} Leaderboard") as demo:
        gr.Markdown(header_markdown(bench), elem_id="title")
        shown_demo = any(status.demo for status in boot.values())
        gr.Markdown(demo_banner(bench) if shown_demo else "", elem_id="demo-banner",
                    visible=shown_demo)
        with gr.Tabs():
            with gr.Tab("Leaderboard", id="leaderboard"):
                board_track = gr.Radio(
                    [(s.track.title, s.track.id) for s in served], value=first.track.id,
                    label="Track", elem_id="board-track") if many else None
                status = gr.Markdown(elem_id="board-status")
                with gr.Row(equal_height=True):
                    search = gr.Textbox(placeholder="Search method, team, size…",
                                        show_label=False, scale=2, min_width=260,
                                        max_length=MAX_SEARCH_CHARS, elem_id="board-search")
                    group = gr.Radio(list(first_layout.groups),
                                     value=next(iter(first_layout.groups)),
                                     show_label=False, scale=3, min_width=300,
                                     elem_id="column-group")
                with gr.Accordion("Filters", open=False):
                    with gr.Row():
                        sources = gr.CheckboxGroup(list(SOURCE_LABELS.values()),
                                                   value=list(SOURCE_LABELS.values()),
                                                   label=FILTER_LABELS["sources"])
                        external = gr.CheckboxGroup(list(EXTERNAL_CHOICES),
                                                    value=list(EXTERNAL_CHOICES),
                                                    label=FILTER_LABELS["external"])
                        sizes = gr.CheckboxGroup(list(SIZE_BUCKETS), value=list(SIZE_BUCKETS),
                                                 label=FILTER_LABELS["sizes"])
                    inputs = gr.CheckboxGroup([*bench.input.choices.values(), NOT_REPORTED],
                                              label=f"{bench.input.label} (none ticked: any)")
                table = gr.Dataframe(interactive=False, wrap=True, pinned_columns=2,
                                     max_height=900, elem_id="board-table",
                                     buttons=["fullscreen"])
                notes = gr.Markdown(elem_id="board-notes")
                with gr.Row(elem_id="board-actions"):
                    csv_button = gr.DownloadButton("Download CSV", size="sm", scale=0,
                                                   min_width=150, elem_id="download-csv")
                    json_button = gr.DownloadButton("Download JSON", size="sm", scale=0,
                                                    min_width=150, elem_id="download-json")
                    refresh = gr.Button("Refresh", size="sm", scale=0, min_width=110,
                                        elem_id="board-refresh")
                compare = gr.Markdown(chart_texts(first.track)[0], elem_id="board-compare")
                picks = gr.Dropdown(multiselect=True, label=f"Entries (up to {MAX_PICKS})",
                                    elem_id="chart-picks", max_choices=MAX_PICKS)
                board_plot = gr.Plot(show_label=False, elem_id="board-chart")
            with gr.Tab("Score", id="score"):
                build_score_tab(demo, bench, served, limiter, log)
            with gr.Tab("About", id="about"):
                gr.Markdown(about, elem_id="about-text")
                gr.Markdown("## Citation")
                gr.Code(citation, language=None, interactive=False, label="BibTeX",
                        wrap_lines=True, elem_id="citation")

        on_track = [board_track] if board_track is not None else []
        filters = [search, sources, external, inputs, sizes, group, *on_track]
        board_outputs = [table, status, notes, csv_button, json_button]
        private: dict[str, Any] = {"api_visibility": "private", "show_progress": "hidden"}
        demo.load(view, filters, board_outputs, **private)
        demo.load(on_load, on_track or None, [compare, picks, board_plot], **private)
        for control in (sources, external, inputs, sizes, group):
            control.change(view, filters, board_outputs, **private)
        search.change(view, filters, board_outputs, trigger_mode="always_last", **private)
        refresh.click(view, filters, board_outputs, **private)
        # Unprocessed: on a track switch the page may send the old track's picks once, which
        # Gradio would refuse as no choice; chart() bounds its input and skips unknown names.
        picks.change(chart, [picks, *on_track], board_plot, trigger_mode="always_last",
                     preprocess=False, **private)
        if board_track is not None:
            board_track.change(switch, board_track, [group, compare, picks, board_plot],
                               **private).then(view, filters, board_outputs, **private)
        gr.api(board_api(first), api_name="leaderboard")  # type: ignore[attr-defined]
        if many:
            for s in served:
                gr.api(board_api(s), api_name=f"leaderboard_{s.track.id}")  # type: ignore[attr-defined]
    return demo


def launch_kwargs(cache: uploads.UploadCache | None = None) -> dict[str, Any]:
    """How ``launch()`` serves the page: upload and body limits, the upload cache and its
    cleanup (``cache``, by default as ``upload_policy()`` says), the queue's bounds
    (queue_limits), sessions kept, theme, style, and no monitoring dashboard (Gradio's
    /monitoring is open to anyone)."""
    cache = cache or uploads.UploadCache(upload_policy())
    return {"max_file_size": MAX_FILE_SIZE, "state_session_capacity": SESSION_CAPACITY,
            "ssr_mode": False, "theme": gr.themes.Soft(primary_hue="indigo"), "css": CSS,
            "footer_links": ["api"], "enable_monitoring": False,
            "app_kwargs": {"middleware": [Middleware(BodyLimit), cache.middleware()],
                           "lifespan": functools.partial(_serving, cache)}}


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
    return uploads.cache_policy(environ, max_file_bytes=MAX_UPLOAD_BYTES,
                                suffixes=UPLOAD_SUFFIXES)


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
            # ledger.keys is typed for multiple choice; load_key serves either kind.
            keys: Callable[[], ledger.KeyStatus] = ledger.KeyLoader(
                config, track)  # type: ignore[arg-type]
        except ledger.ConfigError as exc:
            if not many:
                raise
            refused.append(exc)
            keys = functools.partial(ledger.KeyStatus, None, "LEADERBOARD_ANSWER_KEY",
                                     False, str(exc))
        key_status = keys()
        which = f" of {track.title}" if many else ""
        if key_status.key is None:
            log.warning("Score%s is disabled until the key loads: %s", which, key_status.error)
        else:
            log.info("answer key%s: %d %s from %s", which, len(key_status.key), rows_noun(track),
                     key_status.origin)
        board = ledger.BoardCache(ledger.board_store(config), bench, track,
                                  ttl_s=config.cache_ttl_s)
        served.append(Served(track, keys, board))
    if len(refused) == len(bench.tracks):
        raise refused[0]
    return build_page(bench, served, ScoreLimiter(limits))


def main() -> int:
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
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
    except (ledger.ConfigError, ledger.LedgerError) as exc:
        # A configuration mistake is one line that names the variable, not a traceback.
        print(f"error: {exc}", file=sys.stderr)
        return 1
    log_refusals_briefly(app_logger(config.benchmark))
    demo.queue(default_concurrency_limit=8).launch(**launch_kwargs(cache))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
