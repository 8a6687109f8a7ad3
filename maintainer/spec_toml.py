"""The TOML a scaffolded spec is written in: values, metric keys and labels made from a
release's values, and the grouping, aggregates and views of a track of accuracies, for every
kind the scaffold writes (``maintainer.scaffold``, ``maintainer.short_answer_release``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from spec.base import MIN_ROWS


class Grouped(Protocol):
    """What the scaffold inferred of a release's groups (``Inferred``, ``ShortInferred``)."""

    @property
    def group_field(self) -> str | None: ...
    @property
    def groups(self) -> dict[str, int]: ...
    @property
    def group_values(self) -> dict[str, tuple[str, ...]]: ...
    @property
    def aggregates(self) -> tuple[tuple[str, tuple[str, ...], str], ...]: ...
    @property
    def notes(self) -> dict[str, str]: ...


def metric_key(value: str, taken: set[str]) -> str:
    """A group's metric key from its value: lower case, digits and _, starting with a letter."""
    key = re.sub(r"[^a-z0-9]+", "_", value.lower()).strip("_") or "group"
    key = key if key[0].isalpha() else f"g_{key}"
    base, n = key[:60], 2
    while key in taken:
        key, n = f"{base}_{n}", n + 1
    taken.add(key)
    return key


def toml_value(value: object) -> str:
    """A TOML value: strings as JSON writes them (a TOML basic string), lists of them."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value), ensure_ascii=False)


def one(names: Sequence[str]) -> str | list[str]:
    """A field, or a list of fields, as the spec writes it."""
    return names[0] if len(names) == 1 else list(names)


def board_label(text: str) -> str:
    """A board header from a value: as written, its first letter upper case, at most 60."""
    text = text.strip()[:60] or "Group"
    return text[0].upper() + text[1:]


def grouping_toml(found: Grouped, keys: Mapping[str, str]) -> str:
    """The grouping, its aggregates and the board's view of them; without a grouping, the
    track's size and a view of Overall alone."""
    columns = '["rank_range", "source", "team", "size", "date", "ci"]'
    if found.group_field is None:
        return f"""
# No grouping: {found.notes.get("group", "none")}.
[[tracks.views]]
title = "Overall"
columns = {columns}
"""
    groups = "\n".join(
        f"  {{ value = {toml_value(one(found.group_values[g]))}, key = {toml_value(keys[g])}, "
        f"label = {toml_value(board_label(g))}, size = {n} }},"
        for g, n in found.groups.items()
    )
    aggregates = "".join(
        f"""
[[tracks.aggregates]]
key = {toml_value(keys[label])}
label = {toml_value(board_label(label))}
of = {toml_value([keys[m] for m in members])}
aggregation = {toml_value(how)}  # micro: correct over all their rows; macro: the mean of theirs
"""
        for label, members, how in found.aggregates
    )
    shown = [keys[label] for label, _, _ in found.aggregates] + [keys[g] for g in found.groups]
    return f"""
# The questions grouped by {found.group_field!r}: one metric per group (size: its rows). A
# group's value may be a list of values, to count several as one group.
[[tracks.groupings]]
id = {toml_value(metric_key(found.group_field, {"overall", "overall_answerable"}))}
field = {toml_value(found.group_field)}
title = {toml_value(board_label(found.group_field.replace("_", " ")))}
groups = [
{groups}
]
{aggregates}
# The board's column groups (the app adds All and Details): the ranking metric, then these.
[[tracks.views]]
title = "Groups"
metrics = {toml_value(shown)}
columns = {columns}
"""


def spec_head(bench_id: str, key_name: str, size: int, notes: str, description: str) -> str:
    """The top of a scaffolded ``benchmark.toml``, whatever its tracks' kind: what was
    inferred (``notes``, comment lines), the benchmark's identity, its repos on the Hub and the
    board's input choices, each to check or write."""
    return f"""# {bench_id}: written by scripts/new_benchmark.py from {key_name} ({size} questions).
# Check every line, then: scripts/validate_benchmark.py on the real key and public file.
# What was inferred rather than given:
{notes or "# - nothing: every part was given"}

id = {toml_value(bench_id)}
title = {toml_value(bench_id)}  # the benchmark's name as the page shows it
description = {toml_value(description)}  # one line under the title
contact_email = {toml_value(f"{bench_id}@example.org")}  # to write: where listing requests go

# [links] (all optional): paper, project, code, data, each an https:// address.

# To write: the dataset holding the real key (private) and the one holding the board's records
# (public). Nothing is read from them until HF_TOKEN or a Hub board is configured.
[hub]
private_repo = {toml_value(f"your-org/{bench_id}-private")}
records_repo = {toml_value(f"your-org/{bench_id}-leaderboard")}
# The Hub's Eval Results (scripts/hub_eval_results.py), all optional: the benchmark's public
# dataset, the evaluation framework its eval.yaml names (an identifier the Hub maintains and
# allow-lists on request), the Space serving this board, and whether the board shows the
# Hub's own results for the dataset beside it, marked unverified.
# dataset = "your-org/<dataset>"
# evaluation_framework = "<framework id>"
# space = "your-org/<space>"
# show_hub_results = false

# What a listed model saw: the board's input column and the listing request's choices.
[input]
label = "Input"
choices = {{ "default" = "Default", "other" = "Other" }}

# [paper] (optional): the paper's rows, from paper_baselines.csv beside this file (method,
# group, note and one column per metric key); track, table, team, date, url, namespace (a uuid),
# and questions = N when the paper measured on another question set than this key's.
"""


def track_head(
    bench_id: str, kind: str, smallest: int, decimals: int, key: tuple[str, str], public_name: str
) -> str:
    """The first lines of a scaffolded track of ``kind`` (its only track, "main"): its scorer
    version, ``min_rows`` no larger than its ``smallest`` group, its decimals, and its key
    (``key``: name and format) and public file (its format read from ``public_name``)."""
    public_format = Path(public_name).suffix.lstrip(".").lower()
    public_format = public_format if public_format in ("csv", "jsonl") else "json"
    return f"""[[tracks]]
id = "main"
title = "Main"
kind = {toml_value(kind)}
scorer_version = {toml_value(f"{bench_id}-scorer 1.0")}  # bump it when scoring changes
# A visitor is shown no metric that turns on fewer rows of the key than this ({MIN_ROWS} by
# default; here no more than the smallest group, so a group answered in full is shown).
min_rows = {min(MIN_ROWS, smallest)}
decimals = {decimals}  # a percent's decimals wherever one is shown; records keep full values
key = {{ name = {toml_value(key[0])}, format = {toml_value(key[1])} }}
public = {{ name = {toml_value(public_name)}, format = {toml_value(public_format)} }}"""
