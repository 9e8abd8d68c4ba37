"""Estimates for library entries: reads the right metadata for each format."""

from __future__ import annotations

from app.errors import HearthError
from app.machine.fit import (
    NO_FIT,
    RAM_SHARE,
    Estimate,
    ModelShape,
    ShapeError,
    estimate,
    shape_from_config,
    shape_from_gguf,
    with_projector,
)
from app.machine.hardware import SystemFacts
from app.models.gguf_header import GGUFError, read_gguf
from app.models.library import ModelEntry
from wire.phrases import Phrase


def estimate_entry(entry: ModelEntry, facts: SystemFacts, n_ctx: int, slots: int = 1) -> Estimate:
    """The estimate for a model Hearth lists; HearthError when its metadata is unusable."""
    try:
        return estimate(_shape(entry), facts, n_ctx, slots=slots)
    except (GGUFError, ShapeError) as exc:
        raise HearthError(Phrase("Hearth cannot estimate {0}: {1}.", entry.name, exc)) from exc


def smallest_peak(entries: list[ModelEntry], facts: SystemFacts, n_ctx: int) -> int | None:
    """The least memory any of ``entries`` needs at ``n_ctx`` tokens (the System check's
    "is there memory for a model?"), or None when none can be estimated."""
    peaks = []
    for entry in entries:
        try:
            peaks.append(estimate_entry(entry, facts, n_ctx).peak_bytes)
        except HearthError:
            continue
    return min(peaks) if peaks else None


def fitted_slots(entry: ModelEntry, facts: SystemFacts, n_ctx: int, wanted: int) -> int:
    """The most replies at once, up to ``wanted``, that cost a single reply nothing: the
    same verdict as one slot (all on the GPU stays all on the GPU, partly stays partly
    with no fewer layers there, a model that fits still fits).  ``wanted`` when the
    metadata cannot say."""
    if wanted <= 1:
        return 1
    try:
        shape = _shape(entry)
        alone = estimate(shape, facts, n_ctx)
        for slots in range(wanted, 1, -1):
            result = estimate(shape, facts, n_ctx, slots=slots)
            same_place = (result.gpu_layers or 0) >= (alone.gpu_layers or 0)
            if result.verdict == alone.verdict and same_place:
                return slots
    except (GGUFError, ShapeError, OSError):
        return wanted
    return 1


def _shape(entry: ModelEntry) -> ModelShape:
    if entry.format == "gguf":
        shape = shape_from_gguf(read_gguf(entry.path))
        if entry.projector is not None and entry.projector.is_file():
            with_projector(shape, entry.projector.stat().st_size)
        return shape
    dtype = entry.quantization if entry.quantization in ("float32", "float16") else "bfloat16"
    return shape_from_config(entry.path, dtype, entry.parameters)


def load_refusal(
    entry: ModelEntry, facts: SystemFacts, n_ctx: int, check_memory: bool, slots: int = 1
) -> str:
    """Why ``entry`` must not be loaded with a context of ``n_ctx`` here ("" when it may).

    A header no engine could load (a layer count of four billion) is always refused: the
    engine would crash on it, again at every try.  A model that needs more memory than
    this computer has is refused when ``check_memory`` (the setting), with the numbers.
    A model whose facts are merely missing (an unusual architecture) is let through."""
    try:
        result = estimate(_shape(entry), facts, n_ctx, slots=slots)
    except GGUFError:
        return ""  # unreadable since it was listed (gone, replaced): the engine says why
    except ShapeError as exc:
        if not exc.impossible:
            return ""
        return Phrase(
            "{0} cannot be loaded: {1}. The file is damaged, or was made to crash the "
            "programs that read it.",
            entry.name,
            exc,
        )
    if not check_memory or result.verdict != NO_FIT:
        return ""
    usable = facts.memory.total_bytes * RAM_SHARE
    return Phrase(
        "{0} with a context of {1} tokens needs about {2} GB of memory, but about {3} GB "
        "can be used on this computer. Choose a shorter context or a smaller model, or turn "
        "off “Refuse models that will not fit” in the settings to try anyway.",
        entry.name,
        n_ctx,
        f"{result.peak_bytes / 1e9:.1f}",
        f"{usable / 1e9:.1f}",
    )
