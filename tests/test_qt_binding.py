"""The Qt binding must not leak or drop references on the calls Hearth makes all the time.

PySide6 6.12.0 decremented ``None``'s reference count on every call of a method that
returns nothing; on Python 3.11 (where None is not immortal) a long chat then aborted the
app with "deallocating None".  This pins that down for any future binding release."""

from __future__ import annotations

import sys

from PySide6.QtGui import QTextCursor, QTextDocument
from PySide6.QtWidgets import QLabel

from ui.gui import make_application


def test_void_calls_keep_none_alive() -> None:
    make_application()
    label = QLabel()
    document = QTextDocument()
    cursor = QTextCursor(document)
    before = sys.getrefcount(None)
    for _ in range(1000):
        label.setText("x")
        cursor.insertText("x")
        cursor.insertBlock()
    assert sys.getrefcount(None) >= before - 10
