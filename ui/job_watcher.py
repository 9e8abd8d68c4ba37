"""Turns an engine job's events (from the client's reader thread) into Qt signals.

Why coalesce: a fast model produces hundreds of deltas a second.  Emitting a signal per
token floods the event queue and makes the transcript relayout per token.  Instead the
reader thread appends delta text to a queue under a lock, and a timer on the main thread
drains it every ``interval_ms`` into one ``text`` signal (the very first delta is
drained at once, so the coalescing never delays the first token).  Other events go into
the same queue and wake the main thread at once, so order is kept (all text before
``finished``).  The engine thread never touches a widget.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from app.engine_client import Job
from wire import protocol
from wire.phrases import from_wire

DEFAULT_INTERVAL_MS = 50
# The most text handed to the window at once: when an engine outruns the window, the rest
# waits for the next turn of the event loop, so painting and input never wait long.
MAX_DRAIN_CHARS = 4096


class JobWatcher(QObject):
    text = Signal(str)
    reasoning = Signal(str)  # "thinking" text of reasoning models, shown apart from the answer
    progress = Signal(float, str)
    loaded = Signal(dict)
    notice = Signal(object)  # a sentence for the user (a Phrase where the engine sent one)
    stats = Signal(dict)
    finished = Signal(dict)  # the terminal event: done, loaded, result or error

    _wake = Signal()  # reader thread -> main thread: something arrived while idle

    def __init__(
        self, parent: QObject | None = None, interval_ms: int = DEFAULT_INTERVAL_MS
    ) -> None:
        super().__init__(parent)
        self._lock = threading.Lock()
        # Everything from the engine, in arrival order: (TEXT | REASONING, str) or
        # (EVENT, dict).  One queue keeps text, thinking and the final event in order.
        self._pending: deque[tuple[int, Any]] = deque()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.drain)
        self._wake.connect(self.drain)
        self._first_seen = False
        self.job: Job | None = None
        self.done = False

    def callback(self, event: dict[str, Any]) -> None:
        """Called on the engine client's reader thread."""
        with self._lock:
            if event["type"] == protocol.DELTA:
                if event.get("reasoning"):
                    self._pending.append((_REASONING, str(event["reasoning"])))
                if event.get("text"):
                    self._pending.append((_TEXT, str(event["text"])))
                # The first text is shown at once; later text waits for the timer.
                wake, self._first_seen = not self._first_seen, True
            else:
                self._pending.append((_EVENT, event))
                wake = True  # events are few, and the final one must not wait
        if wake:
            self._wake.emit()

    def watch(self, job: Job) -> None:
        self.job = job
        self._timer.start()

    @Slot()
    def drain(self) -> None:
        """Hand over what arrived, in order: runs of text joined into one signal.

        At most ``MAX_DRAIN_CHARS`` of text per call; the rest follows on the next turn of
        the event loop, so a fast engine cannot make the window stall."""
        batch: list[tuple[int, Any]] = []
        size = 0
        with self._lock:
            while self._pending and size < MAX_DRAIN_CHARS:
                kind, item = self._pending.popleft()
                batch.append((kind, item))
                if kind != _EVENT:
                    size += len(item)
            more = bool(self._pending)
        if more:
            QTimer.singleShot(0, self, self.drain)
        run_kind, run = _EVENT, []  # type: tuple[int, list[str]]
        for kind, item in batch:
            if kind != run_kind and run:
                self._emit_text(run_kind, "".join(run))
                run = []
            if kind == _EVENT:
                self._handle(item)
                run_kind = _EVENT
            else:
                run_kind = kind
                run.append(item)
        if run:
            self._emit_text(run_kind, "".join(run))

    def _emit_text(self, kind: int, text: str) -> None:
        if not self.done:
            (self.reasoning if kind == _REASONING else self.text).emit(text)

    def _handle(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        job_kind = self.job.kind if self.job is not None else protocol.CHAT
        if kind == protocol.PROGRESS:
            self.progress.emit(float(event.get("fraction", 0.0)), str(event.get("stage", "")))
        elif kind == protocol.LOADED:
            self.loaded.emit(event)
        elif kind == protocol.NOTICE:
            self.notice.emit(from_wire(event))
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


_TEXT, _REASONING, _EVENT = 0, 1, 2
