"""Download throughput: Hearth's download manager against plain HTTP GETs, side by side.

A loopback server serves one file under the Hugging Face URL layout (``/owner/name/resolve/
main/file``, with ``sendfile`` so the server is not the bottleneck).  Each round fetches it,
alternately, three ways:

* a plain GET with the hub client's own HTTP session, streamed to disk (the transport
  Hearth must use: the budgeted ratio is against this one);
* a plain GET with the standard library (``urllib``), which is faster on loopback than
  the hub client's pure-Python HTTP stack; reported so the cost of that stack is visible;
* Hearth: the hub client's ``http_get`` into a part file, hashing on a second thread,
  size and SHA-256 check, rename into place.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from app.hub import huggingface
from app.hub.downloads import DONE, DownloadManager
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
        start = 0
        if self.headers.get("Range", "").startswith("bytes="):
            start = int(self.headers["Range"][6:].split("-")[0])
        self.send_response(206 if start else 200)
        self.send_header("Content-Length", str(size - start))
        self.send_header("Accept-Ranges", "bytes")
        if start:
            self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
        self.end_headers()
        with self.payload.open("rb") as handle:
            if not self.rate:
                self.connection.sendfile(handle, offset=start)
                return
            began, sent = time.perf_counter(), 0
            while start + sent < size:
                sent += self.connection.sendfile(handle, offset=start + sent, count=CHUNK)
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
        payload = root / "payload.bin"
        digest = hashlib.sha256()
        with payload.open("wb") as out:
            for _ in range(size_mb):
                block = os.urandom(CHUNK)
                digest.update(block)
                out.write(block)
        # The server runs in a process of its own so that it never competes for this
        # process's GIL with the side being measured.
        server = subprocess.Popen(
            [sys.executable, "-m", "hearth.bench.download", str(payload), str(rate_mb_s * CHUNK)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert server.stdout is not None
        endpoint = f"http://127.0.0.1:{int(server.stdout.readline())}"
        url = f"{endpoint}/{REPO}/resolve/main/{NAME}"
        file = RepoFile(NAME, size_mb * CHUNK, digest.hexdigest())

        def fetch(item: Any, sink: Any, resume_from: int) -> None:
            huggingface.fetch(
                item.repo_id,
                item.path,
                sink,
                resume_from=resume_from,
                expected_size=item.size,
                endpoint_url=endpoint,
            )

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

                manager = DownloadManager(root / f"state-{index}.json", {"hf": fetch})
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
            server.stdout.close()
    return statistics.median(session), statistics.median(plain), statistics.median(hearth)


def serve(payload: Path, rate: int = 0) -> None:
    """Serve ``payload`` on a free loopback port; print the port, then serve until killed."""
    handler = type("Handler", (_FileHandler,), {"payload": payload, "rate": rate})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    serve(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 0)
