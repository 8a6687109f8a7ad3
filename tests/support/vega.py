"""A chart's Vega-Lite spec as its plot carries it, checked against the Vega-Lite schema.

The check is altair's: the schema altair ships (``core.Root``: every top-level spec Vega-Lite
accepts), the one ``alt.Chart.from_dict`` tries last, after each chart class's own part of it,
building the chart object as it goes (three times the time, for the same verdict). Each distinct
spec is checked once a test process: the tests read the same demo boards' charts many times.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from altair.vegalite.v5.schema import core


@functools.cache
def _checked(text: str) -> None:
    """Raises jsonschema's ValidationError unless ``text`` is a valid Vega-Lite spec (a spec
    that fails is checked again each time: only a pass is remembered)."""
    core.Root.validate(json.loads(text))


def checked_spec(plot: Any) -> dict[str, Any]:
    """The Vega-Lite spec of ``plot`` (a ``gr.Plot`` value or its update), once the schema
    accepts it: a fresh copy each call, which the caller may change."""
    text: str = plot["plot"] if isinstance(plot, dict) else plot.plot
    _checked(text)
    spec_json: dict[str, Any] = json.loads(text)
    return spec_json
