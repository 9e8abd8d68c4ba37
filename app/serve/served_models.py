"""Which model answers a request: the one model the window (or ``hearth serve --model``)
chose, or the library through the pool (``app.serve.model_pool``).  Every route asks
``take`` for its request's model and releases it once its job is sent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from fastapi.responses import StreamingResponse

from app.engine_client import EngineClient
from app.serve.model_pool import ModelPool, Offered, Resident, UnknownModel
from wire.model_spec import ModelSpec


@dataclass
class Served:
    """The model one request uses."""

    name: str
    client: EngineClient
    spec: ModelSpec
    defaults: dict[str, Any]
    facts: dict[str, Any]
    release: Callable[[], None]


@dataclass(frozen=True)
class Running:
    """A loaded model, as ``/api/ps`` lists it."""

    name: str
    facts: dict[str, Any]
    spec: ModelSpec
    memory_bytes: int  # RAM and GPU memory together, as Ollama's ``size``
    expires_at: float  # a time.time() stamp
    context_length: int
    vram_bytes: int = 0


class ServedModels(Protocol):
    async def take(self, name: str | None, keep_alive_s: float | None = None) -> Served: ...

    def unload(self, name: str | None) -> bool:
        """Unload the named model now if it is loaded and idle (Ollama's keep_alive 0
        with nothing to generate)."""
        ...

    def listed(self) -> list[tuple[str, dict[str, Any]]]:
        """(name, facts) of every model offered; the facts hold ``path`` and ``engine``."""
        ...

    def running(self) -> list[Running]: ...


class SingleModel:
    """One model whatever the request names (the window's switch, ``--model``)."""

    def __init__(
        self,
        client: EngineClient,
        spec: Callable[[], ModelSpec],
        name: str,
        facts: Callable[[], dict[str, Any]],
        defaults: Callable[[], dict[str, Any]],
    ) -> None:
        self.client, self.spec, self.name = client, spec, name
        self.facts, self.defaults = facts, defaults

    async def take(self, name: str | None, keep_alive_s: float | None = None) -> Served:
        return Served(self.name, self.client, self.spec(), self.defaults(), self.facts(), _nothing)

    def unload(self, name: str | None) -> bool:
        return False  # the window's (or --model's) one model stays

    def listed(self) -> list[tuple[str, dict[str, Any]]]:
        spec = self.spec()
        return [(self.name, {**self.facts(), "path": spec.path, "engine": spec.engine})]

    def running(self) -> list[Running]:
        loaded = self.client.loaded_model
        if loaded is None:
            return []
        memory = self.client.worker_memory()
        forever = time.time() + 10 * 365 * 86400  # loaded while the server runs
        return [Running(self.name, self.facts(), loaded, memory, forever, loaded.n_ctx)]


class LibraryModels:
    """Every model of the library, loaded on demand (``ModelPool``)."""

    def __init__(self, pool: ModelPool) -> None:
        self.pool = pool
        # Loads wait here, apart from the event loop's own threads (embeddings, counts).
        self._loads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="model-load")

    async def take(self, name: str | None, keep_alive_s: float | None = None) -> Served:
        offered = self.pool.find(name)  # UnknownModel: the route answers 404
        # A loaded model is reserved at once; a load waits in a thread of its own, so a
        # long load never holds up requests for models already loaded.
        resident = self.pool.reserve_loaded(offered, keep_alive_s)
        if resident is None:
            loading = asyncio.get_running_loop().run_in_executor(
                self._loads, self.pool.acquire, offered, keep_alive_s
            )
            try:
                resident = await asyncio.shield(loading)
            except asyncio.CancelledError:  # the client went away during the load
                loading.add_done_callback(self._release_when_loaded)
                raise
        try:
            defaults = offered.defaults()
        except BaseException:
            self.pool.release(resident)
            raise
        return Served(
            offered.name,
            resident.client,
            resident.spec,
            defaults,
            offered.facts,
            lambda: self.pool.release(resident),
        )

    def _release_when_loaded(self, loading: asyncio.Future[Resident]) -> None:
        if not loading.cancelled() and loading.exception() is None:
            self.pool.release(loading.result())

    def unload(self, name: str | None) -> bool:
        try:
            return self.pool.unload(self.pool.find(name).name)
        except UnknownModel:
            return False

    def listed(self) -> list[tuple[str, dict[str, Any]]]:
        return [(o.name, o.facts) for o in self.pool.offered()]

    def running(self) -> list[Running]:
        now = self.pool.now()
        return [_running(r, now) for r in self.pool.resident()]


def _running(resident: Resident, now: float) -> Running:
    offered: Offered = resident.offered
    vram = resident.gpu_memory()
    forever = time.time() + 10 * 365 * 86400  # the window's model stays while it is chosen
    return Running(
        offered.name,
        offered.facts,
        resident.spec,
        resident.memory() + vram,
        forever if resident.hosted else resident.expires_at(now),
        int(resident.info.get("n_ctx") or resident.spec.n_ctx or 0),
        vram,
    )


def _nothing() -> None:
    """Releasing the one model: nothing to do."""


async def answered(served: Served, produce: Callable[[], Awaitable[Any]]) -> Any:
    """``produce``'s response, the model kept reserved until it is sent: a stream's until
    its last event (so choice 2 of ``n`` does not find its model unloaded), any other
    answer's until it is ready."""
    try:
        response = await produce()
    except BaseException:
        served.release()
        raise
    if not isinstance(response, StreamingResponse):
        served.release()
        return response
    inner = response.body_iterator

    async def body() -> AsyncIterator[Any]:
        try:
            async for chunk in inner:
                yield chunk
        finally:
            served.release()

    response.body_iterator = body()
    return response
