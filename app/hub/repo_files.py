"""What a repository offers, grouped the way a person chooses.

A GGUF repository offers one row per quantization (``Q4_K_M``, ``Q8_0``…), with sharded
files (``-00001-of-00003.gguf``) grouped as one row.  A transformers repository offers
the checkpoint as one unit: weights, config and tokenizer files together.  A repository
with only pickle weights (``.bin``/``.pt``) is shown with a warning, because loading a
pickle runs code.

Every file name from a hub passes ``safe_relative_path`` before it can name a path on
disk: ``../``, absolute paths and drive letters are refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from wire.phrases import Phrase

QUANT_PATTERN = re.compile(
    r"(?:^|[-_.])(I?Q\d(?:_[0-9A-Z]{1,3})*|BF16|F16|FP16|F32|TQ[12]_0|MXFP4(?:_MOE)?)(?=$|[-.])",
    re.IGNORECASE,
)
SHARD_PATTERN = re.compile(r"-(\d{5})-of-(\d{5})\.gguf$", re.IGNORECASE)
WEIGHT_SUFFIXES = (".safetensors",)
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl")
CHECKPOINT_EXTRAS = (
    "config.json",
    "generation_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "tokenizer.model",
    "special_tokens_map.json",
    "vocab.json",
    "merges.txt",
    "added_tokens.json",
    "chat_template.jinja",
    "chat_template.json",
    "model.safetensors.index.json",
    "pytorch_model.bin.index.json",
)


class UnsafePath(ValueError):
    """A repository file name that would escape the download folder."""


def safe_relative_path(name: str) -> PurePosixPath:
    """The repo file name as a relative path inside the target folder, or UnsafePath."""
    if not name or "\\" in name or "\0" in name:
        raise UnsafePath(Phrase("refusing the file name {0!r}", name))
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        raise UnsafePath(Phrase("refusing the absolute file name {0!r}", name))
    path = PurePosixPath(name)
    if any(part in ("..", ".", "") for part in name.split("/")):
        raise UnsafePath(Phrase("refusing the file name {0!r}: it leaves the model folder", name))
    return path


@dataclass(frozen=True)
class RepoFile:
    path: str
    size: int
    sha256: str = ""  # LFS hash (Hugging Face) or file hash (ModelScope)
    git_sha1: str = ""  # Hugging Face's blob id for small non-LFS files


@dataclass
class Offer:
    """One thing to download: a quantization, a checkpoint, or a single file."""

    label: str
    kind: str  # "gguf", "checkpoint", "pickle-checkpoint" or "file"
    files: list[RepoFile] = field(default_factory=list)
    quantization: str = ""
    warning: str = ""
    # A vision model's projector, one of ``files``: downloaded with the model as one unit.
    projector: RepoFile | None = None

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def model_size(self) -> int:
        """The model's own files (without its projector)."""
        return self.size - (self.projector.size if self.projector is not None else 0)

    @property
    def is_projector(self) -> bool:
        return (
            self.kind == "gguf"
            and bool(self.files)
            and all("mmproj" in PurePosixPath(f.path).name.lower() for f in self.files)
        )


def quantization_of(name: str) -> str:
    """The quantization named in a GGUF file name (``Q4_K_M``), upper-case, or ''."""
    stem = SHARD_PATTERN.sub(".gguf", PurePosixPath(name).name)
    stem = re.sub(r"\.gguf$", "", stem, flags=re.IGNORECASE)
    matches = QUANT_PATTERN.findall(stem)
    return matches[-1].upper() if matches else ""


def group_files(files: list[RepoFile]) -> list[Offer]:
    """Group a repository's files into offers, largest choice set first."""
    offers: list[Offer] = []
    ggufs = [f for f in files if f.path.lower().endswith(".gguf")]
    by_quant: dict[str, Offer] = {}
    for file in sorted(ggufs, key=lambda f: f.path):
        name = PurePosixPath(file.path).name
        quant = quantization_of(name)
        base = SHARD_PATTERN.sub("", name) if SHARD_PATTERN.search(name) else name
        key = quant or base
        if "mmproj" in name.lower():
            key = f"mmproj:{name}"
        offer = by_quant.get(key)
        if offer is None:
            label = quant or name
            if key.startswith("mmproj:"):
                label = f"{name} (vision projector)"
            offer = Offer(label=label, kind="gguf", quantization=quant)
            by_quant[key] = offer
        offer.files.append(file)
    projectors = [o.files[0] for key, o in by_quant.items() if key.startswith("mmproj:")]
    if projectors:  # a vision model: each of its files comes with the projector
        chosen = best_projector(projectors)
        for key, offer in by_quant.items():
            if not key.startswith("mmproj:"):
                offer.files.append(chosen)
                offer.projector = chosen
    offers.extend(sorted(by_quant.values(), key=lambda o: (o.is_projector, o.size)))

    names = {PurePosixPath(f.path).name for f in files}
    weights = [f for f in files if f.path.endswith(WEIGHT_SUFFIXES)]
    pickles = [f for f in files if f.path.endswith(PICKLE_SUFFIXES)]
    extras = [f for f in files if PurePosixPath(f.path).name in CHECKPOINT_EXTRAS]
    if "config.json" in names and weights:
        unit = [*weights, *(e for e in extras if not e.path.endswith(".bin.index.json"))]
        offers.append(Offer(label="Checkpoint (safetensors)", kind="checkpoint", files=unit))
    elif "config.json" in names and pickles:
        offers.append(
            Offer(
                label="Checkpoint (pickle weights)",
                kind="pickle-checkpoint",
                files=[*pickles, *extras],
                warning="This repository only has pickle weights (.bin). Loading a pickle can run "
                "code from the file, so Hearth will not load it unless you allow it for "
                "this model.",
            )
        )
    return offers


def best_projector(projectors: list[RepoFile]) -> RepoFile:
    """The projector a model is downloaded with when a repository has several: full
    precision first (f16, then bf16, then f32: the picture side is small, and its
    quantization costs more than it saves), else the largest."""
    for precision in ("f16", "bf16", "f32"):
        for file in projectors:
            stem = PurePosixPath(file.path).stem.lower()
            if re.search(rf"(^|[-_.]){precision}($|[-_.])", stem):
                return file
    return max(projectors, key=lambda f: (f.size, f.path))


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if value < 1000 or unit == "TB":
            return f"{value:.0f} {unit}" if unit in ("B", "KB") else f"{value:.1f} {unit}"
        value /= 1000
    return f"{size} B"


def human_duration(seconds: float) -> str:
    """A short 'time left': 2 h 05 min, 3 min 20 s, 45 s."""
    whole = int(seconds)
    if whole >= 3600:
        return f"{whole // 3600} h {whole % 3600 // 60:02d} min"
    if whole >= 60:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole} s"
