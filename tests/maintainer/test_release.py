"""release.py and scripts/validate_benchmark.py; the maintainer scripts on a second benchmark.

Broken releases are built from the shipped demo releases (EgoMemReason: JSON key, JSONL public
file, integer ids; EgoArgus: CSV files, string ids, 15 out-of-option rows), one fault each, with
the message each must produce. Then the scripts as a maintainer of EgoArgus runs them: publish
its demo run, reproduce it, seed its paper rows, rotate its key.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import io
import json
import math
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import errors
import evaluator
import ledger
import spec
from maintainer import release
from scripts import publish_submission, reproduce_row, reshuffle_options, seed_paper_baselines
from tests.support.scripts import run_script

EGOMEM = spec.load_benchmark("egomemreason")
MEMORY = EGOMEM.track(kind=spec.MultipleChoiceTrack)
HAS_EGOARGUS = (spec.BENCHMARKS_DIR / "egoargus" / spec.SPEC_FILENAME).is_file()
needs_egoargus = pytest.mark.skipif(not HAS_EGOARGUS, reason="benchmarks/egoargus not there yet")
SALT = "test-salt-7f3a9c2e41d8b605"

Rows = list[dict[str, Any]]


# --- the demo releases as rows, and back to bytes -----------------------------------------------


@dataclass
class Release:
    """A track's demo key and public file, as rows to break and bytes to check."""

    track: spec.MultipleChoiceTrack
    key: Rows
    public: Rows
    key_version: str | None = None
    public_columns: list[str] | None = None  # CSV

    def key_bytes(self) -> bytes:
        if self.track.key.format == "csv":
            return _csv(self.key, list(self.key[0]))
        return (
            json.dumps(
                {"key_version": self.key_version, "samples": self.key}, indent=1, ensure_ascii=False
            )
            + "\n"
        ).encode()

    def public_bytes(self) -> bytes:
        if self.track.public.format == "csv":
            columns = list(self.public_columns or self.public[0])
            extra = [c for r in self.public for c in r if c not in columns]
            return _csv(self.public, columns + sorted(set(extra)))
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.public).encode()

    def write(self, folder: Path) -> tuple[Path, Path]:
        key, public = folder / self.track.key.name, folder / self.track.public.name
        key.write_bytes(self.key_bytes())
        public.write_bytes(self.public_bytes())
        return key, public


def _csv(rows: Rows, columns: list[str]) -> bytes:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n", restval="")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue().encode()


def _csv_rows(data: bytes) -> Rows:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


_BASE: dict[str, Release] = {}


def demo_release(bench_id: str) -> Release:
    """A fresh copy of a benchmark's demo release as rows (parsed once per session)."""
    if bench_id not in _BASE:
        bench = spec.load_benchmark(bench_id)
        track = bench.track(kind=spec.MultipleChoiceTrack)
        key_data, public_data = (
            bench.demo_key(track).read_bytes(),
            bench.demo_public(track).read_bytes(),
        )
        if track.key.format == "csv":
            public = _csv_rows(public_data)
            _BASE[bench_id] = Release(
                track, _csv_rows(key_data), public, public_columns=list(public[0])
            )
        else:
            payload = json.loads(key_data)
            public = [json.loads(line) for line in public_data.decode().splitlines()]
            _BASE[bench_id] = Release(track, payload["samples"], public, payload["key_version"])
    return copy.deepcopy(_BASE[bench_id])


def _by_id(rows: Rows, ident: object) -> dict[str, Any]:
    return next(r for r in rows if r["example_id"] == ident)


def _flagged(rows: Rows) -> list[dict[str, Any]]:
    return [r for r in rows if r.get("label_status") == "out_of_option"]


def _unflagged(rows: Rows) -> list[dict[str, Any]]:
    return [r for r in rows if r.get("label_status") != "out_of_option"]


# Each fault: (benchmark, change to the release, fragments of the message, problem count).
def _drop_public_row(r: Release) -> None:
    r.public.remove(_by_id(r.public, 17))


def _edit_question(r: Release) -> None:
    _by_id(r.public, 17)["question"] += " (edited)"


def _edit_option(r: Release) -> None:
    _by_id(r.public, 17)["options"]["A"] += "!"


def _edit_query_type(r: Release) -> None:
    _by_id(r.public, 17)["query_type"] = "Temporal Counting"


def _drop_question(r: Release) -> None:
    del _by_id(r.public, 17)["question"]
    r.public[3] = ["not", "a", "row"]  # type: ignore[call-overload]


def _resize_groups(r: Release) -> None:
    for rows in (r.key, r.public):
        _by_id(rows, 17)["query_type"] = "Temporal Counting"


def _leak_answers(r: Release) -> None:
    r.public = [{**row, "key_version": r.key_version} for row in r.key]  # the same version


def _letter_out_of_range(r: Release) -> None:
    for rows in (r.key, r.public):
        _by_id(rows, 17)["options"]["K"] = "one letter too far"


def _answer_beyond_options(r: Release) -> None:
    row = _by_id(r.key, 17)
    row["correct_answer"] = "J" if len(row["options"]) < 10 else "K"


def _unflag_out_of_option(r: Release) -> None:
    _flagged(r.key)[0]["label_status"] = ""


def _flag_in_option(r: Release) -> None:
    _unflagged(r.key)[0]["label_status"] = "out_of_option"


def _one_flag_fewer(r: Release) -> None:
    row = _flagged(r.key)[0]
    row["label_status"], row["correct_answer"] = "", "A"


def _leak_flags(r: Release) -> None:
    flags = {row["example_id"]: row["label_status"] for row in r.key}
    for row in r.public:
        row["label_status"] = flags[row["example_id"]]


def _first(bench_id: str, pick: Callable[[Rows], list[dict[str, Any]]]) -> str:
    return (
        str(pick(demo_release(bench_id).key)[0]["example_id"])
        if (bench_id != "egoargus" or HAS_EGOARGUS)
        else "?"
    )


FAULTS: list[Any] = [
    pytest.param(
        "egomemreason",
        _drop_public_row,
        [
            "annotations_private.json and annotations_public.jsonl: 1 example_id only in "
            "the private key (17)",
            "Pass the public file released with this very key",
        ],
        1,
        id="id-only-in-the-key",
    ),
    pytest.param(
        "egomemreason",
        _edit_question,
        ["1 question whose question texts differ (17)"],
        1,
        id="question-text",
    ),
    pytest.param(
        "egomemreason", _edit_option, ["1 question whose options differ (17)"], 1, id="option"
    ),
    pytest.param(
        "egomemreason",
        _edit_query_type,
        ["1 question whose query types differ (17)"],
        1,
        id="grouping-value",
    ),
    pytest.param(
        "egomemreason",
        _drop_question,
        [
            "annotations_public.jsonl: 1 row of the public file is not an object (the 4th row)",
            "annotations_public.jsonl: 1 row of the public file has no text question (17)",
        ],
        2,
        id="unusable-public-rows",
    ),
    pytest.param(
        "egomemreason",
        _resize_groups,
        [
            "annotations_private.json: 2 of the 6 query_type groups differ from the spec: "
            "Cumulative State Tracking has 99 (expected 100); Temporal Counting has 101 "
            "(expected 100)"
        ],
        1,
        id="group-size",
    ),
    pytest.param(
        "egomemreason",
        _leak_answers,
        [
            "annotations_public.jsonl: 500 rows of the public file carry a correct_answer "
            "(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ...); a public file must not contain answers"
        ],
        1,
        id="answers-in-the-public-file",
    ),
    pytest.param(
        "egomemreason",
        _letter_out_of_range,
        [
            "annotations_private.json: invalid answer key: 1 question whose option letters "
            "are not A.. without gaps, 4 to 10 of them (17)"
        ],
        1,
        id="letters-out-of-range",
    ),
    pytest.param(
        "egomemreason",
        _answer_beyond_options,
        ["1 question whose correct_answer is not one of their options (17)"],
        1,
        id="answer-beyond-the-options",
    ),
    pytest.param(
        "egoargus",
        _unflag_out_of_option,
        [
            "understanding_private.csv: invalid answer key: 1 question whose correct_answer "
            "is not one of their options (" + _first("egoargus", _flagged) + "); such rows "
            "are accepted only when flagged label_status = out_of_option"
        ],
        1,
        id="unflagged-out-of-option-row",
        marks=needs_egoargus,
    ),
    pytest.param(
        "egoargus",
        _flag_in_option,
        [
            "1 question is flagged label_status = out_of_option although their "
            "correct_answer is one of their options (" + _first("egoargus", _unflagged) + ")"
        ],
        1,
        id="flagged-in-option-row",
        marks=needs_egoargus,
    ),
    pytest.param(
        "egoargus",
        _one_flag_fewer,
        [
            "understanding_private.csv: 14 rows are flagged label_status = out_of_option; "
            "the spec declares 15"
        ],
        1,
        id="flag-count",
        marks=needs_egoargus,
    ),
    pytest.param(
        "egoargus",
        _leak_flags,
        [
            "understanding_public.csv: 6978 rows of the public file carry the label_status field",
            "drop the field",
        ],
        1,
        id="flags-in-the-public-file",
        marks=needs_egoargus,
    ),
]


@pytest.mark.parametrize(("bench_id", "change", "fragments", "n_problems"), FAULTS)
def test_a_broken_release_is_refused_with_its_message(
    bench_id: str, change: Callable[[Release], None], fragments: list[str], n_problems: int
) -> None:
    broken = demo_release(bench_id)
    change(broken)
    with pytest.raises(errors.ReleaseError) as exc:
        release.check_release(broken.track, broken.key_bytes(), broken.public_bytes())
    message = str(exc.value)
    for fragment in fragments:
        assert fragment in message
    assert len(exc.value.problems) == n_problems, message
    assert message.startswith(f"the {broken.track.id} release has {n_problems} problem")


@pytest.mark.parametrize(
    "bench_id", ["egomemreason", pytest.param("egoargus", marks=needs_egoargus)]
)
def test_the_shipped_demo_releases_pass(bench_id: str) -> None:
    bench = spec.load_benchmark(bench_id)
    track = bench.track()
    key, public = bench.demo_key(track).read_bytes(), bench.demo_public(track).read_bytes()
    report = release.check_release(track, key, public)
    assert report.key_sha256 == hashlib.sha256(key).hexdigest()
    assert report.public_sha256 == hashlib.sha256(public).hexdigest()
    assert len(report.key) == report.public_rows == track.total
    summary = report.summary()
    for group in track.groups:
        assert f"{group.value} {group.size}" in summary
    assert report.key_sha256 in summary and report.public_sha256 in summary
    # rebuilt from rows, the release still passes: the fault table's faults are the only faults
    rebuilt = demo_release(bench_id)
    release.check_release(track, rebuilt.key_bytes(), rebuilt.public_bytes())


@needs_egoargus
def test_a_release_warns_of_what_min_rows_would_withhold_from_every_file() -> None:
    """Issue 28: a group with fewer questions a file can answer than min_rows (out-of-option
    rows aside) is named with what it takes with it and the fix; a decision track only when the
    key has fewer episodes than min_rows. The shipped releases have none."""
    argus = spec.load_benchmark("egoargus")
    for track in argus.tracks:
        key = evaluator.load_answer_key(track, argus.demo_key(track).read_bytes())
        assert evaluator.release_warnings(key) == []
    understanding = argus.track("understanding", kind=spec.MultipleChoiceTrack)
    sizes = sorted((g.size, g.key) for g in understanding.groups)
    smallest, key_name = sizes[0]
    limit = smallest + 1  # above the smallest group alone
    data = argus.demo_key(understanding).read_bytes()
    key = evaluator.kinds.multiple_choice.load_key(
        understanding.model_copy(update={"min_rows": limit}), data
    )
    warnings = evaluator.release_warnings(key)
    told = smallest - sum(q.out_of_option for q in key.questions if key_name in _keys(key, q))
    named = [w for w in warnings if f"({key_name}" in w]
    assert len(named) == 1, warnings
    assert named[0].startswith(f"min_rows = {limit} is above the {told} questions of the group")
    assert "nor Overall" in named[0] and f"lower min_rows to {told}" in named[0]
    if told != smallest:
        assert f"; {smallest - told} more are out of option)" in named[0]
    decision = argus.track("decision")
    few = evaluator.load_answer_key(
        decision.model_copy(update={"min_rows": 10_000}), argus.demo_key(decision).read_bytes()
    )
    [warning] = evaluator.release_warnings(few)
    assert warning.startswith(f"min_rows = 10000 is above the {len(few)} episodes of ")
    assert "never shows any metric" in warning


def _keys(key: evaluator.AnswerKey, question: evaluator.Question) -> set[str]:
    """The group keys of a question of ``key``."""
    track = key.track
    return {
        g.key
        for grouping, value in zip(track.groupings, question.groups, strict=True)
        for g in grouping.groups
        if value in g.values
    }


# --- validate_benchmark.py, through its main([...]) --------------------------------------------


def validate(*args: str) -> subprocess.CompletedProcess[str]:
    return run_script("validate_benchmark.py", *args)


@pytest.mark.parametrize(
    "bench_id", ["egomemreason", pytest.param("egoargus", marks=needs_egoargus)]
)
def test_validate_benchmark_passes_on_a_shipped_demo_release(bench_id: str) -> None:
    bench = spec.load_benchmark(bench_id)
    track = bench.track()
    key, public = bench.demo_key(track), bench.demo_public(track)
    done = validate("--benchmark", bench_id, "--private", str(key), "--public", str(public))
    assert (done.returncode, done.stderr) == (0, "")
    for path in (key, public):
        assert f"sha256 {hashlib.sha256(path.read_bytes()).hexdigest()}  {path}" in done.stdout
    assert "release is consistent" in done.stdout
    assert f"{track.total} rows" in done.stdout


def test_validate_benchmark_lists_every_problem_of_a_broken_release(tmp_path: Path) -> None:
    broken = demo_release("egomemreason")
    _drop_public_row(broken)  # 17 only in the key
    _by_id(broken.public, 18)["question"] += " (edited)"
    _by_id(broken.public, 19)["options"]["A"] += "!"
    for rows in (broken.key, broken.public):
        _by_id(rows, 20)["query_type"] = "Temporal Counting"
    broken.public = [{**row, "correct_answer": "A"} for row in broken.public]
    key, public = broken.write(tmp_path)
    done = validate("--benchmark", "egomemreason", "--private", str(key), "--public", str(public))
    assert done.returncode == 1
    assert f"sha256 {hashlib.sha256(key.read_bytes()).hexdigest()}" in done.stdout
    err = done.stderr
    assert err.startswith("error: egomemreason: the memory release has 5 problems:")
    for fragment in (
        "499 rows of the public file carry a correct_answer",
        "2 of the 6 query_type groups differ from the spec",
        "1 example_id only in the private key (17)",
        "1 question whose question texts differ (18)",
        "1 question whose options differ (19)",
    ):
        assert fragment in err
    assert err.count("\n- ") == 5


def test_validate_benchmark_refuses_a_broken_spec_naming_its_toml_path(tmp_path: Path) -> None:
    folder = tmp_path / "broken-bench"
    folder.mkdir()
    for name in ("about.md", "citation.bib"):
        (folder / name).write_bytes((EGOMEM.folder / name).read_bytes())
    toml = (EGOMEM.folder / spec.SPEC_FILENAME).read_text()
    (folder / spec.SPEC_FILENAME).write_text(toml.replace("size = 100 }", 'size = "100" }', 1))
    done = validate("--benchmark", str(folder), "--private", "x", "--public", "y")
    assert done.returncode == 1
    assert 'size: expected a positive integer, got "100"' in done.stderr


# --- the scripts on EgoArgus ---------------------------------------------------------------


@pytest.fixture
def egoargus() -> spec.Benchmark:
    if not HAS_EGOARGUS:
        pytest.skip("benchmarks/egoargus not there yet")
    return spec.load_benchmark("egoargus")


def _records(folder: Path) -> list[ledger.Record]:
    return [
        ledger.Record.from_json(p.read_bytes())
        for p in sorted((folder / "submissions").glob("*.json"))
    ]


def test_publish_and_reproduce_egoargus_s_demo_run(
    egoargus: spec.Benchmark, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    track = egoargus.track()
    key, sample = egoargus.demo_key(track), egoargus.demo_dir / "sample_submission.json"
    board = tmp_path / "board"
    board.mkdir()
    choice = next(iter(egoargus.input.choices))
    assert (
        publish_submission.main(
            [
                "--benchmark",
                "egoargus",
                "--submission",
                str(sample),
                "--private",
                str(key),
                "--team-name",
                "Demo Lab",
                "--method-name",
                "DemoVLM-7B",
                "--model-size",
                "7B",
                "--uses-external",
                "no",
                "--uses-frames",
                choice,
                "--leaderboard-dir",
                str(board),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "LEADERBOARD_BENCHMARK=egoargus" in out
    (record,) = _records(board)
    result = evaluator.score(
        evaluator.load_answer_key(track, key.read_bytes()), sample.read_bytes()
    )
    assert (record.benchmark, record.track, record.schema_version) == ("egoargus", track.id, 2)
    assert record.metrics == result.metrics and record.counts == result.counts
    assert record.counts is not None and record.counts["overall_answerable"].total == 6963
    assert record.provenance is not None
    assert record.provenance.scorer_version == track.scorer_version
    ledger.check_record(record, egoargus, track)

    path = board / record.path()
    assert (
        reproduce_row.main(
            [
                "--benchmark",
                "egoargus",
                "--record",
                str(path),
                "--submission",
                str(sample),
                "--private",
                str(key),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("reproduced") and f"{len(track.metric_keys)} metrics" in out
    # without --benchmark the record's own benchmark and track are taken (issue 21) ...
    assert (
        reproduce_row.main(
            ["--record", str(path), "--submission", str(sample), "--private", str(key)]
        )
        == 0
    )
    assert capsys.readouterr().out.startswith("reproduced")
    # ... and the same row named as EgoMemReason's is not EgoMemReason's
    assert (
        reproduce_row.main(
            [
                "--benchmark",
                "egomemreason",
                "--record",
                str(path),
                "--submission",
                str(sample),
                "--private",
                str(key),
            ]
        )
        == 1
    )
    assert f"belongs to egoargus/{track.id}, not egomemreason/memory" in capsys.readouterr().err
    # an input choice of another benchmark is refused, naming this one's
    other = next(c for c in EGOMEM.input.choices if c not in egoargus.input.choices)
    assert (
        publish_submission.main(
            [
                "--benchmark",
                "egoargus",
                "--submission",
                str(sample),
                "--private",
                str(key),
                "--team-name",
                "T",
                "--method-name",
                "M",
                "--model-size",
                "",
                "--uses-external",
                "no",
                "--uses-frames",
                other,
                "--leaderboard-dir",
                str(board),
            ]
        )
        == 1
    )
    err = capsys.readouterr().err
    assert f"{other!r} is not a known" in err and all(c in err for c in egoargus.input.choices)


def test_seed_egoargus_s_paper_rows_with_a_macro_scenario_mean(
    egoargus: spec.Benchmark, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board = tmp_path / "board"
    assert (
        seed_paper_baselines.main(["--benchmark", "egoargus", "--leaderboard-dir", str(board)]) == 0
    )
    assert "wrote 2 paper rows" in capsys.readouterr().out
    track = egoargus.track(
        egoargus.paper.track if egoargus.paper else None, kind=spec.MultipleChoiceTrack
    )
    (mean,) = [a for a in track.aggregates if a.aggregation == "macro"]
    scenarios = track.members(mean)
    assert len(scenarios) == 5
    records = _records(board)
    assert len(records) == 2
    for record in records:
        ledger.check_record(record, egoargus, track)
        assert (record.benchmark, record.track) == ("egoargus", track.id)
        values = [record.metrics[s] for s in scenarios]
        assert record.metrics[mean.key] == sum(values) / len(values)
        # the paper prints no task columns and no answerable overall: none is made up
        assert not {"overall_answerable", "egoplan", "qaego4d", "mintrec"} & set(record.metrics)
        assert egoargus.paper is not None
        assert record.publication_url == egoargus.paper.url
        assert record.method_description.startswith(
            f"Reported in {egoargus.paper.table} of the {egoargus.title} paper"
        )
    by_name = {r.method_name: r for r in records}
    assert round(by_name["Qwen3.5-2B"].metrics[mean.key], 1) == 52.1  # about.md's example
    assert (
        seed_paper_baselines.main(["--benchmark", "egoargus", "--leaderboard-dir", str(board)]) == 0
    )
    assert "nothing new" in capsys.readouterr().out


@pytest.mark.slow  # seconds of rotating 6,978 questions
def test_reshuffle_egoargus_s_demo_key(
    egoargus: spec.Benchmark, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    track = egoargus.track()
    key, public = egoargus.demo_key(track), egoargus.demo_public(track)
    out_dir = tmp_path / "rotated"
    done = run_script(
        "reshuffle_options.py",
        *("--benchmark", "egoargus", "--private", str(key), "--public", str(public)),
        *("--salt", SALT, "--key-version", "v2", "--out-dir", str(out_dir)),
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert "15 out-of-option rows keep their answer as it is" in done.stdout
    # a CSV key names its version in a column, and so does every row of the public file
    assert "Both files name key version v2 (the key in a key_version column" in done.stdout
    new_key, new_public = out_dir / track.key.name, out_dir / track.public.name
    release.check_release(track, new_key.read_bytes(), new_public.read_bytes())

    old_rows, new_rows = _csv_rows(key.read_bytes()), _csv_rows(new_key.read_bytes())
    assert [r["example_id"] for r in new_rows] == [r["example_id"] for r in old_rows]
    assert list(new_rows[0]) == list(old_rows[0])  # the same columns, in order
    flagged = 0
    for before, after in zip(old_rows, new_rows, strict=True):
        assert (before["key_version"], after["key_version"]) == ("demo-1", "v2")
        assert {
            k: v for k, v in after.items() if k not in ("options", "correct_answer", "key_version")
        } == {
            k: v for k, v in before.items() if k not in ("options", "correct_answer", "key_version")
        }
        old_options, new_options = json.loads(before["options"]), json.loads(after["options"])
        assert sorted(old_options.values()) == sorted(new_options.values())
        if before["label_status"] == "out_of_option":
            flagged += 1
            assert after["correct_answer"] == before["correct_answer"]
        else:
            assert after["correct_answer"] != before["correct_answer"]
            assert new_options[after["correct_answer"]] == old_options[before["correct_answer"]]
    assert flagged == 15
    old_public, rotated_public = _csv_rows(public.read_bytes()), _csv_rows(new_public.read_bytes())
    assert [{k: v for k, v in r.items() if k != "options"} for r in rotated_public] == [
        {k: v for k, v in r.items() if k != "options"} | {"key_version": "v2"} for r in old_public
    ]
    assert evaluator.load_answer_key(track, new_key.read_bytes()).key_version == "v2"

    letter_map = json.loads((out_dir / "letter_map.json").read_bytes())
    assert "reshuffle_options.py --benchmark egoargus --remap-submission" in letter_map["note"]
    sample = egoargus.demo_dir / "sample_submission.json"
    remapped = tmp_path / "sample_v2.json"
    # without --benchmark, the map is recognised as another benchmark's
    assert (
        reshuffle_options.main(
            [
                "--remap-submission",
                str(sample),
                "--letter-map",
                str(out_dir / "letter_map.json"),
                "--out",
                str(remapped),
            ]
        )
        == 1
    )
    assert "is it the map of another benchmark? Pass its --benchmark" in capsys.readouterr().err
    assert not remapped.exists()
    status = reshuffle_options.main(
        [
            "--benchmark",
            "egoargus",
            "--remap-submission",
            str(sample),
            "--letter-map",
            str(out_dir / "letter_map.json"),
            "--out",
            str(remapped),
        ]
    )
    assert status == 0
    old_key = evaluator.load_answer_key(track, key.read_bytes())
    rotated = evaluator.load_answer_key(track, new_key.read_bytes())
    assert (
        evaluator.score(rotated, remapped.read_bytes()).counts
        == evaluator.score(old_key, sample.read_bytes()).counts
    )


# --- EgoArgus's decision track: its release and the scripts on it -------------------------------


@pytest.fixture
def decision_track(egoargus: spec.Benchmark) -> spec.DecisionTrack:
    return egoargus.track("decision", kind=spec.DecisionTrack)


def _jsonl_rows(data: bytes) -> Rows:
    return [json.loads(line) for line in data.decode().splitlines() if line.strip()]


def _jsonl_bytes(rows: Rows) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def test_the_decision_demo_release_passes(
    egoargus: spec.Benchmark, decision_track: spec.DecisionTrack
) -> None:
    key, public = (
        egoargus.demo_key(decision_track).read_bytes(),
        egoargus.demo_public(decision_track).read_bytes(),
    )
    report = release.check_release(decision_track, key, public)
    assert report.public_rows == len(report.key) == 789 and report.flagged == 0
    summary = report.summary()
    assert summary.startswith(
        "The decision release is consistent: 789 episodes in "
        "decision_private.jsonl and decision_public.jsonl"
    )
    assert "no_assistance 239" in summary and "safety 272, non_safety 278, none 239" in summary
    done = validate(
        "--benchmark",
        "egoargus",
        "--track",
        "decision",
        "--private",
        str(egoargus.demo_key(decision_track)),
        "--public",
        str(egoargus.demo_public(decision_track)),
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert "release is consistent: 789 episodes" in done.stdout


def _leak_scenario(key: Rows, public: Rows) -> None:
    for row, source in zip(public, key, strict=True):
        row["scenario"] = source["scenario"]


def _drop_public(key: Rows, public: Rows) -> None:
    public.pop(0)


def _edit_dialogue(key: Rows, public: Rows) -> None:
    public[1]["dialogue_time_s"] += 1


def _resize(key: Rows, public: Rows) -> None:
    key[0]["scenario"] = (
        "no_assistance" if key[0]["scenario"] != "no_assistance" else "contradictory"
    )
    key[0]["assist_type"] = "none" if key[0]["scenario"] == "no_assistance" else "safety"
    key[0]["intervention_time_s"] = None if key[0]["assist_type"] == "none" else 1.0


BROKEN_DECISION: list[tuple[str, Callable[[Rows, Rows], None], list[str], int]] = [
    (
        "scenario-left-in-public",
        _leak_scenario,
        [
            "789 rows of the public file carry a scenario (ep-000001, ",
            "must not contain answers "
            "(the no_assistance scenario alone says whether to assist): drop the field",
        ],
        1,
    ),
    (
        "episode-missing-from-public",
        _drop_public,
        ["1 example_id only in the private key (ep-000001)"],
        1,
    ),
    (
        "public-field-differs",
        _edit_dialogue,
        ["1 episode whose dialogue_time_s differs (ep-000002)"],
        1,
    ),
    ("scenario-sizes-off", _resize, ["2 of the 6 scenario groups differ from the spec"], 1),
]


@pytest.mark.parametrize(
    ("change", "fragments", "n_problems"),
    [(c, f, n) for _, c, f, n in BROKEN_DECISION],
    ids=[name for name, _, _, _ in BROKEN_DECISION],
)
def test_a_broken_decision_release_is_refused(
    egoargus: spec.Benchmark,
    decision_track: spec.DecisionTrack,
    change: Callable[[Rows, Rows], None],
    fragments: list[str],
    n_problems: int,
) -> None:
    key = _jsonl_rows(egoargus.demo_key(decision_track).read_bytes())
    public = _jsonl_rows(egoargus.demo_public(decision_track).read_bytes())
    change(key, public)
    with pytest.raises(errors.ReleaseError) as exc:
        release.check_release(decision_track, _jsonl_bytes(key), _jsonl_bytes(public))
    for fragment in fragments:
        assert fragment in str(exc.value)
    assert len(exc.value.problems) == n_problems, str(exc.value)


def test_publish_and_reproduce_a_decision_row_bit_for_bit(
    egoargus: spec.Benchmark,
    decision_track: spec.DecisionTrack,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    key = egoargus.demo_key(decision_track)
    sample = egoargus.demo_dir / "decision_sample_submission.json"
    board = tmp_path / "board"
    board.mkdir()
    assert (
        publish_submission.main(
            [
                "--benchmark",
                "egoargus",
                "--track",
                "decision",
                "--submission",
                str(sample),
                "--private",
                str(key),
                "--team-name",
                "Demo Lab",
                "--method-name",
                "DemoVLM-7B",
                "--model-size",
                "7B",
                "--uses-external",
                "no",
                "--uses-frames",
                "sampled-frames",
                "--leaderboard-dir",
                str(board),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "DemoVLM-7B by Demo Lab: Macro F1 0.690 (95 % CI 0.656–0.723), 10 abstentions" in out
    (record,) = _records(board)
    result = evaluator.score(
        evaluator.load_answer_key(decision_track, key.read_bytes()), sample.read_bytes()
    )
    assert (record.benchmark, record.track) == ("egoargus", "decision")
    assert record.metrics == result.metrics and record.counts == result.counts
    assert record.intervals == result.intervals
    ledger.check_record(record, egoargus, decision_track)

    path = board / record.path()
    argv = [
        "--benchmark",
        "egoargus",
        "--track",
        "decision",
        "--record",
        str(path),
        "--submission",
        str(sample),
        "--private",
        str(key),
    ]
    assert reproduce_row.main(argv) == 0
    out = capsys.readouterr().out
    numbers = f"{len(result.metrics)} metrics, {len(result.counts)} counts, "
    numbers += f"{len(result.intervals)} intervals"  # 18, 12 and 14 since Macro F1 (issue 21)
    assert out.startswith("reproduced") and numbers in out
    assert out.rstrip().endswith("(Macro F1 0.690)")  # the ranking metric since issue 21
    # the F1's bootstrap interval is compared bit for bit, as every metric is
    payload = json.loads(path.read_bytes())
    low, high = payload["intervals"]["decision_f1"]
    payload["intervals"]["decision_f1"] = [low, math.nextafter(high, 1.0)]
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(payload))
    assert reproduce_row.main([*argv[:5], str(tampered), *argv[6:]]) == 1
    err = capsys.readouterr().err
    assert "NOT reproduced" in err and "intervals.decision_f1: record (" in err
    # without --track the record's own track is taken (issue 21) ...
    assert reproduce_row.main(argv[4:]) == 0  # --record, --submission, --private only
    assert capsys.readouterr().out.startswith("reproduced")
    # ... and the row named as the understanding track's is another track's
    assert (
        reproduce_row.main(
            [
                "--benchmark",
                "egoargus",
                "--track",
                "understanding",
                "--record",
                str(path),
                "--submission",
                str(sample),
                "--private",
                str(key),
            ]
        )
        == 1
    )
    assert "belongs to egoargus/decision, not egoargus/understanding" in capsys.readouterr().err


def test_seed_the_decision_paper_rows_in_the_paper_s_own_columns(
    egoargus: spec.Benchmark,
    decision_track: spec.DecisionTrack,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    board = tmp_path / "board"
    assert (
        seed_paper_baselines.main(
            ["--benchmark", "egoargus", "--track", "decision", "--leaderboard-dir", str(board)]
        )
        == 0
    )
    assert "wrote 7 paper rows" in capsys.readouterr().out
    records = _records(board)
    assert len(records) == 7
    for record in records:
        ledger.check_record(record, egoargus, decision_track)
        assert record.track == "decision" and record.source == "paper"
        assert set(record.metrics) == set(decision_track.paper_metric_keys)  # only the paper's
        assert record.note is not None and "not this Space's" in record.note
        assert record.method_description.startswith("Reported in Table 2 of the EgoArgus paper")
    by_name = {r.method_name: r for r in records}
    gemini = by_name["Gemini-3.1-Flash-Lite"]
    assert gemini.metrics["paper_f1"] == 0.8117 and gemini.metrics["paper_signed_s"] == -2.497
    assert gemini.metrics["paper_f1/no_assistance"] == 0.3885
    assert (gemini.model_size, gemini.uses_frames) == ("API", "full-video")
    assert (by_name["Molmo2-8B"].model_size, by_name["Molmo2-8B"].uses_frames) == (
        "8B",
        "sampled-frames",
    )
    # the same model in Table 6 is another row
    understanding = seed_paper_baselines.main(
        ["--benchmark", "egoargus", "--leaderboard-dir", str(board)]
    )
    assert understanding == 0 and "wrote 2 paper rows" in capsys.readouterr().out
    assert len({r.id for r in _records(board)}) == 9


def test_reshuffle_says_a_decision_track_has_no_letters(
    egoargus: spec.Benchmark,
    decision_track: spec.DecisionTrack,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv in (
        [
            "--private",
            str(egoargus.demo_key(decision_track)),
            "--public",
            str(egoargus.demo_public(decision_track)),
            "--salt",
            SALT,
            "--key-version",
            "v2",
            "--out-dir",
            str(tmp_path / "out"),
        ],
        [
            "--remap-submission",
            "x.json",
            "--letter-map",
            "m.json",
            "--out",
            str(tmp_path / "y.json"),
        ],
    ):
        assert (
            reshuffle_options.main(["--benchmark", "egoargus", "--track", "decision", *argv]) == 1
        )
        err = capsys.readouterr().err
        assert err.startswith(
            "error: egoargus/decision is a decision track: its episodes have "
            "no option letters, so there is nothing to rotate or remap"
        )
        assert "(understanding) with --track" in err
    assert not (tmp_path / "out").exists()
