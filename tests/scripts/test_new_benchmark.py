"""scripts/new_benchmark.py (maintainer.scaffold, maintainer.release_layout): a benchmark folder
from a release as its authors publish it (issue 19).

Releases are written here in the layouts a real one comes in: a CSV with an id of two columns,
one column per option and 0-based index answers; JSON Lines with an options object and letters;
JSON {"samples": [...]} with a list of option texts and answers written as texts. Each is
scaffolded, the folder checked by validate_benchmark.py, and one is served by ``python app.py``
and scored through /score.
"""

from __future__ import annotations

import csv
import io
import json
import random
import subprocess
from pathlib import Path

import pytest

import evaluator
import spec
from errors import ScaffoldError
from maintainer import release, release_inference, release_layout, scaffold
from maintainer.release_inference import Overrides
from tests.support import ROOT
from tests.support.app_server import AppServer
from tests.support.native_releases import authors_numbers, write_release
from tests.support.scripts import run_script

TYPES = ("count", "tp", "tn", "other")  # the release's own codes, ordinary words


def _csv_release(folder: Path, videos: int = 30) -> Path:
    """A video-QA validation release: the question number repeats across videos, options in
    a0..a4 (an empty cell ends a row's), the answer a 0-based index, a type column."""
    rng = random.Random(7)
    rows = []
    for v in range(videos):
        for q in (1, 2):
            n = rng.choice((4, 5))
            options = [f"choice {k} for clip {v}-{q}" for k in range(n)] + [""] * (5 - n)
            rows.append(
                {
                    "video_id": f"vid{v:03d}",
                    "qid": str(q),
                    "question": f"What does the person do in clip {v}, part {q}?",
                    **{f"a{k}": options[k] for k in range(5)},
                    "answer": str(0 if v == 0 else rng.randrange(n)),
                    "type": TYPES[(2 * v + q) % 4],
                }
            )
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path = folder / "val_key.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    """A script's ``main([...])`` in this process (``args[0]`` the script's path)."""
    return run_script(*args)


# --- what is inferred, per layout (in process) --------------------------------------------------


def test_a_csv_with_a_composed_id_option_columns_and_index_answers(tmp_path: Path) -> None:
    key = release_layout.read_release("val_key.csv", _csv_release(tmp_path).read_bytes())
    # No one column is unique (qid repeats across videos): the first two that are together.
    found = release_inference.infer(key)
    assert found.id_fields == ("video_id", "qid")
    assert found.notes["id"] == "inferred: 'video_id'+'qid' are unique on every row"
    assert found.options == ("a0", "a1", "a2", "a3", "a4")
    assert (found.answer, found.answer_format, found.question) == ("answer", "index", "question")
    assert (found.letters, found.min_options, found.max_options) == ("ABCDE", 4, 5)
    assert found.group_field == "type" and set(found.groups) == set(TYPES)
    assert sum(found.groups.values()) == 60 and found.id_type == "string"


def test_json_lines_with_an_options_object_and_letters(tmp_path: Path) -> None:
    rows = [
        {
            "qid": i,
            "prompt": f"Question {i}?",
            "choices": {"A": "yes", "B": "no", "C": "maybe"},
            "gold": "ABC"[i % 3],
            "domain": "math" if i % 2 else "law",
        }
        for i in range(1, 41)
    ]
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    found = release_inference.infer(release_layout.read_release("key.jsonl", data))
    assert (found.id_fields, found.id_type, found.question) == (("qid",), "integer", "prompt")
    assert (found.options, found.answer, found.answer_format) == (("choices",), "gold", "letter")
    assert found.groups == {"law": 20, "math": 20} and found.letters == "ABC"


def test_json_samples_with_a_list_of_texts_and_text_answers(tmp_path: Path) -> None:
    samples = [
        {
            "example_id": i,
            "question": f"Which colour, {i}?",
            "options": ["red", "green", "blue", "black"],
            "answer": ["red", "green", "blue", "black"][i % 4],
            "split": "easy" if i < 25 else "hard",
        }
        for i in range(50)
    ]
    key = tmp_path / "answers.json"
    key.write_text(json.dumps({"samples": samples}))
    written = scaffold.scaffold("colours", key, tmp_path / "colours")
    found = written.inferred
    assert isinstance(found, release_inference.Inferred)  # text answers, options: multiple choice
    assert (found.answer_format, found.options, found.groups) == (
        "text",
        ("options",),
        {"easy": 25, "hard": 25},
    )
    bench = spec.load_benchmark(str(written.folder))
    track = bench.track(kind=spec.MultipleChoiceTrack)
    demo = json.loads(bench.demo_key(track).read_text())["samples"]
    assert all(r["question"].startswith("[SYNTHETIC DEMO] ") for r in demo)
    assert all(r["answer"] in r["options"] for r in demo)  # drawn anew, written as texts
    assert [r["answer"] for r in demo] != [r["answer"] for r in samples]
    # The real key validates against the public file written beside it.
    report = release.check_release(track, key.read_bytes(), written.public.read_bytes())
    assert "50 rows" in report.summary()


def test_a_folder_that_is_not_empty_is_refused(tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "x").write_text("mine")
    with pytest.raises(ScaffoldError, match="is not empty"):
        scaffold.scaffold("x", _csv_release(tmp_path), tmp_path / "taken")


# --- the script, then validate_benchmark.py, then the app (subprocesses) ------------------------


@pytest.fixture
def scaffolded(tmp_path: Path) -> tuple[Path, Path]:
    """The CSV release through ``scripts/new_benchmark.py`` as its README walk-through runs it."""
    key = _csv_release(tmp_path)
    out = tmp_path / "videoqa"
    done = _run(
        "scripts/new_benchmark.py",
        "--id",
        "videoqa",
        "--key",
        str(key),
        "--out",
        str(out),
        "--id-fields",
        "video_id,qid",
    )
    assert done.returncode == 0, done.stderr
    assert "grouped by type: count 15, other 15, tn 15, tp 15" in done.stdout
    return key, out


def test_the_script_s_folder_passes_validate_benchmark(scaffolded: tuple[Path, Path]) -> None:
    key, out = scaffolded
    assert 'answer_format = "index"' in (out / spec.SPEC_FILENAME).read_text()
    for private, public in (
        (key, out / "release" / "val_public.csv"),  # the release itself
        (out / "demo" / "val_key.csv", out / "demo" / "val_public.csv"),  # its demo
    ):
        done = _run(
            "scripts/validate_benchmark.py",
            "--benchmark",
            str(out),
            "--private",
            str(private),
            "--public",
            str(public),
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "60 rows" in done.stdout


def test_rows_no_columns_tell_apart_are_refused_naming_the_release_s_own_columns(
    tmp_path: Path,
) -> None:
    path = _csv_release(tmp_path)
    header, *rows = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([header, *rows, *rows]) + "\n", encoding="utf-8")  # each twice
    key = release_layout.read_release("val_key.csv", path.read_bytes())
    with pytest.raises(ScaffoldError, match=r"nor two together: .* --id-fields video_id,qid$"):
        release_inference.infer(key)
    with pytest.raises(
        ScaffoldError, match=r"repeats on several rows .* --id-fields video_id,qid$"
    ):
        release_inference.infer(key, Overrides(id_fields=("video_id",)))


def test_the_script_refuses_a_release_it_cannot_read_with_the_override_to_give(
    tmp_path: Path,
) -> None:
    path = _csv_release(tmp_path)
    header, *rows = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([header, *rows, *rows]) + "\n", encoding="utf-8")
    done = _run(
        "scripts/new_benchmark.py",
        "--id",
        "videoqa",
        "--key",
        str(path),
        "--out",
        str(tmp_path / "out"),
    )
    assert done.returncode == 1 and "--id-fields video_id,qid" in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.server
def test_the_app_serves_the_folder_and_scores_its_sample(
    scaffolded: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from gradio_client import Client, handle_file

    _, out = scaffolded
    bench = spec.load_benchmark(str(out))
    track = bench.track()
    sample = bench.demo_dir / "sample_submission.json"
    key = evaluator.load_answer_key(track, bench.demo_key(track).read_bytes())
    expected = evaluator.disclosed(track, evaluator.score(key, sample.read_bytes()))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # gradio_client looks outside at connect
    with AppServer(env={"LEADERBOARD_BENCHMARK": str(out)}) as server:
        client = Client(server.url, verbose=False)
        numbers = client.predict(handle_file(str(sample)), api_name="/score")
    assert numbers == expected.model_dump(mode="json")
    assert numbers["n_questions"] == 60


@pytest.mark.slow
def test_the_readme_walk_through_runs_as_written(tmp_path: Path) -> None:
    """README, "Add a benchmark": its commands through bash, the release and the folder put in
    the test's own folder (nothing else changed); the last line serves what they wrote."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Add a benchmark") :]
    block = section[section.index("```sh\n") + 6 : section.index("```\n", section.index("```sh"))]
    *commands, serve = [line for line in block.replace("\\\n", " ").splitlines() if line.strip()]
    assert serve == "LEADERBOARD_BENCHMARK=benchmarks/mybench make run"
    release_dir = tmp_path / "release"
    release_dir.mkdir()
    _csv_release(release_dir)
    script = "\n".join(c for c in commands if not c.lstrip().startswith("#"))
    script = script.replace("benchmarks/mybench", str(tmp_path / "mybench"))
    script = script.replace("release/val_key.csv", str(release_dir / "val_key.csv"))
    done = subprocess.run(
        ["bash", "-e", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "The main release is consistent: 60 rows" in done.stdout
    assert spec.load_benchmark(str(tmp_path / "mybench")).id == "mybench"


def test_a_release_s_own_predictions_score_its_authors_numbers_with_prediction(
    tmp_path: Path,
) -> None:
    """The release's evaluation reads {"<id>": {"prediction": <index>, ...}}: --prediction
    names that field, and the authors' own file then validates and scores their numbers on the
    folder written from the key alone (no flag: the composed id is inferred)."""
    authors = write_release(tmp_path / "release", "videoqa")
    out = tmp_path / "scaffolded"
    args = ("--id", "videoqa", "--key", str(authors.key), "--out", str(out))
    done = _run("scripts/new_benchmark.py", *args, "--prediction", "prediction")
    assert done.returncode == 0, done.stderr
    assert "a submission's answer is its entries' 'prediction'" in done.stdout
    checked = _run(
        "scripts/validate_submission.py",
        "--benchmark",
        str(out),
        "--public",
        str(out / "release" / "val_public.csv"),
        str(authors.predictions),
    )
    assert checked.returncode == 0 and checked.stdout.startswith(
        "valid: an entry for each of the 60 "
    ), checked
    track = spec.load_benchmark(str(out)).track(kind=spec.MultipleChoiceTrack)
    key = evaluator.load_answer_key(track, authors.key.read_bytes())
    scored = evaluator.score(key, authors.predictions.read_bytes())
    assert scored.metrics[track.overall.key] == authors_numbers(authors)["overall"]
    # Its groups have 10-20 questions: a visitor who answers them all is shown every one.
    assert evaluator.disclosed(track, scored).withheld == {}
    # Without the flag the authors' file is told to rename its field: the scaffold writes the
    # names people use for a prediction as the spec's prediction_aliases (issue 28).
    bare = tmp_path / "bare"
    assert _run("scripts/new_benchmark.py", *args[:-1], str(bare)).returncode == 0
    refused = _run(
        "scripts/validate_submission.py",
        "--benchmark",
        str(bare),
        "--public",
        str(bare / "release" / "val_public.csv"),
        str(authors.predictions),
    )
    assert (
        '60 entries use "prediction" (e.g. the 1st, 2nd, 3rd, 4th, 5th, 6th, 7th, 8th, 9th, '
        '10th, ... entries); rename the field to "predicted_answer"'
    ) in refused.stdout + refused.stderr
