"""Hearth's widget style: Qt's Fusion, with borders and focus rings people can see.

Fusion draws the edges of fields, lists, buttons and bars in the window's colour made a
little darker.  On a dark window that is darker still: the fields of the dark theme had
no visible edge and the keyboard's focus was a faint one-pixel line.  This proxy keeps
everything of Fusion and draws over it, in the theme's colours (``EDGES``):

* every field, list, button, combo box, spin box and progress bar gets a one-pixel edge
  at least 3:1 against the window and the field (WCAG's contrast for components);
* the widget with the keyboard's focus gets a two-pixel ring in the accent colour.

Only drawing is overridden (a few calls per painted widget), never sizes, so layouts and
the reading column stay as they were.  ``tests/test_contrast.py`` checks the colours.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QFrame,
    QProxyStyle,
    QStyle,
    QStyleOption,
    QStyleOptionComplex,
    QWidget,
)

from ui.visual import EDGES, RADIUS

_PE = QStyle.PrimitiveElement
_CE = QStyle.ControlElement
_CC = QStyle.ComplexControl
_EDGED_PRIMITIVES = (_PE.PE_PanelButtonCommand, _PE.PE_FrameLineEdit)
_EDGED_CONTROLS = (_CE.CE_ProgressBarGroove,)
_EDGED_COMPLEX = (_CC.CC_ComboBox, _CC.CC_SpinBox)
_FRAMED = (QFrame.Shape.StyledPanel, QFrame.Shape.Panel, QFrame.Shape.Box, QFrame.Shape.WinPanel)


def _ringed_whole(widget: QWidget | None, option: QStyleOption) -> bool:
    """Which framed widgets show the keyboard's focus as a ring round the whole.

    * A box one types in: always (the text cursor's place is too small to find).
    * The conversation and lists or tables: when the focus came by the keyboard (Tab),
      so that Tab's first stop in the conversation, or in an empty list, is never an
      invisible one; a click into them (the reader selecting text) draws none.
    """
    from PySide6.QtWidgets import QAbstractItemView, QPlainTextEdit, QTextEdit

    if isinstance(widget, QPlainTextEdit | QTextEdit) and not widget.isReadOnly():
        return True
    if isinstance(widget, QPlainTextEdit | QTextEdit | QAbstractItemView):
        return bool(option.state & QStyle.StateFlag.State_KeyboardFocusChange)
    return False


def theme_of(option: QStyleOption) -> str:
    base = option.palette.color(option.palette.ColorRole.Base)
    return "dark" if base.lightness() < 128 else "light"


class HearthStyle(QProxyStyle):
    def __init__(self) -> None:
        super().__init__("Fusion")

    def drawPrimitive(
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        if element == _PE.PE_FrameFocusRect:
            _ring(option, painter)  # one clear ring, wherever Fusion would draw its own
            return
        super().drawPrimitive(element, option, painter, widget)
        if element in _EDGED_PRIMITIVES:
            _edge(option, painter)
            if element == _PE.PE_FrameLineEdit and option.state & QStyle.StateFlag.State_HasFocus:
                _ring(option, painter)

    def drawControl(
        self,
        element: QStyle.ControlElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        super().drawControl(element, option, painter, widget)
        if element in _EDGED_CONTROLS:
            _edge(option, painter)
        elif element == _CE.CE_ShapedFrame and getattr(option, "frameShape", None) in _FRAMED:
            _edge(option, painter)  # a text box, a list, a table
            if option.state & QStyle.StateFlag.State_HasFocus and _ringed_whole(widget, option):
                _ring(option, painter)

    def drawComplexControl(
        self,
        control: QStyle.ComplexControl,
        option: QStyleOptionComplex,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        super().drawComplexControl(control, option, painter, widget)
        if control in _EDGED_COMPLEX:
            _edge(option, painter)
            if option.state & QStyle.StateFlag.State_HasFocus:
                _ring(option, painter)


def _edge(option: QStyleOption, painter: QPainter) -> None:
    _outline(option, painter, QColor(EDGES[theme_of(option)][0]), 1.0)


def _ring(option: QStyleOption, painter: QPainter) -> None:
    _outline(option, painter, QColor(EDGES[theme_of(option)][1]), 2.0)


def _outline(option: QStyleOption, painter: QPainter, colour: QColor, width: float) -> None:
    rect = QRectF(option.rect)
    if rect.width() < 4 or rect.height() < 4:
        return
    inset = width / 2
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setPen(QPen(colour, width))
    radius = float(RADIUS["control"])
    painter.drawRoundedRect(rect.adjusted(inset, inset, -inset, -inset), radius, radius)
    painter.restore()
