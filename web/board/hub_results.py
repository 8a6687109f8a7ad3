"""The Hub's own results beside the board: what model repos report for the benchmark on the
Hugging Face Hub (its Eval Results leaderboard, ledger.hub_results), shown apart from the
verified rows and marked as not verified here.

``hub_results_html`` renders them, pure; ``hub_section`` and ``hub_section_reread`` are the
handlers ``page`` wires when a track shows them (the spec's ``hub.show_hub_results``): a
section of its own, loaded by its own event, so a slow or failing Hub delays or hides nothing
of the board. Every text shown comes from the Hub and is escaped; every link was checked
(ledger.hub_results).

Example (what the Hub answered, rendered):

>>> from records import HubResult, HubResults
>>> row = HubResult(1, "demo-lab/DemoVLM-7B", 44.6, False, 3, None, None, None)
>>> read = HubResults("org/bench", (row,), 0.0, None)
>>> html = hub_results_html(read, "https://huggingface.co")
>>> "not verified here" in html, "pull request #3" in html, "44.6" in html
(True, True, True)
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from records import REREAD_FLOOR_S, HubResult, HubResults
from web.board.handlers import BoardTab, picked
from web.board.table import text

#: What the section says of the rows it shows, whatever the Hub answered.
INTRO = (
    "What model repositories report for {dataset} on the Hub's own leaderboard (its Eval "
    "Results). This leaderboard has not re-scored them: they are claims of the models' pages, "
    "shown apart from the verified board above. A <em>community</em> result is proposed in an "
    "open pull request on the model, not yet accepted by its owner."
)


def _link(url: str, label: str) -> str:
    return f'<a href="{text(url)}" target="_blank" rel="noopener noreferrer nofollow">{label}</a>'


def _on_hub(row: HubResult, site: str) -> str:
    parts = []
    if row.pull_request is not None:
        pull = f"{site}/{row.model_id}/discussions/{row.pull_request}"
        parts.append(f"community ({_link(pull, f'pull request #{row.pull_request}')})")
    else:
        parts.append("on the model's page")
    if row.hub_verified:
        parts.append("verified by the Hub")
    return "; ".join(parts)


def _rows(results: HubResults, site: str) -> str:
    cells = []
    for row in results.rows:
        source = (
            _link(row.source_url, text(row.source_name or "source"))
            if row.source_url is not None
            else text(row.source_name or "—")
        )
        cells.append(
            "<tr>"
            f'<td class="num">{row.rank or "—"}</td>'
            f"<td>{_link(f'{site}/{row.model_id}', text(row.model_id))}</td>"
            f'<td class="num">{text(format(row.value, ".6g"))}</td>'
            f"<td>{_on_hub(row, site)}</td><td>{source}</td>"
            f"<td>{text(row.notes or '')}</td></tr>"
        )
    return (
        '<table class="hub-results-table"><thead><tr><th scope="col">Hub rank</th>'
        '<th scope="col">Model</th><th scope="col">Value (as reported)</th>'
        '<th scope="col">On the Hub</th><th scope="col">Source</th><th scope="col">Notes</th>'
        f"</tr></thead><tbody>{''.join(cells)}</tbody></table>"
    )


def hub_results_html(results: HubResults, site: str) -> str:
    """The section: its heading, what the rows are, and the rows the Hub gave (or why none)."""
    dataset = _link(f"{site}/datasets/{results.dataset}", text(results.dataset))
    parts = [
        '<h3 id="hub-results-title">On the Hugging Face Hub: results not verified here</h3>',
        f"<p>{INTRO.format(dataset=dataset)}</p>",
    ]
    if results.rows:
        parts.append(_rows(results, site))
    if results.error is not None:
        shown = "the results read before are shown" if results.rows else "none is shown"
        parts.append(
            '<p class="hub-results-error">The Hub did not answer just now, so '
            f"{shown}; the verified board above is not affected. Refresh asks again.</p>"
        )
    elif results.last_success is None:
        parts.append("<p>The Hub's results are being read; Refresh shows them.</p>")
    elif not results.rows:
        parts.append(f"<p>No model repository reports a result for {dataset} yet.</p>")
    return (
        '<section class="hub-results" aria-labelledby="hub-results-title">'
        f"{''.join(parts)}</section>"
    )


def _section(tab: BoardTab, track_id: str | None, floor_s: float | None) -> Any:
    source = picked(tab, track_id).hub_results
    if source is None:  # a track that does not show them
        return gr.update(visible=False, value="")
    return gr.update(visible=True, value=hub_results_html(source.results(floor_s), source.site))


def hub_section(tab: BoardTab, track_id: str | None) -> Any:
    """The Hub's results of a track that shows them (read at most once per TTL); hidden on a
    track that does not."""
    return _section(tab, track_id, None)


def hub_section_reread(tab: BoardTab, track_id: str | None) -> Any:
    """Refresh: the Hub's results read again, once every few seconds at most."""
    return _section(tab, track_id, REREAD_FLOOR_S)
