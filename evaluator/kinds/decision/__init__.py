"""The decision kind: should the assistant intervene in an episode, and when.

The kind's modules, in the order data flows: ``key`` (the key's episodes and the public file's
ids), ``answers`` (a submission read against the ids alone, a JSON list or JSON Lines),
``scoring`` (outcomes, proportions, timing, intervals, a record's numbers), ``release`` (what
a release needs beyond a valid key). Its spec, with the kind's vocabulary (the metrics and the
field names), is ``spec.decision``.

These are **this Space's own definitions**: the benchmark's official decision scorer is not
public. Each is written once, here and in the benchmark's about.md (Decision); changing one
means bumping the track's ``scorer_version``. Numbers a paper reports are shown as
paper-reported, in columns of their own (the spec's ``paper_metrics``), never as these.

**The key**, one row per episode (JSON Lines or a JSON list): ``example_id`` (unique; the
spec's ``fields.id``), the scenario (the spec's ``scenarios.field``, one of its values),
``assist_type`` (``safety``, ``non_safety``, or ``none`` exactly when the scenario is the spec's
``silent_scenario``) and ``intervention_time_s`` (the reviewed earliest useful time in seconds: a
number >= 0 on an assistance episode, null on the others). Other fields are kept, not read.

**A submission**, a JSON list or JSON Lines, one object per episode: ``example_id``, ``assist``
(true or false; null = no answer, scored as not assisting and counted in ``n_abstained``),
``intervention_time_s`` (seconds >= 0, or null), and optionally ``issue``, ``evidence`` and
``steps``: accepted and not scored (the paper judges them with an LLM-assisted error taxonomy,
which this Space does not run). A time is read only where the episode is a TP. Every problem of
a file is reported at once.

Each episode is one of four (an *assistance* episode is one whose ``assist_type`` is not none):

- TP: an assistance episode and ``assist`` true;  FN: an assistance episode, ``assist`` not true;
- FP: a no-assistance episode and ``assist`` true;  TN: a no-assistance episode, not true.

**Metrics** (a proportion is a percent or a 0-1 ratio, as the spec's ``display`` says; a
proportion whose denominator is 0 is 0):

- ``decision_precision`` = TP / (TP + FP); ``decision_recall`` = TP / (TP + FN);
  ``decision_f1`` = 2 TP / (2 TP + FP + FN), the F1 of assisting (the assist class);
- ``decision_macro_f1`` = (F1 of assisting + F1 of staying silent) / 2, where staying silent's
  F1 = 2 TN / (2 TN + FN + FP): both decisions count in it, so a constant policy cannot win it
  (always assisting scores 0 on silence, never assisting 0 on assisting). The track ranks by it;
- over the TP episodes whose prediction gives a time: ``timing_mae_s`` = mean of
  |predicted - reviewed|, ``timing_signed_s`` = mean of (predicted - reviewed), in seconds
  (negative = too early); ``timing_n`` = those episodes, ``timing_missing`` = TP episodes without
  a time. With ``timing_n`` 0 the two means have no value: they are left out of ``metrics``
  (absent, not null, in the ``/score`` JSON and in records; a board shows "—");
- ``safety_fn_rate`` = FN among safety episodes / safety episodes; ``non_safety_fn_rate`` the
  same over non-safety episodes; ``no_assist_fp_rate`` = FP / no-assistance episodes;
- ``decision_accuracy`` = (TP + TN) / episodes; ``decision_accuracy/<scenario key>`` the same
  over one scenario's episodes.

**Counts** (``Count(correct, total)``): precision TP of TP + FP, recall TP of TP + FN, each error
rate its FN or FP over its episodes, each accuracy its right decisions over its episodes; none for
the two F1s and the timing metrics (the two timing counts are metrics themselves), nor for a
proportion whose denominator is 0.

**Intervals** (95 %, in the metric's display): Wilson for every proportion but F1 (the whole range
when the denominator is 0); for the two F1s the percentile interval of a seeded bootstrap over
episodes, not a closed form. Each depends only on the episodes' four outcomes, so resampling ``n``
episodes with replacement is drawing the four counts (TP, FN, FP, TN) from the multinomial
distribution of ``n`` trials with probabilities TP/n, FN/n, FP/n and TN/n: the
``BOOTSTRAP_RESAMPLES`` (2,000) resamples are drawn at once, as
``numpy.random.RandomState(BOOTSTRAP_SEED).multinomial(n, [TP/n, FN/n, FP/n, TN/n], size=2000)``
(numpy's legacy generator, whose streams numpy guarantees to stay the same from version to version;
its newer ``Generator``'s may change). A resample's F1 is 2 TP / (2 TP + FP + FN) of its counts (0
when that is 0), its macro F1 the mean of that and 2 TN / (2 TN + FN + FP), from the same 2,000
resamples. Of each metric's 2,000 resampled values, sorted, the interval runs from the 50th to the
1,950th. The same four counts always give the same interval, whatever the order of the key's rows.
The timing metrics have no interval. (Scorer 1.1 had no macro F1; an earlier scorer drew each
resample's ``n`` episodes one by one with Python's ``random``: the same bootstrap with other random
numbers; a record it scored keeps its interval, which a board checks only to lie within F1's range,
as it does every record's.)

Example:

>>> import spec
>>> bench = spec.load_benchmark("egoargus")
>>> track = bench.track("decision")
>>> key = load_key(track, bench.demo_key(track).read_bytes())
>>> len(key), sorted(assist_types(key))
(789, ['non_safety', 'none', 'safety'])
>>> f1_interval(0, 0, 0, 0), f1_interval(4, 2, 1, 3)
((0.0, 0.0), (0.2857142857142857, 1.0))
"""

from __future__ import annotations

from evaluator.kinds.base import Kind
from evaluator.kinds.decision.answers import (
    Columns,
    Prediction,
    abstentions,
    columns,
    decode,
    entry_fields,
    keyed_entry,
    own_fields,
    validate,
)
from evaluator.kinds.decision.key import (
    Cells,
    DecisionKey,
    Episode,
    EpisodeSet,
    assist_types,
    is_time,
    load_key,
    load_questions,
    parse_key,
    same_questions,
    size_problems,
)
from evaluator.kinds.decision.release import (
    agreement_problems,
    public_problems,
    release_summary,
    release_warnings,
)
from evaluator.kinds.decision.scoring import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    LOWER_RANK,
    PROPORTIONS,
    SCORE_COLUMNS,
    UPPER_RANK,
    Tally,
    answers_sha256,
    bootstrap_intervals,
    chance,
    chance_warning,
    counts_of,
    counts_problems,
    f1_interval,
    proportions,
    record_problems,
    score,
    score_rows,
    summary,
    tally,
    tally_columns,
    wilson_intervals,
)
from spec import DecisionTrack
from spec.decision import (
    ASSIST,
    ASSIST_TYPE,
    ASSIST_TYPES,
    BY_SCENARIO,
    DISPLAYS,
    METRICS,
    NON_SAFETY,
    NONE,
    NULLABLE,
    SAFETY,
    TIME,
)

NAME = "decision"
ROWS = ("episode", "episodes")
#: A score takes about what a multiple-choice one does (the F1 bootstrap is drawn at once).
SCORE_OFF_LOOP = False


def about(track: object) -> str:
    """What the About tab adds on how the track scores: nothing (its about.md says it)."""
    return ""


__all__ = [
    "ASSIST",
    "ASSIST_TYPE",
    "ASSIST_TYPES",
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "BY_SCENARIO",
    "DISPLAYS",
    "IMPLEMENTS",
    "LOWER_RANK",
    "METRICS",
    "NAME",
    "NONE",
    "NON_SAFETY",
    "NULLABLE",
    "PROPORTIONS",
    "ROWS",
    "SAFETY",
    "SCORE_COLUMNS",
    "SCORE_OFF_LOOP",
    "TIME",
    "UPPER_RANK",
    "Cells",
    "Columns",
    "DecisionKey",
    "Episode",
    "EpisodeSet",
    "Prediction",
    "Tally",
    "about",
    "abstentions",
    "agreement_problems",
    "answers_sha256",
    "assist_types",
    "bootstrap_intervals",
    "chance",
    "chance_warning",
    "columns",
    "counts_of",
    "counts_problems",
    "decode",
    "entry_fields",
    "f1_interval",
    "is_time",
    "keyed_entry",
    "load_key",
    "load_questions",
    "own_fields",
    "parse_key",
    "proportions",
    "public_problems",
    "record_problems",
    "release_summary",
    "release_warnings",
    "same_questions",
    "score",
    "score_rows",
    "size_problems",
    "summary",
    "tally",
    "tally_columns",
    "validate",
    "wilson_intervals",
]

# The registry (spec.tracks.REGISTRY) imports this module by name: mypy checks here that it is a
# whole kind (evaluator.kinds.base.Kind), over this kind's own track, key and questions.
import evaluator.kinds.decision as _this  # noqa: E402

IMPLEMENTS: Kind[DecisionTrack, DecisionKey, EpisodeSet] = _this
