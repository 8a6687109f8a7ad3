"""Predictions as their authors publish them, under any name, through the real server (issues 21
and 28).

A benchmark's own evaluation often writes JSON Lines named ``.jsonl``, or JSON named ``.txt``
or nothing at all. ``/score`` reads a file by its bytes, whatever its name: through
gradio_client and through the README's curl example, such a file scores what the same entries
named ``.json`` score. A file that is neither JSON nor JSON Lines (a table) is refused in the
evaluator's own words, which gradio_client shows (``AppError``) and which say what a
submission is, before the score limit counts it. (Until issue 28, every name but ``.json`` was
refused, "Upload a .json file".) The upload route takes any name, within the same size,
per-client and age bounds as a submission.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from gradio_client import Client, handle_file
from gradio_client.exceptions import AppError

import evaluator
import spec
from tests.support.app_server import AppServer
from tests.test_docs import API, EXAMPLE_FILE, EXAMPLE_URL, _blocks

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track()
KEY = evaluator.load_answer_key(TRACK, BENCH.demo_key(TRACK).read_bytes())
SAMPLE = BENCH.demo_dir / "sample_submission.json"
AGE_S = 2.0  # uploads are deleted this long after (the cleanup runs every AGE_S / 4)
SCORES = 3  # the scores of the day: the files that score below, and no refusal


def _json_lines(path: Path) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in json.loads(path.read_bytes()))


@pytest.fixture(scope="module")
def server() -> Iterator[AppServer]:
    # A refused file must not spend a score: a limit of exactly the files that score.
    env = {"LEADERBOARD_SCORE_LIMIT": str(SCORES), "LEADERBOARD_UPLOAD_MAX_AGE_S": str(AGE_S)}
    with AppServer(env=env) as running:
        yield running


@pytest.mark.server
def test_predictions_of_any_name_score_through_gradio_client(
    server: AppServer, tmp_path: Path
) -> None:
    client = Client(server.url, verbose=False)
    shown = evaluator.disclosed(TRACK, evaluator.score(KEY, SAMPLE.read_bytes()))
    expected = shown.model_dump(mode="json")
    table = tmp_path / "answers.csv"
    table.write_text("example_id,predicted_answer\n1,A\n", encoding="utf-8")
    with pytest.raises(AppError) as refused:
        client.predict(handle_file(str(table)), api_name="/score")
    assert str(refused.value).startswith(
        "This submission cannot be scored: the file is not valid JSON"
    ), refused.value
    assert "JSON Lines" in str(refused.value)  # what a submission may be
    for name, data in (
        ("run.jsonl", _json_lines(SAMPLE)),
        ("predictions.txt", SAMPLE.read_bytes()),
    ):
        path = tmp_path / name
        path.write_bytes(data)
        numbers = client.predict(handle_file(str(path)), api_name="/score")
        assert {k: v for k, v in numbers.items() if k != "submission_sha256"} == {
            k: v for k, v in expected.items() if k != "submission_sha256"
        }, name
    # Nothing is kept longer than a submission is: every upload is deleted after AGE_S.
    deadline = time.monotonic() + 20 * AGE_S
    stored = [p for p in server.temp_dir.rglob("*") if p.suffix in (".csv", ".txt", ".jsonl")]
    while stored and time.monotonic() < deadline:
        time.sleep(AGE_S / 4)
        stored = [p for p in stored if p.exists()]
    assert stored == []


@pytest.mark.server
def test_json_lines_score_through_the_readme_curl_example(
    server: AppServer, tmp_path: Path
) -> None:
    """The README's curl steps, as written, with ``FILE=`` a ``.jsonl`` file."""
    assert shutil.which("curl"), "the README's curl example needs curl (`make test` installs it)"
    [snippet] = _blocks(API, "bash")
    lines = tmp_path / "predictions.jsonl"
    lines.write_bytes(_json_lines(SAMPLE))
    script = snippet.replace(f"URL={EXAMPLE_URL}", f"URL={server.url.rstrip('/')}").replace(
        f"FILE={EXAMPLE_FILE}", f"FILE={lines}"
    )
    done = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert "event: complete" in out, done.stdout[:500]
    [numbers] = json.loads(out[out.index("event: complete") + 1].removeprefix("data: "))
    shown = evaluator.disclosed(TRACK, evaluator.score(KEY, lines.read_bytes()))
    assert numbers == shown.model_dump(mode="json")
    assert numbers["counts"]["overall"] == {"correct": 223, "total": 500}


@pytest.mark.server
def test_a_page_uploaded_is_served_back_as_a_download_never_as_a_page(server: AppServer) -> None:
    """The upload route takes any type: what it stores may be fetched back (Gradio serves the
    upload folder), but as an attachment, never as HTML or SVG that would run in the Space's
    origin, and with nosniff."""
    with httpx.Client(base_url=server.url, timeout=30) as http:
        for name, data in (("page.html", b"<script>alert(1)</script>"), ("a.svg", b"<svg/>")):
            stored = http.post("/gradio_api/upload", files={"files": (name, data)})
            assert stored.status_code == 200, stored.text
            served = http.get(f"/gradio_api/file={stored.json()[0]}")
            assert served.status_code == 200 and served.content == data
            assert served.headers["content-type"] == "application/octet-stream", name
            assert served.headers["content-disposition"].startswith("attachment"), name
            # and the browser may not guess otherwise (issue 30, finding 8: no nosniff before)
            assert served.headers["x-content-type-options"] == "nosniff", name
