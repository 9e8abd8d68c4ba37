"""The message box: Enter sends, Shift+Enter starts a new line; files dropped on it are
attached, and a picture pasted into it (a screenshot) goes with the message."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QSize, Qt, Signal
from PySide6.QtGui import QImage, QKeyEvent
from PySide6.QtWidgets import QPlainTextEdit, QSizePolicy, QWidget


class Composer(QPlainTextEdit):
    submitted = Signal(str)
    escaped = Signal()  # Esc, handled here at once (no trip through the window's shortcuts)
    files_dropped = Signal(list)  # paths of local files dropped on the box (attachments)
    picture_pasted = Signal(QImage)  # a picture pasted or dropped without a file (a screenshot)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        self.setAccessibleName(self.tr("Message"))
        self.setPlaceholderText(
            self.tr("Message the model… (Enter to send, Shift+Enter for a new line)")
        )
        self.setTabChangesFocus(True)
        line = self.fontMetrics().lineSpacing()
        self.setMinimumHeight(line * 3)
        self.setMaximumHeight(line * 6)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)

    def sizeHint(self) -> QSize:
        """Three lines by default; the transcript gets the rest of the height."""
        hint = super().sizeHint()
        return QSize(hint.width(), self.fontMetrics().lineSpacing() * 3 + 12)

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return (
            bool(_local_files(source)) or source.hasImage() or super().canInsertFromMimeData(source)
        )

    def insertFromMimeData(self, source: QMimeData) -> None:
        """Files dropped (or pasted) become attachments; text is inserted as text."""
        files = _local_files(source)
        if files:
            self.files_dropped.emit(files)
            return
        if source.hasImage() and not source.hasText():
            self.picture_pasted.emit(QImage(source.imageData()))
            return
        super().insertFromMimeData(source)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.escaped.emit()
            event.accept()
            return
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            text = self.toPlainText()
            if text.strip():
                self.submitted.emit(text)
            event.accept()
            return
        super().keyPressEvent(event)


def _local_files(source: QMimeData) -> list[str]:
    if not source.hasUrls():
        return []
    return [url.toLocalFile() for url in source.urls() if url.isLocalFile()]
