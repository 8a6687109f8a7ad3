"""A file proposed to a repo of the Hub as a pull request, and the file it would replace.

The maintainer proposes, never commits, to repos that are not the leaderboard's: a model's
``.eval_results`` file goes to the model's repo, and ``eval.yaml`` to the benchmark's dataset,
each as a pull request (``HfApi.create_commit(create_pr=True)``) its owner merges or closes.
``read_file`` reads the file a proposal replaces from the repo's main branch, bounded (a
missing file is None); ``open_pull_request`` opens the proposal and gives its address. Every
failure is a one-line LedgerError that never holds the token.
"""

from __future__ import annotations

import time

from huggingface_hub import (
    CommitOperationAdd,
    HfApi,
    constants,
    get_session,
    hf_hub_url,
    hf_raise_for_status,
)
from huggingface_hub.errors import RemoteEntryNotFoundError
from huggingface_hub.utils._headers import build_hf_headers

from errors import LedgerError
from ledger.config import redact
from ledger.hub import DEFAULT_TIMEOUT_S, describe_hub_error

MAX_FILE_BYTES = 1024 * 1024  # a results file or an eval.yaml is a few kB
_LIBRARY = "benchmark-leaderboard"


def _failure(exc: BaseException, where: str, token: str | None) -> LedgerError:
    error = describe_hub_error(exc, where)
    return type(error)(redact(str(error), token))


def read_file(
    repo_id: str,
    path: str,
    *,
    repo_type: str,
    endpoint: str | None = None,
    token: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> bytes | None:
    """The bytes of ``path`` on the repo's main branch, or None when it has no such file;
    LedgerError when the repo cannot be read or the file is over MAX_FILE_BYTES."""
    hub = endpoint or constants.ENDPOINT
    url = hf_hub_url(repo_id, path, repo_type=repo_type, endpoint=hub)
    where = f"reading {path} of the {repo_type} {repo_id} at {hub}"
    headers = build_hf_headers(token=token, library_name=_LIBRARY)
    deadline = time.monotonic() + timeout_s
    try:
        with get_session().stream("GET", url, headers=headers, timeout=timeout_s) as response:
            if response.status_code >= 400:
                response.read()
                hf_raise_for_status(response)
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_FILE_BYTES or time.monotonic() > deadline:
                    raise LedgerError(
                        f"{where}: over {MAX_FILE_BYTES // 1024} kB or {timeout_s:g} s; "
                        "not read: is this the right repo?"
                    )
    except RemoteEntryNotFoundError:
        return None
    except LedgerError:
        raise
    except Exception as exc:
        raise _failure(exc, where, token) from None
    return bytes(body)


def open_pull_request(
    repo_id: str,
    path: str,
    data: bytes,
    *,
    repo_type: str,
    title: str,
    description: str,
    endpoint: str | None = None,
    token: str | None = None,
) -> str:
    """Open a pull request on the repo adding (or replacing) ``path`` with ``data``; its
    address. LedgerError if the Hub refuses it (a token that may not, a repo that is not)."""
    api = HfApi(endpoint=endpoint, token=token, library_name=_LIBRARY)
    hub = endpoint or constants.ENDPOINT
    try:
        info = api.create_commit(
            repo_id,
            [CommitOperationAdd(path_in_repo=path, path_or_fileobj=data)],
            commit_message=title,
            commit_description=description,
            repo_type=repo_type,
            create_pr=True,
        )
    except Exception as exc:
        where = f"opening a pull request on the {repo_type} {repo_id} at {hub}"
        raise _failure(exc, where, token) from None
    if not info.pr_url:
        raise LedgerError(
            f"the Hub opened no pull request on the {repo_type} {repo_id}: the file is already "
            "there as it would be (nothing to propose)"
        )
    return str(info.pr_url)
