"""What the tests share: the loopback Hub, the app as a real server, process and HTTP helpers.

``ROOT`` is the repository's root folder.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
