"""Scoring: a pure function of (track, answer key, submission bytes) -> result.

No I/O, no clock, no gradio, no huggingface_hub: the app, the ledger and the scripts all call
this package, so a score means the same thing everywhere. What is scored (groups, sizes,
letters, field names) comes from the track of a benchmark's spec; the package knows no
benchmark.

Each kind of track is a module of ``evaluator.kinds`` (``multiple_choice``, ``decision``,
``short_answer``; their docstrings define every metric), registered once with its spec model in
``spec.tracks.REGISTRY``; the functions here hand a track, key or questions to its kind, typed
for any kind (``AnyKey``, ``AnyQuestions``: what every kind's key and public file have). A
caller that needs one kind's own key asks that kind (``evaluator.kinds.multiple_choice.load_key``).

Beside them the helpers every kind shares: ``files`` (rows of a key or public file and the key
version they name), ``public_files`` (what every kind asks of a public file's rows),
``json_text`` (JSON text read by orjson as ``json`` reads it), ``submissions`` (a submission's
text, JSON and entries), ``documents`` (a submission's document read into entries, whatever its
shape), ``track_fit`` (which track a submission's entries are written for), ``accuracy`` (the
metric tree of a kind scored as accuracies), ``results`` (``ScoreResult``, ``Count``),
``stats`` (intervals), ``messages`` (English) and ``disclosure`` (what a visitor is shown of a
score: ``disclosed``).

Validation needs no answers: ``load_questions`` reads a public file into the questions alone
(ids and option letters; a decision track's episode ids), ``validate`` checks a submission
against them, and ``score`` runs that very check on its key's questions (``key.asked``) before
it scores. So a file checked against the public file gets exactly the message Score gives.

Example:

>>> import spec
>>> bench = spec.load_benchmark("egomemreason")
>>> track = bench.track()
>>> key = load_answer_key(track, bench.demo_key(track).read_bytes())
>>> sample = (bench.demo_dir / "sample_submission.json").read_bytes()
>>> result = score(key, sample)
>>> result.counts["overall"].total, result.n_questions
(500, 500)
>>> questions = load_questions(track, bench.demo_public(track).read_bytes())  # no answers
>>> len(validate(questions, sample))  # letters by id, or SubmissionError
500
>>> try:
...     validate(questions, b"[]")
... except SubmissionError as error:
...     print(error)  # doctest: +NORMALIZE_WHITESPACE
This submission cannot be scored: the list is empty; expected one entry for each of the
500 questions
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from errors import AnswerKeyError, DataFileError, PublicFileError, SubmissionError
from evaluator.disclosure import disclosed
from evaluator.files import KEY_VERSION_FIELD, Rows, read_rows
from evaluator.kinds import KINDS, AnyKey, AnyQuestions, Kind, kind_of
from evaluator.kinds.decision import DecisionKey, EpisodeSet, Prediction
from evaluator.kinds.multiple_choice import (
    ANSWERS_FORMAT,
    AnswerKey,
    Question,
    QuestionSet,
    aggregate,
    intervals_from_counts,
    metrics_from_counts,
    parse_answer_key,
)
from evaluator.kinds.short_answer import ShortAnswerKey, ShortAnswerQuestions
from evaluator.messages import MAX_EXAMPLES, counted, nth, ordinal
from evaluator.results import Count, ScoreResult, submission_sha256
from evaluator.stats import WILSON_Z, wilson_bounds, wilson_interval
from evaluator.submissions import MAX_ENTRIES_PER_QUESTION
from spec import Track


def load_answer_key(track: Track, data: bytes) -> AnyKey:
    """Decode and validate the bytes of a track's answer-key file (its declared format);
    AnswerKeyError names what is wrong."""
    key: AnyKey = kind_of(track).load_key(track, data)
    return key


def load_questions(track: Track, data: bytes) -> AnyQuestions:
    """Decode and validate the bytes of a track's public file (its declared format): the
    questions a submission answers, without answers, for ``validate``. PublicFileError if it
    does not validate (the key's checks, but for the answers)."""
    questions: AnyQuestions = kind_of(track).load_questions(track, data)
    return questions


def validate(questions: AnyQuestions, data: bytes) -> Mapping[int | str, Any]:
    """The answers of the raw bytes of a submission, checked against the questions alone (a
    public file's, or a key's ``asked``): by id, each normalised letter or None for an
    abstention (a decision track: each ``Prediction``). SubmissionError, listing every problem,
    if it cannot be scored; ``score`` gives exactly the same for the same questions."""
    answers: Mapping[int | str, Any] = kind_of(questions.track).validate(questions, data)
    return answers


def score(key: AnyKey, data: bytes, sha256: str | None = None) -> ScoreResult:
    """Score the raw bytes of a submission against ``key`` (of its track); SubmissionError if
    it cannot be scored (``validate``'s, on the key's questions). ``sha256``: the file's
    ``submission_sha256``, when the caller took it already (the Score tab does, to look the
    file up among those it refused): the file is not hashed twice."""
    digest = submission_sha256(data) if sha256 is None else sha256
    result: ScoreResult = kind_of(key.track).score(key, data, digest)
    return result


def size_problems(key: AnyKey) -> list[str]:
    """Where the key disagrees with the sizes its spec declares (the release checks' part that
    needs only the key): group sizes and, multiple choice, the number of out-of-option rows."""
    problems: list[str] = kind_of(key.track).size_problems(key)
    return problems


def release_warnings(key: AnyKey) -> list[str]:
    """What the key would still hide from every visitor, each with its fix (a group smaller
    than the track's ``min_rows``, withheld from every score with what would give it away):
    validate_benchmark.py prints these, and the boot logs them."""
    warnings: list[str] = kind_of(key.track).release_warnings(key)
    return warnings


def same_questions(a: AnyKey, b: AnyKey) -> bool:
    """Whether two keys ask the same questions: the same ids, and for each the same text and
    the same option texts, whatever their letters (a key and its rotations do). A decision key
    has no letters to rotate: two are the same only byte for byte."""
    kind = kind_of(a.track)
    same: bool = kind is kind_of(b.track) and kind.same_questions(a, b)
    return same


def answers_sha256(track: Track, data: bytes) -> str | None:
    """The ``answers_sha256`` of a submission, read without its key (the file of a row scored
    on another key version); None if it is not a file that scores, or its kind has none (a
    decision track's)."""
    digest: str | None = kind_of(track).answers_sha256(track, data)
    return digest


def chance(key: AnyKey) -> float | None:
    """What answering every row of ``key`` at random scores in expectation, in percent on a
    multiple-choice track (exact, rounded once); None on a kind without one (decision)."""
    rate: float | None = kind_of(key.track).chance(key)
    return rate


def chance_warning(track: Track, result: ScoreResult) -> str | None:
    """The warning a below-chance result gets (None otherwise): what it scored, the chance
    rate, the likely cause and the fix. Plain text, one paragraph."""
    warning: str | None = kind_of(track).chance_warning(track, result)
    return warning


__all__ = [
    "ANSWERS_FORMAT",
    "KEY_VERSION_FIELD",
    "KINDS",
    "MAX_ENTRIES_PER_QUESTION",
    "MAX_EXAMPLES",
    "WILSON_Z",
    "AnswerKey",
    "AnswerKeyError",
    "AnyKey",
    "AnyQuestions",
    "Count",
    "DataFileError",
    "DecisionKey",
    "EpisodeSet",
    "Kind",
    "Prediction",
    "PublicFileError",
    "Question",
    "QuestionSet",
    "Rows",
    "ScoreResult",
    "ShortAnswerKey",
    "ShortAnswerQuestions",
    "SubmissionError",
    "aggregate",
    "answers_sha256",
    "chance",
    "chance_warning",
    "counted",
    "disclosed",
    "intervals_from_counts",
    "kind_of",
    "load_answer_key",
    "load_questions",
    "metrics_from_counts",
    "nth",
    "ordinal",
    "parse_answer_key",
    "read_rows",
    "release_warnings",
    "same_questions",
    "score",
    "size_problems",
    "submission_sha256",
    "validate",
    "wilson_bounds",
    "wilson_interval",
]
