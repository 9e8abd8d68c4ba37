"""Run slow, UI-free work (reading model headers, file checks) off the Qt main thread.

The function runs on a thread-pool thread and must not touch widgets; its result or
exception comes back to the main thread through a queued signal.  If the widget that
asked has been destroyed meanwhile (a window closed while a probe was still running), the
answer is dropped quietly.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

MIN_THREADS = 8
_pending: set[_Relay] = set()  # relays kept alive until their task has answered


class _Relay(QObject):
    succeeded = Signal(object)
    failed = Signal(object)

    def __init__(self) -> None:
        super().__init__()  # no parent: it must outlive a closed window
        self.orphaned = False


class _Task(QRunnable):
    def __init__(self, work: Callable[[], Any], relay: _Relay) -> None:
        super().__init__()
        self.work, self.relay = work, relay

    def run(self) -> None:
        try:
            result = self.work()
        except Exception as exc:  # noqa: BLE001 - handed to the caller's failure callback
            self._answer(self.relay.failed, exc)
        else:
            self._answer(self.relay.succeeded, result)

    @staticmethod
    def _answer(signal: Any, value: Any) -> None:
        # At shutdown the relay may already be gone: then nobody waits for the answer.
        with contextlib.suppress(RuntimeError):
            signal.emit(value)


def run_in_background(
    parent: QObject,
    work: Callable[[], Any],
    on_success: Callable[[Any], None],
    on_failure: Callable[[BaseException], None],
) -> None:
    relay = _Relay()
    _pending.add(relay)

    def orphan() -> None:
        relay.orphaned = True

    parent.destroyed.connect(orphan)

    def finish(callback: Callable[[Any], None], value: Any) -> None:
        _pending.discard(relay)
        relay.deleteLater()
        if not relay.orphaned:
            callback(value)

    relay.succeeded.connect(lambda result: finish(on_success, result))
    relay.failed.connect(lambda exc: finish(on_failure, exc))
    pool = QThreadPool.globalInstance()
    # The tasks mostly wait (a subprocess importing torch, a hub's answer, the disk) rather
    # than compute: with only one thread per core, two slow probes held back every other
    # answer (the update check, a model's header) for minutes on a busy 2-core machine.
    pool.setMaxThreadCount(max(pool.maxThreadCount(), MIN_THREADS))
    pool.start(_Task(work, relay))


def waiting() -> int:
    """How many tasks have not answered yet (a test waits for a late answer to arrive)."""
    return len(_pending)
