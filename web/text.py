"""What a page says of a value it did not write: escaped for Markdown, quoted short, listed.

Every message, note and cell of the pages quotes a value through these: ``md_escape`` (any text
shown as written in ``gr.Markdown``), ``quoted`` (a value a visitor sent, as a refusal names it:
its repr, cut short), ``cut`` (a long text a cell shows, cut short) and ``listed`` (the choices
there are, the first few when there are many, and how many in all).

>>> quoted("x" * 100)
"'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…"
>>> cut("a note of some length", 12)
'a note of s…'
>>> listed(["Rank", "Method", "Team"]), listed(["a", "b", "c", "d"], 2)
("'Rank', 'Method', 'Team'", "'a', 'b', … (4 in all)")
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: Markdown's syntax a text may hold, each escaped with a backslash: emphasis, code, links,
#: images, headings, tables, HTML and ``<...>`` autolinks, GFM's ``~`` strikethrough, ``&``
#: (an entity would decode to any character, ``&#36;`` to "$"), ``$`` (KaTeX), and the ``@`` of an
#: address, which GFM links without any brackets.
_MARKDOWN_SYNTAX = re.compile(r"([\\`*_{}\[\]()#+!|<>~&$@])")
#: GFM's other bracket-less links: a URL's ``://`` (its colon is escaped) and ``www.`` (its dot).
_BARE_LINK = re.compile(r"(?::(?=//)|(?<=www)\.)", re.IGNORECASE)
#: Invisible, and joins nothing: what separates two dollars so that KaTeX never finds "$$".
WORD_JOINER = "\u2060"
_DOLLAR_PAIR = re.compile(r"\$(?=\\\$)")  # an escaped dollar followed by another

QUOTED_CHARS = 40  # the longest value a message quotes whole


def md_escape(text: str) -> str:
    """``text`` for Markdown (gr.Markdown: marked, then KaTeX), shown as written: never as
    emphasis, code, a link, an image or math.

    A backslash escape does it all but for KaTeX: Gradio runs KaTeX's auto-render on the
    rendered text, where the backslash is gone, so a word joiner also goes between any two
    dollars ("$$" is the delimiter Gradio's Markdown renders; a single "$" renders nothing).

    >>> md_escape("GPT-4o (mini)"), md_escape("https://x.org")
    ('GPT-4o \\\\(mini\\\\)', 'https\\\\://x.org')
    >>> md_escape("$$x$$") == "\\\\$" + WORD_JOINER + "\\\\$x\\\\$" + WORD_JOINER + "\\\\$"
    True
    """
    escaped = _BARE_LINK.sub(r"\\\g<0>", _MARKDOWN_SYNTAX.sub(r"\\\1", text))
    return _DOLLAR_PAIR.sub("$" + WORD_JOINER, escaped)


def cut(text: str, limit: int) -> str:
    """``text`` whole if it has at most ``limit`` characters, else its start and "…" (as many
    characters in all, or fewer: no space before the "…")."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def quoted(value: object, limit: int = QUOTED_CHARS) -> str:
    """A value a visitor sent, as a message quotes it: its repr, cut short (anyone can send
    anything, of any length)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def listed(choices: Sequence[str], limit: int | None = None) -> str:
    """The choices there are, each quoted: all of them, or the first ``limit`` and how many
    there are in all."""
    if limit is None or len(choices) <= limit:
        return ", ".join(map(repr, choices))
    return ", ".join(map(repr, choices[:limit])) + f", … ({len(choices)} in all)"
