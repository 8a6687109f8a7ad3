"""Scoring for EgoMemReason: a pure function of (answer key, submission bytes) -> result.

No I/O, no clock, no gradio, no huggingface_hub: the app, the ledger and the scripts all call
this one module, so a score means the same thing everywhere.

Metric definitions (written once, here and in ABOUT.md):

- every metric is accuracy in percent, unrounded: ``100 * correct / total``;
- a query-type metric counts the questions of that type;
- a memory-type metric (entity, event, behavior) and ``overall`` are *micro* averages:
  correct answers over all questions of the group (200, 200, 100 and 500 on the real key),
  not the mean of their query types. With 50-question behavior splits, ``overall`` is
  therefore not the mean of the three memory types;
- an abstention (``predicted_answer`` null or empty) scores as wrong and is counted;
- each metric carries a 95 % Wilson score interval for its proportion.

Example::

    key = load_answer_key(Path("annotations_private.json").read_bytes())
    result = score(key, Path("submission.json").read_bytes())
    result.metrics["overall"], result.counts["overall"].correct
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

SCORER_VERSION = "egomemreason-scorer 1.0"

#: The six query types as spelled in the data, with their metric key and memory type.
QUERY_TYPES: Mapping[str, tuple[str, str]] = {
    "Cumulative State Tracking": ("cumulative_state_tracking", "entity"),
    "Temporal Counting": ("temporal_counting", "entity"),
    "Event Ordering": ("event_ordering", "event"),
    "Event Linking": ("event_linking", "event"),
    "Spatial Preference": ("spatial_preference", "behavior"),
    "Activity Pattern": ("activity_pattern", "behavior"),
}
MEMORY_TYPES: tuple[str, ...] = ("entity", "event", "behavior")
QUERY_TYPE_KEYS: tuple[str, ...] = tuple(key for key, _ in QUERY_TYPES.values())
#: Every metric key, in display order.
METRIC_KEYS: tuple[str, ...] = ("overall", *MEMORY_TYPES, *QUERY_TYPE_KEYS)
#: Questions per query type in the released benchmark (500 in all).
SPLIT_SIZES: Mapping[str, int] = {
    "cumulative_state_tracking": 100,
    "temporal_counting": 100,
    "event_ordering": 100,
    "event_linking": 100,
    "spatial_preference": 50,
    "activity_pattern": 50,
}
MIN_OPTIONS, MAX_OPTIONS = 4, 10
LETTERS = "ABCDEFGHIJ"
WILSON_Z = 1.959963984540054  # two-sided 95 %
MAX_EXAMPLES = 10  # ids quoted per kind of problem
MAX_ENTRIES_PER_QUESTION = 4  # a longer list is refused without examining its entries


class AnswerKeyError(ValueError):
    """The answer key does not validate; the message names the offending ids."""


class SubmissionError(ValueError):
    """A submission that cannot be scored; the message lists every problem and how to fix it."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        head = "This submission cannot be scored"
        if len(self.problems) == 1:
            super().__init__(f"{head}: {self.problems[0]}")
        else:
            lines = "\n".join(f"- {p}" for p in self.problems)
            super().__init__(f"{head} ({len(self.problems)} problems):\n{lines}")


# --- the answer key -------------------------------------------------------------------------


class Question(BaseModel):
    """One question of the private answer key (the public record plus ``correct_answer``)."""

    model_config = ConfigDict(frozen=True, extra="ignore", strict=True)

    example_id: int
    p_id: str = ""
    identity: str = ""
    query_time: str = ""
    question: str
    options: dict[str, str]
    query_type: str
    correct_answer: str

    @field_validator("example_id")
    @classmethod
    def _positive(cls, value: int) -> int:
        if value < 0:
            raise ValueError("example_id must be a non-negative integer")
        return value


class AnswerKeyFile(BaseModel):
    """The ``{"samples": [...], "key_version": ...}`` shape of an answer-key file."""

    model_config = ConfigDict(frozen=True, extra="ignore", strict=True)

    samples: tuple[Question, ...] = Field(strict=False)
    key_version: str | None = None


class SubmissionEntry(BaseModel):
    """One entry of a submission; other keys on the entry are ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore", strict=True)

    example_id: int
    predicted_answer: str | None = Field(
        description="One option letter; null or empty means the model abstained."
    )


@dataclass(frozen=True, slots=True)
class _Item:
    letters: frozenset[str]
    correct: str
    group: int  # index into QUERY_TYPE_KEYS


@dataclass(frozen=True)
class AnswerKey:
    """A validated answer key, with the lookups scoring needs and the sha256 of its bytes."""

    questions: tuple[Question, ...]
    key_version: str | None
    sha256: str
    _items: Mapping[int, _Item]

    def __len__(self) -> int:
        return len(self.questions)


def _short(item: object, width: int = 60) -> str:
    text = str(item)
    return text if len(text) <= width else f"{text[:20]}...({len(text)} characters)"


def _examples(ids: Iterable[object]) -> str:
    listed = list(ids)
    shown = ", ".join(_short(i) for i in listed[:MAX_EXAMPLES])
    return f"{shown}, ..." if len(listed) > MAX_EXAMPLES else shown


_ONE_OR_MANY = re.compile(r"\[([^|\]]*)\|([^\]]*)\]")


def _agree(template: str, n: int) -> str:
    """Resolve each ``[singular|plural]`` in ``template`` for ``n`` things ("1 entry uses")."""
    return _ONE_OR_MANY.sub(lambda m: m.group(1) if n == 1 else m.group(2), template)


def _letters_text(letters: Iterable[str]) -> str:
    ordered = sorted(letters)
    return f"{ordered[0]}-{ordered[-1]}" if ordered else "none"


def parse_answer_key(data: Any, sha256: str = "") -> AnswerKey:
    """Validate an already-decoded answer key (a list of questions or ``{"samples": ...}``)."""
    payload = {"samples": data} if isinstance(data, list) else data
    if not isinstance(payload, dict) or "samples" not in payload:
        raise AnswerKeyError(
            'an answer key must be a JSON list of questions or an object {"samples": [...]}'
        )
    try:
        parsed = AnswerKeyFile.model_validate(payload)
    except ValidationError as exc:
        bad = []
        for err in exc.errors()[:MAX_EXAMPLES]:
            loc = err["loc"]
            where = f"question #{loc[1]}" if len(loc) > 1 and loc[0] == "samples" else "key"
            samples = payload.get("samples")
            if isinstance(samples, list) and len(loc) > 1 and isinstance(loc[1], int):
                entry = samples[loc[1]] if loc[1] < len(samples) else None
                if isinstance(entry, dict) and "example_id" in entry:
                    where = f"example_id {entry['example_id']!r}"
            field = ".".join(str(p) for p in loc[2:]) or "entry"
            bad.append(f"{where}: {field}: {err['msg']}")
        raise AnswerKeyError(
            _agree(f"the answer key has {exc.error_count()} invalid [field|fields]: ",
                   exc.error_count())
            + "; ".join(bad)
        ) from None

    problems: list[str] = []
    counts = Counter(q.example_id for q in parsed.samples)
    dupes = sorted(i for i, n in counts.items() if n > 1)
    if dupes:
        problems.append(
            _agree(f"{len(dupes)} duplicate [example_id|example_ids]", len(dupes))
            + f" ({_examples(dupes)})"
        )
    bad_options = [
        q.example_id
        for q in parsed.samples
        if not MIN_OPTIONS <= len(q.options) <= MAX_OPTIONS
        or sorted(q.options) != list(LETTERS[: len(q.options)])
    ]
    if bad_options:
        problems.append(
            _agree(f"{len(bad_options)} [question|questions]", len(bad_options))
            + " whose option letters are not A.. without gaps, "
            f"{MIN_OPTIONS} to {MAX_OPTIONS} of them ({_examples(bad_options)})"
        )
    bad_answer = [q.example_id for q in parsed.samples if q.correct_answer not in q.options]
    if bad_answer:
        problems.append(
            _agree(f"{len(bad_answer)} [question|questions]", len(bad_answer))
            + " whose correct_answer is not one of their options "
            f"({_examples(bad_answer)})"
        )
    bad_type = [q.example_id for q in parsed.samples if q.query_type not in QUERY_TYPES]
    if bad_type:
        problems.append(
            _agree(f"{len(bad_type)} [question|questions]", len(bad_type))
            + f" with an unknown query_type ({_examples(bad_type)}); "
            f"expected one of: {', '.join(QUERY_TYPES)}"
        )
    present = {q.query_type for q in parsed.samples}
    absent = [t for t in QUERY_TYPES if t not in present]
    if not bad_type and absent:
        problems.append(f"no questions of query type {', '.join(absent)}")
    if problems:
        raise AnswerKeyError("invalid answer key: " + "; ".join(problems))

    group_index = {name: i for i, name in enumerate(QUERY_TYPES)}
    items = {
        q.example_id: _Item(frozenset(q.options), q.correct_answer, group_index[q.query_type])
        for q in parsed.samples
    }
    return AnswerKey(parsed.samples, parsed.key_version, sha256, items)


def load_answer_key(data: bytes) -> AnswerKey:
    """Decode and validate the bytes of an ``annotations_private.json``."""
    try:
        decoded = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise AnswerKeyError(f"the answer key is not valid UTF-8 JSON: {exc}") from None
    return parse_answer_key(decoded, hashlib.sha256(data).hexdigest())


# --- results ----------------------------------------------------------------------------------


class Count(BaseModel):
    """Correct answers out of questions, for one metric."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    correct: int
    total: int


class ScoreResult(BaseModel):
    """What a submission scored, with everything needed to reproduce it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    metrics: dict[str, float]
    counts: dict[str, Count]
    intervals: dict[str, tuple[float, float]]
    n_questions: int
    n_abstained: int
    submission_sha256: str
    answer_key_sha256: str
    key_version: str | None
    scorer_version: str


def wilson_interval(correct: int, total: int, z: float = WILSON_Z) -> tuple[float, float]:
    """95 % Wilson score interval for ``correct / total``, in percent."""
    if total <= 0:
        return (0.0, 100.0)
    p = correct / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    # The bounds are exactly 0 and 1 at p = 0 and p = 1; rounding would leave 5.6e-15 or
    # 99.99999999999999, which then show up as such in tables.
    low = 0.0 if correct <= 0 else max(0.0, centre - half)
    high = 1.0 if correct >= total else min(1.0, centre + half)
    return (100 * low, 100 * high)


def metrics_from_counts(counts: Mapping[str, Count]) -> dict[str, float]:
    """Percent accuracy per key, unrounded."""
    return {k: 100 * c.correct / c.total for k, c in counts.items() if c.total > 0}


def aggregate(per_type: Mapping[str, Count]) -> dict[str, Count]:
    """Counts of every metric key from the six query-type counts (micro averages)."""
    out: dict[str, Count] = {}
    overall_c = overall_t = 0
    for memory in MEMORY_TYPES:
        keys = [k for k, m in QUERY_TYPES.values() if m == memory]
        c = sum(per_type[k].correct for k in keys)
        t = sum(per_type[k].total for k in keys)
        out[memory] = Count(correct=c, total=t)
        overall_c, overall_t = overall_c + c, overall_t + t
    result = {"overall": Count(correct=overall_c, total=overall_t), **out}
    result.update({k: per_type[k] for k in QUERY_TYPE_KEYS})
    return result


# --- reading a submission ---------------------------------------------------------------------

_DECORATED = re.compile(r"^[\(\[\{<\"']?\s*([A-J])\s*(?:[\)\]\}>\"'.:,\-]|$)")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def _decode(data: bytes) -> Any:
    if not data.removeprefix(b"\xef\xbb\xbf").strip():
        raise SubmissionError(
            ["the file is empty; expected a JSON list such as "
             '[{"example_id": 1, "predicted_answer": "B"}, ...]']
        )
    if data.startswith(_UTF16_BOMS):
        raise SubmissionError(
            ["the file is UTF-16 encoded; save it as UTF-8 (json.dump(..., ensure_ascii=True) "
             "or your editor's 'UTF-8' encoding) and upload it again"]
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SubmissionError(
            [f"the file is not UTF-8 text (undecodable byte at offset {exc.start}); "
             "save it as UTF-8 JSON and upload it again"]
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SubmissionError(
            [f"the file is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
             "a submission is a JSON list of objects like "
             '{"example_id": 1, "predicted_answer": "B"}']
        ) from None
    except (ValueError, RecursionError) as exc:
        # ValueError: an integer with more digits than Python converts (its own message advises
        # calling sys.set_int_max_str_digits, which means nothing to the person uploading).
        # RecursionError: nesting deeper than the decoder's stack.
        reason = (
            "it is nested too deeply"
            if isinstance(exc, RecursionError)
            else "it holds a number with thousands of digits"
        )
        raise SubmissionError(
            [f"the file could not be read as JSON ({reason}); a submission is a flat JSON list "
             'of objects like {"example_id": 1, "predicted_answer": "B"}']
        ) from None


def _top_level_hint(data: Any) -> str:
    if isinstance(data, dict):
        if isinstance(data.get("results"), list):
            return (
                'the file is an object with a "results" list, as the reference evaluation '
                'scripts write it; take its "results" list and rename "pred" to '
                '"predicted_answer" in each entry, e.g. '
                "[{\"example_id\": r[\"example_id\"], \"predicted_answer\": r[\"pred\"]} "
                'for r in data["results"]]'
            )
        for name in ("predictions", "submissions", "samples", "answers"):
            if isinstance(data.get(name), list):
                return (
                    f'the top level is an object with a "{name}" list; upload the list itself '
                    "(a JSON array of {\"example_id\", \"predicted_answer\"} objects)"
                )
        return (
            "the top level is a JSON object; expected a JSON list of "
            '{"example_id": ..., "predicted_answer": ...} objects, one per question'
        )
    return (
        f"the top level is a JSON {_json_type(data)}; "
        'expected a list of {"example_id": ..., "predicted_answer": ...} objects'
    )


def _json_type(value: Any) -> str:
    names = {bool: "boolean", int: "integer", float: "number", str: "string",
             list: "list", dict: "object", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _preview(value: Any, width: int = 40) -> str:
    """A short, safe rendering of an uploaded value for an error message."""
    if isinstance(value, (list, dict)):
        return f"a JSON {_json_type(value)}"
    text = json.dumps(value)
    return text if len(text) <= width else text[: width - 3] + "..."


class _Problems:
    """Problems grouped by kind, so a message quotes a few examples of each and counts all."""

    def __init__(self) -> None:
        self._kinds: dict[str, list[str]] = {}
        self._order: list[str] = []

    def add(self, kind: str, example: str) -> None:
        if kind not in self._kinds:
            self._kinds[kind] = []
            self._order.append(kind)
        self._kinds[kind].append(example)

    def extend(self, message: str) -> None:
        self._order.append(message)

    def render(self) -> list[str]:
        out = []
        for kind in self._order:
            examples = self._kinds.get(kind)
            if examples is None:
                out.append(kind)
            else:
                text = _agree(kind, len(examples))
                out.append(text.format(n=len(examples), examples=_examples(examples)))
        return out


def _read_answer(entry: dict[str, Any], position: int, problems: _Problems) -> str | None:
    """The trimmed, upper-cased answer ("" for an abstention), or None if it is unusable."""
    if "predicted_answer" not in entry:
        for alias in ("pred", "answer", "prediction"):
            if alias in entry:
                problems.add(
                    f'{{n}} [entry uses|entries use] "{alias}" (e.g. entry #{{examples}}); '
                    'rename the field to "predicted_answer"',
                    str(position),
                )
                return None
        problems.add(
            '{n} [entry has|entries have] no "predicted_answer" (e.g. entry #{examples}); use null '
            "if the model gave no answer",
            str(position),
        )
        return None
    raw = entry["predicted_answer"]
    if raw is None:
        return ""
    if not isinstance(raw, str):
        problems.add(
            '{n} [entry has|entries have] a "predicted_answer" that is not a string '
            '(e.g. {examples}); write one option letter such as "B", or null to abstain',
            f"entry #{position}: {_preview(raw)}",
        )
        return None
    return raw.strip().upper()


def score(key: AnswerKey, data: bytes) -> ScoreResult:
    """Score the raw bytes of a submission against ``key``; raise SubmissionError if unscorable."""
    decoded = _decode(data)
    if not isinstance(decoded, list):
        raise SubmissionError([_top_level_hint(decoded)])
    if not decoded:
        raise SubmissionError(
            [f"the list is empty; expected one entry for each of the {len(key)} questions"]
        )
    if len(decoded) > MAX_ENTRIES_PER_QUESTION * len(key):
        # Refused before reading the entries: a 5 MB list of millions costs seconds of CPU.
        raise SubmissionError(
            [f"the list has {len(decoded)} entries; expected one entry for each of the "
             f"{len(key)} questions"]
        )

    problems = _Problems()
    answers: dict[int, str | None] = {}
    seen: Counter[int] = Counter()
    unknown: list[int] = []
    for position, entry in enumerate(decoded):
        if not isinstance(entry, dict):
            problems.add(
                "{n} [entry is|entries are] not [a JSON object|JSON objects] "
                "(e.g. entry #{examples}); each entry must be "
                '{{"example_id": ..., "predicted_answer": ...}}',
                f"{position} ({_json_type(entry)})",
            )
            continue
        ident = entry.get("example_id")
        if "example_id" not in entry:
            if "sample_id" in entry:
                problems.add(
                    '{n} [entry uses|entries use] "sample_id" (e.g. entry #{examples}); '
                    'rename the field to "example_id"',
                    str(position),
                )
            elif "id" in entry:
                problems.add(
                    '{n} [entry uses|entries use] "id" (e.g. entry #{examples}); '
                    'rename the field to "example_id"',
                    str(position),
                )
            else:
                problems.add(
                    '{n} [entry has|entries have] no "example_id" (e.g. entry #{examples})',
                    str(position),
                )
            ident = None
        elif type(ident) is not int:
            problems.add(
                '{n} [entry has|entries have] an "example_id" that is not an integer '
                '(e.g. {examples}); write ids as JSON numbers, e.g. 17, not "17"',
                f"entry #{position}: {_preview(ident)}",
            )
            ident = None

        if ident is not None:
            seen[ident] += 1
            if ident not in key._items:
                unknown.append(ident)
                ident = None
            elif seen[ident] > 1:
                ident = None  # reported once below as a duplicate
        answer = _read_answer(entry, position, problems)
        if ident is None or answer is None:
            continue
        letters = key._items[ident].letters
        if answer and answer not in letters:
            raw = entry["predicted_answer"]
            match = _DECORATED.match(answer)
            if match and match.group(1) in letters and answer != match.group(1):
                problems.add(
                    "{n} [answer carries|answers carry] more than the option letter "
                    '(e.g. {examples}); keep only the letter, e.g. "A" instead of "(A)" or '
                    '"A. Pancake"',
                    f"id {ident}: {_preview(raw)}",
                )
            else:
                problems.add(
                    "{n} [answer is|answers are] not among their question's options "
                    "(e.g. {examples})",
                    f"id {ident}: {_preview(raw, 20)} (valid {_letters_text(letters)})",
                )
            continue
        answers[ident] = answer or None

    dupes = sorted(i for i, n in seen.items() if n > 1 and i in key._items)
    if dupes:
        problems.extend(
            _agree(f"{len(dupes)} [question is|questions are]", len(dupes))
            + f" answered more than once ({_examples(dupes)}); keep one entry per example_id"
        )
    if unknown:
        unknown_sorted = sorted(set(unknown))
        problems.extend(
            _agree(f"{len(unknown_sorted)} [example_id is|example_ids are]", len(unknown_sorted))
            + " not in the answer key "
            f"({_examples(unknown_sorted)}); valid ids are those of the public annotations file"
        )
    missing = sorted(i for i in key._items if i not in seen)
    if missing:
        problems.extend(
            _agree(f"{len(missing)} [question has|questions have]", len(missing))
            + f" no answer ({_examples(missing)}); expected one "
            f"entry for each of the {len(key)} questions (use null to abstain)"
        )
    rendered = problems.render()
    if rendered:
        raise SubmissionError(rendered)

    correct = [0] * len(QUERY_TYPE_KEYS)
    total = [0] * len(QUERY_TYPE_KEYS)
    abstained = 0
    for ident, item in key._items.items():
        answer = answers[ident]
        total[item.group] += 1
        if answer is None:
            abstained += 1
        elif answer == item.correct:
            correct[item.group] += 1
    per_type = {
        k: Count(correct=correct[i], total=total[i]) for i, k in enumerate(QUERY_TYPE_KEYS)
    }
    counts = aggregate(per_type)
    return ScoreResult(
        metrics=metrics_from_counts(counts),
        counts=counts,
        intervals={k: wilson_interval(c.correct, c.total) for k, c in counts.items()},
        n_questions=len(key),
        n_abstained=abstained,
        submission_sha256=hashlib.sha256(data).hexdigest(),
        answer_key_sha256=key.sha256,
        key_version=key.key_version,
        scorer_version=SCORER_VERSION,
    )
