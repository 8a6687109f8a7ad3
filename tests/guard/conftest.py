"""Fixtures of the guard's tests: a folder laid out as Gradio's upload cache; the app served on
a port of this process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import gradio as gr
import pytest

from tests.support.app_server import served_in_process


@pytest.fixture
def cached_uploads(tmp_path: Path) -> list[Path]:
    """Three uploads in ``tmp_path`` as Gradio stores them (``<sha256>/<name>``), plus the empty
    ``tmpXXXX`` file a gr.File(type="filepath") call leaves in the cache root; the uploads."""
    out = []
    for i in range(3):
        folder = tmp_path / f"{i:064x}"
        folder.mkdir()
        (folder / "s.json").write_bytes(b"[1]")
        out.append(folder / "s.json")
    (tmp_path / "tmpabcdef").write_bytes(b"")
    return out


@pytest.fixture(scope="module")
def served_here(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, gr.Blocks]]:
    """app.main's page served on a loopback port of this process, as launch_kwargs(config) serves it
    (its middleware, its queue's bounds), with an upload folder of its own and a score limit
    no test reaches: its URL and Blocks, whose queue and handlers a test can reach."""
    with served_in_process(
        tmp_path_factory.mktemp("uploads"), {"LEADERBOARD_SCORE_LIMIT": "100000"}
    ) as served:
        yield served
