"""Helpers to drive the real window in tests."""

from __future__ import annotations

from collections.abc import Callable

from pytestqt.qtbot import QtBot

from app.core import Core
from ui.gui import make_application
from ui.main_window import MainWindow

LOAD_TIMEOUT_MS = 300_000


def open_window(qtbot: QtBot, core: Core) -> MainWindow:
    make_application()
    window = MainWindow(core)
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.model_loaded, timeout=LOAD_TIMEOUT_MS):
        pass
    return window


def wait_until(qtbot: QtBot, condition: Callable[[], bool], timeout_ms: int = 300_000) -> None:
    qtbot.waitUntil(condition, timeout=timeout_ms)


def shows(window: MainWindow, markdown: str) -> bool:
    """Whether the transcript shows ``markdown`` (as rendered: words, in order)."""
    from ui.chat.message_html import plain_text

    words = " ".join(plain_text(markdown).split())
    return words in " ".join(window.chat.transcript.toPlainText().split())


MARK = "<<<delta>>>\n"  # where the scripted engine ends a delta


def scripted_window(qtbot: QtBot, core: Core, script: str, name: str = "Scripted") -> MainWindow:
    """The real window and worker, with a scripted engine that replays ``script``
    (see ``backends.synthetic_engine``) in place of a model."""
    from app.models.library import ModelEntry

    path = core.paths.data_dir / f"{name}.script.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script, encoding="utf-8")
    make_application()
    window = MainWindow(core, load_on_start=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.chat.model_bar.model is not None, timeout=LOAD_TIMEOUT_MS)
    entry = ModelEntry(name, path, "synthetic", path.stat().st_size, "file")
    window.chat.model_bar.models.append(entry)
    with qtbot.waitSignal(window.model_loaded, timeout=LOAD_TIMEOUT_MS):
        window.chat.model_bar.select(entry)
    return window


def send_and_wait(qtbot: QtBot, window: MainWindow, text: str) -> dict[str, object]:
    with qtbot.waitSignal(window.reply_finished, timeout=LOAD_TIMEOUT_MS) as finished:
        assert window.chat.send(text)
    result: dict[str, object] = finished.args[0]
    return result


def click_link(window: MainWindow, action: str, message_id: int) -> None:
    """Click a link of the transcript, as a user would (the same signal path)."""
    from PySide6.QtCore import QUrl

    from ui.chat.action_icons import ACTION

    window.chat.transcript.anchorClicked.emit(QUrl(f"{ACTION}{action}/{message_id}"))


def footer_of(block: object) -> bool:
    """Whether a block of the conversation is a reply's footer: its actions (Regenerate…)."""
    from PySide6.QtGui import QTextBlock, QTextCursor

    assert isinstance(block, QTextBlock)
    cursor = QTextCursor(block)
    cursor.select(QTextCursor.SelectionType.BlockUnderCursor)
    return "hearth:act/regenerate/" in cursor.selection().toHtml()
