"""Where problems are shown to the user, as sentences, until dismissed: one banner per
screen, in the screen whose action failed, with Retry where trying again can help."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

from ui.theme import is_dark
from ui.visual import RADIUS

# (background, border, text) in the light and the dark theme: text at least 4.5:1 and the
# border at least 3:1 against the background (tests/test_contrast.py).
ERROR_COLOURS = {
    "light": ("#fef2f2", "#dc2626", "#7f1d1d"),
    "dark": ("#3b1518", "#f87171", "#fecaca"),
}
# News that is not a failure (a reply kept after Hearth was closed): calm colours.
INFO_COLOURS = {
    "light": ("#eff6ff", "#3b82f6", "#1e3a8a"),
    "dark": ("#172554", "#60a5fa", "#dbeafe"),
}


def banner_style(info: bool, dark: bool) -> str:
    background, border, text = (INFO_COLOURS if info else ERROR_COLOURS)[
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
