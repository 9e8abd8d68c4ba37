"""What a window part says, declared once: a word for the status bar, a sentence for the
person, a fault for the one error path.  A part says it by these signals and its owner
connects them (``speak_through``) where it assembles its parts; no part reaches for the
window's status bar, banner or report itself."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal


class SpeakingPart(QObject):
    said = Signal(str, int)  # a word for the status bar (text, ms)
    problem = Signal(str)  # a sentence for the person
    failed = Signal(object, str)  # a fault and what was being done: logged, then said

    def speak_through(
        self,
        status: Callable[[str, int], object],
        show_error: Callable[[str], object],
        report: Callable[[BaseException, str], object],
    ) -> None:
        self.said.connect(status)
        self.problem.connect(show_error)
        self.failed.connect(report)
