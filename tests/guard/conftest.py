"""Fixtures of the guard's tests: a folder laid out as Gradio's upload cache."""

from __future__ import annotations

from pathlib import Path

import pytest


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
