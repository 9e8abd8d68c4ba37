"""The window's icons: which control shows which of Lucide's drawings (``ui/icons.py``).

One table, applied when the window is made and again when the theme changes (an icon is
drawn in the theme's text colour).  Each control keeps its words beside the icon: the
icon helps the eye find it, the words say what it does.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QAbstractButton, QLineEdit, QTabWidget, QToolButton

from ui.icons import icon, icon_size

# (path of attributes from the window, icon)
BUTTONS = (
    ("chat.new_button", "plus"),
    ("chat.send_button", "send"),
    ("chat.stop_button", "square"),
    ("chat.documents_bar.attach_button", "paperclip"),
    ("chat.documents_bar.collections_button", "library"),
    ("chat.tools_ui.button", "wrench"),
    ("chat.model_bar.open_button", "folder-open"),
    ("chat.model_bar.settings_button", "sliders-horizontal"),
    ("chat.model_bar.instructions_button", "file-text"),
    ("models_screen.mine_button", "box"),
    ("models_screen.discover_button", "search"),
    ("models_screen.download_button", "download"),
)
SCREENS = ("message-square", "box", "cpu", "files")  # the tabs: Chat, Models, System, Documents
SEARCH_FIELDS = ("chat.search_panel.field",)


def _find(window: Any, path: str) -> Any:
    found = window
    for name in path.split("."):
        found = getattr(found, name, None)
        if found is None:
            return None
    return found


def apply_window_icons(window: Any) -> None:
    """Give the window's controls their icons, in the current theme's colours."""
    for path, name in BUTTONS:
        button = _find(window, path)
        if isinstance(button, QAbstractButton):
            button.setIcon(icon(name))
            button.setIconSize(icon_size())
            if isinstance(button, QToolButton):  # its words stay beside the icon
                button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    tabs = getattr(window, "tabs", None)
    if isinstance(tabs, QTabWidget):
        for index, name in enumerate(SCREENS[: tabs.count()]):
            tabs.setTabIcon(index, icon(name))
    for path in SEARCH_FIELDS:
        field = _find(window, path)
        if isinstance(field, QLineEdit):
            previous = field.property("searchIcon")
            if isinstance(previous, QAction):
                field.removeAction(previous)
            action = field.addAction(icon("search"), QLineEdit.ActionPosition.LeadingPosition)
            field.setProperty("searchIcon", action)
