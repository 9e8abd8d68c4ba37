"""The well-known mirrors Settings offers for the PyTorch engine's wheels on a Chinese
window: PyPI and download.pytorch.org are slow or out of reach from many networks in
China, and people there look for Tsinghua's, Aliyun's or SJTU's copies first.  Any other
address can still be typed; every wheel is checked against the lock's SHA-256 wherever it
came from, so a mirror can be wrong, never harmful."""

from __future__ import annotations

from app.packs.wheel_sources import PYPI_MIRRORS, PYTORCH_MIRRORS
from ui.i18n import current_language


def offered_mirrors(language: str | None = None) -> dict[str, tuple[str, ...]]:
    """Setting key → the mirrors to offer for it (none outside Chinese)."""
    if (language or current_language()) != "zh_CN":
        return {}
    return {"engine.pypi_mirror": PYPI_MIRRORS, "engine.pytorch_mirror": PYTORCH_MIRRORS}
