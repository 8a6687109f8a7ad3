"""The module lists cannot drift: each package's docstring names every module it holds, and the
README's Development tree names every module of the packages it lists one by one."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.support import ROOT

#: The project's packages, each with a docstring that says what its modules are.
PACKAGES = sorted(
    init.parent
    for init in ROOT.rglob("__init__.py")
    if init.relative_to(ROOT).parts[0] not in {"tests", "benchmarks"}
    and not init.relative_to(ROOT).parts[0].startswith(".")
    and "node_modules" not in init.parts
)

#: The packages whose modules the README's tree names one by one (the kinds' packages and perf/
#: it names as a whole).
README_PACKAGES = (
    "spec",
    "evaluator",
    "records",
    "ledger",
    "guard",
    "web",
    "web/board",
    "maintainer",
)


def modules(package: Path) -> list[str]:
    """The modules and subpackages a package holds, by name."""
    files = [p.stem for p in package.glob("*.py") if not p.name.startswith("_")]
    subpackages = [p.parent.name for p in package.glob("*/__init__.py")]
    return sorted(files + subpackages)


def unnamed(text: str, names: list[str]) -> list[str]:
    return [name for name in names if not re.search(rf"(?<!\w){name}(?!\w)", text)]


def development_tree() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Development", 1)[1]
    return section.split("```", 2)[1]


def test_every_project_package_is_found() -> None:
    found = {p.relative_to(ROOT).as_posix() for p in PACKAGES}
    assert set(README_PACKAGES) <= found
    assert "evaluator/kinds/multiple_choice" in found


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_package_s_docstring_names_each_of_its_modules(package: Path) -> None:
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")))
    assert docstring, f"{package.relative_to(ROOT)}/__init__.py has no docstring"
    assert unnamed(docstring, modules(package)) == []


@pytest.mark.parametrize("package", README_PACKAGES)
def test_the_readme_s_tree_names_each_module_of_a_package_it_lists(package: str) -> None:
    assert unnamed(development_tree(), modules(ROOT / package)) == []
