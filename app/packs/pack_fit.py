"""Whether a runtime pack fits a machine, from the machine's facts alone (nothing is
downloaded or loaded to know it), and why not in one sentence.

The rules for a CUDA pack (docs/RUNTIMES.md, "Packs", has the table and its source):

* **The driver's CUDA version.**  A program built with a CUDA 12.x toolkit runs on any
  driver that supports CUDA 12.0 or later (NVIDIA's minor version compatibility: driver
  525 or later; CUDA 13.x: 580 or later), so a pack asks the driver for its
  ``min_cuda_driver`` (12.0, 13.0) and the driver version ``min_driver``, not for the
  toolkit it was built with.
* **The GPUs' compute capability.**  A pack carries kernels (SASS) for some compute
  capabilities; a kernel for X.Y runs on X.Y and later minors of the same major (8.6 on
  8.9), never on another major.  A GPU that has none may still run the pack's PTX, which
  the driver compiles for any GPU at least as new as the PTX, but only a driver that knows
  the toolkit's CUDA version can (minor version compatibility does not cover PTX).
  Every NVIDIA GPU must be covered: llama.cpp uses them all.
"""

from __future__ import annotations

from app.machine.hardware import GpuFacts, SystemFacts
from app.packs.pack_manifest import Pack, describe, platform_of
from wire import cpu_features
from wire.phrases import Phrase


def why_not(pack: Pack, facts: SystemFacts) -> str:
    """Why ``pack`` cannot run on the machine of ``facts`` (a sentence); "" when it can."""
    system, arch = platform_of(facts)
    if (pack.os, pack.arch) != (system, arch):
        return Phrase(
            "this pack is for {0}; this computer is {1}",
            describe(pack.os, pack.arch),
            describe(system, arch),
        )
    have = {cpu_features.normalise(flag) for flag in facts.cpu.features}
    lacking = [f for f in pack.cpu_features if cpu_features.normalise(f) not in have]
    if lacking:
        return Phrase("this CPU lacks {0}, which this pack needs", ", ".join(lacking).upper())
    if pack.kind != "cuda":
        return ""
    gpus = facts.nvidia_gpus
    if not gpus:
        return Phrase("no NVIDIA GPU")
    supports, driver = gpus[0].cuda_driver_version, gpus[0].driver_version
    if pack.min_cuda_driver and older(supports, pack.min_cuda_driver):
        return Phrase(
            "the driver supports CUDA {0}; this pack needs {1}", supports, pack.min_cuda_driver
        )
    if pack.min_driver and older(driver, pack.min_driver):
        return Phrase(
            "the NVIDIA driver is version {0}; this pack needs {1} or later",
            driver,
            pack.min_driver,
        )
    for gpu in gpus:
        reason = _kernels_for(pack, gpu)
        if reason:
            return reason
    return ""


def _kernels_for(pack: Pack, gpu: GpuFacts) -> str:
    capability = version_key(gpu.compute_capability)
    if not capability or not (pack.compute_capabilities or pack.ptx):
        return ""  # not known (an old NVML, a pack that does not say): the probe decides
    if any(
        kernel[:1] == capability[:1] and kernel <= capability
        for kernel in map(version_key, pack.compute_capabilities)
    ):
        return ""
    if any(version_key(ptx) <= capability for ptx in pack.ptx):
        if pack.cuda and older(gpu.cuda_driver_version, pack.cuda):
            return Phrase(
                "the GPU (compute capability {0}) needs this pack's PTX compiled by a driver "
                "that supports CUDA {1}; the driver supports {2}",
                gpu.compute_capability,
                pack.cuda,
                gpu.cuda_driver_version,
            )
        return ""
    kernels = [version_key(k) for k in (*pack.compute_capabilities, *pack.ptx)]
    if kernels and capability < min(kernels):
        return Phrase(
            "the GPU (compute capability {0}) is older than this pack's kernels",
            gpu.compute_capability,
        )
    return Phrase(
        "this pack has no kernels for the GPU (compute capability {0})", gpu.compute_capability
    )


def version_key(text: str) -> tuple[int, ...]:
    """``"535.183.01"`` as (535, 183, 1); () when it is no version."""
    try:
        return tuple(int(part) for part in text.strip().split("."))
    except ValueError:
        return ()


def older(found: str, needed: str) -> bool:
    """Whether version ``found`` is before ``needed`` (an unknown one is not)."""
    have, need = version_key(found), version_key(needed)
    return bool(have and need) and have < need


def best(packs: list[Pack], facts: SystemFacts) -> str:
    """The name of the pack to offer first: of those that fit, the newest CUDA (a driver
    that runs CUDA 13 runs its pack; one that cannot is left with CUDA 12's)."""
    fitting = [pack for pack in packs if not why_not(pack, facts)]
    if not fitting:
        return ""
    return max(fitting, key=lambda pack: (version_key(pack.cuda), pack.name)).name
