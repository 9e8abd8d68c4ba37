"""How long the Qt main thread went without running a timer (the UI's longest stall)."""

from __future__ import annotations

import time


class StallMonitor:
    """The longest time the Qt main thread went without running a 5 ms timer."""

    def __init__(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.longest_ms = 0.0
        self._last = time.perf_counter()
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(5)
        self._timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.longest_ms = max(self.longest_ms, (now - self._last) * 1000 - 5)
        self._last = now

    def start(self) -> None:
        self._last = time.perf_counter()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
