"""A board view's downloads: its CSV and JSON files, written once per content, kept bounded.

``Exports(stem, root).write(csv_bytes, rows)`` gives the paths of ``<stem>.csv`` and
``<stem>.json`` in a folder named by their content's sha256, so identical views (every
visitor's first load) share one pair of files. ``root`` is the folder of the app's own files,
which the page names (web.page: ``APP_FILES`` in Gradio's upload folder, guard.upload_cache),
where Gradio serves a file in place: anywhere else it copies each one into its upload cache,
where every distinct search left two files in the visitors' upload budget (300 searches, 74
files). Here the downloads have a bound of their own instead: the ``keep`` views used last (a
view handed out again counts as used), older ones deleted as new ones come; the cache's cleanup
leaves the folder alone and deletes it when the server stops. Without a ``root`` (a test of the
handlers alone), the files go to a folder of their own in the system's temporary folder.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     exports = Exports("bench-leaderboard", root=Path(tmp), keep=2)
...     first = exports.write(b"a\\n1\\n", [{"a": 1}])
...     again = exports.write(b"a\\n1\\n", [{"a": 1}])
...     others = [exports.write(f"a\\n{i}\\n".encode(), [{"a": i}]) for i in (2, 3)]
...     kept = sorted(p.name for p in exports.folder.iterdir())
>>> first == again, Path(first[0]).name, len(kept)  # the first view went past the last 2
(True, 'bench-leaderboard.csv', 2)
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

KEEP = 64  # distinct views whose downloads are kept, per track


class Exports:
    """CSV/JSON files of a board view, named by content so identical views share one file,
    in a folder of its own under ``root`` (the app's own files; by default the system's
    temporary folder), at most ``keep`` views."""

    def __init__(self, stem: str, root: Path | None = None, keep: int = KEEP) -> None:
        self._stem = stem  # "<benchmark>-leaderboard"
        self._keep = keep
        if root is not None:
            root.mkdir(parents=True, exist_ok=True)
        self.folder = Path(tempfile.mkdtemp(prefix=f"{stem}-exports-", dir=root))

    def write(self, table_csv: bytes, rows: list[dict[str, Any]]) -> tuple[str, str]:
        payloads = {
            "csv": table_csv,
            "json": json.dumps(rows, indent=1, ensure_ascii=False).encode(),
        }
        digest = hashlib.sha256(payloads["csv"] + payloads["json"]).hexdigest()[:16]
        folder = self.folder / digest
        try:
            os.utime(folder)  # used again: the last to go
        except FileNotFoundError:
            self._prune()
            tmp = Path(tempfile.mkdtemp(dir=self.folder, prefix=".new-"))
            for ext, payload in payloads.items():
                (tmp / f"{self._stem}.{ext}").write_bytes(payload)
            try:
                tmp.rename(folder)
            except OSError:  # another request wrote the same view first
                shutil.rmtree(tmp, ignore_errors=True)
        return str(folder / f"{self._stem}.csv"), str(folder / f"{self._stem}.json")

    def _prune(self) -> None:
        """The oldest views go, leaving room for one more within ``keep``."""
        folders = []
        for entry in self.folder.iterdir():
            if entry.name.startswith(".new-"):  # another request is writing it
                continue
            try:
                folders.append((entry.stat().st_mtime, entry))
            except FileNotFoundError:  # pruned by another request meanwhile
                continue
        folders.sort()
        for _, old in folders[: max(0, len(folders) - self._keep + 1)]:
            shutil.rmtree(old, ignore_errors=True)
