"""The page's JavaScript: the files of ``web/js/``, read as Gradio takes them.

Each file is one script, named by the part of the page it serves (``board_table.js``,
``score_upload_check.js``, ...), and the module that wires it reads it once, at import, with
``page_script``. Gradio takes two shapes of script: an event's ``js=`` (and a load's) is a
function expression, which Gradio calls as ``(text)(...inputs)``: one arrow function, no
statement after it, not even a ``;``; a ``gr.HTML``'s ``js_on_load`` is a function body, run
with ``element``, ``trigger``, ``props``, ``server``, ``upload`` and ``watch`` in scope. A
file's comments go to the page with it.

A value the Python side decides is a placeholder in the file, ``__NAME__`` (a JavaScript
identifier, so the file still parses), written ``page_script(name, NAME=value)`` and filled in
as the value's JSON, a JavaScript literal. The fills and the file's placeholders must match
one for one: a placeholder left unfilled or a fill the file does not use is a ValueError, at
import.

Example:

>>> page_script("charts_remeasure.js").splitlines()[-1]
"() => requestAnimationFrame(() => window.dispatchEvent(new Event('resize')))"
>>> "const limit = 5;" in page_script("score_upload_check.js", LIMIT_BYTES=5)
True
>>> page_script("score_upload_check.js")
Traceback (most recent call last):
...
ValueError: web/js/score_upload_check.js: placeholder __LIMIT_BYTES__ left unfilled
"""

from __future__ import annotations

import json
import re
from pathlib import Path

#: The folder of the page's scripts (shipped with the package: pyproject's package data).
FOLDER = Path(__file__).with_name("js")

#: A value the Python side fills in: ``__NAME__``, the name in capitals.
PLACEHOLDER = re.compile(r"\b__([A-Z][A-Z0-9_]*)__\b")


def page_script(name: str, **fills: object) -> str:
    """The script ``web/js/<name>``, each placeholder ``__NAME__`` replaced by the JSON of
    ``fills["NAME"]``. ValueError if a placeholder is left unfilled or a fill is not one of the
    file's placeholders."""
    text = (FOLDER / name).read_text(encoding="utf-8")
    wanted = set(PLACEHOLDER.findall(text))
    missing, extra = sorted(wanted - fills.keys()), sorted(fills.keys() - wanted)
    if missing:
        raise ValueError(f"web/js/{name}: placeholder __{missing[0]}__ left unfilled")
    if extra:
        raise ValueError(f"web/js/{name}: no placeholder __{extra[0]}__ to fill")
    return PLACEHOLDER.sub(lambda m: json.dumps(fills[m.group(1)]), text)
