"""The sidebar: conversations, newest first; rename in place, delete from the context menu."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QMenu, QWidget

from app.store import Conversation

ID_ROLE = Qt.ItemDataRole.UserRole


class ConversationList(QListWidget):
    selected = Signal(int)
    rename_requested = Signal(int, str)
    delete_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conversations")
        self.setAccessibleName("Conversations")
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        self.setEditTriggers(
            QListWidget.EditTrigger.EditKeyPressed | QListWidget.EditTrigger.SelectedClicked
        )
        self.currentItemChanged.connect(self._current_changed)
        self.itemChanged.connect(self._item_changed)
        self._populating = False
        delete = QAction("Delete conversation", self)
        delete.setShortcut(QKeySequence.StandardKey.Delete)
        delete.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        delete.triggered.connect(self._delete_current)
        self.addAction(delete)

    def set_conversations(self, conversations: list[Conversation], current: int | None) -> None:
        self._populating = True
        try:
            self.clear()
            for conversation in conversations:
                item = QListWidgetItem(conversation.title)
                item.setData(ID_ROLE, conversation.id)
                item.setToolTip(conversation.title)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
                self.addItem(item)
                if conversation.id == current:
                    self.setCurrentItem(item)
        finally:
            self._populating = False

    def titles(self) -> list[str]:
        return [self.item(i).text() for i in range(self.count())]

    def current_id(self) -> int | None:
        item = self.currentItem()
        return int(item.data(ID_ROLE)) if item is not None else None

    def select_id(self, conversation_id: int) -> None:
        for i in range(self.count()):
            if self.item(i).data(ID_ROLE) == conversation_id:
                self.setCurrentRow(i)
                return

    def _current_changed(self, current: QListWidgetItem | None, _previous: object) -> None:
        if current is not None and not self._populating:
            self.selected.emit(int(current.data(ID_ROLE)))

    def _item_changed(self, item: QListWidgetItem) -> None:
        if not self._populating and item.text().strip():
            self.rename_requested.emit(int(item.data(ID_ROLE)), item.text())

    def _delete_current(self) -> None:
        conversation_id = self.current_id()
        if conversation_id is not None:
            self.delete_requested.emit(conversation_id)

    def _menu(self, position: QPoint) -> None:
        item = self.itemAt(position)
        if item is None:
            return
        menu = QMenu(self)
        menu.addAction("Rename", lambda: self.editItem(item))
        menu.addAction("Delete", lambda: self.delete_requested.emit(int(item.data(ID_ROLE))))
        menu.popup(self.viewport().mapToGlobal(position))
