"""The Chat screen's sidebar: New chat, the search over every conversation and the list of
conversations.

It owns its widgets and how they share the room (while a search shows its hits, the list
makes way for them); what a person asks of it (open, rename, delete, pin, export a
conversation, open a hit) the Chat screen connects to its own actions where it assembles
its parts (``ui.chat.chat_screen``).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QPushButton, QVBoxLayout, QWidget

from app.chat.records import SearchHit
from ui.chat.conversation_list import ConversationList
from ui.chat.search_panel import SearchPanel
from ui.visual import SPACE


class ChatSidebar(QWidget):
    def __init__(
        self, search: Callable[[str], list[SearchHit]], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        side = QVBoxLayout(self)
        side.setContentsMargins(SPACE["s"], SPACE["s"], SPACE["xs"], SPACE["s"])
        self.new_button = QPushButton(self.tr("New chat"))
        self.new_button.setAccessibleName(self.tr("New chat"))
        self.search_panel = SearchPanel(search)
        self.conversation_list = ConversationList()
        side.addWidget(self.new_button)
        side.addWidget(self.search_panel)
        side.addWidget(self.conversation_list, 1)
        self.search_panel.active_changed.connect(self._searching)

    def _searching(self, active: bool) -> None:
        self.conversation_list.setVisible(not active)
