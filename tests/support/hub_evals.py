"""The Hub's Eval Results as the loopback Hub (tests/support/hub_server.py) computes them, as
hub-docs documents them (docs/hub/eval-results.md, eval_results.yaml at its root,
docs/hub/leaderboard-data-guide.md):

- a benchmark is a dataset with an ``eval.yaml`` at its root: ``name``, ``description``,
  ``evaluation_framework`` and ``tasks[]`` (each an ``id``, optional ``config`` and ``split``);
- a model repo carries ``.eval_results/*.yaml`` files, each a list of results: ``dataset``
  (``id`` and ``task_id`` required, ``revision``), ``value`` required, optional ``verifyToken``,
  ``date``, ``source`` (``url`` required if given, ``name``, ``user``, ``org``) and ``notes``;
- results in an open pull request show as "community" (the entry's ``pullRequest``) until it is
  merged; a result is "verified" only by a valid ``verifyToken`` (none is valid here);
- ``GET /api/datasets/{id}/leaderboard`` gives the benchmark's ranked results (``rank``,
  ``modelId``, ``value``, ``filename``, ``verified``, ``source``, ``author``, ``pullRequest``,
  ``notes``); a dataset that is no benchmark has no leaderboard (404). The API names no task:
  here it ranks the first task of ``eval.yaml``'s, as the Hub's embedded leaderboard shows by
  default, best (highest) value first.

``eval_yaml_problems`` and ``schema_problems`` check an ``eval.yaml`` and a results file against
that specification, field by field (the tests check what the maintainer's script writes with
them); ``leaderboard`` ranks the results of the model repos it is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

EVAL_YAML = "eval.yaml"
RESULTS_FOLDER = ".eval_results/"


def eval_yaml_problems(doc: object) -> list[str]:
    """What an ``eval.yaml`` lacks or gets wrong, by the documented specification."""
    if not isinstance(doc, dict):
        return [f"eval.yaml: expected a mapping, got {type(doc).__name__}"]
    problems = [
        f"{name}: required, a non-empty string"
        for name in ("name", "description", "evaluation_framework")
        if not isinstance(doc.get(name), str) or not doc[name].strip()
    ]
    tasks = doc.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        return [*problems, "tasks: required, a non-empty list"]
    ids = []
    for i, task in enumerate(tasks):
        if not isinstance(task, dict) or not isinstance(task.get("id"), str) or not task["id"]:
            problems.append(f"tasks[{i}].id: required, a non-empty string")
            continue
        ids.append(task["id"])
        for name in ("config", "split"):
            if name in task and not isinstance(task[name], str):
                problems.append(f"tasks[{i}].{name}: a string when given")
        unknown = set(task) - {"id", "config", "split", "field_spec", "solvers", "scorers"}
        problems += [f"tasks[{i}].{name}: not in the specification" for name in sorted(unknown)]
    if len(ids) != len(set(ids)):
        problems.append("tasks: each task id must be unique")
    unknown = set(doc) - {"name", "description", "evaluation_framework", "tasks"}
    return problems + [f"{name}: not in the specification" for name in sorted(unknown)]


def schema_problems(doc: object) -> list[str]:
    """What a ``.eval_results/*.yaml`` file lacks or gets wrong, by the documented schema."""
    if not isinstance(doc, list) or not doc:
        return ["the file: expected a non-empty list of results"]
    problems: list[str] = []
    for i, item in enumerate(doc):
        where = f"[{i}]"
        if not isinstance(item, dict):
            problems.append(f"{where}: expected a mapping")
            continue
        dataset = item.get("dataset")
        if not isinstance(dataset, dict):
            problems.append(f"{where}.dataset: required, a mapping")
        else:
            for name in ("id", "task_id"):
                if not isinstance(dataset.get(name), str) or not dataset[name]:
                    problems.append(f"{where}.dataset.{name}: required, a non-empty string")
            if "revision" in dataset and not isinstance(dataset["revision"], str):
                problems.append(f"{where}.dataset.revision: a string when given")
            extra = set(dataset) - {"id", "task_id", "revision"}
            problems += [f"{where}.dataset.{n}: not in the schema" for n in sorted(extra)]
        value = item.get("value")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            problems.append(f"{where}.value: required, a number")
        for name in ("verifyToken", "date", "notes"):
            if name in item and not isinstance(item[name], str):
                problems.append(f"{where}.{name}: a string when given")
        if "source" in item:
            source = item["source"]
            if not isinstance(source, dict) or not isinstance(source.get("url"), str):
                problems.append(f"{where}.source.url: required when source is given")
            else:
                extra = set(source) - {"url", "name", "user", "org"}
                problems += [f"{where}.source.{n}: not in the schema" for n in sorted(extra)]
        extra = set(item) - {"dataset", "value", "verifyToken", "date", "source", "notes"}
        problems += [f"{where}.{n}: not in the schema" for n in sorted(extra)]
    return problems


@dataclass(frozen=True)
class ModelFiles:
    """A model repo's ``.eval_results`` files on main, and those of each open pull request."""

    repo_id: str
    main: Mapping[str, bytes]
    pulls: Mapping[int, Mapping[str, bytes]]


def _results(files: Mapping[str, bytes]) -> Iterable[tuple[str, dict[str, Any]]]:
    for path, data in sorted(files.items()):
        if not (path.startswith(RESULTS_FOLDER) and path.endswith((".yaml", ".yml"))):
            continue
        try:
            doc = yaml.safe_load(data)
        except yaml.YAMLError:
            continue
        if schema_problems(doc):
            continue  # the Hub refuses such a file at push time
        for item in doc:
            yield path, item


def leaderboard(
    dataset_id: str, eval_yaml: bytes, models: Iterable[ModelFiles]
) -> list[dict[str, Any]]:
    """The leaderboard API's answer for the benchmark ``dataset_id`` of ``eval_yaml``: its
    first task's results in ``models`` (merged ones, and each open pull request's that main
    lacks), best value first, each with its ``rank``."""
    doc = yaml.safe_load(eval_yaml)
    dataset_task = doc["tasks"][0]["id"]
    rows: list[dict[str, Any]] = []
    for model in models:
        found: list[tuple[str, dict[str, Any], int | None]] = [
            (path, item, None) for path, item in _results(model.main)
        ]
        for pull, files in sorted(model.pulls.items()):
            found += [
                (path, item, pull)
                for path, item in _results(files)
                if item not in [i for p, i in _results(model.main) if p == path]
            ]
        for path, item, num in found:
            if (item["dataset"]["id"], item["dataset"]["task_id"]) != (dataset_id, dataset_task):
                continue
            source = item.get("source")
            owner = model.repo_id.split("/")[0]
            row: dict[str, Any] = {
                "modelId": model.repo_id,
                "value": item["value"],
                "filename": path,
                "verified": False,  # no verifyToken is valid on the loopback Hub
                "source": None if source is None else {**source, "isExternal": True},
                "author": {"type": "user", "name": owner, "fullname": owner, "avatarUrl": ""},
                "notes": item.get("notes"),
            }
            if num is not None:
                row["pullRequest"] = num
            rows.append(row)
    rows.sort(key=lambda r: (-float(r["value"]), r["modelId"]))
    return [{"rank": i, **r} for i, r in enumerate(rows, start=1)]
