"""What a kind of track implements: the protocols each kind's module satisfies.

A kind is one module (a package, if it is long): ``evaluator.kinds.multiple_choice``,
``evaluator.kinds.decision``, ``evaluator.kinds.short_answer``. It reads its key and public
files, validates and scores a submission, checks a record's numbers and a release's files, and
words its results (and, when its spec declares how it reads answers, the About's account of
it). Its spec model (``spec.<kind>``) holds what a benchmark declares of it. Kinds import this
module and the shared helpers of ``evaluator`` (accuracy, documents, files, messages, results,
stats, submissions), never the registry (``evaluator.kinds``) nor each other.

``Kind`` is two parts: ``Scoring`` (its key and public files, a submission, a score, a record's
and a release's checks) and ``Wording`` (what it calls its rows, a score in words and as a
table, the About's account). A kind's module is checked against ``Kind`` where it is written
(its ``IMPLEMENTS``, which mypy checks), and registered in ``spec.tracks.REGISTRY``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from evaluator.results import Count, ScoreResult
from spec import Track

TrackT = TypeVar("TrackT", contravariant=True)
KeyT = TypeVar("KeyT")
QuestionsT = TypeVar("QuestionsT")
KeyIn = TypeVar("KeyIn", contravariant=True)


class AnyQuestions(Protocol):
    """What a public file of any kind asks, without answers: read by ``load_questions``."""

    @property
    def track(self) -> Track: ...
    @property
    def key_version(self) -> str | None: ...
    def __len__(self) -> int: ...


class AnyKey(Protocol):
    """An answer key of any kind: read by ``load_key``, its rows' answers with its sha256."""

    @property
    def track(self) -> Track: ...
    @property
    def key_version(self) -> str | None: ...
    @property
    def sha256(self) -> str: ...
    @property
    def ids(self) -> tuple[int | str, ...]:
        """The rows' ids, in the key's order."""

    @property
    def flagged(self) -> int:
        """Its rows flagged out of option (a kind without options: none)."""

    @property
    def asked(self) -> AnyQuestions:
        """The questions the key asks, as a public file asks them (no answers)."""

    def __len__(self) -> int: ...


@dataclass(frozen=True)
class Summary:
    """A score in words, plain text: a headline ("Overall: 45.2 %"), the facts under it, and
    a warning when the score needs one (below chance)."""

    headline: str
    facts: tuple[str, ...]
    warning: str | None = None


class Scoring(Protocol[TrackT, KeyT, QuestionsT]):
    """What a kind does: reads its files and a submission, scores it, checks records and
    releases.

    ``TrackT`` is its spec model, ``KeyT`` its answer key (an ``AnyKey``) and ``QuestionsT``
    what a public file asks (an ``AnyQuestions``).

    **What an answer may turn on** (the rule every kind keeps; the benchmarks' About texts
    state it as "What one scored file reveals"): nothing a visitor receives from ``score``,
    refused or scored, may turn on fewer rows of the key than the track's ``min_rows``.

    - A score's metrics that would are withheld (``ScoreResult.withheld``, worded by
      ``evaluator.disclosure``), decided from what the visitor's own file makes of the rows
      (which it answered, assisted, timed), so that withholding tells nothing either.
    - A refusal is ``validate``'s, made on the public rows alone (``key.asked``), or it reads
      the key: then it is made over at least ``min_rows`` rows or not at all, and it is a
      ``KeyedRefusal``, which the Space counts against the score limit like a score. Without
      both, whether a file is refused would be a free oracle on single rows (issue 30: a
      decision check over one episode read its reviewed time to 2 ms, for free).
    """

    #: The spec's name of the kind (a track's ``kind``).
    NAME: str
    #: Scoring takes long enough to run off the event loop whatever the file's size.
    SCORE_OFF_LOOP: bool

    # --- the key and the public file -------------------------------------------------------

    def load_key(self, track: TrackT, data: bytes) -> KeyT:
        """The validated key of a key file's bytes; AnswerKeyError says what is wrong."""

    def load_questions(self, track: TrackT, data: bytes) -> QuestionsT:
        """What a public file's bytes ask, without answers; PublicFileError otherwise."""

    def size_problems(self, key: KeyT) -> list[str]:
        """Where a key disagrees with the sizes its spec declares."""

    def same_questions(self, a: KeyT, b: KeyT) -> bool:
        """Whether two keys ask the same questions (a key and its rotations do)."""

    # --- submissions ----------------------------------------------------------------------

    def entry_fields(self, track: TrackT) -> tuple[str, ...]:
        """The fields of a submission's entry, its id first."""

    def own_fields(self, track: TrackT) -> tuple[str, ...]:
        """The fields only an entry of this kind carries (they tell a file's track)."""

    def keyed_entry(self, track: TrackT, name: str, value: Any) -> dict[str, Any] | None:
        """An entry of a submission keyed by id, as this kind reads one (``name`` a key of the
        object, ``value`` its value), to tell a file's track; None when the kind takes no such
        file, ``name`` is not shaped as the track's ids or ``value`` is no prediction of it."""

    def validate(self, questions: QuestionsT, data: bytes) -> Mapping[int | str, Any]:
        """Each row's answer in a submission; SubmissionError lists every problem."""

    def abstentions(self, answers: Any) -> int:
        """The rows a valid submission (``validate``'s answers) leaves without an answer."""

    def answers_sha256(self, track: TrackT, data: bytes) -> str | None:
        """The digest of a submission's answers, read without a key (None: the kind has none,
        or the file is not one that scores)."""

    # --- scores ---------------------------------------------------------------------------

    def score(self, key: KeyT, data: bytes, sha256: str) -> ScoreResult:
        """A submission's score; SubmissionError lists every problem (``validate``'s), or a
        KeyedRefusal from a check that reads the key (see the class: over ``min_rows`` rows at
        least). ``sha256``: the file's ``submission_sha256``, the result's (``evaluator.score``
        takes it when its caller has not)."""

    def chance(self, key: KeyT) -> float | None:
        """What answering every row at random scores in expectation, in the ranking metric's
        unit (None: the kind has no such rate; its floors are reference rows)."""

    # --- records and releases -------------------------------------------------------------

    def counts_problems(self, track: TrackT, counts: Mapping[str, Count]) -> list[str]:
        """What is wrong with a re-scored record's counts on their own (their keys)."""

    def record_problems(
        self,
        track: TrackT,
        metrics: Mapping[str, float],
        counts: Mapping[str, Count],
        intervals: Mapping[str, tuple[float, float]] | None,
    ) -> list[str]:
        """Where a re-scored record's numbers do not follow from its counts."""

    def public_problems(self, track: TrackT, records: Sequence[Any]) -> tuple[list[str], list[str]]:
        """A public file's rows that are no rows, and the answers left in them."""

    def agreement_problems(self, key: KeyT, public: Sequence[Mapping[str, Any]]) -> list[str]:
        """Where a key and its (usable) public rows describe different rows, ids aside."""

    def release_warnings(self, key: KeyT) -> list[str]:
        """What a consistent release would still hide from its visitors, each a sentence with
        the fix: a metric withheld from every file's score (``min_rows`` above what it counts)."""


class Wording(Protocol[TrackT, KeyIn]):
    """What a kind says: what its rows are called, a score in words and as a table, what the
    About adds, what a release holds. Plain text or Markdown, English; never HTML."""

    #: What a key holds, singular and plural: ("question", "questions").
    ROWS: tuple[str, str]
    #: The columns of ``score_rows``' table, each with its width on the Score tab, so that every
    #: column shows on a phone (Gradio's own sizes each by its longest cell).
    SCORE_COLUMNS: Mapping[str, str]

    def chance_warning(self, track: TrackT, result: ScoreResult) -> str | None:
        """The warning a score below chance gets, plain text (None: no warning)."""

    def summary(self, track: TrackT, result: ScoreResult) -> Summary:
        """A score in words."""

    def score_rows(self, track: TrackT, result: ScoreResult) -> list[dict[str, str | int]]:
        """A score as a table: a row per metric, its cells as shown (column -> cell)."""

    def about(self, track: TrackT) -> str:
        """What the About tab adds on how the track scores, Markdown written from its spec (a
        short-answer track's rules); "" when the benchmark's about.md says it all."""

    def release_summary(self, key: KeyIn) -> str:
        """What a consistent release holds, in a clause: rows, groups, and the like."""


class Kind(
    Scoring[TrackT, KeyT, QuestionsT], Wording[TrackT, KeyT], Protocol[TrackT, KeyT, QuestionsT]
):
    """A kind of track: what it does (``Scoring``) and what it says (``Wording``)."""
