"""Finding Hearth's bundled resources (icons), in a source tree or a frozen bundle."""

from __future__ import annotations

from pathlib import Path

from app.paths import resources_dir

__all__ = ["app_icon_path", "resources_dir"]


def app_icon_path() -> Path | None:
    path = resources_dir() / "icons" / "hearth.svg"
    return path if path.is_file() else None
