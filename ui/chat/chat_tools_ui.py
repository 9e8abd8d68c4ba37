"""Tools in the window: the Tools button beside Collections, the approval dialog, and the
tool blocks while a reply runs.

The Tools menu ticks, for the open conversation, which tool servers its replies may use
(``hearth`` is Hearth's own: date and time, and a search of the conversation's
collections); the choice is kept with the conversation.  Ticking a server starts it and
lists its tools in the background, so a message is sent with them ready; a server that
cannot start says why under the model bar.  The window's servers run until it closes.
Every call asks first (``ToolApprovalDialog``) unless its tool is always allowed
(``tools.json``, taken back in Tool servers…).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QComboBox, QMenu, QToolButton, QWidget

from app.chat.listener import SessionListener
from app.chat.reply import Reply
from app.chat.session import ChatSession
from app.chat.tool_advice import (
    ALWAYS,
    AUTO,
    CHOICE_KEY,
    NEVER,
    choice_of,
    template_of,
    tool_advice,
)
from app.chat.tool_turn import ChatTools
from app.core import Core
from app.docs.library import Documents
from app.tools.approval import Decision, PendingCall
from app.tools.builtin import SERVER as BUILTIN
from app.tools.builtin import BuiltinTools
from app.tools.config import ToolsFile
from app.tools.servers import ToolInfo, ToolServerError, ToolServers
from ui.background import run_in_background
from ui.chat.documents_bar import DocumentsBar
from ui.chat.model_bar import ModelBar
from ui.chat.tool_approval import ToolApprovalDialog
from ui.i18n import translated
from ui.wheel_guard import guard_fields
from wire.phrases import message_of
from wire.visible_text import visible

TOOLS_KEY = "tools.servers"  # the servers a conversation's replies may use (names)
OFF_KEY = "tools.off"  # tools of those servers it may not use (server/tool)
LIST_TIMEOUT_S = 60.0


class ChatToolsUi(QObject, SessionListener):
    """Given the parts it reads (the core, the documents its own tools search, the model
    picker), the bar it adds its controls to, the session shown now (``current``: the
    choice is the open conversation's) and whether a reply runs (``busy``); it says what
    happens by signals, which the Chat screen connects where it assembles its parts."""

    note = Signal(str)  # why the model may not call a tool on its own: said calmly, once
    server_problem = Signal(str)  # a tool server did not start: why, in its own words
    failed = Signal(object, str)  # a fault and what was being done: reported
    redraw_requested = Signal()  # a call of the conversation shown began, ran or ended

    def __init__(
        self,
        core: Core,
        documents: Documents,
        model_bar: ModelBar,
        bar: DocumentsBar,
        current: Callable[[], ChatSession],
        busy: Callable[[], bool],
        dialogs_parent: QWidget,
    ) -> None:
        super().__init__(bar)
        self.core, self.documents, self.model_bar = core, documents, model_bar
        self._current, self._busy_now, self._dialogs_parent = current, busy, dialogs_parent
        self.file = ToolsFile(core.paths.data_dir)
        self.servers: ToolServers | None = None
        self.listed: dict[str, list[ToolInfo]] = {}  # tools of each server started
        self.listing: set[str] = set()
        self.dialog: ToolApprovalDialog | None = None
        self.restart_due = False  # the configuration changed while a reply ran
        self.button = QToolButton()
        self.button.setObjectName("toolsButton")
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.button.setAccessibleName(self.tr("Tools this chat may use"))
        self.button.setToolTip(self.tr("Let the model call tools (it asks you before each call)"))
        self.menu = QMenu(self.button)
        self.menu.aboutToShow.connect(self._fill_menu)
        self.button.setMenu(self.menu)
        # Beside it, once tools are chosen: may the model decide, must it call, or never.
        self.choice_box = QComboBox()
        self.choice_box.setObjectName("toolChoice")
        self.choice_box.setAccessibleName(self.tr("Use tools"))
        for value, words in (
            (AUTO, self.tr("Use tools: automatically")),
            (ALWAYS, self.tr("Use tools: always")),
            (NEVER, self.tr("Use tools: never")),
        ):
            self.choice_box.addItem(words, value)
        self.choice_box.activated.connect(self._choose)
        guard_fields(self.choice_box)
        bar.add_controls([self.button, self.choice_box])
        self.advice = ""  # why the model may not call a tool on its own ("": no reason known)
        self._advised: set[tuple[str, str]] = set()  # said once per model and sentence
        model_bar.model_chosen.connect(lambda _entry: self._advise())
        self.show_choice()

    # -- the conversation's choice -------------------------------------------------------
    def chosen(self) -> list[str]:
        names = self._current().own_settings.get(TOOLS_KEY, [])
        return [str(n) for n in names] if isinstance(names, list) else []

    def show_choice(self) -> None:
        chosen = self.chosen()
        self.button.setText(
            self.tr("Tools: {0}").format(", ".join(visible(n) for n in chosen))
            if chosen
            else self.tr("Tools")
        )
        choice = choice_of(self._current().own_settings)
        self.choice_box.setCurrentIndex(max(self.choice_box.findData(choice), 0))
        self.choice_box.setVisible(bool(chosen))
        for name in chosen:
            self._list(name)
        self._advise()

    def _choose(self, index: int) -> None:
        value = str(self.choice_box.itemData(index))
        self._save_choice(CHOICE_KEY, "" if value == AUTO else value)
        self._advise()

    def _advise(self) -> None:
        """Whether the model is likely to call a tool as chosen: its template is read in
        the background, and a reason it may not is said once (and kept in the choice's
        tooltip and atop the Tools menu)."""
        model = self.model_bar.model
        choice = choice_of(self._current().own_settings)
        if model is None or not self.chosen() or choice != AUTO:
            self._show_advice("")
            return

        def advise(template: str | None) -> None:
            if self.model_bar.model is model and self.chosen():
                self._show_advice(tool_advice(model, choice_of(self.own()), template))

        run_in_background(self, lambda: template_of(model), advise, lambda _exc: None)

    def own(self) -> dict[str, Any]:
        return self._current().own_settings

    def _show_advice(self, advice: str) -> None:
        self.advice = translated(advice) if advice else ""
        self.choice_box.setToolTip(
            self.advice
            or self.tr(
                "Automatically: the model decides. Always: its first answer is a call of one "
                "of the tools. Never: no tools are offered."
            )
        )
        model = self.model_bar.model
        said = (str(model.path) if model is not None else "", self.advice)
        if self.advice and said not in self._advised:
            self._advised.add(said)
            self.note.emit(self.advice)

    def _fill_menu(self) -> None:
        self.menu.clear()
        chosen = self.chosen()
        if self.advice:
            note = self.menu.addAction(self.advice)
            note.setEnabled(False)
            self.menu.addSeparator()
        own = self.menu.addAction(self.tr("Hearth: date and time, search of the collections"))
        own.setCheckable(True)
        own.setChecked(BUILTIN in chosen)
        own.toggled.connect(lambda on: self._toggle(BUILTIN, on))
        config = self.file.load()
        for server in config.servers:
            action = self.menu.addAction(f"{visible(server.name)} — {visible(server.describe())}")
            action.setCheckable(True)
            action.setChecked(server.name in chosen)
            action.setEnabled(server.enabled)
            action.toggled.connect(lambda on, name=server.name: self._toggle(name, on))
        if not config.servers:
            empty = self.menu.addAction(self.tr("No tool servers yet: add them in Tool servers…"))
            empty.setEnabled(False)
        off = self.turned_off()
        for name in chosen:
            tools = self.listed.get(name, [])
            if not tools:
                continue
            each = self.menu.addMenu(self.tr("Tools of {0}").format(visible(name)))
            for tool in tools:
                action = each.addAction(visible(tool.title or tool.name))
                action.setToolTip(visible(tool.description, multiline=True))
                action.setCheckable(True)
                action.setChecked(tool.key not in off)
                action.toggled.connect(lambda on, key=tool.key: self._toggle_tool(key, on))
        self.menu.addSeparator()
        self.menu.addAction(self.tr("Tool servers…"), self.open_servers_dialog)

    def _toggle(self, name: str, on: bool) -> None:
        chosen = [n for n in self.chosen() if n != name] + ([name] if on else [])
        self._save_choice(TOOLS_KEY, chosen)
        self.show_choice()

    def turned_off(self) -> set[str]:
        off = self._current().own_settings.get(OFF_KEY, [])
        return {str(key) for key in off} if isinstance(off, list) else set()

    def _toggle_tool(self, key: str, on: bool) -> None:
        off = self.turned_off() - {key} if on else self.turned_off() | {key}
        self._save_choice(OFF_KEY, sorted(off))

    def _save_choice(self, setting: str, value: list[str] | str) -> None:
        session = self._current()
        settings = {**session.own_settings, setting: value}
        if not value:
            settings.pop(setting)
        try:
            session.set_instructions(session.system_prompt, settings)
        except Exception as exc:  # noqa: BLE001 - e.g. disk full: say so
            self.failed.emit(exc, self.tr("saving the conversation settings"))

    def open_servers_dialog(self) -> None:
        from ui.tools.servers_dialog import ToolServersDialog

        before = self.file.load().servers
        dialog = ToolServersDialog(self.file, self._dialogs_parent, self.core.paths.logs_dir)
        dialog.finished.connect(lambda _code: self._changed(before))
        dialog.open()

    def _changed(self, before: list[Any]) -> None:
        """After Tool servers…: servers start again only when their configuration changed,
        and never under a reply that runs (then at the next message)."""
        if self.file.load().servers != before:
            self.restart_due = True
        if self.restart_due and not self._busy():
            self.restart()

    def _busy(self) -> bool:
        return self._current().reply is not None or self._busy_now()

    # -- servers ---------------------------------------------------------------------------
    def _servers(self) -> ToolServers:
        if self.servers is None:
            enabled = [s for s in self.file.load().servers if s.enabled]
            self.servers = ToolServers(enabled, self.core.paths.logs_dir)
        return self.servers

    def _list(self, name: str) -> None:
        """Start ``name`` and list its tools in the background (once)."""
        if name == BUILTIN or name in self.listed or name in self.listing:
            return
        servers = self._servers()
        if name not in servers.names():
            return  # removed or turned off since the conversation chose it
        self.listing.add(name)

        def listed(tools: list[ToolInfo]) -> None:
            if self.servers is servers:  # not from servers stopped since
                self.listing.discard(name)
                self.listed[name] = tools

        def failed(exc: BaseException) -> None:
            if self.servers is not servers:
                return
            self.listing.discard(name)
            if isinstance(exc, ToolServerError):  # with the server's own last words
                self.server_problem.emit(visible(translated(message_of(exc)), multiline=True))
            else:
                self.failed.emit(exc, self.tr("starting the tool server {0}").format(name))

        run_in_background(self, lambda: servers.tools(name).result(LIST_TIMEOUT_S), listed, failed)

    def restart(self) -> None:
        """The servers' configuration changed: stop them (in the background) and start
        the chosen ones again."""
        old, self.servers = self.servers, None
        self.restart_due = False
        self.listed.clear()
        self.listing.clear()
        if old is not None:
            run_in_background(self, old.close, lambda _r: None, lambda _e: None)
        self.show_choice()

    def close(self) -> None:
        """The window closes: every server stops (its process group with it)."""
        if self.servers is not None:
            self.servers.close()
            self.servers = None

    def chat_tools(self, session: ChatSession) -> ChatTools | None:
        """What the session's next reply may use: the tools listed so far of the chosen
        servers (None when it chose none)."""
        chosen = self.chosen()
        if not chosen:
            return None
        if self.restart_due and not self._busy():
            self.restart()
        from app.chat.presets import COLLECTIONS_KEY

        collections = session.own_settings.get(COLLECTIONS_KEY, [])
        builtin = BuiltinTools(
            self.documents.search, collections if isinstance(collections, list) else []
        )
        offered = builtin.tools() if BUILTIN in chosen else []
        for name in chosen:
            offered += self.listed.get(name, [])
        off = self.turned_off()
        offered = [tool for tool in offered if tool.key not in off]
        settings = self.core.settings
        return ChatTools(
            offered,
            self._servers(),
            builtin,
            set(self.file.load().always_allow),
            self._remember,
            choice=choice_of(session.own_settings),
            max_calls=int(settings.get("tools.max_calls")),
            timeout_s=float(settings.get("tools.call_timeout_s")),
        )

    def _remember(self, key: str) -> None:
        config = self.file.load()
        config.always_allow.add(key)
        self.file.save(config)

    # -- what the session says about tools (its tool listener) --------------------------
    def tool_round(self, session: ChatSession, reply: Reply) -> None:
        self._redraw(session)

    def tool_result(self, session: ChatSession, reply: Reply, call: dict[str, Any]) -> None:
        if self.dialog is not None and call.get("status") == "stopped":
            self.dialog.reject()  # Stop while it asked: the question goes with the reply
        self._redraw(session)

    def tool_started(self, session: ChatSession, reply: Reply, call: dict[str, Any]) -> None:
        self._redraw(session)

    def _redraw(self, session: ChatSession) -> None:
        if session is self._current():
            self.redraw_requested.emit()

    def tool_approval(self, session: ChatSession, reply: Reply, call: PendingCall) -> None:
        dialog = ToolApprovalDialog(call, self._dialogs_parent)
        self.dialog = dialog

        def decided(value: str) -> None:
            self.dialog = None
            if session.reply is reply and reply.turn is not None and reply.turn.waiting:
                session.answer_tool(Decision(value))

        dialog.decided.connect(decided)
        dialog.open()
