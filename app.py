"""The EgoMemReason leaderboard Space: About, Leaderboard and Score.

``build_demo`` assembles the page from what ``ledger`` loaded; nothing here touches the network
or reads data at import. ``python app.py`` (or ``make run``) serves it on
http://127.0.0.1:7860, or where ``GRADIO_SERVER_NAME``/``GRADIO_SERVER_PORT`` say.
"""

from __future__ import annotations

import bisect
import collections
import functools
import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import altair as alt
import gradio as gr
import pandas as pd
from anyio import to_thread
from gradio.components.plot import PlotData

import evaluator
import ledger
from evaluator import METRIC_KEYS, QUERY_TYPE_KEYS, Count

log = logging.getLogger("egomemreason.app")

ROOT = Path(__file__).resolve().parent
ABOUT_PATH = ROOT / "ABOUT.md"
CITATION_PATH = ROOT / "CITATION.bib"
MAX_FILE_SIZE = "5mb"
MAX_UPLOAD_BYTES = 5 * 1024 * 1024
THREAD_SCORE_BYTES = 256 * 1024  # a real submission is ~30 kB; larger ones are scored off-loop
SESSION_CAPACITY = 1000  # Gradio keeps ~80 kB per session: every API call is a new one
UPLOAD_CACHE = (60, 120)  # delete uploads older than 120 s, checking every 60 s

METRIC_LABELS: dict[str, str] = {
    "overall": "Overall",
    "entity": "Entity",
    "event": "Event",
    "behavior": "Behavior",
    "cumulative_state_tracking": "Tracking",
    "temporal_counting": "Counting",
    "event_ordering": "Ordering",
    "event_linking": "Linking",
    "spatial_preference": "Spatial",
    "activity_pattern": "Activity",
}
QUERY_TYPE_NAMES = {key: name for name, (key, _) in evaluator.QUERY_TYPES.items()}
SOURCE_LABELS = {"rescored": "Re-scored", "paper": "Paper"}
#: How the Source column shows them: re-scored rows stand out from paper-reported ones.
SOURCE_BADGES = {"rescored": "**✓ Re-scored**", "paper": "*Paper-reported*"}
NOT_REPORTED = "Not reported"
SIZE_BUCKETS = ("< 10B", "10B – 40B", "≥ 40B", "API / not stated")
EXTERNAL_CHOICES = ("Yes", "No", NOT_REPORTED)

INFO_COLUMNS = ["Rank", "Method", "Overall", "Rank range", "Team", "Size", "External data",
                "Video input", "Source"]
METRIC_COLUMNS = [METRIC_LABELS[k] for k in METRIC_KEYS]
TAIL_COLUMNS = ["Overall 95% CI", "Date", "Links", "Note"]
# Rank, Method and Overall lead every group, so a phone shows the score without scrolling.
COLUMN_GROUPS: dict[str, list[str]] = {
    "Memory types": ["Rank", "Method", "Overall", "Entity", "Event", "Behavior", "Rank range",
                     "Source", "Team", "Size", "Date"],
    "Query types": ["Rank", "Method", "Overall", *[METRIC_LABELS[k] for k in QUERY_TYPE_KEYS],
                    "Source"],
    "Details": ["Rank", "Method", "Overall", "Overall 95% CI", "Rank range", "Team", "Size",
                "External data", "Video input", "Source", "Date", "Links", "Note"],
    "All": [*INFO_COLUMNS, *[c for c in METRIC_COLUMNS if c != "Overall"], *TAIL_COLUMNS],
}
COLUMN_WIDTHS = {"Rank": "62px", "Rank range": "86px", "Method": "200px", "Team": "200px",
                 "Size": "80px", "Source": "136px", "Date": "108px", "Links": "140px",
                 "Note": "260px", "Overall 95% CI": "120px", "External data": "96px",
                 "Video input": "150px"}
DATATYPES: dict[str, Literal["str", "number", "markdown"]] = {
    "Rank": "number", "Method": "markdown", "Source": "markdown", "Links": "markdown",
    **{c: "number" for c in METRIC_COLUMNS},
}

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
#board-table, #score-table, #board-chart, #score-chart, #citation, #about-text {
  max-width: calc(100vw - 72px); overflow-x: auto;}
#board-table, #score-table {--font-mono: var(--font);}
#board-actions {justify-content: flex-end; gap: 0.5rem;}
#board-chart .vega-embed, #score-chart .vega-embed {width: 100% !important; display: block;}
@media (max-width: 640px) { .gradio-container .main {padding-left: 10px !important;
  padding-right: 10px !important;} }
"""


# --- configuration of the app itself ------------------------------------------------------------


@dataclass(frozen=True)
class ScoreLimits:
    """How many scored submissions one client may make per window (EGOMEM_SCORE_*, SPACE_ID)."""

    limit: int = ledger.SCORE_LIMIT
    window_s: float = ledger.SCORE_WINDOW_S
    on_space: bool = False  # behind the Space proxy: trust the rightmost X-Forwarded-For


def score_limits(config: ledger.Config) -> ScoreLimits:
    return ScoreLimits(config.score_limit, config.score_window_s, config.on_space)


class RateLimited(Exception):
    """A client has used up its scoring allowance for the current window."""


class ScoreLimiter:
    """A sliding-window count of scored submissions per client, in memory only.

    ``acquire`` checks and reserves a slot under one lock, so simultaneous uploads cannot
    slip past the limit; ``release`` gives the slot back when validation refused the file.
    """

    def __init__(self, limits: ScoreLimits, clock: Callable[[], float] = time.time) -> None:
        self.limits = limits
        self._clock = clock
        self._lock = threading.Lock()
        self._stamps: dict[str, collections.deque[float]] = {}

    def acquire(self, client: str) -> float:
        with self._lock:
            now = self._clock()
            stamps = self._stamps.setdefault(client, collections.deque())
            while stamps and stamps[0] <= now - self.limits.window_s:
                stamps.popleft()
            if len(stamps) >= self.limits.limit:
                frees = datetime.fromtimestamp(stamps[0] + self.limits.window_s, UTC)
                raise RateLimited(
                    f"Scoring is limited to {self.limits.limit} files per "
                    f"{_duration(self.limits.window_s)} per visitor, and this limit is reached. "
                    f"The next one frees at {frees:%Y-%m-%d %H:%M:%S} UTC."
                )
            stamps.append(now)
            if len(self._stamps) > 10_000:
                self._forget_idle(now)
            return now

    def release(self, client: str, stamp: float) -> None:
        with self._lock:
            stamps = self._stamps.get(client)
            if stamps is not None and stamp in stamps:
                stamps.remove(stamp)

    def _forget_idle(self, now: float) -> None:
        idle = [c for c, s in self._stamps.items() if not s or s[-1] <= now - self.limits.window_s]
        for client in idle:
            del self._stamps[client]


def _duration(seconds: float) -> str:
    if seconds % 86400 == 0:
        days = int(seconds // 86400)
        return "day" if days == 1 else f"{days} days"
    if seconds % 3600 == 0:
        hours = int(seconds // 3600)
        return "hour" if hours == 1 else f"{hours} hours"
    return f"{seconds:g} s"


def client_address(request: gr.Request | None, on_space: bool) -> str:
    """Who is scoring: the peer address, or behind the Space proxy the address it appended."""
    if request is None:
        return "unknown"
    if on_space:
        forwarded = str(request.headers.get("x-forwarded-for", ""))
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if hops:
            return hops[-1]
    client = request.client
    host = getattr(client, "host", None) if client is not None else None
    return str(host) if host else "unknown"


# --- the board as a table (pure) ----------------------------------------------------------------


def _split_totals() -> dict[str, int]:
    per_type = {k: Count(correct=0, total=n) for k, n in evaluator.SPLIT_SIZES.items()}
    return {k: c.total for k, c in evaluator.aggregate(per_type).items()}


SPLIT_TOTALS = _split_totals()


def record_counts(record: ledger.Record) -> dict[str, Count]:
    """A record's counts; for paper rows, its percentages over the benchmark's split sizes."""
    if record.counts is not None:
        return dict(record.counts)
    return {
        key: Count(correct=round(record.metrics[key] * total / 100), total=total)
        for key, total in SPLIT_TOTALS.items()
        if key in record.metrics
    }


def rank_ranges(intervals: Sequence[tuple[float, float]]) -> list[tuple[int, int]]:
    """Per row: 1 + rows whose interval lies entirely above it, and the worst rank it could hold."""
    lows = sorted(low for low, _ in intervals)
    highs = sorted(high for _, high in intervals)
    n = len(intervals)
    out = []
    for low, high in intervals:
        above = n - bisect.bisect_right(lows, high)
        below = bisect.bisect_left(highs, low)
        out.append((1 + above, n - below))
    return out


_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([BbMmTt])\b")


def size_in_billions(model_size: str) -> float | None:
    """"8B" -> 8, "30B-A3B" -> 30, "API" or "" -> None."""
    match = _SIZE.search(model_size)
    if not match:
        return None
    value = float(match.group(1))
    return value * {"b": 1.0, "m": 1e-3, "t": 1e3}[match.group(2).lower()]


def size_bucket(model_size: str) -> str:
    size = size_in_billions(model_size)
    if size is None:
        return SIZE_BUCKETS[3]
    return SIZE_BUCKETS[0] if size < 10 else SIZE_BUCKETS[1] if size < 40 else SIZE_BUCKETS[2]


def _yes_no(value: bool | None) -> str:
    return NOT_REPORTED if value is None else "Yes" if value else "No"


def _video_input(value: str | None) -> str:
    return NOT_REPORTED if value is None else ledger.VIDEO_INPUTS.get(value, value)


def _md_escape(text: str) -> str:
    return re.sub(r"([\\`*_{}\[\]()#+!|<>])", r"\\\1", text)


def _links(record: ledger.Record) -> str:
    parts = []
    if record.publication_url:
        parts.append(f"[paper]({record.publication_url})")
    if record.project_url:
        parts.append(f"[project]({record.project_url})")
    return " · ".join(parts)


def board_frame(records: Sequence[ledger.Record]) -> pd.DataFrame:
    """The whole board, best Overall first, with unrounded metrics and the rank columns."""
    rows = sorted(records, key=lambda r: (-r.metrics.get("overall", 0.0), r.method_name))
    counts = [record_counts(r)["overall"] for r in rows]
    intervals = [evaluator.wilson_interval(c.correct, c.total) for c in counts]
    ranks = rank_ranges(intervals)
    table = []
    for record, (best, worst), (low, high) in zip(rows, ranks, intervals, strict=True):
        method = _md_escape(record.method_name) + (" †" if record.note else "")
        if record.project_url:
            method = f"[{method}]({record.project_url})"
        row: dict[str, Any] = {
            "Rank": best,
            "Rank range": f"{best}" if best == worst else f"{best}–{worst}",
            "Method": method,
            "Team": record.team_name,
            "Size": record.model_size or "—",
            "External data": _yes_no(record.uses_external),
            "Video input": _video_input(record.uses_frames),
            "Source": SOURCE_BADGES[record.source],
        }
        row.update({METRIC_LABELS[k]: record.metrics.get(k) for k in METRIC_KEYS})
        row.update({
            "Overall 95% CI": f"{low:.1f}–{high:.1f}",
            "Date": record.created_at.date().isoformat(),
            "Links": _links(record),
            "Note": record.note or "",
            "_id": str(record.id),
            "_name": record.method_name,
            "_source": record.source,
            "_size": size_bucket(record.model_size),
            "_text": " ".join([record.method_name, record.team_name, record.model_size,
                               record.method_description]).lower(),
        })
        table.append(row)
    columns = [*COLUMN_GROUPS["All"], "_id", "_name", "_source", "_size", "_text"]
    return pd.DataFrame(table, columns=columns)


@dataclass(frozen=True)
class BoardFilter:
    """What the visitor asked to see."""

    search: str = ""
    sources: tuple[str, ...] = tuple(SOURCE_LABELS.values())
    external: tuple[str, ...] = EXTERNAL_CHOICES
    video_inputs: tuple[str, ...] = ()  # empty: any
    sizes: tuple[str, ...] = SIZE_BUCKETS

    def apply(self, frame: pd.DataFrame) -> pd.DataFrame:
        sources = {key for key, label in SOURCE_LABELS.items() if label in self.sources}
        keep = frame["_source"].isin(sources) & frame["External data"].isin(self.external)
        keep &= frame["_size"].isin(self.sizes)
        if self.video_inputs:
            keep &= frame["Video input"].isin(self.video_inputs)
        for word in self.search.lower().split():
            keep &= frame["_text"].str.contains(word, regex=False)
        return frame[keep]


def visible_columns(frame: pd.DataFrame, group: str) -> pd.DataFrame:
    """The columns of one column group (metrics unrounded: ``one_decimal`` formats them)."""
    columns = COLUMN_GROUPS.get(group, COLUMN_GROUPS["Memory types"])
    return frame[columns]


def one_decimal(frame: pd.DataFrame, columns: Sequence[str]) -> Any:
    """A Styler showing ``columns`` to one decimal; the cells stay numbers, so sorting works."""
    present: list[Hashable] = [c for c in columns if c in frame.columns]
    return frame.style.format("{:.1f}", subset=present, na_rep="—")


def export_rows(frame: pd.DataFrame, records: Sequence[ledger.Record]) -> list[dict[str, Any]]:
    """Rows for CSV/JSON/API: full precision, plain names, counts and intervals included."""
    by_id = {str(r.id): r for r in records}
    rows = []
    for _, row in frame.iterrows():
        record = by_id[row["_id"]]
        overall = record_counts(record)["overall"]
        low, high = evaluator.wilson_interval(overall.correct, overall.total)
        out: dict[str, Any] = {
            "rank": int(row["Rank"]),
            "rank_range": row["Rank range"],
            "id": row["_id"],
            "method_name": record.method_name,
            "team_name": record.team_name,
            "model_size": record.model_size,
            "uses_external": record.uses_external,
            "uses_frames": record.uses_frames,
            "source": record.source,
        }
        out.update({k: record.metrics.get(k) for k in METRIC_KEYS})
        out.update({
            "overall_ci_low": low,
            "overall_ci_high": high,
            "counts": None if record.counts is None
            else {k: c.model_dump() for k, c in record.counts.items()},
            "n_abstained": record.n_abstained,
            "created_at": record.created_at.isoformat(),
            "project_url": record.project_url,
            "publication_url": record.publication_url,
            "method_description": record.method_description,
            "note": record.note,
        })
        rows.append(out)
    return rows


CHART_KEYS = ("overall", *QUERY_TYPE_KEYS)


@functools.lru_cache(maxsize=128)
def _chart_spec(entries: tuple[str, ...], title: str) -> str:
    """The Vega-Lite spec of a split chart without its data (altair is slow: build it once)."""
    order = [METRIC_LABELS[k] for k in CHART_KEYS]
    chart = (
        alt.Chart(title=title)
        .mark_bar(cornerRadiusEnd=2)
        .encode(
            y=alt.Y("Split:N", sort=order, title=None),
            yOffset=alt.YOffset("Entry:N", sort=list(entries)),
            x=alt.X("Accuracy (%):Q", scale=alt.Scale(domain=[0, 100])),
            color=alt.Color("Entry:N", sort=list(entries),
                            legend=alt.Legend(orient="bottom", direction="vertical",
                                              title=None, labelLimit=320)),
            tooltip=["Entry:N", "Split:N", "Accuracy (%):Q"],
        )
        # As wide as its block (see CSS): it fits phones and laptops alike.
        .properties(width="container", height=alt.Step(8 if len(entries) > 3 else 14))
        .configure_axis(labelFontSize=12, titleFontSize=12)
        .configure_legend(labelFontSize=12)
        .configure_title(fontSize=14)
    )
    return str(chart.to_json())


def split_chart(series: dict[str, dict[str, float]], title: str) -> PlotData:
    """Grouped horizontal bars: a group per split (Overall, six query types), a bar per series.

    Horizontal, so the chart fits the width of any screen and only grows in height.
    """
    spec = json.loads(_chart_spec(tuple(series), title))
    spec.pop("datasets", None)
    spec["data"] = {"values": [
        {"Split": METRIC_LABELS[k], "Accuracy (%)": round(metrics[k], 2), "Entry": name}
        for name, metrics in series.items() for k in CHART_KEYS if k in metrics
    ]}
    return PlotData(type="altair", plot=json.dumps(spec))


# --- score presentation (pure) ------------------------------------------------------------------


def score_table(result: evaluator.ScoreResult) -> pd.DataFrame:
    rows = []
    for key in METRIC_KEYS:
        count, (low, high) = result.counts[key], result.intervals[key]
        name = QUERY_TYPE_NAMES.get(key, METRIC_LABELS[key])
        # Text, shown to one decimal: the /score JSON carries the numbers at full precision.
        rows.append({"Split": name, "Accuracy (%)": f"{result.metrics[key]:.1f}",
                     "Correct": count.correct, "Questions": count.total,
                     "95% CI": f"{low:.1f}–{high:.1f}"})
    return pd.DataFrame(rows)


def score_summary(result: evaluator.ScoreResult) -> str:
    overall, (low, high) = result.counts["overall"], result.intervals["overall"]
    abstained = (f"{result.n_abstained} question{'s' if result.n_abstained != 1 else ''} "
                 "without an answer (scored as wrong)")
    version = f" · answer key {result.key_version}" if result.key_version else ""
    return (
        f"### Overall: {result.metrics['overall']:.1f} %\n"
        f"{overall.correct} of {overall.total} correct · 95 % CI {low:.1f}–{high:.1f} · "
        f"{abstained}{version}\n\n"
        f"File sha256 `{result.submission_sha256[:16]}…` (quote it when you e-mail the file "
        "to get listed). Nothing about this file was stored."
    )


def score_json(result: evaluator.ScoreResult) -> dict[str, Any]:
    """The numbers, named exactly as the evaluator names them (for gradio_client users)."""
    return result.model_dump(mode="json", exclude={"answer_key_sha256"})


# --- the page -----------------------------------------------------------------------------------


def _read_upload(path: str | None, upload_dir: str) -> bytes:
    """The bytes of a file the visitor uploaded; any other path on the server is refused."""
    if not path:
        raise gr.Error("Choose a submission .json file to score.", print_exception=False)
    file = Path(path).resolve()
    # An API caller can name any path as its "upload": only Gradio's upload folder is theirs.
    if not file.is_relative_to(Path(upload_dir).resolve()):
        raise gr.Error("Upload the file through /gradio_api/upload first, then pass the path "
                       "it returns.", print_exception=False)
    if file.suffix.lower() != ".json":
        raise gr.Error("Upload a .json file (a JSON list of example_id/predicted_answer "
                       "objects).", print_exception=False)
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

    def __init__(self) -> None:
        self._dir = Path(tempfile.mkdtemp(prefix="egomem-exports-"))

    def write(self, rows: list[dict[str, Any]]) -> tuple[str, str]:
        frame = pd.DataFrame(rows).drop(columns=["counts"], errors="ignore")
        payloads = {"csv": frame.to_csv(index=False).encode(),
                    "json": json.dumps(rows, indent=1, ensure_ascii=False).encode()}
        digest = hashlib.sha256(payloads["csv"] + payloads["json"]).hexdigest()[:16]
        folder = self._dir / digest
        if not folder.exists():
            self._prune()
            tmp = Path(tempfile.mkdtemp(dir=self._dir))
            for ext, payload in payloads.items():
                (tmp / f"egomemreason-leaderboard.{ext}").write_bytes(payload)
            try:
                tmp.rename(folder)
            except OSError:  # another request wrote the same view first
                shutil.rmtree(tmp, ignore_errors=True)
        return (str(folder / "egomemreason-leaderboard.csv"),
                str(folder / "egomemreason-leaderboard.json"))

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
    keys: Callable[[], ledger.KeyStatus],
    board: ledger.BoardCache,
    limiter: ScoreLimiter,
    clock: Callable[[], float] = time.time,
) -> gr.Blocks:
    """The whole page; every handler is safe for anyone to call (hiding is not access control).

    ``keys`` gives the current answer key (ledger.KeyLoader retries one that failed at boot).
    """
    boot_status = keys()
    about = ABOUT_PATH.read_text(encoding="utf-8")
    citation = CITATION_PATH.read_text(encoding="utf-8")
    exports = _Exports()
    banner = (
        "**Demo mode.** This Space runs on a *synthetic* answer key and a demo board: scores "
        "here are not EgoMemReason results. Configure the real key and board as the README says."
        if boot_status.demo else ""
    )

    def unavailable(status: ledger.KeyStatus) -> str:
        return f"### Scoring is unavailable\n{status.error}" if status.key is None else ""

    def score_state() -> Any:
        status = keys()
        return gr.update(value=unavailable(status), visible=status.key is None)

    def current() -> tuple[ledger.BoardSnapshot, pd.DataFrame]:
        snapshot = board.snapshot()
        return snapshot, board_frame(snapshot.records)

    def view(search: str, sources: list[str], external: list[str], inputs: list[str],
             sizes: list[str], group: str) -> tuple[Any, ...]:
        snapshot, frame = current()
        chosen = BoardFilter(search or "", tuple(sources or ()), tuple(external or ()),
                             tuple(inputs or ()), tuple(sizes or ())).apply(frame)
        csv_path, json_path = exports.write(export_rows(chosen, snapshot.records))
        notes = "  \n".join(f"† **{_md_escape(str(n))}**: {_md_escape(str(t))}"
                            for n, t in zip(frame["_name"], frame["Note"], strict=True) if t)
        shown = visible_columns(chosen, group)
        table_update = gr.Dataframe(
            value=one_decimal(shown, METRIC_COLUMNS),
            datatype=[DATATYPES.get(c, "str") for c in shown.columns],
            column_widths=[COLUMN_WIDTHS.get(c, "84px") for c in shown.columns])
        return (table_update, _status_line(snapshot, clock()), notes,
                csv_path, json_path)

    def chart(methods: list[str]) -> PlotData:
        snapshot = board.snapshot()
        by_name = {r.method_name: r for r in snapshot.records}
        picked = [m for m in (methods or []) if m in by_name][:12]
        return split_chart({m: dict(by_name[m].metrics) for m in picked},
                           "Accuracy per split")

    def on_load() -> tuple[Any, ...]:
        _, frame = current()
        names = list(frame["_name"])
        top = names[:5]
        return (gr.update(choices=names, value=top), chart(top))

    def leaderboard() -> list[dict[str, Any]]:
        """The whole board, best Overall first: metrics unrounded, ranks, counts, links."""
        snapshot, frame = current()
        return export_rows(frame, snapshot.records)

    def best_paper() -> ledger.Record | None:
        papers = [r for r in board.snapshot().records if r.source == "paper"]
        return max(papers, key=lambda r: r.metrics.get("overall", 0.0), default=None)

    async def score(path: str | None, request: gr.Request) -> tuple[Any, ...]:
        """Score a submission file; returns summary, table, chart and the numbers as JSON."""
        key_status = keys()
        if key_status.key is None:
            raise gr.Error(f"Scoring is unavailable: {key_status.error}", print_exception=False)
        data = _read_upload(path, demo.GRADIO_CACHE)
        client = client_address(request, limiter.limits.on_space)
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
        return (score_summary(result), score_table(result),
                split_chart(series, "Your splits beside the best paper baseline"),
                score_json(result))

    def reset_score() -> tuple[Any, ...]:
        """Clear the previous file's results as soon as another file arrives."""
        return ("", gr.Dataframe(visible=False), gr.Plot(visible=False), None)

    def show_results() -> tuple[Any, ...]:
        return gr.Dataframe(visible=True), gr.Plot(visible=True)

    demo: gr.Blocks
    with gr.Blocks(title="EgoMemReason Leaderboard", delete_cache=UPLOAD_CACHE) as demo:
        gr.Markdown(
            "# EgoMemReason Leaderboard\n"
            "Memory reasoning over week-long egocentric video: 500 questions on entity, event "
            "and behavior memory. [Paper](https://arxiv.org/abs/2605.09874) · "
            "[Project page](https://egomemreason.github.io) · "
            "[Code](https://github.com/Ziyang412/EgoMemReason) · "
            "[Data](https://huggingface.co/datasets/Ted412/EgoMemReason)",
            elem_id="title",
        )
        gr.Markdown(banner, elem_id="demo-banner", visible=boot_status.demo)
        with gr.Tabs():
            with gr.Tab("Leaderboard", id="leaderboard"):
                status = gr.Markdown(elem_id="board-status")
                with gr.Row(equal_height=True):
                    search = gr.Textbox(placeholder="Search method, team, size…",
                                        show_label=False, scale=2, min_width=260,
                                        elem_id="board-search")
                    group = gr.Radio(list(COLUMN_GROUPS), value="Memory types",
                                     show_label=False, scale=3, min_width=300,
                                     elem_id="column-group")
                with gr.Accordion("Filters", open=False):
                    with gr.Row():
                        sources = gr.CheckboxGroup(list(SOURCE_LABELS.values()),
                                                   value=list(SOURCE_LABELS.values()),
                                                   label="Source")
                        external = gr.CheckboxGroup(list(EXTERNAL_CHOICES),
                                                    value=list(EXTERNAL_CHOICES),
                                                    label="Uses external data")
                        sizes = gr.CheckboxGroup(list(SIZE_BUCKETS), value=list(SIZE_BUCKETS),
                                                 label="Model size")
                    inputs = gr.CheckboxGroup([*ledger.VIDEO_INPUTS.values(), NOT_REPORTED],
                                              label="Video input (none ticked: any)")
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
                gr.Markdown("### Compare entries per split")
                picks = gr.Dropdown(multiselect=True, label="Entries (up to 12)",
                                    elem_id="chart-picks", max_choices=12)
                board_plot = gr.Plot(show_label=False, elem_id="board-chart")
            with gr.Tab("Score", id="score"):
                disabled = gr.Markdown(unavailable(boot_status), elem_id="score-disabled",
                                       visible=boot_status.key is None)
                gr.Markdown(
                    "Upload a submission (a JSON list of `{\"example_id\", "
                    "\"predicted_answer\"}`, 5 MB at most) to score it privately against the "
                    "held-out answer key. Nothing is stored, and you never see which "
                    "questions were right. See **About** for the format and how to get listed."
                )
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
        demo.load(on_load, None, [picks, board_plot], **private)
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
    """How ``launch()`` serves the page: upload limit, sessions kept, theme, style."""
    return {"max_file_size": MAX_FILE_SIZE, "state_session_capacity": SESSION_CAPACITY,
            "ssr_mode": False, "theme": gr.themes.Soft(primary_hue="indigo"), "css": CSS,
            "footer_links": ["api"]}


def main() -> None:
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # no request lines in the log
    # uvicorn trusts X-Forwarded-For from loopback by default, which would let a local client
    # pick its own address for the score limit; the Space's proxy address is read explicitly.
    os.environ["FORWARDED_ALLOW_IPS"] = ""
    config = ledger.load_config()
    keys = ledger.KeyLoader(config)
    key_status = keys()
    if key_status.key is None:
        log.warning("Score is disabled until the key loads: %s", key_status.error)
    else:
        log.info("answer key: %d questions from %s", len(key_status.key), key_status.origin)
    board = ledger.BoardCache(ledger.board_store(config), ttl_s=config.cache_ttl_s)
    demo = build_demo(keys, board, ScoreLimiter(score_limits(config)))
    demo.queue(default_concurrency_limit=8).launch(**launch_kwargs())


if __name__ == "__main__":
    main()
