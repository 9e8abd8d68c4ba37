"""A small live readout of memory (and GPU) use while a reply is generated.

Cheap enough to call once a second from a timer: psutil reads a few /proc files and NVML
answers from the driver.  Anything that cannot be read is left out of the line.
"""

from __future__ import annotations

from typing import Any

import psutil

from app.processes import tree_rss
from wire.phrases import Phrase, joined


class UsageSampler:
    def __init__(self, gpus: bool = True) -> None:
        self._nvml: Any = None
        # Without NVIDIA GPUs (as the system check found) NVML is never even loaded.
        self._handles: list[Any] | None = None if gpus else []

    def _gpu_handles(self) -> list[Any]:
        if self._handles is None:
            self._handles = []
            try:
                import pynvml

                pynvml.nvmlInit()
                self._nvml = pynvml
                self._handles = [
                    pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(pynvml.nvmlDeviceGetCount())
                ]
            except Exception:  # noqa: BLE001 - no NVIDIA driver: no GPU part
                self._handles = []
        return self._handles

    def line(self, worker_pid: int | None) -> str:
        """The readout, a ``Phrase`` (the window shows it in its language)."""
        parts: list[str] = []
        if worker_pid is not None:
            rss = tree_rss(worker_pid)
            if rss:
                parts.append(Phrase("model process {0} GB", f"{rss / 1e9:.2f}"))
        memory = psutil.virtual_memory()
        parts.append(
            Phrase(
                "RAM {0}/{1} GB",
                f"{(memory.total - memory.available) / 1e9:.1f}",
                f"{memory.total / 1e9:.1f}",
            )
        )
        for index, handle in enumerate(self._gpu_handles()):
            try:
                info = self._nvml.nvmlDeviceGetMemoryInfo(handle)
                busy = self._nvml.nvmlDeviceGetUtilizationRates(handle).gpu
                parts.append(
                    Phrase(
                        "GPU{0} {1}/{2} GB, {3} %",
                        index,
                        f"{info.used / 1e9:.1f}",
                        f"{info.total / 1e9:.1f}",
                        busy,
                    )
                )
            except Exception:  # noqa: BLE001 - a GPU that went away: skip it
                continue
        return joined(" · ", parts)
