"""The shape of a GGUF model before downloading it: fetch only the header with a Range
request (a few megabytes; the tokenizer vocabulary makes most headers 2–10 MB), read it
with the same reader as local files, and let the estimator say whether it will fit."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

from app.errors import HearthError
from app.machine.fit import ModelShape, ShapeError, shape_from_gguf
from app.models.gguf_header import GGUFError, read_gguf
from wire.phrases import Phrase

FIRST_TRY = 4 * 1024 * 1024
LARGEST = 64 * 1024 * 1024


def fetch_shape(url: str, headers: dict[str, str] | None = None) -> ModelShape:
    """Read the model's shape from the first bytes of the remote file."""
    from huggingface_hub.utils import get_session  # type: ignore[attr-defined]

    size = FIRST_TRY
    while True:
        response = get_session().get(
            url, headers={**(headers or {}), "Range": f"bytes=0-{size - 1}"}, follow_redirects=True
        )
        if response.status_code not in (200, 206):
            raise HearthError(
                Phrase("The hub did not send the model header ({0}).", response.status_code)
            )
        with tempfile.TemporaryDirectory(prefix="hearth-header-") as scratch:
            path = Path(scratch) / "header.gguf"
            path.write_bytes(response.content[:size])
            try:
                return shape_from_gguf(read_gguf(path, check_data=False))
            except GGUFError as exc:
                complete = len(response.content) < size
                if "ends in the middle" not in str(exc) or complete or size >= LARGEST:
                    raise HearthError(Phrase("The model header cannot be read: {0}.", exc)) from exc
            except ShapeError as exc:
                raise HearthError(Phrase("The model header is incomplete: {0}.", exc)) from exc
        size *= 4


def scaled(shape: ModelShape, weights_bytes: int, name: str) -> ModelShape:
    """The same architecture at another quantization: only the weight sizes change."""
    factor = weights_bytes / shape.weights_bytes if shape.weights_bytes else 1.0
    return replace(
        shape,
        name=name,
        weights_bytes=weights_bytes,
        layer_bytes=[int(b * factor) for b in shape.layer_bytes],
        other_bytes=int(shape.other_bytes * factor),
    )
