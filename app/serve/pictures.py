"""Pictures in the API's requests, as each dialect sends them, made into the wire's image
parts (``wire.images``): OpenAI's ``image_url`` and the Responses API's ``input_image``
with a ``data:`` URL, Ollama's ``images`` (base64), Anthropic's ``image`` blocks with a
``base64`` source.

A picture by address (``http(s)://``, ``file://``, an Anthropic ``url`` source, a
Responses ``file_id``) is refused in words and never fetched: nothing leaves the machine,
and a local path is never read on a client's word.  The bytes are checked here by size and
kind (their first bytes, no pixel read); a worker decodes them.
"""

from __future__ import annotations

import base64
import binascii

from wire import images

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
