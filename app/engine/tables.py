"""The engine host's tables: each model's place (``Hosted``), who leases it, which worker
serves it, when it may leave, and what must end to make room for another.

They are the host's state, read and written on the host's own thread alone
(``app.engine.host``), so they hold no lock.  Every change that ends models returns their
workers, which the host ends off its thread; what the other threads may read is
``snapshot``, published by the host after each of its actions.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path

from app.engine.budget import MemoryBudget, Needs
from app.engine.hosted import Hosted
from app.engine.lease import Lease
from app.engine.process import WorkerProcess
from app.engine.room import to_end_for
from wire.model_spec import ModelSpec

log = logging.getLogger(__name__)


class Tables:
    def __init__(
        self, clock: Callable[[], float], keep_alive_s: float, budget: Callable[[], MemoryBudget]
    ) -> None:
        self.clock, self.budget = clock, budget
        self.keep_alive_s = keep_alive_s  # for models nobody leases
        self.closed = False
        self._hosted: dict[ModelSpec, Hosted] = {}
        self._entry_of: dict[WorkerProcess, Hosted] = {}

    def snapshot(self) -> tuple[Hosted, ...]:
        return tuple(self._hosted.values())

    def holds(self, hosted: Hosted) -> bool:
        """``hosted`` is still in the host (not ended for room, its time or an unload)."""
        return self._hosted.get(hosted.spec) is hosted

    # -- leases --------------------------------------------------------------------------
    def join(self, lease: Lease, label: str) -> None:
        """Count ``lease`` on its model's place, made if new, and tell the lease."""
        hosted = self._hosted.get(lease.spec)
        if hosted is None:
            name = label or Path(lease.spec.path).name
            hosted = Hosted(lease.spec, name, self.clock(), self.keep_alive_s)
            if not self.closed:
                self._hosted[lease.spec] = hosted
        hosted.leases += 1
        hosted.pinned += int(lease.pinned)
        hosted.purposes.add(lease.purpose)
        hosted.label = label or hosted.label
        hosted.last_used = self.clock()
        lease.joined(hosted)

    def leave(
        self, hosted: Hosted, pinned: bool, keep_alive_s: float | None
    ) -> list[WorkerProcess]:
        hosted.leases -= 1
        hosted.pinned -= int(pinned)
        hosted.last_used = self.clock()
        hosted.keep_alive_s = self.keep_alive_s if keep_alive_s is None else keep_alive_s
        hosted.follows_default = keep_alive_s is None
        return self.expire(hosted)

    # -- workers -------------------------------------------------------------------------
    def place_of(self, worker: WorkerProcess) -> Hosted | None:
        return self._entry_of.get(worker)

    def used(self, worker: WorkerProcess) -> None:
        hosted = self._entry_of.get(worker)
        if hosted is not None:
            hosted.last_used = self.clock()

    def adopt(self, hosted: Hosted, worker: WorkerProcess) -> WorkerProcess | None:
        """``worker`` serves ``hosted`` now; the one it replaces, if any, to end once idle."""
        current = hosted.live()
        hosted.worker = worker
        self._entry_of[worker] = hosted
        return current

    def forget(self, worker: WorkerProcess) -> Hosted | None:
        """``worker`` has ended: its model leaves unless leased.  The model's place."""
        hosted = self._entry_of.pop(worker, None)
        if hosted is not None and hosted.worker is worker:
            hosted.worker = None
            if hosted.leases == 0 and self.holds(hosted):
                del self._hosted[hosted.spec]
        return hosted

    def make_room(self, hosted: Hosted, needs: Needs) -> list[WorkerProcess]:
        """Take out the idle models in ``hosted``'s way; their workers, to end.  NoRoom
        (``app.engine.room``) when only models in use are in the way of a lease not
        pinned."""
        if self.closed:
            raise OSError("the engine host is closed")
        loaded = [h for h in self._hosted.values() if h is not hosted and h.live() is not None]
        ending = to_end_for(hosted, needs, loaded, self.budget())
        for victim in ending:
            del self._hosted[victim.spec]
            log.info("unloading %s (room for %s)", victim.label, hosted.label)
        return _live(ending)

    def take_out(self, key: ModelSpec) -> WorkerProcess | None:
        """Unload: an idle model's worker, taken out to end; None when it is leased, busy
        or not loaded."""
        hosted = self._hosted.get(key)
        worker = hosted.live() if hosted is not None else None
        if hosted is None or worker is None or not hosted.idle:
            return None
        del self._hosted[key]
        return worker

    # -- time to live --------------------------------------------------------------------
    def expire(self, hosted: Hosted) -> list[WorkerProcess]:
        """Take ``hosted`` out when nobody leases it, it is idle and its keep-alive is
        over; its worker, to end."""
        if hosted.leases or hosted.busy:
            return []
        if self.clock() - hosted.last_used < hosted.keep_alive_s:
            return []
        if self.holds(hosted):
            del self._hosted[hosted.spec]
        if hosted.live() is not None:
            log.info("unloading %s (idle)", hosted.label)
        return _live([hosted])

    def expire_idle(self) -> list[WorkerProcess]:
        """Every model past its time: their workers, to end.  A busy one was used now."""
        now = self.clock()
        ending: list[WorkerProcess] = []
        for hosted in list(self._hosted.values()):
            if hosted.busy:
                hosted.last_used = now
            ending += self.expire(hosted)
        return ending

    def set_keep_alive(self, seconds: float, used_by: str) -> list[WorkerProcess]:
        """The default keep-alive from now on, for the idle models that follow it, and with
        ``used_by`` for those that purpose leased too; those now past it, to end."""
        self.keep_alive_s = seconds
        for hosted in self._hosted.values():
            if not hosted.leases and (hosted.follows_default or used_by in hosted.purposes):
                hosted.keep_alive_s = seconds
        return self.expire_idle()

    def close(self) -> tuple[set[WorkerProcess], list[Hosted]]:
        """Empty the tables: every worker, to end, and the models with requests parked."""
        if self.closed:
            return set(), []
        self.closed = True
        hosted = list(self._hosted.values())
        self._hosted.clear()
        return set(_live(hosted)) | set(self._entry_of), [h for h in hosted if h.parked]


def _live(hosted: Iterable[Hosted]) -> list[WorkerProcess]:
    return [w for w in (h.live() for h in hosted) if w is not None]
