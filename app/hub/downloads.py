"""Downloads that survive: queued, resumable across restarts, verified, never half-visible.

Each file is fetched into ``<target>.part`` next to where it will live, as several ranges
at once (``ranged.py``), with a record of each piece beside it so that every piece
resumes.  The hash is computed while the bytes arrive (and over the existing part when
resuming), so checking costs no extra pass over a multi-gigabyte file.  Only a file whose
size and SHA-256 match the hub's is renamed into place, so the library (which lists
``*.gguf``) never shows an incomplete or corrupt model.  A mismatch deletes the part and says so.

The queue is saved in ``downloads.json`` after every change; after a crash or a restart,
what was running comes back as *paused* with its part file, ready to resume.  Hearth
records the files it downloaded there too, so deleting a model never touches files that
other apps own.

Thread model: each running download has its own thread; listeners are called from those
threads and must not touch widgets (the UI polls ``snapshot()`` on a timer instead).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
import os
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from app.errors import AccessDenied, HearthError, describe_error
from app.hub import pieces
from app.hub.download_item import (
    CANCELLED,
    DONE,
    FAILED,
    PAUSED,
    QUEUED,
    RUNNING,
    VERIFYING,
    Download,
    DownloadCancelled,
    DownloadPaused,
)
from app.hub.link import Link
from app.hub.ranged import HASH_CHUNK, FileAddress, FileChanged, RangedFetch
from app.hub.repo_files import RepoFile, UnsafePath, safe_relative_path
from app.models.owned import downloads_document, owned_files
from app.settings import BY_KEY
from wire.phrases import Phrase, message_of

log = logging.getLogger(__name__)
# The queue's own names, and those of a download (``download_item``) that its users know.
__all__ = [
    "ACTIVE",
    "CANCELLED",
    "DONE",
    "FAILED",
    "PAUSED",
    "QUEUED",
    "RUNNING",
    "VERIFYING",
    "Download",
    "DownloadCancelled",
    "DownloadManager",
    "DownloadPaused",
    "FileAddress",
    "Locate",
    "PullPlan",
    "downloads_document",
    "owned_files",
]

ACTIVE = (QUEUED, RUNNING, VERIFYING)
DISK_MARGIN = 64 * 1024 * 1024
DEFAULT_CONNECTIONS = int(BY_KEY["downloads.connections"].default)


Locate = Callable[[Download], FileAddress]  # where a hub serves the file, and how to ask


class DownloadManager:
    """The queue: at most ``parallel`` files at once, the rest waiting in order, every
    file's connections drawn from one ``link``."""

    def __init__(
        self,
        state_file: Path,
        addresses: dict[str, Locate],
        parallel: int = 2,
        link: Link | None = None,
    ) -> None:
        self.state_file = state_file
        self.document = downloads_document(state_file)
        self.addresses = addresses
        self.parallel = max(1, parallel)
        self.link = link or Link(DEFAULT_CONNECTIONS)
        self._lock = threading.RLock()
        self._saving = threading.Lock()  # one write at a time (see save)
        self._states = self._written = 0  # the states saved, and the newest written
        self._items: dict[str, Download] = {}
        self._controls: dict[str, str] = {}
        self._threads: dict[str, threading.Thread] = {}
        self.owned: list[str] = []  # files Hearth downloaded (targets), for safe deletion
        self.listeners: list[Callable[[Download], None]] = []
        self._load()

    # -- persistence ---------------------------------------------------------------
    def _load(self) -> None:
        def queue_of(document: dict[str, Any]) -> tuple[list[str], list[Download]]:
            owned = [str(p) for p in document.get("owned", [])]
            items = []
            for raw in document.get("items", []):
                try:
                    items.append(Download(**raw))
                except TypeError:
                    continue  # a record of another version: not resumable, dropped
            return owned, items

        found = self.document.load(queue_of)
        if found is None:
            return
        self.owned, items = found
        for item in items:
            if item.state in (RUNNING, VERIFYING, QUEUED):
                item.state = PAUSED  # Hearth stopped (or crashed) while it ran: resume later
            item.received = _on_disk(item)
            item.speed = 0.0
            self._items[item.id] = item

    def save(self) -> None:
        # One write at a time, and an older state never lands over a newer one (the
        # writer holds no other lock: a save called under ``_lock`` cannot deadlock).
        with self._lock:
            self._states += 1
            state = self._states
            document = {"owned": self.owned, "items": [asdict(i) for i in self._items.values()]}
        with self._saving:
            if state > self._written:
                self.document.save(document)
                self._written = state

    # -- queries -------------------------------------------------------------------
    def snapshot(self) -> list[Download]:
        with self._lock:
            return [Download(**asdict(i)) for i in self._items.values()]

    def get(self, download_id: str) -> Download:
        with self._lock:
            return Download(**asdict(self._items[download_id]))

    def control(self, download_id: str) -> str:
        return self._controls.get(download_id, RUNNING)

    def changed(self, item: Download) -> None:
        for listener in list(self.listeners):
            try:
                listener(item)
            except Exception:
                log.exception("download listener failed")

    # -- commands ------------------------------------------------------------------
    def add(
        self,
        source: str,
        repo_id: str,
        file: RepoFile,
        target_dir: Path,
        revision: str = "main",
        start: bool = True,
    ) -> Download:
        """Queue one file.  The same target twice gives the existing item, never two writers."""
        try:
            relative = safe_relative_path(file.path)
        except UnsafePath as exc:
            raise HearthError(
                Phrase("{0} lists a file Hearth will not write: {1}.", repo_id, exc)
            ) from exc
        target = target_dir / Path(*relative.parts)
        download_id = f"{source}:{repo_id}@{revision}:{file.path}"
        with self._lock:
            existing = self._items.get(download_id)
            if existing is not None and existing.state not in (FAILED, CANCELLED, DONE):
                if start and existing.state == PAUSED:
                    self.resume(download_id)
                return existing
            if existing is not None and existing.state == DONE and Path(existing.target).exists():
                return existing
            item = Download(
                id=download_id,
                source=source,
                repo_id=repo_id,
                path=file.path,
                size=file.size,
                sha256=file.sha256,
                git_sha1=file.git_sha1,
                target=str(target),
                revision=revision,
                state=QUEUED if start else PAUSED,
            )
            if Path(target).exists() and _matches(Path(target), item):
                item.state, item.received = DONE, item.size
            else:
                item.received = _on_disk(item)
            self._items[download_id] = item
        self.save()
        self.changed(item)
        self._schedule()
        return item

    def pause(self, download_id: str) -> None:
        with self._lock:
            item = self._items[download_id]
            item.resume_on_start = False
            if item.state in (QUEUED, RUNNING):
                self._controls[download_id] = PAUSED
                if item.state == QUEUED:
                    item.state = PAUSED
        self.save()
        self.changed(self._items[download_id])

    def resume(self, download_id: str) -> None:
        with self._lock:
            item = self._items[download_id]
            if item.state in (PAUSED, FAILED):
                item.state, item.error, item.resume_on_start = QUEUED, "", False
                item.error_kind = ""
                self._controls.pop(download_id, None)
        self.save()
        self._schedule()

    def cancel(self, download_id: str) -> None:
        """Stop and forget the download; its part file is removed."""
        with self._lock:
            item = self._items[download_id]
            running = item.state == RUNNING
            self._controls[download_id] = CANCELLED
            if not running:
                item.state = CANCELLED
                pieces.forget(item.part)
        self.save()
        self.changed(item)

    def remove_finished(self, download_id: str) -> None:
        with self._lock:
            item = self._items.get(download_id)
            if item is not None and item.state in (DONE, FAILED, CANCELLED):
                del self._items[download_id]
        self.save()

    def wait(self, download_id: str, timeout: float | None = None) -> Download:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                thread = self._threads.get(download_id)
                item = self._items[download_id]
                if item.state not in ACTIVE:
                    return self.get(download_id)
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0)
            if thread is not None:
                thread.join(remaining if remaining is None else min(remaining, 0.5))
            else:
                time.sleep(0.05)
            if deadline is not None and time.monotonic() >= deadline:
                return self.get(download_id)

    def resume_interrupted(self) -> None:
        """Start again what was still downloading when Hearth last quit."""
        with self._lock:
            waiting = [
                i.id for i in self._items.values() if i.resume_on_start and i.state == PAUSED
            ]
        for download_id in waiting:
            self.resume(download_id)

    def close(self) -> None:
        """Pause what is running (keeping part files) and wait for the threads.

        What was running or queued resumes by itself at the next start
        (``resume_interrupted``); what the user paused stays paused.
        """
        with self._lock:
            for download_id, item in self._items.items():
                if item.state in (RUNNING, QUEUED):
                    item.resume_on_start = True
                if item.state == RUNNING:
                    self._controls[download_id] = PAUSED
                elif item.state == QUEUED:
                    item.state = PAUSED
            threads = list(self._threads.values())
        for thread in threads:
            thread.join(10)
        self.save()

    # -- running -------------------------------------------------------------------
    def _schedule(self) -> None:
        with self._lock:
            running = sum(1 for i in self._items.values() if i.state in (RUNNING, VERIFYING))
            for item in self._items.values():
                if running >= self.parallel:
                    break
                if item.state == QUEUED:
                    item.state = RUNNING
                    item.started_at = time.time()
                    self._controls.pop(item.id, None)
                    thread = threading.Thread(
                        target=self._run, args=(item,), name=f"download-{item.path}", daemon=True
                    )
                    self._threads[item.id] = thread
                    running += 1
                    thread.start()

    def _run(self, item: Download) -> None:
        # Everything about the outcome is recorded first and the state set last, under the
        # lock, so whoever waits never sees "failed" without its reason or "done" before
        # the file is recorded as Hearth's.
        final_state = DONE
        try:
            self._transfer(item)
        except DownloadPaused:
            final_state = PAUSED
        except DownloadCancelled:
            final_state = CANCELLED
            pieces.forget(item.part)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a sentence
            final_state = FAILED
            item.error = describe_error(exc, f"downloading {item.path}")
            item.error_kind = "access" if isinstance(exc, AccessDenied) else ""
            if _is_disk_full(exc):  # what arrived is kept: Resume once there is room
                item.error_kind = "disk"
        finally:
            item.speed = 0.0
            item.finished_at = time.time()
            with self._lock:
                if final_state == DONE:
                    item.received = item.size
                    if item.target not in self.owned:
                        self.owned.append(item.target)
                item.state = final_state
                self._threads.pop(item.id, None)
                self._controls.pop(item.id, None)
            with contextlib.suppress(OSError):
                self.save()
            self.changed(item)
            self._schedule()

    def _transfer(self, item: Download) -> None:
        target = Path(item.target)
        target.parent.mkdir(parents=True, exist_ok=True)
        needed = item.size - _on_disk(item)
        free = shutil.disk_usage(target.parent).free
        if needed + DISK_MARGIN > free:
            raise HearthError(
                Phrase(
                    "Not enough disk space for {0}: it needs {1} more (the rest of the file "
                    "and {2} that Hearth keeps free so the disk never fills up), and {3} "
                    "are free in {4}.",
                    item.path,
                    _amount(needed + DISK_MARGIN),
                    _amount(DISK_MARGIN),
                    _amount(free),
                    target.parent,
                )
            )
        lock = _TargetLock(target)
        if not lock.acquire():
            raise HearthError(
                Phrase(
                    "{0} is already being downloaded by another Hearth; wait for it to finish.",
                    item.path,
                )
            )
        try:
            digests = self._fetch(item)
            item.state = VERIFYING
            self.changed(item)
            self._verify(item, digests)
            try:
                os.replace(item.part, target)
            except PermissionError as exc:  # Windows: the old file is open (a loaded model)
                raise HearthError(
                    Phrase(
                        "{0} was downloaded and checked, but the file it replaces is open in "
                        "a program (a model loaded in Hearth?). Unload that model and try "
                        "again: the download goes on from where it is.",
                        item.path,
                    )
                ) from exc
        finally:
            lock.release()

    def _fetch(self, item: Download) -> tuple[str, str]:
        """The file's bytes in its part file, and their digests; a file whose copy on
        the hub changed under way starts again once, cleanly."""
        address = self.addresses[item.source](item)
        try:
            return RangedFetch(item, address, self.link, self).run()
        except FileChanged as exc:
            log.warning("%s: %s; starting again", item.path, message_of(exc))
        pieces.forget(item.part)
        item.received = 0
        try:
            return RangedFetch(item, address, self.link, self).run()
        except FileChanged as exc:
            pieces.forget(item.part)
            raise HearthError(
                Phrase(
                    "{0} Hearth started it again and it changed again, so it deleted what "
                    "arrived. Try later; if it goes on, the mirror may be serving a file "
                    "that is being replaced.",
                    message_of(exc),
                )
            ) from exc

    def _verify(self, item: Download, digests: tuple[str, str]) -> None:
        actual_size = item.part.stat().st_size
        sha256, git_sha1 = digests
        problem = ""
        if actual_size != item.size:
            problem = f"it has {actual_size:,} bytes instead of {item.size:,}"
        elif item.sha256 and sha256 != item.sha256.lower():
            problem = "its SHA-256 does not match the hub's"
        elif not item.sha256 and item.git_sha1 and git_sha1 != item.git_sha1.lower():
            problem = "its checksum does not match the hub's"
        if problem:
            pieces.forget(item.part)
            raise HearthError(
                Phrase(
                    "The download of {0} was damaged ({1}), so Hearth deleted it. Try again; "
                    "if it happens again the mirror may be serving a bad copy.",
                    item.path,
                    problem,
                )
            )


class _TargetLock:
    """One writer per file across Hearth processes: an exclusive lock file beside the part."""

    def __init__(self, target: Path) -> None:
        self.path = Path(str(target) + ".lock")
        self._lock: Any = None

    def acquire(self) -> bool:
        from filelock import FileLock, Timeout

        lock = FileLock(str(self.path), timeout=0)
        try:
            lock.acquire()
        except Timeout:
            return False
        self._lock = lock
        return True

    def release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            # The lock file may already be gone (filelock removes it), or just opened by
            # another Hearth waiting for it (Windows then refuses): either way the download
            # it guarded is done, and a leftover lock file is harmless.
            with contextlib.suppress(OSError):
                self.path.unlink()
            self._lock = None


def _matches(path: Path, item: Download) -> bool:
    """A file already in place with the right size and hash (counts as downloaded)."""
    try:
        if path.stat().st_size != item.size:
            return False
    except OSError:
        return False
    if not item.sha256:
        return True
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(HASH_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest() == item.sha256.lower()


def _on_disk(item: Download) -> int:
    """How much of the file its part holds (its pieces' record says, when there is one)."""
    found = pieces.load(item.part, item.size, pieces.piece_size_for(item.size, 1))
    return found.received if found is not None else 0


def _amount(size: int) -> str:
    """A size in the unit a person reads best (MB below a gigabyte)."""
    return f"{size / 1e9:.2f} GB" if size >= 1e9 else f"{max(size, 0) / 1e6:.0f} MB"


def _is_disk_full(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1))


@dataclass
class PullPlan:
    """What ``hearth pull`` decided to fetch."""

    repo_id: str
    label: str
    files: list[RepoFile] = field(default_factory=list)
    warning: str = ""
