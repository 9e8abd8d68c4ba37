"""One model's place in the engine host: its worker, who leases it, and when it was last
used (for the keep-alive and the least-recently-used choice)."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.engine.budget import Needs
from app.engine.process import WorkerProcess
from wire.model_spec import ModelSpec


@dataclass(eq=False)
class Hosted:
    """One spec's place in the host: its worker, who leases it, and when it was used."""

    spec: ModelSpec
    label: str
    last_used: float
    keep_alive_s: float
    worker: WorkerProcess | None = None
    leases: int = 0
    pinned: int = 0
    purposes: set[str] = field(default_factory=set)  # who has leased it: chat, api…
    needs: Needs | None = None
    measured: int = 0

    def live(self) -> WorkerProcess | None:
        worker = self.worker
        return worker if worker is not None and not worker.dead else None

    @property
    def busy(self) -> bool:
        worker = self.live()
        return worker is not None and worker.busy

    @property
    def idle(self) -> bool:
        return self.leases == 0 and not self.busy

    def memory(self) -> int:
        worker = self.live()
        if worker is not None:
            self.measured = max(self.measured, worker.memory())
        return max(self.measured, self.needs.ram_bytes if self.needs else 0)

    def gpu_memory(self) -> int:
        return self.needs.vram_bytes if self.needs else 0
