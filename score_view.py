"""A score as the Score tab shows it, pure: the table, the summary and the /score JSON, and
which track a file's entries are written for.

A multiple-choice score shows accuracies; a decision score each metric as its spec's
``display`` says (``spec.format_metric``), with its count and its 95 % interval.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pandas as pd

import decision
import evaluator
from board_view import DECIMALS, macro_keys
from spec import AnyTrack, Benchmark, DecisionTrack, MultipleChoiceTrack, format_metric

SHAPE_SAMPLE = 200  # entries a guess of the file's track reads


def score_table(result: evaluator.ScoreResult, track: AnyTrack) -> pd.DataFrame:
    """A row per metric of the track, by its long name, shown to one decimal (a decision
    track's as its spec's displays say).

    A macro mean is not correct / questions, so its row shows no "Correct" count.
    """
    if isinstance(track, DecisionTrack):
        return _decision_table(result, track)
    macro = macro_keys(track)
    rows = []
    for key in track.metric_keys:
        if key not in result.counts:
            continue
        count, (low, high) = result.counts[key], result.intervals[key]
        # Text, shown to one decimal: the /score JSON carries the numbers at full precision.
        rows.append({"Split": track.names[key], "Accuracy (%)": f"{result.metrics[key]:.1f}",
                     "Correct": "—" if key in macro else count.correct,
                     "Questions": count.total, "95% CI": f"{low:.1f}–{high:.1f}"})
    return pd.DataFrame(rows)


def _decision_table(result: evaluator.ScoreResult, track: DecisionTrack) -> pd.DataFrame:
    """A row per metric in display order: its value as the spec shows it, its count (episodes
    counted of episodes), its interval; "—" where there is none (F1 has no count, the timing
    metrics no interval, the timing means no value when nothing was timed)."""
    rows = []
    for key in track.metric_keys:
        display = track.display[key]
        count = result.counts.get(key)
        interval = result.intervals.get(key)
        digits = DECIMALS[display]
        rows.append({
            "Metric": track.names[key],
            "Value": format_metric(display, result.metrics.get(key)),
            "Count": "—" if count is None else f"{count.correct} of {count.total}",
            "95% CI": "—" if interval is None
            else f"{interval[0]:.{digits}f}–{interval[1]:.{digits}f}",
        })
    return pd.DataFrame(rows)


def score_summary(result: evaluator.ScoreResult, track: AnyTrack) -> str:
    if isinstance(track, DecisionTrack):
        return _decision_summary(result, track)
    ranking = track.ranking
    count, (low, high) = result.counts[ranking], result.intervals[ranking]
    abstained = (f"{result.n_abstained} question{'s' if result.n_abstained != 1 else ''} "
                 "without an answer (scored as wrong)")
    version = f" · answer key {result.key_version}" if result.key_version else ""
    warning = evaluator.chance_warning(track, result)
    return (
        (f"> **Warning: below chance.** {warning}\n\n" if warning else "")
        + f"### {track.labels[ranking]}: {result.metrics[ranking]:.1f} %\n"
        f"{count.correct} of {count.total} correct · 95 % CI {low:.1f}–{high:.1f} · "
        f"{abstained}{version}\n\n"
        f"File sha256 `{result.submission_sha256[:16]}…` (quote it when you e-mail the file "
        "to get listed). Nothing about this file was stored."
    )


def _decision_summary(result: evaluator.ScoreResult, track: DecisionTrack) -> str:
    ranking = track.ranking
    display = track.display[ranking]
    low, high = result.intervals[ranking]
    digits = DECIMALS[display]
    accuracy = track.by_scenario
    shown = ""
    if accuracy is not None and accuracy in result.metrics:
        shown = (f" · {track.labels[accuracy]} "
                 f"{format_metric(track.display[accuracy], result.metrics[accuracy])}")
    abstained = (f"{result.n_abstained} episode{'s' if result.n_abstained != 1 else ''} "
                 "without an answer (scored as not assisting)")
    version = f" · answer key {result.key_version}" if result.key_version else ""
    return (
        f"### {track.title} {track.labels[ranking]}: "
        f"{format_metric(display, result.metrics[ranking])}\n"
        f"{result.n_questions} episodes · 95 % CI {low:.{digits}f}–{high:.{digits}f} "
        f"(bootstrap){shown} · {abstained}{version}\n\n"
        f"File sha256 `{result.submission_sha256[:16]}…` (quote it when you e-mail the file "
        "to get listed). Nothing about this file was stored."
    )


def score_json(result: evaluator.ScoreResult) -> dict[str, Any]:
    """The numbers, named exactly as the evaluator names them (for gradio_client users)."""
    return result.model_dump(mode="json", exclude={"answer_key_sha256"})


# --- which track a file is for (pure) -----------------------------------------------------------


def own_fields(track: AnyTrack) -> tuple[str, ...]:
    """The fields only an entry of this track's submissions carries: a multiple-choice
    prediction (or a name people use for it), a decision's assist and time."""
    if isinstance(track, MultipleChoiceTrack):
        return (track.fields.prediction, *track.fields.prediction_aliases)
    return (decision.ASSIST, decision.TIME)


def entry_shape(track: AnyTrack) -> str:
    """An entry of the track's submissions, as a message names it: "example_id/assist/..."."""
    if isinstance(track, MultipleChoiceTrack):
        return f"{track.fields.id}/{track.fields.prediction}"
    return f"{track.fields.id}/{decision.ASSIST}/{decision.TIME}"


def _entries(data: bytes) -> list[dict[str, Any]]:
    """The first entries of a submission: a JSON list, a list inside an object, or JSON Lines;
    none if the file is none of these."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return []
    try:
        decoded: Any = json.loads(text)
    except (ValueError, RecursionError):
        decoded = []
        for line in text.split("\n"):
            if len(decoded) >= SHAPE_SAMPLE:
                break
            try:
                decoded.append(json.loads(line))
            except (ValueError, RecursionError):
                continue
    if isinstance(decoded, dict):  # {"results": [...]}: what the list holds tells
        decoded = next((v for v in decoded.values() if isinstance(v, list)), [decoded])
    if not isinstance(decoded, list):
        return []
    return [e for e in decoded[:SHAPE_SAMPLE] if isinstance(e, dict)]


def fitting_track(bench: Benchmark, data: bytes) -> AnyTrack | None:
    """The track whose entries the file's are, told by the fields only that track's entries
    carry (``own_fields``); None if the file's entries carry no track's, or as many of two
    tracks' (then the visitor names the track)."""
    entries = _entries(data)
    votes = Counter({t.id: sum(any(f in e for f in own_fields(t)) for e in entries)
                     for t in bench.tracks})
    ranked = votes.most_common(2)
    if not ranked or ranked[0][1] == 0 or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return None
    return bench.any_track(ranked[0][0])
