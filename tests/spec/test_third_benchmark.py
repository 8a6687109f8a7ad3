"""A benchmark author adds a third benchmark by writing a folder, without touching Python.

The folder below uses what neither shipped benchmark does (JSON Lines key and public file,
other field names, five letters, a grouping called ``domain`` with a macro mean), and goes
through everything a new author would run: the spec loads, validate_benchmark.py passes, the
app serves and scores it, publish_submission.py and reproduce_row.py work on it.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import gradio as gr
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import app
import guard
import ledger
import spec
from tests.support.scripts import run_script

SPEC = """
id = "tinybench"
title = "TinyBench"
description = "Five questions in two domains, to show a benchmark is only a folder."
contact_email = "tiny@example.org"

[hub]
private_repo = "tiny/TinyBench-Private"
records_repo = "tiny/TinyBench-Leaderboard"

[input]
label = "Modality"
choices = { "text" = "Text only", "image" = "Image" }

[[tracks]]
id = "main"
title = "Main"
kind = "multiple_choice"
scorer_version = "tinybench-scorer 0.1"
# Five questions: a visitor is shown a split of a single answered question.
min_rows = 1
key = { name = "key.jsonl", format = "jsonl" }
public = { name = "questions.jsonl", format = "jsonl" }
options = { letters = "ABCDE", min = 2, max = 5 }

[tracks.fields]
id = "qid"
question = "prompt"
options = "choices"
answer = "gold"
prediction = "pred"
prediction_aliases = ["answer"]

[[tracks.groupings]]
id = "domain"
field = "domain"
title = "Domains"
groups = [
  { value = "math", key = "math", label = "Math", size = 3 },
  { value = "law", key = "law", label = "Law", size = 2 },
]

[[tracks.aggregates]]
key = "domain_mean"
label = "Mean"
of = ["domain"]
aggregation = "macro"

[[tracks.views]]
title = "Domains"
metrics = ["domain_mean", "math", "law"]
columns = ["rank_range", "source", "team"]
"""

KEY = [
    {
        "qid": 1,
        "prompt": "[SYNTHETIC] 1+1?",
        "choices": {"A": "2", "B": "3"},
        "gold": "A",
        "domain": "math",
    },
    {
        "qid": 2,
        "prompt": "[SYNTHETIC] 2+2?",
        "choices": {"A": "3", "B": "4", "C": "5"},
        "gold": "B",
        "domain": "math",
    },
    {
        "qid": 3,
        "prompt": "[SYNTHETIC] 3+3?",
        "choices": {"A": "5", "B": "7", "C": "6"},
        "gold": "C",
        "domain": "math",
    },
    {
        "qid": 4,
        "prompt": "[SYNTHETIC] A tort?",
        "choices": dict(zip("ABCD", "wxyz", strict=True)),
        "gold": "D",
        "domain": "law",
    },
    {
        "qid": 5,
        "prompt": "[SYNTHETIC] A lien?",
        "choices": dict(zip("ABCDE", "vwxyz", strict=True)),
        "gold": "E",
        "domain": "law",
    },
]
# right on 1, 3 and 5; wrong on 2; abstains on 4
SUBMISSION = [
    {"qid": 1, "pred": "A"},
    {"qid": 2, "pred": "a"},
    {"qid": 3, "pred": " c "},
    {"qid": 4, "pred": None},
    {"qid": 5, "pred": "E"},
]
EXPECTED = {
    "overall": 100 * 3 / 5,
    "domain_mean": (100 * 2 / 3 + 100 * 1 / 2) / 2,
    "math": 100 * 2 / 3,
    "law": 100 * 1 / 2,
}


def _jsonl(rows: list[dict[str, object]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "tinybench"
    (root / "demo").mkdir(parents=True)
    (root / "benchmark.toml").write_text(SPEC)
    (root / "about.md").write_text("## What TinyBench measures\n\nFive synthetic questions.\n")
    (root / "citation.bib").write_text("@misc{tiny, title = {TinyBench}}\n")
    (root / "demo" / "key.jsonl").write_text(_jsonl(KEY))
    public = [{k: v for k, v in r.items() if k != "gold"} for r in KEY]
    (root / "demo" / "questions.jsonl").write_text(_jsonl(public))
    (root / "demo" / "sample_submission.json").write_text(json.dumps(SUBMISSION))
    return root


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    """A script's ``main([...])`` in this process (``args[0]`` the script's path)."""
    return run_script(*args)


def test_the_folder_validates_as_a_release(folder: Path) -> None:
    bench = spec.load_benchmark(str(folder))
    assert bench.track().metric_keys == ("overall", "domain_mean", "math", "law")
    done = _run(
        "scripts/validate_benchmark.py",
        "--benchmark",
        str(folder),
        "--private",
        str(folder / "demo" / "key.jsonl"),
        "--public",
        str(folder / "demo" / "questions.jsonl"),
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture
def http(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.chdir(tmp_path)
    config = ledger.load_config({"LEADERBOARD_BENCHMARK": str(folder)})
    demo = app.build_from_config(config)
    mounted = gr.mount_gradio_app(FastAPI(), demo, path="/", max_file_size=guard.MAX_FILE_SIZE)
    with TestClient(mounted) as client:
        yield client


def test_the_app_serves_and_scores_it_with_the_hand_computed_numbers(
    http: TestClient, folder: Path
) -> None:
    config = http.get("/config").json()
    assert config["title"] == "TinyBench Leaderboard"
    uploaded = http.post(
        "/gradio_api/upload",
        files={"files": ("s.json", (folder / "demo" / "sample_submission.json").read_bytes())},
    ).json()[0]
    response = http.post(
        "/gradio_api/run/score",
        json={"data": [{"path": uploaded, "meta": {"_type": "gradio.FileData"}}]},
    )
    assert response.status_code == 200, response.text
    [numbers] = response.json()["data"]
    # At the board's precision (one decimal); the record below keeps them exact.
    assert numbers["metrics"] == {k: float(f"{v:.1f}") for k, v in EXPECTED.items()}
    assert numbers["counts"]["overall"] == {"correct": 3, "total": 5}
    assert numbers["n_abstained"] == 1
    wrong = http.post(
        "/gradio_api/upload",
        files={"files": ("w.json", json.dumps([{"qid": 1, "prediction": "A"}]).encode())},
    ).json()[0]
    refused = http.post(
        "/gradio_api/run/score",
        json={"data": [{"path": wrong, "meta": {"_type": "gradio.FileData"}}]},
    ).json()
    assert 'entry has no "pred"' in refused["error"]  # its own field name, not another's
    assert "4 questions have no answer" in refused["error"]


def test_publish_and_reproduce_work_on_it(folder: Path, tmp_path: Path) -> None:
    board = tmp_path / "board"
    board.mkdir()
    key, sample = folder / "demo" / "key.jsonl", folder / "demo" / "sample_submission.json"
    done = _run(
        "scripts/publish_submission.py",
        "--benchmark",
        str(folder),
        "--leaderboard-dir",
        str(board),
        "--submission",
        str(sample),
        "--private",
        str(key),
        "--team-name",
        "Tiny Lab",
        "--method-name",
        "TinyModel",
        "--model-size",
        "1B",
        "--uses-external",
        "no",
        "--uses-frames",
        "text",
    )
    assert done.returncode == 0, done.stderr
    [path] = (board / "submissions").glob("*.json")
    record = json.loads(path.read_text())
    assert (record["benchmark"], record["track"]) == ("tinybench", "main")
    assert record["metrics"] == pytest.approx(EXPECTED, abs=0)
    again = _run(
        "scripts/reproduce_row.py",
        "--benchmark",
        str(folder),
        "--record",
        str(path),
        "--submission",
        str(sample),
        "--private",
        str(key),
    )
    assert again.returncode == 0 and again.stdout.startswith("reproduced"), again.stderr
