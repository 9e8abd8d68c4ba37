"""Number and choice fields that take the mouse wheel only once they have the focus.

Why: Qt's spin boxes and combo boxes change their value under the wheel even when the
pointer merely passes over them, so scrolling a long page of settings with the wheel
silently changed whichever field came under the pointer (Min-p became Off, and OK saved
it).  A guarded field gets the focus by a click or Tab only (``Qt.StrongFocus``), and
while it has no focus a wheel turn over it scrolls the page that holds it instead.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractScrollArea, QAbstractSpinBox, QComboBox, QWidget


class WheelGuard(QObject):
    """The event filter of the guarded fields (one per application)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.Wheel or not isinstance(watched, QWidget):
            return False
        if watched.hasFocus() or not isinstance(event, QWheelEvent):
            return False  # the field the person is in: the wheel steps its value
        page = _scrolling_parent(watched)
        if page is not None:  # the page scrolls, as if the field were not there
            QCoreApplication.sendEvent(page.viewport(), event.clone())
            event.accept()
        else:
            event.ignore()  # Qt hands it on to the field's parents
        return True


_GUARD: list[WheelGuard] = []


def guard_fields(root: QWidget) -> None:
    """Guard every spin box and combo box under ``root`` (and ``root`` itself): called once
    by each dialog that shows such fields, after it built them."""
    if not _GUARD:
        _GUARD.append(WheelGuard(QCoreApplication.instance()))
    guard = _GUARD[0]
    fields: list[QWidget] = [*root.findChildren(QAbstractSpinBox), *root.findChildren(QComboBox)]
    if isinstance(root, QAbstractSpinBox | QComboBox):
        fields.append(root)
    for field in fields:
        field.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        field.removeEventFilter(guard)  # guarded twice is still guarded once
        field.installEventFilter(guard)


def _scrolling_parent(widget: QWidget) -> QAbstractScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea):
            return parent
        parent = parent.parentWidget()
    return None
