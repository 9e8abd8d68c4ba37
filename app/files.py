"""Small file helpers shared by everything Hearth writes."""

from __future__ import annotations

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
