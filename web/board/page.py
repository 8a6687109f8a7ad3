"""The Leaderboard tab: the board of each track, its filters, sorting, row cards and charts.

``build_board_tab`` lays the tab out inside the page's ``gr.Blocks`` and wires its events to
``handlers``' functions over the tab's ``BoardTab``. The table is an HTML ``<table>``
(``table``): a header click sorts it by that column, a method opens its row's card.

The whole view is in the page's address (``address`` reads and writes it), so a reload or a
shared link shows it again: ``track`` (an id, or a title in any case), ``q`` (the search),
``cols`` (the column group), ``source``, ``external``, ``input`` and ``size`` (a filter's ticked
values, once each), ``sort`` (a header) with ``rev=1`` (reversed), and ``entry`` (the record
whose card is open). The landing (``landing``) sets every control from it, and says under the
status line what it ignored; after each rendering of the board the table's script
(web/js/board_address.js) writes the view back (``history.replaceState``, no request of its
own). The filters, the column group and the track listen to ``.input`` (the visitor's changes),
so setting them on landing asks nothing twice; the search listens to ``.change`` (see
build_board_tab). ``/leaderboard`` (and ``/leaderboard_<track>``) give the boards as JSON,
``/entry`` a row's card, on the board or not (``entry``). When the spec asks, the Hub's own
results for the benchmark are shown below the board, apart and marked unverified, by events of
their own (``hub_results``). Every handler is safe for anyone to call: an event's inputs and its
event data are checked before any work. The page's scripts are files of web/js/, each read
here once, at import (web.page_js).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gradio as gr
from gradio.blocks import Block

from spec import Benchmark
from web.board import chart_handlers, entry, handlers, hub_results, landing
from web.board.address import PARAMS
from web.board.chart_handlers import MAX_PICKS
from web.board.filters import MAX_SEARCH_CHARS, filter_labels
from web.charts import chart_texts
from web.page_js import page_script
from web.served import Served
from web.wiring import bound, typed

#: The table's scripts: a header click sorts, a method opens its card; then the view the server
#: rendered last is written into the address, whose parameters are address.PARAMS.
TABLE_JS = page_script("board_table.js")
ADDRESS_JS = page_script("board_address.js", BOARD_PARAMS=PARAMS)
#: The card's script: its permalink shown as the full URL it is on this page.
PERMALINK_JS = page_script("card_permalink.js")
#: Once a card is open, its box scrolled into view; once closed, its entry left out of the
#: address.
CARD_OPENED_JS, CARD_CLOSED_JS = page_script("card_opened.js"), page_script("card_closed.js")
#: A tab's select: every chart re-measures its block (one drawn while hidden was 0 px wide).
REMEASURE_JS = page_script("charts_remeasure.js")


def build_board_tab(
    demo: gr.Blocks,
    bench: Benchmark,
    served: Sequence[Served],
    clock: Callable[[], float],
    files: Path | None = None,
) -> None:
    """The Leaderboard tab's components and events, inside ``demo``'s current tab, and the
    ``/leaderboard`` endpoints; its downloads are written under ``files`` (the app's own files,
    export_files). LayoutError if a spec's board cannot be laid out."""
    tab = handlers.board_tab(bench, served, clock, files)  # fails here, at boot, on a bad spec
    first, many = tab.first, tab.many
    first_layout = tab.layouts[first.track.id]
    labels, choices = filter_labels(bench), tab.offer.filters
    board_track = (
        gr.Radio(
            [(s.track.title, s.track.id) for s in served],
            value=first.track.id,
            label="Track",
            elem_id="board-track",
        )
        if many
        else None
    )
    status = gr.Markdown(elem_id="board-status")
    address_notes = gr.Markdown(elem_id="board-address", visible=False)  # the landing's alone
    with gr.Row(equal_height=True):
        search = gr.Textbox(
            placeholder="Search method, team, size…",
            label="Search the board",
            show_label=False,
            scale=2,
            min_width=260,
            max_length=MAX_SEARCH_CHARS,
            elem_id="board-search",
        )
        group = gr.Radio(
            list(first_layout.groups),
            value=next(iter(first_layout.groups)),
            label="Columns",
            show_label=False,
            scale=3,
            min_width=300,
            elem_id="column-group",
        )
    with gr.Accordion("Filters", open=False, elem_id="board-filters") as filters_box:
        with gr.Row():
            sources = gr.CheckboxGroup(list(choices["sources"]), value=[], label=labels["sources"])
            external = gr.CheckboxGroup(
                list(choices["external"]), value=[], label=labels["external"]
            )
            sizes = gr.CheckboxGroup(list(choices["sizes"]), value=[], label=labels["sizes"])
        inputs = gr.CheckboxGroup(list(choices["inputs"]), value=[], label=labels["inputs"])
    sort_state = gr.State(None)
    with gr.Column(visible=False, elem_id="entry-card-box") as card_box:
        card_view = gr.HTML(elem_id="entry-card", js_on_load=PERMALINK_JS)
        close = gr.Button("Close the card", size="sm", elem_id="entry-card-close")
    table = gr.HTML(elem_id="board-table", js_on_load=TABLE_JS + ADDRESS_JS)
    notes = gr.Markdown(elem_id="board-notes")
    with gr.Row(elem_id="board-actions"):
        csv_button = gr.DownloadButton(
            "Download CSV", size="sm", scale=0, min_width=120, elem_id="download-csv"
        )
        json_button = gr.DownloadButton(
            "Download JSON", size="sm", scale=0, min_width=120, elem_id="download-json"
        )
        refresh = gr.Button("Refresh", size="sm", scale=0, min_width=90, elem_id="board-refresh")
    # The Hub's own results, apart and unverified, when a track shows them (hub_results).
    shows_hub = any(s.hub_results is not None for s in served)
    hub_box = gr.HTML(visible=False, elem_id="hub-results") if shows_hub else None
    compare = gr.Markdown(chart_texts(first.track)[0], elem_id="board-compare")
    with gr.Tabs(elem_id="chart-tabs") as chart_tabs:
        with gr.Tab("Side by side", id="chart-splits"):  # per split or scenario: any track
            picks = gr.Dropdown(
                multiselect=True,
                label=f"Entries (up to {MAX_PICKS})",
                elem_id="chart-picks",
                max_choices=MAX_PICKS,
            )
            board_plot = gr.Plot(show_label=False, elem_id="board-chart")
        with gr.Tab("By model size", id="chart-size"):
            size_plot = gr.Plot(show_label=False, elem_id="size-chart")
        with gr.Tab("By date", id="chart-date"):
            date_plot = gr.Plot(show_label=False, elem_id="date-chart")

    # The handlers over this tab (bound, not functools.partial: Gradio still sees which
    # parameter wants the gr.Request or the gr.EventData).
    land = bound(landing.landing, tab)
    view, resort = bound(handlers.view, tab), bound(handlers.resort, tab)
    reread = bound(handlers.reread, tab)
    open_card, chart = bound(handlers.open_card, tab), bound(chart_handlers.chart, tab)
    switch = bound(chart_handlers.switch, tab)
    # One track: the track input every handler takes is a constant of the session.
    track_input = board_track if board_track is not None else gr.State(first.track.id)
    # What every event that shows the board sends: its controls, in handlers.Controls' order.
    board_inputs = handlers.Controls[Block](
        search, sources, external, inputs, sizes, group, sort_state, track_input
    ).values()
    board_outputs = [table, status, notes, csv_button, json_button, sort_state]
    chart_outputs = [compare, picks, board_plot, size_plot, date_plot]
    private: dict[str, Any] = {"api_visibility": "private", "show_progress": "hidden"}
    on_track = [board_track] if board_track is not None else []
    controls = [search, group, sources, external, inputs, sizes, filters_box]
    # One load handler: the picks it sets ask for the chart of the track it sets (landing).
    landed = [
        *board_outputs,
        *on_track,
        card_box,
        card_view,
        *controls,
        *chart_outputs,
        address_notes,
    ]
    demo.load(land, None, landed, **private)
    # .input, not .change: the visitor's changes alone; the landing sets the controls from the
    # address with the board they show, which must not ask for it again. The search keeps
    # .change: Gradio 6.31's Textbox sends .input on a key press only, not on a paste from the
    # menu or a value set by script, so a landing with ?q= renders the board once more.
    for control in (sources, external, inputs, sizes, group):
        control.input(view, board_inputs, board_outputs, **private)
    search.change(view, board_inputs, board_outputs, trigger_mode="always_last", **private)
    refresh.click(reread, board_inputs, board_outputs, **private)
    table.click(resort, board_inputs, board_outputs, **private)
    table.select(open_card, track_input, [card_box, card_view], **private).then(
        None, js=CARD_OPENED_JS
    )
    close.click(
        lambda: gr.update(visible=False),
        None,
        card_box,
        queue=False,
        js=CARD_CLOSED_JS,
        **private,
    )
    # Unprocessed: on a track switch the page may send the old track's picks once, which
    # Gradio would refuse as no choice; chart() bounds its input and skips unknown names.
    picks.change(
        chart,
        [picks, track_input],
        board_plot,
        trigger_mode="always_last",
        preprocess=False,
        **private,
    )
    chart_tabs.select(None, js=REMEASURE_JS, **private)
    if board_track is not None:
        board_track.input(switch, board_track, [group, *chart_outputs], **private).then(
            view, board_inputs, board_outputs, **private
        )
    if hub_box is not None:  # its own events: a slow or failing Hub delays nothing else
        hub_section = bound(hub_results.hub_section, tab)
        # The address's track, not the radio's: the landing may not have set it yet.
        demo.load(bound(landing.landing_hub, tab), None, hub_box, **private)
        reread_hub = bound(hub_results.hub_section_reread, tab)
        refresh.click(reread_hub, track_input, hub_box, **private)
        if board_track is not None:
            board_track.input(hub_section, board_track, hub_box, **private)
    # A real function each, named and described for the API page (handlers.leaderboard_api):
    # the first track's board, then on a several-track benchmark each track's.
    apis = [("leaderboard", first), *((f"leaderboard_{s.track.id}", s) for s in served if many)]
    for api_name, s in apis:
        gr.api(typed(handlers.leaderboard_api(tab, s)), api_name=api_name)  # type: ignore[attr-defined]
    # A row's card as JSON, on the board or not (superseded, withdrawn): entry.
    gr.api(typed(entry.entry_api(tab)), api_name="entry")  # type: ignore[attr-defined]
