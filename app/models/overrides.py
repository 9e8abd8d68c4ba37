"""Per-model choices that override Hearth's automatic ones: engine, GPU layers, threads,
context length, dtype.  Kept in ``model_settings.json`` in the data folder, keyed by the
model's path; ``None`` means "let Hearth decide"."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from app.files import write_text_atomically

log = logging.getLogger(__name__)


@dataclass
class ModelChoice:
    engine: str | None = None
    gpu_layers: int | None = None  # -1 for all
    threads: int | None = None
    n_ctx: int | None = None
    dtype: str | None = None
    quantization: str | None = None  # "4bit" or "8bit" (CUDA)
    attention: str | None = None  # "sdpa" or "flash_attention_2"
    static_cache: bool | None = None
    allow_pickle: bool | None = None  # load .bin weights (runs code from the file)
    trusted_code: str | None = None  # hash of the model's own code files the user allowed

    def validate(self) -> ModelChoice:
        if self.gpu_layers is not None and self.gpu_layers < -1:
            raise ValueError("GPU layers must be -1 (all), 0 or more")
        if self.threads is not None and not 1 <= self.threads <= 512:
            raise ValueError("threads must be between 1 and 512")
        if self.n_ctx is not None and not 256 <= self.n_ctx <= 1_048_576:
            raise ValueError("the context length must be between 256 and 1048576")
        if self.engine not in (None, "llama_cpp", "transformers"):
            raise ValueError(f"unknown engine {self.engine!r}")
        if self.dtype not in (None, "auto", "bfloat16", "float16", "float32"):
            raise ValueError(f"unknown dtype {self.dtype!r}")
        if self.quantization not in (None, "", "4bit", "8bit"):
            raise ValueError(f"unknown quantization {self.quantization!r}")
        if self.attention not in (None, "sdpa", "flash_attention_2"):
            raise ValueError(f"unknown attention {self.attention!r}")
        return self


class ModelOverrides:
    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            log.warning("model settings unreadable; ignoring them", exc_info=True)
            return {}

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
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomically(self.path, json.dumps(data, indent=2))
