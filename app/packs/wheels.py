"""A wheel unpacked into an engine's packages folder, as an installer would, and nothing
outside it.

A wheel is a zip: its packages and ``.dist-info`` go to the top of the folder, and what a
``<name>.data/purelib`` or ``platlib`` holds goes there too; its scripts, headers and data
are an installer's business for a whole environment and are left out (an engine needs
none of them).  The wheel's file was verified against the lock's SHA-256 before this
runs; still, an entry that would land outside the folder (an absolute name, ``..``) or a
link is refused, and the folder is the caller's staging folder, thrown away on failure.
"""

from __future__ import annotations

import shutil
import stat
import zipfile
from pathlib import Path, PurePosixPath

from wire.phrases import Phrase

COPY_CHUNK = 1 << 20


class WheelRefused(Exception):
    """A wheel that cannot be unpacked as it is; args[0] is a sentence."""


def unpack(wheel: Path, site: Path) -> int:
    """Unpack ``wheel`` into ``site``; the bytes written.  WheelRefused for a damaged or
    hostile archive, OSError for a full disk."""
    written = 0
    try:
        with zipfile.ZipFile(wheel) as archive:
            for entry in archive.infolist():
                where = _place(entry, wheel.name)
                if where is None:
                    continue
                target = site.joinpath(*where.parts)
                if entry.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(entry) as source, target.open("wb") as out:
                    shutil.copyfileobj(source, out, COPY_CHUNK)
                if entry.external_attr >> 16 & 0o111:
                    target.chmod(target.stat().st_mode | 0o111)  # a helper it runs
                written += entry.file_size
    except (zipfile.BadZipFile, EOFError) as exc:
        raise WheelRefused(Phrase("{0} is damaged ({1}).", wheel.name, exc)) from exc
    return written


def _place(entry: zipfile.ZipInfo, wheel: str) -> PurePosixPath | None:
    """Where an entry goes under the packages folder (None: it is left out)."""
    name = PurePosixPath(entry.filename)
    if name.is_absolute() or ".." in name.parts or "\\" in entry.filename:
        raise WheelRefused(Phrase("{0} holds a file outside its folder.", wheel))
    if stat.S_ISLNK(entry.external_attr >> 16):
        raise WheelRefused(Phrase("{0} holds a link.", wheel))
    first = name.parts[0] if name.parts else ""
    if first.endswith(".data"):
        if len(name.parts) > 2 and name.parts[1] in ("purelib", "platlib"):
            return PurePosixPath(*name.parts[2:])
        return None  # scripts, headers, data: not an engine's
    return name
