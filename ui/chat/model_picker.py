"""The model picker's box: closed, it shows the chosen model's name and its state (loaded,
loading), never cut; open, each model with everything the picker says of it.

Why: the whole label (name · size · quantization · how it runs · engine · reads images ·
demo model · loaded) was cut at a laptop's width after "demo mod" or "0.1 GB ·", so the
only sign of a loaded model was the part that disappeared.  Closed, the box now says the
name and the state; where even they do not fit, the middle of the name gives way, never
the state.  The list opens as wide as its longest label.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter, QWidget

# An item's short label (the name and the state), beside its whole label.
SHORT_ROLE = Qt.ItemDataRole.UserRole + 1
SHORT_SEPARATOR = " · "  # between the name and the state


def size_words(size_bytes: int) -> str:
    """A model file's size: in GB, or in MB under a tenth of one (an 8 MB model is not
    "0.0 GB")."""
    if size_bytes < 100_000_000:
        return f"{max(1, round(size_bytes / 1e6))} MB"
    return f"{size_bytes / 1e9:.1f} GB"


class ModelPicker(QComboBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelPicker")
        self.setMinimumContentsLength(20)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)

    def set_short(self, index: int, name: str, state: str) -> None:
        """What the closed box says of item ``index``: ``name`` and ``state`` ("" for
        none), kept apart so that only the name is ever shortened."""
        self.setItemData(index, (name, state), SHORT_ROLE)

    def shown_text(self) -> str:
        """What the closed box shows now, in the width it has."""
        short = self.currentData(SHORT_ROLE)
        if not isinstance(short, tuple):
            return self.currentText()
        name, state = short
        suffix = f"{SHORT_SEPARATOR}{state}" if state else ""
        metrics = self.fontMetrics()
        room = self._text_room() - metrics.horizontalAdvance(suffix)
        return metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, max(room, 0)) + suffix

    def _text_room(self) -> int:
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        field = self.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox,
            option,
            QStyle.SubControl.SC_ComboBoxEditField,
            self,
        )
        return field.width() - 4

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        option.currentText = self.shown_text()
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)

    def showPopup(self) -> None:
        """The list opens as wide as its longest label (the box may be narrower)."""
        view = self.view()
        widest = view.sizeHintForColumn(0) + view.verticalScrollBar().sizeHint().width() + 12
        view.setMinimumWidth(max(widest, self.width()))
        super().showPopup()
