"""The settings dialog: the declared settings (app.settings) on pages, with a search.

A list of sections on the left (General, Chat, Models and downloads, …, Advanced) and the
chosen section's settings on the right, each page scrolling on its own, so the dialog
fits a 1024×600 screen whatever the number of settings.  Each setting shows its name,
its editor and its description; the search box keeps the settings whose name or
description (in the window's language or in English) holds every word typed, and the
sections that have any.  Values are validated by the declaration when the user presses
OK; an invalid value keeps the dialog open with the reason shown and its page opened.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QSize, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.setting_type import Setting
from app.settings import DECLARATIONS, Settings
from app.settings_pages import PAGES, page_of
from ui.dialog_parts import add_problem_and_buttons
from ui.engines.mirrors import offered_mirrors
from ui.screen_fit import fit_to_screen
from ui.settings.editors import (
    editor_for,
    set_value,
    setting_description,
    setting_label,
    value_of,
)
from ui.visual import SPACE, scaled_font
from ui.wheel_guard import guard_fields

PAGE_NAMES: dict[str, object] = {
    "General": QT_TRANSLATE_NOOP("Settings", "General"),
    "Chat": QT_TRANSLATE_NOOP("Settings", "Chat"),
    "Models and downloads": QT_TRANSLATE_NOOP("Settings", "Models and downloads"),
    "Engines": QT_TRANSLATE_NOOP("Settings", "Engines"),
    "Documents": QT_TRANSLATE_NOOP("Settings", "Documents"),
    "Tools": QT_TRANSLATE_NOOP("Settings", "Tools"),
    "API server": QT_TRANSLATE_NOOP("Settings", "API server"),
    "Privacy and updates": QT_TRANSLATE_NOOP("Settings", "Privacy and updates"),
    "Advanced": QT_TRANSLATE_NOOP("Settings", "Advanced"),
}


def page_name(english: str) -> str:
    return QCoreApplication.translate("Settings", str(PAGE_NAMES.get(english, english)))


class SettingRow(QWidget):
    """One setting: its name, its editor and, under them, what it does."""

    def __init__(self, setting: Setting, editor: QWidget) -> None:
        super().__init__()
        self.setting, self.editor = setting, editor
        self.setObjectName(f"row:{setting.key}")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, SPACE["xs"], 0, SPACE["s"])
        layout.setSpacing(SPACE["xs"])
        label = setting_label(setting)
        if isinstance(editor, QCheckBox):
            editor.setText(label)  # the box's own text: clicking the name ticks it
        else:
            name = QLabel(label)
            name.setObjectName("settingName")
            name.setBuddy(editor)
            name.setFont(scaled_font(name.font(), "body", bold=True))
            layout.addWidget(name)
        layout.addWidget(editor)
        about = QLabel(setting_description(setting))
        about.setObjectName("settingDescription")
        about.setWordWrap(True)
        about.setForegroundRole(QPalette.ColorRole.PlaceholderText)  # muted, still 4.5:1
        layout.addWidget(about)
        # What a search looks in: both languages, so an English name finds a translated one.
        self.words = " ".join(
            (label, setting_description(setting), setting.label, setting.description)
        ).casefold()

    def matches(self, words: list[str]) -> bool:
        return all(word in self.words for word in words)


class SettingsPage(QScrollArea):
    """One section's settings, scrolling on its own."""

    def __init__(self, page_id: str, title: str) -> None:
        super().__init__()
        self.page_id, self.title = page_id, title
        self.setObjectName(f"page:{page_id}")
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes to its settings
        body = QWidget()
        self.body = QVBoxLayout(body)
        heading = QLabel(title)
        heading.setObjectName("pageTitle")
        heading.setFont(scaled_font(heading.font(), "title", bold=True))
        self.body.addWidget(heading)
        self.rows: list[SettingRow] = []
        self.extras: list[QWidget] = []  # buttons that open other dialogs
        self._more: QLabel | None = None
        self.setWidget(body)

    def add_row(self, row: SettingRow) -> None:
        # "More" parts the page's advanced settings from its usual ones: a page with
        # only advanced settings (Tools) has nothing to part them from.
        if row.setting.advanced and self.page_id != "advanced" and self._more is None and self.rows:
            self._more = QLabel(QCoreApplication.translate("Settings", "More"))
            self._more.setObjectName("moreHeading")
            font = self._more.font()
            font.setBold(True)
            self._more.setFont(font)
            self.body.addWidget(self._more)
        self.rows.append(row)
        self.body.addWidget(row)

    def add_extra(self, widget: QWidget) -> None:
        self.extras.append(widget)
        self.body.addWidget(widget, 0, Qt.AlignmentFlag.AlignLeft)

    def add_top(self, widget: QWidget) -> None:
        """A part of the page above its settings (the Engines page's list of engines)."""
        self.extras.append(widget)
        self.body.insertWidget(1, widget)  # under the title

    def finish(self) -> None:
        self.body.addStretch(1)

    def filter(self, words: list[str]) -> bool:
        """Show the rows that match (all of them when the section's name does); returns
        whether anything is shown."""
        whole = not words or all(word in self.title.casefold() for word in words)
        shown = False
        for row in self.rows:
            visible = whole or row.matches(words)
            row.setVisible(visible)
            shown = shown or visible
        if self._more is not None:
            self._more.setVisible(any(r.isVisibleTo(self) for r in self.rows if r.setting.advanced))
        for extra in self.extras:
            extra.setVisible(whole or any(w in extra.accessibleName().casefold() for w in words))
            shown = shown or extra.isVisibleTo(self)
        return shown or whole


class SettingsDialog(QDialog):
    def __init__(
        self,
        settings: Settings,
        parent: QWidget | None = None,
        tool_servers: Callable[[], object] | None = None,
        api_server: Callable[[], object] | None = None,
        engines: Callable[[], QWidget] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Settings"))
        self.setObjectName("settingsDialog")
        self.settings = settings
        self.editors: dict[str, QWidget] = {}
        layout = QVBoxLayout(self)
        columns = QHBoxLayout()
        layout.addLayout(columns, 1)
        side = QVBoxLayout()
        columns.addLayout(side)
        self.search = QLineEdit()
        self.search.setObjectName("settingsSearch")
        self.search.setPlaceholderText(self.tr("Search settings"))
        self.search.setAccessibleName(self.tr("Search settings"))
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.filter)
        side.addWidget(self.search)
        self.sections = QListWidget()
        self.sections.setObjectName("settingsSections")
        self.sections.setAccessibleName(self.tr("Settings sections"))
        self.sections.setSpacing(SPACE["xxs"])
        side.addWidget(self.sections, 1)
        self.stack = QStackedWidget()
        columns.addWidget(self.stack, 1)
        self.nothing = QLabel()
        self.nothing.setObjectName("noSettingMatches")
        self.nothing.setWordWrap(True)
        self.nothing.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.pages: dict[str, SettingsPage] = {}
        for page_id, english in PAGES:
            page = SettingsPage(page_id, page_name(english))
            self.pages[page_id] = page
            self.stack.addWidget(page)
            item = QListWidgetItem(page.title)
            item.setData(Qt.ItemDataRole.UserRole, page_id)
            self.sections.addItem(item)
        self.stack.addWidget(self.nothing)
        offered = offered_mirrors()  # well-known mirrors, on a Chinese window
        for setting in DECLARATIONS:
            if setting.internal:
                continue
            editor = editor_for(setting, settings.get(setting.key), offered.get(setting.key, ()))
            self.editors[setting.key] = editor
            self.pages[page_of(setting)].add_row(SettingRow(setting, editor))
        if tool_servers is not None:  # Settings › Tools: the MCP servers, the approvals
            button = self._add_button("tools", self.tr("Tool servers and approvals…"), tool_servers)
            button.setObjectName("toolServersButton")
        if api_server is not None:  # Settings › API server: start it, its key, examples
            self._add_button("server", self.tr("Open the API server panel…"), api_server)
        self.engines_panel: QWidget | None = None
        if engines is not None:  # Settings › Engines: each engine, installed or not
            self.engines_panel = engines()
            self.pages["engines"].add_top(self.engines_panel)
        for page in self.pages.values():
            page.finish()
        width = max(self.sections.sizeHintForColumn(0) + 2 * self.sections.frameWidth() + 12, 160)
        self.sections.setFixedWidth(width)
        self.search.setFixedWidth(width)
        self.sections.currentRowChanged.connect(self._show_row)
        self.sections.setCurrentRow(0)
        self.problem = add_problem_and_buttons(self, layout.addWidget, self.restore_defaults)
        guard_fields(self)  # the wheel scrolls the page; a field changes only once chosen
        self.resize(QSize(760, 600))
        fit_to_screen(self)

    def _add_button(self, page_id: str, text: str, slot: Callable[[], object]) -> QPushButton:
        button = QPushButton(text)
        button.setAccessibleName(text)
        button.clicked.connect(slot)
        self.pages[page_id].add_extra(button)
        return button

    def _show_row(self, row: int) -> None:
        item = self.sections.item(row)
        if item is not None:
            self.stack.setCurrentWidget(self.pages[str(item.data(Qt.ItemDataRole.UserRole))])

    def show_page(self, page_id: str) -> None:
        for row in range(self.sections.count()):
            if self.sections.item(row).data(Qt.ItemDataRole.UserRole) == page_id:
                self.sections.setCurrentRow(row)

    def current_page(self) -> str:
        widget = self.stack.currentWidget()
        return widget.page_id if isinstance(widget, SettingsPage) else ""

    def filter(self, text: str) -> None:
        """Keep the settings and sections that match ``text``."""
        words = text.casefold().split()
        first_shown = -1
        for row in range(self.sections.count()):
            item = self.sections.item(row)
            page = self.pages[str(item.data(Qt.ItemDataRole.UserRole))]
            shown = page.filter(words)
            item.setHidden(not shown)
            if shown and first_shown < 0:
                first_shown = row
        if first_shown < 0:
            self.nothing.setText(self.tr("No setting matches “{0}”.").format(text.strip()))
            self.stack.setCurrentWidget(self.nothing)
            return
        current = self.sections.currentItem()
        if current is None or current.isHidden():
            self.sections.setCurrentRow(first_shown)
        else:
            self._show_row(self.sections.currentRow())

    def restore_defaults(self) -> None:
        for setting in DECLARATIONS:
            editor = self.editors.get(setting.key)
            if editor is not None:
                set_value(editor, setting.default)

    def accept(self) -> None:
        for key, editor in self.editors.items():
            value = value_of(editor)
            if value == self.settings.get(key):
                continue
            try:
                self.settings.set(key, value)
            except (ValueError, OSError) as exc:
                self.problem.setText(self.tr("Not saved: {0}.").format(exc))
                self.problem.show()
                self.search.clear()
                self.show_page(page_of(next(s for s in DECLARATIONS if s.key == key)))
                editor.setFocus()
                return
        super().accept()
