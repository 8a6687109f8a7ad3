"""Shared fixtures: an isolated Hugging Face environment for every test, and a loopback Hub."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.procs import isolate_hub_environment

# huggingface_hub reads its environment once, at import: isolate it before any test imports it,
# so no test can pick up a developer's stored token or cache, or reach the real Hub.
isolate_hub_environment("egomem-tests-hf-home-")

from tests.hub_server import HubServer  # noqa: E402

_OURS = ("EGOMEM_ANSWER_KEY", "EGOMEM_PRIVATE_REPO", "EGOMEM_LEADERBOARD_DIR", "SPACE_ID",
         "EGOMEM_SCORE_LIMIT", "EGOMEM_SCORE_WINDOW_S",
         "EGOMEM_LEADERBOARD_REPO", "EGOMEM_CACHE_TTL_S", "HF_TOKEN", "HF_ENDPOINT")


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
