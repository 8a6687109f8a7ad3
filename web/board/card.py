"""A row's card, pure: the record, every metric with its interval, its provenance, its history
(the rows it replaced and those that replaced it, each withdrawal with its reason) and the
command that reproduces it, as HTML (``card_html``); ``reproduce_command`` is that command.

Every text shown comes from a record or the spec and is escaped (``table.text``).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from records import AddedIn, Record, Step, Withdrawal, metric_interval
from spec import Benchmark, Track
from web.board.layout import BoardLayout
from web.board.ranks import shown_interval
from web.board.rows import NOT_REPORTED, SOURCE_TEXT, input_label
from web.board.table import is_missing, links_html, text

HUB = "https://huggingface.co"  # where a record's model_repo is


def reproduce_command(
    record: Record, bench: Benchmark, track: Track, board_dir: str | None
) -> str | None:
    """The ``reproduce_row.py`` command that re-scores a re-scored row (None for a paper row):
    with ``--leaderboard-dir`` when the board is a local folder."""
    if record.source != "rescored":
        return None
    words = ["python", "scripts/reproduce_row.py", "--benchmark", bench.id]
    if len(bench.tracks) > 1:
        words += ["--track", track.id]
    if board_dir is not None:
        words += ["--leaderboard-dir", board_dir]
    words += ["--record", str(record.id)]
    command = " ".join(shlex.quote(w) for w in words)
    return command + " \\\n    --submission <the submitted file> --private <the answer key file>"


def _dl(items: Sequence[tuple[str, str]]) -> str:
    """A definition list of (term, already-escaped HTML) pairs."""
    return (
        "<dl>"
        + "".join(f"<dt>{text(term)}</dt><dd>{value}</dd>" for term, value in items)
        + "</dl>"
    )


def _code(value: object) -> str:
    return f"<code>{text(value)}</code>"


def card_html(
    record: Record,
    bench: Benchmark,
    track: Track,
    layout: BoardLayout,
    row: Mapping[str, Any] | None,
    *,
    superseded_by: Record | None,
    added: AddedIn | None,
    reproduce: str | None,
    permalink: str,
    withdrawal: Withdrawal | None = None,
    history: Sequence[Step] = (),
) -> str:
    """One row's card: what the record says (description, links, metadata), every metric it
    carries with its interval, its provenance, what it supersedes or was superseded by, the
    withdrawal that retracted it (``withdrawal``, with its reason), its ``history`` (records'
    RowStatus.history: shown when it holds more than the row itself, or a withdrawal) and the
    command that reproduces it. ``row`` is its board row (rank, intervals as shown); None for
    a row no longer on the board (superseded or withdrawn)."""
    info = layout.info
    title = text(record.method_name)
    parts = [f'<h3 id="entry-card-title">{title}</h3>']
    if withdrawal is not None:
        instead = (
            " The board shows "
            f'<a href="{text(_entry_link(permalink, withdrawal.replaced_by))}">'
            f"{_code(withdrawal.replaced_by)}</a> in its place."
            if withdrawal.replaced_by is not None
            else ""
        )
        reason = withdrawal.reason.strip()
        stop = "" if reason.endswith((".", "!", "?")) else "."
        parts.append(
            f'<p class="withdrawn"><strong>Withdrawn</strong> on '
            f"{withdrawal.created_at:%Y-%m-%d}: {text(reason)}{stop} It is no longer on "
            f"the board.{instead}</p>"
        )
    if superseded_by is not None:
        parts.append(
            f'<p class="superseded"><strong>Superseded</strong> by '
            f'<a href="{text(_entry_link(permalink, superseded_by.id))}">'
            f"{text(superseded_by.method_name)}</a> "
            f"({_code(superseded_by.id)}); it is no longer on the board.</p>"
        )
    if record.method_description:
        parts.append(f"<p>{text(record.method_description)}</p>")
    links = links_html(record)
    about: list[tuple[str, str]] = [
        (info["team"], text(record.team_name)),
        (info["size"], text(record.model_size or "not stated")),
        (
            info["external"],
            text(
                NOT_REPORTED
                if record.uses_external is None
                else "Yes"
                if record.uses_external
                else "No"
            ),
        ),
        (bench.input.label, text(input_label(record.uses_frames, bench))),
        (info["source"], text(SOURCE_TEXT[record.source])),
        (info["date"], text(record.created_at.date().isoformat())),
    ]
    if row is not None:
        about.insert(0, ("Rank", text(_rank_text(row, info, layout.metrics[track.ranking]))))
    if links:
        about.append((info["links"], links))
    if record.model_repo is not None:  # a Hub repo id (records.text.repo_id)
        model = f"{HUB}/{record.model_repo}"
        about.append(
            (
                "Model on the Hub",
                f'<a href="{text(model)}" target="_blank" rel="noopener noreferrer nofollow">'
                f"{text(record.model_repo)}</a>",
            )
        )
    if record.note:
        about.append((info["note"], text(record.note)))
    parts.append(_dl(about))
    parts.append("<h4>Scores</h4>" + _metrics_table(record, track))
    provenance: list[tuple[str, str]] = [("Record id", _code(record.id))]
    if record.provenance is not None:
        p = record.provenance
        provenance += [
            ("Submission sha256", _code(p.submission_sha256)),
            ("Answer key sha256", _code(p.answer_key_sha256)),
            (info["key"], _code(p.key_version or "(unversioned)")),
            ("Scorer version", _code(p.scorer_version)),
        ]
    elif record.source == "paper":
        provenance.append(("Numbers", "reported in the paper; not re-scored here"))
    if record.supersedes is not None:
        older = text(_entry_link(permalink, record.supersedes))
        provenance.append(("Supersedes", f'<a href="{older}">{_code(record.supersedes)}</a>'))
    if added is not None:  # the Hub commit that added the record (records are never changed)
        provenance.append(
            (
                "Added in commit",
                f'<a href="{text(added.url)}" target="_blank" '
                f'rel="noopener noreferrer">{_code(added.commit[:12])}</a> '
                f"{text(added.title)}, {added.date:%Y-%m-%d}",
            )
        )
    provenance.append(
        ("Permalink", f'<a class="permalink" href="{text(permalink)}">{text(permalink)}</a>')
    )
    parts.append("<h4>Provenance</h4>" + _dl(provenance))
    if len(history) > 1 or any(step.withdrawal is not None for step in history):
        parts.append("<h4>History</h4>" + _history(record, history, permalink))
    if reproduce is not None:
        parts.append(
            "<h4>Reproduce this row</h4><p>With the submitted file and the answer "
            "key (the maintainers hold both):</p>"
            f"<pre><code>{text(reproduce)}</code></pre>"
        )
    return f'<section class="card" aria-labelledby="entry-card-title">{"".join(parts)}</section>'


def _history(record: Record, history: Sequence[Step], permalink: str) -> str:
    """The chain of rows ``record`` belongs to, oldest first: each row (a link to its card,
    but this one's), its key version and date, and its withdrawal with the reason."""
    items = []
    for step in history:
        row = step.row
        name = f"{text(row.method_name)} ({_code(row.id)})"
        if row.id == record.id:
            name = f"<strong>{name}</strong>, this row"
        else:
            name = f'<a href="{text(_entry_link(permalink, row.id))}">{name}</a>'
        key = (
            f"key {text(row.key_version or '(unversioned)')}"
            if row.source == "rescored"
            else "paper-reported"
        )
        line = f"{name}: {key}, dated {row.created_at:%Y-%m-%d}"
        if row.supersedes is not None and step is not history[0]:
            line += ", replacing the row above"
        if step.withdrawal is not None:
            w = step.withdrawal
            line += (
                f"; withdrawn on {w.created_at:%Y-%m-%d} by record {_code(w.id)}: {text(w.reason)}"
            )
        items.append(f"<li>{line}</li>")
    return f'<ol class="card-history">{"".join(items)}</ol>'


def _entry_link(permalink: str, entry: object) -> str:
    """``permalink`` pointing at another entry (same track)."""
    base, _, query = permalink.partition("?")
    kept = [p for p in query.split("&") if p and not p.startswith("entry=")]
    return f"{base}?{'&'.join([f'entry={entry}', *kept])}"


def _rank_text(row: Mapping[str, Any], info: Mapping[str, str], ranking: str) -> str:
    """A card's rank: among the entries, or among the rows ranked apart by their own metric
    (a decision board's paper rows), or why it has none."""
    if row.get("_reference"):
        return f"not ranked: a reference row ({row['_reference']})"
    rank = row.get("Rank")
    if rank is None or is_missing(rank):
        return "unranked"
    spread = row.get(info["rank_range"])
    among = row.get("_ranked_by", ranking)
    return (
        f"{int(rank)}"
        + (f" (could be {spread})" if spread and str(spread) != str(int(rank)) else "")
        + (f" among the paper-reported rows, by {among}" if among != ranking else "")
    )


def _metrics_table(record: Record, track: Track) -> str:
    """The card's Scores: every metric the record carries, its count and its 95 % interval as
    the board shows it (``shown_interval``: a paper row's from its percentage over the split's
    questions, which a note under the table says)."""
    rows = []
    derived = False
    for key in track.all_metric_keys:
        if key not in record.metrics:
            continue
        display = track.display[key]
        interval = shown_interval(record, track, key)
        derived |= interval is not None and metric_interval(record, track, key) is None
        count = record.counts.get(key) if record.counts is not None else None
        interval_text = "—" if interval is None else track.interval_text(display, *interval)
        # "107/500": a phone's card holds it beside a value and an interval ("107 of 500" fell
        # over three lines there)
        counted = "—" if count is None else f"{count.correct}/{count.total}"
        rows.append(
            f'<tr><th scope="row">{text(track.names.get(key, track.labels[key]))}</th>'
            f'<td class="num">{text(track.shown(display, record.metrics[key]))}</td>'
            f'<td class="num count">{text(counted)}</td>'
            f'<td class="num">{text(interval_text)}</td></tr>'
        )
    note = (
        '<p class="card-note">The paper gives percentages, not counts: an interval here is '
        "Wilson's over the questions of its split.</p>"
        if derived
        else ""
    )
    return (
        '<table class="card-scores"><thead><tr><th scope="col">Metric</th>'
        '<th scope="col">Value</th><th scope="col">Count</th><th scope="col">95% CI</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>{note}"
    )
