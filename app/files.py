"""Small file helpers shared by everything Hearth writes."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO


def write_text_atomically(path: Path, text: str) -> None:
    """Write through a temporary file and rename: a crash or a full disk leaves the old
    file whole, never half of the new one.  Each write has a temporary file of its own,
    so two threads saving at once never rename each other's."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f"{path.name}.", suffix=".tmp")
    tmp = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def safe_file_name(title: str, fallback: str = "conversation") -> str:
    """A file name from a title: no path separators or characters Windows refuses."""
    name = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', " ", title).strip(" .")
    return " ".join(name.split())[:80] or fallback


def open_regular(path: Path) -> BinaryIO:
    """``path`` opened for reading, refused (OSError) unless it is a regular file: a FIFO
    or a device named like a model file would block or never end."""
    if not stat.S_ISREG(path.stat().st_mode):
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return path.open("rb")


def set_database_aside(path: Path, aside: Path) -> None:
    """Move a SQLite database and its WAL and shared-memory files to ``aside`` (+ the same
    suffixes), its log first, so that a new database there never starts from the old log.
    All or nothing: when one cannot move (Windows refuses a file another process holds
    open), what moved is put back and the ``OSError`` is raised."""
    moved: list[str] = []
    try:
        for suffix in ("-wal", "-shm", ""):
            source = Path(f"{path}{suffix}")
            if source.exists():
                os.replace(source, f"{aside}{suffix}")
                moved.append(suffix)
    except OSError:
        for suffix in moved:
            with contextlib.suppress(OSError):
                os.replace(f"{aside}{suffix}", f"{path}{suffix}")
        raise
