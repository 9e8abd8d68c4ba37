"""Small file helpers shared by everything Hearth writes."""

from __future__ import annotations

import os
import re
from pathlib import Path


def write_text_atomically(path: Path, text: str) -> None:
    """Write through a temporary file and rename: a crash or a full disk leaves the old
    file whole, never half of the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def safe_file_name(title: str, fallback: str = "conversation") -> str:
    """A file name from a title: no path separators or characters Windows refuses."""
    name = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', " ", title).strip(" .")
    return " ".join(name.split())[:80] or fallback
