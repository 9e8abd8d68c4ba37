"""The Chat screen: conversations on the left, the open conversation on the right.

It adapts ``app.chat.session.ChatSession`` (which owns sending, branches, streaming into
the store and how a reply ends) to widgets: the session's events arrive on the main
thread through an ``EventRelay`` (coalesced), and this screen turns them into transcript
updates.  One session per open conversation; a reply may go on streaming into a
conversation that is no longer shown (``running``), and only one reply runs at a time.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.chat import store as st
from app.chat.listener import SessionListener
from app.chat.outbox import Draft, Ready
from app.chat.reply import Reply
from app.chat.session import TICK_S, ChatSession
from app.core import Core
from app.docs.grounding import CHARACTERS_PER_TOKEN
from app.docs.library import Documents
from app.engine.seat import Seat
from app.models.library import ModelEntry
from ui.chat.chat_tools_ui import ChatToolsUi
from ui.chat.composer_area import ComposerArea
from ui.chat.context_meter import ContextMeter
from ui.chat.conversation_files import ConversationFiles
from ui.chat.conversation_settings_dialog import ConversationSettingsDialog, open_for
from ui.chat.message_documents import MessageDocuments
from ui.chat.message_html import plain_text, stats_text
from ui.chat.model_bar import ModelBar
from ui.chat.sidebar import ChatSidebar
from ui.chat.transcript import TranscriptView
from ui.chat.undo_bar import UndoBar
from ui.error_banner import ErrorBanner
from ui.event_relay import CHAT_END, EventRelay
from ui.i18n import translated
from ui.visual import SPACE
from wire import protocol

log = logging.getLogger(__name__)


class ChatScreen(QWidget, SessionListener):
    reply_finished = Signal(dict)  # the final event, with "status" and "message_id"
    busy_changed = Signal(bool)
    stats_shown = Signal(str)  # the last reply's speed line, for the status bar
    status_message = Signal(str, int)  # a short note for the status bar (text, ms)

    def __init__(
        self,
        core: Core,
        seat: Seat,
        store: st.ChatStore,
        banner: ErrorBanner,
        report: Callable[[BaseException, str], None],
        defer: Callable[[Callable[[], None]], None],
        load_on_start: bool = True,
        parent: QWidget | None = None,
        documents: Documents | None = None,
    ) -> None:
        super().__init__(parent)
        self.core, self.seat, self.store = core, seat, store
        self.documents = documents or Documents(core.paths.data_dir, core.paths.logs_dir)
        self.error_banner, self.report = banner, report
        self.closed = False
        # Extra request parameters for every reply (benchmarks run replies to a fixed
        # length with {"ignore_eos": True}); empty in normal use.
        self.sampling_overrides: dict[str, Any] = {}
        self.model_bar = ModelBar(core, seat, self.show_error, report, defer, load_on_start)
        self.model_bar.settings_requested.connect(self.open_conversation_settings)
        self.model_bar.model_loaded.connect(lambda _event: self.update_context_meter())
        self.running: ChatSession | None = None  # the session whose reply is streaming
        self._meter_base: tuple[int, int] | None = None  # the estimate when the reply began
        self.session = self._session(None)  # the session shown
        self._flush_timer = QTimer(self)
        self._flush_timer.setInterval(int(TICK_S * 1000))  # a pause in the stream is saved too
        self._flush_timer.timeout.connect(self._tick)
        self.files = ConversationFiles(store, self)  # export and import
        self.files.speak_through(self.status_message.emit, self.show_error, self.report)
        self.files.imported.connect(lambda _added: self.refresh_conversations())
        self.files.imported.connect(self.open_conversation)  # (after: connected in order)
        self._build()

    # -- layout ------------------------------------------------------------------------
    def _build(self) -> None:
        sidebar = ChatSidebar(self.store.search)
        self.new_button, self.search_panel = sidebar.new_button, sidebar.search_panel
        listed = self.conversation_list = sidebar.conversation_list
        self.new_button.clicked.connect(self.new_chat)
        listed.selected.connect(self.open_conversation)
        listed.rename_requested.connect(self.store.rename_conversation)
        listed.delete_requested.connect(self.delete_conversation)
        listed.pin_requested.connect(self.set_pinned)
        listed.export_requested.connect(self.export_conversation)
        self.search_panel.hit_chosen.connect(self.open_search_hit)

        # The box, Send, Attach…, Collections, Tools and the pictures (their Tab order too),
        # and the draft: placed under the conversation below.
        bar = self.model_bar
        area = self.composer_area = ComposerArea(
            *(self.documents, self.show_error, self.store.pictures.put),
            *(lambda: (bar.model, bar.models), self.core.model_spec),
        )
        chat = QWidget()
        layout = QVBoxLayout(chat)
        layout.setContentsMargins(SPACE["xs"], SPACE["s"], SPACE["s"], SPACE["s"])
        layout.addWidget(self.model_bar)
        layout.addWidget(self.error_banner)
        self.undo_bar = UndoBar()
        layout.addWidget(self.undo_bar)
        self.transcript = TranscriptView()
        self.transcript.pictures.path_of = self.store.pictures.path
        self.transcript.action.connect(self.message_action)
        # The welcome (set by the window) stands in for the transcript of an empty chat.
        self.stage = QStackedWidget()
        self.stage.addWidget(self.transcript)
        self.welcome: QWidget | None = None
        layout.addWidget(self.stage, 1)
        under = QHBoxLayout()
        layout.addWidget(area.edit_label)  # the composer's note while a message is edited
        self.context_meter = ContextMeter()
        under.addWidget(self.model_bar.status, 1)
        under.addWidget(self.model_bar.progress)
        under.addWidget(self.context_meter)
        layout.addLayout(under)

        self.composer, self.picture_tray = area.composer, area.picture_tray
        self.send_button, self.stop_button = area.send_button, area.stop_button
        self.documents_bar = area.documents_bar
        area.draft_ready.connect(self.send_draft)
        area.stop_requested.connect(self.stop)
        self.composer.escaped.connect(self.escape)
        self.search_panel.field.cleared.connect(self.composer.setFocus)
        # What a message is given besides its words, read before it is sent.
        given = self.message_documents = MessageDocuments(
            *(self.core, self.store, self.documents, self.documents_bar, self.transcript),
            *(lambda: self.session, self.send_ready, self),
        )
        given.preparing_changed.connect(area.set_preparing)
        given.speak_through(self.status_message.emit, self.show_error, self.report)
        self.transcript.source_requested.connect(given.show_source)
        self.composer.files_dropped.connect(given.attach_dropped)
        self.documents_bar.changed.connect(given.remember_collections)
        self.model_bar.said.connect(lambda news: self.status_message.emit(news, 8000))
        tools = self.tools_ui = ChatToolsUi(
            *(self.core, self.documents, self.model_bar, self.documents_bar),
            *(lambda: self.session, lambda: self.running is not None, self),
        )
        tools.note.connect(lambda words: self.error_banner.show_message(words, info=True))
        tools.server_problem.connect(self.show_error)
        tools.failed.connect(self.report)
        tools.redraw_requested.connect(self.show_conversation)
        area.order_tabs()  # with the Tools button and its choice
        layout.addWidget(area)

        self.splitter = QSplitter()
        self.splitter.setObjectName("chatSplitter")
        self.splitter.addWidget(sidebar)
        self.splitter.addWidget(chat)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([260, 840])
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.splitter)

    def set_welcome(self, welcome: QWidget) -> None:
        """What an empty chat shows instead of an empty transcript."""
        self.welcome = welcome
        self.stage.addWidget(welcome)
        self._update_stage()

    def _update_stage(self, empty: bool | None = None) -> None:
        """The welcome while the chat shown has no message and no reply, else the
        transcript."""
        if self.welcome is None:
            return
        if empty is None:
            session = self.session
            empty = session.reply is None and not session.messages()
        self.stage.setCurrentWidget(self.welcome if empty else self.transcript)

    def widget(self) -> QWidget:
        """The screen as a parent for dialogs and background work."""
        return self

    def show_error(self, message: str) -> None:
        """Show a sentence for the user, in the window's language where it is a Phrase."""
        self.error_banner.show_message(translated(message))

    # -- sessions ------------------------------------------------------------------------
    def _session(self, conversation_id: int | None) -> ChatSession:
        """The running session when it is this conversation's, else a new one."""
        running = self.running
        if running is not None and running.conversation_id == conversation_id is not None:
            return running
        return ChatSession(
            self.core.settings,
            self.store,
            self.seat,
            self.core.load_spec,
            self,
            conversation_id,
            deliver=lambda handler: EventRelay(self, handler, CHAT_END).callback,
        )

    def ready(self, session: ChatSession) -> ChatSession:
        """The session with this window's current model and its advice."""
        session.model = self.model_bar.model
        session.advice = self.model_bar.advice()
        session.extra_params = dict(self.sampling_overrides)
        session.tools, session.tool_listener = self.tools_ui.chat_tools(session), self.tools_ui
        return session

    @property
    def conversation_id(self) -> int | None:
        return self.session.conversation_id

    @property
    def busy(self) -> bool:
        return self.running is not None

    # -- conversations -----------------------------------------------------------------
    def refresh_conversations(self) -> None:
        self.conversation_list.set_conversations(self.store.conversations(), self.conversation_id)

    def new_chat(self) -> None:
        self.session = self._session(None)
        self.cancel_edit()
        self.conversation_list.clearSelection()
        self.conversation_list.setCurrentRow(-1)
        self.transcript.show_messages([])
        self.message_documents.show_collections()
        self.tools_ui.show_choice()
        self._update_stage(empty=True)
        self.update_context_meter()
        self.composer.setFocus()

    def open_conversation(self, conversation_id: int) -> None:
        if (
            conversation_id == self.conversation_id
            and self.transcript.document().characterCount() > 1
        ):
            return
        self.session = self._session(conversation_id)
        self.cancel_edit()
        self.message_documents.show_collections()
        self.tools_ui.show_choice()
        self.show_conversation()
        self.conversation_list.select_id(conversation_id)

    def show_conversation(self) -> None:
        """Render the open conversation (its current branch), a reply streaming into it
        included."""
        session = self.session
        messages = session.messages()
        reply = session.reply
        shown = [m for m in messages if reply is None or m.id != reply.message_id]
        self.transcript.show_messages(shown, session.branches())
        if reply is not None:
            rounds = reply.turn.rounds if reply.turn else None
            self.transcript.begin_reply(reply.model_name, reply.text, reply.reasoning, None, rounds)
        self._update_stage(empty=not messages and reply is None)
        self.update_context_meter(messages=messages)

    def open_search_hit(self, conversation_id: int, query: str) -> None:
        """Open a conversation found by a search and highlight the first match."""
        self.open_conversation(conversation_id)
        if query:
            self.transcript.highlight(query)

    def export_conversation(self, conversation_id: int | None = None, path: str = "") -> bool:
        """Save a conversation as Markdown or JSON (``ConversationFiles``)."""
        return self.files.export(conversation_id or self.conversation_id, path)

    def import_conversation(self, path: str = "") -> int | None:
        return self.files.import_(path)

    def set_pinned(self, conversation_id: int, pinned: bool) -> None:
        self.store.set_pinned(conversation_id, pinned)
        self.refresh_conversations()

    def delete_conversation(self, conversation_id: int) -> None:
        """Delete at once, with Undo offered for a while (and until Hearth closes)."""
        if self.running is not None and self.running.conversation_id == conversation_id:
            self.running.abandon()
        title = self.store.conversation(conversation_id).title
        self.store.trash_conversation(conversation_id)
        if self.conversation_id == conversation_id:
            self.new_chat()
        self.refresh_conversations()
        self.undo_bar.offer(
            self.tr("Deleted “{0}”.").format(title),
            lambda: self.restore_conversation(conversation_id),
        )

    def restore_conversation(self, conversation_id: int) -> None:
        self.store.restore_conversation(conversation_id)
        self.refresh_conversations()
        self.open_conversation(conversation_id)

    def open_conversation_settings(self) -> ConversationSettingsDialog:
        """System prompt, preset and sampling of the open (or next new) conversation."""
        return open_for(
            self.ready(self.session), self.core, self, self.report, self.update_context_meter
        )

    def chat_with(self, entry: ModelEntry) -> bool:
        """Start a new chat with ``entry`` (from the library)."""
        if not self.core.can_run(entry.format):
            self.show_error(
                self.tr(
                    "{0} is a Hugging Face checkpoint and needs the PyTorch engine, which is "
                    "not installed. Add it in Settings › Engines."
                ).format(entry.name)
            )
            return False
        if self.busy:
            self.show_error(
                self.tr("Wait for the reply to finish (or press Stop) before switching models.")
            )
            return False
        self.new_chat()
        return self.model_bar.select(entry)

    # -- the conversation's messages -----------------------------------------------------
    def message_action(self, action: str, message_id: int) -> None:
        """A link under or beside a message was clicked in the transcript."""
        if action in ("copy-md", "copy-text"):
            self.copy_message(message_id, plain=action == "copy-text")
            return
        if self.busy:
            self.show_error(self.tr("Wait for the reply to finish (or press Stop) first."))
            return
        handlers: dict[str, Callable[[int], object]] = {
            "edit": self.edit_message,
            "delete": self.delete_message,
            "regenerate": self.regenerate,
            "continue": self.continue_reply,
            "prev": lambda m: self.step_branch(m, -1),
            "next": lambda m: self.step_branch(m, +1),
        }
        handler = handlers.get(action)
        if handler is not None:
            handler(message_id)

    def copy_message(self, message_id: int, plain: bool = False) -> None:
        try:
            content = self.store.message(message_id).content
        except KeyError:
            return
        self.transcript.copy_to_clipboard(plain_text(content) if plain else content)
        self.status_message.emit(self.tr("Copied"), 2000)

    @property
    def editing(self) -> st.Message | None:
        return self.composer_area.editing  # the composer's draft: a message being edited

    def edit_message(self, message_id: int) -> None:
        """Put a message of the user's in the box; sending it starts a new branch."""
        self.composer_area.edit(self.store.message(message_id), self.store.pictures.read)
        self.transcript.set_editing(message_id)

    def cancel_edit(self) -> None:
        self.composer_area.cancel_edit()
        self.transcript.set_editing(None)

    def delete_message(self, message_id: int) -> None:
        self.session.delete_message(message_id)
        self.show_conversation()

    def step_branch(self, message_id: int, step: int) -> None:
        if self.session.step_branch(message_id, step):
            self.show_conversation()

    def send(self, text: str) -> bool:
        """Send ``text`` with what the composer holds, as Send does (scripts, the bench
        and tests type this way); False when it cannot be sent now."""
        draft = self.composer_area.take_draft(text)
        return draft is not None and self.send_draft(draft)

    def send_draft(self, draft: Draft) -> bool:
        """Send the composer's draft: with attached files or collections, they are read
        and searched in the background first (``MessageDocuments``), then it goes."""
        if draft.needs_reading:
            return self.message_documents.send(draft, self.ready(self.session))
        return self.send_ready(draft.ready())

    def send_ready(self, ready: Ready) -> bool:
        """Hand the session a message ready to go; its refusal is said (the draft stays)."""
        if self.model_bar.model is not None:
            self.error_banner.dismiss()
        reply = self._run(
            lambda s: s.send(ready.text, ready.edit_of, ready.documents, ready.pictures),
            self.tr("saving your message"),
        )
        if reply is None:
            return False
        self.composer_area.sent()
        self.transcript.editing_id = None  # the conversation is drawn again for the branch
        return True

    def regenerate(self, message_id: int | None = None) -> bool:
        """A new reply to the message before ``message_id`` (default: the last reply)."""
        if self.conversation_id is None:
            return False
        return (
            self._run(lambda s: s.regenerate(message_id), self.tr("saving the reply")) is not None
        )

    def continue_reply(self, message_id: int | None = None) -> bool:
        """Let the model go on with a reply cut at the token limit or stopped."""
        if self.conversation_id is None:
            return False
        reply = self._run(lambda s: s.continue_reply(message_id), self.tr("saving the reply"))
        return reply is not None

    def _run(self, action: Callable[[ChatSession], Reply | None], doing: str) -> Reply | None:
        """Start a reply in the shown session (``reply_started`` shows it); problems are
        said, and nothing runs."""
        if self.busy:
            return None
        session = self.ready(self.session)
        try:
            return action(session)
        except Exception as exc:  # noqa: BLE001 - a refusal, a full disk: say so, keep the text
            self.report(exc, doing)
        return None

    def escape(self) -> None:
        """Esc: stop the reply, else leave editing a message."""
        if self.running is not None:
            self.stop()
        elif self.editing is not None:
            self.cancel_edit()

    def stop(self) -> None:
        """Stop the reply now: no more text is shown or saved; the engine is told at once."""
        if self.running is not None:
            self.stop_button.setEnabled(False)  # once: the reply is told at once
            self.running.stop()

    def _tick(self) -> None:
        if self.running is not None:
            self.running.tick()
            reply = self.running.reply
            if reply is not None and self._shown(self.running) and self._meter_base:
                used, window = self._meter_base
                grown = used + round(
                    (len(reply.text) + len(reply.reasoning)) / CHARACTERS_PER_TOKEN
                )
                self.context_meter.show_usage(grown, window, False)

    def update_context_meter(
        self, stats: dict[str, Any] | None = None, messages: list[st.Message] | None = None
    ) -> None:
        used, window, exact = self.ready(self.session).context_usage(
            self.model_bar.loaded_context, stats, messages
        )
        self.context_meter.show_usage(used, window, exact)

    def _set_busy(self, busy: bool) -> None:
        self.composer_area.set_busy(busy)
        self.model_bar.set_busy(busy)
        self.busy_changed.emit(busy)

    def close_sessions(self) -> None:
        """The window closes: a reply still streaming is kept as stopped."""
        self.closed = True
        self.model_bar.closed = True
        if self.running is not None:
            self.running.abandon()
        self.tools_ui.close()

    # -- what the session says (SessionListener), on the main thread ----------------------
    def conversation_changed(self, session: ChatSession) -> None:
        if not self.closed:
            self.refresh_conversations()

    def _shown(self, session: ChatSession) -> bool:
        return session is self.session and not self.closed

    def reply_started(self, session: ChatSession, reply: Reply) -> None:
        """Before the request leaves: busy, and the reply's place in the transcript (so
        that even an engine that fails at once finds it there)."""
        self.running = session
        self._set_busy(True)
        self._flush_timer.start()
        if not self._shown(session):
            return
        self._update_stage(empty=False)
        # An estimate at once (your message counted), growing with the reply until the
        # engine's own count arrives at its end.
        used, window, _exact = session.context_usage(self.model_bar.loaded_context)
        self._meter_base = (used, window)
        self.context_meter.show_usage(used, window, False)
        if reply.appended and reply.user_message_id is not None:
            self.transcript.append_message(self.store.message(reply.user_message_id))
            self.transcript.begin_reply(reply.model_name)
        else:
            self.show_conversation()

    def reply_text(self, session: ChatSession, reply: Reply, text: str) -> None:
        if self._shown(session):
            self.transcript.append_stream(text)

    def reply_reasoning(self, session: ChatSession, reply: Reply, text: str) -> None:
        if self._shown(session):
            self.transcript.append_reasoning(text)

    def reply_moved_to_reasoning(self, session: ChatSession, reply: Reply) -> None:
        if self._shown(session):
            self.transcript.answer_was_reasoning()

    def reply_stats(self, session: ChatSession, reply: Reply, stats: dict[str, Any]) -> None:
        self.stats_shown.emit(stats_text(stats))

    def engine_progress(self, fraction: float, stage: str) -> None:
        self.model_bar.show_progress(fraction, stage)

    def engine_loaded(self, event: dict[str, Any]) -> None:
        self.model_bar.loaded(event)

    def notice(self, message: str) -> None:
        self.show_error(message)

    def problem(self, exc: BaseException, doing: str) -> None:
        self.report(exc, translated(doing))

    def reply_ended(self, session: ChatSession, reply: Reply) -> None:
        if session is self.running:
            self.running = None
        self._flush_timer.stop()
        if self.closed:
            return
        if self._shown(session):
            try:
                message: st.Message | None = self.store.message(reply.message_id)
            except KeyError:
                message = None
            self.transcript.end_reply(reply.status, reply.stats, reply.error, message)
            if reply.message_id in session.branches():
                self.show_conversation()  # a new version: its ‹ n/m › appears at once
            self.update_context_meter(stats=reply.stats)
        self.model_bar.progress_done()
        if reply.error:
            self.show_error(reply.error)
            if reply.final.get("kind") == protocol.ERR_WORKER_DIED:
                self.model_bar.engine_stopped()
        self._set_busy(False)
        self.reply_finished.emit(
            {**reply.final, "status": reply.status, "message_id": reply.message_id}
        )
        if reply.final.get("kind") == protocol.ERR_NEEDS_REMOTE_CODE:
            from ui.models.remote_code_dialog import offer_remote_code

            offer_remote_code(self, self.core, self.model_bar.model, self.show_error)
