"""Whether one llama.cpp runtime folder can run here: what its probe child says
(``backends/runtime_probe.py``, in a process of its own) and the judgement of that answer.

Shared by the worker's choice of a runtime (``backends/runtimes.py``) and by the
installation of a runtime pack (``app/packs/``), which probes a pack in its staging folder
before it is offered: one rule for "this build runs here" on both sides.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

from wire.child_process import RUNTIME_PROBE, command
from wire.phrases import Phrase

LIB_PATH_ENV = "LLAMA_CPP_LIB_PATH"  # llama-cpp-python's own switch to another build
GPU_KINDS = frozenset({"cuda", "metal", "vulkan"})
# How ggml names each kind's devices ("CUDA0", "Vulkan0", "Metal" or "MTL0"): a runtime
# counts only the GPUs of its own kind (a copy of a Metal build labelled "vulkan" sees a
# Metal GPU, which a Vulkan runtime could not use).
DEVICE_PREFIXES = {"cuda": ("cuda",), "metal": ("metal", "mtl"), "vulkan": ("vulkan",)}
PROBE_TIMEOUT_S = 60.0


def probe(path: str, timeout: float = PROBE_TIMEOUT_S) -> dict[str, Any]:
    """What the build in folder ``path`` ("" for the one installed with llama-cpp-python)
    says about itself, from a subprocess; ``{"error": …}`` if it fails."""
    env = dict(os.environ)
    env.pop(LIB_PATH_ENV, None)
    if path:
        env[LIB_PATH_ENV] = path
    try:
        result = subprocess.run(
            command(RUNTIME_PROBE),
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"error": f"the probe did not finish ({exc})"}
    lines = result.stdout.strip().splitlines()
    try:
        facts = json.loads(lines[-1]) if lines else None
    except ValueError:
        facts = None
    if not isinstance(facts, dict):
        detail = result.stderr.strip().splitlines()[-1:] or [f"exit status {result.returncode}"]
        return {"error": f"its libraries could not be loaded ({detail[0]})"}
    return facts


def judge(kind: str, built_for: str, facts: dict[str, Any], version: str) -> tuple[bool, str]:
    """Can a runtime of ``kind`` built for llama-cpp-python ``built_for`` run models here,
    given its probe's ``facts`` and the installed ``version``; if not, why (a sentence)."""
    if facts.get("error"):
        return False, str(facts["error"])
    if built_for and version and built_for != version:
        return False, Phrase(
            "built for llama-cpp-python {0}, but {1} is installed", built_for, version
        )
    if kind in GPU_KINDS:
        prefixes = DEVICE_PREFIXES[kind]
        gpus = [
            d
            for d in facts.get("devices") or []
            if d.get("type") in ("gpu", "igpu")
            and str(d.get("name") or "").lower().startswith(prefixes)
        ]
        if not gpus:
            return False, Phrase("no {0} GPU was found (is the GPU's driver installed?)", kind)
        names = ", ".join(str(d.get("description") or d.get("name")) for d in gpus)
        return True, Phrase("GPU: {0}", names)
    return True, Phrase("runs on the CPU")
