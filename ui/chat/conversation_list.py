"""The sidebar: conversations, pinned first then newest; rename in place; pin, export and
delete from the context menu."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QAction, QIcon, QKeySequence, QPainter, QPixmap
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QMenu, QWidget

from app.chat.store import Conversation

ID_ROLE = Qt.ItemDataRole.UserRole
PINNED_ROLE = Qt.ItemDataRole.UserRole + 1
PIN = "📌 "


class ConversationList(QListWidget):
    selected = Signal(int)
    rename_requested = Signal(int, str)
    delete_requested = Signal(int)
    pin_requested = Signal(int, bool)
    export_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conversations")
        self.setAccessibleName(self.tr("Conversations"))
        # A long title ends in "…" (its whole text is the tooltip), never scrolls sideways.
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWordWrap(False)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        self.setEditTriggers(
            QListWidget.EditTrigger.EditKeyPressed | QListWidget.EditTrigger.SelectedClicked
        )
        self.currentItemChanged.connect(self._current_changed)
        self.itemChanged.connect(self._item_changed)
        self._populating = False
        delete = QAction(self.tr("Delete conversation"), self)
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
                item.setData(PINNED_ROLE, conversation.pinned)
                item.setToolTip(conversation.title)
                if conversation.pinned:
                    item.setIcon(_pin_icon())
                    item.setToolTip(self.tr("Pinned: {0}").format(conversation.title))
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
        conversation_id = int(item.data(ID_ROLE))
        pinned = bool(item.data(PINNED_ROLE))
        menu = QMenu(self)
        menu.addAction(self.tr("Rename"), lambda: self.editItem(item))
        menu.addAction(
            self.tr("Unpin") if pinned else self.tr("Pin to the top"),
            lambda: self.pin_requested.emit(conversation_id, not pinned),
        )
        menu.addAction(self.tr("Export…"), lambda: self.export_requested.emit(conversation_id))
        menu.addSeparator()
        menu.addAction(self.tr("Delete"), lambda: self.delete_requested.emit(conversation_id))
        menu.popup(self.viewport().mapToGlobal(position))


def _pin_icon() -> QIcon:
    """A small pin drawn from the emoji, so no image file is needed."""
    pixmap = QPixmap(16, 16)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.drawText(pixmap.rect(), Qt.AlignmentFlag.AlignCenter, PIN.strip())
    painter.end()
    return QIcon(pixmap)
