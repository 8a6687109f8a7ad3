"""Who counts as one client, as decided (guard.clients): issue 30, finding 6.

IPv6 clients were grouped by /64: a site's /48 held 65,536 score allowances; a 6to4 address got
one /64 each (65,536 per IPv4 address); NAT64's addresses are reserved ones, skipped as
internal, so every visitor translated by it fell to the one peer address. Now an IPv6 address
that carries an IPv4 one is that IPv4 address, and the score limit counts a native IPv6
client's /48, the shares still its /64. The score limit is tried through Score's handler.
"""

from __future__ import annotations

from pathlib import Path

import gradio as gr
import pytest
from starlette.requests import Request

import guard
from guard.clients import SCORE_IPV6_PREFIX, ClientIdentity
from tests.web.test_score_handlers import (
    EGOMEM,
    MEMORY,
    MEMORY_SAMPLE,
    Uploads,
    _run,
    _served,
    _tab,
)
from web import score_handlers as handlers

PROXY = "10.0.0.1"  # the platform's own hop, appended after the visitor's address


def _request(*forwarded: str) -> gr.Request:
    headers = [(b"x-forwarded-for", line.encode()) for line in forwarded]
    scope = {"type": "http", "headers": headers, "client": ("10.16.4.2", 43210)}
    return gr.Request(request=Request(scope))


@pytest.mark.parametrize(
    ("address", "client"),
    [
        ("2002:c633:6407:1::1", "198.51.100.7"),  # 6to4: 2002:<IPv4>::/48
        ("2002:c633:6407:ffff::9", "198.51.100.7"),  # another /64 of the same site
        ("64:ff9b::c633:6407", "198.51.100.7"),  # NAT64's well-known prefix
        ("64:ff9b::cb00:7109", "203.0.113.9"),  # another client through it
        ("64:ff9b:1::c633:6407", "198.51.100.7"),  # NAT64's local-use prefix
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "192.0.2.45"),  # Teredo: its client
        ("::ffff:198.51.100.7", "198.51.100.7"),
    ],
)
def test_an_ipv6_address_that_carries_an_ipv4_one_is_that_client(address: str, client: str) -> None:
    assert guard.client_address(_request(f"{address}, {PROXY}"), True) == client


def test_a_6to4_address_that_carries_an_internal_ipv4_one_is_skipped_as_internal() -> None:
    request = _request(f"198.51.100.7, 2002:a00:1::1, {PROXY}")  # 2002:0a00:0001: 10.0.0.1
    assert guard.client_address(request, True) == "198.51.100.7"


def test_the_shares_count_a_native_ipv6_client_s_64() -> None:
    identity = ClientIdentity(on_space=True)
    first = identity.of(_request(f"2001:db8:1:2::1, {PROXY}"))
    second = identity.of(_request(f"2001:db8:1:3::1, {PROXY}"))
    assert first == "2001:db8:1:2::/64" and second == "2001:db8:1:3::/64"


def test_the_score_limit_counts_a_native_ipv6_client_s_48(tmp_path: Path) -> None:
    """One allowance (the limit is 1 here) per /48: another /64 of the site is refused, another
    site scores."""
    uploads = Uploads(tmp_path / "uploads")
    tab = _tab(uploads, EGOMEM, [_served(EGOMEM, MEMORY)], guard.ScoreLimits(1, 3600, True))

    def scores(address: str) -> bool:
        request = _request(f"{address}, {PROXY}")
        try:
            _run(handlers.score(tab, uploads.file(MEMORY_SAMPLE), request))
        except gr.Error as exc:
            assert "Scoring is limited" in exc.message
            return False
        return True

    assert scores("2001:db8:1:2::1")
    assert not scores("2001:db8:1:3::1")  # the same /48: before, a fresh /64's allowance
    assert not scores("2001:db8:1:ffff::1")
    assert scores("2001:db8:2::1")  # another site
    assert guard.client_address(_request("2001:db8:1:2::1"), True, 0, SCORE_IPV6_PREFIX) == (
        "2001:db8:1::/48"
    )


@pytest.mark.parametrize(
    "forwarded",
    [
        ("198.51.100.7, 203.0.113.9",),  # one line: the visitor wrote the first entry
        ("198.51.100.7", "203.0.113.9"),  # the visitor's own line, then the proxy's
    ],
)
def test_a_visitor_s_own_entries_never_decide_when_the_proxy_appends(
    forwarded: tuple[str, ...],
) -> None:
    """The proxy appends the address it saw, to the line or as a line after the visitor's
    (RFC 9110, 5.3): the rightmost public entry is the proxy's. (A proxy that put its line
    first, or a caller whose address the proxy appends as internal, would let the visitor's
    entries decide: guard.clients says so, and the first scored request logs the layout.)"""
    assert guard.client_address(_request(*forwarded), True) == "203.0.113.9"
