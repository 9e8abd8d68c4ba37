"""GPU memory as ``nvidia-smi`` sees it: the machine's GPU, and the most an engine's
worker used while it ran.

In a container ``nvidia-smi`` often lists no processes, or the host's process ids, so a
worker's own use cannot always be read.  Then the GPU's whole use is taken, less what was
in use before the worker started (the watch runs only while Hearth's worker is the one
using the GPU: llama-bench runs after it), and the report says which was measured."""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Callable
from typing import Any

POLL_S = 0.25


def nvidia_smi(*arguments: str) -> str:
    """``nvidia-smi``'s output, or "" when it is missing, fails or hangs."""
    if shutil.which("nvidia-smi") is None:
        return ""
    try:
        return subprocess.run(
            ["nvidia-smi", *arguments], capture_output=True, text=True, check=False, timeout=20
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def gpu_facts() -> dict[str, Any]:
    """The first GPU: name, memory, driver and compute capability ("" when none)."""
    query = "name,memory.total,driver_version,compute_cap"
    out = nvidia_smi(f"--query-gpu={query}", "--format=csv,noheader")
    if not out:
        return {}
    rows = [[p.strip() for p in line.split(",")] for line in out.splitlines()]
    gpus = [row for row in rows if len(row) == 4]  # not a warning nvidia-smi adds
    if not gpus:
        return {"nvidia_smi": out[:200]}
    name, memory, driver, capability = gpus[0]
    return {
        "gpu": name,
        "gpus": len(gpus),
        "memory": memory,
        "driver": driver,
        "compute_capability": capability,
        "cuda_arch": capability.replace(".", ""),
    }


def used_mib() -> int | None:
    """Memory in use on the first GPU (MiB)."""
    out = nvidia_smi("--query-gpu=memory.used", "--format=csv,noheader,nounits")
    first = out.splitlines()[0].strip() if out else ""
    return int(first) if first.isdigit() else None


def process_mib(pid: int | None) -> int | None:
    """Memory the process ``pid`` uses on the GPUs (MiB), when nvidia-smi lists it."""
    if pid is None:
        return None
    out = nvidia_smi("--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits")
    total = None
    for line in out.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 2 and parts[0] == str(pid) and parts[1].isdigit():
            total = (total or 0) + int(parts[1])
    return total


class WorkerGpuMemory:
    """The most GPU memory a worker used while watched."""

    def __init__(self, pid: Callable[[], int | None]) -> None:
        self._pid = pid
        self._baseline = used_mib()
        self.own_peak: int | None = None
        self.whole_peak: int | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def start(self) -> None:
        if shutil.which("nvidia-smi"):
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(30)

    def _watch(self) -> None:
        while not self._stop.wait(POLL_S):
            own = process_mib(self._pid())
            if own is not None:
                self.own_peak = max(self.own_peak or 0, own)
            whole = used_mib()
            if whole is not None and self._baseline is not None:
                self.whole_peak = max(self.whole_peak or 0, whole - self._baseline)

    def result(self) -> dict[str, Any]:
        if self.own_peak is not None:
            return {"used_mib": self.own_peak, "how": "the worker's process (nvidia-smi)"}
        if self.whole_peak is not None:
            return {
                "used_mib": self.whole_peak,
                "how": "the whole GPU less what was in use before the worker started "
                "(nvidia-smi lists no process of this machine's)",
            }
        return {"used_mib": None, "how": "nvidia-smi gave no figures"}
