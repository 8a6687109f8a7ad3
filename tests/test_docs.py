"""The docs cannot drift: examples validate, every variable is documented, every --help works."""

from __future__ import annotations

import ast
import functools
import json
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

import evaluator
import spec
from evaluator.kinds import decision
from ledger import variables
from tests.support import ROOT
from tests.support.app_server import AppServer

BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track()
README = (ROOT / "README.md").read_text(encoding="utf-8")
ABOUT = BENCH.about_path.read_text(encoding="utf-8")
KEY = evaluator.load_answer_key(TRACK, BENCH.demo_key(TRACK).read_bytes())
SAMPLE = json.loads((BENCH.demo_dir / "sample_submission.json").read_text())


#: The Space's and the maintainer's Python: the root modules and every package but the tests,
#: the benchmarks' demo data scripts and the performance benchmarks.
PROJECT_MODULES = sorted(
    p
    for p in ROOT.rglob("*.py")
    if p.relative_to(ROOT).parts[0] not in {"tests", "benchmarks", "perf"}
    and not p.relative_to(ROOT).parts[0].startswith(".")
)


def _blocks(markdown: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", markdown, flags=re.S)


@pytest.mark.parametrize("doc", [README, ABOUT], ids=["README", "about.md"])
def test_the_example_submission_validates(doc: str) -> None:
    example = json.loads(_blocks(doc, "json")[0])
    assert example, "the example is empty"
    # The example's entries, completed with the sample run's other answers, score cleanly.
    given = {entry["example_id"] for entry in example}
    full = example + [e for e in SAMPLE if e["example_id"] not in given]
    result = evaluator.score(KEY, json.dumps(full).encode())
    assert result.n_questions == len(KEY)
    assert result.n_abstained >= sum(1 for e in example if e["predicted_answer"] is None)


def test_the_about_conversion_snippet_turns_reference_output_into_a_valid_submission(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = {
        "results": [
            {
                "example_id": e["example_id"],
                "query_type": "x",
                "correct_answer": "A",
                "pred": e["predicted_answer"],
                "is_correct": False,
            }
            for e in SAMPLE
        ],
        "summary": {"overall": 0.0},
    }
    (tmp_path / "results.json").write_text(json.dumps(results))
    monkeypatch.chdir(tmp_path)
    snippet = _blocks(ABOUT, "python")[0]
    exec(compile(snippet, "about.md", "exec"), {})
    converted = (tmp_path / "submission.json").read_bytes()
    expected = evaluator.score(KEY, (BENCH.demo_dir / "sample_submission.json").read_bytes())
    assert evaluator.score(KEY, converted).metrics == expected.metrics


def test_the_readme_s_table_is_the_reader_s_every_variable_its_values_and_default() -> None:
    """The Configuration table lists exactly ledger.variables.VARIABLES, in its order, each with
    what its values may be and its default (the meaning is the README's own prose)."""
    section = README.split("\n## Configuration\n")[1].split("\n## ")[0]
    rows = re.findall(r"^\| `([A-Z_]+)` \| .+ \| ([^|]+) \| ([^|]+) \|$", section, re.M)
    assert rows == [(x.name, x.values, x.default_text) for x in variables.VARIABLES]
    assert "GRADIO_SERVER_PORT" in section  # Gradio's own, under the table


def test_readme_front_matter_pins_the_gradio_of_requirements() -> None:
    pinned = re.search(r"^gradio==(\S+)$", (ROOT / "requirements.txt").read_text(), re.M)
    assert pinned is not None
    assert f"sdk_version: {pinned.group(1)}\n" in README
    assert README.startswith("---\n") and "app_file: app.py" in README


def test_readme_front_matter_has_the_leaderboard_explorer_tags_and_the_datasets() -> None:
    """The Hub's leaderboard explorer reads these; the datasets are the spec's public ones."""
    front = README.split("---\n")[1]
    tags = re.findall(r"^  - (\S+)$", front.split("datasets:")[0], re.M)
    assert {
        "leaderboard",
        "submission:manual",
        "test:private",
        "judge:auto",
        "modality:video",
    } <= set(tags)
    assert any(t.startswith("eval:") for t in tags)
    datasets = re.findall(r"^  - (\S+)$", front.split("datasets:")[1], re.M)
    assert BENCH.links.data is not None
    assert datasets == [
        BENCH.links.data.removeprefix("https://huggingface.co/datasets/"),
        BENCH.hub.records_repo,
    ]


def test_the_readme_gives_the_two_commands_first() -> None:
    first_block = README.index("```sh")
    assert "make run" in README[first_block : first_block + 200]
    assert "make test" in README[first_block : first_block + 300]


def _code_strings(source: str) -> list[str]:
    """Every string literal of a module but its docstrings (examples there are prose)."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


#: The metric names a track kind itself defines (the contract of every track of that kind), as
#: opposed to those a benchmark declares.
KIND_KEYS = {
    spec.Overall().key,
    spec.OutOfOption.model_fields["answerable"].default.key,
    *decision.METRICS,
}


#: A fact that is one ordinary word ("count", "type", "other", "Entity": letters alone, at
#: most the first a capital) is also the code's own vocabulary; a benchmark's facts are names.
_ORDINARY_WORD = re.compile(r"^[A-Za-z][a-z]*$")


def _distinctive(fact: str) -> bool:
    """Whether ``fact`` could only be one benchmark's: longer than three characters and not
    one ordinary word (a name like "EgoArgus", a label of several words, a repo, a file)."""
    return len(fact) > 3 and not _ORDINARY_WORD.match(fact)


def benchmark_facts_in(folders: list[Path], code: dict[Path, list[str]]) -> list[str]:
    """Each fact of the benchmarks in ``folders`` found in ``code`` (a module's string
    literals): their titles, e-mails, repos, paper team and link, file names, scorer versions,
    input choices, question counts ("500 questions"), and the group values, metric keys,
    labels and grouping fields that are names rather than ordinary words."""
    found = []
    for folder in folders:
        bench = spec.load_benchmark(str(folder))
        names = {
            bench.title,
            bench.contact_email,
            bench.hub.private_repo,
            bench.hub.records_repo,
            *(r for r in (bench.hub.dataset, bench.hub.space) if r is not None),
            *((bench.paper.team, bench.paper.url) if bench.paper else ()),
        }
        words = set(bench.input.choices.values())
        sizes = set()
        for track in bench.tracks:
            names |= {track.key.name, track.public.name, track.scorer_version}
            words |= {v for g in track.groups for v in g.values} | {g.key for g in track.groups}
            words |= {g.label for g in track.groups} | {a.label for a in track.aggregates}
            words |= {a.key for a in track.aggregates} | {g.field for g in track.groupings}
            words |= set(track.metric_keys) - KIND_KEYS
            sizes |= {sum(g.size for g in grouping.groups) for grouping in track.groupings}
        facts = names | {w for w in words if isinstance(w, str) and _distinctive(w)}
        counted = [rf"\b{n} (?:questions|episodes|rows)\b" for n in sorted(sizes)]
        for path, strings in code.items():
            text = "\n".join(strings)
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            found += [
                f"{where}: {fact!r}"
                for fact in sorted(facts)
                if len(fact) > 3 and re.search(rf"\b{re.escape(fact)}\b", text)
            ]
            found += [f"{where}: {m.group(0)!r}" for c in counted for m in re.finditer(c, text)]
    return found


@functools.cache
def _project_code() -> dict[Path, list[str]]:
    """Each project module's string literals, read once a test process (the tests only read
    them)."""
    return {p: _code_strings(p.read_text(encoding="utf-8")) for p in PROJECT_MODULES}


def test_no_benchmark_fact_is_left_in_the_code() -> None:
    """Every benchmark's facts are in its folder: none of its names, titles, repos, e-mail,
    file names or sizes may appear in the Space's Python."""
    folders = sorted(p.parent for p in (ROOT / "benchmarks").glob("*/benchmark.toml"))
    assert len(folders) >= 2
    found = benchmark_facts_in(folders, _project_code())
    assert not found, found


#: A benchmark whose spec uses ordinary words: a grouping on its release's column ``type``,
#: groups ``count``, ``tp``, ``tn`` and ``other`` (issue 19: adding it failed this test).
ORDINARY_SPEC = """
id = "plainbench"
title = "PlainBench"
description = "Four questions grouped by their type."
contact_email = "plain@example.org"

[hub]
private_repo = "plain/PlainBench-Private"
records_repo = "plain/PlainBench-Leaderboard"

[input]
label = "Input"
choices = { "text" = "Text" }

[[tracks]]
id = "main"
title = "Main"
kind = "multiple_choice"
scorer_version = "plainbench-scorer 0.1"
min_rows = 1
key = { name = "plain_key.jsonl", format = "jsonl" }
public = { name = "plain_questions.jsonl", format = "jsonl" }
options = { letters = "AB", min = 2, max = 2 }

[tracks.fields]
id = "qid"
question = "question"
options = "options"
answer = "answer"
prediction = "prediction"

[[tracks.groupings]]
id = "type"
field = "type"
title = "Types"
groups = [
  { value = "count", key = "count", label = "Count", size = 1 },
  { value = "tp", key = "tp", label = "TP", size = 1 },
  { value = "tn", key = "tn", label = "TN", size = 1 },
  { value = "other", key = "other", label = "Other", size = 1 },
]

[[tracks.views]]
title = "Types"
metrics = ["count", "tp", "tn", "other"]
columns = ["rank_range", "source", "team"]
"""


@pytest.fixture
def plain_folder(tmp_path: Path) -> Path:
    """The ordinary-word benchmark written into a benchmarks folder of the test's own."""
    root = tmp_path / "benchmarks" / "plainbench"
    (root / "demo").mkdir(parents=True)
    (root / "benchmark.toml").write_text(ORDINARY_SPEC)
    (root / "about.md").write_text("## PlainBench\n\nFour synthetic questions.\n")
    (root / "citation.bib").write_text("@misc{plain, title = {PlainBench}}\n")
    rows = [
        {"qid": i, "question": f"[SYNTHETIC] q{i}", "options": {"A": "x", "B": "y"}, "type": t}
        for i, t in enumerate(("count", "tp", "tn", "other"), 1)
    ]
    public = "".join(json.dumps(r) + "\n" for r in rows)
    (root / "demo" / "plain_questions.jsonl").write_text(public)
    key = "".join(json.dumps(r | {"answer": "A"}) + "\n" for r in rows)
    (root / "demo" / "plain_key.jsonl").write_text(key)
    return root


def test_a_benchmark_of_ordinary_words_is_no_fact_in_the_code(plain_folder: Path) -> None:
    """Issue 19: a new folder never breaks ``make test``; its ordinary words are no facts."""
    assert benchmark_facts_in([plain_folder], _project_code()) == []


def test_a_benchmarks_names_and_sizes_in_the_code_are_found(plain_folder: Path) -> None:
    """The check still catches what would really be one benchmark's (it can fail)."""
    code = {
        Path("planted.py"): [
            "Welcome to the PlainBench Leaderboard",
            "plain/PlainBench-Leaderboard",
            "the 4 questions of the release",
            "count",  # an ordinary word: not a fact
        ]
    }
    assert benchmark_facts_in([plain_folder], code) == [
        "planted.py: 'PlainBench'",
        "planted.py: 'plain/PlainBench-Leaderboard'",
        "planted.py: '4 questions'",
    ]


API = README[README.index("## The API") : README.index("## Benchmarks as folders")]
#: What the examples name, replaced by the test's server and file (nothing else is changed).
EXAMPLE_URL, EXAMPLE_FILE = "http://127.0.0.1:7860", "submission.json"


@pytest.fixture(scope="module")
def api_server() -> Iterator[AppServer]:
    with AppServer() as server:
        yield server


@pytest.mark.server
def test_the_readme_gradio_client_example_runs_against_a_real_server(
    api_server: AppServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    [snippet] = _blocks(API, "python")
    (tmp_path / EXAMPLE_FILE).write_bytes((BENCH.demo_dir / "sample_submission.json").read_bytes())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # gradio_client looks outside at connect
    names: dict[str, object] = {}
    exec(compile(snippet.replace(EXAMPLE_URL, api_server.url), "README", "exec"), names)
    expected = evaluator.disclosed(
        KEY.track, evaluator.score(KEY, (tmp_path / EXAMPLE_FILE).read_bytes())
    )
    assert names["numbers"] == expected.model_dump(mode="json")  # the object a visitor is shown
    rows = names["rows"]
    assert isinstance(rows, list) and rows and "method_name" in rows[0]


def _curl_script(server: AppServer, path: Path) -> str:
    """The README's curl example, its URL and file swapped for the test's."""
    [snippet] = _blocks(API, "bash")
    assert f"URL={EXAMPLE_URL}\n" in snippet and f"FILE={EXAMPLE_FILE}\n" in snippet
    return snippet.replace(f"URL={EXAMPLE_URL}", f"URL={server.url.rstrip('/')}").replace(
        f"FILE={EXAMPLE_FILE}",
        f"FILE={shlex.quote(str(path))}",  # as a shell user writes it
    )


@pytest.mark.server
def test_the_readme_curl_example_says_the_size_limit_of_a_file_over_it(
    api_server: AppServer, tmp_path: Path
) -> None:
    """Issue 31, item 11: with a file over 5 MB the recipe ended in a KeyError traceback
    (step 1 read the refusal as a list) and {"error": null} (step 2 called /score without a
    file). It stops at the upload, saying the limit."""
    big = tmp_path / "big_submission.json"
    big.write_bytes(b"[" + b" " * (6 * 1024 * 1024) + b"]")
    done = subprocess.run(
        ["bash", "-c", _curl_script(api_server, big)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    assert "Traceback" not in said and "KeyError" not in said, said
    assert '"error": null' not in said and "event_id" not in said, said
    assert "5 MB" in done.stderr, done.stderr


@pytest.mark.server
def test_the_readme_curl_example_runs_in_bash_against_a_real_server(
    api_server: AppServer, tmp_path: Path
) -> None:
    """The README's exact text through ``bash -c``, its URL and file swapped for the test's."""
    missing = [tool for tool in ("bash", "curl", "python3") if shutil.which(tool) is None]
    assert not missing, (
        f"the README's curl example needs {missing}: apt-get install -y "
        "curl (`make test` installs it, as root)"
    )
    # A path as a checkout may have it: long, with a hyphen and a space.
    sample = tmp_path / "a checkout-folder with spaces" / "sample_submission.json"
    sample.parent.mkdir()
    shutil.copyfile(BENCH.demo_dir / "sample_submission.json", sample)
    script = _curl_script(api_server, sample)
    done = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "event: complete" in lines, done.stdout[:500]
    data = lines[lines.index("event: complete") + 1]
    assert data.startswith("data: "), data[:200]
    [numbers] = json.loads(data.removeprefix("data: "))
    shown = evaluator.disclosed(KEY.track, evaluator.score(KEY, sample.read_bytes()))
    assert numbers == shown.model_dump(mode="json")
    # The one-liner for /leaderboard under it.
    [board] = re.findall(r"`(curl -sS \"\$URL/gradio_api/call/leaderboard/.*?\)\")`", API, re.S)
    board = board.replace('"$URL', f'"{api_server.url.rstrip("/")}').replace("\n", " ")
    rows = subprocess.run(["bash", "-c", board], capture_output=True, text=True, timeout=60)
    lines = rows.stdout.splitlines()
    assert rows.returncode == 0 and "event: complete" in lines, (rows.stdout[:300], rows.stderr)
    assert json.loads(lines[lines.index("event: complete") + 1].removeprefix("data: "))[0]
