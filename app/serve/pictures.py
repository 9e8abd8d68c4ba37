"""Pictures in the API's requests, as each dialect sends them, made into the wire's image
parts (``wire.images``): OpenAI's ``image_url`` and the Responses API's ``input_image``
with a ``data:`` URL, Ollama's ``images`` (base64), Anthropic's ``image`` blocks with a
``base64`` source.

A picture by address (``http(s)://``, ``file://``, an Anthropic ``url`` source, a
Responses ``file_id``) is refused in words and never fetched: nothing leaves the machine,
and a local path is never read on a client's word.  The bytes are checked here by size and
kind (their first bytes, no pixel read); a worker decodes them.

A request's pictures are then kept once, each by its hash, in a picture store of the API's
own (``RequestPictures``, ``api-pictures/`` in the data folder), and travel to the worker
by reference as the chat's do (``wire.images.file_part``): a client that sends the same
eight photos with every turn of a conversation costs the worker no reading, hashing or
decoding after the first.  They are kept while they may be read: a file that no request
has sent for ``KEEP_S`` is removed (a sweep at most once a minute).
"""

from __future__ import annotations

import base64
import binascii
import logging
import threading
import time
from pathlib import Path
from typing import Any

from app.picture_store import Pictures
from wire import images

log = logging.getLogger(__name__)

KEEP_S = 600.0  # a picture no request has sent for this long is removed
SWEEP_EVERY_S = 60.0
FOLDER = "api-pictures"

BY_ADDRESS = (
    "images are read when they come inline (a data: URL or base64); Hearth never fetches "
    "an address ({0}), so nothing leaves this computer. Send the image's bytes"
)


def from_base64(data: str, where: str = "the image") -> bytes:
    """A picture sent as base64 text; ValueError in words for what is no picture, and for
    an address where the bytes belong (Ollama's ``images`` hold base64 only)."""
    scheme = data.strip().split(":", 1)[0].lower() if ":" in data[:16] else ""
    if scheme == "data":
        return from_url(data.strip(), where)  # a data: URL where base64 belongs: read it
    if scheme in ("http", "https", "file", "ftp"):
        raise ValueError(BY_ADDRESS.format(f"{scheme}:"))
    try:
        raw = base64.b64decode(data.strip(), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"{where} is not base64 data") from exc
    try:
        return images.checked(raw, where)
    except images.ImageRefused as exc:  # the API's sentence ends it with its own stop
        raise ValueError(str(exc).rstrip(".")) from exc


def from_url(url: str, where: str = "the image") -> bytes:
    """A picture sent as a ``data:`` URL (``data:image/png;base64,…``); any other address
    is refused (ValueError in words) and never fetched."""
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme != "data":
        shown = f"{scheme}:" if scheme and len(scheme) < 16 else "an address"
        raise ValueError(BY_ADDRESS.format(shown))
    header, _, payload = url.partition(",")
    if not header.lower().endswith(";base64"):
        raise ValueError(f"{where} is a data: URL without base64 data")
    return from_base64(payload, where)


class RequestPictures:
    """Where the API keeps its requests' pictures while they may be read."""

    def __init__(self, folder: Path) -> None:
        self.store = Pictures(folder, fresh_s=KEEP_S)
        self._swept_at = 0.0
        self._lock = threading.Lock()

    @classmethod
    def in_data_folder(cls, data_dir: Path) -> RequestPictures:
        return cls(data_dir / FOLDER)

    def by_reference(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``messages`` with each picture sent by value kept, and named by reference
        (slow: writes files; call it off the event loop).  OSError when one cannot be
        kept (a full disk)."""
        self._sweep()
        return [self._message(message) for message in messages]

    def _message(self, message: dict[str, Any]) -> dict[str, Any]:
        body = message.get("content")
        if not isinstance(body, list) or not any(images.is_image(p) for p in body):
            return message
        parts = [
            self._part(part) if images.is_image(part) and not images.by_reference(part) else part
            for part in body
        ]
        return {**message, "content": parts}

    def _part(self, part: dict[str, Any]) -> dict[str, Any]:
        ref = self.store.put(images.part_bytes(part))
        path = self.store.path(ref)
        return images.file_part(ref, str(path)) if path is not None else part

    def _sweep(self) -> None:
        with self._lock:
            now = time.monotonic()
            if now - self._swept_at < SWEEP_EVERY_S:
                return
            self._swept_at = now
        try:
            self.store.sweep(set())  # every file older than KEEP_S
        except OSError:
            log.warning("could not remove the API's old pictures", exc_info=True)
