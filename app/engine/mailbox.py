"""A thread that runs what is posted to it, one thing at a time, in the order posted.

The engine host has two: its own thread, which alone reads and writes the host's tables
(models, leases, workers, starts) and places every request on a worker (so a caller's
``submit`` only posts and returns, on the window's thread too), and its starter, where a
worker is started (the model's memory estimate may read its header, the keyring may be
slow, a process takes a while to spawn) without holding up requests for models already
running.  This is the actor shape of Ollama's scheduler: nobody waits on a load.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

log = logging.getLogger(__name__)

Action = Callable[[], None]
T = TypeVar("T")


class Mailbox:
    def __init__(self, name: str, after: Action | None = None) -> None:
        """``after`` runs after each action (the host publishes its tables' snapshot)."""
        self.name, self._after = name, after
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
        self._run_one(action)

    def ask(self, question: Callable[[], T], timeout: float | None = None) -> T:
        """Run ``question`` on the mailbox's thread and wait for its answer (or raise what
        it raised), published (``after``) before it is given.  Only for those who may wait
        on the owner's queue: the starter, the sweeper, Unload, a command ending; never a
        request.  TimeoutError after ``timeout`` seconds (the thread is held up: a write to
        a frozen worker's full pipe); the question is still asked later."""
        if self.on_own_thread():
            return question()
        answer: Future[T] = Future()

        def run() -> None:
            try:
                result = question()
                if self._after is not None:
                    self._after()
            except Exception as exc:  # noqa: BLE001 - the asker hears of it, and raises it
                answer.set_exception(exc)
            else:
                answer.set_result(result)

        self.post(run)
        return answer.result(timeout)

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
            self._run_one(action)

    def _run_one(self, action: Action) -> None:
        for step in (action, self._after):
            if step is None:
                continue
            try:
                step()
            except Exception:  # the thread must outlive one failure; the action logs why
                log.exception("the engine host's %s failed", self.name)
