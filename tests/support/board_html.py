"""The board's HTML table (web.board.table.table_html) read back as the page shows it."""

from __future__ import annotations

from html.parser import HTMLParser


class _Board(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.headers: list[str] = []
        self.rows: list[list[str]] = []
        self.attrs: list[dict[str, str | None]] = []  # each body row's attributes
        self._cell: list[str] | None = None
        self._part = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("thead", "tbody"):
            self._part = tag
        elif tag == "tr" and self._part == "tbody":
            self.rows.append([])
            self.attrs.append(dict(attrs))
        elif tag in ("th", "td"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td") and self._cell is not None:
            text = " ".join("".join(self._cell).split()).replace("\xa0", " ")
            if self._part == "thead":
                self.headers.append(text.rstrip("▲▼◆").strip())
            elif self.rows:
                self.rows[-1].append(text)
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def read_board(html: str) -> tuple[list[str], list[list[str]]]:
    """The headers (without their sort arrows) and each row's cell texts (an empty board's
    message is a row of one cell)."""
    board = _Board()
    board.feed(html)
    return board.headers, board.rows


def row_ids(html: str) -> list[str]:
    """The record ids of the rows, in the order shown."""
    board = _Board()
    board.feed(html)
    return [str(a.get("data-entry")) for a in board.attrs if a.get("data-entry")]
