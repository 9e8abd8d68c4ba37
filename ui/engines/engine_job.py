"""One install, removal or rollback of an engine, run off the window's thread.

The back end (``app.packs.engine_list``) blocks for minutes while it downloads, unpacks
and checks; it runs on the thread pool (``run_in_background``) and its progress comes
back through this object's signals, queued to the window's thread.  One job at a time in
the process (the back end refuses a second across processes too): ``running`` is the one
under way, so an Engines page opened again while an install goes on shows its progress
rather than offering a second.  Quitting Hearth cancels it: the window does not wait
minutes for a download, and a cancelled install leaves the engine as it was.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, Signal

from app.errors import describe_error
from app.packs.pytorch_engine import InstallCancelled, InstallProgress
from ui.background import run_in_background
from ui.i18n import translated

DONE, FAILED, CANCELLED = "done", "failed", "cancelled"
Work = Callable[[Callable[[InstallProgress], None], Callable[[str], None], threading.Event], str]

_running: list[EngineJob] = []  # the job under way, kept alive until it has answered


def running() -> EngineJob | None:
    """The install, removal or rollback under way in this process, if any."""
    return _running[0] if _running else None


class EngineJob(QObject):
    """``work(on_progress, on_stage, cancel)`` on a background thread; what it says on
    the way and at the end comes back as signals."""

    progress = Signal(object)  # InstallProgress
    stage = Signal(object)  # a stage in words, a Phrase (a pack's "Checking every file…")
    finished = Signal(str, str)  # DONE, FAILED or CANCELLED; the sentence to show

    def __init__(self, name: str, action: str, doing: str, logs_dir: Path, label: str = "") -> None:
        """``doing``: what it does, for a failure's sentence ("installing the PyTorch
        engine"); ``label``: what the page calls the engine (its name by default)."""
        super().__init__()  # no parent: it outlives the page that started it
        self.name, self.action, self.doing = name, action, doing
        self.label = label or name
        self.logs_dir = logs_dir
        self.cancel_event = threading.Event()
        self.last: InstallProgress | None = None  # for a page that joins late
        self.last_stage = ""
        self.progress.connect(self._remember)
        self.stage.connect(self._remember_stage)
        app = QCoreApplication.instance()
        if app is not None:  # quitting stops it at the next chunk or file, changing nothing
            app.aboutToQuit.connect(self.cancel_event.set)

    def start(self, work: Work) -> None:
        _running.append(self)
        cancel = self.cancel_event
        run_in_background(
            self,
            lambda: work(self.progress.emit, self.stage.emit, cancel),
            self._succeeded,
            self._failed,
        )

    def cancel(self) -> None:
        """Stop at the next chunk or file; what was downloaded is kept for the next try."""
        self.cancel_event.set()

    def _remember(self, progress: InstallProgress) -> None:
        self.last = progress

    def _remember_stage(self, stage: str) -> None:
        self.last_stage = stage

    def _succeeded(self, sentence: str) -> None:
        self._end(DONE, translated(sentence))

    def _failed(self, exc: BaseException) -> None:
        if isinstance(exc, InstallCancelled):
            self._end(CANCELLED, translated(exc.message))
            return
        self._end(FAILED, translated(describe_error(exc, self.doing, str(self.logs_dir))))

    def _end(self, outcome: str, sentence: str) -> None:
        if self in _running:
            _running.remove(self)
        self.finished.emit(outcome, sentence)
