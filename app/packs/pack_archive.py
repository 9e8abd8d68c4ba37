"""A pack's archive unpacked into a staging folder, every file checked against the
manifest as it is written: its path, its size and its SHA-256.  Anything else (a file the
manifest does not list, one it lists that is missing, a link, a path out of the folder, a
damaged or truncated archive) refuses the whole pack, and the staging folder is removed:
nothing half-checked is ever left where Hearth would look for a runtime.

The archive is a zip: each member can be read on its own (a file at a time, memory flat),
and a truncated one is refused by its missing central directory."""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import stat
import threading
import zipfile
from pathlib import Path

from app.packs.fetch import CHUNK
from app.packs.pack_manifest import Pack, PackCancelled, PackError
from wire.phrases import Phrase


def unpack_verified(archive: Path, pack: Pack, staging: Path, cancel: threading.Event) -> None:
    """``pack``'s files from ``archive`` into ``staging`` (made anew), each checked."""
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        _unpack(archive, pack, staging, cancel)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _damaged(pack: Pack, detail: str) -> PackError:
    return PackError(
        Phrase("The {0} pack is damaged ({1}); nothing was installed.", pack.name, detail)
    )


def _unpack(archive: Path, pack: Pack, staging: Path, cancel: threading.Event) -> None:
    try:
        opened = zipfile.ZipFile(archive)
    except (OSError, zipfile.BadZipFile) as exc:
        raise _damaged(pack, Phrase("its archive cannot be read: {0}", exc)) from exc
    with opened:
        listed = {file.path for file in pack.files}
        members = {info.filename: info for info in opened.infolist() if not info.is_dir()}
        extra = sorted(set(members) - listed)
        if extra:
            raise _damaged(pack, Phrase("its archive holds {0}, which its list lacks", extra[0]))
        for file in pack.files:
            if cancel.is_set():
                raise PackCancelled(Phrase("The installation of {0} was cancelled.", pack.name))
            info = members.get(file.path)
            if info is None:
                raise _damaged(pack, Phrase("{0} is missing", file.path))
            if stat.S_ISLNK(info.external_attr >> 16):
                raise _damaged(pack, Phrase("{0} is a link", file.path))
            _write_checked(opened, info, staging / file.path, file.size, file.sha256, pack)


def _write_checked(
    opened: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path, size: int, sha: str, pack: Pack
) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    digest, written = hashlib.sha256(), 0
    try:
        with opened.open(info) as source, target.open("xb") as out:
            while block := source.read(CHUNK):
                written += len(block)
                if written > size:  # never more than the list says: no zip bomb
                    break
                digest.update(block)
                out.write(block)
    except (OSError, zipfile.BadZipFile, EOFError) as exc:
        with contextlib.suppress(OSError):
            target.unlink()
        if isinstance(exc, OSError):  # the disk (full, read-only), not the archive
            raise PackError(
                Phrase("{0} could not be written ({1}); nothing was installed.", target, exc)
            ) from exc
        raise _damaged(pack, Phrase("{0} cannot be read: {1}", info.filename, exc)) from exc
    if written != size or digest.hexdigest() != sha:
        raise _damaged(pack, Phrase("{0} is not the file its list names", info.filename))
