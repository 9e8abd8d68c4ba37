"""Run slow, UI-free work (reading model headers, file checks) off the Qt main thread.

The function runs on a thread-pool thread and must not touch widgets; its result or
exception comes back to the main thread through a queued signal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal


class _Relay(QObject):
    succeeded = Signal(object)
    failed = Signal(object)


class _Task(QRunnable):
    def __init__(self, work: Callable[[], Any], relay: _Relay) -> None:
        super().__init__()
        self.work, self.relay = work, relay

    def run(self) -> None:
        try:
            result = self.work()
        except Exception as exc:  # noqa: BLE001 - handed to the caller's failure callback
            self.relay.failed.emit(exc)
        else:
            self.relay.succeeded.emit(result)


def run_in_background(
    parent: QObject,
    work: Callable[[], Any],
    on_success: Callable[[Any], None],
    on_failure: Callable[[BaseException], None],
) -> None:
    relay = _Relay(parent)  # lives in the main thread; parent keeps it alive

    def finish_ok(result: Any) -> None:
        relay.deleteLater()
        on_success(result)

    def finish_failed(exc: BaseException) -> None:
        relay.deleteLater()
        on_failure(exc)

    relay.succeeded.connect(finish_ok)
    relay.failed.connect(finish_failed)
    QThreadPool.globalInstance().start(_Task(work, relay))
