"""The memory the engine host may fill with models, and what each model takes.

One budget for every worker of the process (the window's model, the API's, the documents'
embedding model), RAM and GPU memory apart.  A model counts by its estimate (the ``fit``
estimate, handed to the host by whoever built it: ``Core.memory_needs``) until its worker's
measured memory is larger: a model's weights are mapped from its file and count in the
measure only once read, and the measure does not see a GPU's memory.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Needs:
    """The memory a model is expected to take once loaded."""

    ram_bytes: int
    vram_bytes: int = 0


@dataclass(frozen=True)
class MemoryBudget:
    """RAM and GPU memory for loaded models; 0 means no limit (GPU memory: none known,
    or memory the GPU shares with the CPU, where RAM is the measure)."""

    ram_bytes: int = 0
    vram_bytes: int = 0

    def fits(self, ram: int, vram: int, new_vram: int) -> bool:
        """Do ``ram`` and ``vram`` (everything counted, the new model included) fit?  GPU
        memory is checked only when the new model asks for some."""
        if self.ram_bytes and ram > self.ram_bytes:
            return False
        return not (self.vram_bytes and new_vram and vram > self.vram_bytes)

    def words(self) -> str:
        ram = f"{self.ram_bytes / 1e9:.1f} GB" if self.ram_bytes else "no limit"
        if not self.vram_bytes:
            return ram
        return f"{ram} of RAM, {self.vram_bytes / 1e9:.1f} GB of GPU memory"


UNLIMITED = MemoryBudget()
