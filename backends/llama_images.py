"""A conversation with pictures as a llama.cpp prompt: where the model's own chat template
puts each picture, and the prompt as the slots read it.

**Where a picture goes.**  At load, the template is asked how it writes a picture: a
message of one image part and a text is rendered beside the same message without the
image, and what the first has more is the template's picture text (SmolVLM's
``<image>``, Gemma 3's ``<start_of_image>``, Qwen2.5-VL's
``<|vision_start|><|image_pad|><|vision_end|>``).  A conversation is then rendered with
its image parts, as the model's makers do, and each picture text becomes libmtmd's
marker, which libmtmd replaces with the model's own picture tokens.  A template that
knows no pictures (most text models' do not) gets the marker inline in the message's
text, as llama-server does.

**The prompt as the slots read it.**  A picture's cells in the prompt are held by a
*placeholder*, the same negative number in each of its cells, drawn from the picture's
SHA-256 and the projector: a slot that read the same picture at the same place reuses it
like any cached text (a follow-up about a picture reads only what is new), and another
picture never matches.  A model that places pictures in two dimensions (M-RoPE) gives a
picture fewer positions than cells: the slot keeps the difference (``Slot.gaps``).
``ReadPrompt.pictures`` says where each picture starts; the scheduler has libmtmd read it
there (``Projector.evaluate_chunk``) instead of putting tokens in a batch.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from backends.llama_vision import Projector
from backends.picture_files import PICTURES, PictureFile
from backends.pictures import VisionError
from backends.slots.task import Picture
from backends.template_guard import ZERO_WIDTH
from wire import images
from wire.phrases import Phrase

PROBE_TEXT = "Hearth-probe-7c1e"


def placeholder(name: str) -> int:
    """The token a picture's positions hold in a slot's list (``name``: its file's SHA-256
    and the tile): negative, so never a real token, and the same for the same file."""
    return -1 - int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "big") % (1 << 31)


def picture_text(render: Callable[[list[dict[str, Any]]], str]) -> str:
    """What the template writes for one picture ("" when it writes none, or fails on image
    parts, or on lists of parts at all)."""
    text_part = {"type": images.TEXT, "text": PROBE_TEXT}
    try:
        with_image = render([{"role": "user", "content": [{"type": "image"}, text_part]}])
        without = render([{"role": "user", "content": [text_part]}])
    except Exception:  # noqa: BLE001 - any failure means: this template takes no parts
        return ""
    if PROBE_TEXT not in without or with_image.count(PROBE_TEXT) != 1:
        return ""
    if "'type'" in without or '"type"' in without:
        return ""  # it printed the list of parts as it is: it reads text content only
    start = 0
    while start < min(len(with_image), len(without)) and with_image[start] == without[start]:
        start += 1
    end = 0
    while (
        end < min(len(with_image), len(without)) - start
        and with_image[-1 - end] == without[-1 - end]
    ):
        end += 1
    added = with_image[start : len(with_image) - end].strip()
    # The picture's own text: never the probe's words, and found once in the prompt.
    if not added or PROBE_TEXT in added or with_image.count(added) != 1:
        return ""
    return added


@dataclass
class ReadPrompt:
    """A prompt with pictures: its tokens (placeholders at the pictures' positions), where
    each picture starts, and libmtmd's chunks that hold them."""

    tokens: list[int]
    # start: (chunk, cells, positions)
    pictures: dict[int, tuple[Any, int, int]] = field(default_factory=dict)
    chunks: Any = None
    image_tokens: int = 0


class PictureReader:
    """A loaded model's pictures: its projector and how its template writes a picture."""

    def __init__(self, projector: Projector, template_picture: str) -> None:
        self.projector = projector
        self.template_picture = template_picture
        self.marker = projector.marker
        # Another projector reads a picture otherwise: its placeholders differ.
        self.identity = projector.path
        self._lock = threading.Lock()  # requests' threads prepare prompts at once

    def _safe(self, text: str) -> str:
        """A person's text never places a picture: the marker and the template's picture
        text in it are broken by a zero-width space."""
        for special in filter(None, (self.marker, self.template_picture)):
            if special in text:
                text = text.replace(special, special[0] + ZERO_WIDTH + special[1:])
        return text

    def template_messages(
        self, messages: Sequence[dict[str, Any]]
    ) -> tuple[list[dict[str, Any]], list[PictureFile]]:
        """The messages as the template takes them, and the pictures in prompt order (read
        by reference from the store, or kept already: ``picture_files``)."""
        pictures: list[PictureFile] = []
        out: list[dict[str, Any]] = []
        for message in messages:
            body = message.get("content")
            if not isinstance(body, list):
                out.append({**message, "content": self._safe(str(body or ""))})
                continue
            parts: list[dict[str, Any]] = []
            for part in body:
                if images.is_image(part):
                    pictures.append(PICTURES.read(part, len(pictures) + 1))
                    parts.append({"type": "image"})
                elif isinstance(part, dict) and part.get("type") == images.TEXT:
                    parts.append({"type": images.TEXT, "text": self._safe(str(part["text"]))})
            if self.template_picture:
                out.append({**message, "content": parts})
            else:
                inline = [self.marker if p["type"] == "image" else str(p["text"]) for p in parts]
                out.append({**message, "content": "\n".join(inline)})
        return out, pictures

    def placed(self, prompt: str) -> str:
        """The rendered prompt with libmtmd's marker where the template wrote a picture."""
        if self.template_picture:
            return prompt.replace(self.template_picture, self.marker)
        return prompt

    def read(self, prompt: str, pictures: Sequence[PictureFile], add_special: bool) -> ReadPrompt:
        """The prompt's tokens with each picture's placeholder, from libmtmd's chunks."""
        with self._lock:
            chunked = self.projector.read(prompt, pictures, add_special)
        tokens: list[int] = []
        read = ReadPrompt(tokens, chunks=chunked.chunks, image_tokens=chunked.image_tokens)
        tiles: dict[str, int] = {}
        for chunk, picture, values in self.projector.pieces(chunked.chunks):
            if not picture:
                tokens.extend(values)
                continue
            tile = tiles[picture] = tiles.get(picture, -1) + 1
            cells = self.projector.cells(chunk)
            read.pictures[len(tokens)] = (chunk, cells, self.projector.positions(chunk))
            tokens.extend([placeholder(f"{self.identity}/{picture}/{tile}")] * cells)
        return read

    def free(self, read: ReadPrompt | None) -> None:
        if read is not None and read.chunks:
            self.projector.free_chunks(read.chunks)
            read.chunks = None
            read.pictures.clear()


class PicturePrompt:
    """One request's prompt with pictures.  A long conversation is rendered a few times
    while its oldest messages are left out (``context_budget``); each render's chunks are
    kept until the chosen one is known, and the others freed."""

    def __init__(
        self,
        reader: PictureReader,
        text_of: Callable[[list[dict[str, Any]]], str],
        add_special: bool,
    ) -> None:
        self._reader = reader
        self._text_of = text_of
        self._add_special = add_special
        self._reads: dict[int, ReadPrompt] = {}

    def render(self, messages: list[dict[str, Any]]) -> list[int]:
        template, pictures = self._reader.template_messages(messages)
        prompt = self._reader.placed(self._text_of(template))
        read = self._reader.read(prompt, pictures, self._add_special)
        self._reads[id(read.tokens)] = read
        return read.tokens

    def pictures(self, tokens: list[int], context: Any, batch: int) -> dict[int, Picture]:
        """The chosen render's pictures, as the slots read them into ``context``; the
        other renders' chunks are freed now, not when the reply ends."""
        read = self._reads.get(id(tokens))
        if read is None or read.tokens is not tokens:
            return {}
        for other in [r for key, r in self._reads.items() if key != id(tokens)]:
            self._reader.free(other)
        self._reads = {id(tokens): read}
        projector = self._reader.projector

        def reader(chunk: Any) -> Callable[[int, int], int]:
            return lambda seq, past: projector.evaluate_chunk(chunk, context, seq, past, batch)

        return {
            start: Picture(cells, reader(chunk), positions)
            for start, (chunk, cells, positions) in read.pictures.items()
        }

    def stats(self, tokens: list[int], seconds: float) -> dict[str, Any]:
        """A reply's figures of its pictures: their tokens, and the time spent reading
        them (encoding and decoding, ``hearth bench`` compares it with llama-mtmd-cli)."""
        read = self._reads.get(id(tokens))
        return {
            "image_tokens": read.image_tokens if read is not None else 0,
            "image_ms": round(seconds * 1000, 2),
        }

    def close(self) -> None:
        for read in self._reads.values():
            self._reader.free(read)
        self._reads.clear()


def load_pictures(
    path: str, model: Any, threads: int, on_gpu: bool, render: Callable[..., str]
) -> tuple[PictureReader | None, str]:
    """A loaded model's pictures through its projector at ``path``; or None, and why, when
    the projector cannot be used (the model still reads text)."""
    try:
        projector = Projector(path, model, threads, on_gpu)
    except VisionError as exc:
        return None, Phrase(
            "This model's image projector could not be used ({0}), so it reads text only. "
            "Download the projector again, or choose another.",
            exc,
        )
    return PictureReader(projector, picture_text(render)), ""
