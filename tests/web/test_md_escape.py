"""md_escape (issue 22, finding 9): a method name, a note or a refusal's text shown in the page's
Markdown renders as itself: never as KaTeX, never as a link, never as emphasis or code.

A name is rendered with markdown-it-py (CommonMark, with GFM's strikethrough) and read back:
no element but the paragraph, the text equal to the name (the escape is invisible), no ``$$``
in the text KaTeX's auto-render reads (Gradio runs it on the rendered text, where a backslash
escape is gone), and none of the forms GFM links by themselves (a bare ``https://`` URL,
``www.``, an address) left in the Markdown that marked, Gradio's renderer, tokenises.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

import app
import guard
import ledger
import spec
from tests.support.demo_keys import demo_key
from web.text import WORD_JOINER, md_escape

RENDER = MarkdownIt("commonmark").enable("strikethrough")
#: GFM's extended autolinks (github.github.com/gfm, 6.9): what marked links with no brackets.
GFM_AUTOLINK = re.compile(
    r"(?:https?|ftp)://|www\.|[A-Za-z0-9._+-]+@[A-Za-z0-9_-]+\.[A-Za-z0-9_-]", re.IGNORECASE
)

HOSTILE = [
    "$$\\frac{1}{0}$$ Model",
    "$$x$$$$y$$",
    "GPT-$4$ $and$ $$",
    "Model \\$$x\\$$",
    "&#36;&#36;\\int&#36;&#36;",
    "See https://evil.example/x for weights",
    "HTTPS://EVIL.EXAMPLE",
    "ftp://evil.example/file",
    "www.evil.example",
    "WWW.Evil.Example/x",
    "<https://evil.example>",
    "<mailto:someone@evil.example>",
    "write to someone@evil.example",
    "[click](https://evil.example)",
    "![pixel](https://evil.example/p.png)",
    "[ref][1]\n\n[1]: https://evil.example",
    "**bold** _em_ `code` ~~gone~~ ~gone~",
    "<b>bold</b><script>alert(1)</script>",
    "# Heading",
    "Qwen2.5-VL-7B (a + b) | c!",
]


def _text(rendered: str) -> str:
    """What a reader sees of rendered HTML: the text, entities decoded, tags gone."""
    return html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip()


@pytest.mark.parametrize("name", HOSTILE)
def test_a_name_renders_as_itself_and_as_nothing_else(name: str) -> None:
    escaped = md_escape(" ".join(name.split()))  # names are one line
    rendered = RENDER.render(escaped)
    tags = set(re.findall(r"</?([a-z0-9]+)", rendered))
    assert tags == {"p"}, (escaped, rendered)
    seen = _text(rendered)
    assert seen.replace(WORD_JOINER, "") == " ".join(name.split()), (escaped, rendered)
    assert "$$" not in seen and "$$" not in escaped, escaped  # KaTeX's delimiters, never whole
    assert not GFM_AUTOLINK.search(escaped), escaped


def test_plain_names_stay_as_they_were() -> None:
    # What the board shows for the usual names: nothing to escape, nothing added.
    for name in ("Qwen2.5 VL 7B", "GPT 4o", "Team Ego", "InternVL3 8B"):
        assert md_escape(name) == name


def test_the_page_s_markdown_renders_latex_between_double_dollars_only(tmp_path: Path) -> None:
    # md_escape breaks every "$$"; a single "$" is left as it is, which is safe while no
    # Markdown of the page takes "$" as a delimiter (Gradio's default is "$$" alone).
    bench = spec.load_benchmark("egomemreason")
    track = bench.track(kind=spec.MultipleChoiceTrack)
    key = demo_key(bench, track)
    status = ledger.KeyStatus(key, "synthetic demo key", demo=True, error=None)
    board = ledger.BoardCache(ledger.LocalStore(bench.demo_board), bench, track)
    limiter = guard.ScoreLimiter(guard.ScoreLimits(limit=3, window_s=3600))
    demo = app.build_demo(bench, track, lambda: status, board, limiter)
    delimiters = [
        c["props"].get("latex_delimiters")
        for c in demo.config["components"]
        if c.get("type") == "markdown"
    ]
    assert delimiters and all(
        d == [{"left": "$$", "right": "$$", "display": True}] for d in delimiters
    ), delimiters
