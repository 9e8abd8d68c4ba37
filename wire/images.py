"""Images in a conversation, as every front end hands them to a worker.

A message that carries pictures has a list of parts as its ``content``: text parts
``{"type": "text", "text": ...}`` and image parts ``{"type": "image", "data": BASE64}``
holding the picture file's bytes, in the order the person wrote them.  A message without
pictures keeps its plain text content, so nothing changes for text-only models.

The bytes travel whole and are decoded only in the worker (``backends.llama_vision``):
the window, the command line and the API check the limits below and the file's kind by
its first bytes (``kind_of``), which reads no pixel, so a hostile picture can only ever
hurt a worker, which the engine host restarts.  The limits keep a request's line far below
the protocol's ``MAX_LINE_BYTES``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Iterable, Sequence
from typing import Any, Final

from wire.phrases import Phrase

IMAGE: Final = "image"
TEXT: Final = "text"
MAX_IMAGE_BYTES: Final = 20_000_000  # one picture file
MAX_IMAGES_PER_MESSAGE: Final = 8
MAX_IMAGES_PER_REQUEST: Final = 16
MAX_REQUEST_IMAGE_BYTES: Final = 40_000_000  # all of a request's pictures
# The kinds a worker reads, by their files' first bytes; what each is called for people.
READ_KINDS: Final = ("png", "jpeg", "gif", "bmp", "webp")
MEDIA_TYPES: Final = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "bmp": "image/bmp",
    "webp": "image/webp",
}
SUFFIXES: Final = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp")


class ImageRefused(ValueError):
    """A picture that is not sent: the message (a ``Phrase``) says why and what to do."""


def kind_of(data: bytes) -> str:
    """The picture kind of a file by its first bytes ("png", "jpeg", …), "svg" for a
    drawing, "" for anything else.  Never reads pixels."""
    head = data[:64]
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "gif"
    if head.startswith(b"BM"):
        return "bmp"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "webp"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if text.startswith((b"<svg", b"<?xml")):
        return "svg"
    return ""


def checked(data: bytes, name: str = "") -> bytes:
    """``data`` when it may be sent as a picture; ``ImageRefused`` in words otherwise
    (empty, too large, or not a kind a worker reads)."""
    shown = name or "the image"
    if not data:
        raise ImageRefused(Phrase("{0} is empty.", shown))
    if len(data) > MAX_IMAGE_BYTES:
        raise too_large(len(data), shown)
    kind = kind_of(data)
    if kind == "svg":
        raise ImageRefused(
            Phrase("{0} is an SVG drawing; save it as a PNG or JPEG picture first.", shown)
        )
    if kind not in READ_KINDS:
        raise ImageRefused(Phrase("{0} is not a PNG, JPEG, GIF, BMP or WebP picture.", shown))
    return data


def too_large(size: int, shown: str) -> ImageRefused:
    return ImageRefused(
        Phrase(
            "{0} is {1} MB; pictures of up to {2} MB are read. Make it smaller first.",
            shown,
            round(size / 1e6, 1),
            MAX_IMAGE_BYTES // 1_000_000,
        )
    )


def image_part(data: bytes) -> dict[str, Any]:
    """A message part holding one picture file's bytes."""
    return {"type": IMAGE, "data": base64.b64encode(data).decode("ascii")}


def part_bytes(part: dict[str, Any]) -> bytes:
    """The picture file in an image part; ``ImageRefused`` for data that is not base64."""
    try:
        return base64.b64decode(str(part.get("data") or ""), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ImageRefused(Phrase("An image part's data is not base64.")) from exc


def content(text: str, images: Sequence[bytes]) -> str | list[dict[str, Any]]:
    """A message's content: its text alone, or the pictures then the text as parts (the
    order people expect: "this picture — what is in it?")."""
    if not images:
        return text
    parts: list[dict[str, Any]] = [image_part(data) for data in images]
    if text:
        parts.append({"type": TEXT, "text": text})
    return parts


def is_image(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == IMAGE


def images_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    """A message's image parts, in order."""
    body = message.get("content")
    return [part for part in body if is_image(part)] if isinstance(body, list) else []


def has_images(messages: Iterable[dict[str, Any]]) -> bool:
    return any(images_of(message) for message in messages)


def text_of(body: Any) -> str:
    """A content's text: a string as it is, a list's text parts joined by blank lines."""
    if body is None:
        return ""
    if isinstance(body, str):
        return body
    if isinstance(body, list):
        texts = [
            str(p.get("text", "")) for p in body if isinstance(p, dict) and p.get("type") == TEXT
        ]
        return "\n\n".join(t for t in texts if t)
    return str(body)


def digest(data: bytes) -> str:
    """A picture's address: the SHA-256 of its file."""
    return hashlib.sha256(data).hexdigest()


def limits_problem(messages: Sequence[dict[str, Any]]) -> Phrase | None:
    """Why a conversation's pictures cannot go in one request, or None."""
    total = count = 0
    for message in messages:
        parts = images_of(message)
        if len(parts) > MAX_IMAGES_PER_MESSAGE:
            return Phrase(
                "A message holds {0} images; at most {1} go in one message.",
                len(parts),
                MAX_IMAGES_PER_MESSAGE,
            )
        count += len(parts)
        # base64 is 4 characters per 3 bytes: the file sizes without decoding them.
        total += sum(len(str(part.get("data") or "")) * 3 // 4 for part in parts)
    if count > MAX_IMAGES_PER_REQUEST:
        return Phrase(
            "The conversation holds {0} images; at most {1} are read at once. Start a new "
            "conversation for more.",
            count,
            MAX_IMAGES_PER_REQUEST,
        )
    if total > MAX_REQUEST_IMAGE_BYTES:
        return Phrase(
            "The conversation's images come to {0} MB; at most {1} MB are read at once.",
            round(total / 1e6),
            MAX_REQUEST_IMAGE_BYTES // 1_000_000,
        )
    return None
