"""The board as the page shows it, pure: an HTML table whose headers sort.

``board_frame`` (rows) gives the rows best first with the on-screen headers; here
``group_frame`` keeps the rows a column group shows, under one rank series, and ``sort_frame``
orders them by the header a visitor clicked (numerically, best first: highest first for a
metric that is better higher, lowest first for one better lower, nearest 0 first for a signed
error; a second click on the same header reverses it; another header replaces it);
``table_html`` renders them as a real ``<table>`` (sortable headers are buttons with
``aria-sort``, each method opens its row's card, ``card``). The page's script
``web/js/board_table.js`` (wired by ``page``) is the few lines that send a header click or a
row choice to the server; everything else is decided here.

Every text shown comes from a record or the spec and is escaped here, including the characters
Gradio's HTML templating would read (``{``, ``}``, ``$``, the backtick and the backslash).
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from errors import BadInput
from records import Record
from spec import Track
from web.board.layout import BoardLayout
from web.board.rows import NOT_REPORTED, SOURCE_TEXT, record_links, size_in_billions
from web.text import listed, quoted

#: How a column sorts on its first click. "board": the board's own order (Rank); "high",
#: "low", "zero": a metric better higher, lower, or nearer 0; "newest": dates; "large":
#: model sizes (API / not stated last); "text": A to Z.
Order = Literal["board", "high", "low", "zero", "newest", "large", "text"]

#: The longest column name an event may name (the longest header a spec can give is shorter).
MAX_COLUMN_CHARS = 200

#: The headers a refused click's message names, at most.
NAMED_COLUMNS = 5

#: What a text cell shows when it has no value: such rows sort last, whichever way.
NO_TEXT = ("", "—", NOT_REPORTED)


@dataclass(frozen=True)
class Sort:
    """The column the board is sorted by, and whether its first-click order is reversed."""

    column: str
    reversed: bool = False


def group_frame(frame: pd.DataFrame, columns: Sequence[str], layout: BoardLayout) -> pd.DataFrame:
    """The rows of ``frame`` a column group shows, under one rank series: a row is shown when
    the group has a metric it carries (a decision board's paper rows, which carry the paper's
    own columns only, belong to the view of those columns, not to a view of dashes), and its
    rank when it is ranked by the group's lead metric (the one after Method); another row of the
    group is shown unranked ("—"), so the Rank column never runs two series side by side."""
    metrics = [c for c in columns if c in layout.formats]
    if frame.empty or not metrics:
        return frame
    shown = frame[frame[metrics].notna().any(axis=1)].copy()
    lead = next((c for c in columns if c in layout.formats), None)
    other = shown["_ranked_by"] != lead
    if other.any():
        shown["Rank"] = shown["Rank"].astype(float)
        shown.loc[other, "Rank"] = float("nan")
        shown.loc[other, layout.info["rank_range"]] = "—"
    return shown


def column_order(column: str, layout: BoardLayout, track: Track) -> Order:
    """How ``column`` sorts when first clicked: best first for a metric, the board's order for
    Rank and Rank range, newest first for dates, largest first for sizes, else A to Z."""
    by_header = {header: key for key, header in layout.metrics.items()}
    info = layout.info
    if column in ("Rank", info["rank_range"], info["ci"]):
        return "board"
    if column in by_header:
        better = track.higher_is_better.get(by_header[column], True)
        return "high" if better is True else "low" if better is False else "zero"
    if column == info["date"]:
        return "newest"
    if column == info["size"]:
        return "large"
    return "text"


def next_sort(current: Sort | None, clicked: object, columns: Sequence[str]) -> Sort:
    """The sort after a click on ``clicked``: that column best first, or reversed if it is the
    column sorted already. BadInput if ``clicked`` is not a column shown (anyone can send any
    event data)."""
    if not isinstance(clicked, str) or len(clicked) > MAX_COLUMN_CHARS or clicked not in columns:
        raise BadInput(
            f"Sort: {quoted(clicked)} is not a column of this view; expected one of its "
            f"headers ({listed(columns, NAMED_COLUMNS)}). Select a column header to sort by it."
        )
    shown = current or Sort("Rank")  # no sort chosen is the board's order: Rank, best first
    if shown.column == clicked:
        return Sort(clicked, not shown.reversed)
    return Sort(clicked)


def kept_sort(current: Sort | None, columns: Sequence[str]) -> Sort | None:
    """The sort another column group keeps: the same one if it shows that column, else none
    (the board's order)."""
    return current if current is not None and current.column in columns else None


def sort_frame(
    frame: pd.DataFrame, sort: Sort | None, layout: BoardLayout, track: Track
) -> pd.DataFrame:
    """``frame`` (best first, as board_frame orders it) in the order ``sort`` says; rows
    without a value (a paper row's missing split, a size not stated, an unranked row, a
    "Not reported") stay last either way, and ties keep the board's order. Text sorts by
    what its cell shows."""
    if sort is None or sort.column not in frame.columns or frame.empty:
        return frame
    order = column_order(sort.column, layout, track)
    values = frame[sort.column]
    keys: list[Any]
    if order == "board":  # reversed: the ranked rows upside down, the unranked still last
        keys = [None if is_missing(rank) else i for i, rank in enumerate(frame["Rank"])]
    elif order in ("high", "low", "zero"):
        numbers = [None if is_missing(v) else float(v) for v in values]
        keys = [
            None if v is None else -v if order == "high" else abs(v) if order == "zero" else v
            for v in numbers
        ]
    elif order == "large":
        sizes = [size_in_billions(str(v)) for v in values]
        keys = [None if size is None else -size for size in sizes]
    elif order == "newest":
        keys = [None if is_missing(v) else str(v) for v in values]
    else:
        shown = [_shown_text(sort.column, row, layout) for _, row in frame.iterrows()]
        keys = [None if v in NO_TEXT else v.casefold() for v in shown]
    present = [i for i, k in enumerate(keys) if k is not None]
    absent = [i for i, k in enumerate(keys) if k is None]
    descending = order == "newest"
    present.sort(key=lambda i: keys[i], reverse=descending != sort.reversed)
    return frame.iloc[present + absent]


def is_missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _shown_text(column: str, row: pd.Series, layout: BoardLayout) -> str:
    """The text a text cell shows (what A to Z sorts by): the method's name, the source as
    words, the note whole; "" for none."""
    info = layout.info
    if column == "Method":
        return str(row["_name"])
    if column == info["source"]:
        return SOURCE_TEXT[str(row["_source"])]
    if column == info["note"]:
        return str(row["_note"])
    value = row[column]
    return "" if is_missing(value) else str(value)


def aria_sort(
    column: str,
    sort: Sort | None,
    layout: BoardLayout,
    track: Track,
    ranks: Sequence[float | None] = (),
) -> str:
    """The header's aria-sort: how the shown values run. "other" for nearest-0 orders, and for
    the board's order where its ``ranks`` (the Rank column as shown) do not run one way: two
    rankings share a decision board (re-scored rows, then paper rows)."""
    shown = sort or Sort("Rank")
    if shown.column != column:
        return "none"
    order = column_order(column, layout, track)
    if order == "board":
        present = [r for r in ranks if r is not None and not math.isnan(r)]
        if present != sorted(present, reverse=shown.reversed):
            return "other"
    natural = {
        "board": "ascending",
        "high": "descending",
        "low": "ascending",
        "zero": "other",
        "newest": "descending",
        "large": "descending",
        "text": "ascending",
    }[order]
    if natural == "other" or not shown.reversed:
        return natural
    return "ascending" if natural == "descending" else "descending"


#: Characters HTML does not need escaped but Gradio's templates read: Handlebars' braces, and
#: a JS template literal's ``${``, backtick and backslash.
_TEMPLATE_CHARS = str.maketrans(
    {"{": "&#123;", "}": "&#125;", "$": "&#36;", "`": "&#96;", "\\": "&#92;"}
)


def text(value: object) -> str:
    """Text for HTML, with the characters Gradio's templates read escaped as well."""
    return html.escape(str(value), quote=True).translate(_TEMPLATE_CHARS)


def _markdown_text(value: str) -> str:
    """Escaped text with its ``**bold**`` shown bold (the empty state's text is Markdown)."""
    return re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text(value))


def _cell(column: str, row: pd.Series, layout: BoardLayout, record: Record | None) -> str:
    info = layout.info
    value = row[column]
    if column == "Method":
        mark = (
            '&nbsp;<span class="note-mark" title="See the note under the board">†</span>'
            if row["_note"]
            else ""
        )
        # A reference row's Rank says "ref." and the notes under the board what it is: a tag
        # under its name made its row five lines tall on a phone.
        return (
            f'<button type="button" class="entry-open" data-entry="{text(row["_id"])}" '
            f'aria-haspopup="dialog">{text(row["_name"])}</button>{mark}'
        )
    if column == info["source"]:
        source = str(row["_source"])
        mark = "✓ " if source == "rescored" else ""
        return (
            f'<span class="source source-{text(source)}">{mark}{text(SOURCE_TEXT[source])}</span>'
        )
    if column == info["links"]:
        return links_html(record)
    if column == info["note"] and row["_note"]:  # two lines at most; whole in its title
        return f'<span class="note-text" title="{text(row["_note"])}">{text(value)}</span>'
    if column == info["rank_range"] and row["_reference"]:  # "ref." beside it says why
        return '<span title="Not ranked: a reference row">—</span>'
    if column in layout.formats:
        return "—" if is_missing(value) else text(layout.formats[column].format(value))
    if column == "Rank":
        if row["_reference"]:
            return (
                f'<span class="reference" title="A reference row: {text(row["_reference"])}; '
                'not ranked">ref.</span>'
            )
        return "—" if is_missing(value) else str(int(value))
    return text("—" if is_missing(value) or value == "" else value)


def links_html(record: Record | None) -> str:
    if record is None:
        return ""
    # Records allow http(s) links only; a record that skipped validation gets no link.
    links = [
        (name, url)
        for name, url in record_links(record)
        if url.lower().startswith(("https://", "http://"))
    ]
    return " · ".join(
        f'<a href="{text(url)}" target="_blank" rel="noopener noreferrer nofollow">{name}</a>'
        for name, url in links
    )


def table_html(
    frame: pd.DataFrame,
    columns: Sequence[str],
    layout: BoardLayout,
    track: Track,
    records: Mapping[str, Record],
    sort: Sort | None,
    caption: str,
    empty: str | None,
    track_param: str | None = None,
) -> str:
    """The rows of ``frame`` (already filtered and sorted) under the ``columns`` of one view:
    a ``<table>`` whose headers are sort buttons and whose method cells open the row's card;
    ``empty`` is said in the table when there is no row; ``track_param`` is the ``?track=``
    a card's address carries (None on a one-track benchmark)."""
    numeric = set(layout.formats) | {"Rank"}
    ranks = list(frame["Rank"]) if "Rank" in frame.columns else []
    head = []
    for i, column in enumerate(columns):
        classes = " ".join(
            c for c in ("num" if column in numeric else "", f"pin pin-{i}" if i < 2 else "") if c
        )
        state = aria_sort(column, sort, layout, track, ranks)
        arrow = {"ascending": "▲", "descending": "▼", "other": "◆"}.get(state, "")
        head.append(
            f'<th scope="col" class="{classes}" aria-sort="{state}">'
            f'<button type="button" data-sort="{text(column)}" '
            f'title="Sort by {text(column)}">{text(column)}'
            f'<span class="arrow" aria-hidden="true">{arrow}</span></button></th>'
        )
    body = []
    for _, row in frame.iterrows():
        record = records.get(str(row["_id"]))
        cells = []
        for i, column in enumerate(columns):
            classes = " ".join(
                c
                for c in (
                    "num" if column in numeric else "",
                    f"pin pin-{i}" if i < 2 else "",
                    "date" if column == layout.info["date"] else "",  # one line: "2026-06-01"
                    "note" if column == layout.info["note"] else "",  # a width of its own
                )
                if c
            )
            tag = 'th scope="row"' if column == "Method" else "td"
            cells.append(
                f'<{tag} class="{classes}">{_cell(column, row, layout, record)}</{tag.split()[0]}>'
            )
        kind = "reference" if row["_reference"] else text(row["_source"])
        body.append(f'<tr data-entry="{text(row["_id"])}" class="row-{kind}">{"".join(cells)}</tr>')
    if not body and empty:
        body.append(
            f'<tr class="empty"><td colspan="{len(columns)}">'
            f'<span class="empty-text">{_markdown_text(empty)}</span></td></tr>'
        )
    track_attr = "" if track_param is None else f' data-track="{text(track_param)}"'
    return (
        f'<div class="board-scroll"{track_attr} tabindex="0" '
        f'role="region" aria-label="{text(caption)}">'
        f'<p class="scroll-cue" aria-hidden="true">{SCROLL_CUE}</p>'
        f'<table class="board"><caption class="visually-hidden">{text(caption)}. Select '
        "a column header to sort by it; select a method to open its card.</caption>"
        f"<thead><tr>{''.join(head)}</tr></thead><tbody>{''.join(body)}</tbody>"
        "</table></div>"
    )


#: Shown above the board while it is wider than its frame (a phone, the All view): the page's
#: style shows it then only (page.HEAD). Hidden from screen readers, which read the table whole.
SCROLL_CUE = "Scroll sideways for more columns →; Rank and Method stay in place."
