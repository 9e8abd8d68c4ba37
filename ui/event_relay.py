"""Brings an engine job's events from the client's reader thread to the Qt main thread.

Why coalesce: a fast model produces hundreds of deltas a second.  Handing each to the
window floods the event queue and makes the transcript relayout per token.  Instead the
reader thread appends events to a queue under a lock, and a timer on the main thread
drains it every ``interval_ms``: consecutive answer deltas become one delta, consecutive
thinking deltas another (the very first delta is drained at once, so coalescing never
delays the first token).  Other events wake the main thread at once and keep their place
in the order (all text before the final event).  The reader thread never touches a widget;
the handler (a ``ChatSession``, the model loader) runs on the main thread.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from wire import protocol

DEFAULT_INTERVAL_MS = 50
# The most text handed to the window at once: when an engine outruns the window, the rest
# waits for the next turn of the event loop, so painting and input never wait long.
MAX_DRAIN_CHARS = 4096
CHAT_END = frozenset({protocol.DONE, protocol.ERROR})
LOAD_END = frozenset({protocol.LOADED, protocol.ERROR})

Handler = Callable[[dict[str, Any]], None]


class _Waker(QObject):
    """The reader thread's signal, on an object without a parent: the relay is a child of
    a widget and may be deleted with its window while an engine event is on its way, and
    a signal emitted on a deleted object crashes.  This one lives as long as the relay's
    callback can be called; Qt drops the connection when the relay goes."""

    wake = Signal()


class EventRelay(QObject):
    def __init__(
        self,
        parent: QObject,
        handler: Handler,
        terminal: Iterable[str] = CHAT_END,
        interval_ms: int = DEFAULT_INTERVAL_MS,
    ) -> None:
        super().__init__(parent)
        self.handler = handler
        self.terminal = frozenset(terminal)
        self._lock = threading.Lock()
        self._pending: deque[dict[str, Any]] = deque()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.drain)
        self._waker = _Waker()  # reader thread -> main thread: something arrived while idle
        self._waker.wake.connect(self.drain)
        self._first_seen = False
        self.done = False
        self._timer.start()

    def callback(self, event: dict[str, Any]) -> None:
        """Called on the engine client's reader thread."""
        with self._lock:
            self._pending.append(event)
            if event["type"] == protocol.DELTA:
                # The first text is shown at once; later text waits for the timer.
                wake, self._first_seen = not self._first_seen, True
            else:
                wake = True  # events are few, and the final one must not wait
        if wake:
            self._waker.wake.emit()

    @Slot()
    def drain(self) -> None:
        """Hand over what arrived, in order, runs of text merged into one delta.

        At most ``MAX_DRAIN_CHARS`` of text per call; the rest follows on the next turn of
        the event loop, so a fast engine cannot make the window stall."""
        if self.done:
            return
        batch: list[dict[str, Any]] = []
        size = 0
        with self._lock:
            while self._pending and size < MAX_DRAIN_CHARS:
                event = self._pending.popleft()
                batch.append(event)
                if event["type"] == protocol.DELTA:
                    size += len(event.get(protocol.DELTA_TEXT) or "")
                    size += len(event.get(protocol.DELTA_REASONING) or "")
            more = bool(self._pending)
        if more:
            QTimer.singleShot(0, self, self.drain)
        for event in _merged(batch):
            if self.done:
                return
            if event["type"] in self.terminal:
                self.done = True
                self._timer.stop()
                self.deleteLater()
            self.handler(event)


def _merged(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive deltas of one kind (answer, or thinking) joined into one."""
    out: list[dict[str, Any]] = []
    run_kind, run = "", []  # type: str, list[str]
    for event in events:
        kind = _delta_kind(event)
        if run and kind != run_kind:
            out.append(_delta(run_kind, "".join(run)))
            run = []
        if kind:
            run_kind = kind
            run.append(str(event[kind]))
        else:
            out.append(event)
    if run:
        out.append(_delta(run_kind, "".join(run)))
    return out


def _delta(kind: str, text: str) -> dict[str, Any]:
    return {"type": protocol.DELTA, protocol.DELTA_TEXT: "", kind: text}


def _delta_kind(event: dict[str, Any]) -> str:
    """ "text" or "reasoning" for a delta that carries only that; "" for anything else."""
    if event["type"] != protocol.DELTA or event.get(protocol.MOVED_TO_REASONING):
        return ""
    text, reasoning = event.get(protocol.DELTA_TEXT), event.get(protocol.DELTA_REASONING)
    if text and not reasoning:
        return protocol.DELTA_TEXT
    if reasoning and not text:
        return protocol.DELTA_REASONING
    return ""
