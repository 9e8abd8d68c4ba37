"""Images in a conversation, as every front end hands them to a worker.

A message that carries pictures has a list of parts as its ``content``: text parts
``{"type": "text", "text": ...}`` and image parts, in the order the person wrote them.  A
message without pictures keeps its plain text content, so nothing changes for text-only
models.

**Pictures travel by reference.**  An image part names a file that a picture store of
this computer keeps (``app.chat.pictures``): ``{"type": "image", "sha256": HEX, "kind":
"png", "size": N, "file": PATH}`` (``file_part``).  The window's chat and the API keep each
picture once, checked and hashed once as it is kept, and from then on only the
reference crosses the pipe: a follow-up turn with eight photos sends a few hundred bytes,
not 40 MB of base64.  The worker reads the file, checks it is the picture the hash names,
and keeps it by hash (``backends.picture_files``).  A picture kept only in memory
(``hearth chat`` without a history) travels by value, ``{"type": "image", "data":
BASE64}`` (``image_part``), as the API's dialects send it.

Pictures are decoded only in the worker (``backends.pictures``): front ends check the
limits below and the file's kind by its first bytes (``kind_of``), which reads no pixel,
so a hostile picture can only ever hurt a worker, which the engine host restarts.  The
limits keep a request's line far below the protocol's ``MAX_LINE_BYTES``.
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


def file_part(reference: dict[str, Any], file: str) -> dict[str, Any]:
    """A message part naming one picture that a store keeps in ``file`` (its reference:
    hash, kind and size, as ``app.chat.pictures.reference`` makes it)."""
    return {
        "type": IMAGE,
        "sha256": str(reference["sha256"]),
        "kind": str(reference.get("kind") or ""),
        "size": int(reference.get("size") or 0),
        "file": file,
    }


def by_reference(part: dict[str, Any]) -> bool:
    """Whether an image part names a kept file rather than carrying the bytes."""
    return "file" in part


def part_size(part: dict[str, Any]) -> int:
    """The picture file's size in bytes, without reading or decoding it."""
    if by_reference(part):
        return int(part.get("size") or 0)
    return len(str(part.get("data") or "")) * 3 // 4  # base64: 4 characters per 3 bytes


def part_bytes(part: dict[str, Any]) -> bytes:
    """The picture file an image part carries by value; ``ImageRefused`` for data that is
    not base64 (a part by reference is read by the worker: ``backends.picture_files``)."""
    try:
        return base64.b64decode(str(part.get("data") or ""), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ImageRefused(Phrase("An image part's data is not base64.")) from exc


def content(text: str, images: Sequence[bytes]) -> str | list[dict[str, Any]]:
    """A message's content: its text alone, or the pictures then the text as parts (the
    order people expect: "this picture — what is in it?")."""
    return with_parts(text, [image_part(data) for data in images])


def with_parts(text: str, pictures: Sequence[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """A message's content from image parts already made (by value or by reference)."""
    if not pictures:
        return text
    parts: list[dict[str, Any]] = list(pictures)
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
        total += sum(part_size(part) for part in parts)
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
