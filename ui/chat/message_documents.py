"""What a message is given besides its words: files attached and collections ticked under
the composer, read and searched in the background before the message is sent (so a long
read never holds up the window), the collections kept with the conversation, and the
preview of a source an answer cites."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject, SignalInstance
from PySide6.QtWidgets import QPushButton, QWidget

from app.chat import store as st
from app.chat.presets import COLLECTIONS_KEY
from app.chat.session import ChatSession
from app.core import Core
from app.docs.grounding import Grounding, with_attachments_of
from app.docs.library import Documents
from app.errors import HearthError
from ui.background import run_in_background
from ui.chat.documents_bar import DocumentsBar
from ui.chat.source_preview import SourcePreview
from ui.chat.transcript import TranscriptView
from ui.i18n import translated


class Screen(Protocol):
    """What it uses of the Chat screen (``ui.chat.chat_screen.ChatScreen``)."""

    core: Core
    store: st.ChatStore
    documents: Documents
    documents_bar: DocumentsBar
    transcript: TranscriptView
    send_button: QPushButton
    session: ChatSession
    editing: st.Message | None
    preparing: bool
    status_message: SignalInstance
    report: Callable[[BaseException, str], None]

    def widget(self) -> QWidget: ...
    def ready(self, session: ChatSession) -> ChatSession: ...
    def send_now(self, text: str, documents: dict[str, Any] | None) -> bool: ...
    def show_error(self, message: str) -> None: ...


class MessageDocuments(QObject):
    def __init__(self, screen: Screen, parent: QObject) -> None:
        super().__init__(parent)
        self.screen = screen

    def send(self, text: str, attachments: list[Path], collections: list[str]) -> bool:
        session = self.screen.ready(self.screen.session)
        editing = self.screen.editing
        budget = session.room_for_documents(text)
        self.screen.preparing = True
        self.screen.send_button.setEnabled(False)
        self.screen.status_message.emit(self.tr("Reading your documents…"), 0)

        def grounded(grounding: Grounding) -> None:
            self.screen.preparing = False
            self.screen.send_button.setEnabled(True)
            self.screen.status_message.emit("", 1)
            if self.screen.session is not session:  # another chat was opened meanwhile
                self.screen.show_error(
                    self.tr(
                        "Your message was not sent: another conversation was opened while "
                        "your documents were read. It is still in the message box."
                    )
                )
                return
            if editing is not None and editing is self.screen.editing:
                grounding = with_attachments_of(Grounding.from_json(editing.documents), grounding)
            for note in grounding.notes:
                self.screen.status_message.emit(translated(note), 15_000)
            if self.screen.send_now(text, grounding.to_json()):
                self.screen.documents_bar.clear_attachments()

        def failed(exc: BaseException) -> None:
            self.screen.preparing = False
            self.screen.send_button.setEnabled(True)
            self.screen.status_message.emit("", 1)
            if isinstance(exc, HearthError):
                self.screen.show_error(exc.message)
            else:
                self.screen.report(exc, self.tr("reading your documents"))

        run_in_background(
            self.screen.widget(),
            lambda: self.screen.documents.ground(
                text,
                collections,
                attachments,
                budget,
                int(self.screen.core.settings.get("documents.passages")),
            ),
            grounded,
            failed,
        )
        return True

    def show_source(self, user_message_id: int, number: int) -> SourcePreview | None:
        """The preview of source ``number`` of the answer to ``user_message_id``."""
        try:
            grounding = Grounding.from_json(self.screen.store.message(user_message_id).documents)
        except (KeyError, TypeError, ValueError):
            return None
        source = next((s for s in grounding.sources if s.n == number), None)
        if source is None:
            return None
        preview = SourcePreview(
            source,
            self.screen.documents.index,
            self.screen.transcript.palette_colors,
            self.screen.widget(),
        )
        preview.open()
        return preview

    def attach_dropped(self, paths: list[str]) -> None:
        self.screen.documents_bar.add_files([Path(p) for p in paths])

    def remember_collections(self) -> None:
        """The collections ticked are the conversation's own (they stay for it)."""
        session = self.screen.session
        chosen = self.screen.documents_bar.collections()
        settings = {**session.own_settings}
        if chosen:
            settings[COLLECTIONS_KEY] = chosen
        else:
            settings.pop(COLLECTIONS_KEY, None)
        if settings != session.own_settings:
            try:
                session.set_instructions(session.system_prompt, settings)
            except Exception as exc:  # noqa: BLE001 - e.g. disk full: say so
                self.screen.report(exc, self.tr("saving the conversation settings"))

    def ask(self, collection: str) -> None:
        """Documents › Ask this collection: this (new) conversation answers from it."""
        self.screen.documents_bar.set_collections([collection])
        self.remember_collections()

    def show_collections(self) -> None:
        chosen = self.screen.session.own_settings.get(COLLECTIONS_KEY, [])
        self.screen.documents_bar.set_collections(
            [str(c) for c in chosen] if isinstance(chosen, list) else []
        )
