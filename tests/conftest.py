"""Shared fixtures: an isolated Hugging Face environment for every test, and a loopback Hub;
the test tiers.

Three markers say what a test needs beyond this process (pyproject.toml registers them):
``server`` (it starts a server: the app or olah as a process, or the app on a port of this
process), ``browser`` (it drives Chromium) and ``slow`` (it starts a Python process or a shell,
e.g. a script as the README runs it, or runs for seconds in this one).
``make check``, the fast tier, runs the tests that need none of them, with
``LEADERBOARD_TEST_TIER=fast``: then a test that starts a server, Chromium, a Python process or
a shell without its marker fails at once, naming the marker, so the tiers cannot drift.
``make test`` runs everything.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.procs import isolate_hub_environment

# huggingface_hub reads its environment once, at import: isolate it before any test imports it,
# so no test can pick up a developer's stored token or cache, or reach the real Hub.
isolate_hub_environment("leaderboard-tests-hf-home-")
# What a test process makes outside its tests' tmp_path goes when it ends (issue 22, finding 10:
# a run left 208 folders of board downloads in the temp dir): that HF_HOME, and Gradio's upload
# folder of the pages built in process (their downloads), unless one is given.
_SCRATCH = os.environ["HF_HOME"]
os.environ.setdefault("GRADIO_TEMP_DIR", os.path.join(_SCRATCH, "gradio"))
atexit.register(shutil.rmtree, _SCRATCH, True)

from ledger.variables import RENAMED, VARIABLES  # noqa: E402
from tests.support.hub_server import HubServer  # noqa: E402
from tests.support.procs import ServerProcess  # noqa: E402

#: ``make check`` sets this: the fast tier, where no test may start a server, Chromium, a Python
#: process or a shell.
TIER_VARIABLE = "LEADERBOARD_TEST_TIER"
FAST_TIER = os.environ.get(TIER_VARIABLE) == "fast"


@dataclass
class _Running:
    """The markers of the test being run; ``started`` once the first test is set up (xdist
    starts its workers, Python processes, before: those are not guarded)."""

    marks: frozenset[str] = frozenset()
    started: bool = False


_running = _Running()

#: The project's variables (GRADIO_TEMP_DIR aside: set above for every test), and the old names.
_OURS = (*(v.name for v in VARIABLES if v.name != "GRADIO_TEMP_DIR"), *RENAMED)


@pytest.fixture(autouse=True)
def hf_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh HF_HOME per test (for subprocesses), and none of the project's variables set."""
    home = tmp_path / "hf_home"
    home.mkdir()
    monkeypatch.setenv("HF_HOME", str(home))
    for name in _OURS:
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def hub() -> Iterator[HubServer]:
    """A loopback Hub on 127.0.0.1 (free port) knowing READ_TOKEN and WRITE_TOKEN; stopped after."""
    with HubServer() as server:
        yield server
    assert not server.errors, f"the loopback Hub failed in a handler: {server.errors}"


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Note the markers of the test about to run (its fixtures are set up after this)."""
    _running.marks = frozenset(m.name for m in item.iter_markers())
    _running.started = True


def _only_when_marked(start: Callable[..., Any], marker: str, what: str) -> Callable[..., Any]:
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if marker not in _running.marks:
            raise RuntimeError(
                f"this test {what}: mark it @pytest.mark.{marker} (make check, the "
                "fast tier, leaves such tests to make test)"
            )
        return start(*args, **kwargs)

    return guarded


#: What a server process runs: the app (``python app.py`` and ``python -m perf.<app>``, whether it
#: serves or stops its boot) and olah.
SERVER_COMMANDS = ("app.py", "perf.bench_app", "perf.floor_app", "perf.hello_app", "olah-cli")


def _starts_a_server(args: Any) -> bool:
    words = [str(a) for a in args] if isinstance(args, (list, tuple)) else [str(args)]
    return any(Path(w).name in SERVER_COMMANDS or w in SERVER_COMMANDS for w in words) or any(
        "app.main()" in w for w in words
    )


#: What a slow test starts: a Python interpreter (seconds of imports) or a shell.
SLOW_COMMANDS = ("bash", "sh")


def _starts_python(args: Any) -> bool:
    first = Path(str(args[0] if isinstance(args, (list, tuple)) else args).split()[0]).name
    return first.startswith("python") or first in SLOW_COMMANDS


def _popen_guard(init: Callable[..., None]) -> Callable[..., None]:
    def guarded(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
        marks = _running.marks
        if _starts_a_server(args) and "server" not in marks:
            raise RuntimeError(
                "this test starts the app (or olah) as a process: mark it "
                "@pytest.mark.server (make check, the fast tier, leaves such tests "
                "to make test)"
            )
        if _starts_python(args) and _running.started and not marks & {"server", "slow"}:
            raise RuntimeError(
                "this test starts a Python process or a shell: call the script's main([...]) "
                "in process (tests.support.scripts.run_script), or mark the test "
                "@pytest.mark.slow (make check, the fast tier, leaves such tests to make test)"
            )
        init(self, args, *rest, **kwargs)

    return guarded


if FAST_TIER:
    from playwright.sync_api import BrowserType

    ServerProcess.start = _only_when_marked(  # type: ignore[method-assign]
        ServerProcess.start, "server", "starts a server process"
    )
    BrowserType.launch = _only_when_marked(  # type: ignore[method-assign]
        BrowserType.launch, "browser", "launches Chromium"
    )
    subprocess.Popen.__init__ = _popen_guard(subprocess.Popen.__init__)  # type: ignore[method-assign]
