"""The record schema against hostile text: what a record may say in its names, prose and links.

A record's names are shown on the public board next to the paper rows, and its URLs become
Markdown links there. Each hostile value below must be refused with the message it names; the
good values must pass. Records go in as bytes, through ``Record.from_json``, as they arrive.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import errors
import records
import spec
from tests.support import ROOT

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track()
SHIPPED = sorted(ROOT.glob("benchmarks/*/demo/leaderboard/submissions/*.json"))


def payload(**fields: Any) -> bytes:
    """A valid paper record of the demo track, with ``fields`` replaced, as file bytes."""
    values: dict[str, Any] = {
        "schema_version": records.SCHEMA_VERSION,
        "benchmark": BENCH.id,
        "track": TRACK.id,
        "id": "00000000-0000-4000-8000-000000000042",
        "created_at": "2026-07-13T10:00:00Z",
        "source": "paper",
        "team_name": "Team",
        "method_name": "Method",
        "model_size": "8B",
        "uses_external": None,
        "uses_frames": None,
        "method_description": "",
        "project_url": None,
        "publication_url": None,
        "metrics": dict.fromkeys(TRACK.metric_keys, 50.0),
        "counts": None,
        "n_abstained": None,
        "provenance": None,
        "supersedes": None,
        "note": None,
    }
    values.update(fields)
    return json.dumps(values, ensure_ascii=False).encode()


def link(character: str, position: int, escape: str) -> str:
    """The message for a character that ends or breaks a Markdown link."""
    return (
        f"contains a character a link cannot carry ({character}) at position {position}; "
        f"percent-encode it as {escape} (quotes, < >, backticks, parentheses, square "
        "brackets and backslashes end or break a Markdown link)"
    )


def refused(field: str, value: str) -> str:
    with pytest.raises(errors.RecordError) as caught:
        records.Record.from_json(payload(**{field: value}))
    return str(caught.value)


HOSTILE_TEXT = [
    pytest.param(
        "method_name",
        "Gemini-3-Flash\u200b",
        "method_name: contains an invisible or control character (U+200B ZERO WIDTH SPACE) at "
        "position 14; remove it",
        id="zero-width-space-after-a-paper-name",
    ),
    pytest.param(
        "team_name",
        "Lab \u202eBAL",
        "team_name: contains an invisible or control character (U+202E RIGHT-TO-LEFT OVERRIDE) "
        "at position 4; remove it",
        id="right-to-left-override",
    ),
    pytest.param(
        "method_name",
        "\ufeffGPT-5",
        "method_name: contains an invisible or control character (U+FEFF ZERO WIDTH NO-BREAK "
        "SPACE) at position 0; remove it",
        id="byte-order-mark",
    ),
    pytest.param(
        "method_name",
        "GPT\u2060-5",
        "method_name: contains an invisible or control character (U+2060 WORD JOINER) at "
        "position 3; remove it",
        id="word-joiner",
    ),
    pytest.param(
        "team_name",
        "Team\u00ad",
        "team_name: contains an invisible or control character (U+00AD SOFT HYPHEN) at "
        "position 4; remove it",
        id="soft-hyphen",
    ),
    pytest.param(
        "method_name",
        "Gemini\u3164",
        "method_name: contains an invisible or control character (U+3164 HANGUL FILLER) at "
        "position 6; remove it",
        id="blank-letter",
    ),
    pytest.param(
        "method_name",
        "Line\nbreak",
        "method_name: contains an invisible or control character (U+000A LINE FEED) at "
        "position 4; remove it",
        id="newline-in-a-name",
    ),
    pytest.param(
        "team_name",
        "Tab\tbed",
        "team_name: contains an invisible or control character (U+0009 CHARACTER "
        "TABULATION) at position 3; remove it",
        id="tab",
    ),
    pytest.param(
        "model_size",
        "7B\x00",
        "model_size: contains an invisible or control character (U+0000 NULL) at position 2; "
        "remove it",
        id="nul",
    ),
    pytest.param(
        "method_name",
        "Red\x1b[31m",
        "method_name: contains an invisible or control character (U+001B ESCAPE) at position 3; "
        "remove it",
        id="terminal-escape",
    ),
    pytest.param(
        "method_name",
        "Next\u2028line",
        "method_name: contains an invisible or control character (U+2028 LINE SEPARATOR) at "
        "position 4; remove it",
        id="line-separator",
    ),
    pytest.param(
        "method_name",
        "a\u200bb\u200cc\u200dd\u2062e",
        "method_name: contains 4 invisible or control characters (U+200B ZERO WIDTH SPACE at "
        "position 1, U+200C ZERO WIDTH NON-JOINER at position 3, U+200D ZERO WIDTH JOINER at "
        "position 5, and 1 more); remove them",
        id="several",
    ),
    pytest.param(
        "note",
        "fine\n\u202eevil",
        "note: contains an invisible or control character (U+202E RIGHT-TO-LEFT OVERRIDE) at "
        "position 5; remove it",
        id="note-keeps-newlines-but-not-overrides",
    ),
    pytest.param(
        "method_description",
        "Windows\r\nline end",
        "method_description: contains an invisible or control character (U+000D CARRIAGE "
        "RETURN) at position 7; remove it",
        id="carriage-return-in-prose",
    ),
    pytest.param(
        "method_description",
        "bell\x07",
        "method_description: contains an invisible or control character (U+0007) at "
        "position 4; remove it",
        id="bell-in-prose",
    ),
    pytest.param(
        "method_name",
        "\uff27\uff45\uff4d\uff49\uff4e\uff49",
        "method_name: 'Ｇｅｍｉｎｉ' has characters that Unicode NFKC normalisation changes "
        "(U+FF27 FULLWIDTH LATIN CAPITAL LETTER G at position 0, U+FF45 FULLWIDTH LATIN SMALL "
        "LETTER E at position 1, U+FF4D FULLWIDTH LATIN SMALL LETTER M at position 2, and 3 "
        "more); write it as 'Gemini'",
        id="fullwidth-look-alike",
    ),
    pytest.param(
        "method_name",
        "GPT\u00a05",
        "method_name: 'GPT\\xa05' has characters that Unicode NFKC normalisation changes (U+00A0 "
        "NO-BREAK SPACE at position 3); write it as 'GPT 5'",
        id="no-break-space",
    ),
    pytest.param(
        "team_name",
        "\ufb01ne Lab",
        "team_name: 'ﬁne Lab' has characters that Unicode NFKC normalisation changes (U+FB01 "
        "LATIN SMALL LIGATURE FI at position 0); write it as 'fine Lab'",
        id="ligature",
    ),
    pytest.param(
        "team_name",
        "Zoe\u0308's Lab",
        'team_name: "Zoe\u0308\'s Lab" has characters that Unicode NFKC normalisation changes '
        '(U+0308 COMBINING DIAERESIS at position 3); write it as "Zo\u00eb\'s Lab"',
        id="decomposed-accent",
    ),
    pytest.param(
        "model_size",
        "8\u1d2e",
        "model_size: '8ᴮ' has characters that Unicode NFKC normalisation changes (U+1D2E "
        "MODIFIER LETTER CAPITAL B at position 1); write it as '8B'",
        id="modifier-letter",
    ),
]

HOSTILE_URLS = [
    pytest.param(
        "https://a.example/)[JS](javascript:alert(1))",
        link("U+0029 RIGHT PARENTHESIS", 18, "%29"),
        id="paren-ends-the-markdown-link",
    ),
    pytest.param(
        'https://a.example/"onmouseover="alert(1)',
        link("U+0022 QUOTATION MARK", 18, "%22"),
        id="double-quote",
    ),
    pytest.param("https://a.example/'x", link("U+0027 APOSTROPHE", 18, "%27"), id="apostrophe"),
    pytest.param(
        "https://a.example/<script>", link("U+003C LESS-THAN SIGN", 18, "%3C"), id="angle-bracket"
    ),
    pytest.param("https://a.example/`x`", link("U+0060 GRAVE ACCENT", 18, "%60"), id="backtick"),
    pytest.param(
        "https://a.example/[x]", link("U+005B LEFT SQUARE BRACKET", 18, "%5B"), id="square-bracket"
    ),
    pytest.param(
        "https://a.example/a\\b", link("U+005C REVERSE SOLIDUS", 19, "%5C"), id="backslash"
    ),
    pytest.param(
        "https://a.example/a b",
        "contains a space, control or invisible character (U+0020 SPACE) at position 19; "
        "remove it or percent-encode it as %20",
        id="space",
    ),
    pytest.param(
        "https://a.example/\u200b",
        "contains a space, control or invisible character (U+200B ZERO WIDTH SPACE) at position "
        "18; remove it or percent-encode it as %E2%80%8B",
        id="zero-width-space",
    ),
    pytest.param(
        "https://a.example/\nx",
        "contains a space, control or invisible character (U+000A LINE FEED) at position 18; "
        "remove it or percent-encode it as %0A",
        id="newline",
    ),
    pytest.param(
        "javascript:alert(1)",
        "must be an http(s) URL; found the scheme 'javascript'; write an address that starts "
        "with https:// (or http://)",
        id="javascript-scheme",
    ),
    pytest.param(
        "ftp://example.org/paper.pdf",
        "must be an http(s) URL; found the scheme 'ftp'; write an address that starts with "
        "https:// (or http://)",
        id="ftp-scheme",
    ),
    pytest.param(
        "arxiv.org/abs/2605.09874",
        "must be an http(s) URL; found no scheme; write the full address, e.g. "
        "https://arxiv.org/abs/2605.09874",
        id="no-scheme",
    ),
    pytest.param(
        "http://",
        "names no host; write the full address, e.g. https://example.org/page",
        id="no-host",
    ),
    pytest.param(
        "https:///paper",
        "names no host; write the full address, e.g. https://example.org/page",
        id="empty-host",
    ),
    pytest.param(
        "https:example.org",
        "names no host; write the full address, e.g. https://example.org/page",
        id="no-slashes",
    ),
    pytest.param(
        "https://example.org:80a/",
        "has a port that is not a number from 1 to 65535 ('80a'); fix the port or remove it",
        id="port-not-numeric",
    ),
    pytest.param(
        "https://example.org:99999/",
        "has a port that is not a number from 1 to 65535 ('99999'); fix the port or remove it",
        id="port-out-of-range",
    ),
    pytest.param(
        "https://arxiv.org@evil.example/abs/1",
        "has a user name or password before the host ('arxiv.org@'), which hides where the link "
        "goes; remove it",
        id="userinfo-spoofs-the-host",
    ),
    pytest.param(
        "https://\u0430rxiv.org/abs/1",
        "has a host that is not plain ASCII letters, digits, dots and hyphens ('аrxiv.org'); "
        "write an internationalised domain in its xn-- (punycode) form",
        id="cyrillic-host",
    ),
    pytest.param(
        "https://ex\uff03ample.org/",
        "has a host that is not plain ASCII letters, digits, dots and hyphens ('ex＃ample.org'); "
        "write an internationalised domain in its xn-- (punycode) form",
        id="host-with-a-fullwidth-number-sign",
    ),
    pytest.param(
        "https://exa_mple.org/",
        "has a host that is not plain ASCII letters, digits, dots and hyphens ('exa_mple.org'); "
        "write an internationalised domain in its xn-- (punycode) form",
        id="underscore-host",
    ),
    pytest.param(
        "https://example.org/" + "a" * 481,
        "is 501 characters long; a link may have at most 500",
        id="too-long",
    ),
]

GOOD_NAMES = [
    "Zoë's Lab",
    "北京大学 视觉实验室",
    "東京大学 (Tokyo)",
    "서울대학교",
    "Müller & Søn",
    "Ελληνικά",
    "עברית",
    "العربية",
    "Gemini-3-Flash",
    "Qwen-3-VL-30B-A3B",
    "InternVL3.5-38B",
    "Ego-R1 (ours) — v2",
]
GOOD_URLS = [
    "https://arxiv.org/abs/2605.09874",
    "https://example.org/a_b-c/d?x=1&y=2#frag",
    "http://example.org",
    "https://example.org:8443/x",
    "https://EXAMPLE.org/Path",
    "https://xn--bcher-kva.example/",
    "https://example.org/%28paren%29",
    "https://example.org/~user/a+b,c;d=e!*$@:x",
    "http://127.0.0.1:7860/",
    "https://example.org/" + "a" * 480,
    "https://example.org/論文",
]


@pytest.mark.parametrize(("field", "value", "message"), HOSTILE_TEXT)
def test_hostile_text_is_refused_with_a_message(field: str, value: str, message: str) -> None:
    assert refused(field, value) == message


@pytest.mark.parametrize("field", ["project_url", "publication_url"])
@pytest.mark.parametrize(("value", "message"), HOSTILE_URLS)
def test_hostile_urls_are_refused_with_a_message(field: str, value: str, message: str) -> None:
    assert refused(field, value) == f"{field}: {message}"


@pytest.mark.parametrize("field", ["team_name", "method_name"])
@pytest.mark.parametrize("value", GOOD_NAMES)
def test_names_in_any_script_pass(field: str, value: str) -> None:
    record = records.Record.from_json(payload(**{field: value}))
    assert getattr(record, field) == value
    assert records.Record.from_json(record.to_json()) == record


@pytest.mark.parametrize("value", ["", "7B", "30B-A3B", "API", "1.8T (MoE)"])
def test_model_sizes_pass(value: str) -> None:
    assert records.Record.from_json(payload(model_size=value)).model_size == value


@pytest.mark.parametrize("field", ["note", "method_description"])
@pytest.mark.parametrize(
    "value",
    [
        "One line.\nAnother line.\n\nA paragraph.",
        "使用全部帧，每秒一帧（1 fps）。",  # fullwidth punctuation: prose is not NFKC-checked
        "Zoë's method: 2² stages, ﬁne-tuned",
    ],
)
def test_prose_keeps_newlines_and_any_script(field: str, value: str) -> None:
    assert getattr(records.Record.from_json(payload(**{field: value})), field) == value


@pytest.mark.parametrize("field", ["project_url", "publication_url"])
@pytest.mark.parametrize("value", GOOD_URLS)
def test_well_formed_http_urls_pass(field: str, value: str) -> None:
    assert getattr(records.Record.from_json(payload(**{field: value})), field) == value


def test_the_checks_apply_when_records_are_built_in_code() -> None:
    fields = json.loads(payload())
    fields["method_name"] = "Gemini-3-Flash\u200b"
    with pytest.raises(ValueError, match=r"U\+200B ZERO WIDTH SPACE\) at position 14"):
        records.Record.model_validate(fields)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parts[-5]}/{p.name}")
def test_every_shipped_record_still_validates(path: Path) -> None:
    record = records.Record.from_json(path.read_bytes())
    assert record.path() == f"{records.RECORDS_FOLDER}/{path.name}"


def test_shipped_records_exist() -> None:
    assert len(SHIPPED) >= 20  # the glob found the demo board
