"""The one place where problems are shown to the user, as sentences, until dismissed."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget


class ErrorBanner(QFrame):
    """The one place where problems are shown to the user, as sentences, until dismissed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBanner")
        self.setStyleSheet(
            "#errorBanner { background: #fef2f2; border: 1px solid #fca5a5; border-radius: 6px; }"
            " #errorBanner QLabel { color: #7f1d1d; }"
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setAccessibleName(self.tr("Error message"))
        close = QToolButton()
        close.setText("✕")
        close.setAccessibleName(self.tr("Dismiss error"))
        close.setAutoRaise(True)
        close.clicked.connect(self.dismiss)
        layout.addWidget(self.label, 1)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_message(self, message: str) -> None:
        self.label.setText(message)
        self.show()

    def dismiss(self) -> None:
        self.label.clear()
        self.hide()

    @property
    def message(self) -> str:
        return self.label.text() if self.isVisible() or self.label.text() else ""
