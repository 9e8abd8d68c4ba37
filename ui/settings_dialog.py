"""The settings dialog, generated from the one settings declaration (app.settings).

Each declared setting becomes an editor that matches its type and range, labelled and
explained by the declaration itself, so adding a setting never needs a change here.
Values are validated by the declaration when the user presses OK; an invalid value keeps
the dialog open with the reason shown.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.settings import DECLARATIONS, Setting, Settings

INT_LIMIT = 2**31 - 1


def _editor(setting: Setting, value: Any) -> QWidget:
    if setting.kind is bool:
        box = QCheckBox()
        box.setChecked(bool(value))
        return box
    if setting.kind is int:
        spin = QSpinBox()
        spin.setRange(
            int(setting.minimum if setting.minimum is not None else -INT_LIMIT),
            int(min(setting.maximum if setting.maximum is not None else INT_LIMIT, INT_LIMIT)),
        )
        spin.setValue(int(value))
        return spin
    if setting.kind is float:
        double = QDoubleSpinBox()
        double.setDecimals(2)
        double.setSingleStep(0.05)
        double.setRange(float(setting.minimum or 0.0), float(setting.maximum or 1e9))
        double.setValue(float(value))
        return double
    if setting.multiline:
        text = QPlainTextEdit()
        text.setPlainText(str(value))
        text.setFixedHeight(text.fontMetrics().lineSpacing() * 5)
        return text
    line = QLineEdit(str(value))
    return line


def _value(editor: QWidget) -> Any:
    if isinstance(editor, QCheckBox):
        return editor.isChecked()
    if isinstance(editor, QSpinBox | QDoubleSpinBox):
        return editor.value()
    if isinstance(editor, QPlainTextEdit):
        return editor.toPlainText()
    assert isinstance(editor, QLineEdit)
    return editor.text()


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setObjectName("settingsDialog")
        self.settings = settings
        self.editors: dict[str, QWidget] = {}
        layout = QVBoxLayout(self)
        basic = QFormLayout()
        advanced_box = QGroupBox("Advanced")
        advanced = QFormLayout(advanced_box)
        for setting in DECLARATIONS:
            if setting.internal:
                continue
            editor = _editor(setting, settings.get(setting.key))
            editor.setObjectName(setting.key)
            editor.setToolTip(setting.description)
            editor.setAccessibleName(setting.label)
            editor.setAccessibleDescription(setting.description)
            self.editors[setting.key] = editor
            (advanced if setting.advanced else basic).addRow(setting.label, editor)
        layout.addLayout(basic)
        layout.addWidget(advanced_box)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #b91c1c")
        self.problem.hide()
        layout.addWidget(self.problem)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        restore = buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults)
        restore.clicked.connect(self.restore_defaults)
        layout.addWidget(buttons)

    def restore_defaults(self) -> None:
        for setting in DECLARATIONS:
            editor = self.editors.get(setting.key)
            if editor is not None:
                replacement = _editor(setting, setting.default)
                # Copy the default into the existing editor (keeps the layout intact).
                value = _value(replacement)
                replacement.deleteLater()
                if isinstance(editor, QCheckBox):
                    editor.setChecked(bool(value))
                elif isinstance(editor, QSpinBox | QDoubleSpinBox):
                    editor.setValue(value)
                elif isinstance(editor, QPlainTextEdit):
                    editor.setPlainText(str(value))
                elif isinstance(editor, QLineEdit):
                    editor.setText(str(value))

    def accept(self) -> None:
        try:
            for key, editor in self.editors.items():
                value = _value(editor)
                if value != self.settings.get(key):
                    self.settings.set(key, value)
        except (ValueError, OSError) as exc:
            self.problem.setText(f"Not saved: {exc}.")
            self.problem.show()
            return
        super().accept()
