"""The pictures a worker reads, named by reference to the store that keeps them, and kept
by hash once read.

A request names each picture (``wire.images.file_part``): the file a picture store of this
computer keeps, its SHA-256, kind and size.  The worker reads the file once, checks that
it is the picture the request names (its size, then its hash: a file changed on disk since
it was kept is refused in words, never shown to the model), and keeps the bytes, and the
pixels once decoded, by that hash.  A follow-up turn about the same eight photos then
reads, hashes and decodes nothing again, and the window sent only their names.

A picture sent by value (``{"data": BASE64}``) is decoded from the request and hashed once
per request.  What is kept is bounded (``FILE_BYTES``, ``PIXEL_BYTES``): the least
recently used goes first.  Requests' threads read pictures at once, so each shelf has its
lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from backends.pictures import VisionError, decode
from wire import images
from wire.phrases import Phrase
from wire.platforms import open_own_file

FILE_BYTES = 96 * 1024 * 1024  # picture files kept (a conversation's 16 photos of 6 MB)
PIXEL_BYTES = 256 * 1024 * 1024  # decoded pictures kept (about 20 photos at 2048 px)


@dataclass(frozen=True)
class PictureFile:
    """One picture of a request: its file's bytes and their SHA-256 (its address)."""

    digest: str
    data: bytes


class _Shelf:
    """Values by hash, least recently used first, at most ``limit`` bytes in all."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._kept: OrderedDict[str, tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> Any | None:
        with self._lock:
            found = self._kept.get(key)
            if found is None:
                return None
            self._kept.move_to_end(key)
            return found[0]

    def put(self, key: str, value: Any, size: int) -> None:
        with self._lock:
            if key in self._kept or size > self.limit:
                return
            self._kept[key] = (value, size)
            self._bytes += size
            while self._bytes > self.limit:
                _, (_, gone) = self._kept.popitem(last=False)
                self._bytes -= gone


class PictureFiles:
    """A worker's pictures: read from the store by reference, kept by hash."""

    def __init__(self, file_bytes: int = FILE_BYTES, pixel_bytes: int = PIXEL_BYTES) -> None:
        self._files = _Shelf(file_bytes)
        self._pixels = _Shelf(pixel_bytes)

    def read(self, part: dict[str, Any], number: int) -> PictureFile:
        """Picture ``number`` of a request, from its image part; VisionError in words when
        its file is gone or is no longer the picture the part names."""
        if not images.by_reference(part):
            data = images.part_bytes(part)
            return PictureFile(images.digest(data), data)
        digest = str(part.get("sha256") or "")
        kept = self._files.get(digest)
        if kept is not None:
            return PictureFile(digest, kept)
        data = _read_file(str(part.get("file") or ""), int(part.get("size") or 0), number)
        if images.digest(data) != digest:
            raise _changed(number)
        self._files.put(digest, data, len(data))
        return PictureFile(digest, data)

    def pixels(self, picture: PictureFile, number: int) -> tuple[int, int, bytes]:
        """The picture decoded (``backends.pictures.decode``), once per hash."""
        kept = self._pixels.get(picture.digest)
        if kept is None:
            kept = decode(picture.data, number)
            self._pixels.put(picture.digest, kept, len(kept[2]))
        return kept


def _read_file(path: str, size: int, number: int) -> bytes:
    """The store's file: a regular file of the size its reference says (never through a
    link, never more than a picture may be)."""
    missing = VisionError(
        Phrase(
            "Picture {0} is missing from Hearth's pictures folder, so the model cannot see "
            "it. Attach it anew.",
            number,
        )
    )
    if not path or not 0 < size <= images.MAX_IMAGE_BYTES:
        raise missing
    try:
        with open_own_file(path) as file:
            data = file.read(size + 1)
    except OSError as exc:
        raise missing from exc
    if len(data) != size:
        raise _changed(number)
    return data


def _changed(number: int) -> VisionError:
    return VisionError(
        Phrase(
            "Picture {0} was changed on disk after it was sent; it is not shown to the "
            "model. Attach it anew.",
            number,
        )
    )


PICTURES = PictureFiles()  # the worker's one shelf: every request of every model reads it
