"""What the window says when it opens: the state files set aside as damaged, a repaired
chat history, and a reply Hearth was writing when it was closed (its conversation is
opened, calmly: nothing was lost, and Continue goes on with it)."""

from __future__ import annotations

from PySide6.QtCore import QObject

from app.chat.store import ChatStore
from app.core import Core
from app.docs.library import Documents
from app.hub.downloads import DownloadManager
from ui.chat.chat_screen import ChatScreen
from ui.error_banner import ErrorBanner
from ui.i18n import translated


class StartupNotes(QObject):
    """Given the parts it reads and the two it speaks through (the banner, and the Chat
    screen that opens a recovered reply's conversation), never the window itself."""

    def __init__(
        self,
        core: Core,
        store: ChatStore,
        downloads: DownloadManager,
        documents: Documents,
        chat: ChatScreen,
        banner: ErrorBanner,
        parent: QObject,
    ) -> None:
        super().__init__(parent)
        self.core, self.store, self.downloads, self.documents = core, store, downloads, documents
        self.chat, self.banner = chat, banner

    def show(self) -> None:
        notes = self.core.state_problems()
        if self.downloads.document.problem not in ("", *notes):
            notes.append(self.downloads.document.problem)
        if self.store.recovery_note:
            notes.append(self.store.recovery_note)
        notes += self.documents.problems  # a damaged collections file or index
        if self.store.recovered_replies:
            self._recovered_reply(notes)
        elif notes:
            self.banner.show_message(translated(" ".join(notes)))

    def _recovered_reply(self, notes: list[str]) -> None:
        count = self.store.recovered_replies
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
        conversations = self.store.recovered_conversations
        if conversations:
            self.chat.open_conversation(conversations[0])
        if notes:  # a repair too: that is a problem, and both are said
            self.banner.show_message(translated(" ".join([*notes, message])))
        else:
            self.banner.show_message(message, info=True)
