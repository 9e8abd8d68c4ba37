"""The pictures people send in conversations, kept beside the chat history.

Each picture file is kept once, in ``pictures/`` beside the database, named by its SHA-256
(so a picture sent in ten conversations, or again in the same one, is one file), and a
message names its pictures by that hash (``Message.images``: hash, kind, size and the
file's name as the person chose it).  A file no message names any more is removed when a
conversation or message is deleted (``Pictures.sweep``), except one written in the last
minutes, which a message being saved by another Hearth process may be about to name.

A history kept in memory (``hearth chat`` without ``--save``) keeps its pictures in memory.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from app.chat.records import Message
from app.errors import HearthError
from app.files import private_file, private_folder
from wire import images
from wire.phrases import Phrase

log = logging.getLogger(__name__)

FRESH_S = 600.0  # a file this new is never swept: its message may not be saved yet
RECENT_BYTES = 64 * 1024 * 1024  # pictures kept in memory after they are read


class PictureMissing(HearthError):
    """A message names a picture whose file is gone."""


class TextOnly(HearthError):
    """A conversation with pictures, for a model that reads text only."""

    def __init__(self, model: str) -> None:
        super().__init__(
            Phrase(
                "{0} reads text only, so it cannot see the pictures of this conversation. "
                "Choose a model that reads images (the model list says which do), or start "
                "a new conversation without pictures.",
                model,
            )
        )


def check_pictures(
    model: str, reads: bool, sending: bool, branch: list[Message], edited: Message | None
) -> None:
    """A model that reads text only (not ``reads``) is not sent a conversation with
    pictures, sent now or in the branch before the message being edited: TextOnly."""
    if reads:
        return
    ids = [m.id for m in branch]
    before = branch[: ids.index(edited.id)] if edited is not None and edited.id in ids else branch
    if sending or any(m.images for m in before):
        raise TextOnly(model)


def reference(data: bytes, name: str = "") -> dict[str, Any]:
    """What a message keeps of a picture it carries."""
    return {
        "sha256": images.digest(data),
        "kind": images.kind_of(data),
        "size": len(data),
        "name": Path(name).name if name else "",
    }


class Pictures:
    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._memory: dict[str, bytes] = {}
        self._recent: dict[str, bytes] = {}  # by hash, least recently read first

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
        if path.is_file() and path.stat().st_size == len(data):
            os.utime(path)  # fresh again: not swept while its new message is saved
            return ref
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
        """The picture a message names; PictureMissing in words when its file is gone.
        The pictures read last stay in memory (``RECENT_BYTES``): a conversation's next
        turn sends them again without reading and hashing their files once more."""
        digest = str(ref.get("sha256") or "")
        recent = self._recent.pop(digest, None)
        if recent is not None:
            self._recent[digest] = recent  # the most recent now
            return recent
        path = self._path(ref)
        try:
            data = self._memory[digest] if path is None else path.read_bytes()
        except (KeyError, OSError) as exc:
            raise PictureMissing(
                Phrase(
                    "A picture of this conversation ({0}) is missing from Hearth's data "
                    "folder, so it cannot be sent again. Edit the message to attach it anew, "
                    "or start a new conversation.",
                    str(ref.get("name") or digest[:12]),
                )
            ) from exc
        if images.digest(data) != digest:
            raise PictureMissing(
                Phrase(
                    "A picture of this conversation ({0}) was changed on disk; it is not "
                    "sent. Attach it anew.",
                    str(ref.get("name") or digest[:12]),
                )
            )
        self._recent[digest] = data
        while sum(map(len, self._recent.values())) > RECENT_BYTES and len(self._recent) > 1:
            del self._recent[next(iter(self._recent))]  # the least recently read
        return data

    def path(self, ref: dict[str, Any]) -> Path | None:
        """Where the picture's file is (None for one kept in memory or never kept)."""
        path = self._path(ref)
        return path if path is not None and path.is_file() else None

    def sweep(self, used: set[str]) -> int:
        """Remove the files no message names (except fresh ones); how many went."""
        if self.folder is None:
            for digest in set(self._memory) - used:
                del self._memory[digest]
            return 0
        removed = 0
        now = time.time()
        for path in self.folder.glob("*/*"):
            digest = path.name.split(".", 1)[0]
            try:
                if digest in used or now - path.stat().st_mtime < FRESH_S:
                    continue
                path.unlink()
                removed += 1
            except OSError:
                log.warning("could not remove the picture %s", path, exc_info=True)
        return removed
