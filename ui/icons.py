"""The interface's icons: Lucide's SVG drawings (``resources/icons/lucide``), in the theme's
colours, sharp at every scale.

Each icon is one SVG drawn with ``currentColor``; here it gets a colour and is rendered at
the screen's pixel ratio.  ``icon`` gives a ``QIcon`` for buttons (its normal and disabled
looks from the palette); ``icon_image`` a picture for the conversation (``TranscriptView``
shows the actions under each message with them).  Rendered pictures are kept: a theme
has a few colours and the interface a few dozen icons.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QByteArray, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QImage, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer

from ui.resources import resources_dir

ICON_SIZE = 16  # logical pixels: a button's icon and an action under a message


@cache
def _svg(name: str) -> bytes:
    path = resources_dir() / "icons" / "lucide" / f"{name}.svg"
    return path.read_bytes()


@cache
def icon_image(name: str, colour: str, size: int = ICON_SIZE, scale: float = 1.0) -> QImage:
    """``name`` drawn in ``colour`` at ``size`` logical pixels for a screen of ``scale``."""
    svg = _svg(name).replace(b"currentColor", colour.encode("ascii"))
    pixels = max(round(size * scale), 1)
    image = QImage(pixels, pixels, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    QSvgRenderer(QByteArray(svg)).render(painter, QRectF(0, 0, pixels, pixels))
    painter.end()
    image.setDevicePixelRatio(scale)
    return image


def screen_scale() -> float:
    screen = QGuiApplication.primaryScreen()
    return float(screen.devicePixelRatio()) if screen is not None else 1.0


def icon(name: str, size: int = ICON_SIZE) -> QIcon:
    """A button's icon in the palette's button text colour (greyed when disabled)."""
    palette = QGuiApplication.palette()
    scale = screen_scale()
    made = QIcon()
    for mode, group in (
        (QIcon.Mode.Normal, QPalette.ColorGroup.Active),
        (QIcon.Mode.Disabled, QPalette.ColorGroup.Disabled),
    ):
        colour = palette.color(group, QPalette.ColorRole.ButtonText).name()
        made.addPixmap(QPixmap.fromImage(icon_image(name, colour, size, scale)), mode)
    return made


def icon_size() -> QSize:
    return QSize(ICON_SIZE, ICON_SIZE)


def colour_name(colour: QColor | str) -> str:
    return QColor(colour).name()
