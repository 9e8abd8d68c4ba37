"""The one path from a prompt to tokens: Hearth's side of the worker protocol.

``EngineClient`` owns at most one worker process (one loaded model).  The GUI, the
command line and later the local API server all use it, so they behave alike.  It has no
Qt in it: events are delivered to a callback on the client's reader thread (the GUI's
adapter turns them into queued Qt signals) and can also be iterated from a ``Job``.

What it guarantees:

* Nothing blocks the caller: starting a worker, sending a request and cancelling return
  at once; the answers arrive as events.
* A worker that dies (crash, kill, out of memory) is noticed from its end of stream; the
  request in flight ends with an ``error`` event of kind ``worker_died`` and the next
  request starts a fresh worker.
* Stop is honoured promptly: ``cancel`` is sent at once (the worker reads it on a separate
  thread), and a worker that has not finished within ``cancel_grace_s`` is killed.
* Switching to another model ends the old worker, which frees its memory for certain —
  unless a ``WorkerShare`` (the window's API, ``app.serve.model_pool``) is attached: then
  a worker that already has the new model loaded is taken from it, and the old one is
  offered to it, so the window and the API never load one model twice.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, Protocol

from wire import protocol
from wire.model_spec import BUILT_IN_RUNTIME, ModelSpec
from wire.phrases import Phrase, to_wire

log = logging.getLogger(__name__)

EventCallback = Callable[[dict[str, Any]], None]

_TERMINAL_BY_KIND: dict[str, frozenset[str]] = {
    protocol.HELLO: frozenset({protocol.READY, protocol.ERROR}),
    protocol.LOAD: frozenset({protocol.LOADED, protocol.ERROR}),
    protocol.CHAT: frozenset({protocol.DONE, protocol.ERROR}),
}
_RESULT_TERMINAL = frozenset({protocol.RESULT, protocol.ERROR})
WORKER_LOG_LIMIT = 5 * 1024 * 1024
# Job ids are unique across clients: a worker may move from one client to another
# (``WorkerShare``) with jobs of its first client still running.
_JOB_IDS = itertools.count(1)


def worker_command() -> list[str]:
    """How to start a worker: the frozen app re-executes itself, a source install uses -m."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "--worker"]
    return [sys.executable, "-m", "backends.worker"]


@dataclass
class Job:
    """One request in flight: its events in order, how it ended, and client-side timings."""

    id: int
    kind: str
    on_event: EventCallback | None = None
    events_queue: queue.Queue[dict[str, Any]] = field(default_factory=queue.Queue)
    final: dict[str, Any] | None = None
    cancel_requested: bool = False
    sent_at: float = field(default_factory=time.perf_counter)
    first_delta_at: float | None = None
    heard: bool = False  # the worker has answered something for this job
    stats: dict[str, Any] = field(default_factory=dict)
    _finished: threading.Event = field(default_factory=threading.Event)
    _client: EngineClient | None = None
    _worker: Worker | None = None  # where it was sent: Stop goes there

    @property
    def finished(self) -> bool:
        return self._finished.is_set()

    def deliver(self, event: dict[str, Any]) -> None:
        if self._finished.is_set():
            return
        self.heard = True
        if event["type"] == protocol.DELTA and self.first_delta_at is None:
            self.first_delta_at = time.perf_counter()
        if event["type"] == protocol.STATS:
            self.stats = dict(event)
            if self.first_delta_at is not None:
                self.stats["client_ttft_ms"] = round((self.first_delta_at - self.sent_at) * 1000, 2)
            event = {**event, **self.stats}
        terminal = event["type"] in _TERMINAL_BY_KIND.get(self.kind, _RESULT_TERMINAL)
        if terminal:
            self.final = event
        if self.on_event is None:
            self.events_queue.put(event)  # only iterating callers read the queue
        else:
            try:
                self.on_event(event)
            except Exception:  # a listener's bug must not kill the reader thread
                log.exception("event listener failed for %s", event.get("type"))
        if terminal:
            self._finished.set()

    def events(self, timeout: float | None = None) -> Iterator[dict[str, Any]]:
        """Yield events until the terminal one (inclusive), for jobs without a callback.

        TimeoutError if no event comes within ``timeout`` seconds.
        """
        terminal = _TERMINAL_BY_KIND.get(self.kind, _RESULT_TERMINAL)
        while True:
            try:
                event = self.events_queue.get(timeout=timeout)
            except queue.Empty:
                raise TimeoutError(f"no answer from the engine within {timeout} s") from None
            yield event
            if event["type"] in terminal:
                return

    def wait(self, timeout: float | None = None) -> dict[str, Any] | None:
        self._finished.wait(timeout)
        return self.final

    def cancel(self) -> None:
        if self._client is not None:
            self._client.cancel(self)


class Worker:
    """One worker process and the thread reading its events."""

    def __init__(self, client: EngineClient, spec: ModelSpec | None) -> None:
        self.client = client
        self.spec = spec
        self.jobs: dict[int, Job] = {}
        self.lock = threading.Lock()
        self.dead = False
        self.killed_for_cancel = False
        # The llama.cpp runtime the worker chose, and whether it was forced (for retries).
        self.runtime: tuple[str, bool] | None = None
        # What was sent for each load or chat until its model is loaded (a chat: until its
        # first words), to send it again on another runtime.
        self.sent: dict[int, dict[str, Any]] = {}
        self.retiring = False  # ended on purpose (another model, unload, close, Stop)
        self.model_loaded = False
        self.log_file = client.open_worker_log()
        env = dict(os.environ)
        env["PYTHONUNBUFFERED"] = "1"
        if spec is not None and spec.secret_ref.startswith("keyring:"):
            from app.secrets import get_token

            key = get_token(spec.secret_ref.removeprefix("keyring:"))
            if key:
                env["HEARTH_REMOTE_API_KEY"] = key  # through the environment, not the pipe
        env.setdefault("PYTHONIOENCODING", "utf-8")
        creation = getattr(subprocess, "CREATE_NO_WINDOW", 0) if sys.platform == "win32" else 0
        self.process = subprocess.Popen(
            list(client.command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log_file,
            env=env,
            creationflags=creation,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin: IO[bytes] = self.process.stdin
        self.reader = threading.Thread(
            target=self._read,
            args=(self.process.stdout,),
            name=f"worker-{self.process.pid}",
            daemon=True,
        )
        self.reader.start()
        log.info("started worker pid %s for %s", self.process.pid, spec.path if spec else "-")

    def send(self, job: Job, message: dict[str, Any]) -> None:
        line = protocol.encode(message)
        if len(line) > protocol.MAX_LINE_BYTES:
            # Refused here, where it would enter the pipe: the worker could not read it.
            job.deliver(_too_long_event(job, len(line)))
            return
        with self.lock:
            if self.dead:
                pass
            else:
                self.jobs[job.id] = job
                job._worker = self
                if job.kind in (protocol.LOAD, protocol.CHAT):
                    self.sent[job.id] = message
                try:
                    self.stdin.write(line)
                    self.stdin.flush()
                    if job.cancel_requested:
                        # Stop came while the job was on its way here (a retry on another
                        # runtime): it was answered already, so the reply must not run.
                        protocol.write_message(
                            self.stdin, {"type": protocol.CANCEL, "id": None, "target": job.id}
                        )
                    return
                except (BrokenPipeError, OSError, ValueError):
                    self.jobs.pop(job.id, None)
        job.deliver(_worker_died_event(job, self.process.poll()))

    def _only_job(self) -> Job | None:
        """The request an unreadable-line error can only be about: the one job waiting
        for its first answer (a job the worker already answered was read fine)."""
        with self.lock:
            pending = [job for job in self.jobs.values() if not job.finished]
        if len(pending) == 1 and not pending[0].heard:
            return pending[0]
        return None

    def send_control(self, message: dict[str, Any]) -> None:
        with self.lock:
            if self.dead:
                return
            with contextlib.suppress(OSError, ValueError):  # already gone: nothing to tell
                protocol.write_message(self.stdin, message)

    def _read(self, stream: IO[bytes]) -> None:
        while True:
            try:
                event = protocol.read_message(stream)
            except protocol.ProtocolError:
                log.warning("worker %s sent an unreadable line", self.process.pid, exc_info=True)
                continue
            except (OSError, ValueError):
                event = None
            if event is None:
                break
            with self.lock:
                job = self.jobs.get(event.get("id"))  # type: ignore[arg-type]
            if job is None and event.get("type") == protocol.ERROR:
                job = self._only_job()
                log.warning("worker error without a request: %s", event.get("message"))
                if job is not None:  # the worker could not read which: it can only be this one
                    event = {**event, "id": job.id}
            if job is None:
                continue
            if event["type"] == protocol.NOTICE and event.get("kind") == "runtime_chosen":
                # For this client only (see _retry_after_crash); the stats name the runtime.
                self.runtime = (str(event.get("runtime")), bool(event.get("forced")))
                continue
            retry = event["type"] == protocol.ERROR and event.get("retry_without_runtime")
            if retry and self.client.retry_elsewhere(self, job, str(event.get("runtime")), event):
                continue
            if (
                event["type"] == protocol.READY
                and event.get("protocol") != protocol.PROTOCOL_VERSION
            ):
                event = {
                    "type": protocol.ERROR,
                    "id": job.id,
                    "kind": protocol.ERR_PROTOCOL,
                    **to_wire(
                        Phrase("The engine belongs to another version of Hearth. Reinstall Hearth.")
                    ),
                }
                self.process.kill()
            if event["type"] == protocol.LOADED:
                self.model_loaded = True
            job.deliver(event)
            if job.finished or event["type"] == protocol.DELTA:
                with self.lock:
                    # Loaded, or words shown: nothing to send again on another runtime.
                    self.sent.pop(job.id, None)
                    if job.finished:
                        self.jobs.pop(job.id, None)
        code = self.process.wait()
        stream.close()
        # Before this worker counts as dead, so that no request starts a new worker on the
        # runtime that stopped it.
        avoided = self._avoid_runtime_after_illegal_instruction(code)
        with self.lock:
            self.dead = True
            with contextlib.suppress(OSError):  # a pipe the worker never drained
                self.stdin.close()
            orphans = list(self.jobs.values())
            self.jobs.clear()
        if orphans or code not in (0, None):
            log.warning("worker pid %s ended with exit code %s", self.process.pid, code)
        for job in orphans:
            if job.cancel_requested and self.killed_for_cancel:
                job.deliver(
                    {
                        "type": protocol.DONE,
                        "id": job.id,
                        "finish_reason": protocol.FINISH_CANCELLED,
                        "forced": True,
                    }
                )
            elif not self._retry_after_crash(job, code):
                job.deliver(_worker_died_event(job, code, avoided))
        self.client.worker_ended(self)
        with contextlib.suppress(OSError):
            self.log_file.close()

    def _retry_after_crash(self, job: Job, code: int | None) -> bool:
        """A worker that died on a runtime it chose itself, while loading (a GPU driver's
        crash) or with an illegal instruction before the reply's first words (a kernel for
        another processor): the request goes to a new worker without that runtime."""
        if self.runtime is None or self.runtime[1] or self.runtime[0] == BUILT_IN_RUNTIME:
            return False
        if self.retiring or self.killed_for_cancel or job.id not in self.sent:
            return False  # ended on purpose, or words were shown: nothing to send again
        if self.model_loaded and code not in ILLEGAL_INSTRUCTION:
            return False  # a crash in a reply is not known to be the runtime's
        if self.model_loaded and self.client._worker is not self:
            return False  # handed on or retiring (the window moved on): not sent again there
        how = (
            Phrase("an illegal instruction")
            if code in ILLEGAL_INSTRUCTION
            else Phrase("the engine stopped ({0})", code)
        )
        event = {"type": protocol.ERROR, "kind": protocol.ERR_WORKER_DIED, **to_wire(how)}
        return self.client.retry_elsewhere(self, job, self.runtime[0], event)

    def _avoid_runtime_after_illegal_instruction(self, code: int | None) -> str | None:
        """A worker that met an illegal instruction on a runtime it chose itself: later
        requests for the model skip that runtime (the reply cut short cannot be sent again
        once its first words were shown).  Returns the runtime avoided, or None."""
        runtime = self.runtime
        if code not in ILLEGAL_INSTRUCTION or runtime is None or self.spec is None:
            return None
        name, forced = runtime
        if forced or name == BUILT_IN_RUNTIME or self.retiring or self.killed_for_cancel:
            return None
        self.client.avoid_runtime(self.spec, name, whole_model=True)
        return name

    def stop(self, grace_s: float) -> None:
        """Ask the worker to shut down; kill it if it has not gone within ``grace_s``."""
        self.retiring = True
        self.send_control({"type": protocol.SHUTDOWN, "id": None})
        with self.lock, contextlib.suppress(OSError):
            self.stdin.close()
        try:
            self.process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            log.warning("worker pid %s did not stop; killing it", self.process.pid)
            self.process.kill()
            self.process.wait()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()


# How a process that hit an illegal instruction ends: SIGILL, or Windows' exception code.
ILLEGAL_INSTRUCTION = frozenset({-4, 0xC000001D})


def _worker_died_event(job: Job, code: int | None, avoided: str | None = None) -> dict[str, Any]:
    how = (
        Phrase("exit code {0}", code)
        if code is not None and code >= 0
        else (Phrase("signal {0}", -code) if code is not None else Phrase("no exit code"))
    )
    if code in ILLEGAL_INSTRUCTION and avoided:
        message = Phrase(
            "The model engine stopped ({0}, an illegal instruction): the {1} build of "
            "llama.cpp uses processor instructions that this computer, or the virtual machine "
            "it runs in, does not allow. Hearth now uses another llama.cpp runtime for this "
            "model; anything already written was kept.",
            how,
            avoided,
        )
    elif code in ILLEGAL_INSTRUCTION:
        # Retrying gives the same crash: the build uses instructions this processor (or
        # the virtual machine it runs in) does not allow.
        message = Phrase(
            "The model engine stopped ({0}, an illegal instruction): this build of llama.cpp "
            "uses processor instructions that this computer, or the virtual machine it runs "
            "in, does not allow. Choose another llama.cpp runtime in Model settings; a build "
            "from source needs rebuilding for this processor.",
            how,
        )
    elif job.kind == protocol.LOAD or job.first_delta_at is None:
        # Before any answer: sending again may well crash it again, so say what may be
        # wrong rather than invite a retry.
        message = Phrase(
            "The model engine stopped unexpectedly ({0}) before the model answered. If this "
            "happens again, the model file may be damaged or too large for this computer: "
            "choose another model or a shorter context.",
            how,
        )
    else:
        message = Phrase(
            "The model engine stopped unexpectedly ({0}). What was written so far was kept; "
            "send a message to start the engine again.",
            how,
        )
    return {
        "type": protocol.ERROR,
        "id": job.id,
        "kind": protocol.ERR_WORKER_DIED,
        "exit_code": code,
        **to_wire(message),
    }


def _too_long_event(job: Job, size: int) -> dict[str, Any]:
    return {
        "type": protocol.ERROR,
        "id": job.id,
        "kind": protocol.ERR_BAD_REQUEST,
        **to_wire(
            Phrase(
                "This conversation is too long to send to the model ({0} MB; at most {1} MB "
                "can be sent). Start a new conversation, or send a shorter message.",
                size // (1024 * 1024),
                protocol.MAX_LINE_BYTES // (1024 * 1024),
            )
        ),
    }


class AvoidedRuntimes:
    """Runtimes that could not run a model here, for every engine client of this process
    (the window's, the API's pool and its per-model clients): a request whose runtime is
    chosen automatically skips them, whichever client sends it.

    An illegal instruction is the build's and this processor's: the runtime is avoided for
    the model file whatever the settings.  A load that failed (a GPU out of memory, say)
    may be the settings': it is avoided for those settings only (context, GPU layers…)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_model: dict[str, frozenset[str]] = {}
        self._by_spec: dict[ModelSpec, frozenset[str]] = {}

    def add(self, spec: ModelSpec, runtime: str, whole_model: bool = False) -> ModelSpec:
        """``runtime`` failed ``spec``'s model; returns the spec requests now get."""
        with self._lock:
            if whole_model:
                avoided = self._by_model.get(spec.path, frozenset())
                self._by_model[spec.path] = avoided | {runtime}
            else:
                key = replace(spec, skip_runtimes=())
                self._by_spec[key] = self._by_spec.get(key, frozenset()) | {runtime}
        return self.apply(spec)

    def apply(self, spec: ModelSpec) -> ModelSpec:
        """``spec`` skipping the runtimes that failed it (a forced one is kept: the user
        chose it, and its failure is the answer)."""
        if spec.runtime:
            return spec
        with self._lock:
            avoided = self._by_model.get(spec.path, frozenset()) | self._by_spec.get(
                replace(spec, skip_runtimes=()), frozenset()
            )
        if not avoided or avoided.issubset(spec.skip_runtimes):
            return spec
        return replace(spec, skip_runtimes=tuple(sorted(avoided.union(spec.skip_runtimes))))

    def serves(self, worker_spec: ModelSpec | None, runtime: str | None, spec: ModelSpec) -> bool:
        """A worker started for ``worker_spec`` (running ``runtime``, if known) can answer a
        request for ``spec``: the same, or the same but for runtimes avoided since, none
        of which it runs."""
        if worker_spec is None or worker_spec == spec:
            return True
        return self.apply(worker_spec) == spec and runtime not in spec.skip_runtimes

    def clear(self) -> None:
        with self._lock:
            self._by_model.clear()
            self._by_spec.clear()


AVOIDED_RUNTIMES = AvoidedRuntimes()


class WorkerShare(Protocol):
    """Somewhere else that keeps workers (the API's pool of models): it may lend one that
    has a model loaded, and keep one a client no longer needs."""

    def lend(self, spec: ModelSpec) -> Worker | None:
        """An idle live worker with ``spec`` loaded, detached from its client, or None."""
        ...

    def keep(self, worker: Worker) -> bool:
        """Take ``worker`` (live, with its model loaded) instead of its ending; False: no."""
        ...


class EngineClient:
    def __init__(
        self,
        log_dir: Path | None = None,
        command: Sequence[str] | None = None,
        cancel_grace_s: float = 3.0,
    ) -> None:
        self.log_dir = log_dir
        self.command = list(command) if command is not None else worker_command()
        self.cancel_grace_s = cancel_grace_s
        self._lock = threading.Lock()
        self._choosing = threading.Lock()  # one choice of worker at a time (see _worker_for)
        self._worker: Worker | None = None
        self.share: WorkerShare | None = None
        self._closed = False

    # -- worker lifecycle -------------------------------------------------------------
    def open_worker_log(self) -> IO[bytes]:
        if self.log_dir is None:
            return open(os.devnull, "ab")
        self.log_dir.mkdir(parents=True, exist_ok=True)
        path = self.log_dir / "worker.log"
        try:
            if path.stat().st_size > WORKER_LOG_LIMIT:
                os.replace(path, path.with_suffix(".log.1"))
        except OSError:
            pass
        return open(path, "ab")

    def worker_ended(self, worker: Worker) -> None:
        with self._lock:
            if self._worker is worker:
                self._worker = None

    def _worker_for(self, spec: ModelSpec | None) -> tuple[Worker, bool]:
        """The worker for ``spec``: this client's own, one lent by the share (with the
        model loaded), or a new one; the one it replaces is kept by the share or ended.
        True when the worker is new (it must be greeted)."""
        with self._choosing:
            with self._lock:
                if self._closed:
                    raise RuntimeError("the engine client is closed")
                current = self._worker
                if (
                    current is not None
                    and not current.dead
                    and (spec is None or _serves(current, spec))
                ):
                    if spec is not None:
                        current.spec = spec
                    return current, False
                share = self.share
            # The share is asked without this client's lock: it locks its own clients.
            lent = share.lend(spec) if share is not None and spec is not None else None
            with self._lock:
                if self.closed:  # closed while the share was asked: nothing may stay
                    if lent is not None:
                        threading.Thread(target=lent.stop, args=(5.0,), daemon=True).start()
                    raise RuntimeError("the engine client is closed")
                retired, started = self._worker, lent is None
                worker = lent or Worker(self, spec)
                worker.client = self
                self._worker = worker
            if retired is not None:
                self._retire(retired)
            return worker, started

    def _retire(self, worker: Worker) -> None:
        """A worker this client no longer uses: to the share if it takes it, else ended —
        once the requests still running on it (an API client's) are answered."""
        share = self.share
        if share is not None and not worker.dead and worker.model_loaded and share.keep(worker):
            return
        threading.Thread(target=_stop_when_idle, args=(worker,), daemon=True).start()

    @property
    def closed(self) -> bool:
        return self._closed

    def current_worker(self) -> Worker | None:
        """The live worker, for a ``WorkerShare`` that sends to it (``PinnedClient``)."""
        worker = self._worker
        return worker if worker is not None and not worker.dead else None

    def take_worker(self, spec: ModelSpec) -> Worker | None:
        """This client's worker if it is live, idle and has ``spec`` loaded, detached (the
        client has none afterwards); else None.  For a ``WorkerShare`` lending it."""
        with self._lock:
            worker = self._worker
            if worker is None or worker.dead or worker.spec != spec or not worker.model_loaded:
                return None
            with worker.lock:
                if any(not job.finished for job in worker.jobs.values()):
                    return None
            self._worker = None
            return worker

    def adopt(self, worker: Worker) -> None:
        """Make ``worker`` (taken from another client) this client's; it must have none."""
        with self._lock:
            if self._worker is not None and not self._worker.dead:
                raise RuntimeError("this engine client already has a worker")
            worker.client = self
            self._worker = worker

    @property
    def loaded_model(self) -> ModelSpec | None:
        worker = self._worker
        return worker.spec if worker is not None and not worker.dead else None

    @property
    def worker_pid(self) -> int | None:
        worker = self._worker
        return worker.process.pid if worker is not None and not worker.dead else None

    @property
    def dead(self) -> bool:
        """No live worker (never started, ended, or killed)."""
        worker = self._worker
        return worker is None or worker.dead

    @property
    def busy(self) -> bool:
        """The worker has requests not yet answered (generating or waiting)."""
        worker = self._worker
        if worker is None or worker.dead:
            return False
        with worker.lock:
            return any(not job.finished for job in worker.jobs.values())

    def worker_memory(self) -> int:
        """The worker's resident memory in bytes (0 when there is none to measure)."""
        pid = self.worker_pid
        if pid is None:
            return 0
        import psutil

        try:
            return int(psutil.Process(pid).memory_info().rss)
        except (psutil.Error, OSError):
            return 0

    # -- requests ----------------------------------------------------------------------
    def _submit(
        self,
        kind: str,
        spec: ModelSpec | None,
        payload: dict[str, Any],
        on_event: EventCallback | None,
    ) -> Job:
        job = Job(next(_JOB_IDS), kind, on_event)
        job._client = self
        if spec is not None:
            routed = AVOIDED_RUNTIMES.apply(spec)
            if routed != spec:
                spec = routed
                if "model" in payload:
                    payload = {**payload, "model": spec.to_wire()}
        self._send_new(job, kind, spec, payload)
        return job

    def _send_new(
        self, job: Job, kind: str, spec: ModelSpec | None, payload: dict[str, Any]
    ) -> None:
        worker, started = self._worker_for(spec)
        if started:
            hello = Job(next(_JOB_IDS), protocol.HELLO, lambda e: _forward_hello_failure(e, job))
            worker.send(
                hello,
                {"type": protocol.HELLO, "id": hello.id, "protocol": protocol.PROTOCOL_VERSION},
            )
            if kind in (protocol.LOAD, protocol.CHAT):
                job.deliver(
                    {
                        "type": protocol.PROGRESS,
                        "id": job.id,
                        "fraction": 0.0,
                        "stage": "Starting the engine",
                    }
                )
        worker.send(job, {"type": kind, "id": job.id, **payload})

    def retry_elsewhere(self, worker: Worker, job: Job, failed: str, event: dict[str, Any]) -> bool:
        """Send ``job`` again to a new worker that skips the runtime ``failed`` (chosen
        automatically, it could not load the model); the user gets a notice.  False when
        there is nothing to send again.  Runs on the failed worker's reader thread."""
        with worker.lock:
            message = worker.sent.pop(job.id, None)
            if message is not None:
                worker.jobs.pop(job.id, None)
        if message is None:
            return False
        if job.cancel_requested:
            job.deliver(
                {"type": protocol.DONE, "id": job.id, "finish_reason": protocol.FINISH_CANCELLED}
            )
            return True
        try:
            spec = self.avoid_runtime(ModelSpec.from_wire(message["model"]), failed)
            log.warning("runtime %s failed to load %s; retrying without it", failed, spec.path)
            job.deliver(
                {
                    "type": protocol.NOTICE,
                    "id": job.id,
                    "kind": "runtime_failed",
                    "runtime": failed,
                    **to_wire(
                        Phrase(
                            "The {0} runtime stopped ({1}); trying the next one.",
                            failed,
                            str(event.get("message", "")),
                        )
                        if worker.model_loaded
                        else Phrase(
                            "The {0} runtime could not load the model ({1}); trying the next one.",
                            failed,
                            str(event.get("message", "")),
                        )
                    ),
                }
            )
            payload = {k: v for k, v in message.items() if k not in ("type", "id")}
            payload["model"] = spec.to_wire()
            self._send_new(job, job.kind, spec, payload)
        except Exception:  # the reader thread must go on: the job ends with the error
            log.exception("could not retry on another runtime")
            job.deliver({**event, "id": job.id, "retry_without_runtime": False})
        return True

    def avoid_runtime(self, spec: ModelSpec, failed: str, whole_model: bool = False) -> ModelSpec:
        """From now on, requests for ``spec`` (for its model file: ``whole_model``), from
        any client of this process, go to a worker that skips the runtime ``failed``;
        returns the spec they get."""
        return AVOIDED_RUNTIMES.add(spec, failed, whole_model)

    def load(self, spec: ModelSpec, on_event: EventCallback | None = None) -> Job:
        return self._submit(protocol.LOAD, spec, {"model": spec.to_wire()}, on_event)

    def chat(
        self,
        spec: ModelSpec,
        messages: Sequence[dict[str, Any]],
        params: dict[str, Any] | None = None,
        on_event: EventCallback | None = None,
        continue_reply: bool = False,
    ) -> Job:
        """Stream a reply.  ``continue_reply``: the last message is an unfinished reply of
        the model, which goes on with it (after the token limit or Stop)."""
        payload: dict[str, Any] = {
            "model": spec.to_wire(),
            "messages": list(messages),
            "params": params or {},
        }
        if continue_reply:
            payload["continue"] = True
        return self._submit(protocol.CHAT, spec, payload, on_event)

    def complete(
        self,
        spec: ModelSpec,
        prompt: str,
        params: dict[str, Any] | None = None,
        on_event: EventCallback | None = None,
        suffix: str | None = None,
    ) -> Job:
        """Stream the text that follows a raw ``prompt`` (no chat template); with a
        ``suffix``, the text between the two (fill-in-the-middle).  GGUF models only."""
        payload: dict[str, Any] = {
            "model": spec.to_wire(),
            "messages": [],
            "prompt": prompt,
            "params": params or {},
        }
        if suffix is not None:
            payload["suffix"] = suffix
        return self._submit(protocol.CHAT, spec, payload, on_event)

    def embed(self, spec: ModelSpec, texts: Sequence[str]) -> Job:
        """Normalised embeddings of ``texts`` (a ``result`` with ``embeddings`` and
        ``prompt_tokens``).  GGUF models only."""
        self.load(spec)
        return self._submit(protocol.EMBED, spec, {"input": list(texts)}, None)

    def count_tokens(self, spec: ModelSpec, text: str) -> Job:
        self.load(spec)
        return self._submit(protocol.COUNT_TOKENS, spec, {"text": text}, None)

    def cancel(self, job: Job) -> None:
        """Stop ``job`` soon: ask the worker, and kill it if it does not listen in time."""
        if job.finished or job.cancel_requested:
            return
        job.cancel_requested = True
        worker = job._worker or self._worker
        if worker is None or worker.dead:
            job.deliver(
                {"type": protocol.DONE, "id": job.id, "finish_reason": protocol.FINISH_CANCELLED}
            )
            return
        worker.send_control({"type": protocol.CANCEL, "id": None, "target": job.id})

        def enforce() -> None:
            if not job.wait(self.cancel_grace_s):
                log.warning("worker ignored cancel for %.1f s; killing it", self.cancel_grace_s)
                worker.killed_for_cancel = True
                worker.kill()

        threading.Thread(target=enforce, name="cancel-watch", daemon=True).start()

    def unload(self) -> None:
        """End the worker: frees the model's RAM and VRAM for certain."""
        with self._lock:
            worker, self._worker = self._worker, None
        if worker is not None:
            threading.Thread(target=worker.stop, args=(5.0,), daemon=True).start()

    def close(self, timeout: float = 5.0) -> None:
        with self._lock:
            self._closed = True
            worker, self._worker = self._worker, None
        if worker is not None:
            worker.stop(timeout)
            worker.reader.join(timeout)


class PinnedClient(EngineClient):
    """Requests sent straight to one worker that another client owns (the window's, for
    the API): it never starts, ends or swaps a worker, so a request can never change the
    model the window has chosen."""

    def __init__(self, owner: EngineClient, worker: Worker) -> None:
        super().__init__(owner.log_dir, owner.command, owner.cancel_grace_s)
        self._worker = worker

    def _worker_for(self, spec: ModelSpec | None) -> tuple[Worker, bool]:
        worker = self._worker
        if worker is None or worker.dead or (spec is not None and not _serves(worker, spec)):
            raise RuntimeError("the window switched to another model; send the request again")
        return worker, False

    def unload(self) -> None:
        """Not this client's worker to end."""

    def close(self, timeout: float = 5.0) -> None:
        """Not this client's worker to end."""


def _serves(worker: Worker, spec: ModelSpec) -> bool:
    runtime = worker.runtime[0] if worker.runtime is not None else None
    return AVOIDED_RUNTIMES.serves(worker.spec, runtime, spec)


def _stop_when_idle(worker: Worker, grace_s: float = 5.0, patience_s: float = 3600.0) -> None:
    """End ``worker`` once it has no request left (at most ``patience_s`` from now)."""
    deadline = time.monotonic() + patience_s
    while time.monotonic() < deadline and not worker.dead:
        with worker.lock:
            if not any(not job.finished for job in worker.jobs.values()):
                break
        time.sleep(0.2)
    worker.stop(grace_s)


def _forward_hello_failure(event: dict[str, Any], job: Job) -> None:
    if event["type"] == protocol.ERROR:
        job.deliver({**event, "id": job.id})
