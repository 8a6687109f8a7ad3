"""Where records live: a local folder or a Hub dataset, laid out as ``submissions/<id>.json``.

Reads are bounded single requests; writes never overwrite (a commit tied to its parent on the
Hub, a hard link on disk). On the Hub, a record's file also names the commit that added it
(``HubStore.added_in``). What every Hub call shares (the timeout, error descriptions, a bounded
wait) is ledger.hub's.

A folder that does not exist reads as an empty board, and only record paths are read:

>>> import tempfile
>>> tmp = tempfile.TemporaryDirectory()
>>> store = LocalStore(Path(tmp.name) / "board")
>>> store.list_paths(), store.head()
([], None)
>>> store.read("submissions/../../secret.json")  # doctest: +ELLIPSIS
Traceback (most recent call last):
  ...
errors.LedgerError: 'submissions/../../secret.json' is not a record path; expected ...
>>> tmp.cleanup()
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol, runtime_checkable
from urllib.parse import quote

import httpx2
from huggingface_hub import (
    CommitOperationAdd,
    HfApi,
    RepoFile,
    constants,
    get_session,
    hf_hub_url,
    hf_raise_for_status,
)
from huggingface_hub.errors import HfHubHTTPError, RemoteEntryNotFoundError
from huggingface_hub.utils._headers import build_hf_headers

from errors import HubUnreachableError, LedgerError, RecordExistsError, UnreadableFileError
from ledger.config import Config, redact
from ledger.files import RECORD_LIMIT_BYTES, read_regular_file
from ledger.hub import DEFAULT_TIMEOUT_S, describe_hub_error
from records.board import AddedIn
from records.record import RECORDS_FOLDER
from records.withdrawals import Entry

COMMIT_CACHE_SIZE = 10_000  # records whose adding commit HubStore.added_in remembers
COMMIT_RETRY_S = 60.0  # after a failed added_in, the Hub is not asked again for this long
_COMMIT_ATTEMPTS = 3  # a concurrent commit (HTTP 412) is retried this many times in all
_RECORD_PATH = re.compile(r"^submissions/(?!\.)[A-Za-z0-9._-]+\.json$")
_COMMIT_ID = re.compile(r"^[0-9a-f]{40}$")
_LIBRARY = "benchmark-leaderboard"
_log = logging.getLogger(__name__)


class RecordStore(Protocol):
    """Where records live: a folder or a Hub dataset, laid out as ``submissions/<id>.json``."""

    def list_paths(self) -> list[str]: ...

    def read(self, path: str) -> bytes: ...

    def write(self, record: Entry, message: str) -> str: ...


@runtime_checkable
class VersionedStore(Protocol):
    """A store that can tell cheaply whether anything changed, so a refresh costs O(changes)."""

    def head(self) -> str | None:
        """A token that changes whenever the store changes (one request); None = unknown."""
        ...

    def list_versions(self, revision: str | None = None) -> dict[str, str]:
        """Every record path with a content version (git blob id, mtime+size)."""
        ...

    def read(self, path: str, revision: str | None = None) -> bytes: ...


@runtime_checkable
class CommitStore(Protocol):
    """A store that can name the commit that added a record's file."""

    def added_in(self, path: str, revision: str | None = None) -> AddedIn | None:
        """That commit; None when the store has no commits or could not tell (never raises)."""
        ...


def _check_record_path(path: str) -> None:
    if not _RECORD_PATH.match(path):
        raise LedgerError(f"{path!r} is not a record path; expected submissions/<uuid>.json")


class LocalStore:
    """A folder laid out like the leaderboard dataset (``submissions/<uuid>.json``).

    A missing folder reads as an empty board; writing creates it.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"LocalStore({str(self.root)!r})"

    def head(self) -> str | None:
        return None  # listing a folder is cheap: always list

    def list_versions(self, revision: str | None = None) -> dict[str, str]:
        folder = self.root / RECORDS_FOLDER
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise LedgerError(f"cannot list {folder}: {exc.strerror or exc}") from None
        versions: dict[str, str] = {}
        for entry in entries:
            path = f"{RECORDS_FOLDER}/{entry.name}"
            # A link is listed, so that reading it refuses it by name (never followed).
            if _RECORD_PATH.match(path) and (
                entry.is_file(follow_symlinks=False) or entry.is_symlink()
            ):
                stat = entry.stat(follow_symlinks=False)
                versions[path] = f"{stat.st_mtime_ns}:{stat.st_size}"
        return dict(sorted(versions.items()))

    def list_paths(self) -> list[str]:
        return list(self.list_versions())

    def added_in(self, path: str, revision: str | None = None) -> AddedIn | None:
        return None  # a folder has no commits

    def read(self, path: str, revision: str | None = None) -> bytes:
        _check_record_path(path)
        try:
            return read_regular_file(self.root / path, RECORD_LIMIT_BYTES)
        except UnreadableFileError as exc:
            raise LedgerError(str(exc)) from None

    def write(self, record: Entry, message: str | None = None) -> str:
        """Create the record's file; RecordExistsError if it exists. Returns the file path."""
        folder = self.root / RECORDS_FOLDER
        dest = self.root / record.path()
        data = record.to_json()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            # Write aside, then link into place: readers never see a half-written record, and
            # the link fails if the name exists, so nothing is ever overwritten.
            tmp = folder / f".{record.id}.{os.getpid()}.{threading.get_ident()}.tmp"
            tmp.write_bytes(data)
            try:
                os.link(tmp, dest)
            except FileExistsError:
                raise self._exists(dest) from None
            except OSError:  # a file system without hard links
                try:
                    with open(dest, "xb") as out:
                        out.write(data)
                except FileExistsError:
                    raise self._exists(dest) from None
            finally:
                tmp.unlink(missing_ok=True)
        except OSError as exc:
            raise LedgerError(f"cannot write {dest}: {exc.strerror or exc}") from None
        return str(dest)

    @staticmethod
    def _exists(dest: Path) -> RecordExistsError:
        return RecordExistsError(
            f"{dest} already exists; records are immutable: publish a new record with "
            "supersedes=<its id> to correct it"
        )


def _git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


class HubStore:
    """A Hub dataset repo holding ``submissions/<uuid>.json`` records.

    Reads are single requests with a bounded timeout and no retries (the cache retries on its
    next refresh); the write is a commit that refuses to overwrite. ``clock`` times the pause
    after a failed ``added_in``.
    """

    def __init__(
        self,
        repo_id: str,
        *,
        endpoint: str | None = None,
        token: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.repo_id = repo_id
        self.endpoint = endpoint
        self.timeout_s = timeout_s
        self._token = token
        self._clock = clock
        self._api = HfApi(endpoint=endpoint, token=token, library_name=_LIBRARY)
        self._blob_ids: dict[str, str] = {}  # path -> git blob id, from the last listing
        self._commits_lock = threading.Lock()
        self._commits: dict[str, AddedIn] = {}  # path -> adding commit: immutable, kept
        self._commit_failed: dict[str, float] = {}  # path -> when asking for it last failed
        self._hub_down_at: float | None = None  # when the Hub last gave no answer at all
        self._commits_failing = False  # a failure was logged; quiet until an ask succeeds

    def __repr__(self) -> str:
        return f"HubStore({self.repo_id!r}, endpoint={self.endpoint!r})"

    @property
    def _hub(self) -> str:
        return self.endpoint or constants.ENDPOINT

    def _error(self, exc: BaseException, what: str) -> LedgerError:
        error = describe_hub_error(exc, f"{what} {self.repo_id} at {self._hub}")
        return type(error)(redact(str(error), self._token))

    def _send(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, str] | None = None,
        data: Mapping[str, object] | None = None,
    ) -> httpx2.Response:
        headers = build_hf_headers(token=self._token, library_name=_LIBRARY)

        def send() -> httpx2.Response:
            return get_session().request(
                method, url, params=params, data=data, headers=headers, timeout=self.timeout_s
            )

        try:
            response = send()
        except RuntimeError:
            # The shared client was closed under us (huggingface_hub does that on connection
            # errors elsewhere in the process); the next get_session() builds a new one.
            response = send()
        hf_raise_for_status(response)
        return response

    def _get(self, url: str, params: Mapping[str, str] | None = None) -> httpx2.Response:
        return self._send("GET", url, params=params)

    def head(self) -> str:
        """The current commit of main: one request.

        It names the revision (``/api/datasets/<repo>/revision/main``): the Hub answers both
        forms, but Hub-compatible mirrors such as olah serving local git repos answer only this
        one (the bare form gets 401 "Repository not found" there).
        """
        try:
            info = self._api.dataset_info(
                self.repo_id,
                revision=constants.DEFAULT_REVISION,
                expand=["sha"],
                timeout=self.timeout_s,
            )
        except Exception as exc:
            raise self._error(exc, "reading the head commit of") from None
        if not info.sha:
            raise LedgerError(f"the Hub gave no commit id for {self.repo_id}")
        return info.sha

    def list_versions(self, revision: str | None = None) -> dict[str, str]:
        """Record paths with their git blob ids, at ``revision`` (default main); paged."""
        rev = revision or constants.DEFAULT_REVISION
        url: str | None = f"{self._hub}/api/datasets/{self.repo_id}/tree/{rev}/{RECORDS_FOLDER}"
        params: dict[str, str] | None = {"recursive": "false", "expand": "false"}
        versions: dict[str, str] = {}
        try:
            while url is not None:
                response = self._get(url, params)
                for entry in response.json():
                    path = entry.get("path", "")
                    if entry.get("type") == "file" and _RECORD_PATH.match(path):
                        lfs = entry.get("lfs")
                        versions[path] = f"sha256:{lfs['oid']}" if lfs else str(entry["oid"])
                url = response.links.get("next", {}).get("url")
                params = None  # the next link carries them
        except RemoteEntryNotFoundError:
            return {}  # no submissions/ folder yet: an empty board
        except Exception as exc:
            raise self._error(exc, "listing the records of") from None
        self._blob_ids = versions
        return dict(sorted(versions.items()))

    def list_paths(self) -> list[str]:
        return list(self.list_versions())

    def read(self, path: str, revision: str | None = None) -> bytes:
        """One record's bytes, checked against the blob id of the last listing."""
        _check_record_path(path)
        url = hf_hub_url(
            self.repo_id,
            path,
            repo_type="dataset",
            revision=revision or constants.DEFAULT_REVISION,
            endpoint=self.endpoint,
        )
        try:
            data = self._get(url).content
        except Exception as exc:
            raise self._error(exc, f"downloading {path} from") from None
        expected = self._blob_ids.get(path)
        actual = (
            "sha256:" + hashlib.sha256(data).hexdigest()
            if expected is not None and expected.startswith("sha256:")
            else _git_blob_id(data)
        )
        if expected is not None and actual != expected:
            raise LedgerError(
                f"{path} from {self.repo_id}: the downloaded bytes do not match the listed "
                f"content id {expected[:12]} (got {actual[:12]}); the transfer was corrupted"
            )
        return data

    def added_in(self, path: str, revision: str | None = None) -> AddedIn | None:
        """The commit that added the record at ``path`` (as of ``revision``, default main).

        Records are never rewritten, so the last commit touching the file added it: it is asked
        once (one paths-info request, bounded by the timeout) and remembered for good, up to
        COMMIT_CACHE_SIZE paths. A failure returns None, is logged once until an ask succeeds
        again, and that path is not asked again for COMMIT_RETRY_S seconds (no path at all if
        the Hub did not answer), so a card opening while the Hub is down costs no wait.
        """
        now = self._clock()
        with self._commits_lock:
            known = self._commits.get(path)
            if known is not None:
                return known
            failed_at = [
                at for at in (self._commit_failed.get(path), self._hub_down_at) if at is not None
            ]
            if failed_at and now - max(failed_at) < COMMIT_RETRY_S:
                return None
        try:
            added = self._ask_added_in(path, revision)
        except LedgerError as exc:
            with self._commits_lock:
                self._remember_failure(path, now, unreachable=isinstance(exc, HubUnreachableError))
                first = not self._commits_failing
                self._commits_failing = True
            if first:
                _log.warning(
                    "cannot name the commit of a record: %s; not asked again for "
                    "%g s, not logged again until an ask succeeds",
                    exc,
                    COMMIT_RETRY_S,
                )
            return None
        with self._commits_lock:
            self._commit_failed.pop(path, None)
            self._hub_down_at = None
            if self._commits_failing:
                _log.info("naming the commit of a record works again (%s)", path)
            self._commits_failing = False
            if path not in self._commits and len(self._commits) >= COMMIT_CACHE_SIZE:
                del self._commits[next(iter(self._commits))]  # the oldest remembered
            self._commits[path] = added
        return added

    def _remember_failure(self, path: str, now: float, *, unreachable: bool) -> None:
        if unreachable:
            self._hub_down_at = now
        failed = self._commit_failed
        for old in [p for p, at in failed.items() if now - at >= COMMIT_RETRY_S]:
            del failed[old]
        if len(failed) >= COMMIT_CACHE_SIZE:
            del failed[next(iter(failed))]
        failed[path] = now

    def _ask_added_in(self, path: str, revision: str | None) -> AddedIn:
        """One paths-info request with ``expand``, as ``HfApi.get_paths_info`` sends it."""
        _check_record_path(path)
        rev = revision or constants.DEFAULT_REVISION
        url = f"{self._hub}/api/datasets/{self.repo_id}/paths-info/{quote(rev, safe='')}"
        what = f"asking for the commit of {path} in"
        try:
            entries = self._send("POST", url, data={"paths": [path], "expand": True}).json()
            # Parsed as get_paths_info parses it (RepoFile's constructor takes **kwargs).
            files = [
                RepoFile(**e)  # type: ignore[no-untyped-call]
                for e in entries
                if e.get("type") == "file" and e.get("path") == path
            ]
        except Exception as exc:
            raise self._error(exc, what) from None
        last = files[0].last_commit if files else None
        if last is None:
            found = "no such file" if not files else "the file but no last commit"
            raise LedgerError(
                f"{what} {self.repo_id} at {self._hub}: expected the file with "
                f"its last commit at {rev}, got {found}"
            )
        if not isinstance(last.oid, str) or not _COMMIT_ID.match(last.oid):
            raise LedgerError(
                f"{what} {self.repo_id} at {self._hub}: expected a 40-hex commit "
                f"id, got {str(last.oid)[:60]!r}"
            )
        return AddedIn(
            commit=last.oid,
            title=last.title if isinstance(last.title, str) else "",
            date=last.date,
            url=f"{self._hub}/datasets/{self.repo_id}/commit/{last.oid}",
        )

    def write(self, record: Entry, message: str) -> str:
        """Commit the record as a new file; RecordExistsError if it exists. Returns the commit URL.

        The existence check and the commit are tied by ``parent_commit``: if anything lands in
        between, the Hub refuses the commit (HTTP 412) and the check runs again.
        """
        path, data = record.path(), record.to_json()
        for attempt in range(_COMMIT_ATTEMPTS):
            head = self.head()
            try:
                present = self._api.get_paths_info(
                    self.repo_id, [path], repo_type="dataset", revision=head
                )
            except Exception as exc:
                raise self._error(exc, "checking for an existing record in") from None
            if present:
                raise RecordExistsError(
                    f"{path} already exists in {self.repo_id}; records are immutable: publish a "
                    "new record with supersedes=<its id> to correct it"
                )
            addition = CommitOperationAdd(path_in_repo=path, path_or_fileobj=data)
            try:
                info = self._api.create_commit(
                    self.repo_id,
                    [addition],
                    commit_message=message,
                    commit_description=f"Record {record.id} ({record.source}).",
                    repo_type="dataset",
                    parent_commit=head,
                )
            except HfHubHTTPError as exc:
                status = exc.response.status_code if exc.response is not None else 0
                if status == 412 and attempt + 1 < _COMMIT_ATTEMPTS:
                    continue  # someone committed in between: check again on the new head
                if status in (401, 403):
                    raise LedgerError(
                        f"the Hub refused the commit to {self.repo_id} (HTTP {status}); log in "
                        "with a token that can write to it (hf auth login)"
                    ) from None
                raise self._error(exc, "committing to") from None
            except Exception as exc:
                raise self._error(exc, "committing to") from None
            if addition._remote_oid is not None:
                # The preupload found the file: it landed after our check. With other content
                # the commit is refused (412, parent_commit); with the same content
                # huggingface_hub skips the commit as a no-op. Either way, nothing of ours.
                raise RecordExistsError(
                    f"{path} was created in {self.repo_id} by someone else while publishing"
                )
            return str(info.commit_url)
        raise LedgerError(f"{self.repo_id} kept changing during the commit; try again")


def board_store(config: Config) -> RecordStore:
    """The records folder if set; the demo board in demo mode; else the public records dataset."""
    if config.records_dir is not None:
        return LocalStore(config.records_dir)
    if config.demo:
        return LocalStore(config.benchmark.demo_board)
    return HubStore(config.records_repo, endpoint=config.endpoint, token=config.token)
