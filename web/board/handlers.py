"""The Leaderboard tab's handlers: functions over a ``BoardTab``, which ``page`` wires.

``BoardTab`` is the tab as its handlers see it: the benchmark, the tracks it serves, each one's
board layout and export folder, what an address may choose (``offer``), and the clock. Each
handler takes it first, then what its event sends: ``view``, ``reread`` and ``resort`` the
board's ``Controls`` (one value: the search, the filters, the column group, the sort and the
track, in the order every such event sends them), which ``shown_board`` checks and renders;
``open_card`` a row's card (the charts' and the track switch's handlers are
``chart_handlers``', a fresh page's is ``landing``'s). ``leaderboard_api`` makes a track's
``/leaderboard`` function. Every handler is safe for anyone to call: an event's inputs and its
event data are checked before any work, and a refusal is a ``gr.Error`` with the message.

Example:

>>> import time, evaluator, ledger, spec
>>> bench = spec.load_benchmark("egomemreason")
>>> track = bench.track()
>>> key = evaluator.load_answer_key(track, bench.demo_key(track).read_bytes())
>>> status = ledger.KeyStatus(key, "synthetic demo key", demo=True, error=None)
>>> board = ledger.BoardCache(ledger.LocalStore(bench.demo_board), bench, track)
>>> tab = board_tab(bench, [Served(track, lambda: status, board)], time.time)
>>> table, status_line, *_ = view(tab, "", [], [], [], [], "All", None, track.id)
>>> table.startswith('<div class="board-scroll"'), "entries" in status_line
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Generic, TypeVar

import gradio as gr
import pandas as pd

import ledger
from errors import BadInput
from records import BoardSnapshot, Record
from spec import Benchmark, Track
from web.board.address import (
    BoardAddress,
    BoardOffer,
    address_marker,
    address_query,
    board_offer,
    entry_id,
    entry_query,
)
from web.board.card import card_html, reproduce_command
from web.board.export import board_csv, export_rows
from web.board.export_files import Exports
from web.board.filters import board_filter
from web.board.layout import BoardLayout, board_layout
from web.board.rows import board_frame
from web.board.status import empty_text, row_counts, row_kinds, status_line
from web.board.table import (
    Sort,
    group_frame,
    kept_sort,
    next_sort,
    sort_frame,
    table_html,
)
from web.served import Served, Tab
from web.text import listed, md_escape, quoted

T = TypeVar("T")

#: What a view says when the filters keep rows but none of them carries its columns.
OTHER_VIEW = (
    "The rows the filters keep carry none of this view's columns; pick another view "
    "(**All** shows every row)."
)


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
    """The board's notes under it: what each reference row is (its Rank says "ref."), then one
    line per note (a † beside the names), each line naming the rows it is about."""
    lines: dict[tuple[str, str], list[str]] = {}
    for name, what in zip(frame["_name"], frame["_reference"], strict=True):
        if what:
            said = f"a reference policy ({what}), read against the entries, not ranked"
            lines.setdefault(("ref.", said), []).append(str(name))
    for name, note in zip(frame["_name"], frame["_note"], strict=True):
        if note:
            lines.setdefault(("†", str(note)), []).append(str(name))
    return "  \n".join(
        f"{mark} **{md_escape(', '.join(names))}**: {md_escape(said)}"
        for (mark, said), names in lines.items()
    )


@dataclass(frozen=True)
class BoardTab(Tab):
    """The Leaderboard tab as its handlers see it (``board_tab`` makes one)."""

    layouts: Mapping[str, BoardLayout]  # by track id
    exports: Mapping[str, Exports]  # by track id
    clock: Callable[[], float]
    offer: BoardOffer  # what an address may choose (address)

    @property
    def offered(self) -> set[str]:
        """The column groups of every track's board."""
        return {title for layout in self.layouts.values() for title in layout.groups}


def board_tab(
    bench: Benchmark,
    served: Sequence[Served],
    clock: Callable[[], float],
    files: Path | None = None,
) -> BoardTab:
    """The tab of ``bench``'s ``served`` tracks, each board laid out (LayoutError, at boot, on
    a spec whose board cannot be) with a folder of its own for its exports, under ``files``
    (the app's own files, export_files.Exports)."""
    many = len(served) > 1
    layouts = {s.track.id: board_layout(bench, s.track) for s in served}
    return BoardTab(
        bench,
        tuple(served),
        layouts,
        {
            s.track.id: Exports(
                f"{bench.id}-{s.track.id}-leaderboard" if many else f"{bench.id}-leaderboard",
                files,
            )
            for s in served
        },
        clock,
        board_offer(bench, [s.track for s in served], layouts),
    )


# --- what an event names, checked ----------------------------------------------------------------


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


def pick(tab: BoardTab, value: object) -> Served:
    """The track an event names (None: the first); BadInput if it names none."""
    if value is None:
        return tab.first
    tracks = tab.tracks
    if not isinstance(value, str) or value not in tracks:
        raise BadInput(f"Track: {quoted(value)} is not one of {listed(list(tracks))}.")
    return tracks[value]


def picked(tab: BoardTab, value: object) -> Served:
    """``pick``, its refusal as the gr.Error the page shows."""
    try:  # before any work: anyone can send any input
        return pick(tab, value)
    except BadInput as exc:
        raise gr.Error(str(exc), print_exception=False) from None


def columns_of(tab: BoardTab, group: object, layout: BoardLayout) -> tuple[str, ...]:
    """The headers of a column group; the first group's for another track's group (a switch
    under way). BadInput for a group no board has."""
    if group is not None and (not isinstance(group, str) or group not in tab.offered):
        raise BadInput(
            f"Column group: {quoted(group)} is not one of {listed(list(layout.groups))}."
        )
    return layout.groups.get(group or "", next(iter(layout.groups.values())))


# --- the board ---------------------------------------------------------------------------------


def current(tab: BoardTab, s: Served) -> tuple[BoardSnapshot, pd.DataFrame]:
    """A track's board now, and its frame (rows on another key than Score's are marked)."""
    snapshot = s.board.snapshot()
    status = s.keys()
    current_key = status.key.key_version if status.key is not None else None
    return snapshot, board_frame(snapshot.records, tab.bench, s.track, current_key)


@dataclass(frozen=True)
class Controls(Generic[T]):
    """The board's controls as every event that shows the board sends them, in this order
    (``page`` lists its components by these fields: ``values``): the search, the four
    filters' ticks, the column group, the sort (the page's state) and the track's id. Nothing
    a ``Controls[object]`` holds is checked yet, for anyone can send anything: ``shown_board``
    checks each value first."""

    search: T
    sources: T
    external: T
    inputs: T
    sizes: T
    group: T
    sort: T
    track: T

    def values(self) -> list[T]:
        """The fields in order, as an event's inputs list them."""
        return [getattr(self, f.name) for f in fields(self)]


def shown_board(
    tab: BoardTab,
    controls: Controls[object],
    clicked: object = None,
    entry: str | None = None,
    reread: bool = False,
) -> tuple[Any, ...]:
    """The board of the track ``controls`` name, as its filters, column group and sort say
    (after a click on the header ``clicked``, if one): (table, status line, notes, CSV path,
    JSON path, sort). The table carries the view's address (with ``entry``, a landing's open
    card); ``reread``: the board read again from its records first (``BoardCache.reread``),
    once the controls passed their checks."""
    s, c = picked(tab, controls.track), controls
    try:  # before any work: anyone can send any input
        wanted = board_filter(c.search, c.sources, c.external, c.inputs, c.sizes, tab.bench)
        layout = tab.layouts[s.track.id]
        columns = columns_of(tab, c.group, layout)
        shown = c.group if isinstance(c.group, str) and c.group in layout.groups else None
        sort = kept_sort(c.sort if isinstance(c.sort, Sort) else None, columns)
        if clicked is not None:
            sort = next_sort(sort, clicked, columns)
    except BadInput as exc:
        raise gr.Error(str(exc), print_exception=False) from None
    last = s.board.last_read_started
    if reread:
        s.board.reread()
    kept = reread and last is not None and s.board.last_read_started == last  # not read again
    snapshot, frame = current(tab, s)
    filtered = wanted.apply(frame)
    counts = row_counts(row_kinds(filtered, s.track), row_kinds(frame, s.track), s.track)
    chosen = sort_frame(group_frame(filtered, columns, layout), sort, layout, s.track)
    csv_path, json_path = tab.exports[s.track.id].write(
        board_csv(chosen, layout, snapshot.records),
        export_rows(chosen, snapshot.records, s.track),
    )
    notes = notes_markdown(frame)
    if "paper" in set(frame["_source"]) and paper_caption(s.track):
        notes = f"{paper_caption(s.track)}\n\n{notes}"
    records = {str(r.id): r for r in snapshot.records}
    caption = f"{tab.bench.title} leaderboard" + (f", {s.track.title} track" if tab.many else "")
    table = table_html(
        chosen,
        columns,
        layout,
        s.track,
        records,
        sort,
        caption,
        empty_text(len(chosen), len(frame)) if chosen.empty == filtered.empty else OTHER_VIEW,
        track_param=s.track.id if tab.many else None,
    ) + address_marker(
        address_query(
            BoardAddress(s.track.id, shown or next(iter(layout.groups)), wanted, sort, entry),
            tab.offer,
        )
    )
    return (
        table,
        status_line(snapshot, counts[0], tab.clock(), counts[1], counts[2], last if kept else None),
        notes,
        csv_path,
        json_path,
        sort,
    )


def view(tab: BoardTab, *controls: object) -> tuple[Any, ...]:
    """The board of the track the page shows, as its controls say (``Controls``, in order;
    ``shown_board``)."""
    return shown_board(tab, Controls(*controls))


def reread(tab: BoardTab, *controls: object) -> tuple[Any, ...]:
    """Refresh: the board read again from its records (``BoardCache.reread``: now, whatever
    the cache's TTL, once per few seconds however many click), then shown as ``view`` shows it.
    Before, Refresh showed the cache's copy, so the status line's age only grew. The controls
    are checked before the read (``shown_board``)."""
    return shown_board(tab, Controls(*controls), reread=True)


def resort(tab: BoardTab, event: gr.EventData, *controls: object) -> tuple[Any, ...]:
    """The board sorted by the header clicked (the event's data names it; Gradio hands the
    event first, by its annotation, then the controls)."""
    data = getattr(event, "_data", None)
    clicked = data.get("sort") if isinstance(data, dict) else None
    return shown_board(tab, Controls(*controls), clicked="" if clicked is None else clicked)


# --- a row's card ------------------------------------------------------------------------------


def find_entry(
    tab: BoardTab, entry: str | None, preferred: Served
) -> tuple[Served, Record, Record | None] | None:
    """The track, record and (if superseded) its successor of a record id, a withdrawn row's
    too; None if no board has it. The preferred track is looked at first."""
    if entry is None:
        return None
    for s in (preferred, *(t for t in tab.served if t is not preferred)):
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


def card(tab: BoardTab, entry: str, s: Served) -> tuple[Any, Any]:
    """The card box shown with the entry's card, or a short note if no board has it."""
    found = find_entry(tab, entry, s)
    if found is None:
        return (
            gr.update(visible=True),
            '<p class="card-missing">No entry of this leaderboard has the id '
            f"<code>{entry}</code>; it may have been removed.</p>",
        )
    s, record, newer = found
    snapshot, frame = current(tab, s)
    rows = frame[frame["_id"] == str(record.id)]
    row = {str(k): v for k, v in rows.iloc[0].items()} if not rows.empty else None
    permalink = entry_query(record.id, s.track.id if tab.many else None)
    status = snapshot.status(str(record.id))
    html = card_html(
        record,
        tab.bench,
        s.track,
        tab.layouts[s.track.id],
        row,
        superseded_by=newer,
        added=s.board.added_in(str(record.id)),
        reproduce=reproduce_command(record, tab.bench, s.track, _board_dir(s.board)),
        permalink=permalink,
        withdrawal=status.withdrawal if status is not None else None,
        history=status.history if status is not None else (),
    )
    return gr.update(visible=True), html


def open_card(tab: BoardTab, track_id: str | None, event: gr.EventData) -> tuple[Any, Any]:
    """The card of the row chosen (the event's data names its record id)."""
    data = getattr(event, "_data", None)
    entry = entry_id(data.get("entry") if isinstance(data, dict) else None)
    if entry is None:
        raise gr.Error("Select an entry of the board to open its card.", print_exception=False)
    return card(tab, entry, picked(tab, track_id))


def leaderboard_api(tab: BoardTab, s: Served) -> Callable[[], list[dict[str, Any]]]:
    """The ``/leaderboard`` function of a track: its whole board as ``export_rows`` gives it,
    described on the API page by its docstring."""

    def leaderboard() -> list[dict[str, Any]]:
        snapshot, frame = current(tab, s)
        return export_rows(frame, snapshot.records, s.track)

    which = f"The {s.track.title} board" if tab.many else "The whole board"
    leaderboard.__doc__ = (
        f"{which}, best {tab.layouts[s.track.id].ranking} first: metrics "
        "unrounded, ranks, counts, links."
    )
    return leaderboard
