"""A download and its part file: ``<target>.part`` next to where the file will live,
hashed while the bytes arrive (SHA-256, and git's blob SHA-1 when the hub gives that) on a
thread of its own, and written only while its download is neither paused nor cancelled."""

from __future__ import annotations

import hashlib
import os
import queue
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

QUEUED, RUNNING, PAUSED, VERIFYING, DONE, FAILED, CANCELLED = (
    "queued",
    "downloading",
    "paused",
    "verifying",
    "done",
    "failed",
    "cancelled",
)
HASH_CHUNK = 4 * 1024 * 1024


class DownloadPaused(Exception):
    """Raised inside the transfer to stop it, keeping the part file."""


class DownloadCancelled(Exception):
    """Raised inside the transfer to stop it; the part file is removed."""


@dataclass
class Download:
    id: str
    source: str  # "hf" or "modelscope"
    repo_id: str
    path: str  # the file's path inside the repository
    size: int
    sha256: str
    git_sha1: str
    target: str  # where the verified file will live
    revision: str = "main"
    state: str = QUEUED
    received: int = 0
    error: str = ""
    speed: float = 0.0  # bytes/s, smoothed
    started_at: float = 0.0
    finished_at: float = 0.0
    resume_on_start: bool = False  # it was running when Hearth quit
    error_kind: str = ""  # "access" (needs a token), "disk", "damaged" or "" for others

    @property
    def part(self) -> Path:
        return Path(self.target + ".part")

    @property
    def eta_s(self) -> float | None:
        if self.state != RUNNING or self.speed <= 0:
            return None
        return max(self.size - self.received, 0) / self.speed

    @property
    def fraction(self) -> float:
        return min(self.received / self.size, 1.0) if self.size else 0.0


class Hasher:
    """SHA-256 (and git's blob SHA-1 when needed) computed on a thread of its own.

    hashlib releases the GIL, so hashing runs beside the network transfer instead of
    after each chunk; the bounded queue keeps memory flat on any file size.
    """

    BATCH = 4 * 1024 * 1024  # hand over this much at a time: one thread wake-up per batch

    def __init__(self, size: int, git: bool) -> None:
        self.sha256 = hashlib.sha256()
        self.git = hashlib.sha1(b"blob %d\0" % size) if git else None
        self._queue: queue.Queue[list[bytes] | None] = queue.Queue(maxsize=16)
        self._batch: list[bytes] = []
        self._batch_bytes = 0
        self._thread = threading.Thread(target=self._run, name="hash", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (batch := self._queue.get()) is not None:
            for chunk in batch:
                self.sha256.update(chunk)
                if self.git is not None:
                    self.git.update(chunk)

    def feed(self, chunk: bytes) -> None:
        self._batch.append(chunk)
        self._batch_bytes += len(chunk)
        if self._batch_bytes >= self.BATCH:
            self._queue.put(self._batch)
            self._batch, self._batch_bytes = [], 0

    def finish(self) -> None:
        if self._thread.is_alive():
            if self._batch:
                self._queue.put(self._batch)
                self._batch, self._batch_bytes = [], 0
            self._queue.put(None)
            self._thread.join()


class Controller(Protocol):
    """What a part file asks of the download queue (``DownloadManager``)."""

    def control(self, download_id: str) -> str: ...

    def changed(self, item: Download) -> None: ...


class PartFile:
    """The file object the hub client writes into: hashes, counts, and obeys pause/cancel."""

    def __init__(self, item: Download, manager: Controller) -> None:
        self.item = item
        self.manager = manager
        self.file = open(item.part, "a+b")  # noqa: SIM115 - closed by the manager
        self.file.seek(0, os.SEEK_END)
        self._rehash(self.file.tell())
        self._window_start = time.monotonic()
        self._window_bytes = 0

    def _rehash(self, length: int) -> None:
        old = getattr(self, "hasher", None)
        if old is not None:
            old.finish()
        self.hasher = Hasher(self.item.size, bool(self.item.git_sha1))
        self.file.seek(0)
        remaining = length
        while remaining > 0:
            chunk = self.file.read(min(HASH_CHUNK, remaining))
            if not chunk:
                break
            self.hasher.feed(chunk)
            remaining -= len(chunk)
        self.file.seek(length)
        self.item.received = length

    def digests(self) -> tuple[str, str]:
        """(sha256, git sha1) of everything written; waits for the hashing thread."""
        self.hasher.finish()
        git = self.hasher.git.hexdigest() if self.hasher.git is not None else ""
        return self.hasher.sha256.hexdigest(), git

    # The file protocol the hub client uses.
    def write(self, chunk: bytes) -> int:
        control = self.manager.control(self.item.id)
        if control == CANCELLED:
            raise DownloadCancelled
        if control == PAUSED:
            raise DownloadPaused
        written = self.file.write(chunk)
        self.hasher.feed(chunk)
        self.item.received += len(chunk)
        self._window_bytes += len(chunk)
        now = time.monotonic()
        if now - self._window_start >= 0.5:
            rate = self._window_bytes / (now - self._window_start)
            self.item.speed = rate if self.item.speed == 0 else 0.6 * rate + 0.4 * self.item.speed
            self._window_start, self._window_bytes = now, 0
            self.manager.changed(self.item)
        return written

    def adopt(self, finished: Path) -> None:
        """Take a file another client downloaded as the whole part, and hash it."""
        self.file.close()
        os.replace(finished, self.item.part)
        self.file = open(self.item.part, "a+b")  # noqa: SIM115
        self._rehash(self.item.part.stat().st_size)

    def tell(self) -> int:
        return self.file.tell()

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        return self.file.seek(offset, whence)

    def truncate(self, size: int | None = None) -> int:
        length = self.file.truncate(size)
        self._rehash(length)  # the server ignored Range: start the hashes again
        return length

    def flush(self) -> None:
        self.file.flush()

    def close(self) -> None:
        self.hasher.finish()
        self.file.close()
