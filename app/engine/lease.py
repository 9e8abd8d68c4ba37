"""A lease on one model of the engine host: what a front end holds while it uses a model.

Every request goes through a lease, which names the model (a ``ModelSpec``); the host
decides which worker answers (``app.engine.host``), and tells the lease its model's place
in the host (``joined``) on its own thread, before any request of the lease is placed.
Nothing blocks: a request returns its ``Job`` at once and its answers arrive as events.
While a lease is held, its model is never ended to make room for another; ``release``
says it is no longer needed (with how long it may stay loaded idle, or the host's
default).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Protocol

from app.engine.hosted import Hosted
from app.engine.jobs import EventCallback, Job
from app.engine.process import WorkerProcess
from wire import protocol
from wire.model_spec import ModelSpec


class Host(Protocol):
    """What a lease asks of the engine host (``app.engine.host.EngineHost``)."""

    def submit(
        self, lease: Lease, kind: str, payload: dict[str, Any], on_event: EventCallback | None
    ) -> Job: ...

    def cancel(self, job: Job) -> None: ...

    def release(self, lease: Lease, keep_alive_s: float | None) -> None: ...


class Lease:
    def __init__(self, host: Host, spec: ModelSpec, pinned: bool, purpose: str) -> None:
        self.host, self.spec = host, spec
        self.pinned, self.purpose = pinned, purpose
        self.hosted: Hosted | None = None  # its model's place, once the host has counted it
        self._released = False
        self._pending: list[Job] = []  # its requests not yet answered
        self._lock = threading.Lock()

    def joined(self, hosted: Hosted) -> None:
        """(The host's thread.)  The lease is counted on ``hosted``."""
        self.hosted = hosted

    # -- requests ------------------------------------------------------------------------
    def load(self, on_event: EventCallback | None = None) -> Job:
        return self._submit(protocol.LOAD, {"model": self.spec.to_wire()}, on_event)

    def chat(
        self,
        messages: Sequence[dict[str, Any]],
        params: dict[str, Any] | None = None,
        on_event: EventCallback | None = None,
        continue_reply: bool = False,
    ) -> Job:
        """Stream a reply.  ``continue_reply``: the last message is an unfinished reply of
        the model, which goes on with it (after the token limit or Stop)."""
        payload: dict[str, Any] = {
            "model": self.spec.to_wire(),
            "messages": list(messages),
            "params": params or {},
        }
        if continue_reply:
            payload["continue"] = True
        return self._submit(protocol.CHAT, payload, on_event)

    def complete(
        self,
        prompt: str,
        params: dict[str, Any] | None = None,
        on_event: EventCallback | None = None,
        suffix: str | None = None,
    ) -> Job:
        """Stream the text that follows a raw ``prompt`` (no chat template); with a
        ``suffix``, the text between the two (fill-in-the-middle).  GGUF models only."""
        payload: dict[str, Any] = {
            "model": self.spec.to_wire(),
            "messages": [],
            "prompt": prompt,
            "params": params or {},
        }
        if suffix is not None:
            payload["suffix"] = suffix
        return self._submit(protocol.CHAT, payload, on_event)

    def embed(self, texts: Sequence[str]) -> Job:
        """Normalised embeddings of ``texts`` (a ``result`` with ``embeddings`` and
        ``prompt_tokens``).  GGUF models only."""
        return self._loaded_first(protocol.EMBED, {"input": list(texts)})

    def count_tokens(self, text: str) -> Job:
        return self._loaded_first(protocol.COUNT_TOKENS, {"text": text})

    def _loaded_first(self, kind: str, payload: dict[str, Any]) -> Job:
        """A request that needs the model loaded (and carries no spec): a load first, whose
        failure (the engine's own words) ends the request too."""
        failed: list[dict[str, Any]] = []
        main: list[Job] = []

        def forward(event: dict[str, Any]) -> None:
            if event["type"] == protocol.ERROR:
                failed.append(event)
                for job in main:
                    job.deliver({**event, "id": job.id})

        self.load(forward)
        job = self._submit(kind, payload, None)
        main.append(job)
        for event in failed:  # failed before the request was known
            job.deliver({**event, "id": job.id})
        return job

    def cancel(self, job: Job) -> None:
        self.host.cancel(job)

    def _submit(self, kind: str, payload: dict[str, Any], on_event: EventCallback | None) -> Job:
        if self._released:
            raise RuntimeError("this lease on the model was released")
        job = self.host.submit(self, kind, payload, on_event)
        with self._lock:
            self._pending = [j for j in self._pending if not j.finished] + [job]
        return job

    # -- the model -----------------------------------------------------------------------
    def _worker(self) -> WorkerProcess | None:
        hosted = self.hosted
        return hosted.live() if hosted is not None else None

    @property
    def worker_pid(self) -> int | None:
        worker = self._worker()
        return worker.pid if worker is not None else None

    @property
    def loaded(self) -> bool:
        worker = self._worker()
        return worker is not None and worker.model_loaded

    @property
    def facts(self) -> dict[str, Any]:
        """What the load reported (context length, template…); empty until loaded."""
        worker = self._worker()
        return dict(worker.loaded_facts) if worker is not None else {}

    @property
    def busy(self) -> bool:
        """A request of its own not yet answered, or its model busy with another's."""
        hosted = self.hosted
        with self._lock:
            mine = any(not job.finished for job in self._pending)
        return mine or (hosted is not None and hosted.busy)

    def memory(self) -> int:
        """The worker's resident memory in bytes (0 when there is none to measure)."""
        worker = self._worker()
        return worker.memory() if worker is not None else 0

    def gpu_memory(self) -> int:
        hosted = self.hosted
        return hosted.gpu_memory() if hosted is not None else 0

    # -- the end -------------------------------------------------------------------------
    @property
    def released(self) -> bool:
        return self._released

    def release(self, keep_alive_s: float | None = None) -> None:
        """No longer needed (more than once is harmless).  The model stays loaded idle for
        ``keep_alive_s`` (None: the host's default; 0: it ends once its requests are
        answered)."""
        with self._lock:
            if self._released:
                return
            self._released = True
        self.host.release(self, keep_alive_s)
