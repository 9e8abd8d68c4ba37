"""Where problems are shown to the user, as sentences, until dismissed: one banner per
screen, in the screen whose action failed, with Retry where trying again can help."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

from ui.theme import is_dark
from ui.visual import NEWS_BANNER, PROBLEM_BANNER, RADIUS, SPACE


def banner_style(info: bool, dark: bool) -> str:
    """A problem's colours, or calm ones for news that is not a failure."""
    background, border, text = (NEWS_BANNER if info else PROBLEM_BANNER)[
        "dark" if dark else "light"
    ]
    return (
        f"#errorBanner {{ background: {background}; border: 1px solid {border}; "
        f"border-radius: {RADIUS['surface']}px; }} #errorBanner QLabel {{ color: {text}; }}"
    )


class ErrorBanner(QFrame):
    """The one place where problems are shown to the user, as sentences, until dismissed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBanner")
        self.info = False
        self._restyle()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(SPACE["m"], SPACE["xs"], SPACE["xs"], SPACE["xs"])
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
        layout.addWidget(self.label, 1)
        layout.addWidget(self.retry_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_message(
        self, message: str, retry: Callable[[], None] | None = None, info: bool = False
    ) -> None:
        """Show ``message``; with ``retry``, a Retry button that dismisses and runs it.
        ``info``: news, not a failure (calm colours)."""
        self.info = info
        self._restyle()
        self.label.setText(message)
        self._retry_action = retry
        self.retry_button.setVisible(retry is not None)
        self.show()

    def _restyle(self) -> None:
        self.setStyleSheet(banner_style(self.info, is_dark()))

    def changeEvent(self, event: QEvent) -> None:
        """The theme changed: the banner's colours follow it."""
        if event.type() == QEvent.Type.ApplicationPaletteChange:
            self._restyle()
        super().changeEvent(event)

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
