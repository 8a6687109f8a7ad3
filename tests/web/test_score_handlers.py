"""The Score tab's handlers called directly, without mounting the page.

Each test builds a ``ScoreTab`` over the shipped demo keys and boards (EgoMemReason's one
track, EgoArgus's two), puts a file where Gradio keeps uploads (a folder of the test's own) and
calls a handler as Gradio would, with a real Starlette request. Expected numbers come from the
evaluator and the demo files, never from the handler under test.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import gradio as gr
import pytest
from gradio import utils as gradio_utils
from gradio.data_classes import FileData
from starlette.requests import Request

import evaluator
import guard
import ledger
import spec
from ledger.keys import KEY_UNAVAILABLE
from tests.support.demo_keys import demo_key
from web import score_handlers as handlers
from web import score_view
from web.served import Served
from web.wiring import bound

EGOMEM = spec.load_benchmark("egomemreason")
MEMORY = EGOMEM.track("memory")
ARGUS = spec.load_benchmark("egoargus")
UNDERSTANDING = ARGUS.track("understanding")
DECISION = ARGUS.track("decision")
MEMORY_SAMPLE = (EGOMEM.demo_dir / "sample_submission.json").read_bytes()
DECISION_SAMPLE = (ARGUS.demo_dir / "decision_sample_submission.json").read_bytes()
UNDERSTANDING_SAMPLE = (ARGUS.demo_dir / "sample_submission.json").read_bytes()
VISITOR = "203.0.113.9"
HIDDEN = gr.update(value="", visible=False)


def _key(bench: spec.Benchmark, track: spec.Track) -> evaluator.AnyKey:
    return demo_key(bench, track)


def _served(bench: spec.Benchmark, track: spec.Track, error: str | None = None) -> Served:
    """A track with its demo key (none, and ``error`` as the reason, when ``error`` is given)."""
    status = (
        ledger.KeyStatus(_key(bench, track), "demo", True, None)
        if error is None
        else ledger.KeyStatus(None, "LEADERBOARD_ANSWER_KEY", False, error)
    )
    board = ledger.BoardCache(ledger.LocalStore(bench.demo_board), bench, track)
    return Served(track, lambda: status, board)


class Uploads:
    """Gradio's upload folder for a test: files put there as the page's upload would."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir()

    def file(self, data: bytes, name: str = "submission.json") -> Any:
        """``data`` uploaded, as Gradio's FileData of it (the JSON object a handler gets)."""
        path = self.folder / f"{len(list(self.folder.iterdir()))}-{name}"
        path.write_bytes(data)
        return {"path": str(path), "meta": {"_type": "gradio.FileData"}}


@pytest.fixture
def uploads(tmp_path: Path) -> Uploads:
    return Uploads(tmp_path / "gradio-uploads")


def _tab(
    uploads: Uploads,
    bench: spec.Benchmark,
    served: list[Served],
    limits: guard.ScoreLimits | None = None,
) -> handlers.ScoreTab:
    limiter = guard.ScoreLimiter(limits or guard.ScoreLimits(limit=3, window_s=3600))
    log = logging.getLogger(f"{bench.id}.app")
    return handlers.ScoreTab(bench, tuple(served), limiter, log, lambda: str(uploads.folder))


@pytest.fixture
def egomem(uploads: Uploads) -> handlers.ScoreTab:
    return _tab(uploads, EGOMEM, [_served(EGOMEM, MEMORY)])


@pytest.fixture
def argus(uploads: Uploads) -> handlers.ScoreTab:
    return _tab(uploads, ARGUS, [_served(ARGUS, UNDERSTANDING), _served(ARGUS, DECISION)])


def _request(client: str = VISITOR, headers: list[tuple[str, str]] | None = None) -> gr.Request:
    """A scoring request, as Gradio hands it to a handler (a real Starlette request)."""
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/gradio_api/run/score",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers or []],
        "query_string": b"",
        "client": (client, 50_000),
    }
    return gr.Request(Request(scope))


def _run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(coroutine)


def _refusal(call: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> str:
    with pytest.raises(gr.Error) as refused:
        _run(call(*args))
    return str(refused.value.message)


def _expected(bench: spec.Benchmark, track: spec.Track, data: bytes) -> dict[str, Any]:
    shown = evaluator.disclosed(track, evaluator.score(_key(bench, track), data))
    numbers: dict[str, Any] = shown.model_dump(mode="json")
    return numbers


# --- /score ------------------------------------------------------------------------------------


def test_score_returns_the_evaluator_s_numbers(egomem: handlers.ScoreTab, uploads: Uploads) -> None:
    numbers = _run(handlers.score(egomem, uploads.file(MEMORY_SAMPLE), _request()))
    assert numbers == _expected(EGOMEM, MEMORY, MEMORY_SAMPLE)
    assert "track" not in numbers  # one track: the numbers alone


@pytest.mark.parametrize("track", [None, "auto", "decision"])
def test_score_any_scores_the_file_as_its_track_and_names_it(
    argus: handlers.ScoreTab, uploads: Uploads, track: str | None
) -> None:
    numbers = _run(handlers.score_any(argus, uploads.file(DECISION_SAMPLE), _request(), track))
    assert numbers == {"track": "decision", **_expected(ARGUS, DECISION, DECISION_SAMPLE)}


def test_a_file_for_another_track_than_the_one_picked_is_told_which_it_fits(
    argus: handlers.ScoreTab, uploads: Uploads
) -> None:
    message = _refusal(
        handlers.score_any, argus, uploads.file(DECISION_SAMPLE), _request(), "understanding"
    )
    assert message.startswith("This file is for the Decision track (its entries are ")
    assert message.endswith(
        "not for the Understanding track. Score it as Decision: pick Decision as the track "
        'above the upload, or Detect from the file (through the API: track "decision" or '
        '"auto").'
    )


def test_a_file_of_no_track_s_shape_is_read_as_the_first_track_s_and_says_so(
    argus: handlers.ScoreTab, uploads: Uploads
) -> None:
    odd = json.dumps([{"example_id": "1", "colour": "blue"}]).encode()
    message = _refusal(handlers.score_any, argus, uploads.file(odd), _request(), "auto")
    assert message.endswith(
        "\n\nThe file's entries carry no track's fields, so it was read as a file for the "
        "Understanding track; for another track, pick it above the upload."
    )


@pytest.mark.parametrize("track", ["nope", 3, ["decision"]])
def test_a_track_the_page_does_not_offer_is_refused_before_any_work(
    argus: handlers.ScoreTab, track: object
) -> None:
    # No file at all: the track is checked first.
    message = _refusal(handlers.score_any, argus, None, _request(), track)
    assert message.startswith(f"Track: {track!r} is not one of 'auto', 'understanding', ")


@pytest.mark.parametrize(
    ("submission", "message"),
    [
        (None, "Choose a submission file to score."),
        ({"meta": {"_type": "gradio.FileData"}}, "Choose a submission file to score."),
        ("/etc/passwd", "Pass the file as gradio_client's handle_file(path) does"),
        (
            {"path": "/etc/passwd", "meta": {"_type": "gradio.FileData"}},
            "Upload the file through /gradio_api/upload first, then pass the path it returns.",
        ),
    ],
)
def test_what_is_not_an_upload_is_refused_and_costs_no_slot(
    uploads: Uploads, submission: object, message: str, caplog: pytest.LogCaptureFixture
) -> None:
    tab = _tab(uploads, EGOMEM, [_served(EGOMEM, MEMORY)], guard.ScoreLimits(limit=1))
    caplog.set_level(logging.WARNING, logger=tab.log.name)
    assert message in _refusal(handlers.score, tab, submission, _request())
    assert "refused a score input in its handler" in caplog.text
    # The one slot is still free.
    assert _run(handlers.score(tab, uploads.file(MEMORY_SAMPLE), _request())) == _expected(
        EGOMEM, MEMORY, MEMORY_SAMPLE
    )


def test_an_upload_of_any_name_is_read_by_its_bytes_and_one_too_big_is_refused(
    uploads: Uploads,
) -> None:
    """Predictions as their authors publish them (issue 28): JSON Lines named .jsonl, JSON
    named .txt or with no suffix all score; a table is refused in the evaluator's words, and
    gives its slot back; a file over 5 MB is refused whatever its name."""
    tab = _tab(uploads, EGOMEM, [_served(EGOMEM, MEMORY)], guard.ScoreLimits(limit=3))
    lines = b"".join(json.dumps(e).encode() + b"\n" for e in json.loads(MEMORY_SAMPLE))
    expected = _expected(EGOMEM, MEMORY, MEMORY_SAMPLE)
    table = uploads.file(b"example_id,predicted_answer\n1,A\n", name="answers.csv")
    assert _refusal(handlers.score, tab, table, _request()).startswith(
        "This submission cannot be scored: the file is not valid JSON"
    )
    for name, data in (("run.jsonl", lines), ("run.txt", MEMORY_SAMPLE), ("predictions", lines)):
        scored = _run(handlers.score(tab, uploads.file(data, name=name), _request()))
        assert scored["counts"] == expected["counts"], name
    big = uploads.file(b" " * (guard.MAX_UPLOAD_BYTES + 1), name="run.jsonl")
    assert "the limit is 5 MB" in _refusal(handlers.score, tab, big, _request())


def test_the_limit_holds_per_visitor_and_a_refused_file_gives_its_slot_back(
    uploads: Uploads,
) -> None:
    tab = _tab(uploads, EGOMEM, [_served(EGOMEM, MEMORY)], guard.ScoreLimits(limit=1))
    bad = uploads.file(b'[{"question_id": 1}]')
    refused = _refusal(handlers.score, tab, bad, _request())
    assert not refused.startswith("Scoring is limited")  # the evaluator's own message
    sample = uploads.file(MEMORY_SAMPLE)
    assert _run(handlers.score(tab, sample, _request()))["metrics"]
    limited = _refusal(handlers.score, tab, sample, _request())
    assert limited.startswith("Scoring is limited to 1 files per day per visitor")
    # Another visitor has a slot of their own.
    assert _run(handlers.score(tab, sample, _request("198.51.100.7")))["metrics"]


def test_on_a_space_the_first_scored_request_s_hops_are_logged_once(
    uploads: Uploads, caplog: pytest.LogCaptureFixture
) -> None:
    limits = guard.ScoreLimits(limit=5, on_space=True)
    tab = _tab(uploads, EGOMEM, [_served(EGOMEM, MEMORY)], limits)
    caplog.set_level(logging.INFO, logger=tab.log.name)
    forwarded = [("X-Forwarded-For", f"192.0.2.1, {VISITOR}")]
    for _ in range(2):
        _run(handlers.score(tab, uploads.file(MEMORY_SAMPLE), _request("10.0.0.2", forwarded)))
    told = [r.getMessage() for r in caplog.records if "first scored request" in r.getMessage()]
    assert told == [
        "the first scored request came with 1 X-Forwarded-For line with 2 entries (public, "
        "public), peer address: internal; the client is its rightmost public entry past 0 "
        "trusted hop(s)"
    ]
    assert VISITOR not in caplog.text  # kinds and counts, no address


# --- a key that is unavailable -----------------------------------------------------------------


def test_without_a_key_score_says_why_before_reading_the_file(uploads: Uploads) -> None:
    tab = _tab(uploads, EGOMEM, [_served(EGOMEM, MEMORY, error="no key configured")])
    message = _refusal(handlers.score, tab, None, _request())
    # What is unavailable, not the error itself (the log's: issue 22, finding 6).
    assert message == f"Scoring is unavailable: {KEY_UNAVAILABLE}"
    assert handlers.score_state(tab) == gr.update(
        value=f"### Scoring is unavailable\n{KEY_UNAVAILABLE}", visible=True
    )


def test_a_track_without_a_key_disables_score_for_that_track_only(uploads: Uploads) -> None:
    served = [_served(ARGUS, UNDERSTANDING), _served(ARGUS, DECISION, error="key not found")]
    tab = _tab(uploads, ARGUS, served)
    assert handlers.score_state(tab) == gr.update(
        value=f"### Scoring is unavailable for Decision\n{KEY_UNAVAILABLE}", visible=True
    )
    message = _refusal(handlers.score_any, tab, None, _request(), "decision")
    assert message == f"Scoring for Decision is unavailable: {KEY_UNAVAILABLE}"
    numbers = _run(
        handlers.score_any(tab, uploads.file(UNDERSTANDING_SAMPLE), _request(), "understanding")
    )
    assert numbers["track"] == "understanding"


def test_with_every_key_score_state_is_hidden(argus: handlers.ScoreTab) -> None:
    assert handlers.score_state(argus) == gr.update(value="", visible=False)
    assert handlers.unavailable(argus, {s.track.id: s.keys() for s in argus.served}) == ""


# --- the page's path ---------------------------------------------------------------------------


def test_the_page_keeps_the_score_server_side_and_renders_it(
    argus: handlers.ScoreTab, uploads: Uploads
) -> None:
    kept, numbers, error = _run(
        handlers.page_score(argus, uploads.file(DECISION_SAMPLE), _request(), "auto")
    )
    expected = _expected(ARGUS, DECISION, DECISION_SAMPLE)
    assert numbers == {"track": "decision", **expected} and error == HIDDEN
    result, track_id = kept
    assert track_id == "decision" and result.model_dump(mode="json") == expected
    summary, table, chart, sha256, rank, copy, listing = handlers.render(argus, kept)
    assert summary == score_view.score_summary(result, DECISION)
    assert table.visible and list(table.value["headers"]) == ["Metric", "Value", "Count", "95% CI"]
    assert table.column_widths == ["38%", "19%", "20%", "23%"]  # the decision kind's, a phone's
    # The Decision board's paper rows carry the paper's own columns, none of the chart's.
    assert handlers.best_paper(argus.tracks["decision"]) is None
    assert chart.visible and '"text": "Your accuracy per scenario"' in chart.value["plot"]
    assert sha256.value == expected["submission_sha256"] and sha256.visible
    # The decision sample is the demo board's DemoVLM-7B row: named, not ranked, no request.
    records = argus.tracks["decision"].board.snapshot().records
    row = score_view.same_answers_row(result, records)
    assert row is not None and row.method_name == "DemoVLM-7B (synthetic)"
    assert rank.value == score_view.listed_markdown(row, DECISION, True)
    assert copy.visible and not listing.visible


def test_a_file_not_on_the_board_is_ranked_and_offered_a_listing_request(
    argus: handlers.ScoreTab, uploads: Uploads
) -> None:
    entries = json.loads(DECISION_SAMPLE)
    entries[0] = {**entries[0], "assist": not entries[0]["assist"]}  # other answers
    data = json.dumps(entries).encode()
    kept, _, _ = _run(handlers.page_score(argus, uploads.file(data), _request(), "auto"))
    result, _ = kept
    *_, rank, copy, listing = handlers.render(argus, kept)
    records = argus.tracks["decision"].board.snapshot().records
    assert score_view.same_answers_row(result, records) is None
    assert rank.value == score_view.rank_markdown(
        score_view.would_rank(result, records, DECISION), DECISION, True
    )
    assert copy.visible and listing.visible
    assert listing.link == score_view.listing_mailto(ARGUS, DECISION, result, True)


def test_the_page_shows_a_refusal_under_the_upload_and_keeps_nothing(
    egomem: handlers.ScoreTab, uploads: Uploads
) -> None:
    with pytest.raises(evaluator.SubmissionError) as scored:
        evaluator.score(_key(EGOMEM, MEMORY), b"not json")
    kept, numbers, error = _run(handlers.page_score(egomem, uploads.file(b"not json"), _request()))
    assert (kept, numbers) == (None, None)
    assert error == gr.update(value=score_view.error_markdown(str(scored.value)), visible=True)
    assert handlers.render(egomem, kept) == handlers.cleared()


def test_a_cleared_file_clears_the_results(egomem: handlers.ScoreTab) -> None:
    assert _run(handlers.page_score(egomem, None, _request())) == (None, None, HIDDEN)
    hidden = gr.update(visible=False)
    assert handlers.cleared() == ("", hidden, hidden, HIDDEN, HIDDEN, hidden, hidden)
    assert handlers.reset_score() == (None, None, HIDDEN, *handlers.cleared())


def test_a_board_without_paper_rows_charts_the_score_alone(uploads: Uploads) -> None:
    empty = uploads.folder.parent / "empty-board"
    empty.mkdir()
    served = _served(EGOMEM, MEMORY)
    board = ledger.BoardCache(ledger.LocalStore(empty), EGOMEM, MEMORY)
    tab = _tab(uploads, EGOMEM, [Served(MEMORY, served.keys, board)])
    assert handlers.best_paper(tab.first) is None
    kept, *_ = _run(handlers.page_score(tab, uploads.file(MEMORY_SAMPLE), _request()))
    _, _, chart, *_ = handlers.render(tab, kept)
    assert "Your accuracy per split" in chart.value["plot"]
    assert "(paper)" not in chart.value["plot"]


def test_the_score_is_charted_against_the_best_paper_row(
    egomem: handlers.ScoreTab, uploads: Uploads
) -> None:
    papers = [r for r in egomem.first.board.snapshot().records if r.source == "paper"]
    best = handlers.best_paper(egomem.first)
    assert best is not None and best.source == "paper"
    assert best.metrics["overall"] == max(r.metrics["overall"] for r in papers)
    kept, *_ = _run(handlers.page_score(egomem, uploads.file(MEMORY_SAMPLE), _request()))
    _, _, chart, *_ = handlers.render(egomem, kept)
    plotted = json.loads(chart.value["plot"])
    assert plotted["title"]["text"] == "You vs. the best paper baseline"
    entries = {row["Entry"] for row in plotted["data"]["values"]}
    assert entries == {"Your submission", f"{best.method_name} (paper)"}


# --- the handlers as Gradio sees them ----------------------------------------------------------


def test_the_bound_score_endpoints_keep_their_signature_and_docstring(
    argus: handlers.ScoreTab,
) -> None:
    score = bound(handlers.score, argus)
    assert score.__name__ == "score" and score.__doc__ == handlers.score.__doc__
    assert gradio_utils.get_function_params(score) == [("submission", False, None, FileData)]
    score_any = bound(handlers.score_any, argus)
    assert gradio_utils.get_function_params(score_any) == [
        ("submission", False, None, FileData),
        ("track", True, "auto", str | None),
    ]
    hints = gradio_utils.get_type_hints(bound(handlers.page_score, argus))
    assert hints["request"] is gr.Request
    assert asyncio.iscoroutinefunction(score) and asyncio.iscoroutinefunction(score_any)


def test_gradio_reads_a_bound_handlers_annotations_without_evaluating_strings(
    argus: handlers.ScoreTab,
) -> None:
    """Gradio reads an event's handler's type hints on every call (helpers.special_args): left
    as the strings ``from __future__ import annotations`` makes, each was compiled and
    evaluated again each time (~0.08 ms of every /score call in the bench app)."""
    score_any = bound(handlers.score_any, argus)
    assert not any(isinstance(hint, str) for hint in score_any.__annotations__.values())
    assert gradio_utils.get_type_hints(score_any) == {
        "submission": FileData,
        "track": str | None,
        "request": gr.Request,
        "return": dict[str, Any],
    }


# --- the Score notes: answers already on the board, a file below chance (issue 19) -------------


def _page(tab: handlers.ScoreTab, uploads: Uploads, data: bytes) -> tuple[Any, ...]:
    kept, _, error = _run(handlers.page_score(tab, uploads.file(data), _request()))
    assert error == HIDDEN and kept is not None
    return tuple(handlers.render(tab, kept))


def test_the_same_answers_already_on_the_board_are_named_not_ranked(
    egomem: handlers.ScoreTab, uploads: Uploads
) -> None:
    """The demo sample is DemoVLM-7B's row: Score said it 'would rank 1st ... of 5 entries'
    when it was already one of the 4."""
    *_, rank, _copy, listing = _page(egomem, uploads, MEMORY_SAMPLE)
    assert "this is DemoVLM-7B \\(synthetic\\)'s row" in rank.value, rank.value
    assert "would rank" not in rank.value
    assert listing.visible is False  # nothing to request: it is listed


def test_a_copy_of_a_row_s_answers_in_other_bytes_is_found_by_its_answers(
    uploads: Uploads, tmp_path: Path
) -> None:
    key = _key(EGOMEM, MEMORY)
    result = evaluator.score(key, MEMORY_SAMPLE)
    row = ledger.rescored_record(
        result,
        EGOMEM,
        MEMORY,
        team_name="Lab",
        method_name="Reindented-VLM",
        model_size="7B",
        uses_external=False,
        uses_frames="frames-only",
    )
    board = tmp_path / "board"
    ledger.LocalStore(board).write(row, "test")
    status = ledger.KeyStatus(key, "demo", True, None)
    served = Served(
        MEMORY, lambda: status, ledger.BoardCache(ledger.LocalStore(board), EGOMEM, MEMORY)
    )
    tab = _tab(uploads, EGOMEM, [served])
    copy = json.dumps(json.loads(MEMORY_SAMPLE), indent=4).encode()
    assert copy != MEMORY_SAMPLE
    *_, rank, _copy, listing = _page(tab, uploads, copy)
    assert "this is Reindented-VLM's row" in rank.value and listing.visible is False


def test_a_file_below_chance_is_offered_no_listing_request(
    egomem: handlers.ScoreTab, uploads: Uploads
) -> None:
    key = _key(EGOMEM, MEMORY)
    assert isinstance(key, evaluator.AnswerKey)
    wrong = [
        {"example_id": i, "predicted_answer": min(item.letters - {item.correct or ""})}
        for i, item in key.items.items()
    ]
    summary, *_, rank, _copy, listing = _page(egomem, uploads, json.dumps(wrong).encode())
    assert "below chance" in summary
    assert listing.visible is False
    assert "below chance" in rank.value and "no listing request" in rank.value
