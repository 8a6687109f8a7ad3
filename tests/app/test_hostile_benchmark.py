"""``python app.py`` on a hostile benchmark folder (issue 22, finding 5): a folder whose
``about.md`` links to ``/proc/self/environ`` and whose ``citation.bib`` links to a file outside
holding a planted secret. Before, the app served both on the About tab and in ``GET /config``;
now it refuses the folder at boot, naming each link, and serves nothing.

Refusing (rather than serving the page without the file) is what a maintainer expects: a folder
that lacks about.md already stops the boot, and a folder that tries to reach outside itself is
a pull request to reject, not a page to serve with a gap in it.
"""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import httpx
import pytest

import spec
from tests.support.app_server import AppServer

SECRET = f"planted-secret-{uuid.uuid4().hex}"


@pytest.mark.server
def test_a_folder_whose_prose_links_outside_is_refused_at_boot(tmp_path: Path) -> None:
    folder = tmp_path / "bench"
    shutil.copytree(spec.BENCHMARKS_DIR / "egomemreason", folder)
    outside = tmp_path / "outside.txt"
    outside.write_text(f"HF_TOKEN={SECRET}\n", encoding="utf-8")
    for name, target in (("about.md", Path("/proc/self/environ")), ("citation.bib", outside)):
        (folder / name).unlink()
        (folder / name).symlink_to(target)
    server = AppServer(env={"LEADERBOARD_BENCHMARK": str(folder), "PLANTED_SECRET": SECRET})
    pages: list[str] = []
    try:
        with server:
            pages = [httpx.get(server.url + path, timeout=30).text for path in ("/config", "/")]
    except RuntimeError:  # it exited at boot: what is asserted below
        pass
    log = server.log()
    assert not any(SECRET in page for page in pages), "the secret reached the page"
    assert not pages, "the app served a folder whose about.md and citation.bib are links"
    assert SECRET not in log and "Traceback" not in log, log[-3000:]
    error = log[log.index("error: ") :].strip().splitlines()
    assert error[0].startswith("error: LEADERBOARD_BENCHMARK must be") and "2 problems" in error[0]
    assert [line.split(" is ", 1)[1] for line in error[1:]] == [
        "a symbolic link; replace the link with the file itself (a benchmark folder holds its "
        "files, not links)"
    ] * 2
    assert f"{folder.resolve() / 'about.md'}" in error[1], error
    assert f"{folder.resolve() / 'citation.bib'}" in error[2], error
