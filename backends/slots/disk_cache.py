"""Prompt-cache entries on disk, for one model file, so that a conversation's state
survives more conversations than RAM holds, and a restart.

One file per entry, in a folder named for the model file (its path, size and time of
change): a model replaced in place never finds the old one's states.  A file holds a
header (magic, version, the model's identity, the tokens), the state, and a SHA-256 of
all that; one that is damaged, cut short, from another version or for another model is
ignored and removed, never trusted (``llama_state_seq_set_data`` would read garbage as
keys and values).  Files are written to a temporary name and renamed, and the oldest go
first to keep the whole shelf (every model's folder) within the budget; a full disk loses
nothing but the cache entry.

The shelf's folders are the person's alone (0700), and only what Hearth writes there is
read: a file opens only if it is a regular file itself (never through a link, never a
FIFO that would block the worker at every start), and only under the name Hearth gives
its contents.  Anything else, and a temporary file a killed worker left, is removed.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import struct
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from backends.slots.prompt_cache import Entry, common_prefix
from wire import platforms

log = logging.getLogger(__name__)

MAGIC = b"HEARTHKV"
VERSION = 1
HEADER = struct.Struct("<8sI32sI")  # magic, version, model identity, token count
SUFFIX = ".kv"
_CANONICAL = re.compile(r"[0-9a-f]{32}" + re.escape(SUFFIX))  # as ``_name_for`` names them
BUDGET = 4 << 30  # bytes on disk, every model's entries together
TEMPORARY = ".tmp"
STALE_TEMPORARY_S = 600.0  # a temporary file this old was left by a worker that died


def model_identity(model_path: str) -> bytes:
    """The model file as it is now: a file replaced or changed is another model."""
    info = os.stat(model_path)
    text = f"{os.path.abspath(model_path)}|{info.st_size}|{info.st_mtime_ns}"
    return hashlib.sha256(text.encode()).digest()


class DiskShelf:
    def __init__(self, folder: Path, model_path: str, budget_bytes: int) -> None:
        self.identity = model_identity(model_path)
        self.shelf = folder
        self.folder = folder / self.identity.hex()[:16]
        self.budget = budget_bytes
        self._index: dict[tuple[int, ...], Path] | None = None

    @classmethod
    def for_spec(cls, spec: dict[str, Any]) -> DiskShelf | None:
        """The shelf a load request names (``prompt_cache_dir``), if any."""
        folder = str(spec.get("prompt_cache_dir") or "")
        if not folder:
            return None
        try:
            return cls(Path(folder), str(spec["path"]), BUDGET)
        except OSError:  # the model file cannot be read: the engine says why
            return None

    # -- what is there -----------------------------------------------------------------
    def _entries(self) -> dict[tuple[int, ...], Path]:
        """The files' tokens (headers only), read once."""
        if self._index is None:
            self._index = {}
            for path in sorted(self._listed()):
                if path.name.endswith(TEMPORARY):
                    self._drop_if_stale(path)
                    continue
                tokens = self._tokens_of(path)
                if tokens is not None:
                    self._index[tokens] = path
        return self._index

    def _listed(self) -> list[Path]:
        try:
            with os.scandir(self.folder) as entries:
                return [Path(entry.path) for entry in entries]
        except OSError:  # no folder yet
            return []

    def _tokens_of(self, path: Path) -> tuple[int, ...] | None:
        try:
            if not path.name.endswith(SUFFIX):
                raise ValueError("not a prompt-cache file")
            with platforms.open_own_file(path) as file:
                head = file.read(HEADER.size)
                magic, version, identity, count = HEADER.unpack(head)
                if (magic, version, identity) != (MAGIC, VERSION, self.identity):
                    raise ValueError("another version or another model")
                data = file.read(4 * count)
                if len(data) != 4 * count:
                    raise ValueError("cut short")
            if path.name != _name_for(head + data):
                raise ValueError("not under the name of its contents (a copy, or renamed)")
            return tuple(struct.unpack(f"<{count}i", data))
        except (OSError, ValueError, struct.error) as exc:
            self._forget(path, exc)
            return None

    def _drop_if_stale(self, path: Path) -> None:
        with contextlib.suppress(OSError):
            if time.time() - path.lstat().st_mtime > STALE_TEMPORARY_S:
                path.unlink()

    def best(self, prompt: Sequence[int]) -> tuple[tuple[int, ...] | None, int]:
        """The entry holding the longest start of ``prompt`` (one prompt token left)."""
        found, most = None, 0
        for tokens in self._entries():
            kept = min(common_prefix(tokens, prompt), len(prompt) - 1)
            if kept > most:
                found, most = tokens, kept
        return found, most

    def take(self, tokens: tuple[int, ...]) -> Entry | None:
        """The entry, read and checked whole; None (and the file removed) when it is not
        what it says.  It leaves the shelf: a slot holds it now."""
        path = self._entries().pop(tokens, None)
        if path is None:
            return None
        try:
            with platforms.open_own_file(path) as file:
                data = file.read()
            body, digest = data[:-32], data[-32:]
            if len(data) < HEADER.size + 32 or hashlib.sha256(body).digest() != digest:
                raise ValueError("damaged (its checksum does not match)")
            magic, version, identity, count = HEADER.unpack_from(body)
            if (magic, version, identity) != (MAGIC, VERSION, self.identity):
                raise ValueError("another version or another model")
            start = HEADER.size + 4 * count
            stored = tuple(struct.unpack_from(f"<{count}i", body, HEADER.size))
            (size,) = struct.unpack_from("<Q", body, start)
            state = body[start + 8 :]
            if stored != tokens or size != len(state) or not state:
                raise ValueError("its parts do not agree")
        except (OSError, ValueError, struct.error) as exc:
            self._forget(path, exc)
            return None
        path.unlink(missing_ok=True)
        return Entry(tokens, state)

    # -- keeping -----------------------------------------------------------------------
    def put(self, entry: Entry) -> None:
        """Write ``entry`` (a failure, a full disk say, costs only the entry)."""
        size = HEADER.size + 4 * len(entry.tokens) + 8 + len(entry.state) + 32
        if size > self.budget:
            return
        entries = self._entries()
        body = b"".join(
            (
                HEADER.pack(MAGIC, VERSION, self.identity, len(entry.tokens)),
                struct.pack(f"<{len(entry.tokens)}i", *entry.tokens),
                struct.pack("<Q", len(entry.state)),
                entry.state,
            )
        )
        target = self.folder / _name_for(body[: HEADER.size + 4 * len(entry.tokens)])
        temporary: str | None = None
        try:
            _private_folder(self.folder)
            handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=TEMPORARY)
            with os.fdopen(handle, "wb") as file:
                file.write(body)
                file.write(hashlib.sha256(body).digest())
            os.replace(temporary, target)
        except OSError:
            log.warning("could not keep a prompt-cache entry on disk", exc_info=True)
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)
            return
        entries[entry.tokens] = target
        self._trim()

    def _trim(self) -> None:
        """The oldest files go first, every model's counted, until the rest fit the
        budget."""
        by_age = sorted(_shelf_files(self.shelf))
        total = sum(size for _, size, _ in by_age)
        entries = self._entries()
        for _, size, path in by_age:
            if total <= self.budget:
                break
            for tokens in [t for t, p in entries.items() if p == path]:
                del entries[tokens]
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
            total -= size

    def _forget(self, path: Path, why: BaseException) -> None:
        log.warning("ignoring prompt-cache file %r: %s", path.name, why)
        if self._index is not None:
            for tokens in [t for t, p in self._index.items() if p == path]:
                del self._index[tokens]
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def _shelf_files(shelf: Path) -> list[tuple[float, int, Path]]:
    """(modified, size, path) of each file Hearth wrote on the shelf: in a real folder of
    it (a link is never followed) and named as Hearth names them, nothing else."""
    found: list[tuple[float, int, Path]] = []
    try:
        folders = [e for e in os.scandir(shelf) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return found
    for folder in folders:
        try:
            entries = list(os.scandir(folder.path))
        except OSError:
            continue
        for entry in entries:
            if not _CANONICAL.fullmatch(entry.name) or not entry.is_file(follow_symlinks=False):
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            found.append((info.st_mtime, info.st_size, Path(entry.path)))
    return found


def _name_for(header_and_tokens: bytes) -> str:
    """The name Hearth gives an entry: from its header and tokens (its model and prompt)."""
    return hashlib.sha256(header_and_tokens).hexdigest()[:32] + SUFFIX


def _private_folder(folder: Path) -> None:
    """``folder`` and its missing parents, each for this user alone whatever the umask."""
    missing = []
    while not os.path.lexists(folder) and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    for each in reversed(missing):
        with contextlib.suppress(FileExistsError):
            each.mkdir(mode=0o700)
        os.chmod(each, 0o700)
