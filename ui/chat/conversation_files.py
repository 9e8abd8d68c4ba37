"""A conversation to and from a file: exported as Markdown (readable anywhere) or JSON
(re-importable), and imported from a Hearth JSON export (a bad file changes nothing)."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from app.chat import store as st
from app.chat import transfer
from app.errors import HearthError, describe_error
from app.files import safe_file_name, write_text_atomically
from ui.i18n import translated
from ui.speaking_part import SpeakingPart
from wire.phrases import Phrase


class ConversationFiles(SpeakingPart):
    """Export and import, owning nothing of the Chat screen's: it is given the store and a
    parent for its file dialogs, and says what happened by signals, which the screen
    connects where it assembles its parts."""

    imported = Signal(int)  # a conversation added from a file, to list and open

    def __init__(self, store: st.ChatStore, parent: QWidget) -> None:
        super().__init__(parent)
        self.store, self._dialogs_parent = store, parent

    def export(self, conversation_id: int | None, path: str = "") -> bool:
        """Save a conversation as Markdown (readable anywhere) or JSON (re-importable)."""
        if conversation_id is None:
            self.problem.emit(self.tr("Open a conversation first."))
            return False
        title = self.store.conversation(conversation_id).title
        if not path:
            path, _ = QFileDialog.getSaveFileName(
                self._dialogs_parent,
                self.tr("Export conversation"),
                str(Path.home() / f"{safe_file_name(title)}.md"),
                self.tr("Markdown (*.md);;Hearth conversation, JSON (*.json)"),
            )
        if not path:
            return False
        try:
            if path.lower().endswith(".json"):
                document = transfer.export_document(self.store, conversation_id)
                text = json.dumps(document, ensure_ascii=False, indent=2)
            else:
                text = transfer.export_markdown(self.store, conversation_id)
            write_text_atomically(Path(path), text)
        except Exception as exc:  # noqa: BLE001 - disk full, no permission: say so
            self.failed.emit(exc, self.tr("exporting the conversation"))
            return False
        self.said.emit(self.tr("Exported to {0}").format(path), 5000)
        return True

    def import_(self, path: str = "") -> int | None:
        """Add a conversation from a Hearth JSON export; a bad file changes nothing."""
        if not path:
            path, _ = QFileDialog.getOpenFileName(
                self._dialogs_parent,
                self.tr("Import conversation"),
                str(Path.home()),
                self.tr("Conversation, JSON (*.json);;All files (*)"),
            )
        if not path:
            return None
        try:
            document = json.loads(Path(path).read_text(encoding="utf-8"))
            conversation_id = transfer.import_document(self.store, document)
        except (OSError, UnicodeDecodeError, ValueError, st.StoreError) as exc:
            # The file's fault, not Hearth's: said as such (and logged, with the cause).
            refused = HearthError(Phrase("{0} could not be imported: {1}", Path(path).name, exc))
            refused.__cause__ = exc
            doing = self.tr("importing {0}").format(Path(path).name)
            self.problem.emit(translated(describe_error(refused, doing)))
            return None
        self.imported.emit(conversation_id)
        return conversation_id
