"""The README's API examples on a benchmark of several tracks (issue 21): the curl example, as
written (no track), scores an EgoArgus decision file, as "the track is optional over every
client" says. Before, the call answered ``event: error`` / ``data: {"error": null}`` (Gradio's
``blocks.validate_inputs`` wants every input over raw HTTP; gradio_client fills them itself).

The examples are tests/test_docs.py's (the README's own text), run here on EgoArgus."""

from __future__ import annotations

import hashlib
import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

import spec
from tests.support.app_server import AppServer
from tests.test_docs import API, EXAMPLE_FILE, EXAMPLE_URL, _blocks

ARGUS = spec.load_benchmark("egoargus")


@pytest.mark.server
@pytest.mark.parametrize(
    ("sample", "track"),
    [("decision_sample_submission.json", "decision"), ("sample_submission.json", "understanding")],
)
def test_the_readme_curl_example_scores_either_track_without_naming_it(
    tmp_path: Path, sample: str, track: str
) -> None:
    assert shutil.which("curl"), "the README's curl example needs curl (`make test` installs it)"
    [snippet] = _blocks(API, "bash")
    file = tmp_path / sample
    shutil.copyfile(ARGUS.demo_dir / sample, file)
    with AppServer(env={"LEADERBOARD_BENCHMARK": "egoargus"}) as server:
        script = snippet.replace(f"URL={EXAMPLE_URL}", f"URL={server.url.rstrip('/')}").replace(
            f"FILE={EXAMPLE_FILE}", f"FILE={shlex.quote(str(file))}"
        )
        done = subprocess.run(
            ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
        log = server.log()
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "event: complete" in lines, (done.stdout[:500], log[-2000:])
    [numbers] = json.loads(lines[lines.index("event: complete") + 1].removeprefix("data: "))
    assert numbers["track"] == track
    assert numbers["submission_sha256"] == hashlib.sha256(file.read_bytes()).hexdigest()
    assert "validate_inputs" not in log
