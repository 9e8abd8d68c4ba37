"""One model's place in the engine host: its worker, who leases it, and when it was last
used (for the keep-alive and the least-recently-used choice)."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Any

from app.engine.budget import Needs
from app.engine.faults import heavy_asks
from app.engine.jobs import Job
from app.engine.process import WorkerProcess
from app.engine.stuck import stop_if_stalled
from wire.engine_traits import traits_of
from wire.model_spec import ModelSpec

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Loaded:
    """A model with a live worker, as lists show it (Loaded models, ``/api/ps``)."""

    spec: ModelSpec
    label: str
    pid: int
    memory_bytes: int
    vram_bytes: int
    busy: bool
    pinned: bool
    purposes: tuple[str, ...]  # who has leased it: chat, api, documents
    expires_at: float | None  # a time.time() stamp; None while leased
    facts: dict[str, Any]
    last_used: float
    slots: int = 1  # replies it writes at once
    replies: int = 0  # replies not yet done (beyond ``slots``: waiting their turn)
    runtime: str = ""  # the llama.cpp runtime its worker runs ("" for other engines)

    @property
    def waiting(self) -> int:
        return max(0, self.replies - self.slots)


# A request waiting for its model's worker to start: the job, its spec, what it sends, and
# whether it was sent once already.
Parked = tuple[Job, ModelSpec, dict[str, Any], bool]


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
    follows_default: bool = True  # released without a keep-alive of its own
    measured: int = 0
    # Requests taken and not yet on a worker (the model is in use), and those among them
    # that wait for its worker to start (``starting``).
    waiting: set[int] = field(default_factory=set)
    parked: list[Parked] = field(default_factory=list)
    starting: bool = False

    def live(self) -> WorkerProcess | None:
        worker = self.worker
        return worker if worker is not None and not worker.dead else None

    @property
    def busy(self) -> bool:
        """Requests in flight: on its worker, or on their way to it."""
        worker = self.live()
        return bool(self.waiting) or (worker is not None and worker.busy)

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

    def as_loaded(self, now: float, wall: float) -> Loaded | None:
        """Its row in the lists of loaded models (None without a live worker); ``now`` on
        the host's clock, ``wall`` the same moment on ``time.time()``."""
        worker = self.live()
        if worker is None:
            return None
        expires = (
            None
            if self.leases or math.isinf(self.keep_alive_s)
            else wall + max(self.keep_alive_s - (now - self.last_used), 0.0)
        )
        return Loaded(
            self.spec,
            self.label,
            worker.pid,
            self.memory(),
            self.gpu_memory(),
            self.busy,
            bool(self.pinned),
            tuple(sorted(self.purposes)),
            expires,
            dict(worker.loaded_facts),
            self.last_used,
            max(1, int(worker.loaded_facts.get("parallel") or 1)),
            worker.replies(),
            worker.runtime[0] if worker.runtime is not None else "",
        )


# A worker may grow past its model's estimate (a long context, a runtime's buffers, the
# prompt cache), but never by this much: beyond it a request is making it allocate without
# end (a schema the bounds missed, a runaway library), and it is stopped before the
# computer starts to swap.  Growth is counted from the larger of the estimate and the
# worker's size once the model was loaded (weights resident on Apple's unified memory, a
# checkpoint loaded in float32 by transformers on a CPU).
GROWTH_FACTOR = 1.5
GROWTH_ALLOWANCE = 2 * 1024**3


def stop_if_grown(hosted: Hosted) -> bool:
    """Kill ``hosted``'s worker when its memory is past 1.5 × (its model's size, loaded
    or estimated, plus the prompt cache) + 2 GiB (every platform: the host watches, as no
    OS limit is safe for a GPU process); its requests are then told why (``faults.died``).
    Only once the model has loaded, and never a remote engine's.  True when killed."""
    worker = hosted.live()
    if worker is None or not worker.model_loaded or not traits_of(hosted.spec.engine).loads_weights:
        return False
    needs = hosted.needs.ram_bytes if hosted.needs else 0
    base = max(needs, worker.loaded_rss) + hosted.spec.prompt_cache_mb * 1024**2
    size = worker.memory()
    if size <= base * GROWTH_FACTOR + GROWTH_ALLOWANCE:
        return False
    log.warning(
        "worker pid %s grew to %d MB (its model takes about %d MB); stopping it",
        worker.pid,
        size // 2**20,
        base // 2**20,
    )
    worker.killed_grown = size
    worker.grown_cause = heavy_asks(worker.messages_in_flight())
    worker.kill()
    return True


def watch_worker(hosted: Hosted, stall_s: float) -> None:
    """The sweeper's look at ``hosted``'s worker: grown far past its model, or stalled
    with requests in flight (not a remote engine: its server's own timeout governs)."""
    if not stop_if_grown(hosted) and traits_of(hosted.spec.engine).loads_weights:
        stop_if_stalled(hosted.live(), stall_s)
