"""Requests that compute, waiting for a share of the cores before they reach their worker.

The shares themselves are ``app.engine.cores``; this is the engine host's side of them:
which request waits for which worker (the worker counts as busy meanwhile), the share
given back however the request ends, and what to do with the requests still waiting when
their worker dies (each goes to a new worker once, through the ``again`` it was queued
with).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.engine.cores import CoreShares
from app.engine.jobs import Job
from app.engine.process import WorkerProcess
from wire import protocol


@dataclass
class Queued:
    """A request waiting for a share of the cores: sent again if its worker ends first."""

    job: Job
    owner: object  # whose model it is for (the host's ``Hosted``)
    worker: WorkerProcess
    resent: bool  # sent again once already (a worker that dies at once is not retried)
    again: Callable[[], None]  # sends it to a new worker for its model


class CoreQueue:
    def __init__(self, cores: int) -> None:
        self.shares = CoreShares(cores)
        self._lock = threading.Lock()
        self._queued: dict[int, Queued] = {}  # by job id

    def send(self, queued: Queued, message: dict[str, Any], cap: int) -> None:
        """Write ``message`` to the worker once it has a share (at once when it holds
        one).  The share goes back however and whenever the job ends: the hook, or the
        check after ``run`` for a job that ended before the hook was there."""
        job, worker = queued.job, queued.worker
        with self._lock:
            self._queued[job.id] = queued
            worker.queued.add(job.id)
        job.on_finish.append(lambda ended: self.give_back(worker, ended.id))

        def send(threads: int, grant: int) -> None:
            if job.finished or (worker.dead and not queued.resent):
                # Stopped as its turn came, or its worker died before that (its request
                # goes to a new worker, once, as when the host hears of the death).
                self.give_back(worker, job.id)
                if not job.finished:
                    queued.again()
                return
            worker.send(job, {**message, "threads": threads, protocol.GRANT: grant})
            self.unqueue(job.id)

        self.shares.run(worker, cap, job.id, send)
        if job.finished:
            self.give_back(worker, job.id)

    def withdraw(self, job_id: int) -> bool:
        """Stop waiting (a cancel); True when it was waiting, so it never reached a worker."""
        if not self.shares.withdraw(job_id):
            return False
        self.unqueue(job_id)
        return True

    def give_back(self, worker: WorkerProcess, job_id: int) -> None:
        """A computing request ended: out of the queue, its share given back."""
        self.shares.withdraw(job_id)
        self.unqueue(job_id)
        self.shares.ended(worker, job_id)

    def unqueue(self, job_id: int) -> Queued | None:
        with self._lock:
            queued = self._queued.pop(job_id, None)
            if queued is not None:
                queued.worker.queued.discard(job_id)
            return queued

    def dropped(self, worker: WorkerProcess) -> list[Queued]:
        """``worker`` died: its share ends, and the requests that waited for it."""
        return [q for q in map(self.unqueue, self.shares.release(worker)) if q is not None]
