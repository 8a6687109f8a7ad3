"""A loopback HTTP server speaking the part of the Hugging Face Hub API that huggingface_hub 2.4
uses here, so tests (and perf/) run the real client over real HTTP.

It holds repos in memory (public or private, with a commit history), accepts a set of tokens
(read or write scope), records every request, and can be told to go down, fail, stall or
return garbage for chosen paths.

Example::

    with HubServer() as hub:                                   # 127.0.0.1, a free port
        hub.create_repo("org/board", private=False)
        hub.commit("org/board", {"submissions/x.json": b"{}"})
        api = HfApi(endpoint=hub.url, token=WRITE_TOKEN)
        hub.reset_requests(); ...; hub.count("GET", "/tree/")  # requests made since
        hub.inject(r"/resolve/", status=503, times=1)          # next download fails once
        hub.stop(); hub.start()                                # down, then back on the same port

Endpoints: ``GET /api/whoami-v2``; ``POST /api/repos/create``;
``GET /api/{models,datasets,spaces}/{ns}/{name}[/revision/{rev}]`` (``expand``, ``blobs``);
``GET .../tree/{rev}[/{path}]`` (``recursive``, cursor paging through a ``Link`` header);
``POST .../paths-info/{rev}`` (``expand``: each path's ``lastCommit``, the last commit that
changed it); ``POST .../preupload/{rev}`` (always "regular");
``POST .../commit/{rev}`` (NDJSON ``header``/``file``/``deletedFile``/``deletedFolder``,
``parentCommit`` checked: 412 when stale; ``create_pr=1`` opens a pull request instead, its
commit on ``refs/pr/{num}``, which every read route takes as a revision);
``GET .../discussions/{num}`` (a pull request's details); ``GET /api/datasets/{ns}/{name}/
leaderboard`` (the Hub's Eval Results of a benchmark dataset, tests/support/hub_evals.py);
``HEAD``/``GET [/datasets|/spaces]/{ns}/{name}/resolve/{rev}/{path}`` (``X-Repo-Commit``, quoted
``ETag``, ``Range``). Errors carry ``X-Error-Code`` and ``X-Error-Message`` as the Hub's do; a
private repo answers 401 without a valid token.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
import socket
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

from tests.support import hub_evals

READ_TOKEN = "hf_loopbackReadToken0123456789abcdef"
WRITE_TOKEN = "hf_loopbackWriteToken0123456789abcdef"
INVALID_CREDENTIALS = "Invalid credentials in Authorization header"
_TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}
_PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}


def git_blob_id(data: bytes) -> str:
    """The git object id of a file's content, as the Hub reports it for regular files."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True)
class Token:
    """What a token may do: ``write`` scope, and the repos it may touch (None = all)."""

    user: str
    write: bool = False
    repos: frozenset[str] | None = None

    def can_read(self, repo_id: str) -> bool:
        return self.repos is None or repo_id in self.repos


@dataclass(frozen=True)
class Commit:
    sha: str
    message: str
    files: Mapping[str, bytes]
    date: datetime


@dataclass
class PullRequest:
    """A pull request (a discussion that carries commits), on ``refs/pr/{num}``."""

    num: int
    title: str
    description: str
    author: str
    base: Commit  # the commit of main it was opened on
    commits: list[Commit]
    created: datetime
    status: str = "open"  # "open", "merged" or "closed"

    @property
    def head(self) -> Commit:
        return self.commits[-1]


@dataclass
class Repo:
    repo_type: str
    repo_id: str
    private: bool
    commits: list[Commit] = field(default_factory=list)
    pulls: dict[int, PullRequest] = field(default_factory=dict)

    @property
    def head(self) -> Commit:
        return self.commits[-1]

    def at(self, revision: str) -> Commit | None:
        if revision == "main":
            return self.head
        pull = re.fullmatch(r"refs/pr/(\d+)", revision)
        if pull is not None:
            found = self.pulls.get(int(pull[1]))
            return found.head if found is not None else None
        for commit in reversed(
            [*self.commits, *(c for p in self.pulls.values() for c in p.commits)]
        ):
            if commit.sha == revision:
                return commit
        return None

    def history(self, revision: Commit) -> list[Commit]:
        """The commits up to ``revision``, oldest first (a pull request's on its base)."""
        for pull in self.pulls.values():
            if revision in pull.commits:
                end = pull.commits.index(revision)
                return [*self.history(pull.base), *pull.commits[: end + 1]]
        end = next(i for i, c in enumerate(self.commits) if c is revision)
        return self.commits[: end + 1]

    def last_change(self, revision: Commit, path: str) -> Commit | None:
        """The last commit up to ``revision`` that changed ``path`` (a file or a folder)."""

        def state(commit: Commit) -> dict[str, bytes]:
            folder = path.rstrip("/") + "/"
            return {p: d for p, d in commit.files.items() if p == path or p.startswith(folder)}

        history = self.history(revision)
        for i in range(len(history) - 1, -1, -1):
            if i == 0 or state(history[i]) != state(history[i - 1]):
                return history[i] if state(history[i]) else None
        return None


@dataclass(frozen=True)
class Request:
    """One request as the server saw it (the token is never recorded, only its user)."""

    method: str
    path: str
    query: str
    status: int
    user: str | None


@dataclass
class Fault:
    """A misbehaviour for requests whose path matches ``pattern`` (``re.search``).

    ``before`` runs first (e.g. a concurrent commit); ``delay_s`` stalls before answering
    (``release()``, ``clear_faults()`` or ``stop()`` end the stall early); ``status`` answers
    with that error instead; ``body`` replaces the body of the normal answer (garbage);
    ``drop`` closes the connection without an answer. ``times`` limits how often it fires
    (None: until cleared); ``fired`` counts.
    """

    pattern: re.Pattern[str]
    method: str | None = None
    status: int | None = None
    body: bytes | None = None
    delay_s: float = 0.0
    drop: bool = False
    times: int | None = None
    before: Callable[[], object] | None = None
    fired: int = 0
    wake: threading.Event = field(default_factory=threading.Event)

    def matches(self, method: str, path: str) -> bool:
        if self.method is not None and self.method != method:
            return False
        if self.times is not None and self.fired >= self.times:
            return False
        return self.pattern.search(path) is not None

    def release(self) -> None:
        """End the stalls of requests held by this fault; they are then answered normally."""
        self.wake.set()


class _HttpError(Exception):
    def __init__(
        self, status: int, message: str, code: str | None = None, headers: Mapping[str, str] = {}
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.code, self.headers = status, message, code, dict(headers)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], hub: HubServer) -> None:
        self.hub = hub
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.connections_lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.connections_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (timed out, went away) is normal here; anything else is kept
        # for the tests to see instead of being printed over pytest's output.
        error = sys.exc_info()[1]
        if not isinstance(error, ConnectionError):
            self.hub.errors.append(f"{type(error).__name__}: {error}")

    def close_connections(self) -> None:
        with self.connections_lock:
            sockets = list(self.connections)
            self.connections.clear()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()


class HubServer:
    """The in-memory Hub; ``start()``/``stop()`` or use it as a context manager."""

    def __init__(
        self,
        tokens: Mapping[str, Token] | None = None,
        *,
        page_size: int = 1000,
        host: str = "127.0.0.1",
    ) -> None:
        self.host = host
        self.port = 0
        self.page_size = page_size
        self.tokens: dict[str, Token] = dict(
            tokens
            if tokens is not None
            else {READ_TOKEN: Token("reader"), WRITE_TOKEN: Token("maintainer", write=True)}
        )
        self._repos: dict[tuple[str, str], Repo] = {}
        self._requests: list[Request] = []
        self.errors: list[str] = []  # unexpected exceptions in handler threads
        self._faults: list[Fault] = []
        self._lock = threading.RLock()
        self._counter = 0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    # -- lifecycle --------------------------------------------------------------------------

    @property
    def url(self) -> str:
        if not self.port:
            raise RuntimeError("the server has not been started")
        return f"http://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self) -> HubServer:
        """Listen (on a free port the first time, on the same port after a ``stop()``)."""
        if self._server is not None:
            return self
        self._stopping.clear()
        with self._lock:
            for fault in self._faults:
                fault.wake.clear()
        self._server = _Server((self.host, self.port), self)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"hub-server:{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening and cut every open connection: clients then get "connection refused".

        The repos, tokens and request log are kept, so ``start()`` brings the same Hub back.
        """
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()
        with self._lock:
            for fault in self._faults:
                fault.release()  # stalled handlers see _stopping and answer nothing
        server.shutdown()
        server.close_connections()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> HubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- state ------------------------------------------------------------------------------

    def add_token(
        self,
        token: str,
        *,
        user: str = "user",
        write: bool = False,
        repos: Iterable[str] | None = None,
    ) -> None:
        self.tokens[token] = Token(user, write, frozenset(repos) if repos is not None else None)

    def create_repo(
        self,
        repo_id: str,
        *,
        repo_type: str = "dataset",
        private: bool = False,
        files: Mapping[str, bytes] | None = None,
    ) -> Repo:
        """A repo with an initial commit (as the Hub makes one, with a .gitattributes)."""
        with self._lock:
            key = (repo_type, repo_id)
            if key in self._repos:
                raise ValueError(f"{repo_type} {repo_id} exists")
            repo = Repo(repo_type, repo_id, private)
            repo.commits.append(self._new_commit(None, "initial commit", {".gitattributes": b""}))
            self._repos[key] = repo
            if files:
                self.commit(repo_id, files, repo_type=repo_type, message="Add files")
            return repo

    def commit(
        self,
        repo_id: str,
        files: Mapping[str, bytes] | None = None,
        *,
        deletes: Iterable[str] = (),
        message: str = "Update files",
        repo_type: str = "dataset",
    ) -> str:
        """Commit directly (no HTTP); returns the new head sha."""
        with self._lock:
            repo = self.repo(repo_id, repo_type)
            tree = dict(repo.head.files)
            tree.update(files or {})
            for path in deletes:
                tree.pop(path)
            repo.commits.append(self._new_commit(repo.head.sha, message, tree))
            return repo.head.sha

    def repo(self, repo_id: str, repo_type: str = "dataset") -> Repo:
        with self._lock:
            return self._repos[(repo_type, repo_id)]

    def files(self, repo_id: str, repo_type: str = "dataset") -> dict[str, bytes]:
        """The files at the head of the repo."""
        return dict(self.repo(repo_id, repo_type).head.files)

    def head(self, repo_id: str, repo_type: str = "dataset") -> str:
        return self.repo(repo_id, repo_type).head.sha

    def commit_messages(self, repo_id: str, repo_type: str = "dataset") -> list[str]:
        return [c.message for c in self.repo(repo_id, repo_type).commits]

    def pull_requests(self, repo_id: str, repo_type: str = "model") -> list[PullRequest]:
        """The repo's pull requests, in the order they were opened."""
        with self._lock:
            return [p for _, p in sorted(self.repo(repo_id, repo_type).pulls.items())]

    def merge(self, repo_id: str, num: int, repo_type: str = "model") -> str:
        """Merge pull request ``num`` into main (as its repo's owner would); the new head."""
        with self._lock:
            repo = self.repo(repo_id, repo_type)
            pull = repo.pulls[num]
            tree = dict(repo.head.files)
            tree.update(pull.head.files)
            for path in set(pull.base.files) - set(pull.head.files):
                tree.pop(path, None)
            repo.commits.append(self._new_commit(repo.head.sha, f"Merge #{num}", tree))
            pull.status = "merged"
            return repo.head.sha

    def _new_commit(self, parent: str | None, message: str, files: Mapping[str, bytes]) -> Commit:
        self._counter += 1
        seed = f"{parent}:{self._counter}:{message}".encode()
        sha = hashlib.sha1(seed, usedforsecurity=False).hexdigest()
        return Commit(sha, message, dict(files), datetime.now(UTC))

    # -- requests and faults ----------------------------------------------------------------

    @property
    def requests(self) -> list[Request]:
        with self._lock:
            return list(self._requests)

    def reset_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    def count(self, method: str | None = None, path_contains: str = "") -> int:
        """How many requests matched ``method`` (None: any) and a substring of the path."""
        return sum(
            1
            for r in self.requests
            if (method is None or r.method == method) and path_contains in r.path
        )

    def inject(
        self,
        pattern: str,
        *,
        method: str | None = None,
        status: int | None = None,
        body: bytes | None = None,
        delay_s: float = 0.0,
        drop: bool = False,
        times: int | None = None,
        before: Callable[[], object] | None = None,
    ) -> Fault:
        """Make matching requests misbehave (see ``Fault``); returns it for ``.fired``."""
        fault = Fault(re.compile(pattern), method, status, body, delay_s, drop, times, before)
        with self._lock:
            self._faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        """Remove every fault, releasing requests they stall."""
        with self._lock:
            for fault in self._faults:
                fault.release()
            self._faults.clear()

    def _fault_for(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.matches(method, path):
                    fault.fired += 1
                    return fault
        return None

    def _record(self, method: str, path: str, query: str, status: int, user: str | None) -> None:
        with self._lock:
            self._requests.append(Request(method, path, query, status, user))

    # -- the API ----------------------------------------------------------------------------

    def handle(
        self,
        method: str,
        raw_path: str,
        query: Mapping[str, list[str]],
        headers: Mapping[str, str],
        body: bytes,
    ) -> tuple[int, dict[str, str], bytes]:
        """Answer one request: (status, headers, body). Raises _HttpError for Hub errors."""
        token = self._token(headers)
        if raw_path == "/api/whoami-v2" and method == "GET":
            return self._whoami(token)
        if raw_path == "/api/repos/create" and method == "POST":
            return self._create(token, body)
        m = re.fullmatch(r"/api/(models|datasets|spaces)/([^/]+)/([^/]+)(?:/(.*))?", raw_path)
        if m:
            repo_type, repo_id = _TYPES[m[1]], f"{unquote(m[2])}/{unquote(m[3])}"
            rest = m[4] or ""
            if method == "GET" and (not rest or rest.startswith("revision/")):
                revision = unquote(rest.removeprefix("revision/")) if rest else "main"
                return self._info(token, repo_type, repo_id, revision, query)
            if rest == "leaderboard" and method == "GET" and repo_type == "dataset":
                return self._leaderboard(token, repo_id)
            discussion = re.fullmatch(r"discussions/(\d+)", rest)
            if discussion and method == "GET":
                return self._discussion(token, repo_type, repo_id, int(discussion[1]))
            sub = re.fullmatch(r"(tree|paths-info|preupload|commit)/([^/]+)(?:/(.*))?", rest)
            if sub:
                kind, revision, path = sub[1], unquote(sub[2]), unquote(sub[3] or "")
                if kind == "tree" and method == "GET":
                    return self._tree(token, repo_type, repo_id, revision, path, query)
                if kind == "paths-info" and method == "POST":
                    return self._paths_info(token, repo_type, repo_id, revision, headers, body)
                if kind == "preupload" and method == "POST":
                    return self._preupload(token, repo_type, repo_id, revision, query, body)
                if kind == "commit" and method == "POST":
                    return self._commit(token, repo_type, repo_id, revision, query, body)
        m = re.fullmatch(r"/(?:(datasets|spaces)/)?([^/]+)/([^/]+)/resolve/([^/]+)/(.+)", raw_path)
        if m and method in ("GET", "HEAD"):
            repo_type = _TYPES[m[1]] if m[1] else "model"
            repo_id = f"{unquote(m[2])}/{unquote(m[3])}"
            return self._resolve(token, repo_type, repo_id, unquote(m[4]), unquote(m[5]), headers)
        raise _HttpError(404, f"no route for {method} {raw_path}")

    def _token(self, headers: Mapping[str, str]) -> Token | None:
        auth = headers.get("authorization")
        if auth is None:
            return None
        value = auth.removeprefix("Bearer ").strip()
        token = self.tokens.get(value)
        if token is None:
            raise _HttpError(401, INVALID_CREDENTIALS)
        return token

    def _readable(self, token: Token | None, repo_type: str, repo_id: str) -> Repo:
        with self._lock:
            repo = self._repos.get((repo_type, repo_id))
        if repo is None or (repo.private and (token is None or not token.can_read(repo_id))):
            # As the Hub: a repo you may not see does not exist; 401 when anonymous.
            status = 401 if token is None else 404
            raise _HttpError(status, "Repository not found", "RepoNotFound")
        return repo

    def _writable(self, token: Token | None, repo_type: str, repo_id: str) -> Repo:
        if token is None:
            raise _HttpError(401, "You must be authenticated to write")
        repo = self._readable(token, repo_type, repo_id)
        if not token.write or not token.can_read(repo_id):
            raise _HttpError(403, "You don't have the rights to write to this repo (read token)")
        return repo

    def _proposable(self, token: Token | None, repo_type: str, repo_id: str) -> Repo:
        if token is None:
            raise _HttpError(401, "You must be authenticated to open a pull request")
        repo = self._readable(token, repo_type, repo_id)
        if not token.write:
            raise _HttpError(403, "You don't have the rights to open a pull request (read token)")
        return repo

    @staticmethod
    def _revision(repo: Repo, revision: str) -> Commit:
        commit = repo.at(revision)
        if commit is None:
            raise _HttpError(404, f"Invalid rev id: {revision}", "RevisionNotFound")
        return commit

    def _whoami(self, token: Token | None) -> tuple[int, dict[str, str], bytes]:
        if token is None:
            raise _HttpError(401, INVALID_CREDENTIALS)
        role = "write" if token.write else "read"
        return _json(
            {
                "type": "user",
                "name": token.user,
                "fullname": token.user,
                "orgs": [],
                "auth": {
                    "type": "access_token",
                    "accessToken": {"displayName": "loopback", "role": role},
                },
            }
        )

    def _create(self, token: Token | None, body: bytes) -> tuple[int, dict[str, str], bytes]:
        if token is None:
            raise _HttpError(401, "You must be authenticated to create a repo")
        if not token.write:
            raise _HttpError(403, "You don't have the rights to create a repo (read-only token)")
        payload = json.loads(body or b"{}")
        name, org = payload.get("name"), payload.get("organization") or token.user
        repo_type = payload.get("type") or "model"
        private = bool(payload.get("private")) or payload.get("visibility") == "private"
        repo_id = f"{org}/{name}"
        url = f"{self.url}/{_PREFIX[repo_type]}{repo_id}"
        with self._lock:
            if (repo_type, repo_id) in self._repos:
                return _json({"error": "You already created this repo", "url": url}, 409)
            self.create_repo(repo_id, repo_type=repo_type, private=private)
        return _json({"url": url, "name": repo_id, "id": repo_id})

    def _info(
        self,
        token: Token | None,
        repo_type: str,
        repo_id: str,
        revision: str,
        query: Mapping[str, list[str]],
    ) -> tuple[int, dict[str, str], bytes]:
        repo = self._readable(token, repo_type, repo_id)
        commit = self._revision(repo, revision)
        blobs = query.get("blobs", ["false"])[0].lower() in ("1", "true")
        siblings = [
            {"rfilename": p, **({"size": len(d), "blobId": git_blob_id(d)} if blobs else {})}
            for p, d in sorted(commit.files.items())
        ]
        full: dict[str, Any] = {
            "_id": hashlib.md5(repo_id.encode(), usedforsecurity=False).hexdigest()[:24],
            "id": repo_id,
            "author": repo_id.split("/")[0],
            "sha": commit.sha,
            "private": repo.private,
            "gated": False,
            "disabled": False,
            "lastModified": commit.date.isoformat().replace("+00:00", "Z"),
            "createdAt": repo.commits[0].date.isoformat().replace("+00:00", "Z"),
            "downloads": 0,
            "likes": 0,
            "tags": [],
            "siblings": siblings,
        }
        expand = [v for values in query.get("expand", []) for v in values.split(",")]
        if expand:
            full = {k: v for k, v in full.items() if k in ("_id", "id") or k in expand}
        return _json(full)

    def _tree(
        self,
        token: Token | None,
        repo_type: str,
        repo_id: str,
        revision: str,
        path: str,
        query: Mapping[str, list[str]],
    ) -> tuple[int, dict[str, str], bytes]:
        repo = self._readable(token, repo_type, repo_id)
        commit = self._revision(repo, revision)
        recursive = query.get("recursive", ["false"])[0].lower() in ("1", "true")
        prefix = f"{path.strip('/')}/" if path.strip("/") else ""
        entries: dict[str, dict[str, Any]] = {}
        for file_path, data in commit.files.items():
            if not file_path.startswith(prefix):
                continue
            parts = file_path[len(prefix) :].split("/")
            for depth in range(1, len(parts)):
                if depth > 1 and not recursive:
                    break
                folder = prefix + "/".join(parts[:depth])
                entries.setdefault(
                    folder,
                    {"type": "directory", "oid": _tree_id(folder), "size": 0, "path": folder},
                )
            if len(parts) == 1 or recursive:
                entries[file_path] = {
                    "type": "file",
                    "oid": git_blob_id(data),
                    "size": len(data),
                    "path": file_path,
                }
        if prefix and not entries:
            raise _HttpError(
                404, f"Entry not found: {path}", "EntryNotFound", {"X-Repo-Commit": commit.sha}
            )
        ordered = [entries[k] for k in sorted(entries)]
        limit = min(int(query.get("limit", [self.page_size])[0]), self.page_size)
        start = int(query.get("cursor", ["0"])[0] or 0)
        page = ordered[start : start + limit]
        headers = {}
        if start + limit < len(ordered):
            params = {k: v[0] for k, v in query.items() if k != "cursor"}
            params["cursor"] = str(start + limit)
            tail = f"/{quote(path, safe='')}" if path else ""
            next_url = (
                f"{self.url}/api/{repo_type}s/{repo_id}/tree/{quote(revision, safe='')}"
                f"{tail}?{urlencode(params)}"
            )
            headers["Link"] = f'<{next_url}>; rel="next"'
        status, base, body = _json(page)
        return status, {**base, **headers}, body

    def _paths_info(
        self,
        token: Token | None,
        repo_type: str,
        repo_id: str,
        revision: str,
        headers: Mapping[str, str],
        body: bytes,
    ) -> tuple[int, dict[str, str], bytes]:
        repo = self._readable(token, repo_type, repo_id)
        commit = self._revision(repo, revision)
        # huggingface_hub sends a form (paths=a&paths=b&expand=true); the Hub also takes JSON.
        if "json" in headers.get("content-type", ""):
            payload = json.loads(body)
            paths, expand = payload.get("paths", []), payload.get("expand") is True
        else:
            form = parse_qs(body.decode())
            paths = form.get("paths", [])
            expand = form.get("expand", ["false"])[0].lower() in ("1", "true")
        out: list[dict[str, Any]] = []
        for path in paths:
            if path in commit.files:
                data = commit.files[path]
                entry = {"type": "file", "oid": git_blob_id(data), "size": len(data), "path": path}
            elif any(p.startswith(path.rstrip("/") + "/") for p in commit.files):
                entry = {"type": "directory", "oid": _tree_id(path), "size": 0, "path": path}
            else:
                continue  # as the Hub: a missing path is left out, not an error
            changed = repo.last_change(commit, path) if expand else None
            if changed is not None:
                title = (changed.message.splitlines() or [""])[0]
                entry["lastCommit"] = {
                    "id": changed.sha,
                    "title": title,
                    "date": _hub_date(changed.date),
                }
            out.append(entry)
        return _json(out)

    def _preupload(
        self,
        token: Token | None,
        repo_type: str,
        repo_id: str,
        revision: str,
        query: Mapping[str, list[str]],
        body: bytes,
    ) -> tuple[int, dict[str, str], bytes]:
        create_pr = query.get("create_pr", ["0"])[0].lower() in ("1", "true")
        repo = (
            self._proposable(token, repo_type, repo_id)
            if create_pr
            else self._writable(token, repo_type, repo_id)
        )
        commit = self._revision(repo, revision)
        files = json.loads(body).get("files", [])
        answer = [
            {
                "path": f["path"],
                "uploadMode": "regular",
                "shouldIgnore": False,
                "oid": git_blob_id(commit.files[f["path"]]) if f["path"] in commit.files else None,
            }
            for f in files
        ]
        return _json({"files": answer, "commitOid": commit.sha})

    def _commit(
        self,
        token: Token | None,
        repo_type: str,
        repo_id: str,
        revision: str,
        query: Mapping[str, list[str]],
        body: bytes,
    ) -> tuple[int, dict[str, str], bytes]:
        create_pr = query.get("create_pr", ["0"])[0].lower() in ("1", "true")
        # As the Hub: a token of write scope may open a pull request on any repo it can read.
        repo = (
            self._proposable(token, repo_type, repo_id)
            if create_pr
            else self._writable(token, repo_type, repo_id)
        )
        if revision != "main":
            raise _HttpError(400, f"this server commits to main only, not {revision}")
        lines = [json.loads(line) for line in body.splitlines() if line.strip()]
        header = next((line["value"] for line in lines if line.get("key") == "header"), None)
        if header is None or not header.get("summary"):
            raise _HttpError(400, "the commit has no header with a summary")
        with self._lock:
            head = repo.head
            parent = header.get("parentCommit")
            if parent is not None and create_pr:
                head = repo.at(parent) or next(
                    (c for c in repo.commits if c.sha.startswith(parent)), head
                )
            elif parent is not None and not head.sha.startswith(parent):
                raise _HttpError(412, "A commit has happened since. Please refresh and try again.")
            tree = dict(head.files)
            for line in lines:
                key, value = line.get("key"), line.get("value", {})
                if key == "file":
                    tree[value["path"]] = base64.b64decode(value["content"])
                elif key == "deletedFile":
                    if value["path"] not in tree:
                        raise _HttpError(
                            404, "A file with this name doesn't exist", "EntryNotFound"
                        )
                    del tree[value["path"]]
                elif key == "deletedFolder":
                    folder = value["path"].rstrip("/") + "/"
                    tree = {p: d for p, d in tree.items() if not p.startswith(folder)}
                elif key != "header":
                    raise _HttpError(400, f"unsupported commit operation {key!r} (no LFS here)")
            message = header["summary"]
            if header.get("description"):
                message = f"{message}\n\n{header['description']}"
            commit = self._new_commit(head.sha, message, tree)
            pull_url = None
            if create_pr:
                assert token is not None
                num = 1 + max([0, *repo.pulls])
                repo.pulls[num] = PullRequest(
                    num,
                    header["summary"],
                    header.get("description") or "",
                    token.user,
                    head,
                    [commit],
                    commit.date,
                )
                pull_url = f"{self.url}/{_PREFIX[repo_type]}{repo_id}/discussions/{num}"
            else:
                repo.commits.append(commit)
        url = f"{self.url}/{_PREFIX[repo_type]}{repo_id}/commit/{commit.sha}"
        return _json(
            {
                "success": True,
                "commitOid": commit.sha,
                "commitUrl": url,
                "hookOutput": "",
                "pullRequestUrl": pull_url,
            }
        )

    def _discussion(
        self, token: Token | None, repo_type: str, repo_id: str, num: int
    ) -> tuple[int, dict[str, str], bytes]:
        """A pull request's details, as get_discussion_details reads them."""
        repo = self._readable(token, repo_type, repo_id)
        pull = repo.pulls.get(num)
        if pull is None:
            raise _HttpError(404, "Discussion not found")
        author = {"name": pull.author, "type": "user"}
        events = [
            {
                "id": f"{num:024x}",
                "type": "comment",
                "createdAt": _hub_date(pull.created),
                "author": author,
                "data": {"edited": False, "hidden": False, "latest": {"raw": pull.description}},
            },
            *(
                {
                    "id": c.sha[:24],
                    "type": "commit",
                    "createdAt": _hub_date(c.date),
                    "author": author,
                    "data": {"subject": c.message.splitlines()[0], "oid": c.sha},
                }
                for c in pull.commits
            ),
        ]
        return _json(
            {
                "num": num,
                "title": pull.title,
                "author": author,
                "createdAt": _hub_date(pull.created),
                "status": pull.status,
                "repo": {"name": repo_id, "type": repo_type},
                "isPullRequest": True,
                "events": events,
                "changes": {"base": "refs/heads/main"},
                "filesWithConflicts": [],
            }
        )

    def _leaderboard(
        self, token: Token | None, dataset_id: str
    ) -> tuple[int, dict[str, str], bytes]:
        """The Hub's Eval Results of a benchmark dataset (tests/support/hub_evals.py)."""
        dataset = self._readable(token, "dataset", dataset_id)
        eval_yaml = dataset.head.files.get(hub_evals.EVAL_YAML)
        if eval_yaml is None:
            raise _HttpError(404, f"{dataset_id} is not a benchmark: it has no leaderboard")
        with self._lock:
            models = [
                hub_evals.ModelFiles(
                    repo.repo_id,
                    dict(repo.head.files),
                    {n: dict(p.head.files) for n, p in repo.pulls.items() if p.status == "open"},
                )
                for (kind, _), repo in self._repos.items()
                if kind == "model"
                and (not repo.private or (token is not None and token.can_read(repo.repo_id)))
            ]
        return _json(hub_evals.leaderboard(dataset_id, eval_yaml, models))

    def _resolve(
        self,
        token: Token | None,
        repo_type: str,
        repo_id: str,
        revision: str,
        path: str,
        headers: Mapping[str, str],
    ) -> tuple[int, dict[str, str], bytes]:
        repo = self._readable(token, repo_type, repo_id)
        commit = self._revision(repo, revision)
        if path not in commit.files:
            raise _HttpError(404, "Entry not found", "EntryNotFound", {"X-Repo-Commit": commit.sha})
        data = commit.files[path]
        out = {
            "X-Repo-Commit": commit.sha,
            "ETag": f'"{git_blob_id(data)}"',
            "Accept-Ranges": "bytes",
            "Content-Type": "application/octet-stream",
        }
        wanted = headers.get("range")
        if wanted is None:
            return 200, out, data
        m = re.fullmatch(r"\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*", wanted)
        if m is None or (not m[1] and not m[2]):
            raise _HttpError(400, f"bad Range {wanted!r}")
        size = len(data)
        if m[1]:
            start, end = int(m[1]), int(m[2]) if m[2] else size - 1
        else:
            start, end = max(size - int(m[2]), 0), size - 1
        end = min(end, size - 1)
        if start >= size or start > end:
            raise _HttpError(
                416, "Requested range not satisfiable", headers={"Content-Range": f"bytes */{size}"}
            )
        out["Content-Range"] = f"bytes {start}-{end}/{size}"
        return 206, out, data[start : end + 1]


def _hub_date(date: datetime) -> str:
    """A date as the Hub writes it: UTC, milliseconds, a Z (2024-06-10T12:34:56.789Z)."""
    return date.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{date.microsecond // 1000:03d}Z"


def _tree_id(path: str) -> str:
    return hashlib.sha1(f"tree:{path}".encode(), usedforsecurity=False).hexdigest()


def _json(payload: Any, status: int = 200) -> tuple[int, dict[str, str], bytes]:
    return status, {"Content-Type": "application/json"}, json.dumps(payload).encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: without TCP_NODELAY, Nagle's algorithm and
    # the client's delayed ACK add ~40 ms to every response.
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the hub records requests itself

    def _body(self) -> bytes:
        # Always read the whole body, even when answering early: an unread body would be
        # parsed as the next request on this keep-alive connection.
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline().strip():
                        pass  # trailers
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _serve(self) -> None:
        hub = self.server.hub
        body = self._body()
        split = urlsplit(self.path)
        raw_path, query = split.path, parse_qs(split.query, keep_blank_values=True)
        headers = {k.lower(): v for k, v in self.headers.items()}
        fault = hub._fault_for(self.command, raw_path)
        user: str | None = None
        try:
            with contextlib.suppress(_HttpError):
                token = hub._token(headers)
                user = token.user if token else None
            if fault is not None and fault.before is not None:
                fault.before()
            if fault is not None and fault.delay_s:
                fault.wake.wait(fault.delay_s)
                if hub._stopping.is_set():
                    self.close_connection = True  # stopped while stalling: answer nothing
                    return
            if fault is not None and fault.drop:
                hub._record(self.command, raw_path, split.query, 0, user)
                self.close_connection = True
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_RDWR)
                return
            if fault is not None and fault.status is not None:
                raise _HttpError(fault.status, "injected fault")
            status, out, payload = hub.handle(self.command, raw_path, query, headers, body)
            if fault is not None and fault.body is not None:
                payload = fault.body
        except _HttpError as err:
            status, payload = err.status, json.dumps({"error": err.message}).encode()
            out = {
                "Content-Type": "application/json",
                "X-Error-Message": err.message,
                **err.headers,
            }
            if err.code:
                out["X-Error-Code"] = err.code
        except Exception as exc:  # a bug in the server: answer 500 and say what
            status, payload = 500, json.dumps({"error": f"hub_server: {exc!r}"}).encode()
            out = {"Content-Type": "application/json"}
        hub._record(self.command, raw_path, split.query, status, user)
        self.send_response(status)
        for name, value in out.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = _serve
