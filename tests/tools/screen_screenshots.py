"""Pictures of the window on a small screen (1024×600): the welcome, Settings, the Models
screen's two views (and an offline search that falls back on the catalogue), the API
server panel, a conversation, the composer with tools chosen and a picture attached,
Tool servers… after adding a server, and Settings › Engines during an install of the
PyTorch engine (``engine_screenshots``), in the light theme, the dark one and Chinese.  Run
under a real X server of that size:

    xvfb-run -a -s "-screen 0 1024x600x24" python -m tests.tools.screen_screenshots screenshots/

The whole screen is grabbed, so dialogs show over the window as a person sees them.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QApplication, QDialog

from app.core import open_core
from tests.tools.engine_screenshots import shoot_engines
from tests.tools.screenshot import in_three_looks, settle
from ui.gui import dispose_window
from ui.main_window import MainWindow


def grab(output: Path) -> None:
    settle(lambda: True)
    time.sleep(0.3)  # the X server draws what Qt sent
    settle(lambda: True)
    QApplication.primaryScreen().grabWindow(0).save(str(output))
    print(f"saved {output}")


def close_dialogs() -> None:
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, QDialog) and widget.isVisible():
            widget.reject()
    settle(lambda: True)


def shoot(folder: Path, theme: str, suffix: str) -> None:
    with tempfile.TemporaryDirectory(prefix="hearth-shot-screens-") as data:
        core = open_core(data)
        core.settings.set("appearance.theme", theme)
        core.settings.set("hub.huggingface_endpoint", "http://127.0.0.1:9")  # offline
        core.settings.set("hub.modelscope_endpoint", "http://127.0.0.1:9")
        window = MainWindow(core, load_on_start=False)
        window.show()
        settle(lambda: window.chat.model_bar.model is not None)
        settle(lambda: bool(window.welcome.cards), 30)
        grab(folder / f"small-welcome{suffix}.png")

        def dialog(opener: Callable[[], None], name: str) -> None:
            opener()
            settle(lambda: True)
            grab(folder / f"{name}{suffix}.png")
            close_dialogs()

        from ui.settings.dialog import SettingsDialog

        def settings() -> None:
            window.open_settings()
            settle(lambda: window.findChild(SettingsDialog) is not None)
            found = window.findChild(SettingsDialog)
            assert found is not None
            found.show_page("chat")

        dialog(settings, "small-settings")
        window.tabs.setCurrentWidget(window.models_page)
        screen = window.models_screen
        screen.show_view("discover")
        screen.query.setText("qwen")
        screen.search()
        settle(lambda: bool(screen.banner.message), 30)
        grab(folder / f"small-models-discover-offline{suffix}.png")
        screen.show_view("mine")  # the hub's failure stays with Discover
        grab(folder / f"small-models-mine{suffix}.png")
        window.tabs.setCurrentIndex(0)

        from ui.server.dialog import ApiServerDialog

        def api_panel() -> None:
            window.show_api_server()
            panel = window.findChild(ApiServerDialog)
            assert panel is not None
            panel.switch.click()
            settle(lambda: window.api.running, 30)

        dialog(api_panel, "small-api-server")
        window.set_api_server(False)
        shoot_chat(window, folder, suffix)
        shoot_composer(window, folder, suffix)
        dialog(lambda: open_tool_servers(window), "small-tool-servers")
        shoot_engines(window, folder, suffix, grab)
        window.close()
        dispose_window(window)


REPLY = (
    "A **hearth** is the floor of a fireplace, and by extension the home around it.\n\n"
    "- Stone or brick, to hold the fire\n- The centre of the house in winter\n\n"
    "```python\nprint('warm')\n```\n"
)


def shoot_chat(window: MainWindow, folder: Path, suffix: str) -> None:
    """A short conversation, the pointer resting on a reply's Regenerate icon."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QTextCursor
    from PySide6.QtWidgets import QToolTip

    from app.models.library import ModelEntry
    from ui.chat.action_icons import action_name
    from ui.chat.code_view import OBJECT

    script = window.core.paths.data_dir / "demo.script.txt"
    script.write_text(REPLY, encoding="utf-8")
    entry = ModelEntry("Demo (scripted)", script, "synthetic", 1, "file")
    window.chat.model_bar.models.append(entry)
    window.chat.model_bar.select(entry)
    settle(lambda: window.chat.model_bar.loaded_context is not None, 60)
    window.chat.send("What is a hearth?")
    settle(lambda: not window.chat.busy, 60)
    view = window.chat.transcript
    cursor = view.document().find(OBJECT)
    while not cursor.isNull() and not cursor.charFormat().anchorHref().startswith(
        "hearth:act/regenerate/"
    ):
        cursor = view.document().find(OBJECT, cursor)
    if not cursor.isNull():
        before = QTextCursor(cursor)
        before.setPosition(cursor.selectionStart())
        point = view.cursorRect(before).center() + QPoint(8, 0)
        QToolTip.showText(view.viewport().mapToGlobal(point), action_name("regenerate"))
    grab(folder / f"small-chat-hover{suffix}.png")
    QToolTip.hideText()


def shoot_composer(window: MainWindow, folder: Path, suffix: str) -> None:
    """Tools chosen for a small model: why it may not call one on its own (said once),
    *Use tools* beside the Tools button, a picture in the strip under the box with Send
    still beside it, and the picker's name and state."""
    from app.models.library import ModelEntry
    from app.tools.builtin import SERVER as BUILTIN
    from tests.vision_model import png

    script = window.core.paths.data_dir / "small.script.txt"
    script.write_text("It is a quarter past four.", encoding="utf-8")
    entry = ModelEntry(
        "SmolLM2-135M-Instruct (scripted)", script, "synthetic", 1, "file", parameters=134_515_008
    )
    chat = window.chat
    chat.model_bar.models.append(entry)
    chat.new_chat()
    chat.model_bar.select(entry)
    settle(lambda: chat.model_bar.loaded_context is not None, 60)
    chat.tools_ui._toggle(BUILTIN, True)
    settle(lambda: bool(chat.tools_ui.advice), 30)
    picture = window.core.paths.data_dir / "sunset.png"
    picture.write_bytes(png((230, 120, 40), (320, 200)))
    chat.picture_tray.add_files([picture])
    settle(lambda: len(chat.picture_tray.thumbs) == 1, 30)
    chat.composer.setPlainText("What time is it?")
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    window.activateWindow()  # the keyboard's focus is drawn in the active window only
    settle(window.isActiveWindow, 5)
    chat.tools_ui.choice_box.setFocus()
    QTest.keyClick(chat.tools_ui.choice_box, Qt.Key.Key_Tab)  # on to the picture's ×
    grab(folder / f"small-chat-tools{suffix}.png")
    chat.picture_tray.clear()


def open_tool_servers(window: MainWindow) -> None:
    """Tool servers… right after adding a server: it started, with its tools."""
    import json

    from ui.tools.servers_dialog import ToolServersDialog

    fixture = Path(__file__).parent / "mcp_fixture_server.py"
    notes = window.core.paths.data_dir / "notes"
    notes.mkdir(exist_ok=True)
    window.chat.tools_ui.open_servers_dialog()
    found = window.findChild(ToolServersDialog)
    assert found is not None
    found.paste.setPlainText(
        json.dumps(
            {
                "mcpServers": {
                    "notes": {"command": sys.executable, "args": [str(fixture), str(notes)]}
                }
            }
        )
    )
    found.add_pasted()
    settle(lambda: found.status.get("notes") != found.tr("starting…"), 60)


if __name__ == "__main__":
    sys.exit(in_three_looks(shoot))
