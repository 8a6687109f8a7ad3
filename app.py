"""A benchmark's leaderboard Space: Leaderboard, Score and About.

The benchmark comes from its spec (``benchmarks/<id>/benchmark.toml``, chosen by
``LEADERBOARD_BENCHMARK``): this module knows none. ``build_demo`` assembles the page from the
spec and what ``ledger`` loaded; nothing here touches the network or reads data at import.
``python app.py`` (or ``make run``) serves it on http://127.0.0.1:7860, or where
``GRADIO_SERVER_NAME``/``GRADIO_SERVER_PORT`` say.

Example::

    config = ledger.load_config()
    demo = build_from_config(config)  # the benchmark's first track
    demo.queue(default_concurrency_limit=8).launch(**launch_kwargs())
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gradio as gr
import gradio.queueing
import gradio.routes
import pandas as pd
from anyio import to_thread
from gradio.components.plot import PlotData
from starlette.middleware import Middleware

import evaluator
import ledger
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
    listed,
    md_escape,
    one_decimal,
    quoted,
    split_chart,
    visible_columns,
)
from guard import (
    MAX_FILE_SIZE,
    MAX_UPLOAD_BYTES,
    BodyLimit,
    RateLimited,
    ScoreLimiter,
    client_address,
    forwarded_summary,
    log_refusals_briefly,
    score_limits,
)
from score_view import score_json, score_summary, score_table
from spec import Benchmark, Track

THREAD_SCORE_BYTES = 256 * 1024  # a real submission is ~30 kB; larger ones are scored off-loop
SESSION_CAPACITY = 1000  # Gradio keeps ~80 kB per session: every API call is a new one
UPLOAD_CACHE = (60, 120)  # delete uploads older than 120 s, checking every 60 s


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
#about-text pre {white-space: pre-wrap; overflow-wrap: anywhere;}
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


def score_help(track: Track) -> str:
    fields = track.fields
    return (f'Upload a submission (a JSON list of `{{"{fields.id}", "{fields.prediction}"}}`, '
            "5 MB at most) to score it privately against the held-out answer key. Nothing is "
            "stored, and you never see which questions were right. See **About** for the "
            "format and how to get listed.")


# --- the page -----------------------------------------------------------------------------------


def _read_upload(path: str | None, upload_dir: str, track: Track) -> bytes:
    """The bytes of a file the visitor uploaded; any other path on the server is refused."""
    if not path:
        raise gr.Error("Choose a submission .json file to score.", print_exception=False)
    file = Path(path).resolve()
    # An API caller can name any path as its "upload": only Gradio's upload folder is theirs.
    if not file.is_relative_to(Path(upload_dir).resolve()):
        raise gr.Error("Upload the file through /gradio_api/upload first, then pass the path "
                       "it returns.", print_exception=False)
    if file.suffix.lower() != ".json":
        raise gr.Error(f"Upload a .json file (a JSON list of {track.fields.id}/"
                       f"{track.fields.prediction} objects).", print_exception=False)
    try:
        size = file.stat().st_size
        if size > MAX_UPLOAD_BYTES:
            raise gr.Error(f"The file is {size / 2**20:.1f} MB; the limit is 5 MB.",
                           print_exception=False)
        return file.read_bytes()
    except OSError:
        raise gr.Error("The uploaded file could not be read; upload it again.",
                       print_exception=False) from None


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
    """The whole page of one track of ``bench``; every handler is safe for anyone to call
    (hiding is not access control). LayoutError if the spec's board cannot be laid out.

    ``keys`` gives the current answer key of ``track`` (ledger.KeyLoader retries one that
    failed at boot); ``board`` is the track's board.
    """
    layout = board_layout(bench, track)  # fails here, at boot, on a clashing spec
    log = app_logger(bench)
    boot_status = keys()
    about = bench.about_path.read_text(encoding="utf-8")
    citation = bench.citation_path.read_text(encoding="utf-8")
    exports = _Exports(f"{bench.id}-leaderboard")
    hops_untold = threading.Lock()  # held once the first scored request's hops are logged
    ranking = track.ranking
    metric_labels = list(layout.metrics.values())

    def unavailable(status: ledger.KeyStatus) -> str:
        return f"### Scoring is unavailable\n{status.error}" if status.key is None else ""

    def score_state() -> Any:
        status = keys()
        return gr.update(value=unavailable(status), visible=status.key is None)

    def current() -> tuple[ledger.BoardSnapshot, pd.DataFrame]:
        snapshot = board.snapshot()
        return snapshot, board_frame(snapshot.records, bench, track)

    def view(search: str, sources: list[str], external: list[str], inputs: list[str],
             sizes: list[str], group: str) -> tuple[Any, ...]:
        try:  # before any work: anyone can send any input
            wanted = board_filter(search, sources, external, inputs, sizes, bench)
            if group is not None and (not isinstance(group, str) or group not in layout.groups):
                raise BadInput(f"Column group: {quoted(group)} is not one of "
                               f"{listed(list(layout.groups))}.")
        except BadInput as exc:
            raise gr.Error(str(exc), print_exception=False) from None
        snapshot, frame = current()
        chosen = wanted.apply(frame)
        csv_path, json_path = exports.write(export_rows(chosen, snapshot.records, track))
        notes = "  \n".join(f"† **{md_escape(str(n))}**: {md_escape(str(t))}"
                            for n, t in zip(frame["_name"], frame[layout.info["note"]],
                                            strict=True) if t)
        if frame.empty:
            notes = "No entries yet. See **About** for how to get listed."
        shown = visible_columns(chosen, group, bench, track)
        table_update = gr.Dataframe(
            value=one_decimal(shown, metric_labels),
            datatype=[layout.datatypes.get(c, "str") for c in shown.columns],
            column_widths=[layout.widths.get(c, DEFAULT_WIDTH) for c in shown.columns])
        return (table_update, _status_line(snapshot, clock()), notes,
                csv_path, json_path)

    def chart(methods: list[str]) -> PlotData:
        methods = methods or []
        if (not isinstance(methods, list) or len(methods) > MAX_PICKS
                or not all(isinstance(m, str) for m in methods)):
            raise gr.Error(f"Compare at most {MAX_PICKS} entries of the board.",
                           print_exception=False)
        snapshot = board.snapshot()
        by_name = {r.method_name: r for r in snapshot.records}
        picked = [m for m in methods if m in by_name]  # one gone since the page loaded: left out
        return split_chart({m: dict(by_name[m].metrics) for m in picked},
                           "Accuracy per split", track)

    def on_load() -> tuple[Any, ...]:
        _, frame = current()
        names = list(frame["_name"])
        top = names[:5]
        if not names:  # an empty board has nothing to compare: no empty chart under it
            hidden = gr.update(visible=False)
            return hidden, hidden, hidden
        return (gr.update(visible=True), gr.update(choices=names, value=top),
                chart(top))

    def leaderboard() -> list[dict[str, Any]]:
        snapshot, frame = current()
        return export_rows(frame, snapshot.records, track)

    # The API page shows this as the endpoint's description.
    leaderboard.__doc__ = (f"The whole board, best {layout.ranking} first: metrics unrounded, "
                           "ranks, counts, links.")

    def best_paper() -> ledger.Record | None:
        papers = [r for r in board.snapshot().records if r.source == "paper"]
        return max(papers, key=lambda r: r.metrics.get(ranking, 0.0), default=None)

    async def score(path: str | None, request: gr.Request) -> tuple[Any, ...]:
        """Score a submission file; returns summary, table, chart and the numbers as JSON."""
        key_status = keys()
        if key_status.key is None:
            raise gr.Error(f"Scoring is unavailable: {key_status.error}", print_exception=False)
        data = _read_upload(path, demo.GRADIO_CACHE, track)
        limits = limiter.limits
        if limits.on_space and hops_untold.acquire(blocking=False):
            # How the Spaces proxy lays the header out is documented nowhere: show the operator.
            log.info("the first scored request came with %s; the client is its rightmost "
                     "public entry past %d trusted hop(s)", forwarded_summary(request),
                     limits.trusted_hops)
        client = client_address(request, limits.on_space, limits.trusted_hops)
        try:
            stamp = limiter.acquire(client)
        except RateLimited as exc:
            raise gr.Error(str(exc), print_exception=False) from None
        try:
            if len(data) > THREAD_SCORE_BYTES:  # a big file must not hold the event loop
                result = await to_thread.run_sync(evaluator.score, key_status.key, data)
            else:
                result = evaluator.score(key_status.key, data)
        except evaluator.SubmissionError as exc:
            limiter.release(client, stamp)
            raise gr.Error(str(exc), duration=None, print_exception=False) from None
        log.info("scored one submission (%d bytes)", len(data))
        series = {"Your submission": dict(result.metrics)}
        paper = best_paper()
        if paper is not None:
            series[f"{paper.method_name} (paper)"] = dict(paper.metrics)
        # Plain values, not component updates: Gradio post-processes them faster.
        return (score_summary(result, track), score_table(result, track),
                split_chart(series, "Your splits beside the best paper baseline", track),
                score_json(result))

    def reset_score() -> tuple[Any, ...]:
        """Clear the previous file's results as soon as another file arrives."""
        return ("", gr.Dataframe(visible=False), gr.Plot(visible=False), None)

    def show_results() -> tuple[Any, ...]:
        return gr.Dataframe(visible=True), gr.Plot(visible=True)

    demo: gr.Blocks
    with gr.Blocks(title=f"{bench.title} Leaderboard", delete_cache=UPLOAD_CACHE) as demo:
        gr.Markdown(header_markdown(bench), elem_id="title")
        gr.Markdown(demo_banner(bench) if boot_status.demo else "", elem_id="demo-banner",
                    visible=boot_status.demo)
        with gr.Tabs():
            with gr.Tab("Leaderboard", id="leaderboard"):
                status = gr.Markdown(elem_id="board-status")
                with gr.Row(equal_height=True):
                    search = gr.Textbox(placeholder="Search method, team, size…",
                                        show_label=False, scale=2, min_width=260,
                                        max_length=MAX_SEARCH_CHARS, elem_id="board-search")
                    group = gr.Radio(list(layout.groups), value=next(iter(layout.groups)),
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
                compare = gr.Markdown("### Compare entries per split", elem_id="board-compare")
                picks = gr.Dropdown(multiselect=True, label=f"Entries (up to {MAX_PICKS})",
                                    elem_id="chart-picks", max_choices=MAX_PICKS)
                board_plot = gr.Plot(show_label=False, elem_id="board-chart")
            with gr.Tab("Score", id="score"):
                disabled = gr.Markdown(unavailable(boot_status), elem_id="score-disabled",
                                       visible=boot_status.key is None)
                gr.Markdown(score_help(track))
                upload = gr.File(label="Submission (.json)", file_types=[".json"],
                                 type="filepath", elem_id="score-upload")
                summary = gr.Markdown(elem_id="score-summary")
                score_df = gr.Dataframe(interactive=False, elem_id="score-table", visible=False)
                score_plot = gr.Plot(show_label=False, elem_id="score-chart", visible=False)
                with gr.Accordion("The numbers as JSON (what the /score API returns)",
                                  open=False):
                    score_numbers = gr.JSON(show_label=False, elem_id="score-json")
            with gr.Tab("About", id="about"):
                gr.Markdown(about, elem_id="about-text")
                gr.Markdown("## Citation")
                gr.Code(citation, language=None, interactive=False, label="BibTeX",
                        wrap_lines=True, elem_id="citation")

        filters = [search, sources, external, inputs, sizes, group]
        board_outputs = [table, status, notes, csv_button, json_button]
        private: dict[str, Any] = {"api_visibility": "private", "show_progress": "hidden"}
        demo.load(view, filters, board_outputs, **private)
        demo.load(on_load, None, [compare, picks, board_plot], **private)
        demo.load(score_state, None, disabled, **private)
        for control in (sources, external, inputs, sizes, group):
            control.change(view, filters, board_outputs, **private)
        search.change(view, filters, board_outputs, trigger_mode="always_last", **private)
        refresh.click(view, filters, board_outputs, **private)
        picks.change(chart, picks, board_plot, trigger_mode="always_last", **private)
        score_outputs = [summary, score_df, score_plot, score_numbers]
        upload.upload(reset_score, None, score_outputs, queue=False, **private).then(
            score, upload, score_outputs, api_name="score", concurrency_limit=4,
        ).success(show_results, None, [score_df, score_plot], queue=False, **private)
        upload.clear(reset_score, None, score_outputs, queue=False, **private)
        gr.api(leaderboard, api_name="leaderboard")  # type: ignore[attr-defined]
    return demo


def launch_kwargs() -> dict[str, Any]:
    """How ``launch()`` serves the page: upload and body limits, sessions kept, theme, style,
    and no monitoring dashboard (Gradio's /monitoring is open to anyone)."""
    return {"max_file_size": MAX_FILE_SIZE, "state_session_capacity": SESSION_CAPACITY,
            "ssr_mode": False, "theme": gr.themes.Soft(primary_hue="indigo"), "css": CSS,
            "footer_links": ["api"], "enable_monitoring": False,
            "app_kwargs": {"middleware": [Middleware(BodyLimit)]}}


def build_from_config(config: ledger.Config) -> gr.Blocks:
    """The page of the configured benchmark's first track, its key and board loaded as
    ``config`` says (a multi-track board is not built yet)."""
    bench = config.benchmark
    track = bench.track()
    log = app_logger(bench)
    limits = score_limits(config)
    keys = ledger.KeyLoader(config, track)
    key_status = keys()
    if key_status.key is None:
        log.warning("Score is disabled until the key loads: %s", key_status.error)
    else:
        log.info("answer key: %d questions from %s", len(key_status.key), key_status.origin)
    board = ledger.BoardCache(ledger.board_store(config), bench, track,
                              ttl_s=config.cache_ttl_s)
    return build_demo(bench, track, keys, board, ScoreLimiter(limits))


def main() -> int:
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # no request lines in the log
    # uvicorn trusts X-Forwarded-For from loopback by default, which would let a local client
    # pick its own address for the score limit; the Space's proxy address is read explicitly.
    os.environ["FORWARDED_ALLOW_IPS"] = ""
    try:
        config = ledger.load_config()
        demo = build_from_config(config)
    except (ledger.ConfigError, ledger.LedgerError) as exc:
        # A configuration mistake is one line that names the variable, not a traceback.
        print(f"error: {exc}", file=sys.stderr)
        return 1
    log_refusals_briefly(app_logger(config.benchmark))
    demo.queue(default_concurrency_limit=8).launch(**launch_kwargs())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
