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
        # An existing folder is made private only when it is Hearth's (empty, or holding
        # its files): a --data-dir that names a shared folder or the home folder is not.
        private_folder(self.data_dir, tighten_existing=_hearths_own(self.data_dir))
        private_folder(self.logs_dir)
        return self


HEARTH_FILES = ("settings.json", "chats.sqlite3", "documents.sqlite3", "logs", "models")


def _hearths_own(folder: Path) -> bool:
    """Whether ``folder`` is missing, empty or holds Hearth's own files."""
    try:
        return not any(folder.iterdir()) or any((folder / n).exists() for n in HEARTH_FILES)
    except OSError:
        return True  # missing (it is about to be made) or unreadable (mkdir will say)
