"""app.py as a real server (``python app.py``), through gradio_client and plain HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

# gradio_client asks the Hub only about Space ids; given a URL it talks to that server alone.
from gradio_client import Client, handle_file
from gradio_client.exceptions import AppError

import evaluator
import spec
from tests.support import ROOT
from tests.support.app_server import AppServer, free_port
from tests.support.hub_server import READ_TOKEN, HubServer

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track()
KEY_PATH = BENCH.demo_key(TRACK)
KEY_REL = KEY_PATH.relative_to(ROOT).as_posix()  # benchmarks/egomemreason/demo/...
KEY = evaluator.load_answer_key(TRACK, KEY_PATH.read_bytes())
SAMPLE = BENCH.demo_dir / "sample_submission.json"


@pytest.fixture(scope="module")
def server() -> Iterator[AppServer]:
    with AppServer(env={"LEADERBOARD_SCORE_LIMIT": "1000"}) as running:
        yield running


@pytest.fixture(scope="module")
def client(server: AppServer) -> Client:
    return Client(server.url, verbose=False)


def _queue_call(
    base: str, api_name: str, data: list[Any], headers: dict[str, str] | None = None
) -> tuple[str, str]:
    """Gradio's two-step HTTP API: POST the call, then read its event stream."""
    with httpx.Client(base_url=base, timeout=30, headers=headers or {}) as http:
        event = http.post(f"/gradio_api/call/{api_name}", json={"data": data})
        event.raise_for_status()
        stream = http.get(f"/gradio_api/call/{api_name}/{event.json()['event_id']}").text
    kind = "complete" if "event: complete" in stream else "error"
    return kind, stream


@pytest.mark.server
def test_score_through_gradio_client_gives_numbers(client: Client) -> None:
    numbers = client.predict(handle_file(str(SAMPLE)), api_name="/score")
    expected = evaluator.disclosed(TRACK, evaluator.score(KEY, SAMPLE.read_bytes()))
    assert isinstance(numbers, dict)  # the JSON object itself, not a tuple of page parts
    assert evaluator.ScoreResult.model_validate(numbers) == expected
    assert numbers["counts"]["overall"] == {"correct": 223, "total": 500}


@pytest.mark.server
def test_gradio_client_refuses_a_file_over_5_mb_itself(client: Client, tmp_path: Path) -> None:
    """Before any upload, in gradio_client's own words: it names the limit in bytes (and an
    empty component name: gradio_client 2.7 reads a label Gradio 6 keeps elsewhere)."""
    big = tmp_path / "big.json"
    big.write_bytes(b"[" + b" " * (6 * 1024 * 1024) + b"]")
    with pytest.raises(ValueError, match="exceeds the maximum file size of 5242880 bytes"):
        client.predict(handle_file(str(big)), api_name="/score")


@pytest.mark.server
def test_bad_file_through_gradio_client_raises_the_evaluators_message(
    client: Client, tmp_path: Path
) -> None:
    bad = tmp_path / "results.json"
    bad.write_text(json.dumps({"results": [{"example_id": 1, "pred": "A"}]}))
    with pytest.raises(AppError, match='rename "pred" to "predicted_answer"'):
        client.predict(handle_file(str(bad)), api_name="/score")


@pytest.mark.server
def test_leaderboard_endpoint_returns_the_demo_board(client: Client) -> None:
    rows = client.predict(api_name="/leaderboard")
    names = {row["method_name"] for row in rows}
    assert {"Gemini-3-Flash", "AVP", "Random"} <= names
    # The entries best first, then the spec's reference policies (the paper's Random among
    # them), unranked.
    ranked = [row["overall"] for row in rows if row["reference"] is None]
    assert ranked == sorted(ranked, reverse=True)
    references = [row for row in rows if row["reference"] is not None]
    assert "Random" in {r["method_name"] for r in references}
    assert rows == [r for r in rows if r["reference"] is None] + references
    assert all(r["rank"] is None and r["ranked_by"] is None for r in references)
    assert all(set(TRACK.metric_keys) <= set(row) for row in rows)


@pytest.mark.server
@pytest.mark.parametrize(
    "path",
    [
        str(KEY_PATH),
        KEY_REL,
        f"../main/{KEY_REL}",
        "/tmp/../" + str(KEY_PATH).lstrip("/"),
    ],
)
def test_score_cannot_be_pointed_at_a_server_file(server: AppServer, path: str) -> None:
    kind, stream = _queue_call(
        server.url, "score", [{"path": path, "meta": {"_type": "gradio.FileData"}}]
    )
    assert kind == "error"
    assert "correct_answer" not in stream and "samples" not in stream


@pytest.mark.server
@pytest.mark.parametrize(
    "route",
    [
        "/gradio_api/file={key}",
        f"/gradio_api/file={KEY_REL}",
        "/gradio_api/file=..%2F..%2F{rel}",
        "/gradio_api/file=%2F{rel}",
        "/file={key}",
    ],
)
def test_real_server_file_routes_refuse_the_key(server: AppServer, route: str) -> None:
    url = server.url + route.format(key=KEY_PATH, rel=str(KEY_PATH).lstrip("/"))
    response = httpx.get(url, timeout=10)
    assert response.status_code in (403, 404, 405)
    assert b"correct_answer" not in response.content


@pytest.mark.server
def test_nothing_about_a_submission_reaches_the_log(server: AppServer, client: Client) -> None:
    client.predict(handle_file(str(SAMPLE)), api_name="/score")
    log = server.log()
    assert "scored one submission" in log
    digest = evaluator.score(KEY, SAMPLE.read_bytes()).submission_sha256
    assert digest not in log and "predicted_answer" not in log and "sample_submission" not in log


@pytest.mark.server
def test_forged_forwarded_for_does_not_escape_the_limit_on_a_real_server(tmp_path: Path) -> None:
    with AppServer(env={"LEADERBOARD_SCORE_LIMIT": "2"}) as limited:
        with httpx.Client(base_url=limited.url, timeout=30) as http:
            uploaded = http.post(
                "/gradio_api/upload", files={"files": ("s.json", SAMPLE.read_bytes())}
            ).json()[0]
        data = [{"path": uploaded, "meta": {"_type": "gradio.FileData"}}]
        outcomes = [
            _queue_call(limited.url, "score", data, headers={"X-Forwarded-For": f"198.51.100.{i}"})
            for i in range(3)
        ]
        assert [kind for kind, _ in outcomes] == ["complete", "complete", "error"]
        assert "limited to 2 files per day" in outcomes[2][1]


@pytest.mark.server
def test_unreachable_hub_at_boot_starts_with_score_disabled_and_no_token_shown() -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    env = {
        "HF_TOKEN": READ_TOKEN,
        "HF_ENDPOINT": closed,
        "LEADERBOARD_RECORDS_DIR": str(BENCH.demo_board),
    }
    with AppServer(env=env) as offline:
        page = httpx.get(offline.url + "/config", timeout=10).text
        assert "Scoring is unavailable" in page
        kind, stream = _queue_call(offline.url, "score", [None])
        assert kind == "error" and "Scoring is unavailable" in stream
        assert READ_TOKEN not in page + stream + offline.log()


@pytest.mark.server
def test_real_key_from_the_loopback_hub_is_served(tmp_path: Path) -> None:
    with HubServer() as hub:
        hub.create_repo(BENCH.hub.private_repo, repo_type="dataset", private=True)
        hub.commit(
            BENCH.hub.private_repo, {TRACK.key.name: KEY_PATH.read_bytes()}, repo_type="dataset"
        )
        env = {
            "HF_TOKEN": READ_TOKEN,
            "HF_ENDPOINT": hub.url,
            "LEADERBOARD_RECORDS_DIR": str(BENCH.demo_board),
        }
        with AppServer(env=env) as real:
            config = httpx.get(real.url + "/config", timeout=10).json()
            banner = next(
                c
                for c in config["components"]
                if c.get("props", {}).get("elem_id") == "demo-banner"
            )
            assert banner["props"]["visible"] is False
            numbers = Client(real.url, verbose=False).predict(
                handle_file(str(SAMPLE)), api_name="/score"
            )
            assert numbers["counts"]["overall"]["correct"] == 223
            assert READ_TOKEN not in real.log()


@pytest.mark.server
@pytest.mark.parametrize(
    ("env", "expected"),
    [
        (
            {"EGOMEM_ANSWER_KEY": "annotations_private.json"},
            "EGOMEM_ANSWER_KEY is now LEADERBOARD_ANSWER_KEY",
        ),
        (
            {"LEADERBOARD_ANSWER_KEY": "/nonexistent/annotations_private.json"},
            "LEADERBOARD_ANSWER_KEY must be the path of the answer key file, or of a folder "
            "holding it; found '/nonexistent/annotations_private.json' (nothing is there;",
        ),
        (
            {"LEADERBOARD_BENCHMARK": "nosuchbench"},
            "LEADERBOARD_BENCHMARK must be a benchmark's id or folder; found 'nosuchbench' (no "
            "benchmark 'nosuchbench'",
        ),
    ],
    ids=["old-variable", "wrong-key-path", "unknown-benchmark"],
)
def test_a_bad_configuration_stops_the_boot_with_one_line(
    env: dict[str, str], expected: str
) -> None:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LEADERBOARD_", "EGOMEM_", "HF_TOKEN", "SPACE_"))
    }
    done = subprocess.run(
        [sys.executable, "app.py"],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], lines
    assert "Traceback" not in done.stderr


# --- a benchmark of two tracks: EgoArgus --------------------------------------------------------

ARGUS = spec.load_benchmark("egoargus")
DECISION = ARGUS.track("decision")
DECISION_SAMPLE = ARGUS.demo_dir / "decision_sample_submission.json"
UNDERSTANDING_SAMPLE = ARGUS.demo_dir / "sample_submission.json"


@pytest.fixture(scope="module")
def argus() -> Iterator[AppServer]:
    with AppServer(
        env={"LEADERBOARD_BENCHMARK": "egoargus", "LEADERBOARD_SCORE_LIMIT": "1000"}
    ) as running:
        yield running


@pytest.mark.server
def test_both_tracks_score_through_gradio_client_the_file_telling_its_track(
    argus: AppServer,
) -> None:
    client = Client(argus.url, verbose=False)
    key = evaluator.load_answer_key(DECISION, ARGUS.demo_key(DECISION).read_bytes())
    expected = evaluator.disclosed(DECISION, evaluator.score(key, DECISION_SAMPLE.read_bytes()))
    numbers = client.predict(handle_file(str(DECISION_SAMPLE)), api_name="/score")
    assert numbers["track"] == "decision" and numbers["metrics"] == expected.metrics
    assert numbers == {"track": "decision", **expected.model_dump(mode="json")}
    numbers = client.predict(
        handle_file(str(UNDERSTANDING_SAMPLE)), "understanding", api_name="/score"
    )
    assert numbers["track"] == "understanding" and "overall" in numbers["metrics"]
    with pytest.raises(AppError, match="This file is for the Understanding track"):
        client.predict(handle_file(str(UNDERSTANDING_SAMPLE)), "decision", api_name="/score")
    rows = client.predict(api_name="/leaderboard_decision")
    assert {r["source"] for r in rows} == {"rescored", "paper"}
    assert [r["method_name"] for r in client.predict(api_name="/leaderboard")] == [
        r["method_name"] for r in client.predict(api_name="/leaderboard_understanding")
    ]


@pytest.mark.server
def test_plain_http_scores_with_the_track_null_for_detect(argus: AppServer) -> None:
    with httpx.Client(base_url=argus.url, timeout=30) as http:
        uploaded = http.post(
            "/gradio_api/upload", files={"files": ("d.json", DECISION_SAMPLE.read_bytes())}
        ).json()[0]
    kind, stream = _queue_call(
        argus.url, "score", [{"path": uploaded, "meta": {"_type": "gradio.FileData"}}, None]
    )
    assert kind == "complete" and '"track": "decision"' in stream


@pytest.mark.server
def test_a_folder_without_one_track_s_key_boots_with_that_track_s_score_off(tmp_path: Path) -> None:
    understanding = ARGUS.track()
    (tmp_path / understanding.key.name).write_bytes(ARGUS.demo_key(understanding).read_bytes())
    env = {"LEADERBOARD_BENCHMARK": "egoargus", "LEADERBOARD_ANSWER_KEY": str(tmp_path)}
    with AppServer(env=env) as half:
        page = httpx.get(half.url + "/config", timeout=10).text
        assert "Scoring is unavailable for Decision" in page
        assert "Scoring is unavailable for Understanding" not in page
        client = Client(half.url, verbose=False)
        with pytest.raises(AppError, match="Scoring for Decision is unavailable"):
            client.predict(handle_file(str(DECISION_SAMPLE)), api_name="/score")
        assert (
            client.predict(handle_file(str(UNDERSTANDING_SAMPLE)), api_name="/score")["track"]
            == "understanding"
        )
        assert "Score of Decision is disabled" in half.log()
