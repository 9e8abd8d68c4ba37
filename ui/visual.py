"""The visual system every screen uses: a type scale, a spacing scale and two radii.

LM Studio's and Jan's look is calm surfaces and clear type; Hearth's screens get theirs
from here rather than from numbers written in each widget: sizes relative to the body
text (so the settings' font size and a screen's scale carry through), margins and gaps
from one short scale, and one radius for controls and one for surfaces (cards, banners,
notes).  Colours are the themes' (``ui/theme.py``).
"""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication

TYPE_SCALE = {"small": 0.85, "body": 1.0, "heading": 1.25, "title": 1.6, "display": 2.2}
SPACE = {"xs": 4, "s": 8, "m": 12, "l": 16, "xl": 24}
RADIUS = {"control": 4, "surface": 8}


def scaled_font(font: QFont, step: str, bold: bool = False) -> QFont:
    """``font`` at the type scale's ``step``, bold where a heading wants it."""
    sized = QFont(font)
    sized.setPointSizeF(font.pointSizeF() * TYPE_SCALE[step])
    sized.setBold(bold)
    return sized


def points(step: str) -> float:
    """The size of ``step`` in points, from the application's font (for style sheets)."""
    base = QApplication.font().pointSizeF()
    return round((base if base > 0 else 10.0) * TYPE_SCALE[step], 1)
