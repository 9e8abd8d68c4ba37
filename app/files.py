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

from wire import platforms

# What a data folder holds is private (the history, passages of private documents, logs
# naming files): its folders are created 0700 and its databases, settings and logs 0600,
# whatever the umask, so another user of the computer can read none of it.  Windows keeps
# files private through the profile's ACLs; there the modes are not used.
PRIVATE_FOLDER_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def private_folder(path: Path, tighten_existing: bool = True) -> Path:
    """``path`` and its missing parents created for this user alone, each of them (``mkdir``
    gives its mode to the last folder only, and the parents would be as open as the umask
    lets them); an existing folder that others could read or enter is made private too (a
    data folder made by an earlier version, or under a lax umask), unless
    ``tighten_existing`` is False."""
    existed = path.is_dir()
    missing = []
    folder = path
    while not os.path.lexists(folder) and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    for each in reversed(missing):
        each.mkdir(exist_ok=True, mode=PRIVATE_FOLDER_MODE)
        _keep_to_owner(each)
    path.mkdir(parents=True, exist_ok=True, mode=PRIVATE_FOLDER_MODE)  # says why it cannot
    if tighten_existing or not existed:
        _keep_to_owner(path)
    return path


def private_file(path: Path) -> Path:
    """``path`` made to exist, readable and writable by this user alone, before SQLite or a
    log opens it (SQLite gives a new WAL and journal the database's mode; ones left by an
    earlier version are made private too).  A file that cannot be opened so is left for
    its opener to report."""
    if platforms.files_have_modes():
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_FILE_MODE))
        except OSError:
            return path  # read-only, another owner's: SQLite or the log says why
        for each in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            if each.exists():
                _keep_to_owner(each)
    return path


def readable_by_others(path: Path) -> bool:
    """Whether other users of this computer may read ``path`` (always False on Windows,
    whose files are kept by ACLs Hearth does not read)."""
    return platforms.files_have_modes() and bool(path.stat().st_mode & 0o044)


def _keep_to_owner(path: Path) -> None:
    if not platforms.files_have_modes():
        return
    with contextlib.suppress(OSError):  # not ours to change (another owner): left as it is
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            os.chmod(path, mode & ~0o077)


def write_text_atomically(path: Path, text: str) -> None:
    """Write through a temporary file and rename: a crash or a full disk leaves the old
    file whole, never half of the new one.  Each write has a temporary file of its own,
    so two threads saving at once never rename each other's."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # mkstemp makes the file 0600: a settings or state file is the user's alone
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


def bytes_under(path: Path) -> int:
    """The bytes a file, or the files under a folder, take (links neither followed nor
    counted; a file that goes while it is counted counts 0): what removing it frees."""
    try:
        if not path.is_dir() or path.is_symlink():
            return path.lstat().st_size if path.is_file() and not path.is_symlink() else 0
    except OSError:
        return 0
    total = 0
    for root, _dirs, names in os.walk(path):
        for name in names:
            with contextlib.suppress(OSError):
                info = os.lstat(os.path.join(root, name))
                if stat.S_ISREG(info.st_mode):
                    total += info.st_size
    return total
