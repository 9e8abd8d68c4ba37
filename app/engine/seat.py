"""The model a front end has chosen: the window's chat, ``hearth chat``, ``hearth serve
--model``.  A seat holds one pinned lease and moves it when a request names another spec
(the person chose another model, or another context length), releasing the old one: the
host ends that model once its requests are answered, or keeps it for its keep-alive while
the API serves.  Requests name their spec, so a chat session sends as it always has.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from app.engine.jobs import EventCallback, Job
from app.engine.lease import Lease
from wire.model_spec import ModelSpec

if TYPE_CHECKING:
    from app.engine.host import EngineHost


class Seat:
    def __init__(self, host: EngineHost, purpose: str = "chat") -> None:
        self.host, self.purpose = host, purpose
        self._lock = threading.Lock()
        self._lease: Lease | None = None
        self.label = ""  # the chosen model's name, for lists

    def lease(self, spec: ModelSpec) -> Lease:
        """The pinned lease on ``spec``, moved from the model chosen before."""
        with self._lock:
            current = self._lease
            if current is not None and current.spec == spec.base:
                return current
            self._lease = self.host.lease(spec, pinned=True, purpose=self.purpose, label=self.label)
        if current is not None:
            current.release()
        return self._lease

    @property
    def current(self) -> Lease | None:
        return self._lease

    # -- requests, each for the spec it names --------------------------------------------
    def load(self, spec: ModelSpec, on_event: EventCallback | None = None) -> Job:
        return self.lease(spec).load(on_event)

    def chat(
        self,
        spec: ModelSpec,
        messages: Sequence[dict[str, Any]],
        params: dict[str, Any] | None = None,
        on_event: EventCallback | None = None,
        continue_reply: bool = False,
    ) -> Job:
        return self.lease(spec).chat(messages, params, on_event, continue_reply)

    def complete(
        self,
        spec: ModelSpec,
        prompt: str,
        params: dict[str, Any] | None = None,
        on_event: EventCallback | None = None,
        suffix: str | None = None,
    ) -> Job:
        return self.lease(spec).complete(prompt, params, on_event, suffix)

    def embed(self, spec: ModelSpec, texts: Sequence[str]) -> Job:
        return self.lease(spec).embed(texts)

    def count_tokens(self, spec: ModelSpec, text: str) -> Job:
        return self.lease(spec).count_tokens(text)

    def cancel(self, job: Job) -> None:
        self.host.cancel(job)

    # -- the chosen model ----------------------------------------------------------------
    @property
    def loaded_model(self) -> ModelSpec | None:
        """The spec whose worker is running (None before the first request, or after the
        worker ended)."""
        lease = self._lease
        return lease.spec if lease is not None and lease.worker_pid is not None else None

    @property
    def worker_pid(self) -> int | None:
        lease = self._lease
        return lease.worker_pid if lease is not None else None

    @property
    def busy(self) -> bool:
        lease = self._lease
        return lease is not None and lease.busy

    @property
    def dead(self) -> bool:
        """No live worker (never started, ended, or killed)."""
        return self.worker_pid is None

    def worker_memory(self) -> int:
        lease = self._lease
        return lease.memory() if lease is not None else 0

    def unload(self) -> None:
        """End the chosen model's worker (once its requests are answered): frees its RAM
        and VRAM for certain.  The next request loads it again."""
        with self._lock:
            lease, self._lease = self._lease, None
        if lease is not None:
            lease.release(keep_alive_s=0.0)
            self.host.settle()  # the lists that follow no longer show it
