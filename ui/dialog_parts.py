"""Pieces every Hearth dialog ends with."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QWidget

from ui.theme import problem_style


def add_problem_and_buttons(
    dialog: QDialog,
    add: Callable[[QWidget], object],
    restore_defaults: Callable[[], None] | None = None,
) -> QLabel:
    """A hidden line for what went wrong, then OK and Cancel (and Restore Defaults when
    given), each added with ``add`` (a layout's addWidget or a form's addRow).  Returns
    the problem line."""
    problem = QLabel()
    problem.setObjectName("problem")
    problem.setWordWrap(True)
    problem.setStyleSheet(problem_style())
    problem.hide()
    add(problem)
    standard = QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
    if restore_defaults is not None:
        standard |= QDialogButtonBox.StandardButton.RestoreDefaults
    buttons = QDialogButtonBox(standard)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    if restore_defaults is not None:
        restore = buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults)
        restore.clicked.connect(restore_defaults)
    add(buttons)
    return problem


def open_once(parent: QWidget, kind: type[QDialog], make: Callable[[], QDialog]) -> None:
    """Raise the dialog of ``kind`` that is open already, else show a new one (a window
    beside the chat, not modal)."""
    existing = parent.findChild(kind)
    if existing is not None:
        existing.raise_()
        existing.activateWindow()
        return
    dialog = make()
    dialog.finished.connect(dialog.deleteLater)
    dialog.show()
