"""A script author who hands gradio_client a file of another type reads Score's words (issue 21).

gradio_client uploads a file before the call and raises on any answer of the upload route but
200 (``raise_for_status``): a bare ``httpx.HTTPStatusError: 400`` whose text it never shows. So
the upload route takes any file name, within the same size, per-client and age bounds as a
submission, and ``/score`` refuses the type in the words the Score tab gives a visitor
(``ledger.submission_file.wrong_type``), before the score limit counts it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from gradio_client import Client, handle_file
from gradio_client.exceptions import AppError

import spec
from evaluator.track_fit import entry_shape
from ledger import submission_file
from tests.support.app_server import AppServer

BENCH = spec.load_benchmark("egomemreason")
SAMPLE = BENCH.demo_dir / "sample_submission.json"
AGE_S = 2.0  # uploads are deleted this long after (the cleanup runs every AGE_S / 4)


@pytest.fixture(scope="module")
def server() -> Iterator[AppServer]:
    # One score a day: a refused type must not spend it.
    env = {"LEADERBOARD_SCORE_LIMIT": "1", "LEADERBOARD_UPLOAD_MAX_AGE_S": str(AGE_S)}
    with AppServer(env=env) as running:
        yield running


@pytest.mark.server
def test_a_csv_or_txt_through_gradio_client_reads_the_score_tabs_message(
    server: AppServer, tmp_path: Path
) -> None:
    client = Client(server.url, verbose=False)
    expected = submission_file.wrong_type(entry_shape(BENCH.track()))
    assert ".json" in expected  # the message names the accepted type
    for name in ("answers.csv", "answers.txt"):
        other = tmp_path / name
        other.write_text("question_id,predicted_answer\n1,A\n", encoding="utf-8")
        with pytest.raises(AppError) as refused:
            client.predict(handle_file(str(other)), api_name="/score")
        assert str(refused.value) == expected, name
    # Neither refusal spent the one score of the day.
    numbers = client.predict(handle_file(str(SAMPLE)), api_name="/score")
    assert numbers["counts"]["overall"] == {"correct": 223, "total": 500}
    # Nothing is kept longer than a submission is: every upload is deleted after AGE_S.
    deadline = time.monotonic() + 20 * AGE_S
    stored = [p for p in server.temp_dir.rglob("*") if p.suffix in (".csv", ".txt")]
    while stored and time.monotonic() < deadline:
        time.sleep(AGE_S / 4)
        stored = [p for p in stored if p.exists()]
    assert stored == []


@pytest.mark.server
def test_a_page_uploaded_is_served_back_as_a_download_never_as_a_page(server: AppServer) -> None:
    """The upload route takes any type now: what it stores of another type may be fetched
    back (Gradio serves the upload folder), but as an attachment, never as HTML or SVG that
    would run in the Space's origin."""
    with httpx.Client(base_url=server.url, timeout=30) as http:
        for name, data in (("page.html", b"<script>alert(1)</script>"), ("a.svg", b"<svg/>")):
            stored = http.post("/gradio_api/upload", files={"files": (name, data)})
            assert stored.status_code == 200, stored.text
            served = http.get(f"/gradio_api/file={stored.json()[0]}")
            assert served.status_code == 200 and served.content == data
            assert served.headers["content-type"] == "application/octet-stream", name
            assert served.headers["content-disposition"].startswith("attachment"), name
