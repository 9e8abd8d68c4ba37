"""Indexing collections in the background, one at a time, and keeping them current.

The indexer (``app.docs``) runs on a thread of its own (its parsers in a process of their
own), so the window never waits for it; progress comes back as a Qt signal.  Pause stops
between two files and loses nothing: the next update goes on from there, since files
already indexed are not read again.  Every ``WATCH_S`` seconds each collection that is not
paused is brought up to date (files changed, added, removed or renamed).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from dataclasses import replace

from PySide6.QtCore import QObject, QTimer, Signal

from app.docs.indexer import UpdateReport
from app.docs.library import Documents

log = logging.getLogger(__name__)

WATCH_S = 60


class Indexing(QObject):
    progress = Signal(object)  # Progress (a copy), from the indexing thread
    finished = Signal(str, object)  # collection, UpdateReport
    failed = Signal(str, object)  # collection, the exception
    idle = Signal()

    def __init__(self, documents: Documents, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.documents = documents
        self.queue: deque[str] = deque()
        self.retry: set[str] = set()  # to update with their failed files read again
        self.running: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.watch = QTimer(self)
        self.watch.setInterval(WATCH_S * 1000)
        self.watch.timeout.connect(self.update_all)
        self.finished.connect(self._next)
        self.failed.connect(self._next)

    def start_watching(self) -> None:
        self.watch.start()
        self.update_all()

    def update_all(self) -> None:
        self.documents.collections.reload()  # collections made by a command meanwhile
        for name in self.documents.collections.names():
            if not self.documents.collections.get(name).paused:
                self.update(name)

    def update(self, name: str, retry_failed: bool = False) -> None:
        """Bring ``name`` up to date soon (after the one being indexed; again after it, if
        it is the one being indexed).  ``retry_failed``: read again the files whose
        reader failed (Update now), not only the changed ones."""
        if retry_failed:
            self.retry.add(name)
        if name not in self.queue and (name != self.running or retry_failed):
            self.queue.append(name)
        if self.running is None:
            self._next()

    def pause(self, name: str) -> None:
        self.documents.collections.set_paused(name, True)
        if name in self.queue:
            self.queue.remove(name)
        if self.running == name:
            self._stop.set()

    def resume(self, name: str) -> None:
        self.documents.collections.set_paused(name, False)
        self.update(name)

    def forget(self, name: str) -> None:
        """Stop indexing ``name`` (it is about to be removed: ``Documents.remove`` waits
        for the update of it to end, off the main thread)."""
        if name in self.queue:
            self.queue.remove(name)
        if self.running == name:
            self._stop.set()

    def _next(self, *_: object) -> None:
        self.running = None
        while self.queue:
            name = self.queue.popleft()
            if (
                name in self.documents.collections
                and not self.documents.collections.get(name).paused
            ):
                self._start(name)
                return
        self.idle.emit()

    def _start(self, name: str) -> None:
        self.running = name
        self._stop.clear()
        retry = name in self.retry
        self.retry.discard(name)

        def work() -> None:
            try:
                report: UpdateReport = self.documents.update(
                    name, lambda p: self.progress.emit(replace(p)), self._stop.is_set, retry
                )
            except Exception as exc:  # said on the screen, logged with its stack
                log.error("indexing %s failed", name, exc_info=exc)
                self.failed.emit(name, exc)
                return
            finally:
                self.documents.index.close_thread()
            self.finished.emit(name, report)

        self._thread = threading.Thread(target=work, name=f"index-{name}", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.watch.stop()
        self.queue.clear()
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
