"""The board's view in the page's address, pure: read from its query and written back.

A shared link or a reload shows the view it was taken from, as the big public leaderboards do.
The parameters (short, and kept stable: links are shared):

========== ==============================================================================
``track``  the track's id; its title, in any case, is taken too
``q``      the search
``cols``   the column group (its title, any case); Gradio keeps ``view`` for its own pages
``source``, ``external``, ``input``, ``size``   a filter's ticked values, the parameter once a
           value (``size=API+%2F+not+stated``), as the filter's boxes name them, any case
``sort``   the header sorted by, sorted as its first click does (best first); ``rev=1``: as a
           second click does (reversed)
``entry``  the record id whose card is open
========== ==============================================================================

``read_address`` turns a query into a ``BoardAddress`` checked against what the board offers
(``BoardOffer``), and says in words each value it ignored and what exists instead (the
values are a visitor's: quoted short and Markdown-escaped). ``address_query`` writes a view
back, leaving out what the board shows anyway (the first column group, no search, nothing
ticked, the board's order, the track on a one-track board), and ``entry_query`` is a card's
permalink. The page's script ``web/js/board_address.js`` (wired by ``page``, which fills in
``PARAMS``) puts the view the server last rendered (``address_marker``, after the table) into
the address bar, with no request of its own; ``web/js/card_permalink.js`` shows a card's
permalink as the full URL it is on this page.

>>> offer = BoardOffer(
...     {"video": "Video", "audio": "Audio"},
...     {"video": {"All": ("Rank", "Method", "Overall")}, "audio": {"All": ("F1",)}},
...     {"sizes": ("< 10B", "API / not stated")},
...     {"sizes": "Model size"},
... )
>>> view, notes = read_address([("track", "Audio"), ("size", "api / NOT stated")], offer)
>>> view.track, view.wanted.sizes, notes
('audio', ('API / not stated',), [])
>>> address_query(view, offer)
'?track=audio&size=API+%2F+not+stated'
>>> view, [note] = read_address([("track", "bogus"), ("sort", "overall"), ("rev", "1")], offer)
>>> view.track, view.sort, "track 'bogus' is not one of" in note
('video', Sort(column='Overall', reversed=True), True)
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlencode

from spec import Benchmark, Track
from web.board.filters import FILTER_LABELS, MAX_SEARCH_CHARS, MAX_SEARCH_WORDS, BoardFilter
from web.board.layout import BoardLayout
from web.board.rows import EXTERNAL_CHOICES, NOT_REPORTED, SIZE_BUCKETS, SOURCE_LABELS
from web.board.table import MAX_COLUMN_CHARS, Sort, text
from web.text import listed, md_escape, quoted

#: The address's parameter of each ``BoardFilter`` selection.
FILTER_PARAMS = {"sources": "source", "external": "external", "inputs": "input", "sizes": "size"}

#: Every parameter the board reads and writes; the page script replaces these alone, so other
#: parameters of the address (Gradio's ``__theme``, a campaign's tags) stay as they were.
PARAMS = ("track", "q", "cols", *FILTER_PARAMS.values(), "sort", "rev", "entry")

#: The longest record id an event or an address may name (a UUID is 36 characters).
MAX_ENTRY_CHARS = 64

#: Values of one parameter read, at most (a filter has fewer choices): the rest are ignored.
MAX_VALUES = 16

#: The names a note lists, at most.
NAMED = 6


@dataclass(frozen=True)
class BoardOffer:
    """What a board offers an address to choose from."""

    tracks: Mapping[str, str]  # id -> title, in the page's order; the first is the default
    groups: Mapping[str, Mapping[str, Sequence[str]]]  # track id -> group title -> headers
    filters: Mapping[str, Sequence[str]]  # BoardFilter field -> its choices
    labels: Mapping[str, str]  # BoardFilter field -> the filter's name

    @property
    def many(self) -> bool:
        return len(self.tracks) > 1


def board_offer(
    bench: Benchmark, tracks: Sequence[Track], layouts: Mapping[str, BoardLayout]
) -> BoardOffer:
    """What the board of ``bench``'s ``tracks`` (in the page's order) offers: each track's
    column groups, and the filters' choices as the page's boxes name them."""
    return BoardOffer(
        {t.id: t.title for t in tracks},
        {t.id: layouts[t.id].groups for t in tracks},
        {
            "sources": tuple(SOURCE_LABELS.values()),
            "external": EXTERNAL_CHOICES,
            "inputs": (*bench.input.choices.values(), NOT_REPORTED),
            "sizes": SIZE_BUCKETS,
        },
        {**FILTER_LABELS, "inputs": bench.input.label},
    )


@dataclass(frozen=True)
class BoardAddress:
    """A view of the board as an address gives it, every value one the board offers."""

    track: str
    group: str
    wanted: BoardFilter = field(default_factory=BoardFilter)
    sort: Sort | None = None
    entry: str | None = None


def entry_id(value: object) -> str | None:
    """A record id an event or an address names, as the board writes ids; None if it is not
    one (anyone can send anything)."""
    if not isinstance(value, str) or len(value) > MAX_ENTRY_CHARS:
        return None
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


def _said(value: str) -> str:
    """A visitor's value as a note quotes it: short, and shown as written."""
    return md_escape(quoted(value))


def _match(value: str, choices: Iterable[str]) -> str | None:
    """The choice ``value`` names, any case (and spaces around it) aside."""
    wanted = value.strip().casefold()
    return next((c for c in choices if c.casefold() == wanted), None)


def read_address(
    pairs: Iterable[tuple[str, str]],
    offer: BoardOffer,
    entry_track: Callable[[str], str | None] = lambda _: None,
) -> tuple[BoardAddress, list[str]]:
    """The view a query's ``pairs`` (``(name, value)``, in order) ask for, and a note for each
    value ignored, naming it and what exists. The track is ``track``'s (a card of another
    track's entry opens over it, as a visitor left it who switched tracks with a card open),
    else the track of the entry (``entry_track``: the track whose board has that record, None
    if none has), else the first."""
    given: dict[str, list[str]] = {}
    for name, value in pairs:
        if name in PARAMS and len(given.setdefault(name, [])) < MAX_VALUES:
            given[name].append(value)
    one = {name: values[0] for name, values in given.items() if values}
    notes: list[str] = []
    first = next(iter(offer.tracks))
    track, found = first, None
    if "track" in one:
        named = one["track"].strip().casefold()
        found = next(
            (i for i, t in offer.tracks.items() if named in (i.casefold(), t.casefold())), None
        )
        if found is None:
            tracks = ", ".join(f"{i!r} ({t})" for i, t in offer.tracks.items())
            notes.append(
                f"The address's track {_said(one['track'])} is not one of this "
                f"leaderboard's: {md_escape(tracks)}; showing {md_escape(offer.tracks[first])}."
            )
        else:
            track = found
    entry = None
    if "entry" in one:
        entry = entry_id(one["entry"])
        if entry is None:
            notes.append(
                f"The address's entry {_said(one['entry'])} is not a record id (a record id "
                "looks like 1b4e28ba-2fa1-41d2-883f-0016d3cca427); no card is open."
            )
        elif found is None:  # no track named (or none known): the entry's board
            track = entry_track(entry) or track
    groups = offer.groups[track]
    group = next(iter(groups))
    if "cols" in one:
        chosen = _match(one["cols"], groups)
        if chosen is None:
            notes.append(
                f"The address's column group {_said(one['cols'])} is not one of this "
                f"board's ({md_escape(listed(list(groups), NAMED))}); showing "
                f"{md_escape(group)}."
            )
        else:
            group = chosen
    search = one.get("q", "")
    if len(search) > MAX_SEARCH_CHARS or len(search.split()) > MAX_SEARCH_WORDS:
        notes.append(
            f"The address's search is longer than {MAX_SEARCH_CHARS} characters or "
            f"{MAX_SEARCH_WORDS} words; it was left out."
        )
        search = ""
    ticked: dict[str, tuple[str, ...]] = {}
    for name, param in FILTER_PARAMS.items():
        choices = offer.filters.get(name, ())
        kept: list[str] = []
        unknown: list[str] = []
        for value in given.get(param, []):
            choice = _match(value, choices)
            if choice is None:
                unknown.append(value)
            elif choice not in kept:
                kept.append(choice)
        if unknown:
            said = ", ".join(_said(v) for v in unknown[:NAMED])
            more = f" and {len(unknown) - NAMED} more" if len(unknown) > NAMED else ""
            notes.append(
                f"The address's {md_escape(offer.labels.get(name, name))} filter has no "
                f"{said}{more}; its choices are {md_escape(listed(list(choices), NAMED))}."
            )
        ticked[name] = tuple(kept)
    sort = None
    if "sort" in one:
        columns = list(groups[group])
        column = _match(one["sort"][:MAX_COLUMN_CHARS], columns)
        if column is None:
            notes.append(
                f"The address's sort column {_said(one['sort'])} is not a column of the "
                f"{md_escape(group)} view ({md_escape(listed(columns, NAMED))}); showing the "
                "board's order."
            )
        else:
            sort = Sort(column, one.get("rev", "") == "1")
    return BoardAddress(track, group, BoardFilter(search, **ticked), sort, entry), notes


def address_query(view: BoardAddress, offer: BoardOffer) -> str:
    """The query of ``view`` (``"?..."``; ``""`` for the board as it first shows), every value
    the board's own, what it shows anyway left out; ``entry`` last, if the view has one (a
    landing's: after it, a card is opened and closed on the page alone)."""
    pairs: list[tuple[str, str]] = []
    if offer.many:
        pairs.append(("track", view.track))
    if view.wanted.search:
        pairs.append(("q", view.wanted.search))
    if view.group != next(iter(offer.groups[view.track])):
        pairs.append(("cols", view.group))
    for name, param in FILTER_PARAMS.items():
        pairs += [(param, value) for value in getattr(view.wanted, name)]
    if view.sort is not None:
        pairs.append(("sort", view.sort.column))
        if view.sort.reversed:
            pairs.append(("rev", "1"))
    if view.entry is not None:
        pairs.append(("entry", view.entry))
    return f"?{urlencode(pairs)}" if pairs else ""


def address_marker(query: str) -> str:
    """What the board's HTML carries of its view's address (web/js/board_address.js reads it):
    a hidden element, after the table."""
    return f'<span hidden data-address="{text(query)}"></span>'


def entry_query(entry: object, track: str | None) -> str:
    """A card's permalink as a query: its record id, and its track on a several-track board
    (the page makes it a full URL with its own origin and path)."""
    pairs = [("entry", str(entry)), *([("track", track)] if track is not None else [])]
    return f"?{urlencode(pairs)}"
