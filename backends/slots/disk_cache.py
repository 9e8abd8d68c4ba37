"""Prompt-cache entries on disk, for one model file, so that a conversation's state
survives more conversations than RAM holds, and a restart.

One file per entry, in a folder named for the model file (its path, size and time of
change): a model replaced in place never finds the old one's states.  A file holds a
header (magic, version, the model's identity, the tokens), the state, and a SHA-256 of
all that; one that is damaged, cut short, from another version or for another model is
ignored and removed, never trusted (``llama_state_seq_set_data`` would read garbage as
keys and values).  Files are written to a temporary name and renamed, and the oldest go
first to stay within the budget; a full disk loses nothing but the cache entry.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import struct
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from backends.slots.prompt_cache import Entry, common_prefix

log = logging.getLogger(__name__)

MAGIC = b"HEARTHKV"
VERSION = 1
HEADER = struct.Struct("<8sI32sI")  # magic, version, model identity, token count
SUFFIX = ".kv"
BUDGET = 4 << 30  # bytes on disk per model


def model_identity(model_path: str) -> bytes:
    """The model file as it is now: a file replaced or changed is another model."""
    info = os.stat(model_path)
    text = f"{os.path.abspath(model_path)}|{info.st_size}|{info.st_mtime_ns}"
    return hashlib.sha256(text.encode()).digest()


class DiskShelf:
    def __init__(self, folder: Path, model_path: str, budget_bytes: int) -> None:
        self.identity = model_identity(model_path)
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
            for path in sorted(self.folder.glob(f"*{SUFFIX}")):
                tokens = self._tokens_of(path)
                if tokens is not None:
                    self._index[tokens] = path
        return self._index

    def _tokens_of(self, path: Path) -> tuple[int, ...] | None:
        try:
            with path.open("rb") as file:
                head = file.read(HEADER.size)
                magic, version, identity, count = HEADER.unpack(head)
                if (magic, version, identity) != (MAGIC, VERSION, self.identity):
                    raise ValueError("another version or another model")
                data = file.read(4 * count)
                if len(data) != 4 * count:
                    raise ValueError("cut short")
                return tuple(struct.unpack(f"<{count}i", data))
        except (OSError, ValueError, struct.error) as exc:
            self._forget(path, exc)
            return None

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
            data = path.read_bytes()
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
        name = hashlib.sha256(body[: HEADER.size + 4 * len(entry.tokens)]).hexdigest()[:32]
        target = self.folder / f"{name}{SUFFIX}"
        temporary: str | None = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
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
        """The oldest files go first, until the rest fit the budget."""
        entries = self._entries()
        by_age: list[tuple[float, int, tuple[int, ...], Path]] = []
        for tokens, path in entries.items():
            try:
                info = path.stat()
            except OSError:
                continue
            by_age.append((info.st_mtime, info.st_size, tokens, path))
        by_age.sort()
        total = sum(size for _, size, _, _ in by_age)
        for _, size, tokens, path in by_age:
            if total <= self.budget:
                break
            entries.pop(tokens, None)
            path.unlink(missing_ok=True)
            total -= size

    def _forget(self, path: Path, why: BaseException) -> None:
        log.warning("ignoring prompt-cache file %s: %s", path.name, why)
        if self._index is not None:
            for tokens in [t for t, p in self._index.items() if p == path]:
                del self._index[tokens]
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
