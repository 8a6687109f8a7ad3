"""Issue 22 (hostile visitors), findings 4 and 6, against ``python app.py`` over HTTP.

4: a scored call is no oracle finer than a split: the two-episode decision probe (times 0 and
1,000, whose MAE minus signed error is one episode's reviewed time) gets its timing withheld,
and every value /score returns is at the precision the board shows.
6: a misconfiguration tells visitors what is unavailable, never where: a key path that
disagrees with its spec and an ``HF_ENDPOINT`` holding ``user:secretpw@`` reach neither
``GET /config``, the page, the page's own events nor ``/score``'s answer; the log has them
(the endpoint without its credentials).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

import spec
from tests.support.app_server import AppServer, free_port
from tests.support.gradio_http import GradioHTTP, file_data
from tests.support.hub_server import READ_TOKEN

ARGUS = spec.load_benchmark("egoargus")
DECISION = ARGUS.track("decision")
DECISION_KEY_ROWS = [
    json.loads(line) for line in ARGUS.demo_key(DECISION).read_text().splitlines() if line.strip()
]
DECISION_SAMPLE = (ARGUS.demo_dir / "decision_sample_submission.json").read_bytes()
EGOMEM = spec.load_benchmark("egomemreason")
MEMORY = EGOMEM.track()
MEMORY_SAMPLE = (EGOMEM.demo_dir / "sample_submission.json").read_bytes()
SECRET = "secretpw"


def _probe() -> tuple[bytes, list[float]]:
    """Assist on two episodes that need it, at 0 s and at 1,000 s (past every reviewed time);
    their reviewed times."""
    first, second = [r for r in DECISION_KEY_ROWS if r["intervention_time_s"] is not None][:2]
    times = {first["example_id"]: 0.0, second["example_id"]: 1000.0}
    entries = [
        {
            "example_id": r["example_id"],
            "assist": r["example_id"] in times,
            "intervention_time_s": times.get(r["example_id"]),
        }
        for r in DECISION_KEY_ROWS
    ]
    reviewed = [first["intervention_time_s"], second["intervention_time_s"]]
    return json.dumps(entries).encode(), reviewed


def _scored(http: GradioHTTP, data: bytes, *track: str) -> dict[str, Any]:
    outcome = http.call("score", [file_data(http.upload("s.json", data)), *track])
    assert outcome.kind == "complete", outcome.message
    numbers: dict[str, Any] = outcome.data[0]
    return numbers


def _more_decimals_than_shown(track: spec.Track, numbers: dict[str, Any]) -> list[str]:
    off = [
        f"{k}={v!r}"
        for k, v in numbers["metrics"].items()
        if v != track.rounded(track.display[k], v)
    ]
    for k, bounds in numbers["intervals"].items():
        off += [f"{k} interval {b!r}" for b in bounds if b != track.rounded(track.display[k], b)]
    return off


@pytest.mark.server
def test_the_two_episode_probe_gets_no_reviewed_time_and_values_come_at_board_precision() -> None:
    data, reviewed = _probe()
    with AppServer(env={"LEADERBOARD_BENCHMARK": "egoargus"}) as app, GradioHTTP(app.url) as http:
        probe = _scored(http, data, "decision")
        sample = _scored(http, DECISION_SAMPLE, "decision")
    metrics = probe["metrics"]
    assert "timing_mae_s" not in metrics and "timing_signed_s" not in metrics, metrics
    assert probe["withheld"]["timing_mae_s"].startswith("withheld: computed over 2 ")
    # Nothing left to subtract: no two values of the answer give a reviewed time back.
    values = list(metrics.values())
    for time_s in reviewed:
        assert not any(abs(a - b - time_s) < 0.5 for a in values for b in values), metrics
    assert _more_decimals_than_shown(DECISION, sample) == []
    assert sample["withheld"] == {} and set(sample["metrics"]) >= {"timing_mae_s", "decision_f1"}


def _visible_texts(app: AppServer, http: GradioHTTP) -> dict[str, str]:
    """What a visitor can read of a misconfigured app: /config, the page, the Score tab's note
    of what is unavailable and the board's status line (both load events), and /score's and
    the page's own scoring's refusal."""
    texts = {
        "/config": httpx.get(app.url + "/config", timeout=10).text,
        "page": httpx.get(app.url + "/", timeout=10).text,
        "score note": json.dumps(http.page_output(http.page_event("score-disabled"))),
        "board status": json.dumps(http.page_output(http.page_event("board-status"))),
    }
    outcome = http.call("score", [file_data(http.upload("s.json", MEMORY_SAMPLE))])
    assert outcome.kind == "error"
    texts["/score"] = outcome.message
    return texts


@pytest.mark.server
def test_a_key_that_disagrees_with_its_spec_shows_no_path(tmp_path: Path) -> None:
    folder = tmp_path / "maintainer-only-folder"
    folder.mkdir()
    rows = json.loads(EGOMEM.demo_key(MEMORY).read_bytes())["samples"][:-1]  # one row short
    key = folder / MEMORY.key.name
    key.write_text(json.dumps(rows))
    env = {"LEADERBOARD_ANSWER_KEY": str(key), "LEADERBOARD_RECORDS_DIR": str(EGOMEM.demo_board)}
    with AppServer(env=env) as app, GradioHTTP(app.url) as http:
        texts = _visible_texts(app, http)
        log = app.log()
    for where, text in texts.items():
        assert "maintainer-only-folder" not in text and "benchmark.toml" not in text, where
    assert "Scoring is unavailable" in texts["/score"]
    assert "Scoring is unavailable" in texts["score note"]
    assert "disagrees with the benchmark" in texts["/score"]
    assert str(key) in log and "Activity Pattern has 49 (expected 50)" in log


@pytest.mark.server
def test_an_endpoint_with_credentials_is_shown_to_no_visitor_nor_the_log() -> None:
    port = free_port()  # nothing listens there: the Hub gives no answer
    endpoint = f"http://user:{SECRET}@127.0.0.1:{port}"
    env = {"HF_TOKEN": READ_TOKEN, "HF_ENDPOINT": endpoint}
    with AppServer(env=env) as app, GradioHTTP(app.url) as http:
        texts = _visible_texts(app, http)
        log = app.log()
    for where, text in texts.items():
        for secret in (SECRET, "user:", f"127.0.0.1:{port}", READ_TOKEN):
            assert secret not in text, (where, secret)
    assert "Scoring is unavailable" in texts["/score"]
    assert "could not be" in texts["board status"]
    assert SECRET not in log and READ_TOKEN not in log
    assert f"127.0.0.1:{port}" in log  # the maintainer reads where it failed
