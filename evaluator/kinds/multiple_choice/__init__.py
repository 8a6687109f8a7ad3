"""The multiple-choice kind: questions with lettered options, scored as accuracies.

The kind's modules, in the order data flows: ``key`` (the answer key and the public file's
questions), ``coding`` (answers as codes, what a score counts over all questions at once),
``answers`` (a submission read against the questions alone, with its fix-it hints),
``digest`` (``answers_sha256``: the text a score hashes of its answers), ``scoring`` (the
counts, the metric tree, intervals, chance), ``release`` (what a release needs beyond a valid
key); beside them ``layouts`` (how a release writes its options and answers, read into
letters), ``printed`` (letters a release prints in its option texts) and ``shapes`` (the shapes
a submission takes, and hints for the ones people upload instead). Its spec is
``spec.multiple_choice``.

Metric definitions (written once, here and in each benchmark's about.md):

- every metric is accuracy in percent, unrounded: ``100 * correct / total``;
- a group metric (one value of a grouping field, e.g. a query type or a scenario) counts the
  rows of that group;
- ``overall`` and every aggregate declared ``micro`` (the default) are *micro* averages:
  correct answers over all rows they cover (weight by size), not the mean of their groups;
- an aggregate declared ``macro`` is the plain mean of its groups' accuracies (each group
  weighs the same); its count is still the rows' correct and total, so the metric is not
  ``correct / total``;
- an out-of-option row (a row the spec's label policy flags: its answer is not among its
  options) counts in every metric's denominator and can never be answered right;
  ``overall_answerable`` is the micro average over the other rows;
- an abstention (the prediction null or empty) scores as wrong and is counted;
- each micro metric carries a 95 % Wilson score interval for its proportion; a macro metric
  the normal-approximation interval of a mean of independent proportions,
  ``mean ± z * sqrt(sum(p_i * (1 - p_i) / n_i)) / k``, clipped to 0-100;
- ``chance`` is what answering every question at random scores in expectation, in percent:
  the mean over all rows of ``1 / n`` (``n`` the row's option count), an out-of-option row
  counting 0. A result is *below chance* when the upper bound of ``overall``'s Wilson interval
  is under it: almost always letters chosen against another version of the key, unless the
  file leaves answers empty and the questions it answers score no worse than chance
  (``chance_warning`` says which).

Example:

>>> import spec
>>> bench = spec.load_benchmark("egomemreason")
>>> track = bench.track()
>>> key = load_key(track, bench.demo_key(track).read_bytes())
>>> from evaluator import score
>>> result = score(key, (bench.demo_dir / "sample_submission.json").read_bytes())
>>> result.counts["overall"].total, round(result.chance, 2)
(500, 20.67)
"""

from __future__ import annotations

from evaluator.accuracy import (
    SCORE_COLUMNS,
    aggregate,
    counts_problems,
    intervals_from_counts,
    metrics_from_counts,
    record_problems,
    score_rows,
)
from evaluator.kinds.base import Kind
from evaluator.kinds.multiple_choice.answers import (
    abstentions,
    entry_fields,
    keyed_entry,
    own_fields,
    validate,
)
from evaluator.kinds.multiple_choice.digest import ANSWERS_FORMAT
from evaluator.kinds.multiple_choice.key import (
    AnswerKey,
    Item,
    Question,
    QuestionSet,
    load_key,
    load_questions,
    parse_answer_key,
    same_questions,
    size_problems,
)
from evaluator.kinds.multiple_choice.release import (
    agreement_problems,
    public_problems,
    release_summary,
    release_warnings,
)
from evaluator.kinds.multiple_choice.scoring import (
    answers_sha256,
    chance,
    chance_warning,
    score,
    summary,
)
from spec import MultipleChoiceTrack

NAME = "multiple_choice"
ROWS = ("question", "questions")
SCORE_OFF_LOOP = False


def about(track: object) -> str:
    """What the About tab adds on how the track scores: nothing (its about.md says it)."""
    return ""


__all__ = [
    "ANSWERS_FORMAT",
    "IMPLEMENTS",
    "NAME",
    "ROWS",
    "SCORE_COLUMNS",
    "SCORE_OFF_LOOP",
    "AnswerKey",
    "Item",
    "Question",
    "QuestionSet",
    "about",
    "abstentions",
    "aggregate",
    "agreement_problems",
    "answers_sha256",
    "chance",
    "chance_warning",
    "counts_problems",
    "entry_fields",
    "intervals_from_counts",
    "keyed_entry",
    "load_key",
    "load_questions",
    "metrics_from_counts",
    "own_fields",
    "parse_answer_key",
    "public_problems",
    "record_problems",
    "release_summary",
    "release_warnings",
    "same_questions",
    "score",
    "score_rows",
    "size_problems",
    "summary",
    "validate",
]

# The registry (spec.tracks.REGISTRY) imports this module by name: mypy checks here that it is a
# whole kind (evaluator.kinds.base.Kind), over this kind's own track, key and questions.
import evaluator.kinds.multiple_choice as _this  # noqa: E402

IMPLEMENTS: Kind[MultipleChoiceTrack, AnswerKey, QuestionSet] = _this
