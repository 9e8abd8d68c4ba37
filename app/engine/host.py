"""The engine host: the one owner of worker processes in a process of Hearth.

Every front end (the window's chat, ``hearth chat``, the API's models, the documents'
embedding model) asks the host for a **lease** on a ``ModelSpec`` and sends its requests
through it (``app.engine.lease``).  The host keeps one worker per spec (keyed by the spec as
asked, ``ModelSpec.base``), started when a request needs it, and decides alone:

* **which worker serves a request**: the spec's own, while it serves the spec as routed
  past the runtimes that failed it (``wire.model_spec.serves``, the rule the worker uses
  too); else a new one, and the old one ends once its requests are answered;
* **memory**: one budget for every worker (``app.engine.budget``).  A new worker that does
  not fit first ends idle ones (no lease, nothing running), least recently used first.  A
  pinned lease's model (the window's) is never ended for another; a request that finds
  only models in use in its way is refused (``no_room``), except a pinned one, which loads
  anyway;
* **time to live**: a model nobody leases ends after its keep-alive (the host's, or the
  one its last lease was released with; 0: at once, once its requests are answered);
* **cores**: the CPU threads of all workers together never pass the physical cores
  (``app.engine.cores``);
* **faults**: a runtime that failed a model is avoided for every later request
  (``app.engine.avoided``); a request that died with its worker before its first words on
  a runtime chosen automatically is sent again without it; a cancel that a worker ignores
  kills it only when it makes no progress at all (no event, no CPU time) for ``stuck_s``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import psutil

from app.engine import faults
from app.engine.avoided import AvoidedRuntimes
from app.engine.budget import UNLIMITED, MemoryBudget, Needs
from app.engine.core_queue import CoreQueue, Queued
from app.engine.hosted import Hosted, Loaded, Parked, watch_worker
from app.engine.jobs import COMPUTE, Job, cancelled_event, next_job_id
from app.engine.lease import Lease
from app.engine.mailbox import Mailbox
from app.engine.process import WorkerProcess
from app.engine.room import NoRoom, to_end_for
from app.engine.stuck import STALL_S, STUCK_S, watch_cancel
from wire import protocol
from wire.engine_traits import traits_of
from wire.model_spec import ModelSpec, serves

log = logging.getLogger(__name__)

SWEEP_EVERY_S = 1.0
# What a request sent again leaves out: the new worker gives it an id, threads and a grant.
RESEND_DROPPED = ("type", "id", "threads", protocol.GRANT)
CLOSED = "the engine host is closed"


class EngineHost:
    def __init__(
        self,
        log_dir: Path | None = None,
        *,
        worker_command: Sequence[str] | None = None,
        budget: MemoryBudget | Callable[[], MemoryBudget] | None = None,
        estimate: Callable[[ModelSpec], Needs] | None = None,
        keep_alive_s: float = 0.0,
        cores: int | None = None,
        stuck_s: float = STUCK_S,
        stall_s: float = STALL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.log_dir = log_dir
        self.worker_command = list(worker_command) if worker_command else None
        self.set_budget(budget or UNLIMITED)
        self.estimate = estimate
        self.keep_alive_s = keep_alive_s  # for models nobody leases
        self.stuck_s, self.stall_s = stuck_s, stall_s
        self.clock = clock
        self.avoided = AvoidedRuntimes()
        self.cores = CoreQueue(cores or physical_cores())
        self.shares = self.cores.shares
        self._lock = threading.RLock()  # the tables; nothing slow is done under it
        # Requests are placed on workers by the host's own thread, and workers are started
        # by its starter, one at a time (the budget's sums): no caller waits on either.
        self._mailbox = Mailbox("host")
        self._starter = Mailbox("host-start")
        self._hosted: dict[ModelSpec, Hosted] = {}
        self._entry_of: dict[WorkerProcess, Hosted] = {}
        self._closed = False
        self._stop = threading.Event()
        self._sweeper = threading.Thread(target=self._sweep_forever, name="host-ttl", daemon=True)
        self._sweeper.start()

    @property
    def closed(self) -> bool:
        return self._closed

    def set_budget(self, budget: MemoryBudget | Callable[[], MemoryBudget]) -> None:
        self._budget = budget if callable(budget) else (lambda: budget)

    @property
    def budget(self) -> MemoryBudget:
        return self._budget()

    # -- leases --------------------------------------------------------------------------
    def lease(
        self, spec: ModelSpec, *, pinned: bool = False, purpose: str = "", label: str = ""
    ) -> Lease:
        """Use ``spec``'s model until ``Lease.release``.  Nothing starts until a request is
        sent.  A pinned lease (the window's model) is never ended for another model."""
        key = spec.base
        with self._lock:
            if self._closed:
                raise RuntimeError("the engine host is closed")
            hosted = self._hosted.get(key)
            if hosted is None:
                hosted = Hosted(key, label or Path(spec.path).name, self.clock(), self.keep_alive_s)
                self._hosted[key] = hosted
            hosted.leases += 1
            hosted.pinned += int(pinned)
            hosted.purposes.add(purpose)
            hosted.label = label or hosted.label
            hosted.last_used = self.clock()
        return Lease(self, hosted, key, pinned, purpose)

    def release(self, lease: Lease, keep_alive_s: float | None) -> None:
        hosted = lease.hosted
        with self._lock:
            hosted.leases -= 1
            hosted.pinned -= int(lease.pinned)
            hosted.last_used = self.clock()
            hosted.keep_alive_s = self.keep_alive_s if keep_alive_s is None else keep_alive_s
            hosted.follows_default = keep_alive_s is None
            ending = self._expire(hosted)
        _end_in_background(ending)

    # -- requests ------------------------------------------------------------------------
    def submit(
        self,
        lease: Lease,
        kind: str,
        payload: dict[str, Any],
        on_event: Callable[[dict[str, Any]], None] | None,
    ) -> Job:
        """Take a request and return its ``Job`` at once, on any thread: it is placed on a
        worker by the host's own thread, which starts one first when it must (off that
        thread too).  Its answers, failures included, arrive as the job's events."""
        job = Job(next_job_id(), kind, on_event, canceller=self.cancel)
        self._dispatch_later(lease.hosted, job, lease.spec, payload)
        return job

    def _dispatch_later(
        self,
        hosted: Hosted,
        job: Job,
        spec: ModelSpec,
        payload: dict[str, Any],
        resent: bool = False,
    ) -> None:
        """Post ``job`` to the host's thread; its model counts as busy from now on (not
        ended for its keep-alive or for room) until the job reaches a worker or ends."""
        with self._lock:
            hosted.waiting.add(job.id)
        self._mailbox.post(lambda: self._dispatch(hosted, job, spec, payload, resent))

    def _dispatch(
        self,
        hosted: Hosted,
        job: Job,
        spec: ModelSpec,
        payload: dict[str, Any],
        resent: bool,
    ) -> None:
        """(The host's thread.)  Send ``job`` to the worker that serves ``spec`` past the
        runtimes avoided for its model, or park it while one starts."""
        parked = False
        try:
            if job.finished:
                return  # stopped before its turn: answered already
            spec = self.avoided.apply(spec)
            if "model" in payload:
                payload = {**payload, "model": spec.to_wire()}
            with self._lock:
                closed = self._closed
                worker = hosted.live()
                if not closed and (worker is None or not self._serves(worker, spec)):
                    parked = True
                    hosted.parked.append((job, spec, payload, resent))
                    first = not hosted.starting
                    hosted.starting = True
            if closed:
                job.deliver(faults.not_started(job, OSError(CLOSED)))
            elif parked:
                if job.kind in (protocol.LOAD, protocol.CHAT):
                    job.deliver(faults.starting(job))
                if first:
                    self._starter.post(lambda: self._start(hosted, spec))
            else:
                assert worker is not None
                self._send(hosted, worker, job, spec, payload, resent)
        except Exception as exc:  # the host's thread must go on: the job ends in words
            log.exception("could not send request %s", job.id)
            job.deliver(faults.not_started(job, exc))
        finally:
            if not parked:
                with self._lock:
                    hosted.waiting.discard(job.id)

    def _send(
        self,
        hosted: Hosted,
        worker: WorkerProcess,
        job: Job,
        spec: ModelSpec,
        payload: dict[str, Any],
        resent: bool,
    ) -> None:
        """Write ``job`` to ``worker`` (once it has a share of the cores, for a reply or
        embeddings)."""
        message = {"type": job.kind, "id": job.id, **payload}
        if job.kind not in COMPUTE or not traits_of(spec.engine).uses_cores:
            worker.send(job, message)
            return

        def again() -> None:
            self._dispatch_later(hosted, job, spec, payload, resent=True)

        self.cores.send(Queued(job, hosted, worker, resent, again), message, spec.threads)

    # -- starting a worker (the starter's thread) ----------------------------------------
    def _start(self, hosted: Hosted, spec: ModelSpec) -> None:
        """Start the worker that the requests parked on ``hosted`` wait for, making room
        first; then they go to it, in order.  One start at a time (the budget's sums)."""
        ending: list[WorkerProcess] = []
        try:
            needs = self._needs(hosted)  # it may read the model's header
            with self._lock:
                if self._closed:
                    raise OSError(CLOSED)
                ending = self._make_room(hosted, needs)
            # Outside the lock: starting a process (and reading a key from the keyring)
            # takes a while, and the workers' events must not wait for it.
            worker = WorkerProcess(spec, self, self.log_dir, self.worker_command)
        except NoRoom as exc:
            self._fail_parked(hosted, partial(faults.no_room, sentence=exc.sentence))
            return
        except Exception as exc:  # a worker that cannot even start
            log.error("could not start a worker", exc_info=exc)
            self._fail_parked(hosted, partial(faults.not_started, exc=exc))
            return
        finally:
            _end_in_background(ending)
        greeted: list[Job] = []  # a worker of another version fails what it started for
        hello = Job(next_job_id(), protocol.HELLO, lambda e: faults.forward_all(e, greeted))
        worker.send(
            hello, {"type": protocol.HELLO, "id": hello.id, "protocol": protocol.PROTOCOL_VERSION}
        )
        with self._lock:
            parked, hosted.parked, hosted.starting = hosted.parked, [], False
            closed = self.closed  # closed while it started
            current = hosted.live()
            if not closed:
                hosted.worker = worker
                self._entry_of[worker] = hosted
        greeted.extend(job for job, *_ in parked)
        if closed:
            worker.stop(1.0)
            self._fail(hosted, parked, lambda job: faults.not_started(job, OSError(CLOSED)))
            return
        if current is not None:  # it serves no longer (a runtime it runs is avoided now)
            threading.Thread(target=current.stop_when_idle, daemon=True).start()
        for job, job_spec, payload, resent in parked:  # still counted as waiting
            self._mailbox.post(partial(self._dispatch, hosted, job, job_spec, payload, resent))

    def _fail_parked(self, hosted: Hosted, event: Callable[[Job], dict[str, Any]]) -> None:
        with self._lock:
            parked, hosted.parked, hosted.starting = hosted.parked, [], False
        self._fail(hosted, parked, event)

    def _fail(
        self, hosted: Hosted, parked: list[Parked], event: Callable[[Job], dict[str, Any]]
    ) -> None:
        with self._lock:
            for job, *_ in parked:
                hosted.waiting.discard(job.id)
        for job, *_ in parked:
            job.deliver(event(job))

    @staticmethod
    def _serves(worker: WorkerProcess, spec: ModelSpec) -> bool:
        runtime = worker.runtime[0] if worker.runtime is not None else None
        return serves(worker.spec, runtime, spec)

    def _needs(self, hosted: Hosted) -> Needs:
        if hosted.needs is None:
            try:
                hosted.needs = self.estimate(hosted.spec) if self.estimate else Needs(0)
            except Exception:  # the measured memory counts alone once it is loaded
                log.warning("could not estimate the memory of %s", hosted.label, exc_info=True)
                hosted.needs = Needs(0)
        return hosted.needs

    def _make_room(self, hosted: Hosted, needs: Needs) -> list[WorkerProcess]:
        """Take out the idle models in ``hosted``'s way (under the lock); their workers, to
        end.  NoRoom when only models in use are in the way of a lease not pinned."""
        loaded = [h for h in self._hosted.values() if h is not hosted and h.live() is not None]
        ending = to_end_for(hosted, needs, loaded, self.budget)
        for victim in ending:
            del self._hosted[victim.spec]
            log.info("unloading %s (room for %s)", victim.label, hosted.label)
        return [w for w in (h.live() for h in ending) if w is not None]

    def cancel(self, job: Job) -> None:
        """Stop ``job`` soon: the worker checks between tokens and prompt slices."""
        if job.finished or job.cancel_requested:
            return
        job.cancel_requested = True
        if self.cores.withdraw(job.id):  # it waited for cores: it never reached a worker
            job.deliver(cancelled_event(job))
            return
        worker = job.worker  # set once it is written to the worker's pipe
        if not isinstance(worker, WorkerProcess) or worker.dead:
            # Not sent yet (it will not be: a finished job is not sent) or nowhere to go.
            job.deliver(cancelled_event(job))
            return
        worker.control({"type": protocol.CANCEL, "id": None, "target": job.id})
        threading.Thread(
            target=watch_cancel,
            args=(worker, job, self.stuck_s, self.clock),
            name="cancel-watch",
            daemon=True,
        ).start()

    # -- what workers say (their reader threads) -----------------------------------------
    def intercept(self, worker: WorkerProcess, job: Job, event: dict[str, Any]) -> bool:
        kind = event["type"]
        if kind == protocol.NOTICE and event.get("kind") == protocol.NOTICE_RUNTIME_CHOSEN:
            worker.runtime = (str(event.get("runtime")), bool(event.get(protocol.FORCED)))
            return True
        if kind == protocol.NOTICE and event.get("kind") == protocol.NOTICE_THREADS:
            threads = int(event.get("threads") or 0)
            worker.threads_reported.append((float(event.get("at") or 0.0), threads))
            self.shares.applied(worker, threads, int(event.get(protocol.GRANT) or 0))
            return True
        if kind == protocol.ERROR and event.get(protocol.RETRY_WITHOUT_RUNTIME):
            return self._retry(worker, job, str(event.get("runtime")), event)
        if kind in job.terminal:
            # Its work ends now: before anyone hears of it (a client that sends its next
            # request at once must find this model used before that one).
            with self._lock:
                hosted = self._entry_of.get(worker)
                if hosted is not None:
                    hosted.last_used = self.clock()
        return False

    def job_finished(self, worker: WorkerProcess, job: Job) -> None:
        with self._lock:
            hosted = self._entry_of.get(worker)
            if hosted is None:
                return
            ending = self._expire(hosted)  # idle time counts from the end of its work
        _end_in_background(ending)

    def worker_ended(self, worker: WorkerProcess, code: int | None, orphans: list[Job]) -> None:
        # Before anything is sent again, so that no request goes to the runtime that
        # stopped this worker.
        avoided = self._avoid_after_illegal_instruction(worker, code)
        dropped = self.cores.dropped(worker)
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
                    self.shares.ended(worker, job.id)
                    waiting.append((job, message))
                else:
                    job.deliver(faults.died(worker, job, code, avoided))
            else:
                job.deliver(faults.died(worker, job, code, avoided))
        with self._lock:
            hosted = self._entry_of.pop(worker, None)
            if hosted is not None and hosted.worker is worker:
                hosted.worker = None
                if hosted.leases == 0 and self._hosted.get(hosted.spec) is hosted:
                    del self._hosted[hosted.spec]
            hosted_now = {id(h) for h in self._hosted.values()}
        for job, message in waiting:
            if job.cancel_requested:
                job.deliver(cancelled_event(job))
            elif hosted is not None and id(hosted) in hosted_now:
                log.warning("request %s waited on a worker that died; sent again", job.id)
                payload = {k: v for k, v in message.items() if k not in RESEND_DROPPED}
                spec = ModelSpec.from_wire(message["model"])
                self._dispatch_later(hosted, job, spec, payload, resent=True)
            else:
                job.deliver(faults.died(worker, job, code, avoided))
        for queued in dropped:  # never sent: they go to a new worker for their model, once
            job = queued.job
            if job.finished:
                continue
            if job.cancel_requested:
                job.deliver(cancelled_event(job))
            elif id(queued.owner) in hosted_now and not self._closed and not queued.resent:
                queued.again()
            else:
                job.deliver(faults.worker_died(job, code, avoided))

    def _retry(self, worker: WorkerProcess, job: Job, failed: str, event: dict[str, Any]) -> bool:
        """Send ``job`` again without the runtime ``failed`` (chosen automatically, it could
        not load the model, or died before the reply's first words), with a notice.  False
        when there is nothing to send again."""
        message = worker.take_sent(job)
        if message is None:
            return False
        job.worker = None  # on its way elsewhere: a Stop meanwhile is answered at once
        self.shares.ended(worker, job.id)
        if job.cancel_requested:
            job.deliver(cancelled_event(job))
            return True
        with self._lock:
            hosted = self._entry_of.get(worker)
        try:
            if hosted is None:
                raise RuntimeError("the model left the host")
            spec = self.avoided.add(ModelSpec.from_wire(message["model"]), failed)
            log.warning("runtime %s failed to load %s; retrying without it", failed, spec.path)
            job.deliver(faults.runtime_failed(job, failed, event, worker.model_loaded))
            payload = {k: v for k, v in message.items() if k not in RESEND_DROPPED}
            self._dispatch_later(hosted, job, spec, payload)
        except Exception:  # the reader thread must go on: the job ends with the error
            log.exception("could not retry on another runtime")
            job.deliver({**event, "id": job.id, protocol.RETRY_WITHOUT_RUNTIME: False})
        return True

    def _retry_after_crash(self, worker: WorkerProcess, job: Job, code: int | None) -> bool:
        """A worker that died on a runtime it chose itself, in a way that may be the
        runtime's (``faults.crash_retry``): the request goes to a new worker without it."""
        with self._lock:
            hosted = self._entry_of.get(worker)
        replaced = hosted is None or hosted.worker is not worker
        event = faults.crash_retry(worker, job, code, replaced)
        if event is None or worker.runtime is None:
            return False
        return self._retry(worker, job, worker.runtime[0], event)

    def _avoid_after_illegal_instruction(
        self, worker: WorkerProcess, code: int | None
    ) -> str | None:
        """An illegal instruction on a runtime the worker chose itself: later requests for
        the model skip that runtime.  Returns the runtime avoided, or None."""
        name = faults.runtime_at_fault(worker, code)
        if name is not None:
            self.avoided.add(worker.spec, name, whole_model=True)
        return name

    # -- what is loaded ------------------------------------------------------------------
    def loaded(self) -> list[Loaded]:
        """The models with a live worker: pinned ones first, then by last use."""
        now, wall = self.clock(), time.time()
        with self._lock:
            hosted = [h for h in self._hosted.values() if h.live() is not None]
        ordered = sorted(hosted, key=lambda h: (not h.pinned, -h.last_used))
        rows = (h.as_loaded(now, wall) for h in ordered)
        return [row for row in rows if row is not None]

    def unload(self, spec: ModelSpec, wait: bool = False) -> bool:
        """End an idle model's worker now (Unload, Ollama's keep_alive 0); False when it
        is leased or busy, or not loaded.  With ``wait``, the worker has ended (its files
        are no longer open) when this returns."""
        with self._lock:
            hosted = self._hosted.get(spec.base)
            if hosted is None or not hosted.idle or hosted.live() is None:
                return False
            del self._hosted[hosted.spec]
            worker = hosted.live()
        if wait and worker is not None:
            worker.stop_when_idle()
        else:
            _end_in_background([worker] if worker is not None else [])
        return True

    # -- time to live --------------------------------------------------------------------
    def _expire(self, hosted: Hosted) -> list[WorkerProcess]:
        """Take ``hosted`` out when nobody leases it, it is idle and its keep-alive is
        over (under the lock); its worker, to end."""
        if hosted.leases or hosted.busy:
            return []
        if self.clock() - hosted.last_used < hosted.keep_alive_s:
            return []
        if self._hosted.get(hosted.spec) is hosted:
            del self._hosted[hosted.spec]
        worker = hosted.live()
        if worker is not None:
            log.info("unloading %s (idle)", hosted.label)
        return [worker] if worker is not None else []

    def sweep(self) -> None:
        """End the idle models whose keep-alive is over, and a worker that grew far past
        what its model needs."""
        now = self.clock()
        ending: list[WorkerProcess] = []
        with self._lock:
            hosted_now = list(self._hosted.values())
            for hosted in hosted_now:
                if hosted.busy:
                    hosted.last_used = now
                ending += self._expire(hosted)
        _end_in_background(ending)
        for hosted in hosted_now:
            watch_worker(hosted, self.stall_s)

    def _sweep_forever(self) -> None:
        while not self._stop.wait(SWEEP_EVERY_S):
            try:
                self.sweep()
            except Exception:  # the sweeper must outlive one failure
                log.exception("unloading idle models failed")

    def set_keep_alive(self, seconds: float, *, used_by: str = "") -> None:
        """How long a model nobody leases stays loaded, from now on and for the idle models
        that follow the default; with ``used_by``, for the idle models that purpose leased
        too, whatever they were released with (the API stopping: what it kept loaded ends,
        the documents' embedding model keeps its own time)."""
        with self._lock:
            self.keep_alive_s = seconds
            for hosted in self._hosted.values():
                if not hosted.leases and (hosted.follows_default or used_by in hosted.purposes):
                    hosted.keep_alive_s = seconds
        self.sweep()

    def close(self, timeout: float = 5.0) -> None:
        """End every worker (the window closing, a command ending), those still answering
        after they were replaced too.  Requests not yet sent end in words; a worker still
        starting ends as soon as it has started."""
        self._stop.set()
        with self._lock:
            self._closed = True
            workers = {h.live() for h in self._hosted.values()} | set(self._entry_of)
            waiting = [h for h in self._hosted.values() if h.parked]
            self._hosted.clear()
        for hosted in waiting:
            self._fail_parked(hosted, lambda job: faults.not_started(job, OSError(CLOSED)))
        self._mailbox.close()  # what it holds is answered in words
        self._starter.close()
        stopping = [
            threading.Thread(target=w.stop, args=(timeout,), daemon=True)
            for w in workers
            if w is not None and not w.dead
        ]
        for thread in stopping:
            thread.start()
        for thread in stopping:
            thread.join(timeout + 1)


def physical_cores() -> int:
    """llama.cpp is fastest with one thread per physical core."""
    return psutil.cpu_count(logical=False) or psutil.cpu_count() or 1


def _end_in_background(workers: Sequence[WorkerProcess | None]) -> None:
    """End workers without holding up a request, the window or the event loop."""
    for worker in workers:
        if worker is not None:
            threading.Thread(target=worker.stop_when_idle, name="unload", daemon=True).start()
