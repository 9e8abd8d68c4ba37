"""Where problems are shown to the user, as sentences, until dismissed: one banner per
screen, in the screen whose action failed, with Retry where trying again can help."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

ERROR_STYLE = (
    "#errorBanner { background: #fef2f2; border: 1px solid #fca5a5; border-radius: 6px; }"
    " #errorBanner QLabel { color: #7f1d1d; }"
)
# News that is not a failure (a reply kept after Hearth was closed): calm colours.
INFO_STYLE = (
    "#errorBanner { background: #eff6ff; border: 1px solid #93c5fd; border-radius: 6px; }"
    " #errorBanner QLabel { color: #1e3a8a; }"
)


class ErrorBanner(QFrame):
    """The one place where problems are shown to the user, as sentences, until dismissed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBanner")
        self.setStyleSheet(ERROR_STYLE)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        self.label = QLabel()
        # Messages carry others' words (a server's stderr, a hub's answer): never markup.
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setAccessibleName(self.tr("Error message"))
        close = QToolButton()
        close.setText("✕")
        close.setAccessibleName(self.tr("Dismiss error"))
        close.setAutoRaise(True)
        close.clicked.connect(self.dismiss)
        self.retry_button = QPushButton(self.tr("Retry"))
        self.retry_button.setObjectName("retryButton")
        self.retry_button.clicked.connect(self._retry)
        self.retry_button.hide()
        self._retry_action: Callable[[], None] | None = None
        self.info = False
        layout.addWidget(self.label, 1)
        layout.addWidget(self.retry_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_message(
        self, message: str, retry: Callable[[], None] | None = None, info: bool = False
    ) -> None:
        """Show ``message``; with ``retry``, a Retry button that dismisses and runs it.
        ``info``: news, not a failure (calm colours)."""
        self.setStyleSheet(INFO_STYLE if info else ERROR_STYLE)
        self.info = info
        self.label.setText(message)
        self._retry_action = retry
        self.retry_button.setVisible(retry is not None)
        self.show()

    def dismiss(self) -> None:
        self.label.clear()
        self._retry_action = None
        self.retry_button.hide()
        self.hide()

    def _retry(self) -> None:
        action = self._retry_action
        self.dismiss()
        if action is not None:
            action()

    @property
    def message(self) -> str:
        return self.label.text() if self.isVisible() or self.label.text() else ""
