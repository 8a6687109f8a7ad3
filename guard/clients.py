"""Who a client is behind the Space's proxy: the address the score limit counts, read from
X-Forwarded-For or the peer, and a summary of that header for the log that names no address.

Who counts as one client, as decided (issue 30, finding 6):

- An IPv4 address is one client. An IPv6 address that carries an IPv4 one (IPv4-mapped,
  6to4's ``2002::/16``, Teredo's ``2001::/32``, NAT64's ``64:ff9b::/96``) is that IPv4 address:
  a 6to4 site's 65,536 /64s were 65,536 clients, and every NAT64 address was skipped as
  reserved, so all its visitors fell to the one peer address.
- Any other IPv6 address is its /64 (one subscriber or device) for the shares of the events,
  the GETs and the upload cache, so a carrier's visitors are never refused one another's page
  loads; and its /48 (``SCORE_IPV6_PREFIX``: one site, a university or anyone's free tunnel)
  for the score limit, as one IPv4 address behind a NAT is: a /48 held 65,536 allowances.
- Behind the Space's proxy, the client is the rightmost public entry of every X-Forwarded-For
  line in order, past the trusted hops; internal entries (the platform's own hops) are
  skipped. A line the proxy adds goes after the visitor's own (RFC 9110, 5.3), so a visitor's
  entries never decide. Two cases the request cannot tell apart from that: a proxy that put
  its line before the visitor's, and a caller inside the platform's private network, whose
  address the proxy appends as an internal one; in both, the visitor's own entries would
  decide. Visitors of a Space come from the Internet, whose addresses are public, and the
  first scored request logs how the header is laid out (``forwarded_summary``), so the
  operator can see it.

>>> from starlette.requests import Request
>>> def request(*forwarded: bytes) -> gr.Request:
...     headers = [(b"x-forwarded-for", line) for line in forwarded]
...     return gr.Request(request=Request({"type": "http", "client": ("10.16.4.2", 43210),
...                                        "headers": headers}))
>>> seen = request(b"203.0.113.9, 198.51.100.7", b"10.0.0.1")
>>> client_address(seen, on_space=True)  # the rightmost public entry; internal hops skipped
'198.51.100.7'
>>> client_address(seen, on_space=True, trusted_hops=1)  # past one public proxy of its own
'203.0.113.9'
>>> client_address(seen, on_space=False)  # off a Space: the peer
'10.16.4.2'
>>> client_address(request(b"2001:db8:5:6::1"), on_space=True)  # IPv6: its /64
'2001:db8:5:6::/64'
>>> client_address(request(b"2001:db8:5:6::1"), on_space=True, ipv6_prefix=SCORE_IPV6_PREFIX)
'2001:db8:5::/48'
>>> client_address(request(b"2002:c633:6407:9::1"), on_space=True)  # 6to4: its IPv4
'198.51.100.7'
>>> forwarded_summary(seen)
'2 X-Forwarded-For lines with 3 entries (public, public, internal), peer address: internal'

The shares of the upload cache and of the events count by the same address, read from an ASGI
request's scope by a ``ClientIdentity``:

>>> ClientIdentity(on_space=True).of_scope({"type": "http", "client": ("10.16.4.2", 43210),
...                                         "headers": [(b"x-forwarded-for", b"198.51.100.7")]})
'198.51.100.7'
"""

from __future__ import annotations

import ipaddress
import itertools
from dataclasses import dataclass
from typing import Any

import gradio as gr
from starlette.requests import Request
from starlette.types import Scope

import ledger

#: Addresses of no visitor, besides loopback, link-local, multicast, unspecified and reserved
#: ones: private (RFC 1918), shared (RFC 6598, carrier and cloud NAT) and unique local IPv6.
#: The documentation ranges (RFC 5737) stand for public addresses, as in the tests.
INTERNAL_NETWORKS = tuple(
    ipaddress.ip_network(net)
    for net in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7")
)

#: NAT64's prefixes (RFC 6052's well-known one, RFC 8215's for local use), each address's last
#: 32 bits the IPv4 address it stands for.
NAT64_NETWORKS = tuple(ipaddress.ip_network(n) for n in ("64:ff9b::/96", "64:ff9b:1::/48"))
SHARE_IPV6_PREFIX = 64  # an IPv6 client of the shares: one subscriber or device
SCORE_IPV6_PREFIX = 48  # of the score limit: one site

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def client_address(
    request: gr.Request | None,
    on_space: bool,
    trusted_hops: int = 0,
    ipv6_prefix: int = SHARE_IPV6_PREFIX,
) -> str:
    """Who a client is: an IPv4 address, or an IPv6 address's network of ``ipv6_prefix`` bits
    (an IPv6 address that carries an IPv4 one is that IPv4 address).

    Behind the Space proxy: the rightmost public address of all X-Forwarded-For lines in
    order, past ``trusted_hops`` more public ones. A client can write the entries to the left
    of those its proxies append, in the same line or a line of its own; internal hops and
    entries that are no address are skipped. Without such an entry, or off a Space: the peer
    address (on a Space an internal one, so such requests share one allowance).
    """
    if request is None:
        return "unknown"
    if on_space:
        entries = reversed(_forwarded_entries(request))
        public = (a for a in map(_hop_address, entries) if a is not None and _is_public(a))
        client = next(itertools.islice(public, trusted_hops, None), None)
        if client is not None:
            return _client_key(client, ipv6_prefix)
    host = _peer_host(request)
    peer = _hop_address(host) if host else None
    return _client_key(peer, ipv6_prefix) if peer is not None else host or "unknown"


@dataclass(frozen=True)
class ClientIdentity:
    """Who a client is, as every per-client bound counts them: the score limit, the share of
    the upload cache and of the events (SPACE_ID, LEADERBOARD_TRUSTED_PROXY_HOPS)."""

    on_space: bool = False
    trusted_hops: int = 0

    def of(self, request: gr.Request | None) -> str:
        return client_address(request, self.on_space, self.trusted_hops)

    def of_scope(self, scope: Scope) -> str:
        """The client of an ASGI request, for middleware that answers before Gradio does."""
        return self.of(gr.Request(request=Request(scope)))


def client_identity(config: ledger.Config) -> ClientIdentity:
    """The proxy trust ``config`` read."""
    return ClientIdentity(config.on_space, config.trusted_proxy_hops)


def forwarded_summary(request: gr.Request) -> str:
    """How a request's X-Forwarded-For is laid out, for the log: counts and kinds, no address."""
    lines = _forwarded_lines(request)
    entries = _forwarded_entries(request)
    kinds = [_kind(_hop_address(e)) for e in entries]
    shown = ", ".join(kinds[-8:]) if len(kinds) <= 8 else "…, " + ", ".join(kinds[-8:])
    host = _peer_host(request)
    return (
        f"{len(lines)} X-Forwarded-For line{'s' if len(lines) != 1 else ''} with "
        f"{len(entries)} entr{'ies' if len(entries) != 1 else 'y'} ({shown or 'none'}), "
        f"peer address: {_kind(_hop_address(host) if host else None)}"
    )


def _forwarded_lines(request: gr.Request) -> list[str]:
    """Every X-Forwarded-For line in order (Starlette's ``headers.get`` gives the first only)."""
    raw = request.request  # the Starlette request, unless Gradio serialised it
    headers: Any = raw.headers if raw is not None else request.headers
    if hasattr(headers, "getlist"):
        return [str(line) for line in headers.getlist("x-forwarded-for")]
    line = headers.get("x-forwarded-for")  # serialised: one value per header name
    return [] if line is None else [str(line)]


def _forwarded_entries(request: gr.Request) -> list[str]:
    return [entry for line in _forwarded_lines(request) for entry in line.split(",")]


def _peer_host(request: gr.Request) -> str | None:
    client = request.client
    host = getattr(client, "host", None) if client is not None else None
    return str(host) if host else None


def _hop_address(entry: str) -> Address | None:
    """An X-Forwarded-For entry as an address (quotes, brackets and a port dropped; an IPv6
    address that carries an IPv4 one, that one); None if it is none.

    >>> _hop_address(' "[2001:db8::1]:443"'), _hop_address("198.51.100.7:8080")
    (IPv6Address('2001:db8::1'), IPv4Address('198.51.100.7'))
    >>> _hop_address("::ffff:198.51.100.7"), _hop_address("unknown")
    (IPv4Address('198.51.100.7'), None)
    >>> _hop_address("64:ff9b::cb00:7109"), _hop_address("2001:0:4136:e378:8000:63bf:3fff:fdd2")
    (IPv4Address('203.0.113.9'), IPv4Address('192.0.2.45'))
    """
    text = entry.strip().strip('"')
    if text.startswith("["):
        text, bracket, _ = text[1:].partition("]")
        if not bracket:
            return None
    elif text.count(":") == 1:  # IPv4 with a port
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address):
        return _carried(address) or address
    return address


def _carried(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries: mapped, 6to4, Teredo's client or NAT64's."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if any(address in net for net in NAT64_NETWORKS):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _is_public(address: Address) -> bool:
    return not (
        address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_unspecified
        or address.is_reserved
        or any(address in net for net in INTERNAL_NETWORKS)
    )


def _kind(address: Address | None) -> str:
    return "garbage" if address is None else "public" if _is_public(address) else "internal"


def _client_key(address: Address, ipv6_prefix: int) -> str:
    """One IPv4 address, or an IPv6 address's network of ``ipv6_prefix`` bits."""
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((int(address), ipv6_prefix), strict=False))
    return str(address)
