"""The status bar's live usage while a reply is written: the model process's CPU, memory
and, where there is one, GPU.  Sampled once a second while the chat is busy (the first
reading a second after a send: nothing slow on send), the last figures kept after."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel

from app.machine.live_usage import UsageSampler
from ui.i18n import translated

INTERVAL_MS = 1000


class UsageLine(QLabel):
    """Owns its sampler and its timer; told when the chat is busy and whether the machine
    has GPUs, asks ``worker_pid`` for the process to read."""

    def __init__(self, worker_pid: Callable[[], int | None]) -> None:
        super().__init__("")
        self.setObjectName("usageLabel")
        self._worker_pid = worker_pid
        self._sampler = UsageSampler()
        self._timer = QTimer(self)
        self._timer.setInterval(INTERVAL_MS)
        self._timer.timeout.connect(self.show_usage)

    def count_gpus(self, gpus: bool) -> None:
        """The system check answered: read the GPUs too where there are usable ones."""
        self._sampler = UsageSampler(gpus=gpus)

    def busy_changed(self, busy: bool) -> None:
        if busy:
            self._timer.start()
        else:
            self._timer.stop()
            if self.text():
                self.show_usage()  # the last figures: no model process if it ended

    def show_usage(self) -> None:
        self.setText(translated(self._sampler.line(self._worker_pid())))
