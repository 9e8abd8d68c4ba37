"""Finding Hearth's bundled resources (icons), in a source tree or a frozen bundle."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def app_icon_path() -> Path | None:
    path = resources_dir() / "icons" / "hearth.svg"
    return path if path.is_file() else None
