"""A benchmark and its verified rows in the Hugging Face Hub's Eval Results, as hub-docs
specifies them (docs/hub/eval-results.md, and eval_results.yaml at the root of
huggingface/hub-docs).

A benchmark's dataset carries an ``eval.yaml`` at its root (``eval_yaml``): its name,
description, ``evaluation_framework`` (the spec's ``hub.evaluation_framework``, an identifier
the Hub maintains) and one task per track, the track's id. A model repo carries
``.eval_results/<benchmark id>.yaml`` (``results_path``), a list of results; ``model_result`` is
a board row's: the spec's ``hub.dataset`` and the track as the task, the ranking metric at full
precision as the value, the record's date, its permalink on the Space as the source (named as
re-scored by the leaderboard's maintainer) and notes from the record. ``merged`` puts it into a
model's existing file, replacing that row's task's result. Only a re-scored row the board shows
is exported (``exportable``); a ``BoardError`` says why not otherwise. Nothing here touches the
Hub (ledger.eval_results does).

Example (a row of the demo board):

>>> import uuid, ledger, spec, yaml
>>> from maintainer import board_checks
>>> bench = spec.load_benchmark("egomemreason")
>>> everything, _ = board_checks.read_board(ledger.LocalStore(bench.demo_board))
>>> row = exportable(everything, bench, uuid.UUID("5694e658-3eb0-487c-b1e2-cba563c80b88"))
>>> entry = model_result(row, bench, space="demo-org/demo-space")
>>> entry["dataset"], entry["value"] == row.metrics["overall"]
({'id': 'Ted412/EgoMemReason', 'task_id': 'memory'}, True)
>>> entry["source"]["url"]
'https://huggingface.co/spaces/demo-org/demo-space?entry=5694e658-3eb0-487c-b1e2-cba563c80b88'
>>> [task["id"] for task in yaml.safe_load(eval_yaml_text(bench))["tasks"]]
['memory']
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

import yaml

import ledger
import spec
from errors import BoardError
from maintainer.board_checks import row_name, rows_of, withdrawals_of, withdrawn_text
from records import history

EVAL_YAML = "eval.yaml"  # at the root of the benchmark's dataset
RESULTS_FOLDER = ".eval_results"  # in a model repo
HUB = "https://huggingface.co"
#: What ``source.name`` says of a row: its numbers were re-scored, not reported by the team.
SOURCE_NAME = "{title} leaderboard: re-scored by its maintainer"


def results_path(bench: spec.Benchmark) -> str:
    """Where a model repo keeps its results on ``bench``: ``.eval_results/<id>.yaml``."""
    return f"{RESULTS_FOLDER}/{bench.id}.yaml"


def _needs(bench: spec.Benchmark, key: str, what: str) -> str:
    value = getattr(bench.hub, key)
    if value is None:
        raise BoardError(
            f"{bench.id}'s spec names no hub.{key} ({what}); add it under [hub] in "
            f"{bench.folder / spec.SPEC_FILENAME}"
        )
    return str(value)


def eval_yaml(bench: spec.Benchmark) -> dict[str, Any]:
    """The benchmark's ``eval.yaml``: one task per track, its id the track's."""
    framework = _needs(
        bench,
        "evaluation_framework",
        "the Hub's identifier of the benchmark's evaluation framework, allow-listed on request",
    )
    return {
        "name": bench.title,
        "description": bench.description,
        "evaluation_framework": framework,
        "tasks": [{"id": track.id} for track in bench.tracks],
    }


def eval_yaml_text(bench: spec.Benchmark) -> str:
    """``eval_yaml`` as the file's text, with a comment saying where it comes from."""
    header = (
        f"# The Hub's Eval Results of {bench.title}: one task per track of the leaderboard.\n"
        f"# Written by scripts/hub_eval_results.py eval-yaml from benchmarks/{bench.id}/"
        f"{spec.SPEC_FILENAME}.\n"
    )
    return header + _dump(eval_yaml(bench))


def _dump(doc: object) -> str:
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)


def exportable(
    everything: Sequence[ledger.Entry], bench: spec.Benchmark, row_id: uuid.UUID
) -> ledger.Record:
    """The row ``row_id`` names, if the board shows it and re-scored it; BoardError says why
    not (a paper's numbers are the paper's, a row off the board is not the board's result)."""
    row = next((r for r in everything if r.id == row_id), None)
    if row is None or isinstance(row, ledger.Withdrawal):
        what = "a withdrawal record, not a row" if row is not None else "no row"
        raise BoardError(
            f"--row {row_id}: {what} among the records of {bench.id}; give the uuid of a row "
            "the board shows (its card's Record id)"
        )
    track_id = ledger.record_track(row, bench)
    if track_id is None:
        raise BoardError(f"--row {row_id}: that row is not {bench.id}'s; pass its --benchmark")
    track = bench.track(track_id)
    status = history.status(
        row, rows_of(everything, bench, track), withdrawals_of(everything, bench, track)
    )
    if status.withdrawal is not None:
        raise BoardError(
            f"{row_name(row)} is {withdrawn_text(status.withdrawal)}: the board no longer "
            "stands by it"
        )
    if status.superseded_by is not None:
        head = status.history[-1].row
        raise BoardError(
            f"{row_name(row)} is superseded by {status.superseded_by.id}; export the row the "
            f"board shows in its place, {row_name(head)}"
        )
    if row.source != "rescored":
        raise BoardError(
            f"{row_name(row)}: its numbers are the paper's, not re-scored here; the leaderboard "
            "verifies only the rows it re-scored"
        )
    return row


def permalink(bench: spec.Benchmark, row: ledger.Record, space: str) -> str:
    """The row's card on the Space: its page on the Hub, whose query reaches the app."""
    pairs = [("entry", str(row.id))]
    if len(bench.tracks) > 1 and row.track is not None:
        pairs.append(("track", row.track))
    return f"{HUB}/spaces/{space}?{urlencode(pairs)}"


def _notes(row: ledger.Record, bench: spec.Benchmark) -> str:
    choice = bench.input.choices.get(row.uses_frames or "")
    parts = [
        f"{bench.input.label}: {choice}" if choice else None,
        f"answer key {row.key_version}" if row.key_version else None,
        row.note,
    ]
    return "; ".join(p.replace("\n", " ") for p in parts if p)


def model_result(row: ledger.Record, bench: spec.Benchmark, *, space: str) -> dict[str, Any]:
    """A re-scored board row as one result of a model's ``.eval_results`` file."""
    dataset = _needs(bench, "dataset", "the benchmark's public dataset on the Hub")
    track = bench.track(ledger.record_track(row, bench))
    entry: dict[str, Any] = {
        "dataset": {"id": dataset, "task_id": track.id},
        "value": row.metrics[track.ranking],
        "date": row.created_at.isoformat().replace("+00:00", "Z"),
        "source": {
            "url": permalink(bench, row, space),
            "name": SOURCE_NAME.format(title=bench.title),
        },
    }
    notes = _notes(row, bench)
    if notes:
        entry["notes"] = notes
    return entry


def merged(existing: bytes | None, entry: dict[str, Any], path: str) -> str:
    """A model's results file holding ``entry``: ``existing`` with the result of the same
    dataset and task replaced (others kept, in order), or a new file. BoardError if the
    existing file is not a list of results."""
    items: list[Any] = []
    if existing is not None:
        try:
            items = yaml.safe_load(existing) or []
        except yaml.YAMLError as exc:
            raise BoardError(f"the model's {path} is not YAML ({exc}); fix it first") from None
        if not isinstance(items, list):
            raise BoardError(f"the model's {path} is not a list of results; fix it first")
    same = [entry["dataset"]["id"], entry["dataset"]["task_id"]]
    kept = [
        item
        for item in items
        if not (
            isinstance(item, dict)
            and isinstance(item.get("dataset"), dict)
            and [item["dataset"].get("id"), item["dataset"].get("task_id")] == same
        )
    ]
    return _dump([*kept, entry])
