"""The engine host: the one owner of worker processes in a process of Hearth.

Every front end (the window's chat, ``hearth chat``, the API's models, the documents'
embedding model) asks the host for a **lease** on a ``ModelSpec`` and sends its requests
through it (``app.engine.lease``).  The host keeps one worker per spec (keyed by the spec as
asked, ``ModelSpec.base``), started when a request needs it, and decides alone:

* **which worker serves a request**: the spec's own, while it serves the spec as routed
  past the runtimes that failed it (``wire.model_spec.serves``, the rule the worker uses
  too); else a new one, and the old one ends once its requests are answered.  A lease
  that wishes to share (``share_loaded``: the API) takes the loaded worker of the same
  model whatever its settings (the window's context length, say);
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

It is an actor: the tables (models, leases, workers, starts) belong to the host's own
thread (``app.engine.mailbox``), and every call, from the window's thread, the API's or a
worker's reader, only posts what it asks there and returns at once; nothing waits on a
start.  Lists read a snapshot that thread publishes after each change.  Only the starter,
the sweeper, ``unload`` and ``close`` wait for an answer, and that thread does nothing slow.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from app.engine import faults
from app.engine.avoided import AvoidedRuntimes
from app.engine.budget import UNLIMITED, MemoryBudget, Needs
from app.engine.core_queue import CoreQueue, Queued
from app.engine.cores import physical_cores
from app.engine.hosted import Hosted, Loaded, Parked, watch_worker
from app.engine.jobs import COMPUTE, Job, cancelled_event, next_job_id
from app.engine.lease import Lease
from app.engine.mailbox import Mailbox
from app.engine.process import WorkerProcess
from app.engine.recovery import Recovery
from app.engine.room import NoRoom
from app.engine.stuck import STALL_S, STUCK_S, watch_cancel
from app.engine.tables import Tables
from wire import protocol
from wire.engine_traits import traits_of
from wire.model_spec import ModelSpec, serves

log = logging.getLogger(__name__)

SWEEP_EVERY_S = 1.0
ASK_S = 10.0  # the longest a caller waits on the host's thread (it does nothing slow)
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
        self.stuck_s, self.stall_s = stuck_s, stall_s
        self.clock = clock
        self.avoided = AvoidedRuntimes()
        self.cores = CoreQueue(cores or physical_cores())
        self.shares = self.cores.shares
        # Read and written on the host's own thread alone; ``_view`` is what it published
        # last, for the lists of other threads.
        self._tables = Tables(clock, keep_alive_s, lambda: self.budget)
        self._view: tuple[Hosted, ...] = ()
        self._recovery = Recovery(self._tables, self.avoided, self.shares, self._own, self._resend)
        self._mailbox = Mailbox("host", after=self._publish)
        self._starter = Mailbox("host-start")
        self._stop = threading.Event()
        self._sweeper = threading.Thread(target=self._sweep_forever, name="host-ttl", daemon=True)
        self._sweeper.start()

    @property
    def closed(self) -> bool:
        return self._tables.closed

    @property
    def keep_alive_s(self) -> float:
        """How long a model nobody leases stays loaded (``set_keep_alive``)."""
        return self._tables.keep_alive_s

    def set_budget(self, budget: MemoryBudget | Callable[[], MemoryBudget]) -> None:
        self._budget = budget if callable(budget) else (lambda: budget)

    @property
    def budget(self) -> MemoryBudget:
        return self._budget()

    def _own(self, action: Callable[[], None]) -> None:
        """Run ``action`` on the host's thread: now when already there, else after what
        was posted before it."""
        if self._mailbox.on_own_thread():
            action()
        else:
            self._mailbox.post(action)

    def _publish(self) -> None:
        """(The host's thread, after each action.)  The snapshot that lists read."""
        self._view = self._tables.snapshot()

    # -- leases --------------------------------------------------------------------------
    def lease(
        self,
        spec: ModelSpec,
        *,
        pinned: bool = False,
        purpose: str = "",
        label: str = "",
        share_loaded: bool = False,
    ) -> Lease:
        """Use ``spec``'s model until ``Lease.release``.  Nothing starts until a request is
        sent.  A pinned lease (the window's model) is never ended for another model.  With
        ``share_loaded``, a worker that runs the same model with other settings serves it
        (the window's first, then the latest used), so the file is not loaded twice."""
        if self.closed:
            raise RuntimeError(CLOSED)
        key = self._loaded_as(spec) if share_loaded else spec.base
        lease = Lease(self, key, pinned, purpose)
        self._mailbox.post(partial(self._tables.join, lease, label))
        return lease

    def _loaded_as(self, spec: ModelSpec) -> ModelSpec:
        for hosted in _by_use(h for h in self._view if h.live() is not None):
            if hosted.spec.same_model_as(spec):
                return hosted.spec
        return spec.base

    def release(self, lease: Lease, keep_alive_s: float | None) -> None:
        self._mailbox.post(partial(self._leave, lease, keep_alive_s))

    def _leave(self, lease: Lease, keep_alive_s: float | None) -> None:
        hosted = lease.hosted
        if hosted is None:  # joined after the host closed: nothing to give back
            return
        _end_in_background(self._tables.leave(hosted, lease.pinned, keep_alive_s))

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
        self._mailbox.post(partial(self._take, lease, job, payload))
        return job

    def _take(self, lease: Lease, job: Job, payload: dict[str, Any]) -> None:
        hosted = lease.hosted
        if hosted is None:  # its join is behind the close, which runs this where posted
            job.deliver(faults.not_started(job, OSError(CLOSED)))
            return
        self._dispatch(hosted, job, hosted.spec, payload, resent=False)

    def _dispatch_later(
        self,
        hosted: Hosted,
        job: Job,
        spec: ModelSpec,
        payload: dict[str, Any],
        resent: bool = False,
    ) -> None:
        """(The host's thread.)  Queue ``job`` behind what is posted; its model counts as
        busy from now on (not ended for its keep-alive or for room) until the job reaches
        a worker or ends."""
        hosted.waiting.add(job.id)
        self._mailbox.post(lambda: self._dispatch(hosted, job, spec, payload, resent))

    def _resend(
        self, hosted: Hosted, job: Job, spec: ModelSpec, payload: dict[str, Any], resent: bool
    ) -> None:
        """(The host's thread.)  A request sent before, again (``app.engine.recovery``):
        ``resent`` when its worker died under it (only once)."""
        self._dispatch_later(hosted, job, spec, payload, resent)

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
            if self.closed:
                job.deliver(faults.not_started(job, OSError(CLOSED)))
                return
            spec = self.avoided.apply(spec)
            if "model" in payload:
                payload = {**payload, "model": spec.to_wire()}
            worker = hosted.live()
            if worker is not None and self._serves(worker, spec):
                self._send(hosted, worker, job, spec, payload, resent)
                return
            parked = True
            hosted.waiting.add(job.id)
            hosted.parked.append((job, spec, payload, resent))
            if job.kind in (protocol.LOAD, protocol.CHAT):
                job.deliver(faults.starting(job))
            if not hosted.starting:
                hosted.starting = True
                self._starter.post(lambda: self._start(hosted, spec))
        except Exception as exc:  # the host's thread must go on: the job ends in words
            log.exception("could not send request %s", job.id)
            job.deliver(faults.not_started(job, exc))
        finally:
            if not parked:
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

        def again() -> None:  # a worker's reader, or the host's thread
            self._own(lambda: self._dispatch_later(hosted, job, spec, payload, resent=True))

        self.cores.send(Queued(job, hosted, worker, resent, again), message, spec.threads)

    # -- starting a worker (the starter's thread) ----------------------------------------
    def _start(self, hosted: Hosted, spec: ModelSpec) -> None:
        """Start the worker that the requests parked on ``hosted`` wait for, once the host's
        thread has made room; then they go to it, in order.  One start at a time (the
        budget's sums)."""
        ending: list[WorkerProcess] = []
        try:
            needs = self._needs(hosted)  # it may read the model's header
            ending = self._mailbox.ask(partial(self._tables.make_room, hosted, needs))
            # Starting a process (and reading a key from the keyring) takes a while: here,
            # where neither requests nor the workers' events wait for it.
            worker = WorkerProcess(spec, self, self.log_dir, self.worker_command)
        except NoRoom as exc:
            self._own(
                partial(self._fail_parked, hosted, partial(faults.no_room, sentence=exc.sentence))
            )
            return
        except Exception as exc:  # a worker that cannot even start
            if self.closed:  # the host closed while it waited: nothing is wrong
                log.info("a worker's start was dropped: the engine host closed")
            else:
                log.error("could not start a worker", exc_info=exc)
            self._own(partial(self._fail_parked, hosted, partial(faults.not_started, exc=exc)))
            return
        finally:
            _end_in_background(ending)
        greeted: list[Job] = []  # a worker of another version fails what it started for
        hello = Job(next_job_id(), protocol.HELLO, lambda e: faults.forward_all(e, greeted))
        worker.send(
            hello, {"type": protocol.HELLO, "id": hello.id, "protocol": protocol.PROTOCOL_VERSION}
        )
        self._own(partial(self._started, hosted, worker, greeted))

    def _started(self, hosted: Hosted, worker: WorkerProcess, greeted: list[Job]) -> None:
        """(The host's thread.)  ``worker`` serves ``hosted`` now: its parked requests go
        to it, in order, and the worker it replaces ends once idle."""
        parked, hosted.parked, hosted.starting = hosted.parked, [], False
        greeted.extend(job for job, *_ in parked)
        if self.closed:  # closed while it started
            threading.Thread(target=worker.stop, args=(1.0,), daemon=True).start()
            self._fail(hosted, parked, lambda job: faults.not_started(job, OSError(CLOSED)))
            return
        current = self._tables.adopt(hosted, worker)
        if current is not None:  # it serves no longer (a runtime it runs is avoided now)
            _end_in_background([current])
        for job, job_spec, payload, resent in parked:  # still counted as waiting
            self._dispatch(hosted, job, job_spec, payload, resent)

    def _fail_parked(self, hosted: Hosted, event: Callable[[Job], dict[str, Any]]) -> None:
        parked, hosted.parked, hosted.starting = hosted.parked, [], False
        self._fail(hosted, parked, event)

    @staticmethod
    def _fail(hosted: Hosted, parked: list[Parked], event: Callable[[Job], dict[str, Any]]) -> None:
        for job, *_ in parked:
            hosted.waiting.discard(job.id)
        for job, *_ in parked:
            job.deliver(event(job))

    @staticmethod
    def _serves(worker: WorkerProcess, spec: ModelSpec) -> bool:
        runtime = worker.runtime[0] if worker.runtime is not None else None
        return serves(worker.spec, runtime, spec)

    def _needs(self, hosted: Hosted) -> Needs:
        """(The starter's thread, which alone estimates.)"""
        if hosted.needs is None:
            try:
                hosted.needs = self.estimate(hosted.spec) if self.estimate else Needs(0)
            except Exception:  # the measured memory counts alone once it is loaded
                log.warning("could not estimate the memory of %s", hosted.label, exc_info=True)
                hosted.needs = Needs(0)
        return hosted.needs

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
            return self._recovery.retry(worker, job, str(event.get("runtime")), event)
        if kind in job.terminal:
            # Its work ends now, before anyone hears of it: a client that sends its next
            # request at once posts it after this, and finds this model used before that.
            self._own(partial(self._tables.used, worker))
        return False

    def job_finished(self, worker: WorkerProcess, job: Job) -> None:
        self._own(partial(self._finished, worker))

    def _finished(self, worker: WorkerProcess) -> None:
        hosted = self._tables.place_of(worker)
        if hosted is not None:  # idle time counts from its work's end
            _end_in_background(self._tables.expire(hosted))

    def worker_ended(self, worker: WorkerProcess, code: int | None, orphans: list[Job]) -> None:
        # Before anything is sent again, so that no request goes to the runtime that
        # stopped this worker, nor to its cores.
        avoided = self._recovery.avoid_after_illegal_instruction(worker, code)
        dropped = self.cores.dropped(worker)
        self._own(partial(self._recovery.ended, worker, code, orphans, avoided, dropped))

    # -- what is loaded ------------------------------------------------------------------
    def loaded(self) -> list[Loaded]:
        """The models with a live worker: pinned ones first, then by last use (from the
        snapshot: no waiting on the host's thread)."""
        now, wall = self.clock(), time.time()
        rows = (h.as_loaded(now, wall) for h in _by_use(self._view))
        return [row for row in rows if row is not None]

    def settle(self) -> None:
        """Wait until what was posted before is done (a release: lists read next show its
        model gone), at most ``ASK_S``."""
        try:
            self._mailbox.ask(lambda: None, ASK_S)
        except TimeoutError:
            log.warning("the engine host is held up; lists may lag")

    def leases_held(self) -> int:
        """How many leases are held on every model together (a snapshot)."""
        return sum(hosted.leases for hosted in self._view)

    def unload(self, spec: ModelSpec, wait: bool = False) -> bool:
        """End an idle model's worker now (Unload, Ollama's keep_alive 0); False when it
        is leased or busy, or not loaded.  It waits for the host's thread to answer (which
        does nothing slow).  With ``wait``, the worker has ended (its files are no longer
        open) when this returns."""
        try:
            taken = self._mailbox.ask(partial(self._tables.take_out, spec.base), ASK_S)
        except TimeoutError:  # the host's thread is held up (a frozen worker's pipe)
            log.warning("could not unload %s: the engine host is held up", spec.path)
            return False
        if taken is None:
            return False
        if wait:
            taken.stop_when_idle()
        else:
            _end_in_background([taken])
        return True

    # -- time to live --------------------------------------------------------------------
    def sweep(self) -> None:
        """End the idle models whose keep-alive is over, and a worker that grew far past
        what its model needs (the sweeper's thread, each second)."""
        _end_in_background(self._mailbox.ask(self._tables.expire_idle))
        for hosted in self._view:
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
        self._mailbox.post(
            lambda: _end_in_background(self._tables.set_keep_alive(seconds, used_by))
        )

    def close(self, timeout: float = 5.0) -> None:
        """End every worker (the window closing, a command ending), those still answering
        after they were replaced too.  Requests not yet sent end in words; a worker still
        starting ends as soon as it has started."""
        self._stop.set()
        try:
            workers = self._mailbox.ask(self._close_tables, ASK_S)
        except TimeoutError:  # held up writing to a frozen worker: end what it knows of
            log.warning("the engine host is held up; ending its workers as they were")
            workers = {w for w in (h.live() for h in self._view) if w is not None}
        # What it holds is answered in words, before anything runs where it is posted.
        self._mailbox.close(timeout)
        self._starter.close()
        stopping = [
            threading.Thread(target=w.stop, args=(timeout,), daemon=True)
            for w in workers
            if not w.dead
        ]
        for thread in stopping:
            thread.start()
        for thread in stopping:
            thread.join(timeout + 1)

    def _close_tables(self) -> set[WorkerProcess]:
        workers, waiting = self._tables.close()
        for hosted in waiting:
            self._fail_parked(hosted, lambda job: faults.not_started(job, OSError(CLOSED)))
        return workers


def _by_use(hosted: Iterable[Hosted]) -> list[Hosted]:
    """Pinned models first (the window's), then the latest used."""
    return sorted(hosted, key=lambda h: (not h.pinned, -h.last_used))


def _end_in_background(workers: Sequence[WorkerProcess | None]) -> None:
    """End workers without holding up a request, the window or the event loop."""
    for worker in workers:
        if worker is not None:
            threading.Thread(target=worker.stop_when_idle, name="unload", daemon=True).start()
