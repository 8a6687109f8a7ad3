"""The Leaderboard tab: the board of each track, its filters, sorting, row cards and charts.

``build_board_tab`` lays the tab out inside the page's ``gr.Blocks`` and wires its events. The
table is an HTML ``<table>`` (board_table): a header click sorts it by that column, a method
opens its row's card, and ``?entry=<record id>`` (with ``?track=<track id>`` on a several-track
benchmark) opens a card, or selects a track, straight from the address. ``/leaderboard`` (and
``/leaderboard_<track>``) give the boards as JSON. Every handler is safe for anyone to call: an
event's inputs and its event data are checked before any work.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd
from gradio.components.plot import PlotData

import ledger
from errors import BadInput
from spec import Benchmark, Track
from web.board_table import (
    TABLE_JS,
    Sort,
    card_html,
    kept_sort,
    next_sort,
    reproduce_command,
    sort_frame,
    table_html,
)
from web.board_view import (
    EXTERNAL_CHOICES,
    MAX_PICKS,
    MAX_SEARCH_CHARS,
    NOT_REPORTED,
    SIZE_BUCKETS,
    SOURCE_LABELS,
    BoardLayout,
    board_csv,
    board_filter,
    board_frame,
    board_layout,
    empty_text,
    export_rows,
    filter_labels,
    listed,
    md_escape,
    quoted,
    status_line,
)
from web.charts import (
    chart_axis,
    chart_groups,
    chart_keys,
    date_chart,
    plotted,
    size_chart,
    split_chart,
)
from web.served import Served

#: The longest record id an event or an address may name (a UUID is 36 characters).
MAX_ENTRY_CHARS = 64


def chart_texts(track: Track) -> tuple[str, str]:
    """The board chart's heading and title: "### Compare entries per split", "Accuracy per
    split" (per scenario on a decision board)."""
    per = chart_groups(track)
    noun = chart_axis(track)[0].split(" (")[0]
    return f"### Compare entries per {per}", f"{noun} per {per}"


def paper_caption(track: Track) -> str:
    """Under a board whose paper rows carry columns of their own: where they are, and that they
    are ranked among themselves ("" for a board without such columns)."""
    if not track.paper_metric_keys:
        return ""
    paper = set(track.paper_metric_keys)
    views = [v.title for v in track.views if paper & set(v.metrics)]
    where = f" (the **{md_escape(views[0])}** view)" if views else ""
    return (
        f"Rows marked *Paper-reported* carry the paper's own columns{where}, not this "
        "Space's, and are ranked among themselves by "
        f"{md_escape(track.labels[track.paper_ranking])}."
    )


def notes_markdown(frame: pd.DataFrame) -> str:
    """The board's notes under it: one line per note, naming the rows that carry it."""
    rows: dict[str, list[str]] = {}
    for name, note in zip(frame["_name"], frame["_note"], strict=True):
        if note:
            rows.setdefault(str(note), []).append(str(name))
    return "  \n".join(
        f"† **{md_escape(', '.join(names))}**: {md_escape(note)}" for note, names in rows.items()
    )


class Exports:
    """CSV/JSON files of a board view, named by content so identical views share one file."""

    def __init__(self, stem: str) -> None:
        self._stem = stem  # "<benchmark>-leaderboard"
        self._dir = Path(tempfile.mkdtemp(prefix=f"{stem}-exports-"))

    def write(self, table_csv: bytes, rows: list[dict[str, Any]]) -> tuple[str, str]:
        payloads = {
            "csv": table_csv,
            "json": json.dumps(rows, indent=1, ensure_ascii=False).encode(),
        }
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


def _entry_id(value: object) -> str | None:
    """A record id an event or an address names, as the board writes ids; None if it is not
    one (anyone can send anything)."""
    if not isinstance(value, str) or len(value) > MAX_ENTRY_CHARS:
        return None
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


def _board_dir(board: ledger.BoardCache) -> str | None:
    """The folder a local board is read from, as reproduce_row.py's --leaderboard-dir takes it
    (None for the Hub's records dataset, reproduce_row's default)."""
    store = board.store
    if not isinstance(store, ledger.LocalStore):
        return None
    root = store.root.resolve()
    try:
        return str(root.relative_to(Path.cwd()))
    except ValueError:
        return str(root)


def build_board_tab(
    demo: gr.Blocks, bench: Benchmark, served: Sequence[Served], clock: Callable[[], float]
) -> None:
    """The Leaderboard tab's components and events, inside ``demo``'s current tab, and the
    ``/leaderboard`` endpoints. LayoutError if a spec's board cannot be laid out."""
    tracks = {s.track.id: s for s in served}
    first = served[0]
    many = len(served) > 1
    # Fails here, at boot, on a clashing spec.
    layouts = {tid: board_layout(bench, s.track) for tid, s in tracks.items()}
    offered = {title for layout in layouts.values() for title in layout.groups}
    exports = {
        tid: Exports(f"{bench.id}-{tid}-leaderboard" if many else f"{bench.id}-leaderboard")
        for tid in tracks
    }

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

    def columns_of(group: object, layout: BoardLayout) -> tuple[str, ...]:
        """The headers of a column group; the first group's for another track's group (a
        switch under way). BadInput for a group no board has."""
        if group is not None and (not isinstance(group, str) or group not in offered):
            raise BadInput(
                f"Column group: {quoted(group)} is not one of {listed(list(layout.groups))}."
            )
        return layout.groups.get(group or "", next(iter(layout.groups.values())))

    def shown_board(
        search: str,
        sources: list[str],
        external: list[str],
        inputs: list[str],
        sizes: list[str],
        group: str,
        sort: Sort | None,
        s: Served,
        clicked: object = None,
    ) -> tuple[Any, ...]:
        try:  # before any work: anyone can send any input
            wanted = board_filter(search, sources, external, inputs, sizes, bench)
            layout = layouts[s.track.id]
            columns = columns_of(group, layout)
            sort = kept_sort(sort if isinstance(sort, Sort) else None, columns)
            if clicked is not None:
                sort = next_sort(sort, clicked, columns)
        except BadInput as exc:
            raise gr.Error(str(exc), print_exception=False) from None
        snapshot, frame = current(s)
        chosen = sort_frame(wanted.apply(frame), sort, layout, s.track)
        csv_path, json_path = exports[s.track.id].write(
            board_csv(chosen, layout, snapshot.records),
            export_rows(chosen, snapshot.records, s.track),
        )
        notes = notes_markdown(frame)
        if "paper" in set(frame["_source"]) and paper_caption(s.track):
            notes = f"{paper_caption(s.track)}\n\n{notes}"
        records = {str(r.id): r for r in snapshot.records}
        caption = f"{bench.title} leaderboard" + (f", {s.track.title} track" if many else "")
        table = table_html(
            chosen,
            columns,
            layout,
            s.track,
            records,
            sort,
            caption,
            empty_text(len(chosen), len(frame)),
            track_param=s.track.id if many else None,
        )
        return (
            table,
            status_line(snapshot, len(chosen), clock()),
            notes,
            csv_path,
            json_path,
            sort,
        )

    def view(
        search: str,
        sources: list[str],
        external: list[str],
        inputs: list[str],
        sizes: list[str],
        group: str,
        sort: Sort | None,
        track_id: str | None,
    ) -> tuple[Any, ...]:
        return shown_board(search, sources, external, inputs, sizes, group, sort, picked(track_id))

    def resort(
        search: str,
        sources: list[str],
        external: list[str],
        inputs: list[str],
        sizes: list[str],
        group: str,
        sort: Sort | None,
        track_id: str | None,
        event: gr.EventData,
    ) -> tuple[Any, ...]:
        """The board sorted by the header clicked (the event's data names it)."""
        data = getattr(event, "_data", None)
        clicked = data.get("sort") if isinstance(data, dict) else None
        return shown_board(
            search,
            sources,
            external,
            inputs,
            sizes,
            group,
            sort,
            picked(track_id),
            clicked="" if clicked is None else clicked,
        )

    def find_entry(
        entry: str | None, preferred: Served
    ) -> tuple[Served, ledger.Record, ledger.Record | None] | None:
        """The track, record and (if superseded) its successor of a record id; None if no
        board has it. The preferred track is looked at first."""
        if entry is None:
            return None
        for s in (preferred, *(t for t in served if t is not preferred)):
            snapshot = s.board.snapshot()
            for record in snapshot.records:
                if str(record.id) == entry:
                    return s, record, None
            for record in snapshot.superseded:
                if str(record.id) == entry:
                    newer = next(
                        (
                            r
                            for r in (*snapshot.records, *snapshot.superseded)
                            if r.supersedes == record.id
                        ),
                        None,
                    )
                    return s, record, newer
        return None

    def card(entry: str, s: Served) -> tuple[Any, Any]:
        """The card box shown with the entry's card, or a short note if no board has it."""
        found = find_entry(entry, s)
        if found is None:
            return (
                gr.update(visible=True),
                '<p class="card-missing">No entry of this leaderboard has the id '
                f"<code>{entry}</code>; it may have been removed.</p>",
            )
        s, record, newer = found
        frame = current(s)[1]
        rows = frame[frame["_id"] == str(record.id)]
        row = {str(k): v for k, v in rows.iloc[0].items()} if not rows.empty else None
        permalink = f"?entry={record.id}" + (f"&track={s.track.id}" if many else "")
        html = card_html(
            record,
            bench,
            s.track,
            layouts[s.track.id],
            row,
            superseded_by=newer,
            added=s.board.added_in(str(record.id)),
            reproduce=reproduce_command(record, bench, s.track, _board_dir(s.board)),
            permalink=permalink,
        )
        return gr.update(visible=True), html

    def open_card(track_id: str | None, event: gr.EventData) -> tuple[Any, Any]:
        data = getattr(event, "_data", None)
        entry = _entry_id(data.get("entry") if isinstance(data, dict) else None)
        if entry is None:
            raise gr.Error("Select an entry of the board to open its card.", print_exception=False)
        return card(entry, picked(track_id))

    def addressed(track_id: str | None, request: gr.Request) -> tuple[Served, str | None]:
        """The track and entry a page's address asks for: ``?track=``, or the track of
        ``?entry=``; else the track the page shows. Unknown values are ignored."""
        s = picked(track_id)
        params = getattr(request, "query_params", None) or {}
        entry = _entry_id(params.get("entry"))
        asked = params.get("track")
        if isinstance(asked, str) and asked in tracks:
            s = tracks[asked]
        found = find_entry(entry, s)
        return (found[0] if found is not None else s), entry

    def landing(
        search: str,
        sources: list[str],
        external: list[str],
        inputs: list[str],
        sizes: list[str],
        group: str,
        sort: Sort | None,
        track_id: str | None,
        request: gr.Request,
    ) -> tuple[Any, ...]:
        """A fresh page: the board of the track the address names, and the card of the entry
        it names."""
        s, entry = addressed(track_id, request)
        board = shown_board(search, sources, external, inputs, sizes, group, sort, s)
        box, html = card(entry, s) if entry is not None else (gr.update(visible=False), "")
        chosen = [gr.update(value=s.track.id)] if many else []
        return (*board, *chosen, box, html)

    def chart(methods: list[str], track_id: str | None) -> PlotData:
        methods = methods or []
        if (
            not isinstance(methods, list)
            or len(methods) > MAX_PICKS
            or not all(isinstance(m, str) for m in methods)
        ):
            raise gr.Error(
                f"Compare at most {MAX_PICKS} entries of the board.", print_exception=False
            )
        s = picked(track_id)
        snapshot = s.board.snapshot()
        by_name = {r.method_name: r for r in snapshot.records}
        picked_rows = [m for m in methods if m in by_name]  # one gone since the page loaded
        return split_chart(
            {m: dict(by_name[m].metrics) for m in picked_rows}, chart_texts(s.track)[1], s.track
        )

    def charts_of(s: Served) -> tuple[Any, ...]:
        snapshot, frame = current(s)
        keys, by_id = chart_keys(s.track), {str(r.id): r for r in snapshot.records}
        # The rows the chart can show: a paper row of other columns has none of its bars.
        names = [
            by_id[i].method_name for i in frame["_id"] if any(k in by_id[i].metrics for k in keys)
        ]
        top = names[:5]
        rows = plotted(snapshot.records, s.track)
        if not names and not rows:  # an empty board has nothing to compare: no empty chart
            hidden = gr.update(visible=False)
            return hidden, hidden, hidden, hidden, hidden
        return (
            gr.update(visible=True, value=chart_texts(s.track)[0]),
            gr.update(choices=names, value=top),
            chart(top, s.track.id),
            size_chart(rows, s.track),
            date_chart(rows, s.track),
        )

    def on_load(track_id: str | None, request: gr.Request) -> tuple[Any, ...]:
        return charts_of(addressed(track_id, request)[0])

    def switch(track_id: str | None) -> tuple[Any, ...]:
        """Another track's board: its column groups, its charts (the table follows)."""
        s = picked(track_id)
        groups = list(layouts[s.track.id].groups)
        return (gr.update(choices=groups, value=groups[0]), *charts_of(s))

    def board_api(s: Served) -> Callable[[], list[dict[str, Any]]]:
        def leaderboard() -> list[dict[str, Any]]:
            snapshot, frame = current(s)
            return export_rows(frame, snapshot.records, s.track)

        # The API page shows this as the endpoint's description.
        which = f"The {s.track.title} board" if many else "The whole board"
        leaderboard.__doc__ = (
            f"{which}, best {layouts[s.track.id].ranking} first: metrics "
            "unrounded, ranks, counts, links."
        )
        return leaderboard

    first_layout = layouts[first.track.id]
    labels = filter_labels(bench)
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
    with gr.Accordion("Filters", open=False, elem_id="board-filters"):
        with gr.Row():
            sources = gr.CheckboxGroup(
                list(SOURCE_LABELS.values()), value=[], label=labels["sources"]
            )
            external = gr.CheckboxGroup(list(EXTERNAL_CHOICES), value=[], label=labels["external"])
            sizes = gr.CheckboxGroup(list(SIZE_BUCKETS), value=[], label=labels["sizes"])
        inputs = gr.CheckboxGroup(
            [*bench.input.choices.values(), NOT_REPORTED], value=[], label=labels["inputs"]
        )
    sort_state = gr.State(None)
    with gr.Column(visible=False, elem_id="entry-card-box") as card_box:
        card_view = gr.HTML(elem_id="entry-card", js_on_load=None)
        close = gr.Button("Close the card", size="sm", elem_id="entry-card-close")
    table = gr.HTML(elem_id="board-table", js_on_load=TABLE_JS)
    notes = gr.Markdown(elem_id="board-notes")
    with gr.Row(elem_id="board-actions"):
        csv_button = gr.DownloadButton(
            "Download CSV", size="sm", scale=0, min_width=120, elem_id="download-csv"
        )
        json_button = gr.DownloadButton(
            "Download JSON", size="sm", scale=0, min_width=120, elem_id="download-json"
        )
        refresh = gr.Button("Refresh", size="sm", scale=0, min_width=90, elem_id="board-refresh")
    compare = gr.Markdown(chart_texts(first.track)[0], elem_id="board-compare")
    with gr.Tabs(elem_id="chart-tabs"):
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

    # One track: the track input every handler takes is a constant of the session.
    track_input = board_track if board_track is not None else gr.State(first.track.id)
    filters = [search, sources, external, inputs, sizes, group, sort_state, track_input]
    board_outputs = [table, status, notes, csv_button, json_button, sort_state]
    chart_outputs = [compare, picks, board_plot, size_plot, date_plot]
    private: dict[str, Any] = {"api_visibility": "private", "show_progress": "hidden"}
    on_track = [board_track] if board_track is not None else []
    demo.load(landing, filters, [*board_outputs, *on_track, card_box, card_view], **private)
    demo.load(on_load, track_input, chart_outputs, **private)
    for control in (sources, external, inputs, sizes, group):
        control.change(view, filters, board_outputs, **private)
    search.change(view, filters, board_outputs, trigger_mode="always_last", **private)
    refresh.click(view, filters, board_outputs, **private)
    table.click(resort, filters, board_outputs, **private)
    table.select(open_card, track_input, [card_box, card_view], **private).then(
        None,
        js="() => document.getElementById('entry-card-box')?.scrollIntoView({block: 'nearest'})",
    )
    close.click(
        lambda: gr.update(visible=False),
        None,
        card_box,
        queue=False,
        js="() => { const url = new URL(window.location.href); "
        "url.searchParams.delete('entry'); "
        "window.history.replaceState(null, '', url); }",
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
    if board_track is not None:
        board_track.change(switch, board_track, [group, *chart_outputs], **private).then(
            view, filters, board_outputs, **private
        )
    gr.api(board_api(first), api_name="leaderboard")  # type: ignore[attr-defined]
    if many:
        for s in served:
            gr.api(board_api(s), api_name=f"leaderboard_{s.track.id}")  # type: ignore[attr-defined]
