"""Search across every conversation: a field above the sidebar and a list of hits.

Typing waits 150 ms for a pause, then asks the chat store (SQLite FTS5, trigram: words in
any language, in milliseconds even with many thousands of messages).  While a search is
shown the conversation list is hidden; Esc or clearing the field brings it back.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.chat.store import SearchHit
from ui.visual import SPACE

HIT_ROLE = Qt.ItemDataRole.UserRole
TEXT_ROLE = Qt.ItemDataRole.UserRole + 1  # the entry's plain text (title, passage)
DEBOUNCE_MS = 150


def hit_html(title: str, snippet: str, query: str, count: str) -> str:
    """A search entry as rich text: the title in bold, how many messages matched, and the
    passage with the words searched for in bold (escaped first: it is the user's text)."""
    if query:
        # Split the plain text first, then escape each piece: bolding escaped text could
        # cut through an entity (a search for "amp" in "&amp;").
        pieces = re.split(f"({re.escape(query)})", snippet, flags=re.IGNORECASE)
        passage = "".join(
            f"<b>{html.escape(p)}</b>" if i % 2 else html.escape(p) for i, p in enumerate(pieces)
        )
    else:
        passage = html.escape(snippet)
    extra = f" <span style='color:gray;'>· {html.escape(count)}</span>" if count else ""
    return f"<b>{html.escape(title)}</b>{extra}<br>{passage}"


class SearchField(QLineEdit):
    cleared = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and self.text():
            self.clear()
            self.cleared.emit()
            event.accept()
            return
        super().keyPressEvent(event)


class SearchPanel(QWidget):
    hit_chosen = Signal(int, str)  # conversation id, the words searched for
    active_changed = Signal(bool)  # a search is shown (the conversation list is not)

    def __init__(
        self, search: Callable[[str], list[SearchHit]], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._search = search
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.field = SearchField()
        self.field.setObjectName("searchField")
        self.field.setPlaceholderText(self.tr("Search all conversations (Ctrl+F)"))
        self.field.setAccessibleName(self.tr("Search conversations"))
        self.field.setClearButtonEnabled(True)
        self.results = QListWidget()
        self.results.setObjectName("searchResults")
        self.results.setAccessibleName(self.tr("Search results"))
        self.results.setWordWrap(True)
        self.results.hide()
        layout.addWidget(self.field)
        layout.addWidget(self.results, 1)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.run_search)
        self.field.textChanged.connect(lambda _text: self._timer.start())
        self.field.returnPressed.connect(self.run_search)
        self.results.itemActivated.connect(self._chosen)
        self.results.itemClicked.connect(self._chosen)
        self.hits: list[SearchHit] = []

    def run_search(self) -> None:
        self._timer.stop()
        query = self.field.text().strip()
        self.results.clear()
        self.hits = self._search(query) if query else []
        # One entry per conversation (its first hit's passage, and how many matched),
        # the words searched for in bold, a line between entries.
        grouped: dict[int, list[SearchHit]] = {}
        for hit in self.hits:
            grouped.setdefault(hit.conversation_id, []).append(hit)
        for conversation_id, hits in grouped.items():
            first = hits[0]
            count = self.tr("{0} matches").format(len(hits)) if len(hits) > 1 else ""
            label = QLabel(hit_html(first.title, first.snippet, query, count))
            label.setObjectName("searchHit")
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setContentsMargins(SPACE["s"], SPACE["xs"], SPACE["s"], SPACE["s"])
            label.setStyleSheet("#searchHit { border-bottom: 1px solid palette(mid); }")
            item = QListWidgetItem()
            item.setData(HIT_ROLE, conversation_id)
            item.setData(TEXT_ROLE, f"{first.title}\n{first.snippet}")
            item.setData(Qt.ItemDataRole.AccessibleTextRole, f"{first.title}: {first.snippet}")
            item.setToolTip(first.snippet)
            self.results.addItem(item)
            self.results.setItemWidget(item, label)
        self._fit_rows()
        if query and not self.hits:
            empty = QListWidgetItem(self.tr("Nothing found for “{0}”.").format(query))
            empty.setFlags(Qt.ItemFlag.NoItemFlags)
            self.results.addItem(empty)
        self.results.setVisible(bool(query))
        self.active_changed.emit(bool(query))

    def _fit_rows(self) -> None:
        """Each entry as tall as its wrapped text at the list's present width."""
        width = max(self.results.viewport().width() - 4, 120)
        for row in range(self.results.count()):
            item = self.results.item(row)
            label = self.results.itemWidget(item)
            if isinstance(label, QLabel):
                item.setSizeHint(QSize(width, label.heightForWidth(width) + 2))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_rows()  # a wider or narrower sidebar wraps the passages anew

    def focus(self) -> None:
        self.field.setFocus()
        self.field.selectAll()

    def _chosen(self, item: QListWidgetItem) -> None:
        conversation_id = item.data(HIT_ROLE)
        if conversation_id is not None:
            self.hit_chosen.emit(int(conversation_id), self.field.text().strip())
