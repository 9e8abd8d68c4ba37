"""The pictures people send in conversations, kept beside the chat history, and the
pictures of the API's requests, kept while they are answered: one store of picture files
by hash, for the chat (``app.chat``) and the API (``app.serve``) alike.

Each picture file is kept once, in ``pictures/`` beside the database, named by its SHA-256
(so a picture sent in ten conversations, or again in the same one, is one file), and a
message names its pictures by that hash (``Message.images``: hash, kind, size and the
file's name as the person chose it).  A file no message names any more is removed when a
conversation or message is deleted (``Pictures.sweep``), except one written in the last
minutes, which a message being saved by another Hearth process may be about to name.

Hearth deletes only what it wrote: the sweep walks only a folder Hearth made (it holds
``MARKER``), only its two-hex-digit folders and, in them, only files named by a hash as
Hearth names them, and never follows a link.  A data folder the person chose may already
hold a ``pictures/`` of their own (an album, or ``~/Pictures`` on a system that ignores
case): Hearth then keeps its pictures in ``hearth-pictures/`` instead (``picture_folder``)
and never touches theirs.  The folders are the person's alone (0700), files 0600.

A turn sends its pictures by reference (``Pictures.part``: hash, kind, size and file):
the worker reads the file and keeps it by hash (``backends.picture_files``), so nothing
here reads, hashes or encodes an earlier turn's pictures again.  A picture is checked and
hashed once, when it is kept (``put``, off the window's thread: the tray keeps it as it is
read).  A history kept in memory (``hearth chat`` without ``--save``) keeps its pictures in
memory, and sends them by value.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import stat
import threading
import time
from pathlib import Path
from typing import Any

from app.errors import HearthError
from app.files import private_file, private_folder
from wire import images
from wire.phrases import Phrase

log = logging.getLogger(__name__)

FRESH_S = 600.0  # a file this new is never swept: its message may not be saved yet


class PictureMissing(HearthError):
    """A message names a picture whose file is gone."""


def reference(data: bytes, name: str = "") -> dict[str, Any]:
    """What a message keeps of a picture it carries."""
    return {
        "sha256": images.digest(data),
        "kind": images.kind_of(data),
        "size": len(data),
        "name": Path(name).name if name else "",
    }


def _missing(ref: dict[str, Any]) -> PictureMissing:
    return PictureMissing(
        Phrase(
            "A picture of this conversation ({0}) is missing from Hearth's data folder, so "
            "it cannot be sent again. Edit the message to attach it anew, or start a new "
            "conversation.",
            _shown(ref),
        )
    )


def _changed(ref: dict[str, Any]) -> PictureMissing:
    return PictureMissing(
        Phrase(
            "A picture of this conversation ({0}) was changed on disk; it is not sent. "
            "Attach it anew.",
            _shown(ref),
        )
    )


def _shown(ref: dict[str, Any]) -> str:
    return str(ref.get("name") or str(ref.get("sha256") or "")[:12])


MARKER = ".hearth-pictures"  # in a pictures folder Hearth made (and may sweep)
MARKER_TEXT = "Hearth keeps the pictures of its conversations here; it made this folder.\n"
CANDIDATES = ("pictures", "hearth-pictures", *(f"hearth-pictures-{n}" for n in range(1, 10)))
_SUB = re.compile(r"^[0-9a-f]{2}$")
_KINDS = "|".join(images.READ_KINDS)
_KEPT = re.compile(rf"^([0-9a-f]{{64}})(?:\.(?:{_KINDS}))?$")
_PART = re.compile(r"^[0-9a-f]{64}(?:\.[a-z]+)?\.\d+-\d+\.part$")


def picture_folder(parent: Path) -> Path:
    """Where the pictures of the history in ``parent`` are kept: the first of
    ``CANDIDATES`` that Hearth made (it holds ``MARKER``), else ``pictures/`` as an earlier
    Hearth left it (nothing in it but its hash-named files, which is then marked as
    Hearth's), else the first that does not exist yet.  A folder of the person's is never
    chosen."""
    for name in CANDIDATES:
        if _is_hearths(parent / name):
            return parent / name
    legacy = parent / CANDIDATES[0]
    if _only_hearth_files(legacy):
        _mark(legacy)
        return legacy
    for name in CANDIDATES:
        if not os.path.lexists(parent / name):
            return parent / name
    raise HearthError(  # eleven folders of other programs' pictures: say so, lose nothing
        Phrase("Hearth found no free folder for its pictures in {0}.", str(parent))
    )


def _is_hearths(folder: Path) -> bool:
    """A real folder (no link) with Hearth's marker, a real file, in it."""
    try:
        return stat.S_ISDIR(folder.lstat().st_mode) and stat.S_ISREG(
            (folder / MARKER).lstat().st_mode
        )
    except OSError:
        return False


def _only_hearth_files(folder: Path) -> bool:
    """A real folder holding only two-hex-digit folders of hash-named files (what Hearth
    wrote before it marked its folders); an empty one too."""
    try:
        if not stat.S_ISDIR(folder.lstat().st_mode):
            return False
        with os.scandir(folder) as subs:
            for sub in subs:
                if not (_SUB.match(sub.name) and sub.is_dir(follow_symlinks=False)):
                    return False
                if any(not _own_file(entry, sub.name) for entry in _listed(sub.path)):
                    return False
    except OSError:
        return False
    return True


def _listed(folder: str | Path) -> list[os.DirEntry[str]]:
    with os.scandir(folder) as entries:
        return list(entries)


def _own_file(entry: os.DirEntry[str], sub: str) -> bool:
    """A file as Hearth writes them in its folder ``sub``: a real file (no link) named by
    a hash that starts with ``sub``, or such a file's part file."""
    named = _KEPT.match(entry.name) or _PART.match(entry.name)
    return bool(named) and entry.name[:2] == sub and entry.is_file(follow_symlinks=False)


def _mark(folder: Path) -> None:
    private_folder(folder)
    marker = folder / MARKER
    if not os.path.lexists(marker):
        with open(private_file(marker), "w", encoding="utf-8") as out:
            out.write(MARKER_TEXT)


class Pictures:
    """The picture files of a history (or of the API's requests), each kept once by hash."""

    def __init__(self, folder: Path | None, fresh_s: float | None = None) -> None:
        self.folder = folder
        self.fresh_s = fresh_s  # how new a file is never swept (None: ``FRESH_S``)
        self._memory: dict[str, bytes] = {}

    def _path(self, ref: dict[str, Any]) -> Path | None:
        digest = str(ref.get("sha256") or "")
        if (
            self.folder is None
            or len(digest) != 64
            or not all(c in "0123456789abcdef" for c in digest)
        ):
            return None
        kind = str(ref.get("kind") or "")
        suffix = f".{kind}" if kind in images.READ_KINDS else ""
        return self.folder / digest[:2] / f"{digest}{suffix}"

    def put(self, data: bytes, name: str = "") -> dict[str, Any]:
        """Keep ``data`` (checked: ``images.ImageRefused`` in words for what is no picture
        read) and return its reference; OSError when it cannot be written (a full disk)."""
        images.checked(data, Path(name).name if name else "")
        ref = reference(data, name)
        path = self._path(ref)
        if path is None:
            self._memory[ref["sha256"]] = data
            return ref
        with contextlib.suppress(OSError):
            kept = path.lstat()  # never a link's target: only Hearth's own file is touched
            if stat.S_ISREG(kept.st_mode) and kept.st_size == len(data):
                os.utime(path)  # fresh again: not swept while its new message is saved
                return ref
        assert self.folder is not None
        _mark(self.folder)
        private_folder(path.parent)
        # Its own part file: the same picture may be kept by two threads at once.
        part = path.with_suffix(f"{path.suffix}.{os.getpid()}-{threading.get_ident()}.part")
        try:
            with open(private_file(part), "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(part, path)
        except OSError:
            with contextlib.suppress(OSError):
                part.unlink()
            raise
        return ref

    def read(self, ref: dict[str, Any]) -> bytes:
        """The picture a message names (to export it, or to edit its message);
        PictureMissing in words when its file is gone or changed."""
        digest = str(ref.get("sha256") or "")
        path = self._path(ref)
        try:
            data = self._memory[digest] if path is None else path.read_bytes()
        except (KeyError, OSError) as exc:
            raise _missing(ref) from exc
        if images.digest(data) != digest:
            raise _changed(ref)
        return data

    def part(self, ref: dict[str, Any]) -> dict[str, Any]:
        """The image part a turn sends for the picture a message names: its reference
        and file (``wire.images.file_part``), read by the worker; by value for a picture
        kept in memory.  Only the file's size is looked at here (PictureMissing in words
        when it is gone or another size); the worker checks its hash."""
        digest = str(ref.get("sha256") or "")
        path = self._path(ref)
        if path is None:
            if digest not in self._memory:
                raise _missing(ref)
            return images.image_part(self._memory[digest])
        try:
            kept = path.lstat()
        except OSError as exc:
            raise _missing(ref) from exc
        if not stat.S_ISREG(kept.st_mode) or kept.st_size != int(ref.get("size") or -1):
            raise _changed(ref)
        return images.file_part(ref, str(path))

    def path(self, ref: dict[str, Any]) -> Path | None:
        """Where the picture's file is (None for one kept in memory or never kept)."""
        path = self._path(ref)
        return path if path is not None and path.is_file() else None

    def sweep(self, used: set[str]) -> int:
        """Remove the files no message names (except fresh ones); how many went.  Only in
        a folder Hearth made, only names Hearth writes, and never through a link."""
        if self.folder is None:
            for digest in set(self._memory) - used:
                del self._memory[digest]
            return 0
        if not _is_hearths(self.folder):
            return 0
        removed = 0
        now = time.time()
        fresh_s = FRESH_S if self.fresh_s is None else self.fresh_s
        for path in self._own_files():
            digest = path.name.split(".", 1)[0]
            try:
                if digest in used and not _PART.match(path.name):
                    continue
                if now - path.lstat().st_mtime < fresh_s:
                    continue
                path.unlink()
                removed += 1
            except OSError:
                log.warning("could not remove the picture %s", path, exc_info=True)
        return removed

    def _own_files(self) -> list[Path]:
        """The files of the folder that Hearth wrote: in its two-hex-digit folders, named
        by a hash that starts with that folder's name (part files left by a crash too);
        links and anything else are not Hearth's."""
        assert self.folder is not None
        found: list[Path] = []
        try:
            for sub in _listed(self.folder):
                if _SUB.match(sub.name) and sub.is_dir(follow_symlinks=False):
                    own = [e for e in _listed(sub.path) if _own_file(e, sub.name)]
                    found += [Path(entry.path) for entry in own]
        except OSError:
            log.warning("could not read the pictures folder %s", self.folder, exc_info=True)
        return found
