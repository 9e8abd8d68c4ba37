"""A bar that says what was just done and offers to undo it, for a while."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from ui.visual import SPACE

SHOWN_MS = 10_000


class UndoBar(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("undoBar")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(SPACE["m"], SPACE["xs"], SPACE["xs"], SPACE["xs"])
        self.label = QLabel()
        self.label.setAccessibleName(self.tr("What was just done"))
        self.button = QPushButton(self.tr("Undo"))
        self.button.setAccessibleName(self.tr("Undo"))
        self.button.clicked.connect(self.undo)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignRight)
        self._undo: Callable[[], None] | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.hide)
        self.hide()

    def offer(self, text: str, undo: Callable[[], None]) -> None:
        """Show ``text`` with an Undo button; the offer stands until the next one."""
        self._undo = undo
        self.label.setText(text)
        self.show()
        self._timer.start(SHOWN_MS)

    @property
    def can_undo(self) -> bool:
        return self._undo is not None

    def undo(self) -> None:
        action, self._undo = self._undo, None
        self.hide()
        if action is not None:
            action()
