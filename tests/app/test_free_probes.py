"""Issue 30, finding 1: no refusal is a free oracle on the key, against ``python app.py`` over
HTTP.

The decision track refuses a file whose times look like milliseconds, judged against the
episodes' reviewed times. The check ran on as few as one episode and a refusal gave the score
slot back, so a file timing one episode was refused or scored as its reviewed time was under or
over a hundredth of the time given: a binary search read each reviewed time to 2 ms, the
refused probes costing nothing. Now a check that reads the key is made over at least the
track's ``min_rows`` episodes or not at all (the two probes below get the same answer), and a
refusal by it counts against the score limit like a score.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import spec
from spec.decision import ASSIST, TIME
from tests.support.app_server import AppServer
from tests.support.gradio_http import GradioHTTP, Outcome, file_data

ARGUS = spec.load_benchmark("egoargus")
DECISION = ARGUS.track("decision")
KEY_ROWS = [
    json.loads(line) for line in ARGUS.demo_key(DECISION).read_text().splitlines() if line.strip()
]
LIMIT = 3


def _timing(times: dict[str, float], pad: int = 0) -> bytes:
    """A decision file that assists on nothing and gives ``times`` (by id); ``pad`` spaces make
    its bytes (its sha256) new without changing what it says."""
    entries = [
        {"example_id": r["example_id"], ASSIST: False, TIME: times.get(r["example_id"])}
        for r in KEY_ROWS
    ]
    return json.dumps(entries).encode() + b" " * pad


def _call(http: GradioHTTP, data: bytes) -> Outcome:
    return http.call("score", [file_data(http.upload("probe.json", data)), "decision"])


def _answer(outcome: Outcome) -> Any:
    """What a visitor learns from an answer, the file's own sha256 aside."""
    if outcome.kind != "complete":
        return ("refused", outcome.message)
    numbers = dict(outcome.data[0])
    numbers.pop("submission_sha256")
    return numbers


@pytest.fixture(scope="module")
def app() -> Any:
    env = {"LEADERBOARD_BENCHMARK": "egoargus", "LEADERBOARD_SCORE_LIMIT": str(LIMIT)}
    with AppServer(env=env) as running:
        yield running


@pytest.mark.server
def test_one_timed_episode_gets_the_same_answer_whatever_its_reviewed_time(
    app: AppServer,
) -> None:
    """The probe of the issue: one episode timed at 1,000 times its reviewed time (refused as
    milliseconds before), and at its reviewed time itself; both are scored, the same."""
    episode = next(r for r in KEY_ROWS if (r[TIME] or 0) >= 10)
    ident, reviewed = episode["example_id"], episode[TIME]
    with GradioHTTP(app.url, local_address="127.0.0.11") as http:
        over = _call(http, _timing({ident: reviewed * 1000}))
        under = _call(http, _timing({ident: reviewed}))
    assert over.kind == "complete", over.message  # before: "look like milliseconds"
    assert _answer(over) == _answer(under)


@pytest.mark.server
def test_a_refusal_that_reads_the_key_counts_against_the_score_limit(app: AppServer) -> None:
    """Every episode timed in milliseconds: refused (over all of them, past min_rows), and
    each such refusal takes a score slot, so the limit holds them as it holds scores. A file
    refused for its own shape, which the key does not decide, still costs nothing."""
    timed = {r["example_id"]: r[TIME] * 1000 for r in KEY_ROWS if r[TIME]}
    assert len(timed) >= DECISION.min_rows
    with GradioHTTP(app.url, local_address="127.0.0.12") as http:
        shape = [_call(http, b'[{"example_id": 1}]' + b" " * i) for i in range(LIMIT + 1)]
        answers = [_call(http, _timing(timed, pad=i)) for i in range(LIMIT + 1)]
    assert all("cannot be scored" in o.message for o in shape), shape
    assert all(o.kind == "error" for o in answers), answers
    assert all("look like milliseconds" in o.message for o in answers[:LIMIT]), answers
    # before: refused again and again, never counted
    assert "Scoring is limited to 3 files" in answers[LIMIT].message, answers[LIMIT].message
    assert "counts against your score limit" in answers[0].message
