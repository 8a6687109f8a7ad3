"""The short-answer kind: multiple-choice and open questions scored together, each response read
and matched by the rule set its spec declares for the question.

The kind's modules, in the order data flows: ``key`` (the answer key and the public file's
questions, with the fields a row's id gives), ``rules`` (a response read into candidates and
matched against a question's answers, by a rule set), ``answers`` (a submission read against
the questions alone), ``scoring`` (right or wrong per question, counts, chance), ``release``
(what a release needs beyond a valid key) and ``words`` (the About's account of the rules,
written from the spec). Its spec is ``spec.short_answer``; the metric tree, intervals and
withholding are every accuracy kind's (``evaluator.accuracy``).

Metric definitions (written once, here and in each benchmark's about.md):

- a question is right when its response, read by the question's rule set, gives a candidate
  that matches one of its answers (``spec.short_answer.RuleSet`` states every rule; the About
  tab states the track's own, from its spec); a multiple-choice question's answer is its
  letter, an open question's a text or a list of accepted texts;
- every metric is accuracy in percent, unrounded: ``100 * right / total``; ``overall`` and
  every aggregate declared ``micro`` (the default) are *micro* averages (right answers over all
  rows they cover), one declared ``macro`` the plain mean of its groups' accuracies;
- an abstention (the response null or "") scores as wrong and is counted; a response that is a
  number is read as its text;
- each micro metric carries a 95 % Wilson score interval, a macro one the normal
  approximation of a mean of independent proportions;
- ``chance`` is what a random letter for each multiple-choice question scores in expectation,
  an open question counting 0: the mean over all rows of ``1 / n`` (``n`` its letters). A
  result is *below chance* when the upper bound of ``overall``'s interval is under it.

Example:

>>> import json, spec
>>> from spec.short_answer import ShortAnswerTrack
>>> track = ShortAnswerTrack.model_validate({
...     "id": "main", "title": "Main", "kind": "short_answer", "scorer_version": "1",
...     "key": {"name": "key.json", "format": "json"},
...     "public": {"name": "public.json", "format": "json"},
...     "fields": {"id": "id", "levels": ["id"], "answer": "ground_truth"},
...     "types": {"field": "question_type", "choice": ["multiple-choice"],
...               "open": ["short-answer"]},
...     "overall": {"size": 2}, "views": [{"title": "Overall"}]})
>>> key = load_key(track, json.dumps({
...     "q1": {"question_type": "multiple-choice", "ground_truth": "B"},
...     "q2": {"question_type": "short-answer", "ground_truth": ["0.5", "1/2"]}}).encode())
>>> from evaluator import score
>>> result = score(key, b'{"q1": "B", "q2": "So the answer is 0.50."}')
>>> result.counts["overall"].correct, round(result.chance, 2)
(2, 12.5)
"""

from __future__ import annotations

from evaluator.accuracy import SCORE_COLUMNS, counts_problems, record_problems, score_rows
from evaluator.kinds.base import Kind
from evaluator.kinds.short_answer.answers import (
    abstentions,
    entry_fields,
    keyed_entry,
    own_fields,
    validate,
)
from evaluator.kinds.short_answer.key import (
    Question,
    ShortAnswerKey,
    ShortAnswerQuestions,
    load_key,
    load_questions,
    same_questions,
    size_problems,
)
from evaluator.kinds.short_answer.release import (
    agreement_problems,
    public_problems,
    release_summary,
    release_warnings,
)
from evaluator.kinds.short_answer.scoring import (
    ANSWERS_FORMAT,
    answers_sha256,
    chance,
    chance_warning,
    score,
    summary,
)
from evaluator.kinds.short_answer.words import about
from spec import ShortAnswerTrack

NAME = "short_answer"
ROWS = ("question", "questions")
#: Reading a response runs regular expressions over it: off the event loop, whatever its size.
SCORE_OFF_LOOP = True


__all__ = [
    "ANSWERS_FORMAT",
    "IMPLEMENTS",
    "NAME",
    "ROWS",
    "SCORE_COLUMNS",
    "SCORE_OFF_LOOP",
    "Question",
    "ShortAnswerKey",
    "ShortAnswerQuestions",
    "about",
    "abstentions",
    "agreement_problems",
    "answers_sha256",
    "chance",
    "chance_warning",
    "counts_problems",
    "entry_fields",
    "keyed_entry",
    "load_key",
    "load_questions",
    "own_fields",
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
import evaluator.kinds.short_answer as _this  # noqa: E402

IMPLEMENTS: Kind[ShortAnswerTrack, ShortAnswerKey, ShortAnswerQuestions] = _this
