r"""What a record's text may say: names and prose without invisible or control characters,
names already in Unicode NFKC form, and links the board can render as ``[text](url)``.

Each check returns its value or raises ValueError with a message that says what it found and
how to fix it (pydantic puts the field in front: ``team_name: ...``); ``records.record``
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
>>> mixed_scripts("G\u0435mini-3.1-Pro")  # a Cyrillic e among Latin letters
'mixes Latin with Cyrillic (U+0435 CYRILLIC SMALL LETTER IE at position 1)'
>>> mixed_scripts("Gemini-3.1-Pro") is None, mixed_scripts("\u6e05\u534e THU-VL") is None
(True, True)
>>> repo_id("Qwen/Qwen2.5-VL-7B-Instruct")
'Qwen/Qwen2.5-VL-7B-Instruct'
>>> repo_id("https://huggingface.co/Qwen/Qwen2.5-VL-7B-Instruct")  # doctest: +ELLIPSIS
Traceback (most recent call last):
  ...
ValueError: must be a Hub repo id, "org/name" ...
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
#: A Hub repo id as huggingface_hub's validate_repo_id takes it, with its namespace: ASCII
#: letters, digits, "-", "_" and ".", neither end a "-" or a ".", at most 96 each side.
_REPO_PART = r"[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?"
_REPO_ID = re.compile(rf"^{_REPO_PART}/{_REPO_PART}$")
#: The scripts one name may mix, as Unicode's "highly restrictive" identifiers do (UTS #39,
#: section 5.2): Latin with the scripts of Japanese, of Chinese or of Korean writing.
_SCRIPT_SETS = (
    frozenset({"Latin", "Han", "Hiragana", "Katakana"}),
    frozenset({"Latin", "Han", "Bopomofo"}),
    frozenset({"Latin", "Han", "Hangul"}),
)
#: A script as the first word of its characters' Unicode names says it, where it says another.
_SCRIPT_WORDS = {
    "CJK": "Han",
    "IDEOGRAPHIC": "Han",
    "KATAKANA-HIRAGANA": "Katakana",
    "ARABIC-INDIC": "Arabic",
    "EXTENDED": "Arabic",  # EXTENDED ARABIC-INDIC DIGIT ...
}


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


def _script(ch: str) -> str | None:
    """The script of a letter, or of a digit outside ASCII, by its Unicode name ("CYRILLIC
    SMALL LETTER IE": Cyrillic); None for what every script shares (ASCII digits, spaces,
    punctuation, symbols, modifier letters, and marks, which take their letter's script)."""
    if ch.isascii():
        return "Latin" if ch.isalpha() else None
    category = unicodedata.category(ch)
    if not (category.startswith("L") or category == "Nd"):
        return None
    words = unicodedata.name(ch, "").split(" ")
    word = words[1] if words[0] in ("FULLWIDTH", "HALFWIDTH") and len(words) > 1 else words[0]
    if not word or word == "MODIFIER":
        return None
    return _SCRIPT_WORDS.get(word, word.title())


def mixed_scripts(value: str) -> str | None:
    """What is odd about a name whose letters come from scripts no writing mixes (a Cyrillic
    "е" in a Latin name looks like the name without it), or None for a name in one script, or
    in Latin with the scripts of Japanese, Chinese or Korean."""
    scripts = [(i, ch, _script(ch)) for i, ch in enumerate(value)]
    counts: dict[str, int] = {}
    for _, _, script in scripts:
        if script is not None:
            counts[script] = counts.get(script, 0) + 1
    if len(counts) <= 1 or any(set(counts) <= allowed for allowed in _SCRIPT_SETS):
        return None
    main = max(counts, key=lambda s: (counts[s], s == "Latin"))
    kin = next((a for a in _SCRIPT_SETS if main in a), frozenset({main}))
    odd = [(i, ch) for i, ch, script in scripts if script is not None and script not in kin]
    others = sorted({str(_script(ch)) for _, ch in odd})
    return f"mixes {main} with {' and '.join(others)} ({_positions(odd)})"


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


def repo_id(value: str) -> str:
    """A Hub repo id, ``org/name``, as the Hub writes one (a model's, on a record)."""
    if not _REPO_ID.match(value) or "--" in value or ".." in value or value.endswith(".git"):
        raise ValueError(
            f'must be a Hub repo id, "org/name" (ASCII letters, digits, "-", "_" and ".", '
            f'no "--" or ".."), as in https://huggingface.co/<org>/<name>; found {value[:120]!r}'
        )
    return value
