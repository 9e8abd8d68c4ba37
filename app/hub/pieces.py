"""A file cut into pieces that download at once, and the record that lets every piece
resume after a pause, a kill or a reboot.

The part file is written in place: piece *i* covers bytes ``[i × piece, (i+1) × piece)``
of the file, and the record (``<target>.part.pieces``, JSON beside the part) says how
many bytes of each piece are on disk.  It is saved only after the part file's bytes are
flushed, so a record never claims bytes the disk does not hold; a crash between the two
loses at most what arrived since the last save, fetched again.  The record also keeps
the server's ETag: bytes of another version of the file are never joined to these.

A part file without a record (one an older Hearth wrote, over one connection) is its
own record: its length is the first bytes of the file, in order.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.files import write_text_atomically

MIN_PIECE = 4 * 1024 * 1024
MAX_PIECE = 64 * 1024 * 1024
PIECES_PER_CONNECTION = 4  # the tail: the last pieces end close together
RECORD_SUFFIX = ".pieces"
RECORD_VERSION = 1


def piece_size_for(size: int, connections: int) -> int:
    """Pieces small enough that ``connections`` share the tail of the file, large enough
    that each request's round trip is nothing beside its bytes."""
    wanted = size // max(1, connections * PIECES_PER_CONNECTION)
    return max(MIN_PIECE, min(MAX_PIECE, wanted))


@dataclass
class Pieces:
    """What of the file is on disk, piece by piece."""

    size: int
    piece: int
    done: list[int]  # bytes on disk of each piece, from its start
    etag: str = ""
    single: bool = False  # the server ignores Range: one stream, from the start
    _taken: set[int] = field(default_factory=set)

    @classmethod
    def fresh(cls, size: int, piece: int, etag: str = "", single: bool = False) -> Pieces:
        count = 1 if single or size == 0 else -(-size // piece)
        return cls(size, size if single else piece, [0] * count, etag, single)

    def start(self, index: int) -> int:
        return index * self.piece

    def end(self, index: int) -> int:
        return min(self.size, (index + 1) * self.piece)

    def left(self, index: int) -> int:
        return self.end(index) - self.start(index) - self.done[index]

    @property
    def received(self) -> int:
        return sum(self.done)

    @property
    def complete(self) -> bool:
        return all(self.left(i) == 0 for i in range(len(self.done)))

    @property
    def frontier(self) -> int:
        """How many bytes from the file's start are on disk without a gap."""
        for index, done in enumerate(self.done):
            if self.left(index):
                return self.start(index) + done
        return self.size

    def take(self) -> int | None:
        """The next piece with bytes left that no connection is fetching, else None."""
        for index in range(len(self.done)):
            if index not in self._taken and self.left(index):
                self._taken.add(index)
                return index
        return None

    def give_back(self, index: int) -> None:
        self._taken.discard(index)

    def copy(self) -> Pieces:
        """The same progress, for a save made while the connections go on."""
        return Pieces(self.size, self.piece, list(self.done), self.etag, self.single)

    def as_json(self) -> dict[str, Any]:
        return {
            "version": RECORD_VERSION,
            "size": self.size,
            "piece": self.piece,
            "done": list(self.done),
            "etag": self.etag,
            "single": self.single,
        }


def record_path(part: Path) -> Path:
    return Path(str(part) + RECORD_SUFFIX)


def load(part: Path, size: int, piece: int) -> Pieces | None:
    """The record of ``part``, if it belongs to a file of ``size`` bytes and the part
    holds at least what it claims; a part without a record, as its first bytes (cut in
    pieces of ``piece`` bytes); None when there is nothing to resume (or what is there
    cannot be trusted: start again)."""
    try:
        on_disk = part.stat().st_size
    except OSError:
        return None
    try:
        raw = json.loads(record_path(part).read_text(encoding="utf-8"))
    except FileNotFoundError:
        if 0 < on_disk <= size:  # an older Hearth's part: its bytes, in order
            pieces = Pieces.fresh(size, piece)
            for index in range(len(pieces.done)):
                length = pieces.end(index) - pieces.start(index)
                pieces.done[index] = max(0, min(length, on_disk - pieces.start(index)))
            return pieces
        return None
    except (OSError, ValueError):
        return None
    try:
        pieces = Pieces(
            size=int(raw["size"]),
            piece=int(raw["piece"]),
            done=[int(d) for d in raw["done"]],
            etag=str(raw.get("etag", "")),
            single=bool(raw.get("single", False)),
        )
    except (KeyError, TypeError, ValueError):
        return None
    expected = Pieces.fresh(size, pieces.piece, single=pieces.single)
    if (
        raw.get("version") != RECORD_VERSION
        or pieces.size != size
        or pieces.piece <= 0
        or len(pieces.done) != len(expected.done)
        or any(d < 0 or pieces.left(i) < 0 for i, d in enumerate(pieces.done))
        or any(pieces.start(i) + d > on_disk for i, d in enumerate(pieces.done) if d)
    ):
        return None
    return pieces


def save(part: Path, pieces: Pieces) -> None:
    write_text_atomically(record_path(part), json.dumps(pieces.as_json()))


def forget(part: Path, keep_part: bool = False) -> None:
    """The record gone, and the part with it unless ``keep_part`` (a finished file,
    about to take its name)."""
    for path in (record_path(part),) if keep_part else (part, record_path(part)):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
