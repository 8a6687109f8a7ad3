"""What a submission file may be before anything reads it: a ``.json`` file of at most 5 MB.

One place for the Space's bound on a submission and the words a file past it is refused in:
the Space refuses any other upload (guard.body bounds the request by ``LIMIT_BYTES``), the
Score tab refuses such a file under the upload before it is sent (web.score_page) and after
(web.score_handlers, for the API), and scripts/validate_submission.py refuses the same files
in the same words, so a file the script passes is one the Space takes.

>>> file_refusal("run.json", 6 * 2**20, "example_id/predicted_answer")
'The file is 6.0 MB; the limit is 5 MB.'
>>> file_refusal("run.csv", 100, "example_id/predicted_answer")
'Upload a .json file (a JSON list of example_id/predicted_answer objects).'
>>> file_refusal("run.JSON", 100, "example_id/predicted_answer") is None
True
"""

from __future__ import annotations

SUFFIX = ".json"  # the one file type a submission is uploaded as
LIMIT_BYTES = 5 * 1024 * 1024  # a submission's size at most (a real one is ~30 kB)


def too_big(size: int) -> str:
    """What a file of ``size`` bytes, past ``LIMIT_BYTES``, is told."""
    return f"The file is {size / 2**20:.1f} MB; the limit is {LIMIT_BYTES // 2**20} MB."


def wrong_type(expected: str) -> str:
    """What a file not named ``.json`` is told; ``expected`` names a submission's entries."""
    return f"Upload a {SUFFIX} file (a JSON list of {expected} objects)."


def file_refusal(name: str, size: int, expected: str) -> str | None:
    """Why a file named ``name`` of ``size`` bytes is not a submission the Space takes (its
    type first, as the page checks it), or None when it may be one."""
    if not name.lower().endswith(SUFFIX):
        return wrong_type(expected)
    if size > LIMIT_BYTES:
        return too_big(size)
    return None
