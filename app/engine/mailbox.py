"""A thread that runs what is posted to it, one thing at a time, in the order posted.

The engine host has two: its own thread, where every request is placed on a worker (so a
caller's ``submit`` only posts and returns, on the window's thread too), and its starter,
where a worker is started (the model's memory estimate may read its header, the keyring
may be slow, a process takes a while to spawn) without holding up requests for models
already running.  This is the actor shape of Ollama's scheduler: nobody waits on a load.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

Action = Callable[[], None]


class Mailbox:
    def __init__(self, name: str) -> None:
        self.name = name
        self._queue: queue.SimpleQueue[Action | None] = queue.SimpleQueue()
        self._closed = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def post(self, action: Action) -> None:
        """Run ``action`` on the mailbox's thread, after what was posted before.  Once the
        mailbox is closed it runs on the caller's thread (the owner has closed, so the
        action only answers its request in words, which is quick)."""
        with self._lock:
            if not self._closed:
                self._queue.put(action)
                return
        _run_one(self.name, action)

    def on_own_thread(self) -> bool:
        return threading.current_thread() is self._thread

    def close(self, timeout: float = 0.0) -> None:
        """Run what was posted, then end; wait up to ``timeout`` seconds for that."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._queue.put(None)
        if timeout > 0 and not self.on_own_thread():
            self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            action = self._queue.get()
            if action is None:
                return
            _run_one(self.name, action)


def _run_one(name: str, action: Action) -> None:
    try:
        action()
    except Exception:  # the thread must outlive one failure; the action logs its cause
        log.exception("the engine host's %s failed", name)
