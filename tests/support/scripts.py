"""The maintainer scripts as the tests run them: in this process, or as the README runs them.

``run_script("publish_submission.py", "--dry-run", ...)`` calls the script's ``main([...])`` in
this process (the fast tier), from the repository root, with its stdout and stderr captured and
its exit status returned as a ``subprocess.CompletedProcess``, so a test reads it as it would a
process's. An exception the script lets out is raised in the test, with its traceback.

``run_script_process`` runs it exactly as the README does, ``python scripts/<name> ...`` from the
root in a process of its own, in this environment (the ``hf_home`` fixture leaves none of the
project's variables set) plus ``env``: a test that
calls it is marked ``slow`` (``make check``, the fast tier, refuses a Python process otherwise).
Keep those few: what only a process shows (the command as the README prints it, an import from a
fresh interpreter, a memory bound, a read that would block).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from tests.support import ROOT


def run_script(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``scripts/<script>``'s ``main(args)`` in this process, from the repository root
    (``script`` is a file name, ``publish_submission.py``, or its path from the root)."""
    name = Path(script).name
    main: Callable[[list[str]], int | None] = importlib.import_module(
        f"scripts.{name.removesuffix('.py')}"
    ).main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args)) or 0
        except SystemExit as exited:  # argparse's own exit (--help, a usage error)
            code = exited.code if isinstance(exited.code, int) else int(exited.code is not None)
    return subprocess.CompletedProcess(
        ["scripts/" + name, *args], code, out.getvalue(), err.getvalue()
    )


def run_script_process(
    script: str,
    *args: str,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python scripts/<script> ...`` from the repository root, as the README runs it, in this
    environment plus ``env`` (``script`` as for ``run_script``)."""
    return subprocess.run(
        [sys.executable, f"scripts/{Path(script).name}", *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=preexec_fn,
    )
