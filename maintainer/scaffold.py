"""A benchmark folder from its authors' release, with nothing converted: the spec is inferred.

``scaffold`` reads a multiple-choice answer key as its authors publish it (CSV, JSON Lines, or
JSON: a list, ``{"samples": [...]}``, an object keyed by id or nested by levels;
``maintainer.release_layout``), infers what a spec says of it (``maintainer.release_inference``)
and writes a folder ``scripts/validate_benchmark.py`` passes and ``make run`` serves:

- ``benchmark.toml``, commented: what was inferred and what to check (the placeholders for the
  repos and the contact address, the title, the grouping);
- ``about.md`` and ``citation.bib``, stubs to write;
- ``demo/``: a synthetic demo in the release's own layout (every question marked
  ``[SYNTHETIC DEMO]``, every answer drawn anew from the row's options with a fixed seed), its
  public file, and a sample submission (one entry per question, a list of objects);
- ``release/<public file>`` when no public file was given: the key without its answers.

What the inference cannot tell is given on the command line (``Overrides``). The folder is
written beside ``out`` and checked there (the spec loads with ``spec.load_benchmark``, the demo
release passes ``maintainer.release``'s checks, the sample scores), then moved into place: a
release it cannot read is a ``ScaffoldError`` saying which override to give, and leaves nothing.
The key's file name is then kept out of git where a maintainer drops it (``ignore_lines``).
"""

from __future__ import annotations

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
import ledger
import spec
from errors import LeaderboardError, ScaffoldError
from maintainer import release, short_answer_release
from maintainer.release_inference import (
    DEFAULT_DECIMALS,
    NO_OVERRIDES,
    PREDICTION_NAMES,
    Inferred,
    Overrides,
    infer,
    with_levels,
)
from maintainer.release_layout import LETTERS, Release, encode, option_texts, read_release
from maintainer.short_answer_release import ShortInferred
from maintainer.spec_toml import (
    grouping_toml,
    metric_key,
    one,
    spec_head,
    toml_value,
    track_head,
)

SEED = 19  # the demo's answers and the sample's predictions: the same folder every run
SYNTHETIC = "[SYNTHETIC DEMO] "
GITIGNORE = ".gitignore"


@dataclass(frozen=True)
class Written:
    """What ``scaffold`` wrote: the folder, its files, what it inferred, and the lines that keep
    the key out of git (``ignored``: the .gitignore they were added to, or None: to add)."""

    folder: Path
    files: tuple[Path, ...]
    inferred: Inferred | ShortInferred
    public: Path  # the release's public file (given, or written under release/)
    ignore: tuple[str, ...] = ()
    ignored: Path | None = None


def _fields(found: Inferred) -> str:
    """The ``[tracks.fields]`` table: names, layout, and the names people use instead."""
    lines = [
        f"id = {toml_value(one(found.id_fields))}",
        f"id_type = {toml_value(found.id_type)}",
    ]
    if found.levels:
        lines.append(
            "# The JSON files are objects by these fields, from the top (a row's place in its "
            "list\n# is its position)."
        )
        lines.append(f"levels = {toml_value(found.levels)}")
    lines.append(f"question = {toml_value(found.question)}")
    lines.append(
        "# One field holding the options (a JSON object letter -> text, or a list of texts), a "
        "list of\n# fields, one per option in letter order (an empty one ends a row's options), "
        'or the question\'s\n# own field: the options end its text, one a line ("A. left").'
    )
    lines.append(f"options = {toml_value(one(found.options))}")
    lines.append(f"answer = {toml_value(found.answer)}")
    lines.append(
        f"answer_format = {toml_value(found.answer_format)}  # letter, index (0-based), index1, "
        "text or letter_text"
    )
    lines.append(
        f"prediction = {toml_value(found.prediction)}  # what a submission's entries call it"
    )
    aliases = [n for n in PREDICTION_NAMES if n not in (found.prediction, *found.id_fields)]
    lines.append("# Names people use instead: a file using one is told to rename it.")
    lines.append(f"prediction_aliases = {toml_value(aliases)}")
    if found.prediction_forms:
        lines.append(
            "# Read as the benchmark's own scorer reads a prediction (about.md says so): "
            'letter_prefix,\n# "A. text" or "A)" as A; option_text, an option\'s whole text as '
            "its letter."
        )
        lines.append(f"prediction_forms = {toml_value(found.prediction_forms)}")
    return "\n".join(lines)


def spec_text(
    bench_id: str,
    found: Inferred,
    key: Release,
    public_name: str,
    decimals: int = DEFAULT_DECIMALS,
) -> str:
    """A commented ``benchmark.toml`` of what was inferred (a percent shown with
    ``decimals`` decimals)."""
    taken = {"overall", "overall_answerable"}
    keys = {g: metric_key(g, taken) for g in found.groups}
    keys.update({label: metric_key(label, taken) for label, _, _ in found.aggregates})
    notes = "\n".join(f"# - {part}: {why}" for part, why in found.notes.items())
    smallest = min(found.groups.values(), default=found.size)
    overall = "" if found.groups else f"overall = {{ size = {found.size} }}\n"
    size, low, high = found.size, found.min_options, found.max_options
    description = f"{found.size} multiple-choice questions."
    return f"""{spec_head(bench_id, key.name, size, notes, description)}
{track_head(bench_id, "multiple_choice", smallest, decimals, (key.name, key.format), public_name)}
# Letters A-Z, upper case, from A without gaps; the fewest and most options a question has.
options = {{ letters = {toml_value(found.letters)}, min = {low}, max = {high} }}
{overall}
[tracks.fields]
{_fields(found)}
{grouping_toml(found, keys)}"""


def _answer_as(found: Inferred, index: int, texts: Sequence[str], like: Any) -> Any:
    """Option ``index`` written as the key writes its answers (an integer where it has them)."""
    if found.answer_format == "letter":
        return LETTERS[index]
    if found.answer_format == "text":
        return texts[index]
    if found.answer_format == "letter_text":
        return f"{LETTERS[index]}. {texts[index]}"
    number = index + (1 if found.answer_format == "index1" else 0)
    return number if type(like) is int else str(number)


def _texts(found: Inferred, row: Mapping[str, Any]) -> list[str]:
    return option_texts(row, found.options, found.question if found.options_in_question else "")


def demo_rows(key: Release, found: Inferred, seed: int = SEED) -> list[dict[str, Any]]:
    """The key's rows in its own layout, questions marked synthetic, answers drawn anew."""
    rng = random.Random(seed)
    out = []
    for row in key.rows:
        texts = _texts(found, row)
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
        entry[found.prediction] = LETTERS[rng.randrange(len(_texts(found, row)))]
        entries.append(entry)
    return (json.dumps(entries, indent=1, ensure_ascii=False) + "\n").encode()


def public_name_for(key_name: str) -> str:
    path = Path(key_name)
    stem = re.sub(r"(_|-)?(private|key|answers?)$", "", path.stem, flags=re.I) or path.stem
    return f"{stem}_public{path.suffix}"


def _public_bytes(name: str, rows: list[dict[str, Any]], key: Release) -> bytes:
    fmt = Path(name).suffix.lstrip(".").lower()
    return encode(key, rows, fmt if fmt in ("csv", "jsonl") else "json")


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
    key = with_levels(read_release(key_path.name, ledger.read_regular_file(key_path)), overrides)
    public_name = public_path.name if public_path is not None else public_name_for(key.name)
    if public_name == key.name:
        raise ScaffoldError(f"the public file cannot have the key's name {key.name}: rename it")
    try:
        found = infer(key, overrides)
    except ScaffoldError:
        short = short_answer_release.infer_short(key, overrides)
        if short is None:
            raise
        files = short_answer_release.files(
            bench_id, key, short, public_name, overrides.decimals, release=public_path is None
        )
        public = public_path or out / "release" / public_name
        return _written(bench_id, out, files, short, public, key)
    if overrides.group_from_id:
        raise ScaffoldError(
            "--group-from-id reads the groups of a short-answer release (answers that are texts "
            f"or lists, no options); {key.name} is read as multiple-choice: give --group FIELD"
        )
    demo = demo_rows(key, found)
    files = {
        spec.SPEC_FILENAME: spec_text(
            bench_id, found, key, public_name, overrides.decimals
        ).encode(),
        "about.md": _about(bench_id, found).encode(),
        "citation.bib": _citation(bench_id).encode(),
        f"demo/{key.name}": encode(key, demo),
        f"demo/{public_name}": _public_bytes(public_name, without_answers(demo, found), key),
        "demo/sample_submission.json": sample_submission(demo, found),
    }
    if public_path is None:
        files[f"release/{public_name}"] = _public_bytes(
            public_name, without_answers(key.rows, found), key
        )
    return _written(bench_id, out, files, found, public_path or out / "release" / public_name, key)


def _written(
    bench_id: str,
    out: Path,
    files: Mapping[str, bytes],
    found: Inferred | ShortInferred,
    public: Path,
    key: Release,
) -> Written:
    """The folder's ``files`` written and checked, the key's name kept out of git."""
    _write_checked(out, files)
    lines = ignore_lines(out, key.name)
    ignored = add_ignore_lines(out, bench_id, lines)
    return Written(out, tuple(out / name for name in files), found, public, lines, ignored)


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


def _repository(folder: Path) -> Path | None:
    """The git work tree ``folder`` lies in (the nearest folder above it holding ``.git``)."""
    return next((p for p in folder.parents if (p / ".git").exists()), None)


def ignore_lines(out: Path, key_name: str) -> tuple[str, ...]:
    """The .gitignore lines that keep a real key named ``key_name`` out of git where a
    maintainer drops it (the repository's root, where the app looks by default; ``release/``,
    where "Add a benchmark" puts it; the benchmark's folder), scoped to those places so that
    no other file of that name is ignored; the shipped demo's own key stays in git."""
    root = _repository(out)
    folder = out.relative_to(root).as_posix() if root is not None else out.name
    return (f"/{key_name}", f"/release/{key_name}", f"/{folder}/{key_name}")


def add_ignore_lines(out: Path, bench_id: str, lines: Sequence[str]) -> Path | None:
    """The lines added to the .gitignore of the repository ``out`` lies in (those it already
    has left out); None when ``out`` lies in no git work tree (the lines are then to add)."""
    root = _repository(out)
    if root is None:
        return None
    path = root / GITIGNORE
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    have = set(text.splitlines())
    new = [line for line in lines if line not in have]
    if new:
        head = f"# {bench_id}'s real answer key (scripts/new_benchmark.py), wherever it is dropped"
        block = "\n".join([head, *new]) + "\n"
        path.write_text(text + ("\n" if text and not text.endswith("\n") else "") + block)
    return path


def _citation(bench_id: str) -> str:
    name = bench_id.replace("-", "_")
    return (
        f"@misc{{{name},\n  title = {{{bench_id}}},\n"
        "  note = {Replace with the paper's BibTeX}\n}\n"
    )


def _about(bench_id: str, found: Inferred) -> str:
    if found.group_field is None:
        grouped = f"Its {found.size} questions are scored together: Overall alone."
    else:
        groups = ", ".join(f"{v} ({n})" for v, n in found.groups.items())
        grouped = f"Its {found.size} questions are grouped by {found.group_field}: {groups}."
    ids = " and ".join(f"`{name}`" for name in found.id_fields)
    forms = {
        "letter_prefix": 'a letter followed by "." or ")" (`A. left`, `B)`) counts as that letter',
        "option_text": "an option's whole text counts as its letter",
    }
    read = (
        "\n\nAs the benchmark's own scorer reads predictions, "
        + "; ".join(forms[f] for f in found.prediction_forms)
        + "."
        if found.prediction_forms
        else ""
    )
    nested = (
        f"\n\nA file written like the key (an object by {', '.join(found.levels)}) with a "
        f"`{found.prediction}` in each row is read as well."
        if found.levels
        else ""
    )
    return (
        f"## What {bench_id} measures\n\nDescribe the benchmark here.\n\n{grouped}\n\n"
        "## Submission format\n\n"
        f"A JSON list (or JSON Lines) with one entry per question of the public file: its {ids} "
        f"and `{found.prediction}`, one option letter (`{found.letters[0]}`.."
        f"`{found.letters[-1]}`) or null to abstain; or a JSON object keyed by id.{nested}{read}\n"
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
