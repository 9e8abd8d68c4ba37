"""What becomes of requests whose worker died, or whose runtime failed their model.

The engine host's thread decides it (``Recovery.ended``, ``Recovery.retry``'s second
half), with the tables it owns: a request that may be innocent goes to a new worker once,
one that a runtime chosen automatically failed goes to another runtime with a notice, and
every other is told why in words (``app.engine.faults``).  Sending again is the host's
(``resend``); this part only decides.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import Any

from app.engine import faults
from app.engine.avoided import AvoidedRuntimes
from app.engine.core_queue import Queued
from app.engine.cores import CoreShares
from app.engine.hosted import Hosted
from app.engine.jobs import Job, cancelled_event
from app.engine.process import WorkerProcess
from app.engine.tables import Tables
from wire import protocol
from wire.model_spec import ModelSpec

log = logging.getLogger(__name__)

# What a request sent again leaves out: the new worker gives it an id, threads and a grant.
RESEND_DROPPED = ("type", "id", "threads", protocol.GRANT)
Resend = Callable[[Hosted, Job, ModelSpec, dict[str, Any], bool], None]
OnHostThread = Callable[[Callable[[], None]], None]


class Recovery:
    def __init__(
        self,
        tables: Tables,
        avoided: AvoidedRuntimes,
        shares: CoreShares,
        on_host_thread: OnHostThread,
        resend: Resend,
    ) -> None:
        self._tables, self._avoided, self._shares = tables, avoided, shares
        self._on_host_thread, self._resend = on_host_thread, resend

    def ended(
        self,
        worker: WorkerProcess,
        code: int | None,
        orphans: list[Job],
        avoided: str | None,
        dropped: list[Queued],
    ) -> None:
        """(The host's thread.)  ``worker`` is gone: its requests are sent again where that
        is safe, else told why, and its model leaves the host unless leased."""
        # Which request killed it cannot be told (grammars are built at once), so each that
        # showed no words yet goes to a new worker once, with the model loaded: one waiting
        # for a slot is answered, and one that kills it again is told the request may be
        # the cause (at once, with a grammar it stalled on).
        waiting: list[tuple[Job, dict[str, Any]]] = []
        for job in orphans:
            sent = worker.sent.get(job.id, {})
            suspect = worker.stalled_on_grammar and faults.follows_grammar(sent)
            innocent = worker.model_loaded and job.first_delta_at is None and not suspect
            if job.cancel_requested and worker.killed_stuck:
                job.deliver(cancelled_event(job, **{protocol.FORCED: True}))
            elif self._retry_after_crash(worker, job, code):
                continue  # sent to another runtime, with a notice
            elif innocent and not worker.killed_stuck and not job.resent:
                message = worker.take_sent(job)
                if message is not None:
                    job.resent = True
                    job.worker = None
                    self._shares.ended(worker, job.id)
                    waiting.append((job, message))
                else:
                    job.deliver(faults.died(worker, job, code, avoided))
            else:
                job.deliver(faults.died(worker, job, code, avoided))
        hosted = self._tables.forget(worker)
        for job, message in waiting:
            if job.cancel_requested:
                job.deliver(cancelled_event(job))
            elif hosted is not None and self._tables.holds(hosted):
                log.warning("request %s waited on a worker that died; sent again", job.id)
                spec = ModelSpec.from_wire(message["model"])
                self._resend(hosted, job, spec, _payload(message), True)
            else:
                job.deliver(faults.died(worker, job, code, avoided))
        for queued in dropped:  # never sent: they go to a new worker for their model, once
            job = queued.job
            if job.finished:
                continue
            if job.cancel_requested:
                job.deliver(cancelled_event(job))
            elif self._still_hosted(queued.owner) and not queued.resent:
                queued.again()
            else:
                job.deliver(faults.worker_died(job, code, avoided))

    def _still_hosted(self, owner: object) -> bool:
        """A request that waited for cores on a dead worker may go to its model's next."""
        return isinstance(owner, Hosted) and self._tables.holds(owner) and not self._tables.closed

    def retry(self, worker: WorkerProcess, job: Job, failed: str, event: dict[str, Any]) -> bool:
        """(A worker's reader, or the host's thread.)  Send ``job`` again without the
        runtime ``failed`` (chosen automatically, it could not load the model, or died
        before the reply's first words), with a notice.  False when there is nothing to
        send again."""
        message = worker.take_sent(job)
        if message is None:
            return False
        job.worker = None  # on its way elsewhere: a Stop meanwhile is answered at once
        self._shares.ended(worker, job.id)
        if job.cancel_requested:
            job.deliver(cancelled_event(job))
            return True
        self._on_host_thread(partial(self._send_without, worker, job, failed, event, message))
        return True

    def _send_without(
        self,
        worker: WorkerProcess,
        job: Job,
        failed: str,
        event: dict[str, Any],
        message: dict[str, Any],
    ) -> None:
        try:
            hosted = self._tables.place_of(worker)
            if hosted is None:
                raise RuntimeError("the model left the host")
            spec = self._avoided.add(ModelSpec.from_wire(message["model"]), failed)
            log.warning("runtime %s failed to load %s; retrying without it", failed, spec.path)
            job.deliver(faults.runtime_failed(job, failed, event, worker.model_loaded))
            self._resend(hosted, job, spec, _payload(message), False)
        except Exception:  # the host's thread must go on: the job ends with the error
            log.exception("could not retry on another runtime")
            job.deliver({**event, "id": job.id, protocol.RETRY_WITHOUT_RUNTIME: False})

    def _retry_after_crash(self, worker: WorkerProcess, job: Job, code: int | None) -> bool:
        """(The host's thread.)  A worker that died on a runtime it chose itself, in a way
        that may be the runtime's (``faults.crash_retry``): the request goes to a new
        worker without it."""
        hosted = self._tables.place_of(worker)
        replaced = hosted is None or hosted.worker is not worker
        event = faults.crash_retry(worker, job, code, replaced)
        if event is None or worker.runtime is None:
            return False
        return self.retry(worker, job, worker.runtime[0], event)

    def avoid_after_illegal_instruction(
        self, worker: WorkerProcess, code: int | None
    ) -> str | None:
        """(The dead worker's reader.)  An illegal instruction on a runtime the worker
        chose itself: later requests for the model skip that runtime.  Returns the runtime
        avoided, or None."""
        name = faults.runtime_at_fault(worker, code)
        if name is not None:
            self._avoided.add(worker.spec, name, whole_model=True)
        return name


def _payload(message: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if k not in RESEND_DROPPED}
