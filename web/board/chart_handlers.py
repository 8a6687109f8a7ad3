"""The Leaderboard tab's charts and its track switch: handlers over a ``BoardTab``
(``handlers``), which ``page`` wires.

``charts_of`` gives a track's charts (the landing's and the switch's), ``chart`` the side-by-side
chart of the entries picked, ``switch`` another track's column groups and charts; a board with
no entries says so in each chart's place. Every handler checks what its event sends before any
work, as ``handlers``' do.

Example:

>>> import time, evaluator, ledger, spec
>>> from web.board.handlers import board_tab
>>> bench = spec.load_benchmark("egomemreason")
>>> track = bench.track()
>>> key = evaluator.load_answer_key(track, bench.demo_key(track).read_bytes())
>>> status = ledger.KeyStatus(key, "synthetic demo key", demo=True, error=None)
>>> board = ledger.BoardCache(ledger.LocalStore(bench.demo_board), bench, track)
>>> tab = board_tab(bench, [Served(track, lambda: status, board)], time.time)
>>> heading, picks, side_by_side, by_size, by_date = charts_of(tab, tab.first)
>>> picks["value"][:1], side_by_side.type
(['DemoVLM-7B (synthetic)'], 'altair')
"""

from __future__ import annotations

from typing import Any

import gradio as gr
from gradio.components.plot import PlotData

import evaluator
from web.board.handlers import BoardTab, current, picked
from web.board.ranks import shown_interval
from web.charts import chart_keys, chart_texts, note_chart, split_chart
from web.scatter_charts import date_chart, plotted, size_chart
from web.served import Served

MAX_PICKS = 12  # entries the side-by-side chart compares

#: What a chart of a board with no entries says in its place (it was blank, or hidden).
NO_ENTRIES_CHART = "No entries yet: the board's entries are drawn here once it has some."


def chart(tab: BoardTab, methods: list[str], track_id: str | None) -> PlotData:
    """The side-by-side chart of the entries picked, each a dot with its 95 % interval (names
    the board no longer has are skipped); on a board with no entries, a note saying so."""
    methods = methods or []
    if (
        not isinstance(methods, list)
        or len(methods) > MAX_PICKS
        or not all(isinstance(m, str) for m in methods)
    ):
        raise gr.Error(f"Compare at most {MAX_PICKS} entries of the board.", print_exception=False)
    s = picked(tab, track_id)
    snapshot = s.board.snapshot()
    by_name = {r.method_name: r for r in snapshot.records}
    picked_rows = [m for m in methods if m in by_name]  # one gone since the page loaded
    keys = chart_keys(s.track)
    if not any(k in r.metrics for r in snapshot.records for k in keys):
        return note_chart(NO_ENTRIES_CHART)  # nothing to pick: not "no entry picked"
    return split_chart(
        {m: dict(by_name[m].metrics) for m in picked_rows},
        chart_texts(s.track)[1],
        s.track,
        {m: {k: shown_interval(by_name[m], s.track, k) for k in keys} for m in picked_rows},
        key_chance(s),
    )


def key_chance(s: Served) -> float | None:
    """Chance on the track's key, for its charts' level (None without a key, or on a kind
    without a chance rate: evaluator.chance)."""
    key = s.keys().key
    return None if key is None else evaluator.chance(key)


def charts_of(tab: BoardTab, s: Served) -> tuple[Any, ...]:
    """A track's charts: (heading, picks, side by side, by size, by date); on a board with
    nothing to compare, no picks and each chart saying so (they were blank)."""
    snapshot, frame = current(tab, s)
    keys, by_id = chart_keys(s.track), {str(r.id): r for r in snapshot.records}
    # The rows the chart can show: a paper row of other columns has none of its dots.
    names = [by_id[i].method_name for i in frame["_id"] if any(k in by_id[i].metrics for k in keys)]
    top = names[:5]
    rows = plotted(snapshot.records, s.track)
    heading = gr.update(visible=True, value=chart_texts(s.track)[0])
    if not names and not rows:  # an empty board has nothing to compare: each chart says so
        empty = note_chart(NO_ENTRIES_CHART)
        return heading, gr.update(visible=False, choices=[], value=[]), empty, empty, empty
    chance = key_chance(s)
    return (
        heading,
        gr.update(visible=True, choices=names, value=top),
        chart(tab, top, s.track.id),
        size_chart(rows, s.track, chance),
        date_chart(rows, s.track, chance),
    )


def switch(tab: BoardTab, track_id: str | None) -> tuple[Any, ...]:
    """Another track's board: its column groups, its charts (the table follows)."""
    s = picked(tab, track_id)
    groups = list(tab.layouts[s.track.id].groups)
    return (gr.update(choices=groups, value=groups[0]), *charts_of(tab, s))
