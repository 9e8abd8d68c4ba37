"""Pictures of tools in the chat: the approval prompt and a finished tool block, in the light
theme, the dark one and Chinese.  Run under a real X server:

    xvfb-run -a -s "-screen 0 1280x900x24" python -m tests.tools.tool_screenshots screenshots/

The whole screen is grabbed, so the approval dialog shows over the window.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QApplication

from app.core import open_core
from app.models.library import ModelEntry
from app.tools.config import ServerConfig, ToolsConfig, ToolsFile
from tests.tools.screenshot import in_three_looks, settle
from ui.chat.action_icons import ACTION
from ui.gui import dispose_window
from ui.main_window import MainWindow

FIXTURE = Path(__file__).parent / "mcp_fixture_server.py"
SCRIPT = (
    "I will save the note for you. "
    '<tool_call>{"name": "write_note", "arguments": {"name": "groceries.txt", '
    '"text": "eggs, flour, milk"}}</tool_call>'
    "<<<round>>>\n"
    "Done: **groceries.txt** now lists eggs, flour and milk."
)


def grab_screen(window: MainWindow, output: Path) -> None:
    """The screen where the window is (a dialog over it included)."""
    frame = window.frameGeometry()
    screen = QApplication.primaryScreen()
    screen.grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height()).save(str(output))
    print(f"saved {output}")


def shoot(folder: Path, theme: str, suffix: str) -> None:
    with tempfile.TemporaryDirectory(prefix="hearth-shot-tools-") as data:
        core = open_core(data)
        core.settings.set("appearance.theme", theme)
        notes = Path(data) / "notes"
        notes.mkdir()
        ToolsFile(core.paths.data_dir).save(
            ToolsConfig(
                [ServerConfig("notes", command=sys.executable, args=(str(FIXTURE), str(notes)))]
            )
        )
        window = MainWindow(core, load_on_start=False)
        window.resize(1100, 720)
        window.move(0, 0)
        window.show()
        settle(lambda: window.chat.model_bar.model is not None)
        script = core.paths.data_dir / "tools-demo.txt"
        script.write_text(SCRIPT, encoding="utf-8")
        entry = ModelEntry("Tools demo (scripted)", script, "synthetic", 1, "file")
        window.chat.model_bar.models.append(entry)
        window.chat.model_bar.select(entry)
        settle(lambda: window.chat.model_bar.loaded_context is not None)
        tools = window.chat.tools_ui
        tools._toggle("notes", True)
        settle(lambda: "notes" in tools.listed)
        window.chat.sampling_overrides = {"tokens_per_s": 200}
        window.chat.send("Save my grocery list: eggs, flour, milk.")
        settle(lambda: tools.dialog is not None)
        grab_screen(window, folder / f"tool-approval{suffix}.png")
        finished: list[bool] = []
        window.reply_finished.connect(lambda _final: finished.append(True))
        assert tools.dialog is not None
        tools.dialog.once.click()
        settle(lambda: bool(finished))
        conversation = window.chat.conversation_id
        assert conversation is not None
        reply = window.store.messages(conversation)[-1]
        window.chat.transcript.anchorClicked.emit(QUrl(f"{ACTION}tools/{reply.id}"))
        settle(lambda: True)
        grab_screen(window, folder / f"tool-block{suffix}.png")
        window.close()
        dispose_window(window)


if __name__ == "__main__":
    sys.exit(in_three_looks(shoot))
