"""Shared fixtures: an isolated Hugging Face environment for every test, and a loopback Hub."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.procs import isolate_hub_environment

# huggingface_hub reads its environment once, at import: isolate it before any test imports it,
# so no test can pick up a developer's stored token or cache, or reach the real Hub.
isolate_hub_environment("leaderboard-tests-hf-home-")

from ledger.config import RENAMED  # noqa: E402
from tests.support.hub_server import HubServer  # noqa: E402

_OURS = (
    "LEADERBOARD_BENCHMARK",
    "LEADERBOARD_ANSWER_KEY",
    "LEADERBOARD_PRIVATE_REPO",
    "LEADERBOARD_RECORDS_DIR",
    "LEADERBOARD_RECORDS_REPO",
    "LEADERBOARD_CACHE_TTL_S",
    "LEADERBOARD_SCORE_LIMIT",
    "LEADERBOARD_SCORE_WINDOW_S",
    "LEADERBOARD_TRUSTED_PROXY_HOPS",
    "LEADERBOARD_UPLOAD_MAX_AGE_S",
    "LEADERBOARD_UPLOAD_CACHE_FILES",
    "LEADERBOARD_UPLOAD_CACHE_MB",
    "SPACE_ID",
    "HF_TOKEN",
    "HF_ENDPOINT",
    *RENAMED,
)


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
