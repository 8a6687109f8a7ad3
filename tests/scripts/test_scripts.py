"""The maintainer CLIs: publish_submission.py, reproduce_row.py, rescore_board.py,
seed_paper_baselines.py, validate_benchmark.py, on EgoMemReason's demo release (the default
benchmark). Versions of the key (rescore_board.py at work, below-chance refusals, duplicates by
content) are in test_key_versions.py.

Called through ``main([...])`` (tests.support.scripts.run_script) and, as the README shows
them, as processes from the repo root (a few, marked slow). Hub targets run the real
huggingface_hub client against the loopback Hub server. The same scripts on a second benchmark
(EgoArgus) are in test_release.py.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import evaluator
import ledger
import spec
from scripts import (
    publish_submission,
    reproduce_row,
    rescore_board,
    seed_paper_baselines,
    validate_benchmark,
    validate_submission,
    withdraw_row,
)
from tests.support import ROOT
from tests.support.hub_server import READ_TOKEN, WRITE_TOKEN, HubServer
from tests.support.scripts import run_script, run_script_process

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track(kind=spec.MultipleChoiceTrack)
DEMO = BENCH.demo_dir
KEY = BENCH.demo_key(TRACK)
SAMPLE = DEMO / "sample_submission.json"
BOARD_REPO = BENCH.hub.records_repo
SCRIPTS = (
    "publish_submission.py",
    "reproduce_row.py",
    "rescore_board.py",
    "seed_paper_baselines.py",
    "validate_benchmark.py",
    "validate_submission.py",
    "withdraw_row.py",
)

Main = Callable[[list[str] | None], int]


def row_flags(**overrides: str) -> list[str]:
    """The submitter flags of publish_submission.py, as the README shows them."""
    flags = {
        "--team-name": "Demo Lab",
        "--method-name": "DemoVLM-7B",
        "--model-size": "7B",
        "--uses-external": "no",
        "--uses-frames": "frames-only",
        "--method-description": "Synthetic demo run.",
        "--project-url": "https://example.org/demovlm",
        "--publication-url": "https://example.org/demovlm/paper.pdf",
    }
    flags.update(overrides)
    return [part for item in flags.items() for part in item]


def publish_args(
    submission: Path,
    target: list[str],
    *extra: str,
    key: Path = KEY,
    row: dict[str, str] | None = None,
) -> list[str]:
    """publish_submission.py's arguments, the row flags of ``row_flags(**row)``."""
    flags = row_flags(**(row or {}))
    return ["--submission", str(submission), "--private", str(key), *flags, *target, *extra]


#: Another method of the same team: a board lists a method once per key version.
ALWAYS_A = {"--method-name": "Always-A"}


def records_in(folder: Path) -> dict[str, bytes]:
    sub = folder / "submissions"
    return {p.name: p.read_bytes() for p in sorted(sub.glob("*.json"))} if sub.is_dir() else {}


@pytest.fixture
def board(tmp_path: Path) -> Path:
    folder = tmp_path / "board"
    folder.mkdir()
    return folder


@pytest.fixture
def always_a(tmp_path: Path) -> Path:
    """A second valid submission: "A" for every question of the demo key."""
    key = evaluator.kinds.multiple_choice.load_key(TRACK, KEY.read_bytes())
    path = tmp_path / "always_a.json"
    entries = [{"example_id": q.id, "predicted_answer": "A"} for q in key.questions]
    path.write_text(json.dumps(entries))
    return path


@pytest.fixture
def hub_board(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> HubServer:
    """The default leaderboard repo on the loopback Hub, with the maintainer's login."""
    hub.create_repo(BOARD_REPO)
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("HF_TOKEN", WRITE_TOKEN)
    return hub


def hub_records(hub: HubServer) -> dict[str, bytes]:
    return {p: d for p, d in hub.files(BOARD_REPO).items() if p.startswith("submissions/")}


# --- every script -------------------------------------------------------------------------


# Every script, not the helper modules they share (scripts/_cli.py).
EVERY_SCRIPT = sorted(p.name for p in (ROOT / "scripts").glob("[!_]*.py"))


@pytest.mark.parametrize("script", EVERY_SCRIPT)
def test_help_works_and_shows_an_example(script: str) -> None:
    done = run_script(script, "--help")
    assert done.returncode == 0, done.stderr
    assert "Example" in done.stdout and f"python scripts/{script}" in done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("script", EVERY_SCRIPT)
def test_every_script_runs_as_the_readme_runs_it(script: str) -> None:
    """From the root, with no PYTHONPATH: the project is installed into the venv."""
    proc = run_script_process(script, "--help", env={"PYTHONPATH": ""})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"usage: {script}") and "Example" in proc.stdout


MAINS: dict[str, Main] = {
    "publish_submission.py": publish_submission.main,
    "reproduce_row.py": reproduce_row.main,
    "rescore_board.py": rescore_board.main,
    "seed_paper_baselines.py": seed_paper_baselines.main,
    "validate_benchmark.py": validate_benchmark.main,
    "validate_submission.py": validate_submission.main,
    "withdraw_row.py": withdraw_row.main,
}


@pytest.mark.parametrize("script", SCRIPTS)
def test_an_unknown_benchmark_or_track_is_a_one_line_error(
    script: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    main = MAINS[script]
    assert main(["--benchmark", "no-such-bench", "--help"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        "error: --benchmark: no benchmark 'no-such-bench'"
    )
    assert BENCH.id in err  # the known ones are named
    assert main(["--track", "no-such-track", "--help"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no track 'no-such-track'" in err and TRACK.id in err
    monkeypatch.setenv("LEADERBOARD_BENCHMARK", "no-such-bench")
    assert main(["--help"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: LEADERBOARD_BENCHMARK=no-such-bench: no benchmark")


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_names_the_chosen_benchmark_s_files_and_repo(
    script: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    main = MAINS[script]
    for argv in (["--benchmark", str(BENCH.folder), "--help"], ["--help"]):
        monkeypatch.setenv("LEADERBOARD_BENCHMARK", BENCH.id)
        assert main(argv) == 0
        text = " ".join(capsys.readouterr().out.split())
        assert TRACK.key.name in text and BENCH.hub.records_repo in text


#: Every script of scripts/ (reshuffle_options.py too), by file name.
#: Every script that reads a benchmark (new_benchmark.py writes one: it takes no --benchmark).
EVERY_SCRIPT = sorted(
    p.name for p in (ROOT / "scripts").glob("[!_]*.py") if p.name != "new_benchmark.py"
)


#: How many clones, each one character deeper than the last: a line of --help is at most
#: 88 characters, so the words after the folder's path land at many places of a line.
CLONE_DEPTHS = 45


@pytest.fixture(scope="module")
def far_clones(tmp_path_factory: pytest.TempPathFactory) -> list[spec.Benchmark]:
    """The benchmark's folder (its demo data aside) copied where a clone may well be: a long
    path with hyphens and a space, one character longer each time."""
    parent = tmp_path_factory.mktemp("clones") / "my projects" / "leaderboard-spaces-for-the"
    clones = []
    for depth in range(CLONE_DEPTHS):
        folder = parent / f"egomemreason-leaderboard-checkout{'x' * depth}" / BENCH.id
        shutil.copytree(BENCH.folder, folder, ignore=shutil.ignore_patterns(DEMO.name))
        clones.append(spec.load_benchmark(str(folder)))
    return clones


@pytest.mark.parametrize("script", EVERY_SCRIPT)
def test_help_keeps_the_repo_id_and_file_names_whole_wherever_the_clone_is(
    script: str,
    far_clones: list[spec.Benchmark],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A line of --help breaks at a space only: never at a hyphen of the repo id
    ("Ted412/EgoMemReason-" then "Leaderboard", read as two words), nor inside a long path."""
    monkeypatch.setenv("COLUMNS", "80")  # argparse's width (the terminal's); the epilog's is 88
    module = importlib.import_module(f"scripts.{script.removesuffix('.py')}")
    broken = []
    for clone in far_clones:
        with contextlib.suppress(SystemExit):  # reshuffle_options.py's --help exits, as argparse's
            assert module.main(["--benchmark", str(clone.folder), "--help"]) == 0
        text = " ".join(capsys.readouterr().out.split())
        track = clone.track()
        wholes = (clone.hub.records_repo, track.key.name, track.public.name, str(clone.folder))
        broken += [
            f"{whole} (at {len(str(clone.folder))})" for whole in wholes if whole not in text
        ]
    assert not broken, f"broken across lines: {broken[:4]} ({len(broken)} in all)"


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_names_the_files_of_a_decision_track(
    script: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert MAINS[script](["--benchmark", "egoargus", "--track", "decision", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "this track (decision) has the answer key decision_private.jsonl (jsonl)" in text


# --- publish_submission.py ----------------------------------------------------------------


def test_publish_to_a_folder_writes_one_record(
    board: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert publish_submission.main(publish_args(SAMPLE, ["--leaderboard-dir", str(board)])) == 0
    out = capsys.readouterr().out
    ((name, data),) = records_in(board).items()
    record = ledger.Record.from_json(data)
    result = evaluator.score(
        evaluator.kinds.multiple_choice.load_key(TRACK, KEY.read_bytes()), SAMPLE.read_bytes()
    )
    assert record.source == "rescored" and record.path() == f"submissions/{name}"
    assert (record.schema_version, record.benchmark, record.track) == (2, BENCH.id, TRACK.id)
    assert record.metrics == result.metrics and record.counts == result.counts
    assert record.n_abstained == result.n_abstained
    assert record.provenance == ledger.Provenance(
        submission_sha256=hashlib.sha256(SAMPLE.read_bytes()).hexdigest(),
        answer_key_sha256=hashlib.sha256(KEY.read_bytes()).hexdigest(),
        key_version="demo-1",
        scorer_version=TRACK.scorer_version,
        answers_sha256=result.answers_sha256,
    )
    assert "scored on answer key version demo-1 (chance 20.7 %)" in out
    assert (record.team_name, record.method_name, record.model_size) == (
        "Demo Lab",
        "DemoVLM-7B",
        "7B",
    )
    assert record.uses_external is False and record.uses_frames == "frames-only"
    assert record.project_url == "https://example.org/demovlm"
    assert record.path() in out
    assert f"Overall {result.metrics['overall']:.1f} %" in out
    assert f"within {ledger.CACHE_TTL_S} s" in out
    assert f"LEADERBOARD_RECORDS_DIR={board}" in out


def test_the_same_submission_is_refused_unless_it_supersedes_its_row(
    board: Path, always_a: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = ["--leaderboard-dir", str(board)]
    assert publish_submission.main(publish_args(SAMPLE, target)) == 0
    first = ledger.Record.from_json(next(iter(records_in(board).values())))
    before = records_in(board)
    capsys.readouterr()

    assert publish_submission.main(publish_args(SAMPLE, target)) == 1
    err = capsys.readouterr().err
    assert "already on the board" in err and str(first.id) in err and "--supersedes" in err
    assert records_in(board) == before

    # another row's uuid, an unknown uuid, or a malformed one: refused, nothing written
    assert publish_submission.main(publish_args(always_a, target, row=ALWAYS_A)) == 0
    other = next(
        ledger.Record.from_json(d)
        for d in records_in(board).values()
        if ledger.Record.from_json(d).id != first.id
    )
    before = records_in(board)
    for bad, words in (
        (str(other.id), "supersede the row that holds this submission"),
        ("00000000-0000-4000-8000-000000000000", "no such row"),
        ("not-a-uuid", "is not a uuid"),
    ):
        assert publish_submission.main(publish_args(SAMPLE, target, "--supersedes", bad)) == 1
        assert words in capsys.readouterr().err
        assert records_in(board) == before

    # naming the row it corrects: a new record; the old one stays untouched
    args = publish_args(SAMPLE, target, "--supersedes", str(first.id), "--note", "model size")
    assert publish_submission.main(args) == 0
    assert str(first.id) in capsys.readouterr().out
    after = records_in(board)
    assert len(after) == 3 and all(after[n] == d for n, d in before.items())
    newest = [ledger.Record.from_json(d) for n, d in after.items() if n not in before]
    assert newest[0].supersedes == first.id and newest[0].note == "model size"

    # a superseded row cannot be superseded a second time
    assert publish_submission.main(publish_args(SAMPLE, target, "--supersedes", str(first.id))) == 1
    assert "already superseded by" in capsys.readouterr().err


def _foreign_copy(record: ledger.Record, **fields: object) -> ledger.Record:
    """The record as if published on another benchmark's board: another id, same submission."""
    payload = json.loads(record.to_json())
    payload.update({"id": "00000000-0000-4000-8000-00000000abcd", **fields})
    return ledger.Record.from_json(json.dumps(payload).encode())


def test_only_rows_of_the_same_benchmark_and_track_count_as_on_the_board(
    board: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = ["--leaderboard-dir", str(board)]
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    assert publish_submission.main(publish_args(SAMPLE, ["--leaderboard-dir", str(scratch)])) == 0
    mine = ledger.Record.from_json(next(iter(records_in(scratch).values())))
    foreign = _foreign_copy(mine, benchmark="otherbench", track="other")
    ledger.LocalStore(board).write(foreign)
    capsys.readouterr()

    # the same submission on another benchmark's board is no duplicate...
    assert publish_submission.main(publish_args(SAMPLE, target)) == 0
    assert len(records_in(board)) == 2
    # ...and a row of another benchmark cannot be superseded from this one
    before = records_in(board)
    assert (
        publish_submission.main(publish_args(SAMPLE, target, "--supersedes", str(foreign.id))) == 1
    )
    err = capsys.readouterr().err
    assert (
        f"--supersedes {foreign.id}: that row belongs to otherbench/other, not "
        f"{BENCH.id}/{TRACK.id}" in err
    )
    assert records_in(board) == before


def test_dry_run_prints_the_record_alone_and_writes_nothing(
    board: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        publish_submission.main(
            publish_args(SAMPLE, ["--leaderboard-dir", str(board)], "--dry-run")
        )
        == 0
    )
    captured = capsys.readouterr()
    record = ledger.Record.from_json(captured.out.encode())
    assert captured.out.encode() == record.to_json()
    assert "nothing written" in captured.err
    assert records_in(board) == {}


BAD_FLAGS = [
    pytest.param(
        {"--project-url": "ftp://example.org/x"}, ["--project-url", "http(s) URL"], id="ftp-url"
    ),
    pytest.param(
        {"--publication-url": "example.org/paper"},
        ["--publication-url", "http(s)"],
        id="url-without-scheme",
    ),
    pytest.param(
        {"--uses-frames": "video"},
        ["'video' is not a known video input", *BENCH.input.choices],
        id="uses-frames",
    ),
    pytest.param({"--uses-external": "maybe"}, ["expected yes or no"], id="uses-external"),
    pytest.param({"--team-name": "  "}, ["--team-name", "blank"], id="blank-team"),
]


@pytest.mark.parametrize(("overrides", "words"), BAD_FLAGS)
def test_bad_flags_exit_1_and_write_nothing(
    board: Path, overrides: dict[str, str], words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = [
        "--submission",
        str(SAMPLE),
        "--private",
        str(KEY),
        *row_flags(**overrides),
        "--leaderboard-dir",
        str(board),
    ]
    assert publish_submission.main(args) == 1
    err = capsys.readouterr().err
    for word in words:
        assert word in err
    assert records_in(board) == {}


def test_bad_inputs_exit_1_with_the_reason(
    board: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = ["--leaderboard-dir", str(board)]
    entries = json.loads(SAMPLE.read_text())
    entries[0]["predicted_answer"] = "ZZ"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(entries))
    assert publish_submission.main(publish_args(bad, target)) == 1
    err = capsys.readouterr().err
    with pytest.raises(evaluator.SubmissionError) as exc:
        evaluator.score(
            evaluator.kinds.multiple_choice.load_key(TRACK, KEY.read_bytes()), bad.read_bytes()
        )
    assert str(exc.value) in err and "nothing was written" in err

    assert publish_submission.main(publish_args(tmp_path / "missing.json", target)) == 1
    assert "cannot read the submission" in capsys.readouterr().err
    assert publish_submission.main(publish_args(SAMPLE, target, key=SAMPLE)) == 1
    assert "--private" in capsys.readouterr().err
    assert publish_submission.main(publish_args(SAMPLE, target, "--key-version", "v9")) == 1
    assert "contradicts the key file" in capsys.readouterr().err
    assert (
        publish_submission.main(publish_args(SAMPLE, ["--leaderboard-dir", str(tmp_path / "typo")]))
        == 1
    )
    assert "no such folder" in capsys.readouterr().err
    assert publish_submission.main(["--submission", str(SAMPLE)]) == 1  # required flags missing
    assert "required" in capsys.readouterr().err
    assert records_in(board) == {}
    assert not (tmp_path / "typo").exists()


def test_key_version_is_recorded_when_the_key_file_has_none(board: Path, tmp_path: Path) -> None:
    bare = tmp_path / "annotations_private.json"
    bare.write_text(json.dumps(json.loads(KEY.read_text())["samples"]))
    target = ["--leaderboard-dir", str(board)]
    assert (
        publish_submission.main(publish_args(SAMPLE, target, "--key-version", "v1.1", key=bare))
        == 0
    )
    record = ledger.Record.from_json(next(iter(records_in(board).values())))
    assert record.provenance is not None and record.provenance.key_version == "v1.1"


def test_publish_to_the_hub_commits_once_and_refuses_a_duplicate(
    hub_board: HubServer, always_a: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hub = hub_board
    commits = len(hub.repo(BOARD_REPO).commits)
    assert publish_submission.main(publish_args(SAMPLE, [])) == 0  # default repo, HF_ENDPOINT
    out = capsys.readouterr().out
    ((path, data),) = hub_records(hub).items()
    record = ledger.Record.from_json(data)
    assert record.path() == path and path in out and f"the Hub dataset {BOARD_REPO}" in out
    assert len(hub.repo(BOARD_REPO).commits) == commits + 1
    assert "DemoVLM-7B by Demo Lab" in hub.commit_messages(BOARD_REPO)[-1]

    head = hub.head(BOARD_REPO)
    assert publish_submission.main(publish_args(SAMPLE, [])) == 1
    assert "already on the board" in capsys.readouterr().err
    assert hub.head(BOARD_REPO) == head  # no commit

    assert publish_submission.main(publish_args(SAMPLE, [], "--supersedes", str(record.id))) == 0
    assert publish_submission.main(publish_args(always_a, [], row=ALWAYS_A)) == 0
    files = hub_records(hub)
    assert len(files) == 3 and files[path] == data  # never overwritten
    superseding = [
        ledger.Record.from_json(d)
        for d in files.values()
        if ledger.Record.from_json(d).supersedes == record.id
    ]
    assert len(superseding) == 1
    # the app's view hides the corrected row
    store = ledger.HubStore(BOARD_REPO, endpoint=hub.url)
    shown = ledger.BoardCache(store, BENCH, TRACK).refresh().records
    assert {r.id for r in shown} == {
        r.id for r in map(ledger.Record.from_json, files.values()) if r.id != record.id
    }


def test_publish_to_the_hub_with_a_read_token_fails_cleanly(
    hub_board: HubServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HF_TOKEN", READ_TOKEN)
    head = hub_board.head(BOARD_REPO)
    assert publish_submission.main(publish_args(SAMPLE, [])) == 1
    err = capsys.readouterr().err
    assert "403" in err and "nothing was written" in err
    assert READ_TOKEN not in err
    assert hub_board.head(BOARD_REPO) == head


@pytest.mark.slow
def test_publish_as_a_subprocess_then_reproduce_by_uuid(hub_board: HubServer) -> None:
    """The README's publication, processes and the real Hub client over HTTP."""
    args = publish_args(SAMPLE, ["--leaderboard", BOARD_REPO])
    proc = run_script_process("publish_submission.py", *args)
    assert proc.returncode == 0, proc.stderr
    ((path, _),) = hub_records(hub_board).items()
    assert path in proc.stdout and "Overall" in proc.stdout
    uuid = Path(path).stem
    proc = run_script_process(
        "reproduce_row.py", "--record", uuid, "--submission", str(SAMPLE), "--private", str(KEY)
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("reproduced")


# --- reproduce_row.py ---------------------------------------------------------------------


@pytest.fixture
def published(board: Path) -> ledger.Record:
    assert publish_submission.main(publish_args(SAMPLE, ["--leaderboard-dir", str(board)])) == 0
    return ledger.Record.from_json(next(iter(records_in(board).values())))


def test_reproduce_a_published_row_by_path_and_by_uuid(
    board: Path, published: ledger.Record, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    path = board / published.path()
    assert (
        reproduce_row.main(
            ["--record", str(path), "--submission", str(SAMPLE), "--private", str(KEY)]
        )
        == 0
    )
    assert capsys.readouterr().out.startswith("reproduced")
    assert (
        reproduce_row.main(
            [
                "--record",
                str(published.id),
                "--leaderboard-dir",
                str(board),
                "--submission",
                str(SAMPLE),
                "--private",
                str(KEY),
            ]
        )
        == 0
    )
    assert "match bit for bit" in capsys.readouterr().out


def test_reproduce_fails_listing_each_field_when_the_submission_differs(
    board: Path, published: ledger.Record, always_a: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    args = [
        "--record",
        str(board / published.path()),
        "--submission",
        str(always_a),
        "--private",
        str(KEY),
    ]
    assert reproduce_row.main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith("NOT reproduced")
    assert "submission sha256" in err and "metrics.overall" in err and "counts.overall" in err
    assert "answer key sha256" not in err


def test_reproduce_names_the_key_version_when_the_key_differs(
    board: Path, published: ledger.Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = json.loads(KEY.read_text())
    key["key_version"] = "demo-2"
    first = key["samples"][0]
    first["correct_answer"] = "B" if first["correct_answer"] == "A" else "A"
    other_key = tmp_path / "annotations_private.json"
    other_key.write_text(json.dumps(key))
    capsys.readouterr()
    assert (
        reproduce_row.main(
            [
                "--record",
                str(board / published.path()),
                "--submission",
                str(SAMPLE),
                "--private",
                str(other_key),
            ]
        )
        == 1
    )
    err = capsys.readouterr().err
    assert "answer key sha256" in err and "key version demo-1" in err and "demo-2" in err
    assert "submission sha256" not in err
    assert "counts.cumulative_state_tracking" in err  # question 1's answer changed


def test_reproduce_a_tampered_record_names_the_field(
    board: Path, published: ledger.Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    payload = json.loads(published.to_json())
    payload["counts"]["event"]["correct"] += 1
    payload["counts"]["overall"]["correct"] += 1
    payload["metrics"]["event"] = 100 * payload["counts"]["event"]["correct"] / 200
    payload["metrics"]["overall"] = 100 * payload["counts"]["overall"]["correct"] / 500
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(payload))
    capsys.readouterr()
    assert (
        reproduce_row.main(
            ["--record", str(tampered), "--submission", str(SAMPLE), "--private", str(KEY)]
        )
        == 1
    )
    err = capsys.readouterr().err
    for field in ("metrics.overall", "metrics.event", "counts.overall", "counts.event"):
        assert field in err
    assert "metrics.entity" not in err and "sha256" not in err


def test_reproduce_counts_the_fields_that_differ_in_agreement(
    published: ledger.Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    payload = json.loads(published.to_json())
    label = f"{published.method_name} by {published.team_name}"
    tampered = tmp_path / "tampered.json"
    for differ in ("1 field differs", "2 fields differ"):
        if differ == "1 field differs":
            payload["n_abstained"] += 1
        else:
            payload["metrics"]["overall"] += 1
        tampered.write_text(json.dumps(payload))
        capsys.readouterr()
        assert (
            reproduce_row.main(
                ["--record", str(tampered), "--submission", str(SAMPLE), "--private", str(KEY)]
            )
            == 1
        )
        err = capsys.readouterr().err
        assert err.startswith(f"NOT reproduced: {label} ({tampered}): {differ}:\n"), err


def test_reproduce_refuses_a_row_of_another_benchmark(
    board: Path, published: ledger.Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.json"
    other.write_bytes(_foreign_copy(published, benchmark="otherbench").to_json())
    capsys.readouterr()
    assert (
        reproduce_row.main(
            ["--record", str(other), "--submission", str(SAMPLE), "--private", str(KEY)]
        )
        == 1
    )
    err = capsys.readouterr().err
    assert f"belongs to otherbench/{TRACK.id}, not {BENCH.id}/{TRACK.id}" in err
    assert "--benchmark" in err


def test_reproduce_refuses_a_paper_row_and_an_unknown_uuid(
    board: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paper = sorted((DEMO / "leaderboard" / "submissions").glob("*.json"))
    paper_row = next(p for p in paper if ledger.Record.from_json(p.read_bytes()).source == "paper")
    assert (
        reproduce_row.main(
            ["--record", str(paper_row), "--submission", str(SAMPLE), "--private", str(KEY)]
        )
        == 1
    )
    assert "nothing to re-score" in capsys.readouterr().err
    assert (
        reproduce_row.main(
            [
                "--record",
                "00000000-0000-4000-8000-000000000000",
                "--leaderboard-dir",
                str(board),
                "--submission",
                str(SAMPLE),
                "--private",
                str(KEY),
            ]
        )
        == 1
    )
    assert "no such row" in capsys.readouterr().err


# --- seed_paper_baselines.py --------------------------------------------------------------


def test_seed_into_a_folder_is_idempotent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "new-board"
    assert seed_paper_baselines.main(["--leaderboard-dir", str(folder)]) == 0
    assert "wrote 18 paper rows" in capsys.readouterr().out
    first = records_in(folder)
    stats = {p: p.stat().st_mtime_ns for p in (folder / "submissions").iterdir()}
    records = [ledger.Record.from_json(d) for d in first.values()]
    assert len(records) == 18 and {r.source for r in records} == {"paper"}
    assert all(r.counts is None and r.provenance is None for r in records)
    assert {(r.schema_version, r.benchmark, r.track) for r in records} == {(2, BENCH.id, TRACK.id)}
    by_name = {r.method_name: r for r in records}
    assert by_name["Qwen-3-VL-30B-A3B"].model_size == "30B-A3B"
    assert by_name["GPT-5"].model_size == "API" and by_name["SiLVR"].model_size == ""
    assert by_name["Qwen-3-VL-32B"].metrics["overall"] == 36.8  # as printed, not recomputed
    assert by_name["Qwen-3-VL-32B"].note is not None and "36.6" in by_name["Qwen-3-VL-32B"].note
    assert by_name["InternVL3.5-8B"].metrics["entity"] == 26.0
    assert by_name["InternVL3.5-8B"].uses_frames is None and by_name["AVP"].uses_external is None

    assert seed_paper_baselines.main(["--leaderboard-dir", str(folder)]) == 0
    assert "nothing new" in capsys.readouterr().out
    assert records_in(folder) == first
    assert {p: p.stat().st_mtime_ns for p in (folder / "submissions").iterdir()} == stats


def test_seed_refuses_to_touch_a_row_with_other_content(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "board"
    assert seed_paper_baselines.main(["--leaderboard-dir", str(folder)]) == 0
    victim = sorted((folder / "submissions").glob("*.json"))[0]
    victim.write_bytes(victim.read_bytes().replace(b'"paper"', b'"paper" '))
    removed = sorted((folder / "submissions").glob("*.json"))[1]
    removed.unlink()
    capsys.readouterr()
    assert seed_paper_baselines.main(["--leaderboard-dir", str(folder)]) == 1
    assert victim.name in capsys.readouterr().err
    assert not removed.exists()  # nothing written, not even the missing row


SEED_CSVS = [
    pytest.param(
        "method,group,overall,note,speed\nX,General,10.0,,3\n",
        "found unknown speed",
        id="unknown-column",
    ),
    pytest.param(
        "method,group,entity,note\nX,General,10.0,\n",
        "found missing overall",
        id="no-ranking-column",
    ),
    pytest.param(
        "method,group,overall,note\nX,General,ten,\n",
        "line 2 (X): could not convert string to float",
        id="not-a-number",
    ),
    pytest.param(
        "method,group,overall,note\nX,General,10,\nX,Video,11,\n",
        "1 method names appear twice (X)",
        id="same-method-twice",
    ),
]


@pytest.mark.parametrize(("text", "message"), SEED_CSVS)
def test_seed_refuses_a_bad_csv_naming_the_problem(
    text: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "paper.csv"
    path.write_text(text)
    folder = tmp_path / "board"
    assert seed_paper_baselines.main(["--csv", str(path), "--leaderboard-dir", str(folder)]) == 1
    assert message in capsys.readouterr().err
    assert not folder.exists()


def test_seed_derives_only_the_aggregates_whose_members_are_all_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "paper.csv"
    path.write_text(
        "method,group,overall,cumulative_state_tracking,temporal_counting,"
        "event_ordering,note\nX-8B,General,30.0,20.0,41.0,50.0,\n"
    )
    assert seed_paper_baselines.main(["--csv", str(path), "--dry-run"]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert record["metrics"] == {
        "overall": 30.0,
        "cumulative_state_tracking": 20.0,
        "temporal_counting": 41.0,
        "event_ordering": 50.0,
        "entity": 30.5,
    }  # micro over 100 + 100; event lacks a member
    assert record["model_size"] == "8B"


def test_seed_dry_run_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "board"
    assert seed_paper_baselines.main(["--leaderboard-dir", str(folder), "--dry-run"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert len(printed) == 18 and not folder.exists()


def test_seed_the_hub_twice(hub_board: HubServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert seed_paper_baselines.main([]) == 0
    first = hub_records(hub_board)
    assert len(first) == 18
    head = hub_board.head(BOARD_REPO)
    capsys.readouterr()
    proc = run_script("seed_paper_baselines.py", "--leaderboard", BOARD_REPO)
    assert proc.returncode == 0, proc.stderr
    assert "nothing new" in proc.stdout
    assert hub_board.head(BOARD_REPO) == head


@pytest.mark.slow  # 1.3 s of CPU: every demo row
@pytest.mark.parametrize("bench_id", ["egomemreason", "egoargus"])
def test_the_committed_demo_board_is_what_the_scripts_produce(
    bench_id: str, tmp_path: Path
) -> None:
    bench = spec.load_benchmark(bench_id)
    demo = bench.demo_dir
    folder = tmp_path / "board"
    # the paper's rows of every table: the main one, then each other track's (--track)
    assert bench.paper is not None
    for table in bench.paper.all_tables:
        track_flag = [] if table.track == bench.paper.track else ["--track", table.track]
        proc = run_script(
            "seed_paper_baselines.py",
            "--benchmark",
            bench_id,
            *track_flag,
            "--leaderboard-dir",
            str(folder),
        )
        assert proc.returncode == 0, proc.stderr
    seeded = records_in(folder)
    committed = records_in(demo / "leaderboard")
    paper = {n: d for n, d in committed.items() if ledger.Record.from_json(d).source == "paper"}
    assert paper == seeded

    # every current re-scored demo row reproduces from the submission files kept beside it,
    # with the key of its own track; a superseded one (scored on an earlier key file) has a
    # row on the current key with the same submission and numbers
    samples = sorted(demo.glob("*sample_submission.json"))
    inputs = {
        hashlib.sha256(p.read_bytes()).hexdigest(): p
        for p in [*samples, *sorted((demo / "leaderboard" / "inputs").glob("*.json"))]
    }
    records = {n: ledger.Record.from_json(d) for n, d in committed.items() if n not in paper}
    newer = {r.supersedes: r for r in records.values() if r.supersedes is not None}
    rescored = [n for n, r in records.items() if r.id not in newer]
    assert len(rescored) >= 2
    for old in (r for r in records.values() if r.id in newer):
        new = newer[old.id]
        assert old.provenance is not None and new.provenance is not None
        assert (new.counts, new.metrics, new.provenance.submission_sha256) == (
            old.counts,
            old.metrics,
            old.provenance.submission_sha256,
        )
        assert new.provenance.key_version != old.provenance.key_version
    for name in rescored:
        record = records[name]
        assert record.provenance is not None and record.track is not None
        submission = inputs[record.provenance.submission_sha256]
        key = bench.demo_key(bench.track(record.track))
        assert (
            reproduce_row.main(
                [
                    "--benchmark",
                    bench_id,
                    "--track",
                    record.track,
                    "--record",
                    str(demo / "leaderboard" / "submissions" / name),
                    "--submission",
                    str(submission),
                    "--private",
                    str(key),
                ]
            )
            == 0
        )


@pytest.mark.parametrize("script", [seed_paper_baselines.main, publish_submission.main])
def test_a_leaderboard_dir_that_is_a_file_is_refused_cleanly(
    script: Callable[[list[str]], int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    not_a_folder = tmp_path / "board"
    not_a_folder.write_text("")
    args = ["--leaderboard-dir", str(not_a_folder)]
    if script is publish_submission.main:
        args += [
            "--submission",
            str(SAMPLE),
            "--private",
            str(KEY),
            "--team-name",
            "T",
            "--method-name",
            "M",
            "--model-size",
            "7B",
            "--uses-external",
            "no",
            "--uses-frames",
            "frames-only",
        ]
    assert script(args) == 1
    assert "not a folder" in capsys.readouterr().err
    assert not_a_folder.read_text() == ""
