"""Pictures for a transformers checkpoint that reads them (one with a vision tower: its
``config.json`` has a ``vision_config``), through the model's own processor.

The checkpoint loads as ``AutoModelForImageTextToText`` with ``AutoProcessor``; the
conversation is rendered by the processor's chat template with an image part where each
picture goes (as the model's makers do), and the processor turns the prompt and the
pictures into the model's inputs (its picture tokens, pixel values).  The pictures are
decoded here, in the worker, by ``backends.pictures`` (the same limits as llama.cpp's).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from backends.picture_files import PICTURES, PictureFile
from backends.pictures import check_request
from wire import images


def reads_pictures(folder: Path) -> bool:
    """Whether the checkpoint in ``folder`` has a vision tower."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(config, dict) and isinstance(config.get("vision_config"), dict)


def template_messages(
    messages: Sequence[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[PictureFile]]:
    """The messages as a processor's template takes them (every content a list of parts,
    an image part where each picture goes), and the pictures in order."""
    out: list[dict[str, Any]] = []
    pictures: list[PictureFile] = []
    for message in messages:
        body = message.get("content")
        parts: list[dict[str, Any]] = []
        if isinstance(body, list):
            for part in body:
                if images.is_image(part):
                    pictures.append(PICTURES.read(part, len(pictures) + 1))
                    parts.append({"type": "image"})
                elif isinstance(part, dict) and part.get("type") == images.TEXT:
                    parts.append({"type": "text", "text": str(part.get("text", ""))})
        else:
            parts.append({"type": "text", "text": str(body or "")})
        out.append({**message, "content": parts})
    return out, pictures


class PictureInputs:
    """One request's prompt with pictures: rendered (a long conversation a few times,
    while its oldest messages are left out), and the chosen render's model inputs."""

    def __init__(self, processor: Any, render_text: Callable[[list[dict[str, Any]]], str]):
        self._processor = processor
        self._render_text = render_text
        self._inputs: dict[int, tuple[list[int], Any]] = {}
        self._decoded: dict[str, Any] = {}  # each picture once a request, by its hash

    def render(self, messages: list[dict[str, Any]]) -> list[int]:
        """The prompt's tokens, each picture's tokens among them."""
        template, pictures = template_messages(messages)
        check_request([picture.data for picture in pictures])
        prompt = self._render_text(template)
        inputs = self._processor(
            text=prompt,
            images=[self._picture(picture, n) for n, picture in enumerate(pictures, 1)] or None,
            return_tensors="pt",
            add_special_tokens=False,
        )
        tokens = [int(t) for t in inputs["input_ids"][0]]
        self._inputs[id(tokens)] = (tokens, inputs)
        return tokens

    def _picture(self, picture: PictureFile, number: int) -> Any:
        from PIL import Image

        if picture.digest not in self._decoded:
            width, height, pixels = PICTURES.pixels(picture, number)
            self._decoded[picture.digest] = Image.frombytes("RGB", (width, height), pixels)
        return self._decoded[picture.digest]

    def inputs(self, tokens: list[int], device: Any, dtype: Any) -> dict[str, Any]:
        """The chosen render's inputs besides its tokens (pixel values and the like), on
        the model's device, in its precision."""
        found = self._inputs.get(id(tokens))
        if found is None or found[0] is not tokens:
            return {}
        return {
            key: value.to(device=device, dtype=dtype)
            if value.is_floating_point()
            else value.to(device)
            for key, value in found[1].items()
            if key not in ("input_ids", "attention_mask")
        }


def image_tokens(model: Any, tokens: list[int]) -> int:
    """How many of the prompt's tokens are pictures' (the model's image token's count)."""
    token = getattr(model.config, "image_token_id", None)
    if token is None:
        token = getattr(model.config, "image_token_index", None)
    return sum(1 for t in tokens if t == token) if token is not None else 0
