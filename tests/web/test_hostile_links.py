"""A spec's links and contact where the page writes them (issue 22, finding 5): encoded there
too, so that a value that got past the spec's checks (spec.links) still makes one plain link.

The benchmark is the shipped one with a field replaced without validation (``model_copy``),
which is what a check the spec lacked would let through.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, unquote, urlsplit

from markdown_it import MarkdownIt

import evaluator
import spec
from web import page, score_view

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track()
ESCAPE = "https://example.org/a)[evil](https://evil.example/x)"


def test_a_header_link_that_would_close_early_stays_one_link() -> None:
    links = BENCH.links.model_copy(update={"paper": ESCAPE})
    rendered = MarkdownIt("commonmark").render(
        page.header_markdown(BENCH.model_copy(update={"links": links}))
    )
    hrefs = re.findall(r'<a href="([^"]*)"', rendered)
    assert len(hrefs) == len([u for u in links.model_dump().values() if u]), rendered
    assert unquote(hrefs[0]) == ESCAPE and "evil.example" not in rendered.replace(hrefs[0], "")


def test_a_contact_with_a_query_of_its_own_adds_no_recipient() -> None:
    hostile = BENCH.model_copy(update={"contact_email": "x@y.z?bcc=attacker%40evil.example&x="})
    key = evaluator.load_answer_key(TRACK, hostile.demo_key(TRACK).read_bytes())
    result = evaluator.score(key, (BENCH.demo_dir / "sample_submission.json").read_bytes())
    link = urlsplit(score_view.listing_mailto(hostile, TRACK, result, many=False))
    assert set(parse_qs(link.query)) == {"subject", "body"}, link.query
    assert unquote(link.path) == hostile.contact_email  # the whole value, as the address
