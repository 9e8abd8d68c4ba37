"""A conversation to and from a file: exported as Markdown (readable anywhere) or JSON
(re-importable), and imported from a Hearth JSON export (a bad file changes nothing)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, SignalInstance
from PySide6.QtWidgets import QFileDialog, QWidget

from app.chat import store as st
from app.chat import transfer
from app.errors import HearthError, describe_error
from app.files import safe_file_name, write_text_atomically
from ui.i18n import translated
from wire.phrases import Phrase


class Screen(Protocol):
    """What it uses of the Chat screen (``ui.chat.chat_screen.ChatScreen``)."""

    store: st.ChatStore
    status_message: SignalInstance
    report: Callable[[BaseException, str], None]

    @property
    def conversation_id(self) -> int | None: ...
    def widget(self) -> QWidget: ...
    def show_error(self, message: str) -> None: ...
    def refresh_conversations(self) -> None: ...
    def open_conversation(self, conversation_id: int) -> None: ...


class ConversationFiles(QObject):
    def __init__(self, screen: Screen, parent: QObject) -> None:
        super().__init__(parent)
        self.screen = screen

    def export(self, conversation_id: int | None = None, path: str = "") -> bool:
        """Save a conversation as Markdown (readable anywhere) or JSON (re-importable)."""
        conversation_id = conversation_id or self.screen.conversation_id
        if conversation_id is None:
            self.screen.show_error(self.tr("Open a conversation first."))
            return False
        title = self.screen.store.conversation(conversation_id).title
        if not path:
            path, _ = QFileDialog.getSaveFileName(
                self.screen.widget(),
                self.tr("Export conversation"),
                str(Path.home() / f"{safe_file_name(title)}.md"),
                self.tr("Markdown (*.md);;Hearth conversation, JSON (*.json)"),
            )
        if not path:
            return False
        try:
            if path.lower().endswith(".json"):
                document = transfer.export_document(self.screen.store, conversation_id)
                text = json.dumps(document, ensure_ascii=False, indent=2)
            else:
                text = transfer.export_markdown(self.screen.store, conversation_id)
            write_text_atomically(Path(path), text)
        except Exception as exc:  # noqa: BLE001 - disk full, no permission: say so
            self.screen.report(exc, self.tr("exporting the conversation"))
            return False
        self.screen.status_message.emit(self.tr("Exported to {0}").format(path), 5000)
        return True

    def import_(self, path: str = "") -> int | None:
        """Add a conversation from a Hearth JSON export; a bad file changes nothing."""
        if not path:
            path, _ = QFileDialog.getOpenFileName(
                self.screen.widget(),
                self.tr("Import conversation"),
                str(Path.home()),
                self.tr("Conversation, JSON (*.json);;All files (*)"),
            )
        if not path:
            return None
        try:
            document = json.loads(Path(path).read_text(encoding="utf-8"))
            conversation_id = transfer.import_document(self.screen.store, document)
        except (OSError, UnicodeDecodeError, ValueError, st.StoreError) as exc:
            # The file's fault, not Hearth's: said as such (and logged, with the cause).
            refused = HearthError(Phrase("{0} could not be imported: {1}", Path(path).name, exc))
            refused.__cause__ = exc
            doing = self.tr("importing {0}").format(Path(path).name)
            self.screen.show_error(translated(describe_error(refused, doing)))
            return None
        self.screen.refresh_conversations()
        self.screen.open_conversation(conversation_id)
        return conversation_id
