"""Which model answers a request: the one model the window (or ``hearth serve --model``)
chose, or the library through the pool (``app.serve.model_pool``).  Every route asks
``take`` for its request's model and releases it once its job is sent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from app.engine_client import EngineClient
from app.serve.model_pool import ModelPool, Offered, Resident
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
    memory_bytes: int
    expires_at: float  # a time.time() stamp
    context_length: int


class ServedModels(Protocol):
    async def take(self, name: str | None, keep_alive_s: float | None = None) -> Served: ...

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

    async def take(self, name: str | None, keep_alive_s: float | None = None) -> Served:
        offered = self.pool.find(name)  # UnknownModel: the route answers 404
        resident = await asyncio.to_thread(self.pool.acquire, offered, keep_alive_s)
        return Served(
            offered.name,
            resident.client,
            resident.spec,
            offered.defaults(),
            offered.facts,
            lambda: self.pool.release(resident),
        )

    def listed(self) -> list[tuple[str, dict[str, Any]]]:
        return [(o.name, o.facts) for o in self.pool.offered()]

    def running(self) -> list[Running]:
        return [_running(r) for r in self.pool.resident()]


def _running(resident: Resident) -> Running:
    offered: Offered = resident.offered
    return Running(
        offered.name,
        offered.facts,
        resident.spec,
        resident.memory(),
        resident.expires_at(),
        int(resident.info.get("n_ctx") or resident.spec.n_ctx or 0),
    )


def _nothing() -> None:
    """Releasing the one model: nothing to do."""
