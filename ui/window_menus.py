"""The window's menus (File, View, Chat, Help) and their shortcuts: each item calls the
window or its Chat screen."""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QTabWidget

from ui.chat.chat_screen import ChatScreen

Keys = QKeySequence | QKeySequence.StandardKey | Qt.Key | str


class Window(Protocol):
    """What the menus call (``ui.main_window.MainWindow``)."""

    chat: ChatScreen
    tabs: QTabWidget

    def menuBar(self) -> QMenuBar: ...
    def close(self) -> bool: ...
    def open_settings(self, page: str = ...) -> None: ...
    def add_endpoint(self) -> None: ...
    def ask_token(self, source: str) -> bool: ...
    def set_api_server(self, on: bool, port: int | None = ...) -> None: ...
    def show_api_server(self) -> None: ...
    def api_address(self) -> tuple[str, int]: ...
    def show_loaded_models(self) -> None: ...
    def show_about(self) -> None: ...


class WindowMenus(QObject):
    def __init__(self, window: Window, parent: QObject) -> None:
        super().__init__(parent)
        self.window = window
        self._build()

    def _build(self) -> None:
        chat = self.window.chat

        def action(menu: QMenu, text: str, keys: Keys | None, slot: Any) -> QAction:
            item = QAction(text, self.parent())
            if keys is not None:
                item.setShortcut(QKeySequence(keys))
            item.triggered.connect(slot)
            menu.addAction(item)
            return item

        standard = QKeySequence.StandardKey
        file_menu = self.window.menuBar().addMenu(self.tr("&File"))
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
            lambda: self.window.open_settings(),  # noqa: PLW0108 - not given "checked"
        )
        action(file_menu, self.tr("Add server &endpoint…"), None, self.window.add_endpoint)
        action(
            file_menu, self.tr("Hugging Face &token…"), None, lambda: self.window.ask_token("hf")
        )
        action(
            file_menu,
            self.tr("ModelScope t&oken…"),
            None,
            lambda: self.window.ask_token("modelscope"),
        )
        file_menu.addSeparator()
        action(file_menu, self.tr("&Quit"), standard.Quit, self.window.close)
        view_menu = self.window.menuBar().addMenu(self.tr("&View"))
        for index, (text, keys) in enumerate(
            (
                (self.tr("&Chat"), "Ctrl+1"),
                (self.tr("&Models"), "Ctrl+2"),
                (self.tr("&System check"), "Ctrl+3"),
                (self.tr("&Documents"), "Ctrl+4"),
            )
        ):
            action(
                view_menu, text, keys, lambda _c=False, i=index: self.window.tabs.setCurrentIndex(i)
            )
        chat_menu = self.window.menuBar().addMenu(self.tr("&Chat"))
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
            lambda on: self.window.set_api_server(bool(on)),
        )
        self.serve_action.setCheckable(True)
        self.serve_text()
        action(chat_menu, self.tr("API ser&ver…"), None, self.window.show_api_server)
        action(
            chat_menu, self.tr("&Loaded models…"), "Ctrl+Shift+L", self.window.show_loaded_models
        )
        action(chat_menu, self.tr("&Tool servers…"), None, chat.tools_ui.open_servers_dialog)
        help_menu = self.window.menuBar().addMenu(self.tr("&Help"))
        action(help_menu, self.tr("&About Hearth"), None, self.window.show_about)

    def serve_text(self) -> None:
        """Chat › Serve the API names where it listens (Settings › API server)."""
        host, port = self.window.api_address()
        self.serve_action.setText(self.tr("Serve the &API on {0}:{1}").format(host, port))
