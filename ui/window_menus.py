"""The window's menus (File, View, Chat, Help) and their shortcuts: each item calls the
Chat screen or asks the window by a signal."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar

from ui.chat.chat_screen import ChatScreen

Keys = QKeySequence | QKeySequence.StandardKey | Qt.Key | str


class WindowMenus(QObject):
    """The menus own their actions.  An item of the Chat screen calls the screen's own
    public action; an item of the window is a signal, which the window connects where it
    assembles its parts (the menus never reach into the window)."""

    settings_requested = Signal()
    endpoint_requested = Signal()
    token_requested = Signal(str)  # "hf" or "modelscope"
    api_switched = Signal(bool)  # Serve the API, checked or not
    api_server_requested = Signal()
    loaded_models_requested = Signal()
    about_requested = Signal()
    quit_requested = Signal()
    screen_requested = Signal(int)  # a tab: Chat, Models, System check, Documents

    def __init__(self, bar: QMenuBar, chat: ChatScreen, parent: QObject) -> None:
        super().__init__(parent)
        self._bar, self._chat = bar, chat
        self._build()

    def _build(self) -> None:
        chat = self._chat

        def action(menu: QMenu, text: str, keys: Keys | None, slot: Any) -> QAction:
            item = QAction(text, self.parent())
            if keys is not None:
                item.setShortcut(QKeySequence(keys))
            item.triggered.connect(slot)
            menu.addAction(item)
            return item

        standard = QKeySequence.StandardKey
        file_menu = self._bar.addMenu(self.tr("&File"))
        action(file_menu, self.tr("&New chat"), standard.New, chat.new_chat)
        action(
            file_menu, self.tr("&Open model file…"), standard.Open, chat.model_bar.open_model_file
        )
        file_menu.addSeparator()
        action(
            file_menu,
            self.tr("&Export conversation…"),
            "Ctrl+E",
            lambda: chat.export_conversation(),  # noqa: PLW0108 - not given "checked"
        )
        action(
            file_menu,
            self.tr("&Import conversation…"),
            None,
            lambda: chat.import_conversation(),  # noqa: PLW0108 - not given "checked"
        )
        file_menu.addSeparator()
        action(
            file_menu,
            self.tr("&Settings…"),
            "Ctrl+,",
            self.settings_requested,
        )
        action(file_menu, self.tr("Add server &endpoint…"), None, self.endpoint_requested)
        action(
            file_menu,
            self.tr("Hugging Face &token…"),
            None,
            lambda: self.token_requested.emit("hf"),
        )
        action(
            file_menu,
            self.tr("ModelScope t&oken…"),
            None,
            lambda: self.token_requested.emit("modelscope"),
        )
        file_menu.addSeparator()
        action(file_menu, self.tr("&Quit"), standard.Quit, self.quit_requested)
        view_menu = self._bar.addMenu(self.tr("&View"))
        for index, (text, keys) in enumerate(
            (
                (self.tr("&Chat"), "Ctrl+1"),
                (self.tr("&Models"), "Ctrl+2"),
                (self.tr("&System check"), "Ctrl+3"),
                (self.tr("&Documents"), "Ctrl+4"),
            )
        ):
            action(view_menu, text, keys, lambda _c=False, i=index: self.screen_requested.emit(i))
        chat_menu = self._bar.addMenu(self.tr("&Chat"))
        action(chat_menu, self.tr("&Stop reply"), Qt.Key.Key_Escape, chat.escape)
        action(
            chat_menu,
            self.tr("&Regenerate reply"),
            "Ctrl+R",
            lambda: chat.regenerate(),  # noqa: PLW0108 - not given "checked"
        )
        action(
            chat_menu,
            self.tr("&Continue reply"),
            "Ctrl+Shift+R",
            lambda: chat.continue_reply(),  # noqa: PLW0108 - not given "checked"
        )
        action(
            chat_menu,
            self.tr("&Instructions…"),
            "Ctrl+Shift+S",
            chat.open_conversation_settings,
        )
        action(chat_menu, self.tr("&Focus message box"), "Ctrl+L", chat.composer.setFocus)
        action(chat_menu, self.tr("&Search conversations"), "Ctrl+F", chat.search_panel.focus)
        self.serve_action = action(
            chat_menu,
            "",  # names its address: see serve_text
            None,
            lambda on: self.api_switched.emit(bool(on)),
        )
        self.serve_action.setCheckable(True)
        action(chat_menu, self.tr("API ser&ver…"), None, self.api_server_requested)
        action(chat_menu, self.tr("&Loaded models…"), "Ctrl+Shift+L", self.loaded_models_requested)
        action(chat_menu, self.tr("&Tool servers…"), None, chat.tools_ui.open_servers_dialog)
        help_menu = self._bar.addMenu(self.tr("&Help"))
        action(help_menu, self.tr("&About Hearth"), None, self.about_requested)

    def serve_text(self, host: str, port: int) -> None:
        """Chat › Serve the API names where it listens (Settings › API server)."""
        self.serve_action.setText(self.tr("Serve the &API on {0}:{1}").format(host, port))
