"""Per-model choices that override Hearth's automatic ones: engine, GPU layers, threads,
context length, dtype.  Kept in ``model_settings.json`` in the data folder, keyed by the
model's path; ``None`` means "let Hearth decide".  What may be chosen, and in which
range, is the engine catalogue's (``app.engines``)."""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from app.engines import CATALOGUE, OPTIONS
from app.json_document import Damaged, JsonDocument, Migration
from wire.phrases import Phrase

log = logging.getLogger(__name__)
OFFERED = frozenset(engine.name for engine in CATALOGUE if engine.offered)


@dataclass
class ModelChoice:
    engine: str | None = None
    gpu_layers: int | None = None  # -1 for all
    threads: int | None = None
    n_ctx: int | None = None
    parallel: int | None = None  # replies at once (llama.cpp slots)
    runtime: str | None = None  # a llama.cpp runtime by name ("cpu", "vulkan", …)
    no_prompt_lookup: bool | None = None
    dtype: str | None = None
    quantization: str | None = None  # "4bit" or "8bit" (CUDA)
    attention: str | None = None  # "sdpa" or "flash_attention_2"
    static_cache: bool | None = None
    allow_pickle: bool | None = None  # load .bin weights (runs code from the file)
    trusted_code: str | None = None  # hash of the model's own code files the user allowed
    # A GGUF model's projector: None, the one beside it; "", none (it reads text only);
    # else the projector file the person chose.
    projector: str | None = None

    def validate(self) -> ModelChoice:
        """This choice if every value is in its range (``app.engines``); ValueError else."""
        if self.engine is not None and self.engine not in OFFERED:
            raise ValueError(Phrase("unknown engine {0!r}", self.engine))
        for key, option in OPTIONS.items():
            option.validate(getattr(self, key))
        return self


# The file kept no version before it had one: version 0 is the bare mapping of paths.
MIGRATIONS: dict[int, Migration] = {0: lambda document: {"models": document}}


class ModelOverrides:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.document = JsonDocument(path, Phrase("model settings"), 1, MIGRATIONS, 0)

    def load(self) -> dict[str, dict[str, Any]]:
        """Every model's choices, by path (a damaged file is set aside: ``document.problem``)."""
        return self._read()

    def _read(self) -> dict[str, dict[str, Any]]:
        def models_of(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
            models = document["models"]
            if not isinstance(models, dict):
                raise Damaged("not a mapping of models")
            return {str(k): v for k, v in models.items() if isinstance(v, dict)}

        return self.document.load(models_of) or {}

    def get(self, model_path: str) -> ModelChoice:
        raw = self._read().get(model_path) or {}
        try:
            known = {k: v for k, v in raw.items() if k in ModelChoice.__annotations__}
            return ModelChoice(**known).validate()
        except (TypeError, ValueError):
            log.warning("ignoring invalid settings for %s", model_path, exc_info=True)
            return ModelChoice()

    def set(self, model_path: str, choice: ModelChoice) -> None:
        data = self._read()
        values = {k: v for k, v in asdict(choice.validate()).items() if v is not None}
        if values:
            data[model_path] = values
        else:
            data.pop(model_path, None)
        self.document.save({"models": data})
