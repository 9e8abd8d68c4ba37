"""Starting the window: one QApplication, one MainWindow."""

from __future__ import annotations

import logging
import os
import sys

from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QMessageLogContext,
    QtMsgType,
    qInstallMessageHandler,
)
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QWidget

from app import __version__
from app.core import Core
from ui import display_failure
from ui.main_window import MainWindow
from ui.resources import app_icon_path

# ``hearth bench`` measures the cold start: with this set, the window prints the wall time
# of its first paint ("PAINTED <seconds>") and quits.
EXIT_AFTER_PAINT_ENV = "HEARTH_EXIT_AFTER_PAINT"


def make_application(argv: list[str] | None = None) -> QApplication:
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    qInstallMessageHandler(_qt_message)
    app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName("Hearth")
    app.setApplicationDisplayName("Hearth")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("hearth")
    icon = app_icon_path()
    if icon is not None:
        app.setWindowIcon(QIcon(str(icon)))
    return app


def dispose_window(window: QWidget) -> None:
    """Close and destroy a window now, while the QApplication still exists.

    Left to Python's shutdown, Qt objects can be destroyed after the application and
    crash the process on exit.
    """
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QCoreApplication.processEvents()


def _qt_message(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
    """Qt's own warnings go to Hearth's log, not to the user's terminal; but a display
    that cannot open is said on the terminal (``ui/display_failure.py``)."""
    level = {
        QtMsgType.QtDebugMsg: logging.DEBUG,
        QtMsgType.QtInfoMsg: logging.INFO,
        QtMsgType.QtWarningMsg: logging.WARNING,
    }.get(mode, logging.ERROR)
    if "propagateSizeHints" in message:  # the offscreen platform's harmless chatter
        level = logging.DEBUG
    logging.getLogger("qt").log(level, "%s (%s)", message, context.category)
    display_failure.note(message)
    if mode == QtMsgType.QtFatalMsg and display_failure.is_display_failure(message):
        display_failure.give_up(message)  # said on the terminal, then exit (not a bare 134)


def run_gui(core: Core) -> int:
    app = make_application()
    from ui.i18n import install_translations

    install_translations(str(core.settings.get("appearance.language")))
    window = MainWindow(core)
    if os.environ.get(EXIT_AFTER_PAINT_ENV):
        _report_first_paint(window)
    window.show()
    code = app.exec()
    dispose_window(window)
    return code


def _report_first_paint(window: QWidget) -> None:
    """Print the wall time of the window's first paint, then quit (see ``hearth bench``)."""
    import time

    from PySide6.QtCore import QObject, QTimer

    class _FirstPaint(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                watched.removeEventFilter(self)
                print(f"PAINTED {time.time():.6f}", flush=True)
                QTimer.singleShot(0, QApplication.quit)
            return False

    spy = _FirstPaint(window)
    window.installEventFilter(spy)
