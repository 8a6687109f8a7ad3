"""A fresh page of the Leaderboard tab as its address says (``address`` reads it): the
track, the column group, the search, the filters, the sort and the open card, each value the
board offers; what the address asked and the board lacks is said under the status line.

``landing`` is the page load's one handler (``page`` wires it), over the tab's ``BoardTab``
as ``handlers``' are: the board, the track, the card, the controls and the charts in one
answer. The charts were a second load handler's once, and the picks it set asked for the
chart of the track the Track radio named *then*: before the landing had set it, the first
track's (issue 31: ``?track=decision`` showed the Understanding chart on 15 of 24 loads). In
one answer, the picks' own change reads the track that answer set. The box of the Hub's
results, loaded apart (a slow Hub delays nothing else), is ``landing_hub``'s, of the track the
address names too.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from web.board.address import BoardAddress, read_address
from web.board.chart_handlers import charts_of
from web.board.handlers import BoardTab, Controls, card, find_entry, shown_board
from web.board.hub_results import hub_section


def addressed(tab: BoardTab, request: gr.Request) -> tuple[BoardAddress, list[str]]:
    """The view a page's address asks for (``address``), and what it ignored: the entry's
    track is the board whose records have it."""

    def entry_track(entry: str) -> str | None:
        found = find_entry(tab, entry, tab.first)
        return found[0].track.id if found is not None else None

    params = getattr(request, "query_params", None)
    pairs = params.multi_items() if params is not None else []
    return read_address(pairs, tab.offer, entry_track)


def landing(tab: BoardTab, request: gr.Request) -> tuple[Any, ...]:
    """A fresh page as its address says: the board, the track, the card of the entry, the
    controls (search, column group, filters, and the filters' accordion, open when the address
    ticks one), the track's charts (``charts_of``: heading, picks, side by side, by size, by
    date), then what the address asked and the board lacks, a line each (shown only if any).
    Those lines are a block of their own under the status line: in the status line, the
    rendering that a search from the address asks for next wrote them away (issue 31)."""
    asked, ignored = addressed(tab, request)
    s, wanted = tab.tracks[asked.track], asked.wanted
    ticked = (wanted.sources, wanted.external, wanted.inputs, wanted.sizes)
    sources, external, inputs, sizes = filters = [list(values) for values in ticked]
    controls = Controls[object](
        wanted.search, sources, external, inputs, sizes, asked.group, asked.sort, s.track.id
    )
    table, status, *board = shown_board(tab, controls, entry=asked.entry)
    entry = asked.entry
    box, html = card(tab, entry, s) if entry is not None else (gr.update(visible=False), "")
    chosen = [gr.update(value=s.track.id)] if tab.many else []
    groups = list(tab.layouts[s.track.id].groups)
    return (
        table,
        status,
        *board,
        *chosen,
        box,
        html,
        gr.update(value=wanted.search),
        gr.update(choices=groups, value=asked.group),
        *(gr.update(value=values) for values in filters),
        gr.update(open=True) if any(filters) else gr.update(),  # what hides rows, in sight
        *charts_of(tab, s),
        gr.update(value="  \n".join(ignored), visible=bool(ignored)),
    )


def landing_hub(tab: BoardTab, request: gr.Request) -> Any:
    """A fresh page's box of the Hub's results: the track's the address names (read from the
    address, as ``landing`` reads it, not from the Track radio, which the landing may not have
    set yet: the first track's box showed under another track's board)."""
    return hub_section(tab, addressed(tab, request)[0].track)
