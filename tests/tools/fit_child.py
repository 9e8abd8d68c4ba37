"""Open every screen and dialog of the real window on the screen Qt was given, and say
what does not fit: a window larger than the screen, a button outside it.

Run by ``tests/test_screen_fit.py`` in a process of its own, with the offscreen platform
told its screen (``QT_QPA_PLATFORM=offscreen:configfile=...``: its size in logical
pixels and its scale).  Usage: fit_child.py DATA_DIR OUTPUT.json.  The output lists the
places checked and each problem in words.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QPoint, QRect, Qt, QTimer
from PySide6.QtWidgets import QAbstractButton, QApplication, QDialog, QLabel, QWidget

from app.core import open_core
from ui.gui import dispose_window, make_application
from ui.main_window import MainWindow


def settle(condition: Callable[[], bool] = lambda: True, timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        QApplication.processEvents()
        if condition() or time.monotonic() > deadline:
            return
        time.sleep(0.02)


class Checker:
    def __init__(self) -> None:
        screen = QApplication.primaryScreen()
        self.screen = screen.availableGeometry()
        self.scale = screen.devicePixelRatio()
        self.checked: list[str] = []
        self.problems: list[str] = []
        self.unnamed: list[str] = []  # Tab stops a screen reader could not name

    def window(self, place: str, window: QWidget) -> None:
        """``window`` lies whole on the screen, and so does each of its visible buttons."""
        settle()
        self.checked.append(place)
        frame = window.frameGeometry()
        if not self.screen.contains(frame):
            self.problems.append(
                f"{place}: the window ({_size(frame)} at {frame.x()},{frame.y()}) does not "
                f"fit the screen ({_size(self.screen)})"
            )
        self._names(place, window)
        for button in window.findChildren(QAbstractButton):
            if not button.isVisible() or button.visibleRegion().isEmpty():
                continue  # hidden, or scrolled out of its scroll area (reachable by scrolling)
            visible = button.visibleRegion().boundingRect()
            corner = button.mapToGlobal(visible.topLeft())
            shown = QRect(corner, visible.size())
            whole = QRect(button.mapToGlobal(QPoint(0, 0)), button.size())
            name = button.text() or button.accessibleName() or button.objectName()
            if not self.screen.contains(shown):
                self.problems.append(f"{place}: the button {name!r} lies outside the screen")
            elif shown.height() < whole.height() and not _in_scroll_area(button):
                self.problems.append(f"{place}: the button {name!r} is cut off")

    def _names(self, place: str, window: QWidget) -> None:
        """Every control Tab can reach has a name (its own text, or an accessible name)."""
        for widget in window.findChildren(QWidget):
            if not widget.isVisible() or widget.focusPolicy() == Qt.FocusPolicy.NoFocus:
                continue
            if not widget.isEnabled() or widget.focusProxy() is not None:
                continue
            # A button or a label is named by its words; a field's text is what is typed in
            # it, not a name.
            own = widget.text() if isinstance(widget, QAbstractButton | QLabel) else ""
            name = widget.accessibleName() or own
            if not name.strip():
                self.unnamed.append(f"{place}: {type(widget).__name__} {widget.objectName()!r}")

    def dialog(self, place: str, opener: Callable[[], object]) -> None:
        """Open a dialog (modal or not), check it, close it."""
        before = set(_dialogs())
        done: list[bool] = []

        def check() -> None:
            new = [d for d in _dialogs() if d not in before]
            if not new:
                if time.monotonic() < give_up:
                    QTimer.singleShot(50, check)
                    return
                self.problems.append(f"{place}: no dialog opened")
                done.append(True)
                return
            for dialog in new:
                self.window(place, dialog)
                dialog.reject()
            done.append(True)

        give_up = time.monotonic() + 30
        QTimer.singleShot(50, check)
        opener()  # a modal dialog runs its own loop until check() closes it
        settle(lambda: bool(done), 40)


def _dialogs() -> list[QDialog]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog) and w.isVisible()]


def _in_scroll_area(widget: QWidget) -> bool:
    from PySide6.QtWidgets import QAbstractScrollArea

    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea):
            return True
        parent = parent.parentWidget()
    return False


def _size(rect: QRect) -> str:
    return f"{rect.width()}×{rect.height()}"


def run(data_dir: str) -> dict[str, object]:
    make_application()
    core = open_core(data_dir)
    window = MainWindow(core, load_on_start=False)
    window.show()
    bar = window.chat.model_bar
    settle(lambda: bar.model is not None)
    check = Checker()
    facts: dict[str, object] = {
        "screen": [check.screen.width(), check.screen.height()],
        "scale": check.scale,
        "window": [window.width(), window.height()],
        "picker": bar.picker.currentText(),
    }
    send = window.chat.send_button
    if not send.isVisible() or not check.screen.contains(
        QRect(send.mapToGlobal(QPoint(0, 0)), send.size())
    ):
        check.problems.append("chat: Send is not visible on the screen")
    if bar.model is not None and bar.model.name not in bar.picker.currentText():
        check.problems.append("chat: the model picker does not name the model")
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        check.window(f"screen {window.tabs.tabText(index)}", window)
    window.tabs.setCurrentWidget(window.models_page)
    for view in ("mine", "discover"):
        window.models_screen.show_view(view)
        check.window(f"screen Models › {view}", window)
    window.tabs.setCurrentIndex(0)

    def settings_pages() -> None:
        window.open_settings()
        settle()
        from ui.settings.dialog import SettingsDialog

        dialog = window.findChild(SettingsDialog)
        assert dialog is not None
        for page in dialog.pages:
            dialog.show_page(page)
            check.window(f"Settings › {dialog.pages[page].title}", dialog)

    check.dialog("Settings", settings_pages)
    check.dialog("Model settings", bar.open_model_settings)
    check.dialog("Conversation settings", window.chat.open_conversation_settings)
    check.dialog("Add a server", window.add_endpoint)
    check.dialog("Loaded models", window.show_loaded_models)
    check.dialog("Tool servers", window.chat.tools_ui.open_servers_dialog)
    check.dialog("API server", window.show_api_server)
    check.dialog("About", window.show_about)
    window.tabs.setCurrentWidget(window.documents_screen)
    check.dialog("New collection", window.documents_screen.new_collection)
    facts["checked"] = check.checked
    facts["problems"] = check.problems
    facts["unnamed"] = sorted(set(check.unnamed))
    dispose_window(window)
    core.engines.close()
    return facts


if __name__ == "__main__":
    result = run(sys.argv[1])
    Path(sys.argv[2]).write_text(json.dumps(result, ensure_ascii=False, indent=1), "utf-8")
