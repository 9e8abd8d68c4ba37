"""The settings dialog's editors, made from the one settings declaration (app.settings).

Each declared setting becomes an editor that matches its type and range, labelled and
explained by the declaration itself, so adding a setting never needs a change here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from app.setting_type import Setting

INT_LIMIT = 2**31 - 1


def setting_label(setting: Setting) -> str:
    return QCoreApplication.translate("Settings", setting.label)


def setting_description(setting: Setting) -> str:
    return QCoreApplication.translate("Settings", setting.description)


def choice_label(choice: object) -> str:
    return QCoreApplication.translate("Settings", str(CHOICE_LABELS.get(str(choice), choice)))


CHOICE_LABELS = {
    "system": QT_TRANSLATE_NOOP("Settings", "Follow the system"),
    "light": QT_TRANSLATE_NOOP("Settings", "Light"),
    "dark": QT_TRANSLATE_NOOP("Settings", "Dark"),
    "en": "English",
    "zh_CN": "简体中文",
}


def editor_for(setting: Setting, value: Any, offered: Sequence[str] = ()) -> QWidget:
    """An editor matching the setting's type and range, labelled for screen readers; a
    text setting with ``offered`` values (well-known mirrors) lets one be picked."""
    editor = SuggestedText(setting, str(value), offered) if offered else _editor(setting, value)
    editor.setObjectName(setting.key)
    editor.setToolTip(setting_description(setting))
    editor.setAccessibleName(setting_label(setting))
    editor.setAccessibleDescription(setting_description(setting))
    if isinstance(editor, FolderEdit):  # the field Tab stops in says the setting too
        editor.line.setAccessibleName(setting_label(setting))
        editor.line.setAccessibleDescription(setting_description(setting))
        editor.browse_button.setAccessibleName(
            QCoreApplication.translate("FolderEdit", "Browse for {0}").format(
                setting_label(setting)
            )
        )
    return editor


def _editor(setting: Setting, value: Any) -> QWidget:
    if setting.choices is not None:
        combo = QComboBox()
        for choice in setting.choices:
            combo.addItem(choice_label(choice), choice)
        combo.setCurrentIndex(max(combo.findData(value), 0))
        return combo
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
        if setting.special:
            spin.setSpecialValueText(QCoreApplication.translate("Settings", setting.special))
        return spin
    if setting.kind is float:
        double = QDoubleSpinBox()
        double.setDecimals(2)
        double.setSingleStep(0.05)
        double.setRange(float(setting.minimum or 0.0), float(setting.maximum or 1e9))
        double.setValue(float(value))
        if setting.special:
            double.setSpecialValueText(QCoreApplication.translate("Settings", setting.special))
        return double
    if setting.multiline:
        text = QPlainTextEdit()
        text.setPlainText(str(value))
        text.setFixedHeight(text.fontMetrics().lineSpacing() * 5)
        return text
    line = QLineEdit(str(value))
    if setting.empty:
        line.setPlaceholderText(QCoreApplication.translate("Settings", setting.empty))
    if setting.folder:
        return FolderEdit(line)
    return line


class SuggestedText(QComboBox):
    """A text setting with well-known values to pick from, or any other typed in."""

    def __init__(self, setting: Setting, value: str, offered: Sequence[str]) -> None:
        super().__init__()
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.addItems(["", *offered])  # the first: none
        line = self.lineEdit()
        if line is not None and setting.empty:
            line.setPlaceholderText(QCoreApplication.translate("Settings", setting.empty))
        self.setEditText(value)


class FolderEdit(QWidget):
    """A folder's path and a Browse button."""

    def __init__(self, line: QLineEdit) -> None:
        super().__init__()
        self.line = line
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.browse_button = QPushButton(self.tr("Browse…"))
        self.browse_button.clicked.connect(self.browse)
        layout.addWidget(line, 1)
        layout.addWidget(self.browse_button)

    def browse(self) -> None:
        chosen = QFileDialog.getExistingDirectory(
            self, self.tr("Choose a folder"), self.line.text()
        )
        if chosen:
            self.line.setText(chosen)


def value_of(editor: QWidget) -> Any:
    if isinstance(editor, SuggestedText):
        return editor.currentText().strip()
    if isinstance(editor, QComboBox):
        return editor.currentData()
    if isinstance(editor, QCheckBox):
        return editor.isChecked()
    if isinstance(editor, QSpinBox | QDoubleSpinBox):
        return editor.value()
    if isinstance(editor, QPlainTextEdit):
        return editor.toPlainText()
    if isinstance(editor, FolderEdit):
        return editor.line.text()
    assert isinstance(editor, QLineEdit)
    return editor.text()


def set_value(editor: QWidget, value: Any) -> None:
    if isinstance(editor, SuggestedText):
        editor.setEditText(str(value))
    elif isinstance(editor, QComboBox):
        editor.setCurrentIndex(max(editor.findData(value), 0))
    elif isinstance(editor, QCheckBox):
        editor.setChecked(bool(value))
    elif isinstance(editor, QSpinBox | QDoubleSpinBox):
        editor.setValue(value)
    elif isinstance(editor, QPlainTextEdit):
        editor.setPlainText(str(value))
    elif isinstance(editor, QLineEdit):
        editor.setText(str(value))
    elif isinstance(editor, FolderEdit):
        editor.line.setText(str(value))
