"""The project's one error tree: every domain error derives from ``LeaderboardError``."""

from __future__ import annotations


class LeaderboardError(Exception):
    """A problem the project reports to a person; the message says what to fix."""
