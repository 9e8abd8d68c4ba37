"""What the installed engines can do, printed as one JSON line.

Run as a short-lived subprocess (``python -m backends.capabilities``) so that importing
llama_cpp or torch never happens in the UI process.  Each engine is optional: an engine
that is not installed, or fails to import, is reported, not raised.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from wire.engine_overlay import use_overlay


def llama_cpp_facts() -> dict[str, Any]:
    """The llama.cpp runtimes (each probed in a process of its own, never in this one)."""
    from backends.runtimes import statuses_json, survey

    statuses = survey()
    built_in = statuses[-1]
    if not built_in.usable:
        return {
            "llama_cpp_version": "",
            "llama_gpu_offload": None,
            "error": f"llama_cpp: {built_in.reason}",
            "runtimes": statuses_json(statuses),
        }
    return {
        "llama_cpp_version": _llama_version(),
        "llama_gpu_offload": any(s.usable and s.kind != "cpu" for s in statuses)
        or any(d.get("type") in ("gpu", "igpu") for d in built_in.devices),
        "runtimes": statuses_json(statuses),
    }


def _llama_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("llama_cpp_python")
    except PackageNotFoundError:
        return ""


def torch_facts() -> dict[str, Any]:
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None:
        return {"installed": False}
    built = _torch_build(spec.origin)
    if built is not None and not built["gpu"]:
        # A build without CUDA or ROCm can use no GPU: importing it (two seconds of CPU at
        # every start, on every machine without a GPU) would tell nothing more.
        return {
            "installed": True,
            "version": built["version"],
            "cuda_version": "",
            "cuda_available": False,
            "arch_list": [],
            "bf16_supported": False,
        }
    try:
        import torch
    except Exception as exc:  # noqa: BLE001
        return {"installed": True, "error": str(exc)}
    cuda_available = bool(torch.cuda.is_available())
    facts: dict[str, Any] = {
        "installed": True,
        "version": str(torch.__version__),
        "cuda_version": str(torch.version.cuda or ""),
        "cuda_available": cuda_available,
        "arch_list": list(torch.cuda.get_arch_list()) if torch.version.cuda else [],
        "bf16_supported": bool(cuda_available and torch.cuda.is_bf16_supported()),
    }
    return facts


def _torch_build(origin: str | None) -> dict[str, Any] | None:
    """The installed torch's version and whether it was built for a GPU, read from its
    ``version.py`` (plain assignments that its build writes) without importing torch;
    None where that file is missing or unlike one."""
    import ast
    from pathlib import Path

    if not origin:
        return None
    try:
        tree = ast.parse(Path(origin).with_name("version.py").read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    values: dict[str, Any] = {}
    for node in tree.body:
        target: ast.expr | None = None
        if isinstance(node, ast.AnnAssign):
            target = node.target
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and value is not None:
            try:
                values[target.id] = ast.literal_eval(value)
            except ValueError:
                continue
    version = values.get("__version__")
    if not isinstance(version, str) or not {"cuda", "hip"} <= values.keys():
        return None
    return {"version": version, "gpu": values["cuda"] is not None or values["hip"] is not None}


def main() -> int:
    # A background probe: importing torch costs seconds of CPU, which must not slow a reply.
    if hasattr(os, "nice"):
        os.nice(10)
    facts = llama_cpp_facts()
    use_overlay()  # the PyTorch engine added after install, when its parent names it
    facts["torch"] = torch_facts()
    sys.stdout.write(json.dumps(facts) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
