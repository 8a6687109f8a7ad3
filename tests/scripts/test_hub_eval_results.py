"""scripts/hub_eval_results.py (issue 32): the benchmark's eval.yaml and a verified row's
``.eval_results`` file, checked against the Hub's documented schema (tests/support/hub_evals.py,
written from hub-docs' docs/hub/eval-results.md and eval_results.yaml), and opened as pull
requests on the loopback Hub with the real huggingface_hub client.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from huggingface_hub import HfApi, parse_eval_result_entries

import ledger
import spec
from scripts import hub_eval_results
from tests.support import ROOT, hub_evals
from tests.support.hub_server import READ_TOKEN, WRITE_TOKEN, HubServer

MEM = spec.load_benchmark("egomemreason")
ARGUS = spec.load_benchmark("egoargus")
MEM_ROW = "5694e658-3eb0-487c-b1e2-cba563c80b88"  # DemoVLM-7B (synthetic), re-scored
ARGUS_DECISION_ROW = "b136b870-1043-44fe-ba5e-cf57ac225388"  # DemoVLM-7B, decision track
ARGUS_SUPERSEDED = "5636fbb5-63f6-4008-b1e0-23146b161f6d"  # by 18f42797-...
SPACE = "demo-org/demo-leaderboard"
MODEL = "demo-lab/DemoVLM-7B"


def record(bench: spec.Benchmark, row: str) -> ledger.Record:
    return ledger.Record.from_json((bench.demo_board / "submissions" / f"{row}.json").read_bytes())


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = hub_eval_results.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def results_of(bench: spec.Benchmark, row: str, *extra: str) -> list[str]:
    return [
        "model-results",
        "--benchmark",
        bench.id,
        "--leaderboard-dir",
        str(bench.demo_board),
        "--row",
        row,
        "--space",
        SPACE,
        *extra,
    ]


@pytest.mark.parametrize("bench", [MEM, ARGUS], ids=lambda b: b.id)
def test_eval_yaml_holds_every_required_field_one_task_per_track(
    bench: spec.Benchmark, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "eval-yaml", "--benchmark", bench.id, "--out", str(tmp_path / "e"))
    assert code == 0 and "dry run, nothing opened" in err
    doc = yaml.safe_load(out)
    assert hub_evals.eval_yaml_problems(doc) == []
    assert (doc["name"], doc["description"]) == (bench.title, bench.description)
    assert doc["evaluation_framework"] == bench.hub.evaluation_framework
    assert [t["id"] for t in doc["tasks"]] == [t.id for t in bench.tracks]
    assert (tmp_path / "e").read_text() == out


@pytest.mark.parametrize(
    ("bench", "row", "query"),
    [(MEM, MEM_ROW, f"?entry={MEM_ROW}"), (ARGUS, ARGUS_DECISION_ROW, "&track=decision")],
    ids=["egomemreason", "egoargus-decision"],
)
def test_a_demo_row_s_results_file_holds_the_documented_schema(
    bench: spec.Benchmark, row: str, query: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *results_of(bench, row))
    assert code == 0, err
    doc = yaml.safe_load(out)
    assert hub_evals.schema_problems(doc) == []
    [entry] = parse_eval_result_entries(doc)  # as huggingface_hub reads such a file
    rec = record(bench, row)
    track = bench.track(rec.track)
    assert (entry.dataset_id, entry.task_id) == (bench.hub.dataset, track.id)
    assert entry.value == rec.metrics[track.ranking]  # full precision, as recorded
    assert entry.date is not None and entry.date.startswith(rec.created_at.date().isoformat())
    assert entry.source_url is not None
    assert entry.source_url.startswith(f"https://huggingface.co/spaces/{SPACE}?entry={row}")
    assert entry.source_url.endswith(query)
    assert "re-scored by its maintainer" in str(entry.source_name)
    assert entry.notes is not None and entry.notes.startswith(f"{bench.input.label}: ")
    assert rec.key_version is None or f"answer key {rec.key_version}" in entry.notes
    assert "names no model repo" in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (results_of(MEM, str(uuid.UUID(int=5))), "no row among the records of egomemreason"),
        (results_of(ARGUS, ARGUS_SUPERSEDED), "is superseded by 18f42797"),
        (
            results_of(
                MEM,
                str(
                    next(
                        p.stem
                        for p in (MEM.demo_board / "submissions").glob("*")
                        if record(MEM, p.stem).source == "paper"
                    )
                ),
            ),
            "its numbers are the paper's",
        ),
        (results_of(MEM, MEM_ROW, "--push"), "--push: 5694e658"),
        (results_of(MEM, MEM_ROW, "--model-repo", "not a repo"), "must be a Hub repo id"),
        (results_of(MEM, MEM_ROW)[:-2], "names no hub.space"),
    ],
    ids=["unknown", "superseded", "paper", "push-without-model", "bad-model", "no-space"],
)
def test_a_row_the_hub_must_not_get_is_refused_in_a_line(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 1 and words in err and out == ""


def test_a_withdrawn_row_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = tmp_path / "board"
    shutil.copytree(MEM.demo_board, board)
    withdrawal = ledger.withdrawal_of(record(MEM, MEM_ROW), MEM, "The team asked.")
    ledger.LocalStore(board).write(withdrawal, "withdraw")
    argv = results_of(MEM, MEM_ROW)
    argv[argv.index("--leaderboard-dir") + 1] = str(board)
    code, _, err = run(capsys, *argv)
    assert code == 1 and "withdrawn on" in err and "The team asked." in err


@pytest.fixture
def hub_login(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> HubServer:
    """The loopback Hub as HF_ENDPOINT, the maintainer logged in; the benchmark's dataset and
    the model's repo on it."""
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("HF_TOKEN", WRITE_TOKEN)
    assert MEM.hub.dataset is not None
    hub.create_repo(MEM.hub.dataset, files={"README.md": b"# the questions"})
    hub.create_repo(MODEL, repo_type="model", files={"README.md": b"# DemoVLM"})
    return hub


def _merged_pull(hub: HubServer, repo: str, repo_type: str) -> dict[str, bytes]:
    [pull] = hub.pull_requests(repo, repo_type)
    hub.merge(repo, pull.num, repo_type)
    return hub.files(repo, repo_type)


def test_push_opens_pull_requests_that_put_the_row_on_the_hub_s_leaderboard(
    hub_login: HubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    hub = hub_login
    assert MEM.hub.dataset is not None
    code, eval_text, err = run(capsys, "eval-yaml", "--benchmark", MEM.id, "--push")
    assert code == 0, err
    assert "opened " in eval_text  # the file, then the pull request's address
    [pull] = hub.pull_requests(MEM.hub.dataset, "dataset")
    assert pull.head.files["eval.yaml"].decode() in eval_text
    assert "eval.yaml" not in hub.files(MEM.hub.dataset)  # proposed, not committed
    _merged_pull(hub, MEM.hub.dataset, "dataset")

    main_before = hub.files(MODEL, "model")
    code, out, err = run(capsys, *results_of(MEM, MEM_ROW, "--model-repo", MODEL, "--push"))
    assert code == 0, err
    [pull] = hub.pull_requests(MODEL, "model")
    path = f".eval_results/{MEM.id}.yaml"
    text = pull.head.files[path].decode()
    assert out.startswith(text) and f"/{MODEL}/discussions/{pull.num}" in out
    assert hub.files(MODEL, "model") == main_before  # nothing committed to the model's main
    assert hub_evals.schema_problems(yaml.safe_load(text)) == []
    # what the real client sees: the pull request, the file on its revision
    api = HfApi(endpoint=hub.url, token=READ_TOKEN)
    details = api.get_discussion_details(MODEL, pull.num)
    assert details.is_pull_request and details.status == "open"
    assert "re-scored the team's submission" in details.events[0].content  # type: ignore[attr-defined]
    assert path in api.list_repo_files(MODEL, revision=f"refs/pr/{pull.num}")
    # on the Hub's own leaderboard of the benchmark: a community result until merged
    [entry] = api.get_dataset_leaderboard(MEM.hub.dataset)
    rec = record(MEM, MEM_ROW)
    assert (entry.model_id, entry.value, entry.pull_request) == (MODEL, rec.metrics["overall"], 1)
    assert entry.source is not None and entry.source["url"].endswith(f"entry={MEM_ROW}")
    hub.merge(MODEL, pull.num, "model")
    [entry] = api.get_dataset_leaderboard(MEM.hub.dataset)
    assert entry.pull_request is None and entry.verified is False


def test_push_keeps_the_model_s_other_results_and_replaces_this_task_s(
    hub_login: HubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    hub = hub_login
    path = f".eval_results/{MEM.id}.yaml"
    others: list[dict[str, Any]] = [
        {"dataset": {"id": "cais/hle", "task_id": "hle"}, "value": 9.5},
        {"dataset": {"id": MEM.hub.dataset, "task_id": "memory"}, "value": 99.0},  # stale
    ]
    hub.commit(MODEL, {path: yaml.safe_dump(others).encode()}, repo_type="model")
    code, _, err = run(capsys, *results_of(MEM, MEM_ROW, "--model-repo", MODEL, "--push"))
    assert code == 0, err
    [pull] = hub.pull_requests(MODEL, "model")
    doc = yaml.safe_load(pull.head.files[path])
    assert [d["dataset"]["id"] for d in doc] == ["cais/hle", MEM.hub.dataset]
    assert doc[0] == others[0] and doc[1]["value"] == record(MEM, MEM_ROW).metrics["overall"]


def test_a_push_the_hub_refuses_opens_nothing_and_keeps_the_token_out(
    hub_login: HubServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HF_TOKEN", READ_TOKEN)
    code, _, err = run(capsys, *results_of(MEM, MEM_ROW, "--model-repo", MODEL, "--push"))
    assert code == 1 and "HTTP 403" in err and "nothing was opened" in err
    assert READ_TOKEN not in err and hub_login.pull_requests(MODEL, "model") == []
    monkeypatch.setenv("HF_TOKEN", WRITE_TOKEN)
    code, _, err = run(capsys, *results_of(MEM, MEM_ROW, "--model-repo", "demo-lab/nope", "--push"))
    assert code == 1 and "not found" in err


@pytest.mark.slow
def test_the_readme_s_demo_export_runs_as_written() -> None:
    """Step 7's command on the demo board, run from the root as the README writes it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("**7. Export to the Hub**") :]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None
    commands = [c.strip() for c in block.group(1).replace("\\\n", " ").splitlines()]
    (command,) = [c for c in commands if "--leaderboard-dir" in c]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        ["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert hub_evals.schema_problems(yaml.safe_load(done.stdout)) == []
