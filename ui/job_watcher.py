"""Turns an engine job's events (from the client's reader thread) into Qt signals.

Why coalesce: a fast model produces hundreds of deltas a second.  Emitting a signal per
token floods the event queue and makes the transcript relayout per token.  Instead the
reader thread appends delta text to a buffer under a lock, and a timer on the main thread
drains it every ``interval_ms`` into one ``text`` signal (the very first delta is
drained at once, so the coalescing never delays the first token).  Other events are few and go
through queued signals; before any of them is handled the buffer is drained, so order is
kept (all text before ``finished``).  The engine thread never touches a widget.
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from app.engine_client import Job
from backends import protocol

DEFAULT_INTERVAL_MS = 50


class JobWatcher(QObject):
    text = Signal(str)
    reasoning = Signal(str)  # "thinking" text of reasoning models, shown apart from the answer
    progress = Signal(float, str)
    loaded = Signal(dict)
    notice = Signal(str)
    stats = Signal(dict)
    finished = Signal(dict)  # the terminal event: done, loaded, result or error

    _event = Signal(dict)  # reader thread -> main thread
    _wake = Signal()  # the first delta: shown at once, not at the next tick

    def __init__(
        self, parent: QObject | None = None, interval_ms: int = DEFAULT_INTERVAL_MS
    ) -> None:
        super().__init__(parent)
        self._lock = threading.Lock()
        self._pending: list[tuple[bool, str]] = []  # (is reasoning, text), in arrival order
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.drain)
        self._event.connect(self._handle)
        self._wake.connect(self.drain)
        self._first_seen = False
        self.job: Job | None = None
        self.done = False

    def callback(self, event: dict[str, Any]) -> None:
        """Called on the engine client's reader thread."""
        if event["type"] == protocol.DELTA:
            reasoning = str(event.get("reasoning") or "")
            with self._lock:
                if reasoning:
                    self._pending.append((True, reasoning))
                if event.get("text"):
                    self._pending.append((False, str(event["text"])))
                first, self._first_seen = not self._first_seen, True
            if first:
                self._wake.emit()
            return
        self._event.emit(event)

    def watch(self, job: Job) -> None:
        self.job = job
        self._timer.start()

    @Slot()
    def drain(self) -> None:
        """Emit what arrived, in order: runs of answer text joined into one signal."""
        with self._lock:
            if not self._pending:
                return
            pending, self._pending = self._pending, []
        run_kind, run = pending[0][0], [pending[0][1]]
        for kind, piece in pending[1:]:
            if kind == run_kind:
                run.append(piece)
                continue
            (self.reasoning if run_kind else self.text).emit("".join(run))
            run_kind, run = kind, [piece]
        (self.reasoning if run_kind else self.text).emit("".join(run))

    @Slot(dict)
    def _handle(self, event: dict[str, Any]) -> None:
        self.drain()
        kind = event["type"]
        job_kind = self.job.kind if self.job is not None else protocol.CHAT
        if kind == protocol.PROGRESS:
            self.progress.emit(float(event.get("fraction", 0.0)), str(event.get("stage", "")))
        elif kind == protocol.LOADED:
            self.loaded.emit(event)
        elif kind == protocol.NOTICE:
            self.notice.emit(str(event.get("message", "")))
        elif kind == protocol.STATS:
            self.stats.emit(event)
        terminal = kind == protocol.ERROR or (
            kind == protocol.DONE
            if job_kind == protocol.CHAT
            else kind == protocol.LOADED
            if job_kind == protocol.LOAD
            else kind == protocol.RESULT
        )
        if terminal and not self.done:
            self.done = True
            self._timer.stop()
            self.finished.emit(event)
