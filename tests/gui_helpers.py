"""Helpers to drive the real window in tests."""

from __future__ import annotations

from collections.abc import Callable

from pytestqt.qtbot import QtBot

from app.core import Core
from ui.gui import make_application
from ui.main_window import MainWindow

LOAD_TIMEOUT_MS = 60_000


def open_window(qtbot: QtBot, core: Core) -> MainWindow:
    make_application()
    window = MainWindow(core)
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.model_loaded, timeout=LOAD_TIMEOUT_MS):
        pass
    return window


def wait_until(qtbot: QtBot, condition: Callable[[], bool], timeout_ms: int = 60_000) -> None:
    qtbot.waitUntil(condition, timeout=timeout_ms)


def shows(window: MainWindow, markdown: str) -> bool:
    """Whether the transcript shows ``markdown`` (as rendered: words, in order)."""
    from ui.transcript import plain_text

    words = " ".join(plain_text(markdown).split())
    return words in " ".join(window.transcript.toPlainText().split())
