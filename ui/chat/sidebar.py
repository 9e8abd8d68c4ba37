"""The Chat screen's sidebar: what its list of conversations and its search ask of the
screen (``ui.chat.chat_screen``)."""

from __future__ import annotations

from typing import Protocol

from app.chat import store as st
from ui.chat.conversation_list import ConversationList
from ui.chat.search_panel import SearchPanel


class Screen(Protocol):
    store: st.ChatStore
    conversation_list: ConversationList
    search_panel: SearchPanel

    def open_conversation(self, conversation_id: int) -> None: ...
    def delete_conversation(self, conversation_id: int) -> None: ...
    def set_pinned(self, conversation_id: int, pinned: bool) -> None: ...
    def export_conversation(self, conversation_id: int | None = None, path: str = "") -> bool: ...
    def open_search_hit(self, conversation_id: int, query: str) -> None: ...


def connect_sidebar(screen: Screen) -> None:
    """Each request of the list and the search goes to the screen; while a search is shown
    the list makes way for its hits."""
    listed, search = screen.conversation_list, screen.search_panel
    listed.selected.connect(screen.open_conversation)
    listed.rename_requested.connect(screen.store.rename_conversation)
    listed.delete_requested.connect(screen.delete_conversation)
    listed.pin_requested.connect(screen.set_pinned)
    listed.export_requested.connect(screen.export_conversation)
    search.hit_chosen.connect(screen.open_search_hit)
    search.active_changed.connect(lambda active: listed.setVisible(not active))
