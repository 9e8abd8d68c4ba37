"""Where Hearth keeps its state.

Everything Hearth writes lives under one data directory: the chat database, settings,
logs and downloaded models.  ``--data-dir`` or ``HEARTH_DATA_DIR`` moves all of it, which
is how tests and scripts stay away from a real profile.  Without either, the platform's
conventional place is used (platformdirs).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from app.files import private_folder

APP_NAME = "Hearth"
DATA_DIR_ENV = "HEARTH_DATA_DIR"


def resources_dir() -> Path:
    """Hearth's bundled resources (icons, translations, the model catalogue), in a source
    tree or a frozen bundle."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def resolve_data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """``--data-dir`` wins, then ``HEARTH_DATA_DIR``, then the platform default."""
    if explicit:
        return Path(explicit).expanduser().resolve()
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        return Path(env).expanduser().resolve()
    return default_data_dir()


@dataclass(frozen=True)
class Paths:
    data_dir: Path

    @property
    def database(self) -> Path:
        return self.data_dir / "chats.sqlite3"

    @property
    def settings_file(self) -> Path:
        return self.data_dir / "settings.json"

    @property
    def logs_dir(self) -> Path:
        return self.data_dir / "logs"

    @property
    def prompt_cache_dir(self) -> Path:
        """Models' prompt-cache entries (KV states of conversations), when kept on disk."""
        return self.data_dir / "prompt-cache"

    @property
    def default_models_dir(self) -> Path:
        return self.data_dir / "models"

    def ensure(self) -> Paths:
        """Create the folders; raises OSError with the path when that is impossible."""
        for folder in (self.data_dir, self.logs_dir):
            private_folder(folder)
        return self
