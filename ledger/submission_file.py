"""What a submission file may be before anything reads it: at most 5 MB, whatever its name.

A benchmark's own evaluation writes its predictions under the name it likes (``.jsonl``,
``.txt``, none at all), so a file is read by its bytes, which must be JSON or JSON Lines (the
evaluator says so, in its own words, of any that are not). One place for the Space's bound on a
submission and the words a file past it is refused in: the Space refuses any larger upload
(guard.body bounds the request by ``LIMIT_BYTES``), the Score tab refuses such a file under the
upload before it is sent (web.score_page) and after (web.score_handlers, for the API), and
scripts/validate_submission.py refuses the same files in the same words, so a file the script
passes is one the Space takes.

>>> file_refusal(6 * 2**20)
'The file is 6.0 MB; the limit is 5 MB.'
>>> file_refusal(100) is None
True
"""

from __future__ import annotations

LIMIT_BYTES = 5 * 1024 * 1024  # a submission's size at most (a real one is ~30 kB)


def too_big(size: int) -> str:
    """What a file of ``size`` bytes, past ``LIMIT_BYTES``, is told."""
    return f"The file is {size / 2**20:.1f} MB; the limit is {LIMIT_BYTES // 2**20} MB."


def file_refusal(size: int) -> str | None:
    """Why a file of ``size`` bytes is not a submission the Space takes, or None when it may
    be one (its bytes then tell: JSON or JSON Lines)."""
    return too_big(size) if size > LIMIT_BYTES else None
