"""What the window says when it opens: the state files set aside as damaged, a repaired
chat history, and a reply Hearth was writing when it was closed (its conversation is
opened, calmly: nothing was lost, and Continue goes on with it)."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject

from app.chat.store import ChatStore
from app.core import Core
from app.docs.library import Documents
from app.hub.downloads import DownloadManager
from ui.chat.chat_screen import ChatScreen
from ui.error_banner import ErrorBanner


class Window(Protocol):
    """What the notes use of the window (``ui.main_window.MainWindow``)."""

    core: Core
    store: ChatStore
    downloads: DownloadManager
    documents: Documents
    chat: ChatScreen
    error_banner: ErrorBanner

    def show_error(self, message: str) -> None: ...


class StartupNotes(QObject):
    def __init__(self, window: Window, parent: QObject) -> None:
        super().__init__(parent)
        self.window = window

    def show(self) -> None:
        window = self.window
        notes = window.core.state_problems()
        if window.downloads.document.problem not in ("", *notes):
            notes.append(window.downloads.document.problem)
        if window.store.recovery_note:
            notes.append(window.store.recovery_note)
        notes += window.documents.problems  # a damaged collections file or index
        if window.store.recovered_replies:
            self._recovered_reply(notes)
        elif notes:
            window.show_error(" ".join(notes))

    def _recovered_reply(self, notes: list[str]) -> None:
        window = self.window
        count = window.store.recovered_replies
        message = (
            self.tr(
                "Hearth was closed while writing this reply. What was written is kept; "
                "Continue goes on with it."
            )
            if count == 1
            else self.tr(
                "Hearth was closed while writing {0} replies. What was written is kept; "
                "Continue goes on with each."
            ).format(count)
        )
        conversations = window.store.recovered_conversations
        if conversations:
            window.chat.open_conversation(conversations[0])
        if notes:  # a repair too: that is a problem, and both are said
            window.show_error(" ".join([*notes, message]))
        else:
            window.error_banner.show_message(message, info=True)
