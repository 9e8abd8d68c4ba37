"""A small Hugging Face / ModelScope hub on 127.0.0.1 for tests, with faults on demand.

It serves the endpoints the real ``huggingface_hub`` and ``modelscope_hub`` clients call,
so tests use the real clients: model search, model info with file hashes, file download
with Range (a start, or a start and an end).  Faults are set per file: drop the
connection after N bytes, ignore Range, serve wrong bytes of the right size, answer a
status code, send slowly (each connection capped, as a CDN does), answer 429 past N
connections at once, or change the file's ETag after N answers.  The hub counts the
connections each file has open at once (``peak``).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlparse

if TYPE_CHECKING:
    from app.core import Core

COMMIT = "0123456789abcdef0123456789abcdef01234567"
LFS_THRESHOLD = 1024


@dataclass
class Fault:
    drop_after: int | None = None  # close the connection after this many body bytes (once)
    ignore_range: bool = False
    corrupt: bool = False  # same size, wrong bytes
    status: int | None = None
    bytes_per_s: int | None = None  # each connection's cap
    drops_left: int = 1
    busy_over: int | None = None  # 429 to a connection past this many at once
    etag_after: int | None = None  # answers with the first ETag; another after them
    close_every: int | None = None  # every answer ends after this many bytes
    stall_first_s: float = 0.0  # the first answer sends its headers, then nothing this long
    wrong_range: bool = False  # Content-Range of other bytes than those asked for


@dataclass
class Repo:
    repo_id: str
    files: dict[str, bytes]
    gated: bool = False
    downloads: int = 0
    likes: int = 0
    tags: list[str] = field(default_factory=list)
    pipeline_tag: str = "text-generation"
    last_modified: str = "2026-01-01T00:00:00.000Z"


class FakeHub:
    def __init__(self) -> None:
        self.repos: dict[str, Repo] = {}
        self.faults: dict[tuple[str, str], Fault] = {}
        self.requests: list[str] = []
        self.credentials: list[str] = []  # Authorization headers and cookies that came
        self.token = "hf_secret"
        self.open: dict[str, int] = {}  # file name: its connections sending now
        self.peak: dict[str, int] = {}  # file name: the most it had at once
        self.answers: dict[str, int] = {}  # file name: file answers sent
        self.busy_answers = 0
        self.sent: dict[str, int] = {}  # file name: body bytes sent
        self.open_total = self.peak_total = 0  # file connections of every file at once
        self._count = threading.Lock()
        handler = type("Handler", (_Handler,), {"hub": self})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> FakeHub:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def add(self, repo_id: str, files: dict[str, bytes], **kwargs: Any) -> Repo:
        repo = Repo(repo_id, dict(files), **kwargs)
        self.repos[repo_id] = repo
        return repo

    def fault(self, repo_id: str, path: str, **kwargs: Any) -> Fault:
        fault = Fault(**kwargs)
        self.faults[(repo_id, path)] = fault
        return fault


class _Handler(BaseHTTPRequestHandler):
    hub: FakeHub
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # -- plumbing ----------------------------------------------------------------------
    def _json(self, payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _error(self, status: int, code: str, message: str) -> None:
        self._json({"error": message}, status, {"X-Error-Code": code, "X-Error-Message": message})

    def _authorised(self, repo: Repo) -> bool:
        if not repo.gated:
            return True
        return self.headers.get("Authorization") == f"Bearer {self.hub.token}"

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        self.hub.requests.append(f"{self.command} {self.path} {self.headers.get('Range', '')}")
        for header in ("Authorization", "Cookie"):
            if self.headers.get(header):
                self.hub.credentials.append(f"{header}: {self.headers[header]}")
        url = urlparse(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        path = unquote(url.path)
        if path == "/api/models":
            return self._search(query)
        if path.startswith("/api/v1/models/"):
            return self._modelscope(path, query)
        if path == "/openapi/v1/models":
            return self._modelscope_search(query)
        match = re.match(r"^/api/models/([^/]+/[^/]+)(?:/revision/[^/]+)?$", path)
        if match:
            return self._model_info(match.group(1))
        match = re.match(r"^/([^/]+/[^/]+)/resolve/([^/]+)/(.+)$", path)
        if match:
            return self._file(match.group(1), match.group(3))
        self._error(404, "RepoNotFound", f"no route for {path}")

    # -- Hugging Face --------------------------------------------------------------------
    def _search(self, query: dict[str, str]) -> None:
        text = query.get("search", "").lower()
        wanted = query.get("filter", "")
        found = [
            r
            for r in self.hub.repos.values()
            if text in r.repo_id.lower() and (not wanted or wanted in r.tags)
        ]
        sort = query.get("sort", "downloads")
        key = {
            "downloads": lambda r: r.downloads,
            "likes": lambda r: r.likes,
            "lastModified": lambda r: r.last_modified,
            "last_modified": lambda r: r.last_modified,
            "createdAt": lambda r: r.last_modified,
            "created_at": lambda r: r.last_modified,
            "trendingScore": lambda r: r.downloads,
        }.get(sort, lambda r: r.downloads)
        found.sort(key=key, reverse=True)
        limit = int(query.get("limit", "1000"))
        self._json([_summary(r) for r in found[:limit]])

    def _model_info(self, repo_id: str) -> None:
        repo = self.hub.repos.get(repo_id)
        if repo is None:
            return self._error(401, "RepoNotFound", "Repository not found")
        info = _summary(repo)
        info["sha"] = COMMIT
        info["siblings"] = [_sibling(name, data) for name, data in sorted(repo.files.items())]
        self._json(info)

    def _file(self, repo_id: str, name: str) -> None:
        repo = self.hub.repos.get(repo_id)
        if repo is None:
            return self._error(401, "RepoNotFound", "Repository not found")
        if not self._authorised(repo):
            return self._error(401, "GatedRepo", "Access to this model is restricted")
        data = repo.files.get(name)
        if data is None:
            return self._error(404, "EntryNotFound", f"{name} does not exist")
        fault = self.hub.faults.get((repo_id, name), Fault())
        if fault.status:
            return self._error(fault.status, "Fault", "fault on demand")
        self._send_bytes(
            name,
            data,
            fault,
            etag=_sha256(data) if len(data) > LFS_THRESHOLD else _git_sha1(data),
        )

    def _send_bytes(self, name: str, data: bytes, fault: Fault, etag: str) -> None:
        hub = self.hub
        with hub._count:
            hub.open[name] = hub.open.get(name, 0) + 1
            hub.peak[name] = max(hub.peak.get(name, 0), hub.open[name])
            hub.open_total += 1
            hub.peak_total = max(hub.peak_total, hub.open_total)
            answers = hub.answers[name] = hub.answers.get(name, 0) + 1
            busy = fault.busy_over is not None and hub.open[name] > fault.busy_over
            hub.busy_answers += busy
        try:
            if busy:
                return self._json({"error": "slow down"}, 429, {"Retry-After": "1"})
            if fault.etag_after is not None and answers > fault.etag_after:
                etag = "changed-" + etag
            self._send_range(name, data, fault, etag, first=answers == 1)
        finally:
            with hub._count:
                hub.open[name] -= 1
                hub.open_total -= 1

    def _send_range(self, name: str, data: bytes, fault: Fault, etag: str, first: bool) -> None:
        if fault.corrupt:
            data = bytes(b ^ 0xFF for b in data[:16]) + data[16:]
        start, end = 0, len(data) - 1
        match = re.match(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        partial = bool(match) and not fault.ignore_range
        if partial and match:
            start = int(match.group(1))
            end = min(end, int(match.group(2))) if match.group(2) else end
        body = data[start : end + 1]
        self.send_response(206 if partial else 200)
        self.send_header("Content-Length", str(len(body)))
        if fault.wrong_range:
            start, end = start + 1, end + 1
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag", f'"{etag}"')
        self.send_header("X-Repo-Commit", COMMIT)
        self.send_header("Content-Type", "application/octet-stream")
        if partial:
            self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
        self.end_headers()
        if self.command == "HEAD":
            return
        limit = len(body)
        if first and fault.stall_first_s:
            self.wfile.flush()
            time.sleep(fault.stall_first_s)
        if fault.close_every is not None and fault.close_every < limit:
            limit = fault.close_every
        cut = None if fault.drop_after is None else fault.drop_after - start
        if cut is not None and 0 <= cut < len(body) and fault.drops_left > 0:
            fault.drops_left -= 1  # the drop falls in this answer's bytes
            limit = cut
        sent = 0
        chunk = 64 * 1024
        try:
            while sent < limit:
                piece = body[sent : min(sent + chunk, limit)]
                if fault.bytes_per_s:  # paced before each write: done once the last is sent
                    time.sleep(len(piece) / fault.bytes_per_s)
                self.wfile.write(piece)
                sent += len(piece)
                with self.hub._count:
                    self.hub.sent[name] = self.hub.sent.get(name, 0) + len(piece)
        except (BrokenPipeError, ConnectionResetError):
            return
        if limit < len(body):
            self.close_connection = True
            self.wfile.flush()
            self.connection.shutdown(2)

    # -- ModelScope --------------------------------------------------------------------
    def _modelscope_search(self, query: dict[str, str]) -> None:
        text = query.get("search", "").lower()
        found = [r for r in self.hub.repos.values() if text in r.repo_id.lower()]
        found.sort(key=lambda r: r.downloads, reverse=True)
        models = [
            {
                "id": r.repo_id,
                "owner": r.repo_id.split("/")[0],
                "name": r.repo_id.split("/")[1],
                "downloads": r.downloads,
                "likes": r.likes,
                "last_modified": r.last_modified,
                "tags": r.tags,
            }
            for r in found
        ]
        self._json(
            {
                "success": True,
                "data": {
                    "models": models,
                    "total_count": len(models),
                    "page_number": 1,
                    "page_size": len(models),
                },
            }
        )

    def _modelscope(self, path: str, query: dict[str, str]) -> None:
        match = re.match(r"^/api/v1/models/([^/]+/[^/]+)(/repo(?:/files)?)?$", path)
        if not match:
            return self._json({"Code": 404, "Message": "not found", "Success": False}, 404)
        repo = self.hub.repos.get(match.group(1))
        if repo is None:
            return self._json({"Code": 404, "Message": "model not found", "Success": False}, 404)
        tail = match.group(2) or ""
        if tail == "/repo/files":
            files = [
                {
                    "Name": n.rsplit("/", 1)[-1],
                    "Path": n,
                    "Type": "blob",
                    "Size": len(d),
                    "Sha256": _sha256(d),
                    "Revision": COMMIT,
                }
                for n, d in sorted(repo.files.items())
            ]
            return self._json({"Code": 200, "Data": {"Files": files}, "Success": True})
        if tail == "/repo":
            name = query.get("FilePath", "")
            data = repo.files.get(name)
            if data is None:
                return self._json({"Code": 404, "Message": "file not found", "Success": False}, 404)
            fault = self.hub.faults.get((repo.repo_id, name), Fault())
            return self._send_bytes(name, data, fault, etag=_sha256(data))
        return self._json(
            {"Code": 200, "Data": {"Id": repo.repo_id, "Name": repo.repo_id}, "Success": True}
        )


def _summary(repo: Repo) -> dict[str, Any]:
    return {
        "_id": repo.repo_id,
        "id": repo.repo_id,
        "modelId": repo.repo_id,
        "downloads": repo.downloads,
        "likes": repo.likes,
        "tags": repo.tags,
        "pipeline_tag": repo.pipeline_tag,
        "lastModified": repo.last_modified,
        "createdAt": repo.last_modified,
        "private": False,
        "gated": "auto" if repo.gated else False,
    }


def _sibling(name: str, data: bytes) -> dict[str, Any]:
    entry: dict[str, Any] = {"rfilename": name, "size": len(data), "blobId": _git_sha1(data)}
    if len(data) > LFS_THRESHOLD:
        entry["lfs"] = {"sha256": _sha256(data), "size": len(data), "pointerSize": 134}
    return entry


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _git_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@contextmanager
def both_hubs(core: Core) -> Iterator[FakeHub]:
    """One fake hub as Hugging Face and ModelScope for ``core``, with an English window
    (so the catalogue prefers Hugging Face); stopped after."""
    server = FakeHub().start()
    core.settings.set("hub.huggingface_endpoint", server.url)
    core.settings.set("hub.modelscope_endpoint", server.url)
    core.settings.set("appearance.language", "en")
    try:
        yield server
    finally:
        server.stop()
