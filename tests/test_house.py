"""The house's shape: layers that import one way, kinds behind one registry, modules a reader
can take in, one error tree, docs that run, and keys that never enter git."""

from __future__ import annotations

import ast
import doctest
import functools
import importlib
import inspect
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

import errors
import evaluator
import spec
from evaluator.kinds.base import Kind, Scoring, Wording
from tests.support import ROOT
from tests.support.demo_keys import demo_key

#: The project's own packages and root modules (what the Space and the maintainer run).
PACKAGES = (
    "evaluator",
    "spec",
    "records",
    "ledger",
    "web",
    "guard",
    "maintainer",
    "scripts",
    "perf",
)
ROOT_MODULES = ("app", "errors")
#: Which layer may import which: each name may import those listed, and nothing else of the
#: project's (a package may always import its own modules).
LAYERS: dict[str, set[str]] = {
    "errors": set(),
    "spec": {"errors"},
    "evaluator": {"errors", "spec"},
    "records": {"errors", "spec", "evaluator"},
    "ledger": {"errors", "spec", "evaluator", "records"},
    "guard": {"errors", "spec", "records", "ledger"},
    "web": {"errors", "spec", "evaluator", "records", "ledger", "guard"},
    "maintainer": {"errors", "spec", "evaluator", "records", "ledger"},
    "app": {"errors", "spec", "evaluator", "records", "ledger", "guard", "web"},
    "scripts": {"errors", "spec", "evaluator", "records", "ledger", "maintainer"},
    "perf": {"errors", "spec", "evaluator", "records", "ledger", "guard", "web", "app", "tests"},
}
MAX_LINES = 500  # a module a reader can take in


@functools.cache
def _project_files() -> tuple[Path, ...]:
    """Every Python file of the project, tests and the benchmarks' demo scripts aside (listed
    once a test process)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return tuple(
        sorted(
            ROOT / p
            for p in listed.stdout.split()
            if p.split("/")[0] in (*PACKAGES, *(f"{m}.py" for m in ROOT_MODULES))
        )
    )


@functools.cache
def _tree(path: Path) -> ast.Module:
    """The file's syntax tree, parsed once a test process (the checks below only read it)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules ``path`` imports (inside functions too), as the longest module name
    each import names (``from a.b import c`` imports ``a.b.c`` if that is a module, else
    ``a.b``)."""
    own = _module_name(path)
    package = own.split(".") if path.name == "__init__.py" else own.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package[: len(package) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            names = [f"{base}.{a.name}" for a in node.names] or [base]
            names = [n if n in modules else base for n in names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            found = next(
                (
                    ".".join(parts[:i])
                    for i in range(len(parts), 0, -1)
                    if ".".join(parts[:i]) in modules
                ),
                None,
            )
            if found is not None and found != own:
                out.add(found)
    return out


@functools.cache
def _import_graph() -> dict[str, frozenset[str]]:
    modules = {_module_name(p): p for p in _project_files()}
    return {name: frozenset(_imports(path, modules)) for name, path in modules.items()}


def _graph() -> dict[str, set[str]]:
    """Each project module and the project modules it imports (walked once a test process;
    a fresh copy each call)."""
    return {name: set(imported) for name, imported in _import_graph().items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_a_circle_is_found_where_there_is_one() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_the_import_graph_has_no_circle() -> None:
    graph = _graph()
    assert {"evaluator", "evaluator.kinds", "spec.tracks", "web.board.page"} <= set(graph)
    assert "evaluator.kinds" in graph["evaluator"]  # the walk sees the imports at all
    assert _cycles(graph) == []


def test_the_layers_import_downwards_only() -> None:
    wrong = []
    for module, imported in _graph().items():
        layer = module.split(".")[0]
        allowed = LAYERS[layer] | {layer}
        wrong += [
            f"{module} imports {other}"
            for other in sorted(imported)
            if other.split(".")[0] not in allowed
        ]
    assert not wrong, wrong


#: The pages' modules that hold what the ledger loaded and the guard counts: the page as
#: assembled, each tab's handlers, the track as served. Every other module of web is a view.
WEB_EDGES = {"web.page", "web.served", "web.board.handlers", "web.score_handlers", "web.score_page"}


def test_a_view_reads_records_from_records_never_from_the_ledger_nor_the_guard() -> None:
    graph = _graph()
    assert {"web.board.rows", "web.board.card", "web.score_view"} <= set(graph)
    wrong = [
        f"{module} imports {other}"
        for module, imported in sorted(graph.items())
        if module.split(".")[0] == "web" and module not in WEB_EDGES
        for other in sorted(imported)
        if other.split(".")[0] in ("ledger", "guard")
    ]
    assert not wrong, wrong


def test_a_kind_imports_the_shared_helpers_never_the_registry_nor_another_kind() -> None:
    graph = _graph()
    kinds = {
        name
        for name in graph
        if name.startswith("evaluator.kinds.")
        and name.count(".") >= 2
        and name != "evaluator.kinds.base"
    }
    assert {"evaluator.kinds.multiple_choice", "evaluator.kinds.decision"} <= kinds
    wrong = []
    for module in sorted(kinds):
        own = ".".join(module.split(".")[:3])
        for other in sorted(graph[module]):
            if other in ("evaluator", "evaluator.kinds") or (
                other.startswith("evaluator.kinds.")
                and other != "evaluator.kinds.base"
                and not other.startswith(own)
            ):
                wrong.append(f"{module} imports {other}")
    assert not wrong, wrong


def test_no_module_is_longer_than_a_reader_takes_in() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in _project_files()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"over {MAX_LINES} lines: {long}"


def _is_sys_path(node: ast.AST) -> bool:
    """Whether ``node`` is the expression ``sys.path``."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "path"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


def _edits_sys_path(path: Path) -> bool:
    """Whether the code (not its strings) calls a method of ``sys.path`` or assigns it."""
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Attribute) and _is_sys_path(node.value):
            return True
        if isinstance(node, ast.Assign) and any(_is_sys_path(t) for t in node.targets):
            return True
    return False


def test_no_project_file_edits_sys_path() -> None:
    """The project is installed into the venv (editable): nothing needs the path edited."""
    files = [*_project_files(), *ROOT.glob("tests/**/*.py"), *ROOT.glob("benchmarks/*/demo/*.py")]
    assert len(files) > 100
    edits = [str(p.relative_to(ROOT)) for p in files if _edits_sys_path(p)]
    assert not edits, edits


# --- one configuration reader -------------------------------------------------------------

#: The one module that reads the process's environment (by ledger.variables' rule).
READER = "ledger.config"


def _environment_reads(tree: ast.AST) -> list[str]:
    """The code's reads of the environment: ``os.environ`` in any use but a value set
    (``os.environ["X"] = ...``: a library's own variable the app sets for it), ``os.getenv``,
    and ``environ``/``getenv`` imported from ``os``."""
    written = {
        id(target.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Subscript)
    }
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and ast.unparse(node) in ("os.environ", "os.getenv", "os.environb", "os.getenvb")
            and id(node) not in written
        ):
            found.append((node.lineno, ast.unparse(node)))
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [(node.lineno, f"from os import {a.name}") for a in node.names]
    return [f"line {line}: {what}" for line, what in sorted(found)]


def test_an_environment_read_is_found_where_there_is_one() -> None:
    source = (
        "import os\n"
        "os.environ['GRADIO_TEMP_DIR'] = '/tmp/x'\n"
        "a = os.environ.get('LEADERBOARD_X', '')\n"
        "b = os.getenv('GRADIO_IS_E2E_TEST')\n"
        "def f(env=os.environ): pass\n"
        "from os import environ\n"
    )
    assert _environment_reads(ast.parse(source)) == [
        "line 3: os.environ",
        "line 4: os.getenv",
        "line 5: os.environ",
        "line 6: from os import environ",
    ]


def test_nothing_but_the_configuration_reader_reads_the_environment() -> None:
    """Every variable is read by ledger.config, by one rule (ledger.variables): a module that
    reads one itself escapes the rule, the README's table and the boot's message (issue 33:
    two guard modules did). The performance benchmarks (perf/) are no part of the app."""
    found = [
        f"{_module_name(p)}: {read}"
        for p in _project_files()
        if _module_name(p) != READER and not _module_name(p).startswith("perf")
        for read in _environment_reads(_tree(p))
    ]
    assert not found, found
    assert _environment_reads(_tree(ROOT / "ledger" / "config.py"))


# --- kinds --------------------------------------------------------------------------------


def test_the_spec_and_the_evaluator_name_the_same_kinds() -> None:
    assert set(spec.KINDS) == set(evaluator.KINDS)
    for name, kind in evaluator.KINDS.items():
        assert name == kind.NAME
        model = spec.KINDS[name]
        assert model.model_fields["kind"].annotation.__args__ == (name,)  # type: ignore[union-attr]


def _members(protocol: type) -> set[str]:
    """The members of a protocol and of the protocols it is made of (``Kind``: ``Scoring`` and
    ``Wording``)."""
    parts = [c for c in protocol.__mro__ if getattr(c, "_is_protocol", False)]
    return {
        n
        for part in parts
        for n in {*vars(part), *getattr(part, "__annotations__", {})}
        if not n.startswith("_")
    }


def test_the_kind_protocol_is_scoring_and_wording_every_member_once() -> None:
    scoring, wording = _members(Scoring), _members(Wording)
    assert not scoring & wording
    assert _members(Kind) == scoring | wording
    assert {"score", "validate", "load_key"} <= scoring and {"summary", "ROWS"} <= wording


def test_a_kind_is_one_registry_line_and_the_rest_is_derived() -> None:
    """One table (spec.tracks.REGISTRY) names every kind: the spec's models, the evaluator's
    implementations and the discriminated union of [[tracks]] all come from it."""
    assert spec.REGISTRY.names == tuple(spec.KINDS) == tuple(evaluator.KINDS)
    for kind in spec.REGISTRY:
        assert evaluator.KINDS[kind.name] is sys.modules[kind.implementation]
        assert not kind.model.__abstractmethods__, kind.name  # it answers all CommonTrack asks
        assert isinstance(kind.model.keeps_intervals, bool), kind.name
        for name in ("groupings", "aggregates"):  # declared for the type only: a field or not
            assert name in kind.model.model_fields or hasattr(kind.model, name), (kind.name, name)
    with pytest.raises(KeyError, match="the kinds are multiple_choice, decision, short_answer"):
        spec.REGISTRY.get("ranked")


@pytest.mark.parametrize("name", sorted(evaluator.KINDS))
def test_a_kind_says_the_width_of_each_column_of_its_score_table(name: str) -> None:
    """The Score tab sizes the table by what the kind says (Kind.SCORE_COLUMNS), not by
    counting columns: every column a kind's table has is given a width."""
    kind = evaluator.KINDS[name]
    widths = [int(w.removesuffix("%")) for w in kind.SCORE_COLUMNS.values()]
    assert sum(widths) == 100
    for bench in map(spec.load_benchmark, ("egomemreason", "egoargus")):
        for track in bench.tracks_of(spec.KINDS[name]):
            key = demo_key(bench, track)
            own = bench.demo_dir / f"{track.id}_sample_submission.json"
            sample = own if own.is_file() else bench.demo_dir / "sample_submission.json"
            rows = kind.score_rows(track, evaluator.score(key, sample.read_bytes()))
            assert list(rows[0]) == list(kind.SCORE_COLUMNS)


@pytest.mark.parametrize("name", sorted(evaluator.KINDS))
def test_every_kind_implements_the_whole_protocol(name: str) -> None:
    kind = evaluator.KINDS[name]
    wanted = {n for n in _members(Kind) if n not in ("__parameters__",)}
    missing = sorted(n for n in wanted if not hasattr(kind, n))
    assert not missing, f"{name} lacks {missing}"
    for member in wanted:
        expected = getattr(Kind, member, None)
        if callable(expected):
            have = inspect.signature(getattr(kind, member)).parameters
            want = [p for p in inspect.signature(expected).parameters if p != "self"]
            assert list(have) == want or len(have) == len(want), (name, member)


#: The types of one kind: testing an object against one of them is a kind switch.
KIND_TYPES = (
    "MultipleChoiceTrack",
    "DecisionTrack",
    "AnswerKey",
    "DecisionKey",
    "QuestionSet",
    "EpisodeSet",
    "ShortAnswerTrack",
    "ShortAnswerKey",
    "ShortAnswerQuestions",
)


def _kind_switches(tree: ast.AST) -> list[str]:
    """The kind switches of a module's code: ``isinstance`` against a kind's type, a
    comparison of a ``.kind``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
            if any(k in ast.unparse(node.args[1]) for k in KIND_TYPES):
                found.append(ast.unparse(node))
        elif isinstance(node, ast.Compare) and any(
            ast.unparse(side).endswith(".kind") for side in (node.left, *node.comparators)
        ):
            found.append(ast.unparse(node))
    return found


def test_a_kind_switch_is_found_where_there_is_one() -> None:
    source = (
        "if isinstance(track, spec.DecisionTrack): pass\n"
        "if key.track.kind == 'decision': pass\n"
        "if isinstance(track, str) and track.kind_of: pass\n"
    )
    assert _kind_switches(ast.parse(source)) == [
        "isinstance(track, spec.DecisionTrack)",
        "key.track.kind == 'decision'",
    ]


def test_no_code_outside_a_kind_tests_a_track_s_kind() -> None:
    """A kind switch lives in its kind: elsewhere, code asks the kind (``kind_of``) or the
    track's model."""
    found = [
        f"{_module_name(p)}: {switch}"
        for p in _project_files()
        if not _module_name(p).startswith(("evaluator.kinds.", "spec"))
        for switch in _kind_switches(_tree(p))
    ]
    assert not found, found


# --- one place that knows how many decimals a number shows ---------------------------------

#: A literal precision in a format spec: ``.1f``.
_FIXED = re.compile(r"\.\d+f")


def _fixed_precisions(tree: ast.AST) -> list[str]:
    """Where a module decides a shown number's decimals itself: it names ``DECIMALS``, or an
    f-string writes with a literal precision a metric, chance, or a value followed by "%" or by
    an interval's dash (a heuristic: a number shown otherwise is the track's to round too)."""
    found = []
    for node in ast.walk(tree):
        if (
            (isinstance(node, ast.Name) and node.id == "DECIMALS")
            or (isinstance(node, ast.Attribute) and node.attr == "DECIMALS")
            or (isinstance(node, ast.alias) and node.name == "DECIMALS")
        ):
            found.append("DECIMALS")
        if not isinstance(node, ast.JoinedStr):
            continue
        parts = node.values
        for i, part in enumerate(parts):
            if not isinstance(part, ast.FormattedValue) or part.format_spec is None:
                continue
            spec = part.format_spec.values  # type: ignore[attr-defined]
            if not (len(spec) == 1 and _FIXED.fullmatch(str(getattr(spec[0], "value", "")))):
                continue
            after = parts[i + 1] if i + 1 < len(parts) else None
            text = str(after.value) if isinstance(after, ast.Constant) else ""
            value = ast.unparse(part.value)
            if text.lstrip().startswith(("%", "–")) or "metrics" in value or "chance" in value:
                found.append(ast.unparse(node))
                break
    return found


def test_a_fixed_precision_is_found_where_there_is_one() -> None:
    source = (
        "from spec.base import DECIMALS\n"
        "a = f'{result.metrics[key]:.1f}'\n"
        "b = f'(chance {guess:.1f} %)'\n"
        "c = f'{low:.1f}–{high:.1f}'\n"
        "d = f'{size / 2**20:.1f} MB, {track.number(display, value)} %'\n"
    )
    assert _fixed_precisions(ast.parse(source)) == [
        "DECIMALS",
        "f'{result.metrics[key]:.1f}'",
        "f'(chance {guess:.1f} %)'",
        "f'{low:.1f}–{high:.1f}'",
    ]
    assert _fixed_precisions(ast.parse("e = f'{seconds * 1000:.1f} ms'\n")) == []


def test_only_the_track_decides_how_many_decimals_a_number_shows() -> None:
    """Issue 28: a percent was rounded to one decimal in a dozen places, so a benchmark's own
    precision (``decimals``) could not be shown. The track rounds (``spec.base.TrackBase``)."""
    found = [
        f"{_module_name(p)}: {where}"
        for p in _project_files()
        if _module_name(p) != "spec.base"
        for where in _fixed_precisions(_tree(p))
    ]
    assert not found, found


# --- one error tree ---------------------------------------------------------------------------


def test_every_domain_error_is_under_one_root() -> None:
    classes = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, Exception)]
    assert len(classes) > 15
    assert all(issubclass(c, errors.LeaderboardError) for c in classes)
    defined = []
    for path in _project_files():
        if path.name == "errors.py":
            continue
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ClassDef) and any(
                ast.unparse(b) in ("Exception", "ValueError", "RuntimeError") for b in node.bases
            ):
                defined.append(f"{_module_name(path)}.{node.name}")
    assert not defined, f"define these in errors.py, under LeaderboardError: {defined}"


# --- docs that run ----------------------------------------------------------------------------


def _documented_modules() -> Iterator[str]:
    for path in _project_files():
        if "\n>>> " in path.read_text(encoding="utf-8") or "    >>> " in path.read_text(
            encoding="utf-8"
        ):
            yield _module_name(path)


DOCUMENTED = sorted(_documented_modules())


def test_the_core_modules_carry_examples() -> None:
    assert {"evaluator", "spec", "errors", "evaluator.messages", "evaluator.kinds"} <= set(
        DOCUMENTED
    )


@pytest.mark.parametrize("name", DOCUMENTED)
def test_the_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS, raise_on_error=False, report=True
    )
    assert result.attempted > 0 and result.failed == 0, result


# --- keys never enter git ---------------------------------------------------------------------


def _key_names() -> list[tuple[str, str]]:
    """(benchmark folder, key file name) of every track of every shipped spec."""
    out = []
    for path in sorted((ROOT / "benchmarks").glob(f"*/{spec.SPEC_FILENAME}")):
        document = tomllib.loads(path.read_text(encoding="utf-8"))
        out += [(path.parent.name, track["key"]["name"]) for track in document["tracks"]]
    return out


@pytest.mark.parametrize(("folder", "name"), _key_names())
def test_git_ignores_every_track_s_key_where_a_maintainer_may_drop_it(
    folder: str, name: str
) -> None:
    """Where a maintainer drops a key: the repository's root (where the app looks by default),
    release/ (README, "Add a benchmark"), the benchmark's folder and rotated/; a scaffolded
    benchmark's lines are scoped to those places (scripts/new_benchmark.py writes them), the
    shipped ones' names are ignored everywhere."""
    places = [name, f"release/{name}", f"benchmarks/{folder}/{name}", f"rotated/{name}"]
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", *places], cwd=ROOT, capture_output=True, text=True
    )
    assert done.stdout.split() == places, done.stdout
    demo = f"benchmarks/{folder}/demo/{name}"
    shipped = subprocess.run(
        ["git", "check-ignore", "--no-index", demo], cwd=ROOT, capture_output=True, text=True
    )
    assert shipped.returncode == 1, f"the shipped demo key {demo} must stay in git"
    assert (ROOT / demo).is_file()
