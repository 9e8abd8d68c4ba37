"""Images into a llama.cpp model, through its projector (``mmproj-*.gguf``) and libmtmd.

A model's projector is loaded against the
text model that the worker already holds, a prompt with image markers and the images'
files become libmtmd's chunks (text tokens and image embeddings in the model's own
layout), and the chunks are read into one sequence of the context, after which the
usual decode loop goes on from the position they end at.

Images arrive as the files' bytes and are decoded here, in the worker (the window's
process never decodes a picture a model reads), by Pillow rather than libmtmd's helper: on
a file its decoder cannot read, that helper goes on to try it as a video by starting
``ffprobe`` on it.  Pillow reads the header before any pixel, so a picture past
``MAX_PIXELS`` (a small PNG that claims 50,000 × 50,000) is refused before it is decoded;
an animated picture gives its first frame; a photo's EXIF orientation is applied.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import llama_cpp
import llama_cpp.mtmd_cpp as mtmd

IMAGE_CHUNK = 1  # MTMD_INPUT_CHUNK_TYPE_IMAGE
MAX_PIXELS = 40_000_000  # a 40-megapixel photo reads; a decompression bomb does not
FORMATS = ("PNG", "JPEG", "GIF", "BMP", "WEBP")
_LOG_ERROR = 4  # GGML_LOG_LEVEL_ERROR: libmtmd says the rest of its work on stderr


class VisionError(Exception):
    """The projector or an image could not be used (the message says which)."""


@llama_cpp.llama_log_callback
def _errors_only(level: int, text: bytes, _user: Any) -> None:
    if level >= _LOG_ERROR:
        import sys

        sys.stderr.write(text.decode("utf-8", "replace"))


@functools.cache
def _quiet() -> None:
    """libmtmd logs every tile it cuts; the worker's log keeps its errors only (once)."""
    mtmd.mtmd_log_set(_errors_only, None)
    mtmd.mtmd_helper_log_set(_errors_only, None)


@dataclass
class Prompt:
    """A prompt read by libmtmd: its chunks, how many positions they take, and how many
    of those are images'."""

    chunks: Any
    n_tokens: int
    image_tokens: int

    def free(self) -> None:
        if self.chunks:
            mtmd.mtmd_input_chunks_free(self.chunks)
            self.chunks = None


def decode(data: bytes, number: int = 1) -> tuple[int, int, bytes]:
    """A picture file's pixels as RGB rows (width, height, bytes); VisionError in words
    for what is no picture, a kind not read, or one too large."""
    import io
    import warnings

    from PIL import Image, ImageOps

    too_large = VisionError(f"image {number} has too many pixels to be read")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as picture:
                kind, (width, height) = picture.format, picture.size
                if kind not in FORMATS:
                    raise VisionError(
                        f"image {number} is a {kind} file; PNG, JPEG, GIF, BMP and WebP "
                        "pictures are read"
                    )
                if width * height > MAX_PIXELS:
                    raise too_large
                upright = ImageOps.exif_transpose(picture).convert("RGB")  # the first frame
                return upright.width, upright.height, upright.tobytes()
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
        raise too_large from exc
    except (OSError, SyntaxError, ValueError, EOFError) as exc:  # Pillow's "cannot read"
        raise VisionError(f"image {number} could not be read as a picture") from exc


class Projector:
    """A model's projector, loaded against the text model (``llama_cpp``'s model pointer)."""

    def __init__(self, path: str, model: Any, threads: int, use_gpu: bool = False) -> None:
        _quiet()
        params = mtmd.mtmd_context_params_default()
        params.use_gpu = use_gpu
        params.n_threads = threads
        params.print_timings = False
        params.warmup = False
        self.context = mtmd.mtmd_init_from_file(path.encode(), model, params)
        if not self.context:
            raise VisionError(f"the projector {path} could not be loaded with this model")
        if not mtmd.mtmd_support_vision(self.context):
            self.close()
            raise VisionError(f"{path} is a projector for sound, not for images")
        self.marker = mtmd.mtmd_default_marker().decode()

    def read(self, prompt: str, images: Sequence[bytes]) -> Prompt:
        """The prompt's text (one ``marker`` where each image goes) and the images' files,
        as chunks.  A file the decoder cannot read is a VisionError naming which one."""
        places = prompt.count(self.marker)
        if places != len(images):
            raise VisionError(
                f"the images do not match the prompt's image places ({len(images)} images, "
                f"{places} places)"
            )
        bitmaps = []
        try:
            for number, data in enumerate(images, 1):
                width, height, pixels = decode(data, number)
                buffer = (ctypes.c_uint8 * len(pixels)).from_buffer_copy(pixels)
                bitmap = mtmd.mtmd_bitmap_init(width, height, buffer)
                if not bitmap:
                    raise VisionError(f"image {number} could not be handed to the model")
                bitmaps.append(bitmap)
            return self._tokenize(prompt, bitmaps)
        finally:
            for bitmap in bitmaps:
                mtmd.mtmd_bitmap_free(bitmap)

    def _tokenize(self, prompt: str, bitmaps: list[Any]) -> Prompt:
        chunks = mtmd.mtmd_input_chunks_init()
        text = mtmd.mtmd_input_text()
        encoded = prompt.encode()
        text.text, text.text_len = encoded, len(encoded)
        text.add_special, text.parse_special = True, True
        array = (mtmd.mtmd_bitmap_p_ctypes * max(1, len(bitmaps)))(*bitmaps)
        status = mtmd.mtmd_tokenize(self.context, chunks, ctypes.byref(text), array, len(bitmaps))
        if status != 0:
            mtmd.mtmd_input_chunks_free(chunks)
            raise VisionError(f"an image could not be prepared for the model (status {status})")
        image_tokens = 0
        for index in range(mtmd.mtmd_input_chunks_size(chunks)):
            chunk = mtmd.mtmd_input_chunks_get(chunks, index)
            if mtmd.mtmd_input_chunk_get_type(chunk) == IMAGE_CHUNK:
                image_tokens += mtmd.mtmd_input_chunk_get_n_tokens(chunk)
        return Prompt(chunks, int(mtmd.mtmd_helper_get_n_tokens(chunks)), image_tokens)

    def evaluate(self, read: Prompt, context: Any, seq_id: int, n_past: int, n_batch: int) -> int:
        """Read the chunks into sequence ``seq_id`` from position ``n_past``, logits for the
        last; the position after them."""
        after = llama_cpp.llama_pos(0)
        status = mtmd.mtmd_helper_eval_chunks(
            self.context, context, read.chunks, n_past, seq_id, n_batch, True, ctypes.byref(after)
        )
        if status != 0:
            raise VisionError(f"the model could not read the prompt's images (status {status})")
        return int(after.value)

    def close(self) -> None:
        if self.context:
            mtmd.mtmd_free(self.context)
            self.context = None
