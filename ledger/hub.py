"""What every Hub call of the ledger shares: a default timeout, a one-line description of a
huggingface_hub or HTTP failure as a LedgerError, and a wait that cannot outlast its bound.

>>> import httpx2
>>> describe_hub_error(httpx2.ConnectError("connection refused"), "reading the key")
HubUnreachableError('reading the key: no answer (ConnectError: connection refused)')
>>> run_bounded(lambda: 42, DEFAULT_TIMEOUT_S, "asking")
42
>>> import time
>>> run_bounded(lambda: time.sleep(0.5), 0.05, "asking a silent Hub")
Traceback (most recent call last):
  ...
errors.HubUnreachableError: asking a silent Hub: no answer within 0.05 s
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

import httpx2
from huggingface_hub.errors import (
    HfHubHTTPError,
    OfflineModeIsEnabled,
    RemoteEntryNotFoundError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)

from errors import HubUnreachableError, LedgerError

DEFAULT_TIMEOUT_S = 10.0
_TRANSPORT_ERRORS = (httpx2.TransportError, OfflineModeIsEnabled)
_T = TypeVar("_T")


def describe_hub_error(exc: BaseException, where: str) -> LedgerError:
    """A LedgerError with a one-line reason for a huggingface_hub / httpx failure."""
    if isinstance(exc, HfHubHTTPError) and exc.response is not None:
        status = exc.response.status_code
        reason = exc.server_message or exc.response.reason_phrase or "error"
        reason = reason.splitlines()[0] if reason else "error"
        if isinstance(exc, RepositoryNotFoundError):
            return LedgerError(
                f"{where}: HTTP {status}, the repository was not found or the token has no "
                "access to it"
            )
        if isinstance(exc, RevisionNotFoundError):
            return LedgerError(f"{where}: HTTP {status}, revision not found")
        if isinstance(exc, RemoteEntryNotFoundError):
            return LedgerError(f"{where}: HTTP {status}, file not found")
        return LedgerError(f"{where}: HTTP {status} {reason}")
    if isinstance(exc, _TRANSPORT_ERRORS):
        detail = str(exc).splitlines()[0] if str(exc) else ""
        return HubUnreachableError(f"{where}: no answer ({type(exc).__name__}: {detail})")
    if isinstance(exc, RuntimeError) and "closed" in str(exc):
        # huggingface_hub's back-off closes the shared client on connection errors.
        return HubUnreachableError(f"{where}: connection reset, the HTTP client was closed")
    return LedgerError(f"{where}: unexpected answer ({type(exc).__name__}: {exc})")


def run_bounded(fn: Callable[[], _T], timeout_s: float, what: str) -> _T:
    """``fn()`` in a daemon thread; HubUnreachableError if it has not returned in time.

    huggingface_hub retries unreachable endpoints with back-off for tens of seconds; this keeps
    the caller's wait bounded. The abandoned thread ends by its own (finite) timeouts.
    """
    outcome: dict[str, object] = {}
    done = threading.Event()

    def run() -> None:
        try:
            outcome["value"] = fn()
        except BaseException as exc:  # handed to the caller below
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name=f"ledger: {what}", daemon=True).start()
    if not done.wait(timeout_s):
        raise HubUnreachableError(f"{what}: no answer within {timeout_s:g} s")
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
