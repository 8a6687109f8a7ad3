"""A score as the Score tab shows it, pure: the table, the summary and the /score JSON."""

from __future__ import annotations

from typing import Any

import pandas as pd

import evaluator
from board_view import macro_keys
from spec import Track


def score_table(result: evaluator.ScoreResult, track: Track) -> pd.DataFrame:
    """A row per metric of the track, by its long name, shown to one decimal.

    A macro mean is not correct / questions, so its row shows no "Correct" count.
    """
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


def score_summary(result: evaluator.ScoreResult, track: Track) -> str:
    ranking = track.ranking
    count, (low, high) = result.counts[ranking], result.intervals[ranking]
    abstained = (f"{result.n_abstained} question{'s' if result.n_abstained != 1 else ''} "
                 "without an answer (scored as wrong)")
    version = f" · answer key {result.key_version}" if result.key_version else ""
    return (
        f"### {track.labels[ranking]}: {result.metrics[ranking]:.1f} %\n"
        f"{count.correct} of {count.total} correct · 95 % CI {low:.1f}–{high:.1f} · "
        f"{abstained}{version}\n\n"
        f"File sha256 `{result.submission_sha256[:16]}…` (quote it when you e-mail the file "
        "to get listed). Nothing about this file was stored."
    )


def score_json(result: evaluator.ScoreResult) -> dict[str, Any]:
    """The numbers, named exactly as the evaluator names them (for gradio_client users)."""
    return result.model_dump(mode="json", exclude={"answer_key_sha256"})
