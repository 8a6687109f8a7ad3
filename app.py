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

import bisect
import collections
import functools
import hashlib
import ipaddress
import itertools
import json
import logging
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import altair as alt
import gradio as gr
import gradio.queueing
import gradio.routes
import pandas as pd
from anyio import to_thread
from gradio.components.plot import PlotData
from starlette.middleware import Middleware
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import evaluator
import ledger
from evaluator import Count
from spec import Benchmark, Track

MAX_FILE_SIZE = "5mb"
MAX_UPLOAD_BYTES = 5 * 1024 * 1024
THREAD_SCORE_BYTES = 256 * 1024  # a real submission is ~30 kB; larger ones are scored off-loop
SESSION_CAPACITY = 1000  # Gradio keeps ~80 kB per session: every API call is a new one
UPLOAD_CACHE = (60, 120)  # delete uploads older than 120 s, checking every 60 s

# What a request may carry: every handler is reachable by anyone, with any input.
MAX_REQUEST_BYTES = 256 * 1024  # a body that is not an upload; an event's inputs are a few kB
UPLOAD_ROUTE = "/gradio_api/upload"
MAX_UPLOAD_BODY = MAX_UPLOAD_BYTES + 64 * 1024  # one file of MAX_FILE_SIZE and its framing
MAX_SEARCH_CHARS = 200  # the longest method name a record may have
MAX_SEARCH_WORDS = 20  # each word is one pass over the board (~0.2 ms)
MAX_PICKS = 12  # entries the chart compares
MAX_TRACEBACK_CHARS = 8000  # of an error of the app's own code, in the log
#: Text a spreadsheet would run as a formula when the CSV export is opened (OWASP).
CSV_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: Addresses of no visitor, besides loopback, link-local, multicast, unspecified and reserved
#: ones: private (RFC 1918), shared (RFC 6598, carrier and cloud NAT) and unique local IPv6.
#: The documentation ranges (RFC 5737) stand for public addresses, as in the tests.
INTERNAL_NETWORKS = tuple(ipaddress.ip_network(net) for net in (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7"))

SOURCE_LABELS = {"rescored": "Re-scored", "paper": "Paper"}
#: How the Source column shows them: re-scored rows stand out from paper-reported ones.
SOURCE_BADGES = {"rescored": "**✓ Re-scored**", "paper": "*Paper-reported*"}
NOT_REPORTED = "Not reported"
SIZE_BUCKETS = ("< 10B", "10B – 40B", "≥ 40B", "API / not stated")
EXTERNAL_CHOICES = ("Yes", "No", NOT_REPORTED)
#: The header's links, in this order, for those a spec gives.
LINK_LABELS = {"paper": "Paper", "project": "Project page", "code": "Code", "data": "Data"}

#: The info columns of the spec's vocabulary (spec.BoardColumn) and their headers; "ci" and
#: "input" are named by the track's ranking metric and the benchmark's input label.
INFO_LABELS = {"rank_range": "Rank range", "source": "Source", "team": "Team", "size": "Size",
               "date": "Date", "external": "External data", "links": "Links", "note": "Note"}
#: The generic groups after the spec's views, as info columns in order.
DETAILS = ("ci", "rank_range", "team", "size", "external", "input", "source", "date", "links",
           "note")
ALL_HEAD = ("rank_range", "team", "size", "external", "input", "source")  # then the metrics
ALL_TAIL = ("ci", "date", "links", "note")
WIDTHS = {"rank_range": "86px", "team": "200px", "size": "80px", "source": "136px",
          "date": "108px", "links": "140px", "note": "260px", "ci": "120px",
          "external": "96px", "input": "150px"}
DEFAULT_WIDTH_PX = 84
DEFAULT_WIDTH = f"{DEFAULT_WIDTH_PX}px"
#: A metric column is as wide as its header's longest word needs, at least the default width
#: (which holds 8 characters).
HEADER_CHAR_PX, HEADER_PAD_PX = 9, 12
#: Columns of the board frame that are never shown: ids and what filters and search read.
HIDDEN_COLUMNS = ["_id", "_name", "_source", "_size", "_external", "_input", "_text"]

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


@dataclass(frozen=True)
class ScoreLimits:
    """How many scored submissions one client may make per window, and who a client is
    (LEADERBOARD_SCORE_*, SPACE_ID, LEADERBOARD_TRUSTED_PROXY_HOPS)."""

    limit: int = ledger.SCORE_LIMIT
    window_s: float = ledger.SCORE_WINDOW_S
    on_space: bool = False  # behind the Space proxy: the client comes from X-Forwarded-For
    trusted_hops: int = 0  # public proxies in front of it that append to X-Forwarded-For too


def score_limits(config: ledger.Config) -> ScoreLimits:
    """The limits and the proxy trust ``config`` read."""
    return ScoreLimits(config.score_limit, config.score_window_s, config.on_space,
                       config.trusted_proxy_hops)


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


Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def client_address(request: gr.Request | None, on_space: bool, trusted_hops: int = 0) -> str:
    """Who is scoring, as the limit counts them: an IPv4 address, or an IPv6 address's /64.

    Behind the Space proxy: the rightmost public address of all X-Forwarded-For lines in
    order, past ``trusted_hops`` more public ones. A client can write the entries to the left
    of those its proxies append, in the same line or a line of its own; internal hops and
    entries that are no address are skipped. Without such an entry, or off a Space: the peer
    address (on a Space an internal one, so such requests share one allowance).
    """
    if request is None:
        return "unknown"
    if on_space:
        entries = reversed(_forwarded_entries(request))
        public = (a for a in map(_hop_address, entries) if a is not None and _is_public(a))
        client = next(itertools.islice(public, trusted_hops, None), None)
        if client is not None:
            return _client_key(client)
    host = _peer_host(request)
    peer = _hop_address(host) if host else None
    return _client_key(peer) if peer is not None else host or "unknown"


def forwarded_summary(request: gr.Request) -> str:
    """How a request's X-Forwarded-For is laid out, for the log: counts and kinds, no address."""
    lines = _forwarded_lines(request)
    entries = _forwarded_entries(request)
    kinds = [_kind(_hop_address(e)) for e in entries]
    shown = ", ".join(kinds[-8:]) if len(kinds) <= 8 else "…, " + ", ".join(kinds[-8:])
    host = _peer_host(request)
    return (f"{len(lines)} X-Forwarded-For line{'s' if len(lines) != 1 else ''} with "
            f"{len(entries)} entr{'ies' if len(entries) != 1 else 'y'} ({shown or 'none'}), "
            f"peer address: {_kind(_hop_address(host) if host else None)}")


def _forwarded_lines(request: gr.Request) -> list[str]:
    """Every X-Forwarded-For line in order (Starlette's ``headers.get`` gives the first only)."""
    raw = request.request  # the Starlette request, unless Gradio serialised it
    headers: Any = raw.headers if raw is not None else request.headers
    if hasattr(headers, "getlist"):
        return [str(line) for line in headers.getlist("x-forwarded-for")]
    line = headers.get("x-forwarded-for")  # serialised: one value per header name
    return [] if line is None else [str(line)]


def _forwarded_entries(request: gr.Request) -> list[str]:
    return [entry for line in _forwarded_lines(request) for entry in line.split(",")]


def _peer_host(request: gr.Request) -> str | None:
    client = request.client
    host = getattr(client, "host", None) if client is not None else None
    return str(host) if host else None


def _hop_address(entry: str) -> Address | None:
    """An X-Forwarded-For entry as an address (quotes, brackets and a port dropped); None if
    it is none."""
    text = entry.strip().strip('"')
    if text.startswith("["):
        text, bracket, _ = text[1:].partition("]")
        if not bracket:
            return None
    elif text.count(":") == 1:  # IPv4 with a port
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _is_public(address: Address) -> bool:
    return not (address.is_loopback or address.is_link_local or address.is_multicast
                or address.is_unspecified or address.is_reserved
                or any(address in net for net in INTERNAL_NETWORKS))


def _kind(address: Address | None) -> str:
    return "garbage" if address is None else "public" if _is_public(address) else "internal"


def _client_key(address: Address) -> str:
    """One IPv4 address, or one IPv6 /64 (what a single subscriber is usually given)."""
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((int(address), 64), strict=False))
    return str(address)


# --- the board as a table (pure) ----------------------------------------------------------------


class LayoutError(ValueError):
    """A spec's board would show two columns, or two column groups, under one header."""


@dataclass(frozen=True)
class BoardLayout:
    """How a track's board is shown: its column groups, headers, cell types and widths."""

    groups: Mapping[str, tuple[str, ...]]  # title -> headers; the spec's views, Details, All
    metrics: Mapping[str, str]  # metric key -> header, in display order
    info: Mapping[str, str]  # info column of the spec's vocabulary -> header
    datatypes: Mapping[str, Literal["str", "number", "markdown"]]
    widths: Mapping[str, str]

    @property
    def ranking(self) -> str:
        """The ranking metric's header (it leads every group after Rank and Method)."""
        return next(iter(self.metrics.values()))

    @property
    def columns(self) -> tuple[str, ...]:
        """Every shown column, in the order of the "All" group."""
        return self.groups["All"]


def board_layout(bench: Benchmark, track: Track) -> BoardLayout:
    """The board's columns for ``track``: one group per spec view (Rank, Method and the ranking
    metric, then the view's metrics and columns), then Details and All; LayoutError if two
    columns or groups would share a header."""
    metrics = {track.ranking: track.labels[track.ranking]}
    metrics.update({k: track.labels[k] for k in track.metric_keys if k != track.ranking})
    info = {**INFO_LABELS, "ci": f"{metrics[track.ranking]} 95% CI", "input": bench.input.label}
    lead = ("Rank", "Method", metrics[track.ranking])
    groups: dict[str, tuple[str, ...]] = {}
    problems: list[str] = []
    for view in track.views:
        if view.title in groups or view.title in ("Details", "All"):
            problems.append(f"the column group {view.title!r} is declared twice (Details and "
                            "All are the app's)")
        groups[view.title] = (*lead, *(metrics[k] for k in view.metrics if k != track.ranking),
                              *(info[c] for c in view.columns))
    groups["Details"] = (*lead, *(info[c] for c in DETAILS))
    groups["All"] = (*lead, *(info[c] for c in ALL_HEAD),
                     *(label for k, label in metrics.items() if k != track.ranking),
                     *(info[c] for c in ALL_TAIL))
    for title, headers in groups.items():
        twice = sorted({h for h in headers if headers.count(h) > 1})
        if twice:
            problems.append(f"the column group {title!r} has the header(s) "
                            f"{', '.join(map(repr, twice))} more than once")
    if problems:
        raise LayoutError(f"{bench.id}/{track.id}: the board cannot be laid out: "
                          f"{'; '.join(problems)}. Rename the labels or view titles in "
                          f"{bench.folder / 'benchmark.toml'}")
    datatypes: dict[str, Literal["str", "number", "markdown"]] = {
        "Rank": "number", "Method": "markdown", info["source"]: "markdown",
        info["links"]: "markdown", **{label: "number" for label in metrics.values()}}
    widths = {"Rank": "62px", "Method": "200px", **{info[c]: w for c, w in WIDTHS.items()},
              **{label: _metric_width(label) for label in metrics.values()}}
    return BoardLayout(groups, metrics, info, datatypes, widths)


def _metric_width(label: str) -> str:
    """Wide enough that a header breaks between words, not inside one ("Contradi-ctory")."""
    longest = max((len(word) for word in label.split()), default=0)
    return f"{max(DEFAULT_WIDTH_PX, HEADER_PAD_PX + HEADER_CHAR_PX * longest)}px"


def _macro_keys(track: Track) -> set[str]:
    return {a.key for a in track.summaries if a.aggregation == "macro"}


def record_counts(record: ledger.Record, track: Track) -> dict[str, Count]:
    """A record's counts; for paper rows, its percentages over the track's sizes (a macro mean
    has no count of its own to recover, so it gets none)."""
    if record.counts is not None:
        return dict(record.counts)
    macro = _macro_keys(track)
    return {
        key: Count(correct=round(record.metrics[key] * total / 100), total=total)
        for key, total in track.sizes.items()
        if key in record.metrics and key not in macro
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


def input_label(value: str | None, bench: Benchmark) -> str:
    """How the board shows a record's ``uses_frames``: its label among the spec's choices."""
    return NOT_REPORTED if value is None else bench.input.choices.get(value, value)


def _md_escape(text: str) -> str:
    return re.sub(r"([\\`*_{}\[\]()#+!|<>])", r"\\\1", text)


def _links(record: ledger.Record) -> str:
    parts = []
    if record.publication_url:
        parts.append(f"[paper]({record.publication_url})")
    if record.project_url:
        parts.append(f"[project]({record.project_url})")
    return " · ".join(parts)


def _ranking_count(record: ledger.Record, track: Track) -> Count:
    return record_counts(record, track)[track.ranking]


def board_frame(records: Sequence[ledger.Record], bench: Benchmark,
                track: Track) -> pd.DataFrame:
    """The whole board, best ranking metric first, with unrounded metrics and the rank columns
    (the "All" group's columns, then the hidden ones)."""
    layout = board_layout(bench, track)
    info, ranking = layout.info, track.ranking
    rows = sorted(records, key=lambda r: (-r.metrics.get(ranking, 0.0), r.method_name))
    counts = [_ranking_count(r, track) for r in rows]
    intervals = [evaluator.wilson_interval(c.correct, c.total) for c in counts]
    ranks = rank_ranges(intervals)
    table = []
    for record, (best, worst), (low, high) in zip(rows, ranks, intervals, strict=True):
        method = _md_escape(record.method_name) + (" †" if record.note else "")
        if record.project_url:
            method = f"[{method}]({record.project_url})"
        shown_input = input_label(record.uses_frames, bench)
        external = _yes_no(record.uses_external)
        row: dict[str, Any] = {
            "Rank": best,
            info["rank_range"]: f"{best}" if best == worst else f"{best}–{worst}",
            "Method": method,
            info["team"]: record.team_name,
            info["size"]: record.model_size or "—",
            info["external"]: external,
            info["input"]: shown_input,
            info["source"]: SOURCE_BADGES[record.source],
        }
        row.update({label: record.metrics.get(k) for k, label in layout.metrics.items()})
        row.update({
            info["ci"]: f"{low:.1f}–{high:.1f}",
            info["date"]: record.created_at.date().isoformat(),
            info["links"]: _links(record),
            info["note"]: record.note or "",
            "_id": str(record.id),
            "_name": record.method_name,
            "_source": record.source,
            "_size": size_bucket(record.model_size),
            "_external": external,
            "_input": shown_input,
            "_text": " ".join([record.method_name, record.team_name, record.model_size,
                               record.method_description]).lower(),
        })
        table.append(row)
    return pd.DataFrame(table, columns=[*layout.columns, *HIDDEN_COLUMNS])


@dataclass(frozen=True)
class BoardFilter:
    """What the visitor asked to see."""

    search: str = ""
    sources: tuple[str, ...] = tuple(SOURCE_LABELS.values())
    external: tuple[str, ...] = EXTERNAL_CHOICES
    inputs: tuple[str, ...] = ()  # labels of the spec's input choices; empty: any
    sizes: tuple[str, ...] = SIZE_BUCKETS

    def apply(self, frame: pd.DataFrame) -> pd.DataFrame:
        sources = {key for key, label in SOURCE_LABELS.items() if label in self.sources}
        keep = frame["_source"].isin(sources) & frame["_external"].isin(self.external)
        keep &= frame["_size"].isin(self.sizes)
        if self.inputs:
            keep &= frame["_input"].isin(self.inputs)
        for word in self.search.lower().split():
            keep &= frame["_text"].str.contains(word, regex=False)
        return frame[keep]


class BadInput(ValueError):
    """An event got an input no page sends: too long, too many values, or not a choice."""


#: The filters' labels on the page, as a refusal names them.
FILTER_LABELS = {"sources": "Source", "external": "Uses external data", "sizes": "Model size"}


def board_filter(search: object, sources: object, external: object, inputs: object,
                 sizes: object, bench: Benchmark) -> BoardFilter:
    """What a visitor asked to see, checked before any work is done for it.

    BadInput if the search is not text of at most MAX_SEARCH_CHARS characters and
    MAX_SEARCH_WORDS words (each word costs a pass over the board), or a selection is not a
    list of at most as many values as it has choices, each one of them. None ticks nothing.
    """
    if search is None:
        search = ""
    if not isinstance(search, str):
        raise BadInput(f"The search must be text; got {_quoted(search)}.")
    if len(search) > MAX_SEARCH_CHARS:
        raise BadInput(f"The search is {len(search)} characters long; search for at most "
                       f"{MAX_SEARCH_CHARS} characters ({MAX_SEARCH_WORDS} words).")
    words = len(search.split())
    if words > MAX_SEARCH_WORDS:
        raise BadInput(f"The search has {words} words; search for at most {MAX_SEARCH_WORDS} "
                       "words.")
    return BoardFilter(
        search,
        _selection(FILTER_LABELS["sources"], sources, tuple(SOURCE_LABELS.values())),
        _selection(FILTER_LABELS["external"], external, EXTERNAL_CHOICES),
        _selection(bench.input.label, inputs, (*bench.input.choices.values(), NOT_REPORTED)),
        _selection(FILTER_LABELS["sizes"], sizes, SIZE_BUCKETS))


def _selection(label: str, value: object, choices: Sequence[str]) -> tuple[str, ...]:
    """Ticked values of ``choices`` as a tuple; BadInput naming ``label`` if they are not."""
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise BadInput(f"{label}: expected a list of its choices; got {_quoted(value)}.")
    if len(value) > len(choices):
        raise BadInput(f"{label}: expected at most {len(choices)} of {_listed(choices)}; got "
                       f"{len(value)} values.")
    for item in value:
        if not isinstance(item, str) or item not in choices:
            raise BadInput(f"{label}: {_quoted(item)} is not one of {_listed(choices)}.")
    return tuple(value)


def _quoted(value: object, limit: int = 40) -> str:
    """A refused value as a message quotes it: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _listed(choices: Sequence[str]) -> str:
    return ", ".join(map(repr, choices))


def visible_columns(frame: pd.DataFrame, group: str, bench: Benchmark,
                    track: Track) -> pd.DataFrame:
    """The columns of one column group, the first if unknown (metrics unrounded:
    ``one_decimal`` formats them)."""
    groups = board_layout(bench, track).groups
    return frame[list(groups.get(group, next(iter(groups.values()))))]


def one_decimal(frame: pd.DataFrame, columns: Sequence[str]) -> Any:
    """A Styler showing ``columns`` to one decimal; the cells stay numbers, so sorting works."""
    present: list[Hashable] = [c for c in columns if c in frame.columns]
    return frame.style.format("{:.1f}", subset=present, na_rep="—")


def export_rows(frame: pd.DataFrame, records: Sequence[ledger.Record],
                track: Track) -> list[dict[str, Any]]:
    """Rows for CSV/JSON/API: full precision, plain names, counts and intervals included."""
    by_id = {str(r.id): r for r in records}
    ranking = track.ranking
    rows = []
    for _, row in frame.iterrows():
        record = by_id[row["_id"]]
        count = _ranking_count(record, track)
        low, high = evaluator.wilson_interval(count.correct, count.total)
        out: dict[str, Any] = {
            "rank": int(row["Rank"]),
            "rank_range": row[INFO_LABELS["rank_range"]],
            "id": row["_id"],
            "method_name": record.method_name,
            "team_name": record.team_name,
            "model_size": record.model_size,
            "uses_external": record.uses_external,
            "uses_frames": record.uses_frames,
            "source": record.source,
        }
        out.update({k: record.metrics.get(k) for k in track.metric_keys})
        out.update({
            f"{ranking}_ci_low": low,
            f"{ranking}_ci_high": high,
            # In the track's display order, whatever order the record file has.
            "counts": None if record.counts is None
            else {k: record.counts[k].model_dump() for k in track.metric_keys
                  if k in record.counts},
            "n_abstained": record.n_abstained,
            "created_at": record.created_at.isoformat(),
            "project_url": record.project_url,
            "publication_url": record.publication_url,
            "method_description": record.method_description,
            "note": record.note,
        })
        rows.append(out)
    return rows


def export_csv(rows: Sequence[Mapping[str, Any]]) -> bytes:
    """``export_rows`` as CSV, counts left out. A text cell a spreadsheet would run as a
    formula (one starting with =, +, -, @, a tab or a carriage return) gets a leading
    apostrophe, as OWASP advises; numbers stay numbers, and the JSON export keeps the text."""
    frame = pd.DataFrame(list(rows)).drop(columns=["counts"], errors="ignore")
    return frame.map(_inert_cell).to_csv(index=False).encode()


def _inert_cell(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(CSV_FORMULA_STARTS):
        return "'" + value
    return value


def chart_keys(track: Track) -> tuple[str, ...]:
    """The metrics a split chart shows: the spec's ``chart``, else the ranking metric and the
    groups of the first grouping."""
    return track.chart or (track.ranking, *(g.key for g in track.groupings[0].groups))


@functools.lru_cache(maxsize=128)
def _chart_spec(entries: tuple[str, ...], order: tuple[str, ...], title: str) -> str:
    """The Vega-Lite spec of a split chart without its data (altair is slow: build it once)."""
    chart = (
        alt.Chart(title=title)
        .mark_bar(cornerRadiusEnd=2)
        .encode(
            y=alt.Y("Split:N", sort=list(order), title=None),
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


def split_chart(series: dict[str, dict[str, float]], title: str, track: Track) -> PlotData:
    """Grouped horizontal bars: a group per split of ``chart_keys(track)``, a bar per series.

    Horizontal, so the chart fits the width of any screen and only grows in height.
    """
    keys = chart_keys(track)
    labels = track.labels
    spec = json.loads(_chart_spec(tuple(series), tuple(labels[k] for k in keys), title))
    spec.pop("datasets", None)
    spec["data"] = {"values": [
        {"Split": labels[k], "Accuracy (%)": round(metrics[k], 2), "Entry": name}
        for name, metrics in series.items() for k in keys if k in metrics
    ]}
    return PlotData(type="altair", plot=json.dumps(spec))


# --- score presentation (pure) ------------------------------------------------------------------


def score_table(result: evaluator.ScoreResult, track: Track) -> pd.DataFrame:
    """A row per metric of the track, by its long name, shown to one decimal.

    A macro mean is not correct / questions, so its row shows no "Correct" count.
    """
    macro = _macro_keys(track)
    rows = []
    for key in track.metric_keys:
        if key not in result.counts:
            continue
        count, (low, high) = result.counts[key], result.intervals[key]
        # Text, shown to one decimal: the /score JSON carries the numbers at full precision.
        rows.append({"Split": track.names[key], "Accuracy (%)": f"{result.metrics[key]:.1f}",
                     "Correct": "—" if key in macro else count.correct,
                     "Questions": count.total, "95% CI": f"{low:.1f}–{high:.1f}"})
    return pd.DataFrame(rows)


def score_summary(result: evaluator.ScoreResult, track: Track) -> str:
    ranking = track.ranking
    count, (low, high) = result.counts[ranking], result.intervals[ranking]
    abstained = (f"{result.n_abstained} question{'s' if result.n_abstained != 1 else ''} "
                 "without an answer (scored as wrong)")
    version = f" · answer key {result.key_version}" if result.key_version else ""
    return (
        f"### {track.labels[ranking]}: {result.metrics[ranking]:.1f} %\n"
        f"{count.correct} of {count.total} correct · 95 % CI {low:.1f}–{high:.1f} · "
        f"{abstained}{version}\n\n"
        f"File sha256 `{result.submission_sha256[:16]}…` (quote it when you e-mail the file "
        "to get listed). Nothing about this file was stored."
    )


def score_json(result: evaluator.ScoreResult) -> dict[str, Any]:
    """The numbers, named exactly as the evaluator names them (for gradio_client users)."""
    return result.model_dump(mode="json", exclude={"answer_key_sha256"})


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
                raise BadInput(f"Column group: {_quoted(group)} is not one of "
                               f"{_listed(list(layout.groups))}.")
        except BadInput as exc:
            raise gr.Error(str(exc), print_exception=False) from None
        snapshot, frame = current()
        chosen = wanted.apply(frame)
        csv_path, json_path = exports.write(export_rows(chosen, snapshot.records, track))
        notes = "  \n".join(f"† **{_md_escape(str(n))}**: {_md_escape(str(t))}"
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


class BodyLimit:
    """ASGI middleware bounding every request body before the app reads any of it.

    An upload (``upload_path``) must declare its length, at most ``upload_limit``: one file of
    MAX_FILE_SIZE and its framing (Gradio itself bounds each file, not how many one request
    carries). It is then streamed on as Gradio reads it. Any other body is at most ``limit``:
    a larger Content-Length is refused at once, and a chunked body is read up to the limit
    and handed on whole.
    """

    def __init__(self, app: ASGIApp, limit: int = MAX_REQUEST_BYTES,
                 upload_path: str = UPLOAD_ROUTE, upload_limit: int = MAX_UPLOAD_BODY) -> None:
        self.app = app
        self.limit = limit
        self.upload_path = upload_path
        self.upload_limit = upload_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if scope["path"] == self.upload_path:
            if declared is None:
                await _refuse(scope, receive, send, 411, "An upload must declare its "
                              "Content-Length.")
            elif declared > self.upload_limit:
                await _refuse(scope, receive, send, 413, f"An upload is one file of at most "
                              f"{MAX_FILE_SIZE}; this request declares {declared} bytes.")
            else:
                await self.app(scope, receive, send)
            return
        if declared is not None and declared > self.limit:
            await self._too_large(scope, receive, send)
            return
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._too_large(scope, receive, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # e.g. the disconnect a streamed response waits for
            replayed = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        await self.app(scope, replay, send)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        await _refuse(scope, receive, send, 413, f"The request body is too large: at most "
                      f"{self.limit} bytes are accepted (files go to {self.upload_path}, one "
                      f"of at most {MAX_FILE_SIZE} per request).")


def _content_length(scope: Scope) -> int | None:
    """The declared body length; None if none is declared, a huge one if it is no number."""
    raw = dict(scope["headers"]).get(b"content-length")
    if raw is None:
        return None
    return int(raw) if raw.isdigit() and len(raw) <= 18 else 2**63


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, detail: str) -> None:
    # Connection: close, so the rest of a refused body is never read as the next request.
    response = JSONResponse({"detail": detail}, status_code=status,
                            headers={"Connection": "close"})
    await response(scope, receive, send)


class RefusalLog:
    """Stands in for ``traceback`` in the Gradio modules that report failed requests.

    Gradio prints each event input it refuses before the handler runs (a bare string for a
    File, a path outside the upload folder, a value no choice has, too few inputs) with
    ``traceback.print_exc()``, straight to stderr: ~25 lines that echo the payload, 100 kB of
    log for a 100 kB "path". Here such a refusal is one short line without the payload. Any
    other failure, an error of the app's own code above all, keeps its traceback, each line
    and the whole cut short (MAX_TRACEBACK_CHARS).
    """

    def __init__(self, log: logging.Logger) -> None:
        self._log = log

    def __getattr__(self, name: str) -> Any:
        return getattr(traceback, name)

    def print_exc(self, limit: int | None = None, file: Any = None, chain: bool = True) -> None:
        exc = sys.exception()
        if exc is None:
            return
        frames = traceback.extract_tb(exc.__traceback__)
        refused = (any(f.name == "preprocess_data" for f in frames)
                   and not any(_own_code(f.filename) for f in frames))
        if refused:
            where = next((f"{Path(f.filename).stem}.{f.name}" for f in reversed(frames)
                          if "gradio" in Path(f.filename).parts), "gradio")
            self._log.warning("refused an event's input before its handler ran: %s in %s",
                              type(exc).__name__, where)
            return
        lines = [line if len(line) <= 300 else line[:300] + "…"
                 for line in "".join(traceback.format_exception(exc)).splitlines()]
        text = "\n".join(lines)
        if len(text) > MAX_TRACEBACK_CHARS:
            half = MAX_TRACEBACK_CHARS // 2
            text = f"{text[:half]}\n[… {len(text) - 2 * half} characters …]\n{text[-half:]}"
        self._log.error("an event failed:\n%s", text)


_APP_DIR = Path(__file__).resolve().parent


def _own_code(filename: str) -> bool:
    """A file of this app (app.py, ledger, evaluator, ...), not of an installed package."""
    path = Path(filename)
    return (path.is_relative_to(_APP_DIR)
            and not {"site-packages", "dist-packages"} & set(path.parts))


def log_refusals_briefly(log: logging.Logger) -> None:
    """Route Gradio's tracebacks of failed requests through RefusalLog into ``log``."""
    for module in (gradio.queueing, gradio.routes):
        vars(module)["traceback"] = RefusalLog(log)  # each calls traceback.print_exc()


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
