"""A board view's downloads: its CSV and JSON files, written once per content.

``Exports(stem).write(csv_bytes, rows)`` gives the paths of ``<stem>.csv`` and ``<stem>.json``
in a folder named by their content's sha256, so identical views (every visitor's first load)
share one pair of files; the oldest folders go past the last 64.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any


class Exports:
    """CSV/JSON files of a board view, named by content so identical views share one file."""

    def __init__(self, stem: str) -> None:
        self._stem = stem  # "<benchmark>-leaderboard"
        self._dir = Path(tempfile.mkdtemp(prefix=f"{stem}-exports-"))

    def write(self, table_csv: bytes, rows: list[dict[str, Any]]) -> tuple[str, str]:
        payloads = {
            "csv": table_csv,
            "json": json.dumps(rows, indent=1, ensure_ascii=False).encode(),
        }
        digest = hashlib.sha256(payloads["csv"] + payloads["json"]).hexdigest()[:16]
        folder = self._dir / digest
        if not folder.exists():
            self._prune()
            tmp = Path(tempfile.mkdtemp(dir=self._dir))
            for ext, payload in payloads.items():
                (tmp / f"{self._stem}.{ext}").write_bytes(payload)
            try:
                tmp.rename(folder)
            except OSError:  # another request wrote the same view first
                shutil.rmtree(tmp, ignore_errors=True)
        return str(folder / f"{self._stem}.csv"), str(folder / f"{self._stem}.json")

    def _prune(self, keep: int = 64) -> None:
        folders = sorted(self._dir.iterdir(), key=lambda p: p.stat().st_mtime)
        for old in folders[:-keep]:
            shutil.rmtree(old, ignore_errors=True)
