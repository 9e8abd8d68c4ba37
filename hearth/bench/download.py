"""Download throughput: Hearth's download manager against plain HTTP GETs, side by side.

A loopback server serves one file under the Hugging Face URL layout (``/owner/name/resolve/
main/file``, with ``sendfile`` so the server is not the bottleneck).  Each round fetches it,
alternately, three ways:

* a plain GET with the hub client's own HTTP session, streamed to disk (the budgeted
  ratio is against this one: one plain stream, the least a downloader should match);
* a plain GET with the standard library (``urllib``), which is faster on loopback than
  the hub client's pure-Python HTTP stack; reported so the cost of that stack is visible;
* Hearth: its own downloader (``app/hub/ranged.py``: several ranges at once into a part
  file, hashing on a thread of its own, size and SHA-256 check, rename into place).

``measure_connections`` answers the question a person with a slow hub has: with each
connection capped by the server (as hubs' CDNs do), how much faster does a file come
over Hearth's connections than over one, and what memory does that take.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from app.errors import HearthError
from app.hub.downloads import DONE, DownloadManager, FileAddress
from app.hub.link import Link
from app.hub.repo_files import RepoFile

REPO = "bench/file"
NAME = "payload.gguf"
CHUNK = 1024 * 1024


class _FileHandler(BaseHTTPRequestHandler):
    payload: Path
    rate: int = 0  # bytes per second; 0 is as fast as possible
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        size = self.payload.stat().st_size
        start, end = 0, size - 1
        ranged = self.headers.get("Range", "").startswith("bytes=")
        if ranged:
            first, _, last = self.headers["Range"][6:].partition("-")
            start, end = int(first), min(end, int(last)) if last else end
        length = end - start + 1
        self.send_response(206 if ranged else 200)
        self.send_header("Content-Length", str(length))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag", '"bench"')
        if ranged:
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.end_headers()
        with self.payload.open("rb") as handle:
            if not self.rate:
                self.connection.sendfile(handle, offset=start, count=length)
                return
            # The rate is each connection's, as a CDN caps each one.
            began, sent = time.perf_counter(), 0
            while sent < length:
                count = min(CHUNK, length - sent)
                sent += self.connection.sendfile(handle, offset=start + sent, count=count)
                ahead = sent / self.rate - (time.perf_counter() - began)
                if ahead > 0:
                    time.sleep(ahead)


def _urllib_get(url: str, target: Path) -> None:
    with urllib.request.urlopen(url) as response, target.open("wb") as out:
        shutil.copyfileobj(response, out, CHUNK)


def _session_get(url: str, target: Path) -> None:
    from huggingface_hub.utils import get_session  # type: ignore[attr-defined]

    with get_session().stream("GET", url) as response, target.open("wb") as out:
        for chunk in response.iter_bytes():
            out.write(chunk)


def measure(size_mb: int = 256, rounds: int = 5, rate_mb_s: int = 0) -> tuple[float, float, float]:
    """Median MB/s of (hub session GET, urllib GET, Hearth) over alternating rounds.

    ``rate_mb_s`` makes the server send no faster than that, like a real network link.
    """
    # Memory-backed scratch space when there is one: the figure is about software overhead,
    # and disk write-back pauses would only add noise to every side alike.
    shm = Path("/dev/shm")
    where = str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="hearth-bench-dl-", dir=where) as scratch:
        root = Path(scratch)
        payload, sha256 = _payload(root, size_mb)
        server, url = _server(payload, rate_mb_s * CHUNK)
        file = RepoFile(NAME, size_mb * CHUNK, sha256)
        addresses = {"hf": lambda item: FileAddress(url, {}, _refused)}

        session: list[float] = []
        plain: list[float] = []
        hearth: list[float] = []
        try:
            for index in range(rounds):
                for getter, results in ((_session_get, session), (_urllib_get, plain)):
                    target = root / f"plain-{index}"
                    started = time.perf_counter()
                    getter(url, target)
                    results.append(size_mb / (time.perf_counter() - started))
                    target.unlink()

                manager = DownloadManager(root / f"state-{index}.json", addresses)
                started = time.perf_counter()
                item = manager.add("hf", REPO, file, root / f"hearth-{index}")
                result = manager.wait(item.id)
                elapsed = time.perf_counter() - started
                if result.state != DONE:
                    raise RuntimeError(result.error or "the benchmark download failed")
                hearth.append(size_mb / elapsed)
                shutil.rmtree(root / f"hearth-{index}")
                manager.close()
        finally:
            server.terminate()
            server.wait(10)
            if server.stdout is not None:
                server.stdout.close()
    return statistics.median(session), statistics.median(plain), statistics.median(hearth)


def _refused(status: int) -> HearthError:
    return HearthError(f"the bench server answered {status}")


def _payload(root: Path, size_mb: int) -> tuple[Path, str]:
    payload = root / "payload.bin"
    digest = hashlib.sha256()
    with payload.open("wb") as out:
        for _ in range(size_mb):
            block = os.urandom(CHUNK)
            digest.update(block)
            out.write(block)
    return payload, digest.hexdigest()


def _server(payload: Path, rate: int) -> tuple[subprocess.Popen[str], str]:
    """The file server in a process of its own (never competing for this one's GIL)."""
    server = subprocess.Popen(
        [sys.executable, "-m", "hearth.bench.download", str(payload), str(rate)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    return server, f"http://127.0.0.1:{int(server.stdout.readline())}/{REPO}/resolve/main/{NAME}"


@dataclass
class Connections:
    """One file over one connection and over Hearth's default, each connection capped."""

    one_mb_s: float
    parallel_mb_s: float
    connections: int
    peak_memory_mb: float  # the process's resident memory above where it started

    @property
    def ratio(self) -> float:
        return self.parallel_mb_s / self.one_mb_s


def measure_connections(
    size_mb: int = 64, per_connection_mb_s: int = 4, rounds: int = 2
) -> Connections:
    """Median MB/s of one connection and of the default number, in alternating rounds,
    from a loopback server that sends each connection at most ``per_connection_mb_s``."""
    import psutil

    from app.hub.downloads import DEFAULT_CONNECTIONS

    shm = Path("/dev/shm")
    where = str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None
    own = psutil.Process()
    start_rss = own.memory_info().rss
    peak = [start_rss]
    with tempfile.TemporaryDirectory(prefix="hearth-bench-dl-", dir=where) as scratch:
        root = Path(scratch)
        payload, sha256 = _payload(root, size_mb)
        server, url = _server(payload, per_connection_mb_s * CHUNK)
        file = RepoFile(NAME, size_mb * CHUNK, sha256)
        addresses = {"hf": lambda item: FileAddress(url, {}, _refused)}
        results: dict[int, list[float]] = {1: [], DEFAULT_CONNECTIONS: []}
        watching = threading.Event()

        def watch_memory() -> None:
            while not watching.wait(0.05):
                peak[0] = max(peak[0], own.memory_info().rss)

        watcher = threading.Thread(target=watch_memory, daemon=True)
        watcher.start()
        try:
            for index in range(rounds):
                for connections in (1, DEFAULT_CONNECTIONS):
                    folder = root / f"hearth-{index}-{connections}"
                    manager = DownloadManager(
                        root / f"state-{index}-{connections}.json",
                        addresses,
                        link=Link(connections),
                    )
                    started = time.perf_counter()
                    result = manager.wait(manager.add("hf", REPO, file, folder).id)
                    elapsed = time.perf_counter() - started
                    manager.close()
                    if result.state != DONE:
                        raise RuntimeError(result.error or "the benchmark download failed")
                    results[connections].append(size_mb / elapsed)
                    shutil.rmtree(folder)
        finally:
            watching.set()
            watcher.join()
            server.terminate()
            server.wait(10)
            if server.stdout is not None:
                server.stdout.close()
    return Connections(
        statistics.median(results[1]),
        statistics.median(results[DEFAULT_CONNECTIONS]),
        DEFAULT_CONNECTIONS,
        (peak[0] - start_rss) / 1e6,
    )


def serve(payload: Path, rate: int = 0) -> None:
    """Serve ``payload`` on a free loopback port; print the port, then serve until killed."""
    handler = type("Handler", (_FileHandler,), {"payload": payload, "rate": rate})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    serve(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 0)
