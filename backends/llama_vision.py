"""Images into a llama.cpp model, through its projector (``mmproj-*.gguf``) and libmtmd.

A model's projector is loaded against the text model that the worker already holds; a
prompt with image markers and the images' files become libmtmd's chunks (text tokens and
image embeddings in the model's own layout), and each chunk is read into a slot's
sequence where it belongs (``backends.llama_images``, ``backends.slots``).

Images arrive as the files' bytes and are decoded in the worker (the window's process
never decodes a picture a model reads), by ``backends.pictures``.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import llama_cpp
import llama_cpp.mtmd_cpp as mtmd

from backends.picture_files import PICTURES, PictureFile
from backends.pictures import VisionError, check_request

IMAGE_CHUNK = 1  # MTMD_INPUT_CHUNK_TYPE_IMAGE
NO_CALLBACK = mtmd.mtmd_helper_post_decode_callback()  # a null function pointer
_LOG_ERROR = 4  # GGML_LOG_LEVEL_ERROR: libmtmd says the rest of its work on stderr


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
        self.path = path

    def read(self, prompt: str, images: Sequence[PictureFile], add_special: bool = True) -> Prompt:
        """The prompt's text (one ``marker`` where each image goes) and the images' files,
        as chunks.  A file the decoder cannot read is a VisionError naming which one.  Each
        picture is decoded once while the worker keeps it (``picture_files``)."""
        places = prompt.count(self.marker)
        if places != len(images):
            raise VisionError(
                f"the images do not match the prompt's image places ({len(images)} images, "
                f"{places} places)"
            )
        check_request([picture.data for picture in images])
        bitmaps = []
        try:
            for number, picture in enumerate(images, 1):
                width, height, pixels = PICTURES.pixels(picture, number)
                buffer = (ctypes.c_uint8 * len(pixels)).from_buffer_copy(pixels)
                bitmap = mtmd.mtmd_bitmap_init(width, height, buffer)
                if not bitmap:
                    raise VisionError(f"image {number} could not be handed to the model")
                # Its chunks (one per tile, for a model that cuts pictures) say whose they are.
                mtmd.mtmd_bitmap_set_id(bitmap, picture.digest.encode())
                bitmaps.append(bitmap)
            return self._tokenize(prompt, bitmaps, add_special)
        finally:
            for bitmap in bitmaps:
                mtmd.mtmd_bitmap_free(bitmap)

    def _tokenize(self, prompt: str, bitmaps: list[Any], add_special: bool) -> Prompt:
        chunks = mtmd.mtmd_input_chunks_init()
        text = mtmd.mtmd_input_text()
        encoded = prompt.encode()
        text.text, text.text_len = encoded, len(encoded)
        text.add_special, text.parse_special = add_special, True
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

    def pieces(self, chunks: Any) -> Iterator[tuple[Any, str, list[int]]]:
        """Each chunk in order: ``(chunk, "", its tokens)`` for text, ``(chunk, picture,
        [])`` for (a tile of) a picture, named by its file's SHA-256."""
        for index in range(mtmd.mtmd_input_chunks_size(chunks)):
            chunk = mtmd.mtmd_input_chunks_get(chunks, index)
            if mtmd.mtmd_input_chunk_get_type(chunk) == IMAGE_CHUNK:
                yield chunk, (mtmd.mtmd_input_chunk_get_id(chunk) or b"").decode(), []
                continue
            count = ctypes.c_size_t(0)
            values = mtmd.mtmd_input_chunk_get_tokens_text(chunk, ctypes.byref(count))
            yield chunk, "", [values[i] for i in range(count.value)]

    @staticmethod
    def cells(chunk: Any) -> int:
        """The cells of the context a picture's chunk fills (its tokens)."""
        return int(mtmd.mtmd_input_chunk_get_n_tokens(chunk))

    @staticmethod
    def positions(chunk: Any) -> int:
        """The positions a picture's chunk takes in the sequence (its tokens, or fewer
        for a model that places pictures in two dimensions, M-RoPE)."""
        return int(mtmd.mtmd_input_chunk_get_n_pos(chunk))

    def evaluate_chunk(
        self, chunk: Any, context: Any, seq_id: int, n_past: int, n_batch: int
    ) -> int:
        """Encode one picture's chunk and read it into ``seq_id`` from ``n_past`` (no
        logits: a prompt never ends with a picture); the position after it.  Encoded as a
        batch of one, as llama.cpp's own tools do (its single-chunk encoder is slower)."""
        batch = mtmd.mtmd_batch_init(self.context)
        if not batch:
            raise VisionError("the model could not prepare a picture for reading")
        try:
            if mtmd.mtmd_batch_add_chunk(batch, chunk) != 0 or mtmd.mtmd_batch_encode(batch) != 0:
                raise VisionError("the model could not encode a picture")
            embedded = mtmd.mtmd_batch_get_output_embd(batch, chunk)
            after = llama_cpp.llama_pos(n_past)
            status = mtmd.mtmd_helper_decode_image_chunk(
                self.context,
                context,
                chunk,
                embedded,
                n_past,
                seq_id,
                n_batch,
                ctypes.byref(after),
                NO_CALLBACK,
                None,
            )
        finally:
            mtmd.mtmd_batch_free(batch)
        if status != 0:
            raise VisionError(f"the model could not read a picture (status {status})")
        return int(after.value)

    @staticmethod
    def free_chunks(chunks: Any) -> None:
        mtmd.mtmd_input_chunks_free(chunks)

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
