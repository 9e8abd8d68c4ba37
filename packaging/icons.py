"""Build every platform's icon from the one drawing, ``resources/icons/hearth.svg``.

    python packaging/icons.py [OUT]        (default OUT: build/icons; ``make icons``)

Each size is drawn by Qt's own SVG renderer (the renderer the window uses for the same
file), so a 16-pixel icon is a sharp drawing at 16 pixels, not a shrunken 256-pixel one.
Pillow then packs the drawings:

* ``OUT/hearth.ico``: Windows (the program, its installer and its shortcuts), 16–256;
* ``OUT/hearth.icns``: macOS (``Hearth.app``), 16–1024 including the @2x entries;
* ``OUT/hicolor/NxN/apps/hearth.png``: the Linux desktop's icon theme, beside the SVG.

Runs with no display (Qt's offscreen platform) on Linux, Windows and macOS alike.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SVG = ROOT / "resources" / "icons" / "hearth.svg"

ICO_SIZES = (16, 20, 24, 32, 40, 48, 64, 96, 128, 256)
ICNS_SIZES = (16, 32, 64, 128, 256, 512, 1024)
# The PNG entries of an .icns file: its type code and the pixel size it holds.  The @2x
# entries (for Retina screens) hold the same drawings as the next size up.
ICNS_ENTRIES = (
    (b"icp4", 16),
    (b"icp5", 32),
    (b"icp6", 64),
    (b"ic07", 128),
    (b"ic08", 256),
    (b"ic09", 512),
    (b"ic10", 1024),  # 512@2x
    (b"ic11", 32),  # 16@2x
    (b"ic12", 64),  # 32@2x
    (b"ic13", 256),  # 128@2x
    (b"ic14", 512),  # 256@2x
)
HICOLOR_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)


def render_png(svg: Path, size: int) -> bytes:
    """``svg`` drawn at ``size``×``size`` pixels on a transparent background, as PNG."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg} is not an SVG drawing Qt can render")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # the stubs want bytes
    buffer.close()
    return bytes(data.data())


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """An .icns file of every entry in ``ICNS_ENTRIES``.  (Pillow writes one too, but
    without the 16 and 32 pixel entries at 1x, which Finder's list view uses.)"""
    body = b"".join(
        kind + (8 + len(pngs[size])).to_bytes(4, "big") + pngs[size] for kind, size in ICNS_ENTRIES
    )
    return b"icns" + (8 + len(body)).to_bytes(4, "big") + body


def _png(image: Any) -> bytes:
    data = io.BytesIO()
    image.save(data, format="PNG")
    return data.getvalue()


def build(out: Path, svg: Path = SVG) -> list[Path]:
    """Write the .ico, the .icns and the hicolor PNGs into ``out``; return their paths."""
    from PIL import Image
    from PySide6.QtGui import QGuiApplication

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    _app = QGuiApplication.instance() or QGuiApplication([])  # painting needs one
    sizes = sorted(set(ICO_SIZES) | set(ICNS_SIZES) | set(HICOLOR_SIZES))
    drawings = {size: Image.open(io.BytesIO(render_png(svg, size))) for size in sizes}
    for drawing in drawings.values():
        drawing.load()
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    ico = out / "hearth.ico"
    largest = drawings[max(ICO_SIZES)]
    largest.save(
        ico,
        format="ICO",
        sizes=[(size, size) for size in ICO_SIZES],
        append_images=[drawings[size] for size in ICO_SIZES if size != max(ICO_SIZES)],
    )
    written.append(ico)

    icns = out / "hearth.icns"
    icns.write_bytes(icns_bytes({size: _png(drawings[size]) for size in ICNS_SIZES}))
    written.append(icns)

    for size in HICOLOR_SIZES:
        png = out / "hicolor" / f"{size}x{size}" / "apps" / "hearth.png"
        png.parent.mkdir(parents=True, exist_ok=True)
        drawings[size].save(png, format="PNG")
        written.append(png)
    return written


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else ROOT / "build" / "icons"
    for path in build(out):
        print(path.relative_to(out.parent) if path.is_relative_to(out.parent) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
