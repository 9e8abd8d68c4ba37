"""What a message is given besides its words: files attached and collections ticked under
the composer, read and searched in the background before the message is sent (so a long
read never holds up the window), the collections kept with the conversation, and the
preview of a source an answer cites."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from app.chat import store as st
from app.chat.outbox import Draft, Ready, prepare
from app.chat.presets import COLLECTIONS_KEY
from app.chat.session import ChatSession
from app.core import Core
from app.docs.grounding import Grounding
from app.docs.library import Documents
from app.errors import HearthError
from ui.background import run_in_background
from ui.chat.documents_bar import DocumentsBar
from ui.chat.source_preview import SourcePreview
from ui.chat.transcript import TranscriptView
from ui.i18n import translated
from ui.speaking_part import SpeakingPart


class MessageDocuments(SpeakingPart):
    """Owns whether a message's documents are being read (``preparing``) and says what
    happens by signals.  It is given the parts it reads (the store, the documents, their
    bar under the box, the transcript's colours for a preview), the session shown now
    (``current``: a message is not sent into a conversation opened meanwhile) and the
    screen's ``send_ready``, which it calls with the draft made ready."""

    preparing_changed = Signal(bool)  # documents are being read: Send waits

    def __init__(
        self,
        core: Core,
        store: st.ChatStore,
        documents: Documents,
        bar: DocumentsBar,
        transcript: TranscriptView,
        current: Callable[[], ChatSession],
        send_ready: Callable[[Ready], bool],
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.core, self.store, self.documents = core, store, documents
        self.bar, self.transcript = bar, transcript
        self._current, self._send_ready, self._parent = current, send_ready, parent
        self.preparing = False

    def _set_preparing(self, preparing: bool) -> None:
        self.preparing = preparing
        self.preparing_changed.emit(preparing)

    def send(self, draft: Draft, session: ChatSession) -> bool:
        """Read the draft's files and collections in the background, then send it (into
        ``session``, still shown; an edit keeps its files, ``prepare``)."""
        budget = session.room_for_documents(draft.text)
        passages = int(self.core.settings.get("documents.passages"))
        self._set_preparing(True)
        self.said.emit(self.tr("Reading your documents…"), 0)

        def grounded(ready: Ready) -> None:
            self._set_preparing(False)
            self.said.emit("", 1)
            if self._current() is not session:  # another chat was opened meanwhile
                self.problem.emit(
                    self.tr(
                        "Your message was not sent: another conversation was opened while "
                        "your documents were read. It is still in the message box."
                    )
                )
                return
            for note in ready.notes:
                self.said.emit(translated(note), 15_000)
            if self._send_ready(ready):
                self.bar.clear_attachments()

        def failed(exc: BaseException) -> None:
            self._set_preparing(False)
            self.said.emit("", 1)
            if isinstance(exc, HearthError):
                self.problem.emit(exc.message)
            else:
                self.failed.emit(exc, self.tr("reading your documents"))

        ground = self.documents.ground
        run_in_background(
            self._parent,
            lambda: prepare(draft, ground, budget, passages),
            grounded,
            failed,
        )
        return True

    def show_source(self, user_message_id: int, number: int) -> SourcePreview | None:
        """The preview of source ``number`` of the answer to ``user_message_id``."""
        try:
            grounding = Grounding.from_json(self.store.message(user_message_id).documents)
        except (KeyError, TypeError, ValueError):
            return None
        source = next((s for s in grounding.sources if s.n == number), None)
        if source is None:
            return None
        preview = SourcePreview(
            source, self.documents.index, self.transcript.palette_colors, self._parent
        )
        preview.open()
        return preview

    def attach_dropped(self, paths: list[str]) -> None:
        self.bar.add_files([Path(p) for p in paths])

    def remember_collections(self) -> None:
        """The collections ticked are the conversation's own (they stay for it)."""
        session = self._current()
        chosen = self.bar.collections()
        settings = {**session.own_settings}
        if chosen:
            settings[COLLECTIONS_KEY] = chosen
        else:
            settings.pop(COLLECTIONS_KEY, None)
        if settings != session.own_settings:
            try:
                session.set_instructions(session.system_prompt, settings)
            except Exception as exc:  # noqa: BLE001 - e.g. disk full: say so
                self.failed.emit(exc, self.tr("saving the conversation settings"))

    def ask(self, collection: str) -> None:
        """Documents › Ask this collection: this (new) conversation answers from it."""
        self.bar.set_collections([collection])
        self.remember_collections()

    def show_collections(self) -> None:
        chosen = self._current().own_settings.get(COLLECTIONS_KEY, [])
        self.bar.set_collections([str(c) for c in chosen] if isinstance(chosen, list) else [])
