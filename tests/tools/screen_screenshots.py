"""Pictures of the window on a small screen (1024×600): the welcome, Settings, the Models
screen's two views (and an offline search that falls back on the catalogue) and the API
server panel, in the light theme, the dark one and Chinese.  Run under a real X server of
that size:

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
from tests.tools.screenshot import settle
from ui.gui import dispose_window, make_application
from ui.i18n import install_translations
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

        from ui.settings_dialog import SettingsDialog

        def settings() -> None:
            window.open_settings()
            settle(lambda: window.findChild(SettingsDialog) is not None)
            found = window.findChild(SettingsDialog)
            assert found is not None
            found.show_page("chat")

        dialog(settings, "small-settings")
        window.tabs.setCurrentWidget(window.models_page)
        screen = window.models_screen
        screen.show_view("mine")
        grab(folder / f"small-models-mine{suffix}.png")
        screen.show_view("discover")
        screen.query.setText("qwen")
        screen.search()
        settle(lambda: bool(screen.banner.message), 30)
        grab(folder / f"small-models-discover-offline{suffix}.png")
        window.tabs.setCurrentIndex(0)

        from ui.api_server_dialog import ApiServerDialog

        def api_panel() -> None:
            window.show_api_server()
            panel = window.findChild(ApiServerDialog)
            assert panel is not None
            panel.switch.click()
            settle(lambda: window.api.running, 30)

        dialog(api_panel, "small-api-server")
        window.set_api_server(False)
        window.close()
        dispose_window(window)


def main() -> int:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    make_application()
    shoot(folder, "light", "")
    shoot(folder, "dark", "-dark")
    install_translations("zh_CN")
    shoot(folder, "light", "-zh")
    install_translations("en")
    return 0


if __name__ == "__main__":
    sys.exit(main())
