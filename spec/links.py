r"""What a spec field that ends up in a link may say: an https URL, a plain e-mail address.

A benchmark folder arrives by pull request, and its links reach the page as ``[Paper](url)``
and the Score tab's listing button as ``mailto:<contact_email>?subject=...``: a URL that closes
the Markdown link early (``https://x/a)[y](javascript:...)``) or an address that carries its own
query (``x@y.z?bcc=attacker%40evil.example&x=``, which the mail client reads as a second
recipient) changes what a visitor's click does. So a spec link is https with a host and
nothing that ends a link or an attribute, and the contact is an address of letters, digits and
``.+_-`` before the ``@`` and a domain after it: no ``?``, ``&``, ``%``, ``/``, ``:``, no space,
control or invisible character. The page still encodes both where it writes them.

>>> https_url("https://arxiv.org/abs/2605.09874")
'https://arxiv.org/abs/2605.09874'
>>> https_url("http://example.org")  # doctest: +ELLIPSIS
Traceback (most recent call last):
  ...
ValueError: expected an https URL such as https://example.org/page; found the scheme 'http': ...
>>> plain_email("x@y.z?bcc=attacker%40evil.example&x=")  # doctest: +ELLIPSIS
Traceback (most recent call last):
  ...
ValueError: expected a plain e-mail address such as name@example.org, got ...
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated
from urllib.parse import quote, urlsplit

from pydantic import AfterValidator, StringConstraints

URL_MAX_LENGTH = 500
#: What ends or breaks a Markdown link ``[text](url)`` or an HTML attribute around a URL.
_LINK_BREAKERS = frozenset("\"'<>`()[]{}\\|^")
_HOST_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_HOST = re.compile(rf"^{_HOST_LABEL}(?:\.{_HOST_LABEL})+$")
#: A dot-atom of the usual characters before the @ (RFC 5322 allows more, of which ?, &, %, /
#: and = mean something in a mailto: link), a host name of two or more labels after it.
_EMAIL = re.compile(
    rf"^[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*@{_HOST_LABEL}(?:\.{_HOST_LABEL})+$", re.IGNORECASE
)


def _char(ch: str) -> str:
    """A character as messages name it: ``U+202E RIGHT-TO-LEFT OVERRIDE``."""
    return f"U+{ord(ch):04X} {unicodedata.name(ch, '')}".rstrip()


def https_url(value: str) -> str:
    """``value`` if it is an https URL with a host and nothing a link cannot carry; else
    ValueError saying what it found and what to write."""
    scheme, _, rest = value.partition(":")
    if scheme != "https" or not rest.startswith("//"):
        found = f"the scheme {scheme!r}" if rest else "no scheme"
        raise ValueError(
            f"expected an https URL such as https://example.org/page; found {found}: write "
            "the address with https://"
        )
    for i, ch in enumerate(value):
        if ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            raise ValueError(
                f"contains a space, control or invisible character ({_char(ch)}) at position "
                f"{i}; remove it or percent-encode it as {quote(ch, safe='')}"
            )
        if ch in _LINK_BREAKERS:
            raise ValueError(
                f"contains a character a link cannot carry ({_char(ch)}) at position {i}; "
                f"percent-encode it as {quote(ch, safe='')}"
            )
    parts = urlsplit(value)
    if not parts.hostname:
        raise ValueError("names no host; write the full address, e.g. https://example.org/page")
    if "@" in parts.netloc:
        raise ValueError(
            "has a user name or password before the host, which hides where the link goes; "
            "remove it"
        )
    if not _HOST.fullmatch(parts.hostname) or len(parts.hostname) > 253:
        raise ValueError(
            f"has a host that is not plain ASCII letters, digits, dots and hyphens "
            f"({parts.hostname!r}); write an internationalised domain in its xn-- form"
        )
    try:
        port = parts.port
    except ValueError:  # not a number, or out of range
        port = 0
    if port == 0 or (port is None and parts.netloc.endswith(":")):
        raise ValueError("has a port that is not a number from 1 to 65535; fix it or remove it")
    return value


def plain_email(value: str) -> str:
    """``value`` if it is a plain address (see the module's docstring); else ValueError."""
    if not _EMAIL.fullmatch(value) or len(value) > 254:
        raise ValueError(
            "expected a plain e-mail address such as name@example.org, got "
            f"{value[:60]!r}: letters, digits and . + _ - before the @, a domain after it, "
            "nothing else (no ?, &, %, /, :, spaces)"
        )
    return value


Url = Annotated[str, StringConstraints(max_length=URL_MAX_LENGTH), AfterValidator(https_url)]
Email = Annotated[str, StringConstraints(max_length=254), AfterValidator(plain_email)]
