"""A score as the Score tab shows it, pure: the /score JSON, the table, the summary, a refusal
as Markdown, where the file would rank on the board, the listing request, which track a file's
entries are written for, and what a file for another track than the one picked is told.

A multiple-choice score shows accuracies; a decision score each metric as its spec's
``display`` says (``Track.format_metric``), with its count and its 95 % interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

import pandas as pd

import evaluator

# Which track a file is for is the evaluator's (the scripts ask it too); here for the handlers.
from evaluator.track_fit import entry_shape
from records import Record
from spec import Benchmark, Track
from web.board.ranks import entries, rank_ranges, ranking_interval
from web.charts import chart_axis, chart_groups
from web.text import md_escape

NOTHING_STORED = "Nothing about this file was stored."
#: The Score tab's track choice that lets the file's entries tell its track
#: (evaluator.track_fit.fitting_track).
DETECT = "auto"


def score_table(result: evaluator.ScoreResult, track: Track) -> pd.DataFrame:
    """The score as a table, a row per metric of the track, as its kind words it
    (``Kind.score_rows``)."""
    return pd.DataFrame(evaluator.kind_of(track).score_rows(track, result))


def score_summary(result: evaluator.ScoreResult, track: Track) -> str:
    """The score in a heading and a line under it, as its kind words it (``Kind.summary``),
    after a warning when the score needs one (below chance)."""
    said = evaluator.kind_of(track).summary(track, result)
    warning = f"> **Warning: below chance.** {said.warning}\n\n" if said.warning else ""
    return f"{warning}### {said.headline}\n{' · '.join(said.facts)}\n\n{NOTHING_STORED}"


def score_json(result: evaluator.ScoreResult, track: str | None = None) -> dict[str, Any]:
    """What ``/score`` returns: the score as the evaluator names it, as a visitor is shown it
    (``result`` is ``evaluator.disclosed``'s: values at the board's precision, ``withheld``
    naming what turns on too few rows), the answer key's sha256 included (every re-scored
    record publishes it in its provenance, so a caller can check a score against a row's), and
    first the track scored when ``track`` names it (a benchmark with several)."""
    numbers = result.model_dump(mode="json")
    return numbers if track is None else {"track": track, **numbers}


def error_markdown(message: str) -> str:
    """A refusal as the Score tab shows it under the upload: its lines as paragraphs, its
    "- " lines (``evaluator.SubmissionError``'s problems) as a list, every text escaped (the
    message quotes the file's own ids and fields)."""
    blocks: list[str] = []
    items: list[str] = []
    for line in message.splitlines():
        if line.startswith("- "):
            items.append(f"- {md_escape(line[2:].strip())}")
            continue
        if items:
            blocks.append("\n".join(items))
            items = []
        if line.strip():  # the first line leads in bold: what happened
            text = md_escape(line.strip())
            blocks.append(text if blocks else f"**{text}**")
    if items:
        blocks.append("\n".join(items))
    return "\n\n".join(blocks)


# --- where a score would rank, and how to get it listed (pure) ---------------------------------


def would_rank(
    result: evaluator.ScoreResult, records: Sequence[Record], track: Track
) -> tuple[int, int, int] | None:
    """(rank, worst rank, of how many) a re-scored row of ``result`` would take on a board of
    ``records``, by the board's own rule (``board.ranks.rank_ranges``): 1 + the rows whose
    interval of the ranking metric lies entirely better, against the board's entries
    (``board.ranks.entries``: the rows ranked by the track's ranking, reference rows and paper
    rows ranked by a paper-only metric aside), so its count is the board's count of entries
    and this file. A row without an interval counts by its value alone. None when
    the ranking metric is withheld from the visitor (``evaluator.disclosed``): a rank against
    the board's values would tell it."""
    key = track.ranking
    if key not in result.metrics:
        return None
    rows = entries(records, track)
    points = [ranking_interval(r, track) or (r.metrics[key], r.metrics[key]) for r in rows]
    value = result.metrics[key]
    points.append(result.intervals.get(key, (value, value)))
    best, worst = rank_ranges(points, track.higher_is_better.get(key, True))[-1]
    return best, worst, len(points)


def same_answers_row(result: evaluator.ScoreResult, records: Sequence[Record]) -> Record | None:
    """The board's re-scored row of these very answers on the same key version: the same
    file (its sha256), or the same answers in other bytes (``answers_sha256``, kept by rows
    published since records hold it). None when the answers are not on the board."""
    for record in records:
        made = record.provenance
        if record.source != "rescored" or made is None or made.key_version != result.key_version:
            continue
        if made.submission_sha256 == result.submission_sha256 or (
            made.answers_sha256 is not None and made.answers_sha256 == result.answers_sha256
        ):
            return record
    return None


def listed_markdown(record: Record, track: Track, many: bool) -> str:
    """That these answers are already a row of the board, and whose: no rank to guess and no
    listing to request."""
    board = f"the {track.title} board" if many else "the board"
    version = (
        f", scored on key version {md_escape(record.key_version)}" if record.key_version else ""
    )
    return (
        f"**These answers are already on {board}: this is {md_escape(record.method_name)}'s "
        f"row** (team {md_escape(record.team_name)}{version}). Scoring them again adds "
        "nothing, and there is no listing to request."
    )


#: Under the rank of a file whose score is significantly below chance: why no listing request.
BELOW_CHANCE_NOTE = (
    " A score significantly below chance is not listed, so no listing request is offered: the "
    "warning above says what to check."
)


def unread_board_markdown(track: Track, many: bool) -> str:
    """Where a file would rank when the board's records could not be read: not known (an
    empty board's "the first entry" would be a guess)."""
    board = f"the {track.title} board" if many else "the board"
    return (
        f"**Where this file would rank on {board} is not known now:** the board's records "
        "could not be read (the maintainer has been told in the log). Score it again later "
        "to see its rank. It is not added to the board."
    )


def rank_markdown(rank: tuple[int, int, int] | None, track: Track, many: bool) -> str:
    """Where the file would rank, in a sentence: "would rank 2nd (rank range 2–4) of 5"; or
    that it is not ranked, its ranking metric withheld (``would_rank`` None)."""
    board = f"the {track.title} board" if many else "the board"
    label = track.labels[track.ranking]
    if rank is None:
        return (
            f"**Not ranked on {board}:** its {label} is withheld (see the table). It is not "
            "added to the board."
        )
    best, worst, n = rank
    if n == 1:
        return (
            f"**On {board} now, it would be the first entry** (none is ranked by {label} "
            "yet). It is not added to the board."
        )
    ordinal = evaluator.ordinal(best)
    shown = ordinal if best == worst else f"{ordinal} (rank range {best}–{worst})"
    return (
        f"**On {board} now, this file would rank {shown} of {n} entries** ranked by "
        f"{label}: the board's {n - 1} and this file (1 + the entries whose 95 % interval "
        "lies entirely better). It is not added to the board."
    )


def listing_fields(bench: Benchmark) -> tuple[str, ...]:
    """What a listing request asks for: the fields of a board row (scripts/publish_submission's
    row arguments), each with what to write."""
    choices = "; ".join(bench.input.choices.values())
    return (
        "Method name:",
        "Team:",
        "Model size (parameters such as 7B, or the API tier):",
        "Uses external data (yes / no):",
        f"{bench.input.label} (one of: {choices}):",
        "Project or code link:",
        "Paper link:",
        "Short description (one sentence):",
    )


def listing_mailto(
    bench: Benchmark, track: Track, result: evaluator.ScoreResult, many: bool
) -> str:
    """A ``mailto:`` to the benchmark's contact with a listing request pre-written: the file's
    sha256, its track, the key version and the fields of a board row to fill in (the subject
    and body URL-encoded; nothing is sent by the Space)."""
    ranking = track.ranking
    value = result.metrics.get(ranking)
    score = "withheld" if value is None else track.format_metric(ranking, value)
    subject = f"{bench.title} leaderboard: listing request"
    if many:
        subject += f" ({track.title})"
    lines = [
        f"Please list this submission on the {bench.title} leaderboard. The submission file is "
        "attached.",
        "",
        f"File sha256: {result.submission_sha256}",
        f"Track: {track.title} ({track.id})",
        f"Answer key version: {result.key_version or '(unversioned)'}",
        f"Score on the Space: {track.labels[ranking]} {score}",
        "",
        *listing_fields(bench),
    ]
    body = "\r\n".join(lines)  # RFC 6068: line breaks in a mailto body are %0D%0A
    return (
        # The spec allows a plain address only (spec.links); encoded all the same, so that no
        # "?" or "&" of its own could add a recipient.
        f"mailto:{quote(bench.contact_email, safe='@')}?subject={quote(subject, safe='')}"
        f"&body={quote(body, safe='')}"
    )


# --- which track a file is for (pure) -----------------------------------------------------------


def wrong_track(picked: Track, fits: Track) -> str:
    """What a file for another track than the one picked is told: which track it fits."""
    return (
        f"This file is for the {fits.title} track (its entries are {entry_shape(fits)} "
        f"entries), not for the {picked.title} track. Score it as {fits.title}: pick "
        f"{fits.title} as the track above the upload, or Detect from the file (through the "
        f'API: track "{fits.id}" or "{DETECT}").'
    )


def score_chart_title(track: Track, with_paper: bool) -> str:
    """The Score chart's title, short enough for a phone: "You vs. the best paper baseline",
    or "Your accuracy per split" on a board without paper rows."""
    if with_paper:
        return "You vs. the best paper baseline"
    return f"Your {chart_axis(track)[0].split(' (')[0].lower()} per {chart_groups(track)}"
