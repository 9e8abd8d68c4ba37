"""The platform icons are drawn from the one SVG by the build (``make icons``): a Windows
.ico and a macOS .icns that hold every size their systems ask for, each a real drawing."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from PIL import IcnsImagePlugin, IcoImagePlugin, Image

# packaging/ holds build scripts, not a package (and "packaging" is a PyPI name).
_spec = importlib.util.spec_from_file_location(
    "hearth_icons", Path(__file__).parent.parent / "packaging" / "icons.py"
)
assert _spec is not None and _spec.loader is not None
icons = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(icons)


@pytest.fixture(scope="module")
def built(qapp: object, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("icons")
    icons.build(out)
    return out


def _is_the_drawing(image: Image.Image) -> None:
    """Transparent in the corners (the rounded square), opaque in the middle (the flame)."""
    rgba = image.convert("RGBA")
    width, height = rgba.size
    alpha = rgba.getchannel("A")
    assert alpha.getpixel((0, 0)) == 0
    assert alpha.getpixel((width // 2, height // 2)) == 255


def test_the_windows_icon_holds_every_size_from_16_to_256(built: Path) -> None:
    with Image.open(built / "hearth.ico") as opened:
        assert opened.format == "ICO"
    with (built / "hearth.ico").open("rb") as handle:
        ico = IcoImagePlugin.IcoFile(handle)
        sizes = sorted(ico.sizes())
        assert sizes == [(size, size) for size in icons.ICO_SIZES]
        for size in sizes:
            image = ico.getimage(size)
            assert image.size == size
            _is_the_drawing(image)


def test_the_macos_icon_holds_16_to_1024_with_retina_entries(built: Path) -> None:
    with (built / "hearth.icns").open("rb") as handle:
        icns = IcnsImagePlugin.IcnsFile(handle)
        wanted = {(size, size, 1) for size in icons.ICNS_SIZES if size <= 512}
        wanted |= {(size, size, 2) for size in (16, 32, 128, 256, 512)}
        assert wanted <= set(icns.itersizes())
        for width, height, scale in sorted(wanted):
            image = icns.getimage((width, height, scale))
            assert image.size == (width * scale, height * scale)
            _is_the_drawing(image)


def test_the_linux_icon_theme_gains_png_sizes(built: Path) -> None:
    for size in icons.HICOLOR_SIZES:
        with Image.open(built / "hicolor" / f"{size}x{size}" / "apps" / "hearth.png") as png:
            assert png.size == (size, size)
            _is_the_drawing(png)
