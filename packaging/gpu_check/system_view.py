"""What Hearth itself says about the machine and a model: ``hearth sysinfo --json`` (its
GPUs, engines and llama.cpp runtimes: the System check) and ``hearth fit MODEL --json``
(where the model will run and the memory that takes), run as a user runs them, with the
runtimes the check built."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

# The System check's parts worth a line in the report (the rest is CPU and disk detail).
SYSINFO_KEYS = ("gpus", "engines", "runtimes", "notes")


def hearth_json(*arguments: str, timeout: float = 120) -> dict[str, Any]:
    """The JSON a ``hearth`` command printed ({"error": ...} when it failed)."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "hearth", *arguments],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    try:
        parsed = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"error": f"exit {done.returncode}: {(done.stderr or done.stdout)[-1500:]}"}
    return parsed if isinstance(parsed, dict) else {"result": parsed}


def system_check(timeout: float) -> dict[str, Any]:
    facts = hearth_json("sysinfo", "--json", timeout=timeout)
    if "error" in facts:
        return facts
    return {key: facts.get(key) for key in SYSINFO_KEYS}


def fit(model: Path, n_ctx: int, timeout: float) -> dict[str, Any]:
    return hearth_json("fit", str(model), "--ctx", str(n_ctx), "--json", timeout=timeout)
