r"""What a record's text may say: names and prose without invisible or control characters,
names already in Unicode NFKC form, and links the board can render as ``[text](url)``.

Each check returns its value or raises ValueError with a message that says what it found and
how to fix it (pydantic puts the field in front: ``team_name: ...``); ``ledger.records``
applies them to a record's fields.

>>> shown_name("Team Ego")
'Team Ego'
>>> shown_name("Team\u200bEgo")  # doctest: +ELLIPSIS
Traceback (most recent call last):
  ...
ValueError: contains an invisible or control character (U+200B ZERO WIDTH SPACE) at position 4...
>>> shown_name("\uff27PT 4")  # doctest: +ELLIPSIS
Traceback (most recent call last):
  ...
ValueError: 'ＧPT 4' has characters that Unicode NFKC normalisation changes (...); write ...
>>> visible_text("line one\nline two", keep="\n")
'line one\nline two'
>>> http_url("https://example.org/paper")
'https://example.org/paper'
>>> http_url("https://user@example.org/")  # doctest: +ELLIPSIS
Traceback (most recent call last):
  ...
ValueError: has a user name or password before the host ('user@'), which hides where the link ...
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from urllib.parse import quote, urlsplit

URL_MAX_LENGTH = 500
#: Control and format characters and line or paragraph separators: invisible, or they move text.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})
#: Letters and marks that render as nothing or as blank space (the usual blank-name tricks).
_BLANK_LETTERS = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")
#: Python's Unicode database names no control character: the common ones by their aliases.
_CONTROL_NAMES = {
    0x00: "NULL",
    0x09: "CHARACTER TABULATION",
    0x0A: "LINE FEED",
    0x0D: "CARRIAGE RETURN",
    0x1B: "ESCAPE",
    0x7F: "DELETE",
}
#: What ends or breaks a Markdown link ``[text](url)`` or an HTML attribute around a URL.
_LINK_BREAKERS = frozenset("\"'<>`()[]\\")
_URL_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_HOST_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_HOST = re.compile(rf"^{_HOST_LABEL}(?:\.{_HOST_LABEL})*\.?$")


def _char(ch: str) -> str:
    """A character as messages name it: ``U+200B ZERO WIDTH SPACE``."""
    name = unicodedata.name(ch, "") or _CONTROL_NAMES.get(ord(ch), "")
    return f"U+{ord(ch):04X} {name}".rstrip()


def _positions(found: Sequence[tuple[int, str]], limit: int = 3) -> str:
    shown = ", ".join(f"{_char(ch)} at position {i}" for i, ch in found[:limit])
    return shown + (f", and {len(found) - limit} more" if len(found) > limit else "")


def _invisible(ch: str) -> bool:
    """A control, format or blank character, as it is or once NFKC-normalised."""
    return any(
        c in _BLANK_LETTERS or unicodedata.category(c) in _INVISIBLE_CATEGORIES
        for c in (ch, *unicodedata.normalize("NFKC", ch))
    )


def visible_text(value: str, keep: str = "") -> str:
    """``value``, unless it holds invisible or control characters (other than ``keep``)."""
    found = [(i, ch) for i, ch in enumerate(value) if ch not in keep and _invisible(ch)]
    if len(found) == 1:
        raise ValueError(
            f"contains an invisible or control character ({_char(found[0][1])}) at "
            f"position {found[0][0]}; remove it"
        )
    if found:
        raise ValueError(
            f"contains {len(found)} invisible or control characters "
            f"({_positions(found)}); remove them"
        )
    return value


def shown_name(value: str) -> str:
    """A name as the board shows it: visible characters only, already in NFKC form.

    A name that NFKC normalisation changes (full-width letters, ligatures, no-break spaces,
    decomposed accents) looks like, or exactly like, another string: it is refused with its
    normal form to write instead, never normalised silently (a record's bytes are final).
    """
    visible_text(value)
    normal = unicodedata.normalize("NFKC", value)
    if normal != value:
        changed = [(i, ch) for i, ch in enumerate(value) if unicodedata.normalize("NFKC", ch) != ch]
        if not changed:  # each character is normal alone: a mark composes with its letter
            changed = [
                (i, value[i])
                for i in range(1, len(value))
                if unicodedata.normalize("NFKC", value[i - 1 : i + 1]) != value[i - 1 : i + 1]
            ]
        where = _positions(changed) if changed else "characters that compose"
        raise ValueError(
            f"{value!r} has characters that Unicode NFKC normalisation changes "
            f"({where}); write it as {normal!r}"
        )
    return value


def http_url(value: str | None) -> str | None:
    """A link the board can render as ``[text](url)``: a well-formed http(s) URL with a host."""
    if value is None:
        return None
    if len(value) > URL_MAX_LENGTH:
        raise ValueError(
            f"is {len(value)} characters long; a link may have at most {URL_MAX_LENGTH}"
        )
    for i, ch in enumerate(value):
        # Before parsing: urlsplit drops tabs and newlines and strips leading blanks itself.
        if ch.isspace() or _invisible(ch):
            raise ValueError(
                f"contains a space, control or invisible character ({_char(ch)}) at position "
                f"{i}; remove it or percent-encode it as {quote(ch, safe='')}"
            )
    scheme = _URL_SCHEME.match(value)
    if scheme is None:
        raise ValueError(
            "must be an http(s) URL; found no scheme; write the full address, e.g. "
            f"https://{value.lstrip('/')}"
        )
    if scheme[1].lower() not in ("http", "https"):
        raise ValueError(
            f"must be an http(s) URL; found the scheme {scheme[1]!r}; write an "
            "address that starts with https:// (or http://)"
        )
    for i, ch in enumerate(value):
        if ch in _LINK_BREAKERS:
            raise ValueError(
                f"contains a character a link cannot carry ({_char(ch)}) at position {i}; "
                f"percent-encode it as {quote(ch, safe='')} (quotes, < >, backticks, "
                "parentheses, square brackets and backslashes end or break a Markdown link)"
            )
    try:
        parts = urlsplit(value)
    except ValueError:  # a host with characters whose NFKC forms are "/", "?", "#", "@" or ":"
        host = value.split("//", 1)[-1].split("/", 1)[0]
        raise ValueError(_not_ascii_host(host)) from None
    if not parts.hostname:
        raise ValueError("names no host; write the full address, e.g. https://example.org/page")
    if "@" in parts.netloc:
        userinfo = parts.netloc.rpartition("@")[0] + "@"
        raise ValueError(
            f"has a user name or password before the host ({userinfo!r}), which "
            "hides where the link goes; remove it"
        )
    port_text = parts.netloc.partition(":")[2]  # no brackets, so no IPv6 host: ':' ends the host
    try:
        port = parts.port
    except ValueError:  # not a number, or out of range
        port = None
    if port_text and not (port_text.isascii() and port_text.isdigit() and port):
        raise ValueError(
            f"has a port that is not a number from 1 to 65535 ({port_text!r}); fix "
            "the port or remove it"
        )
    if len(parts.hostname) > 253 or not _HOST.match(parts.hostname):
        raise ValueError(_not_ascii_host(parts.hostname))
    return value


def _not_ascii_host(host: str) -> str:
    return (
        f"has a host that is not plain ASCII letters, digits, dots and hyphens ({host!r}); "
        "write an internationalised domain in its xn-- (punycode) form"
    )
