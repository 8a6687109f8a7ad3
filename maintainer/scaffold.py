"""A benchmark folder from its authors' release, with nothing converted: the spec is inferred.

``scaffold`` reads a multiple-choice answer key as its authors publish it (CSV, JSON Lines, or
JSON: a list or ``{"samples": [...]}``), infers what a spec says of it (the id field or fields,
the question, the options, one field holding them or one field per option, the answer and how
it is written, the letters and option counts, a grouping field with its groups and sizes) and
writes a folder ``scripts/validate_benchmark.py`` passes and ``make run`` serves:

- ``benchmark.toml``, commented: what was inferred and what to check (the placeholders for the
  repos and the contact address, the title, the grouping);
- ``about.md`` and ``citation.bib``, stubs to write;
- ``demo/``: a synthetic demo in the release's own layout (every question marked
  ``[SYNTHETIC DEMO]``, every answer drawn anew from the row's options with a fixed seed), its
  public file, and a sample submission (one entry per question, a list of objects);
- ``release/<public file>`` when no public file was given: the key without its answers.

What the inference cannot tell is given on the command line (``Overrides``): a composed id,
the option fields, the answer field, its format, the grouping field. It writes the spec and
then loads it with ``spec.load_benchmark`` and checks the demo release with
``maintainer.release`` and the sample with the evaluator, so a folder it writes is one the app
serves; a release it cannot read is a ``ScaffoldError`` saying which override to give.
"""

from __future__ import annotations

import csv
import io
import json
import random
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import evaluator
import spec
from errors import LeaderboardError, ScaffoldError
from maintainer import release
from maintainer.release_layout import (
    LETTERS,
    NO_OVERRIDES,
    Inferred,
    Overrides,
    Release,
    infer,
    option_texts,
    read_release,
)
from spec.base import MIN_ROWS

SEED = 19  # the demo's answers and the sample's predictions: the same folder every run
SYNTHETIC = "[SYNTHETIC DEMO] "


@dataclass(frozen=True)
class Written:
    """What ``scaffold`` wrote: the folder, its files, and what it inferred."""

    folder: Path
    files: tuple[Path, ...]
    inferred: Inferred
    public: Path  # the release's public file (given, or written under release/)


def metric_key(value: str, taken: set[str]) -> str:
    """A group's metric key from its value: lower case, digits and _, starting with a letter."""
    key = re.sub(r"[^a-z0-9]+", "_", value.lower()).strip("_") or "group"
    key = key if key[0].isalpha() else f"g_{key}"
    base, n = key[:60], 2
    while key in taken:
        key, n = f"{base}_{n}", n + 1
    taken.add(key)
    return key


def _toml(value: object) -> str:
    """A TOML value: strings as JSON writes them (a TOML basic string), lists of them."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value), ensure_ascii=False)


def _one(names: Sequence[str]) -> str | list[str]:
    """A field, or a list of fields, as the spec writes it."""
    return names[0] if len(names) == 1 else list(names)


def spec_text(bench_id: str, found: Inferred, key: Release, public_name: str) -> str:
    """A commented ``benchmark.toml`` of what was inferred."""
    taken = {"overall", "overall_answerable"}
    keys = {value: metric_key(value, taken) for value in found.groups}
    groups = "\n".join(
        f"  {{ value = {_toml(v)}, key = {_toml(k)}, label = {_toml(v[:60])}, "
        f"size = {found.groups[v]} }},"
        for v, k in keys.items()
    )
    notes = "\n".join(f"# - {part}: {why}" for part, why in found.notes.items())
    fmt = "csv" if key.format == "csv" else key.format
    public_format = Path(public_name).suffix.lstrip(".").lower()
    public_format = public_format if public_format in ("csv", "jsonl") else "json"
    size = len(key.rows)
    letters = found.letters
    return f"""# {bench_id}: written by scripts/new_benchmark.py from {key.name} ({size} questions).
# Check every line, then: scripts/validate_benchmark.py on the real key and public file.
# What was inferred rather than given:
{notes or "# - nothing: every part was given"}

id = {_toml(bench_id)}
title = {_toml(bench_id)}  # the benchmark's name as the page shows it
description = {_toml(f"{len(key.rows)} multiple-choice questions.")}  # one line under the title
contact_email = "maintainers@example.org"  # a placeholder: the address listing requests go to

# [links] (all optional): paper, project, code, data, each an https:// address.

# Placeholders: the dataset holding the real key (private) and the one holding the board's
# records (public). Nothing is read from them until HF_TOKEN or a Hub board is configured.
[hub]
private_repo = {_toml(f"your-org/{bench_id}-private")}
records_repo = {_toml(f"your-org/{bench_id}-leaderboard")}

# What a listed model saw: the board's input column and the listing request's choices.
[input]
label = "Input"
choices = {{ "default" = "As the benchmark gives it", "other" = "Other" }}

# [paper] (optional): the paper's rows, from paper_baselines.csv beside this file (method,
# group, note and one column per metric key); track, table, team, date, url, namespace (a uuid),
# and questions = N when the paper measured on another question set than this key's.

[[tracks]]
id = "main"
title = "Main"
kind = "multiple_choice"
scorer_version = {_toml(f"{bench_id}-scorer 1.0")}  # bump it when scoring changes
# A visitor is shown no metric that turns on fewer rows of the key than this ({MIN_ROWS} by
# default; here no more than the smallest group, so a group answered in full is shown).
min_rows = {min(MIN_ROWS, *found.groups.values())}
key = {{ name = {_toml(key.name)}, format = {_toml(fmt)} }}
public = {{ name = {_toml(public_name)}, format = {_toml(public_format)} }}
# Letters A-Z, upper case, from A without gaps; the fewest and most options a question has.
options = {{ letters = {_toml(letters)}, min = {found.min_options}, max = {found.max_options} }}

[tracks.fields]
id = {_toml(_one(found.id_fields))}
id_type = {_toml(found.id_type)}
question = {_toml(found.question)}
# One field holding the options (a JSON object letter -> text, or a list of texts), or a list
# of fields, one per option in letter order (an empty one ends a row's options).
options = {_toml(_one(found.options))}
answer = {_toml(found.answer)}
answer_format = {_toml(found.answer_format)}  # letter, index (0-based), index1 or text
prediction = {_toml(found.prediction)}  # what a submission's entries call their answer

# The questions grouped by {found.group_field!r}: one metric per group (size: its rows). A
# group's value may be a list of values, to count several as one group.
[[tracks.groupings]]
id = {_toml(metric_key(found.group_field, set()))}
field = {_toml(found.group_field)}
title = {_toml(found.group_field)}
groups = [
{groups}
]

# The board's column groups (the app adds All and Details): the ranking metric, then these.
[[tracks.views]]
title = "Groups"
metrics = {_toml(list(keys.values()))}
columns = ["rank_range", "source", "team", "size", "date", "ci"]
"""


def _answer_as(found: Inferred, index: int, texts: Sequence[str], like: Any) -> Any:
    """Option ``index`` written as the key writes its answers (an integer where it has them)."""
    if found.answer_format == "letter":
        return LETTERS[index]
    if found.answer_format == "text":
        return texts[index]
    number = index + (1 if found.answer_format == "index1" else 0)
    return number if type(like) is int else str(number)


def demo_rows(key: Release, found: Inferred, seed: int = SEED) -> list[dict[str, Any]]:
    """The key's rows in its own layout, questions marked synthetic, answers drawn anew."""
    rng = random.Random(seed)
    out = []
    for row in key.rows:
        texts = option_texts(row, found.options)
        answer = _answer_as(found, rng.randrange(len(texts)), texts, row.get(found.answer))
        out.append(
            {**row, found.question: SYNTHETIC + str(row.get(found.question)), found.answer: answer}
        )
    return out


def without_answers(rows: Sequence[Mapping[str, Any]], found: Inferred) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != found.answer} for r in rows]


def sample_submission(
    rows: Sequence[Mapping[str, Any]], found: Inferred, seed: int = SEED
) -> bytes:
    """One entry per question: its id field(s) and a letter among its options."""
    rng = random.Random(seed + 1)
    entries = []
    for row in rows:
        entry: dict[str, Any] = {}
        for name in found.id_fields:
            value = row.get(name)
            entry[name] = int(str(value)) if found.id_type == "integer" else value
        entry[found.prediction] = LETTERS[rng.randrange(len(option_texts(row, found.options)))]
        entries.append(entry)
    return (json.dumps(entries, indent=1, ensure_ascii=False) + "\n").encode()


def encode(
    fmt: str, rows: Sequence[Mapping[str, Any]], columns: Sequence[str], wrapped: bool = False
) -> bytes:
    """Rows written in a release format: CSV with ``columns``, JSON Lines, or JSON."""
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(
            out, fieldnames=[c for c in columns if any(c in r for r in rows)], lineterminator="\n"
        )
        writer.writeheader()
        writer.writerows(rows)
        return out.getvalue().encode()
    if fmt == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()
    body: Any = {"samples": list(rows)} if wrapped else list(rows)
    return (json.dumps(body, indent=1, ensure_ascii=False) + "\n").encode()


def public_name_for(key_name: str) -> str:
    path = Path(key_name)
    stem = re.sub(r"(_|-)?(private|key|answers?)$", "", path.stem, flags=re.I) or path.stem
    return f"{stem}_public{path.suffix}"


def scaffold(
    bench_id: str,
    key_path: Path,
    out: Path,
    public_path: Path | None = None,
    overrides: Overrides = NO_OVERRIDES,
) -> Written:
    """Write the folder ``out`` for the release at ``key_path``; ScaffoldError says what to
    give when the release cannot be read as it is. ``out`` must not exist or be empty."""
    if not re.fullmatch(r"[a-z][a-z0-9_-]*", bench_id):
        raise ScaffoldError(f"--id {bench_id!r}: lower case letters, digits, - and _, e.g. mybench")
    out = out.absolute()
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ScaffoldError(f"{out} is not empty: give a new folder")
    key = read_release(key_path.name, key_path.read_bytes())
    found = infer(key, overrides)
    public_name = public_path.name if public_path is not None else public_name_for(key.name)
    if public_name == key.name:
        raise ScaffoldError(f"the public file cannot have the key's name {key.name}: rename it")
    demo = demo_rows(key, found)
    files = {
        spec.SPEC_FILENAME: spec_text(bench_id, found, key, public_name).encode(),
        "about.md": _about(bench_id, found).encode(),
        "citation.bib": _citation(bench_id).encode(),
        f"demo/{key.name}": encode(key.format, demo, key.columns, key.wrapped),
        f"demo/{public_name}": _public_bytes(public_name, without_answers(demo, found), key),
        "demo/sample_submission.json": sample_submission(demo, found),
    }
    if public_path is None:
        files[f"release/{public_name}"] = _public_bytes(
            public_name, without_answers(key.rows, found), key
        )
    _write_checked(out, files)
    public = public_path if public_path is not None else out / "release" / public_name
    return Written(out, tuple(out / name for name in files), found, public)


def _write_checked(out: Path, files: Mapping[str, bytes]) -> None:
    """The ``files`` (paths inside ``out``) written into a new folder beside ``out`` and
    checked there, then moved into place: a folder that does not check leaves nothing."""
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        for name, data in files.items():
            path = partial / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        _check(partial, {partial / name: data for name, data in files.items()})
        if out.exists():
            out.rmdir()  # empty, as checked before anything was read
        partial.rename(out)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def _public_bytes(name: str, rows: list[dict[str, Any]], key: Release) -> bytes:
    fmt = Path(name).suffix.lstrip(".").lower()
    return encode(fmt if fmt in ("csv", "jsonl") else "json", rows, key.columns, key.wrapped)


def _citation(bench_id: str) -> str:
    name = bench_id.replace("-", "_")
    return (
        f"@misc{{{name},\n  title = {{{bench_id}}},\n"
        "  note = {Replace with the paper's BibTeX}\n}\n"
    )


def _about(bench_id: str, found: Inferred) -> str:
    groups = ", ".join(f"{v} ({n})" for v, n in found.groups.items())
    return (
        f"## What {bench_id} measures\n\nDescribe the benchmark here.\n\n"
        f"Its {sum(found.groups.values())} questions are grouped by {found.group_field}: "
        f"{groups}.\n\n"
        "## Submission format\n\n"
        f"A JSON list with one entry per question of the public file: its "
        f"{' and '.join(found.id_fields)} and `{found.prediction}`, one option letter "
        f"(`{found.letters[0]}`..`{found.letters[-1]}`) or null to abstain.\n"
    )


def _check(out: Path, files: Mapping[Path, bytes]) -> None:
    """The folder as the app reads it: the spec loads, the demo release checks, the sample
    scores."""
    try:
        bench = spec.load_benchmark(str(out))
        track = bench.track()
        key_bytes, public_bytes = files[bench.demo_key(track)], files[bench.demo_public(track)]
        release.check_release(track, key_bytes, public_bytes)
        key = evaluator.load_answer_key(track, key_bytes)
        evaluator.score(key, files[bench.demo_dir / "sample_submission.json"])
    except LeaderboardError as exc:
        raise ScaffoldError(
            f"the folder it would write does not check ({exc}); give the overrides the message "
            "names, or write benchmark.toml by hand"
        ) from None
