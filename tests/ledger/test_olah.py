"""The key and the board through olah (PyPI ``olah`` 0.5.4), a Hub mirror nobody here wrote.

olah serves local git repos offline (``mirrors-path``, ``offline = true``). The Space is
pointed at it with ``HF_ENDPOINT`` alone: the real huggingface_hub client, real HTTP on
127.0.0.1, a real third-party server. olah has no auth and ignores the token.

olah pins versions that fight gradio's, so it lives in its own venv, ``.venv-olah``, which
``make test`` creates.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

import ledger
import spec
from tests.support import ROOT
from tests.support.procs import clean_env, free_port

#: Every test here starts olah, a Hub mirror, as a process.
pytestmark = pytest.mark.server

OLAH_CLI = ROOT / ".venv-olah" / "bin" / "olah-cli"
BOOT_TIMEOUT_S = 30.0
BENCH = spec.load_benchmark("egomemreason")
TRACK = BENCH.track()
DEMO_KEY_BYTES = BENCH.demo_key(TRACK).read_bytes()
DEMO_RECORDS = {
    f"{ledger.RECORDS_FOLDER}/{p.name}": p.read_bytes()
    for p in sorted((BENCH.demo_board / ledger.RECORDS_FOLDER).glob("*.json"))
}
# uvicorn's access log line, as olah prints it: "GET /path?query HTTP/1.1" 200
_ACCESS = re.compile(r'"(GET|HEAD|POST) (\S+) HTTP/[0-9.]+" (\d{3})')


def git(folder: Path, *args: str) -> str:
    """``git <args>`` in ``folder`` as a test author; its stdout."""
    done = subprocess.run(
        [
            "git",
            "-c",
            "user.name=Leaderboard Tests",
            "-c",
            "user.email=tests@example.invalid",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        cwd=folder,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def commit_files(folder: Path, files: Mapping[str, bytes], message: str) -> str:
    """Write ``files`` into the git repo ``folder`` and commit them; the new commit id."""
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    git(folder, "add", "--all")
    git(folder, "commit", "--quiet", "--message", message)
    return git(folder, "rev-parse", "HEAD")


def mirror_repo(mirrors: Path, repo_id: str, files: Mapping[str, bytes]) -> Path:
    """A dataset repo as olah's mirrors-path wants it: ``datasets/<ns>/<name>``, branch main."""
    folder = mirrors / "datasets" / repo_id
    folder.mkdir(parents=True)
    git(folder, "init", "--quiet", "--initial-branch=main")
    commit_files(folder, files, f"Initial content of {repo_id}")
    return folder


@dataclass(frozen=True)
class Olah:
    url: str
    log_path: Path
    records: Path  # the records repo's git folder

    def requests(self) -> list[tuple[str, str, int]]:
        """(method, path, status) of every request olah logged so far."""
        text = self.log_path.read_text(encoding="utf-8", errors="replace")
        return [(m[1], m[2], int(m[3])) for m in _ACCESS.finditer(text)]


def _wait_until_answering(url: str, proc: subprocess.Popen[bytes], log_path: Path) -> None:
    """Until olah lists the refs of the key repo (its own index page fails with HTTP 500)."""
    probe = f"{url}/api/datasets/{BENCH.hub.private_repo}/refs"
    deadline = time.monotonic() + BOOT_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(
                f"olah exited with {proc.returncode} before answering:\n"
                f"{log_path.read_text(errors='replace')}"
            )
        try:
            with urllib.request.urlopen(probe, timeout=2):
                return
        except urllib.error.HTTPError as exc:
            pytest.fail(
                f"olah answers {probe} with HTTP {exc.code}: it does not see the mirror "
                f"repos\n{log_path.read_text(errors='replace')}"
            )
        except OSError:
            time.sleep(0.05)
    pytest.fail(
        f"olah did not answer on {url} within {BOOT_TIMEOUT_S:g} s:\n"
        f"{log_path.read_text(errors='replace')}"
    )


@pytest.fixture
def olah(tmp_path: Path) -> Iterator[Olah]:
    """olah on a free loopback port, offline, mirroring the key repo and the demo board."""
    if not OLAH_CLI.is_file():
        pytest.fail(
            f"{OLAH_CLI} is missing; `make test` installs it (olah==0.5.4 in its own "
            "venv, .venv-olah), or run: python3 -m venv .venv-olah && "
            ".venv-olah/bin/pip install olah==0.5.4"
        )
    mirrors = tmp_path / "mirrors"
    mirror_repo(mirrors, BENCH.hub.private_repo, {TRACK.key.name: DEMO_KEY_BYTES})
    records = mirror_repo(mirrors, BENCH.hub.records_repo, DEMO_RECORDS)
    port = free_port()
    config = tmp_path / "olah.toml"
    # TOML has no writer in the standard library; JSON strings are valid TOML basic strings.
    config.write_text(
        "[basic]\n"
        'host = "127.0.0.1"\n'
        f"port = {port}\n"
        f"repos-path = {json.dumps(str(tmp_path / 'olah-cache'))}\n"
        f"mirrors-path = [{json.dumps(str(mirrors))}]\n"
        'hf-netloc = "127.0.0.1:9"\n'  # the discard port: nothing upstream, ever
        'hf-lfs-netloc = "127.0.0.1:9"\n'
        "\n[accessibility]\n"
        "offline = true\n",
        encoding="utf-8",
    )
    log_path = tmp_path / "olah.log"
    url = f"http://127.0.0.1:{port}"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [str(OLAH_CLI), "-c", str(config), "--log-path", str(tmp_path / "olah-logs")],
            cwd=tmp_path,
            env=clean_env(),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_until_answering(url, proc, log_path)
        yield Olah(url=url, log_path=log_path, records=records)
    finally:
        proc.terminate()  # our own child, by its pid
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def olah_config(olah: Olah) -> ledger.Config:
    # olah has no auth: any token goes, and a token is what sends the Space to the Hub.
    return ledger.load_config({"HF_ENDPOINT": olah.url, "HF_TOKEN": "any"})


def test_the_key_loads_through_olah(olah: Olah) -> None:
    status = ledger.load_key(olah_config(olah), TRACK)
    assert status.error is None and status.key is not None, status
    assert not status.demo
    assert status.key.sha256 == hashlib.sha256(DEMO_KEY_BYTES).hexdigest()
    asked = [r for r in olah.requests() if BENCH.hub.private_repo in r[1]]
    assert asked and all(status == 200 for _, _, status in asked), asked


def test_the_board_loads_through_olah_and_follows_a_new_commit(olah: Olah) -> None:
    config = olah_config(olah)
    store = ledger.board_store(config)
    assert isinstance(store, ledger.HubStore)
    cache = ledger.BoardCache(store, BENCH, TRACK)

    snap = cache.refresh()
    assert not snap.stale and snap.error is None and snap.skipped == (), snap
    expected = {ledger.Record.from_json(data).id for data in DEMO_RECORDS.values()}
    assert {r.id for r in snap.records} == expected and len(snap.records) == len(DEMO_RECORDS)

    before = len(olah.requests())
    assert cache.refresh().records == snap.records
    board = BENCH.hub.records_repo
    # Nothing changed: one request, for the head (olah writes its log line before answering).
    assert olah.requests()[before:] == [
        ("GET", f"/api/datasets/{board}/revision/main?expand=sha", 200)
    ]

    first = json.loads(next(iter(DEMO_RECORDS.values())))
    newcomer = ledger.Record.model_validate(
        {
            **first,
            "id": "00000000-0000-4000-8000-000000000001",
            "method_name": "Newcomer (via olah)",
        }
    )
    commit_files(olah.records, {newcomer.path(): newcomer.to_json()}, "Add a record")
    snap = cache.refresh()
    assert not snap.stale and snap.error is None, snap
    assert newcomer in snap.records and len(snap.records) == len(DEMO_RECORDS) + 1

    asked = [r for r in olah.requests() if board in r[1]]
    assert asked and all(status == 200 for _, _, status in asked), asked
