"""A worker that ignores a Stop: killed only when it is truly stuck.

A slow machine is slow, not stuck: while the worker still sends events or uses CPU time
it is left alone.  Only when it does neither for ``stuck_s`` after the cancel (or has not
honoured it in ``HOPELESS_S``) is it killed; its requests then end "cancelled" (forced).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from app.engine.jobs import Job
from app.engine.process import WorkerProcess

log = logging.getLogger(__name__)

STUCK_S = 30.0  # no event and no CPU time for this long after a cancel: stuck
HOPELESS_S = 600.0  # a cancel not honoured in ten minutes, progress or not
CPU_PROGRESS_S = 0.05


def watch_cancel(
    worker: WorkerProcess, job: Job, stuck_s: float, clock: Callable[[], float]
) -> None:
    """Wait for ``job`` to end after its cancel; kill ``worker`` if it makes no progress."""
    asked = progress = clock()
    cpu = worker.cpu_seconds()
    while not job.wait(min(1.0, stuck_s / 4)) and not worker.dead:
        now = clock()
        used = worker.cpu_seconds()
        if used - cpu > CPU_PROGRESS_S:
            cpu, progress = used, now
        quiet = now - max(progress, worker.last_heard)
        if quiet >= stuck_s or now - asked >= HOPELESS_S:
            log.warning(
                "worker pid %s ignored a cancel and made no progress for %.0f s; killing it",
                worker.pid,
                quiet,
            )
            worker.killed_stuck = True
            worker.kill()
            return
