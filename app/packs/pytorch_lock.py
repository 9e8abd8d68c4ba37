"""The PyTorch engine's lock file (``resources/engines/pytorch-lock.json``, written by
``packaging/engines/lock_pytorch.py``): which wheels make the engine on each platform and
variant, at exact versions, each with its address, size and SHA-256; and which variant
fits this machine.

Variants: ``cpu``; ``cuda`` (NVIDIA; the lock names the CUDA version the build needs,
``needs.cuda``, and the driver it takes, ``needs.driver``); ``mps`` (macOS on Apple
silicon); ``rocm`` (AMD on Linux) where a lock offers it.  The choice reads the machine's
facts (the driver's CUDA version from NVML); ``--variant`` overrides it, and a variant
that cannot run here is refused before anything is downloaded, in one sentence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.errors import HearthError
from app.paths import resources_dir
from wire.phrases import Phrase
from wire.platforms import wheel_platform

VARIANTS = ("cpu", "cuda", "rocm", "mps")


@dataclass(frozen=True)
class Wheel:
    name: str
    version: str
    file: str
    url: str
    size: int
    sha256: str


@dataclass(frozen=True)
class EngineSet:
    """The wheels of one variant on one platform, and what the variant needs to run."""

    platform: str
    variant: str
    wheels: tuple[Wheel, ...]
    needs: dict[str, str] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return sum(wheel.size for wheel in self.wheels)

    def version_of(self, name: str) -> str:
        return next((w.version for w in self.wheels if w.name == name), "")


def lock_file() -> Path:
    return resources_dir() / "engines" / "pytorch-lock.json"


def read_lock(path: Path | None = None) -> dict[str, Any]:
    try:
        lock = json.loads((path or lock_file()).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise HearthError(
            Phrase("The PyTorch engine's lock file cannot be read ({0}): reinstall Hearth.", exc)
        ) from exc
    if not isinstance(lock, dict) or lock.get("lock_version") != 1:
        raise HearthError(Phrase("The PyTorch engine's lock file is of another version."))
    return lock


def engine_set(lock: dict[str, Any], variant: str, platform: str | None = None) -> EngineSet:
    """The variant's wheels here; HearthError in words when this version offers none."""
    platform = platform or wheel_platform()
    offered = lock.get("platforms", {}).get(platform)
    if not offered:
        raise HearthError(
            Phrase("This version of Hearth offers no PyTorch engine for {0}.", platform)
        )
    chosen = offered.get(variant)
    if chosen is None:
        raise HearthError(
            Phrase(
                "This version of Hearth offers no {0} PyTorch engine for {1} (it has: {2}).",
                variant,
                platform,
                ", ".join(offered),
            )
        )
    wheels = tuple(
        Wheel(
            str(w["name"]),
            str(w["version"]),
            str(w["file"]),
            str(w["url"]),
            int(w["size"]),
            str(w["sha256"]),
        )
        for w in chosen["wheels"]
    )
    needs = {str(k): str(v) for k, v in (chosen.get("needs") or {}).items()}
    return EngineSet(platform, variant, wheels, needs)


def offered_variants(lock: dict[str, Any], platform: str | None = None) -> list[str]:
    return list(lock.get("platforms", {}).get(platform or wheel_platform(), {}))


def _version(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split("."):
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def cuda_refusal(needs: dict[str, str], gpus: list[Any]) -> str:
    """Why a CUDA build cannot run here ("" when it can): no NVIDIA GPU, or a driver that
    supports an older CUDA than the build needs."""
    if not gpus:
        return Phrase("there is no NVIDIA GPU (with its driver) on this computer")
    supported = max((str(getattr(g, "cuda_driver_version", "") or "") for g in gpus), key=_version)
    wanted = needs.get("cuda", "")
    if wanted and supported and _version(supported) < _version(wanted):
        return Phrase(
            "the driver supports CUDA {0}; this build needs {1} (NVIDIA's driver {2} or newer)",
            supported,
            wanted,
            needs.get("driver", "?"),
        )
    return ""


def macos_refusal(needs: dict[str, str], running: str) -> str:
    """Why a Metal (MPS) build cannot run on macOS ``running`` ("" when it can, or when
    either version is unknown)."""
    wanted = needs.get("macos", "")
    if wanted and running and _version(running) < _version(wanted):
        return Phrase(
            "this Mac has macOS {0}; this build needs macOS {1} or newer", running, wanted
        )
    return ""


def choose_variant(lock: dict[str, Any], gpus: list[Any], platform: str | None = None) -> str:
    """The variant for this machine: CUDA where its build runs on the NVIDIA GPU here,
    MPS on Apple silicon, else the CPU."""
    offered = offered_variants(lock, platform)
    if "mps" in offered:
        return "mps"
    if "cuda" in offered and gpus:
        cuda = lock["platforms"][platform or wheel_platform()]["cuda"]
        if not cuda_refusal({str(k): str(v) for k, v in cuda.get("needs", {}).items()}, gpus):
            return "cuda"
    return "cpu" if "cpu" in offered else (offered[0] if offered else "cpu")
