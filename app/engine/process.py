"""One worker process and the thread that reads its events.

The worker is started from the child-process table (``wire.child_process``): the frozen app
runs itself with ``--worker``, a source install ``python -m backends.worker``.  Its stderr
goes to the worker log; its stdout is the protocol.  This class knows the pipe and the
process, nothing about leases or budgets: what an event means for the host (a runtime
chosen, a thread count applied, a request to send again elsewhere) and what the end of the
process means are its owner's (``WorkerOwner``, the engine host).
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import threading
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, Protocol

from app.engine.faults import too_long, worker_died
from app.engine.jobs import Job
from app.files import private_file, private_folder
from app.processes import kill_tree
from wire import protocol
from wire.child_process import WORKER, command, creation_flags
from wire.model_spec import ModelSpec
from wire.phrases import Phrase, to_wire

log = logging.getLogger(__name__)

WORKER_LOG_LIMIT = 5 * 1024 * 1024


class WorkerOwner(Protocol):
    def intercept(self, worker: WorkerProcess, job: Job, event: dict[str, Any]) -> bool:
        """The owner's own events (True: taken, not delivered to the job)."""
        ...

    def job_finished(self, worker: WorkerProcess, job: Job) -> None:
        """``job`` ended (its terminal event was delivered)."""
        ...

    def worker_ended(self, worker: WorkerProcess, code: int | None, orphans: list[Job]) -> None:
        """The process ended; ``orphans`` are the requests it never answered."""
        ...


def open_worker_log(log_dir: Path | None) -> IO[bytes]:
    """The shared worker log, rolled over past ``WORKER_LOG_LIMIT``."""
    if log_dir is None:
        return open(os.devnull, "ab")
    private_folder(log_dir)
    path = log_dir / "worker.log"
    try:
        if path.stat().st_size > WORKER_LOG_LIMIT:
            os.replace(path, path.with_suffix(".log.1"))
    except OSError:
        pass
    return open(private_file(path), "ab")


class WorkerProcess:
    def __init__(
        self,
        spec: ModelSpec,
        owner: WorkerOwner,
        log_dir: Path | None,
        worker_command: Sequence[str] | None = None,
    ) -> None:
        self.spec = spec
        self.owner = owner
        self.jobs: dict[int, Job] = {}
        self.lock = threading.Lock()
        self.dead = False
        self.killed_stuck = False  # killed because it ignored a cancel and made no progress
        self.killed_grown = 0  # killed at this size: it grew far past what its model needs
        self.grown_cause: Any = None  # what its requests asked that may explain it
        self.loaded_rss = 0  # its memory once the model was loaded
        self.killed_stalled = 0.0  # killed after this many seconds without any progress
        self.stalled_on_grammar = False  # ... busy on a request's grammar, writing nothing
        self.progress: tuple[float, float] | None = None  # (when, CPU seconds) last seen
        # The llama.cpp runtime the worker chose, and whether it was forced (for retries).
        self.runtime: tuple[str, bool] | None = None
        # What was sent for each load or chat until its model is loaded (a chat: until its
        # first words), to send it again on another runtime.
        self.sent: dict[int, dict[str, Any]] = {}
        self.retiring = False  # ended on purpose (another model, unload, close)
        self.model_loaded = False
        self.loaded_facts: dict[str, Any] = {}
        self.last_heard = time.monotonic()
        # (when, threads) as it said, the latest ones (for tests and diagnostics).
        self.threads_reported: deque[tuple[float, int]] = deque(maxlen=1000)
        # Requests for it that wait for a share of the cores (not sent yet): it is busy.
        self.queued: set[int] = set()
        self.log_file = open_worker_log(log_dir)
        env = dict(os.environ)
        env["PYTHONUNBUFFERED"] = "1"
        env.setdefault("PYTHONIOENCODING", "utf-8")
        if spec.secret_ref.startswith("keyring:"):
            from app.secrets import get_token

            key = get_token(spec.secret_ref.removeprefix("keyring:"))
            if key:
                env["HEARTH_REMOTE_API_KEY"] = key  # through the environment, not the pipe
        try:
            self.process = subprocess.Popen(
                list(worker_command or command(WORKER)),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.log_file,
                env=env,
                creationflags=creation_flags(),
            )
        except BaseException:
            self.log_file.close()
            raise
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin: IO[bytes] = self.process.stdin
        self.pid = self.process.pid
        self.reader = threading.Thread(
            target=self._read, args=(self.process.stdout,), name=f"worker-{self.pid}", daemon=True
        )
        self.reader.start()
        log.info("started worker pid %s for %s", self.pid, spec.path)

    # -- sending -------------------------------------------------------------------------
    def send(self, job: Job, message: dict[str, Any]) -> None:
        """Send a request; a worker that is gone answers it with ``worker_died``."""
        line = protocol.encode(message)
        if len(line) > protocol.MAX_LINE_BYTES:
            # Refused here, where it would enter the pipe: the worker could not read it.
            job.deliver(too_long(job, len(line)))
            return
        with self.lock:
            if job.finished:
                return  # cancelled on its way here: answered already
            if not self.dead:
                self.jobs[job.id] = job
                job.worker = self
                if job.kind in (protocol.LOAD, protocol.CHAT):
                    self.sent[job.id] = message
                try:
                    self.stdin.write(line)
                    self.stdin.flush()
                    if job.cancel_requested:
                        # Stop came while the job was on its way here (a retry on another
                        # runtime, or a wait for cores): the reply must not run.
                        protocol.write_message(
                            self.stdin, {"type": protocol.CANCEL, "id": None, "target": job.id}
                        )
                    return
                except (BrokenPipeError, OSError, ValueError):
                    self.jobs.pop(job.id, None)
        job.deliver(worker_died(job, self.process.poll()))

    def control(self, message: dict[str, Any]) -> None:
        """A control (cancel, threads, shutdown): read by the worker at once."""
        with self.lock:
            if self.dead:
                return
            with contextlib.suppress(OSError, ValueError):  # already gone: nothing to tell
                protocol.write_message(self.stdin, message)

    def tell_threads(self, threads: int, grant: int) -> None:
        self.control(
            {"type": protocol.THREADS, "id": None, "threads": threads, protocol.GRANT: grant}
        )

    def take_sent(self, job: Job) -> dict[str, Any] | None:
        """What was sent for ``job``, if it may be sent again elsewhere (and the job leaves
        this worker); None when there is nothing to send again."""
        with self.lock:
            message = self.sent.pop(job.id, None)
            if message is not None:
                self.jobs.pop(job.id, None)
        return message

    # -- state ---------------------------------------------------------------------------
    def messages_in_flight(self) -> list[dict[str, Any]]:
        """The chat requests sent and not answered yet, as they were sent."""
        with self.lock:
            return [m for i, m in self.sent.items() if i in self.jobs and not self.jobs[i].finished]

    def pending(self) -> list[Job]:
        with self.lock:
            return [job for job in self.jobs.values() if not job.finished]

    def replies(self) -> int:
        """Its replies not yet done: generating, or waiting for a slot or for cores."""
        with self.lock:
            sent = sum(1 for job in self.jobs.values() if job.kind == protocol.CHAT)
        return sent + len(self.queued)

    @property
    def busy(self) -> bool:
        """It has requests not yet answered (generating, queued, or waiting for cores)."""
        return bool(self.queued) or bool(self.pending())

    def memory(self) -> int:
        """Its resident memory in bytes (0 when it cannot be measured)."""
        if self.dead:
            return 0
        from app.processes import tree_rss

        return tree_rss(self.pid)  # with a venv launcher's interpreter, on Windows

    def cpu_seconds(self) -> float:
        """The CPU time it has used, its children's counted (a worker that uses none and
        says nothing is stuck; on Windows a venv's launcher starts the real interpreter)."""
        from app.processes import tree_cpu_seconds

        return tree_cpu_seconds(self.pid)

    # -- the reader thread ---------------------------------------------------------------
    def _only_job(self) -> Job | None:
        """The request an unreadable-line error can only be about: the one job waiting
        for its first answer (a job the worker already answered was read fine)."""
        pending = self.pending()
        if len(pending) == 1 and not pending[0].heard:
            return pending[0]
        return None

    def _read(self, stream: IO[bytes]) -> None:
        while True:
            try:
                event = protocol.read_message(stream)
            except protocol.ProtocolError:
                log.warning("worker %s sent an unreadable line", self.pid, exc_info=True)
                continue
            except (OSError, ValueError):
                event = None
            if event is None:
                break
            self.last_heard = time.monotonic()
            with self.lock:
                job = self.jobs.get(event.get("id"))  # type: ignore[arg-type]
            if job is None and event.get("type") == protocol.ERROR:
                job = self._only_job()
                log.warning("worker error without a request: %s", event.get("message"))
                if job is not None:  # the worker could not read which: it can only be this one
                    event = {**event, "id": job.id}
            if job is None:
                continue
            event = self._checked(job, event)
            if self.owner.intercept(self, job, event):
                continue
            if event["type"] == protocol.LOADED:
                self.model_loaded = True
                self.loaded_rss = self.memory()  # the model in memory: what growth is from
                self.loaded_facts = {k: v for k, v in event.items() if k not in ("type", "id")}
            ends = event["type"] in job.terminal
            if ends or event["type"] == protocol.DELTA:
                with self.lock:
                    # Loaded, or words shown: nothing to send again on another runtime.
                    self.sent.pop(job.id, None)
                    if ends:  # not busy with it before anyone hears of its end
                        self.jobs.pop(job.id, None)
            job.deliver(event)
            if job.finished:
                self.owner.job_finished(self, job)
        code = self.process.wait()
        stream.close()
        with self.lock:
            self.dead = True
            with contextlib.suppress(OSError):  # a pipe the worker never drained
                self.stdin.close()
            orphans = [job for job in self.jobs.values() if not job.finished]
            self.jobs.clear()
        if orphans or code not in (0, None):
            log.warning("worker pid %s ended with exit code %s", self.pid, code)
        self.owner.worker_ended(self, code, orphans)
        with contextlib.suppress(OSError):
            self.log_file.close()

    def _checked(self, job: Job, event: dict[str, Any]) -> dict[str, Any]:
        """A worker of another version of Hearth is refused (and ended)."""
        if event["type"] == protocol.READY and event.get("protocol") != protocol.PROTOCOL_VERSION:
            kill_tree(self.process)
            return {
                "type": protocol.ERROR,
                "id": job.id,
                "kind": protocol.ERR_PROTOCOL,
                **to_wire(
                    Phrase("The engine belongs to another version of Hearth. Reinstall Hearth.")
                ),
            }
        return event

    # -- ending --------------------------------------------------------------------------
    def stop(self, grace_s: float) -> None:
        """Ask the worker to shut down; kill it if it has not gone within ``grace_s``."""
        self.retiring = True
        self.control({"type": protocol.SHUTDOWN, "id": None})
        with self.lock, contextlib.suppress(OSError):
            self.stdin.close()
        try:
            self.process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            log.warning("worker pid %s did not stop; killing it", self.pid)
            kill_tree(self.process)
            self.process.wait()

    def stop_when_idle(self, grace_s: float = 5.0, patience_s: float = 3600.0) -> None:
        """End the worker once it has no request left (at most ``patience_s`` from now)."""
        deadline = time.monotonic() + patience_s
        while time.monotonic() < deadline and not self.dead and self.busy:
            time.sleep(0.2)
        self.stop(grace_s)

    def kill(self) -> None:
        if self.process.poll() is None:
            kill_tree(self.process)
