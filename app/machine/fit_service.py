"""Estimates for library entries: reads the right metadata for each format."""

from __future__ import annotations

from app.errors import HearthError
from app.machine.fit import Estimate, ShapeError, estimate, shape_from_config, shape_from_gguf
from app.machine.hardware import SystemFacts
from app.models.gguf_header import GGUFError, read_gguf
from app.models.library import ModelEntry
from wire.phrases import Phrase


def estimate_entry(entry: ModelEntry, facts: SystemFacts, n_ctx: int) -> Estimate:
    """The estimate for a model Hearth lists; HearthError when its metadata is unusable."""
    try:
        if entry.format == "gguf":
            shape = shape_from_gguf(read_gguf(entry.path))
        else:
            dtype = (
                entry.quantization if entry.quantization in ("float32", "float16") else "bfloat16"
            )
            shape = shape_from_config(entry.path, dtype, entry.parameters)
        return estimate(shape, facts, n_ctx)
    except (GGUFError, ShapeError) as exc:
        raise HearthError(Phrase("Hearth cannot estimate {0}: {1}.", entry.name, exc)) from exc
