"""A worker that ignores a Stop, or stalls with requests in flight: killed only when it
is truly stuck.

A slow machine is slow, not stuck: while the worker still sends events or uses CPU time
it is left alone.  Only when it does neither for ``stuck_s`` after the cancel (or has not
honoured it in ``HOPELESS_S``) is it killed; its requests then end "cancelled" (forced).
A worker with requests in flight that does neither for ``STALL_S`` (stopped by a
debugger or ``kill -STOP``, a driver that hangs) is killed too, and so is one that sends
no event for as long while a request follows a grammar (busy is not progress there), and
its requests end with a sentence that says so (``faults.died``), instead of their clients
waiting for ever.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from app.engine.faults import follows_grammar
from app.engine.jobs import Job
from app.engine.process import WorkerProcess
from wire.engine_traits import traits_of

log = logging.getLogger(__name__)

STUCK_S = 30.0  # no event and no CPU time for this long after a cancel: stuck
STALL_S = 120.0  # no event and no CPU time for this long with requests in flight: stalled
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


def stop_if_stalled(worker: WorkerProcess | None, stall_s: float) -> bool:
    """Kill ``worker`` when it has requests in flight and has sent no event and used no
    CPU time for ``stall_s`` (the sweeper calls this every second), or has sent no event
    for ``stall_s`` while a request in flight follows a grammar: llama.cpp's grammar
    sampler can spin on a grammar that reads its text in too many ways, using CPU time
    without writing a token, and every slot of the model waits for it (other engines
    write tokens as they go, so busy is progress there).  True when killed."""
    if worker is None or worker.dead or not worker.pending():
        if worker is not None:
            worker.progress = None
        return False
    now, cpu = time.monotonic(), worker.cpu_seconds()
    silent = now - worker.last_heard
    grammar = traits_of(worker.spec.engine).own_grammar and any(
        follows_grammar(m) for m in worker.messages_in_flight()
    )
    if silent >= stall_s and grammar:
        log.warning(
            "worker pid %s wrote nothing for %.0f s on a request with a grammar", worker.pid, silent
        )
        worker.killed_stalled, worker.stalled_on_grammar = silent, True
        worker.kill()
        return True
    if worker.progress is None or cpu - worker.progress[1] > CPU_PROGRESS_S:
        worker.progress = (now, cpu)
        return False
    quiet = now - max(worker.progress[0], worker.last_heard)
    if quiet < stall_s:
        return False
    log.warning(
        "worker pid %s made no progress for %.0f s with requests in flight", worker.pid, quiet
    )
    worker.killed_stalled = quiet
    worker.kill()
    return True
