"""Which model answers a request: the library's (``hearth serve``, the window's switch), or
the one model of ``hearth serve --model``.  Every route asks ``take`` for its request's
model and gets a lease on it from the engine host (``app.engine``), which loads it when the
request is sent, under the one memory budget the window's model and the documents' model
count in too.

Nothing here reads the library: whoever starts the server passes the ``Offered`` models
(``app.library_offer``).
"""

from __future__ import annotations

import asyncio
import difflib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from app.engine.host import EngineHost
from app.engine.hosted import Loaded
from app.engine.lease import Lease
from app.engine.seat import Seat
from app.errors import HearthError
from app.serve.naming import ollama_name
from wire.model_spec import ModelSpec

PURPOSE = "api"
# Names that mean "the model Hearth is using": the README's recipes name ``hearth``, and
# clients that need a name send one of these.
DEFAULT_NAMES = frozenset({"", "hearth", "hearth:latest", "default"})
FOREVER_S = 10 * 365 * 86400.0


class UnknownModel(LookupError):
    """No offered model has that name; the message names the closest ones."""


class Refused(RuntimeError):
    """The model cannot be used here (the load check's sentence): a 400."""


@dataclass(frozen=True)
class Offered:
    """A model the server offers: its library name and facts, how to load it here, and
    its sampling defaults."""

    name: str
    facts: dict[str, Any]
    spec: Callable[[], ModelSpec]
    defaults: Callable[[], dict[str, Any]]

    @property
    def path(self) -> str:
        return str(self.facts.get("path") or "")

    def names(self) -> set[str]:
        """Every name a request may use for it."""
        tagged = ollama_name(self.name)
        return {self.name, self.name.lower(), tagged, tagged.split(":", 1)[0]}


@dataclass
class Served:
    """The model one request uses, leased until ``release`` (the end of its reply)."""

    name: str
    lease: Lease
    defaults: dict[str, Any]
    facts: dict[str, Any]
    keep_alive_s: float | None = None

    @property
    def spec(self) -> ModelSpec:
        return self.lease.spec

    def release(self) -> None:
        self.lease.release(self.keep_alive_s)


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
    slots: int = 1  # replies it writes at once
    replies: int = 0  # replies not yet done (beyond ``slots``: waiting their turn)


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


class LibraryModels:
    """Every model of the library, each loaded when a request names it."""

    def __init__(self, host: EngineHost, offered: Callable[[], list[Offered]]) -> None:
        self.host = host
        self._offered = offered

    def offered(self) -> list[Offered]:
        return self._offered()

    def find(self, name: str | None) -> Offered:
        """The model a request names.  No name, or ``hearth``: the model the window has
        chosen, else the one used last, else the library's default."""
        offered = self.offered()
        if not offered:
            raise UnknownModel("This server has no model to offer.")
        asked = (name or "").strip()
        if asked.lower() in DEFAULT_NAMES:
            return self._in_use(offered) or offered[0]
        for candidate in offered:
            if asked in candidate.names() or asked.lower() in candidate.names():
                return candidate
        every = sorted({n for o in offered for n in (o.name, ollama_name(o.name))})
        close = difflib.get_close_matches(asked, every, n=3, cutoff=0.4)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise UnknownModel(
            f"The model {asked!r} is not in this server's library.{hint} "
            f"GET /v1/models lists the {len(offered)} it has."
        )

    def _in_use(self, offered: list[Offered]) -> Offered | None:
        """The window's model (a pinned lease), else the most recently used one."""
        loaded = self.host.loaded()
        for model in sorted(loaded, key=lambda m: (not m.pinned, -m.last_used)):
            match = next((o for o in offered if o.path == model.spec.path), None)
            if match is not None:
                return match
        return None

    async def take(self, name: str | None, keep_alive_s: float | None = None) -> Served:
        offered = self.find(name)  # UnknownModel: the route answers 404
        try:
            # The load check reads the model's header: not on the event loop.
            spec = await asyncio.to_thread(offered.spec)
            defaults = await asyncio.to_thread(offered.defaults)
        except HearthError as exc:  # it cannot load here (more memory than there is…)
            raise Refused(str(exc.message)) from exc
        # The host decides which worker serves it: the file as it is loaded already (with
        # the window's settings, say), else as the library offers it.
        lease = self.host.lease(spec, purpose=PURPOSE, label=offered.name, share_loaded=True)
        return Served(offered.name, lease, defaults, offered.facts, keep_alive_s)

    def unload(self, name: str | None) -> bool:
        try:
            offered = self.find(name)
        except UnknownModel:
            return False
        return any(
            self.host.unload(model.spec)
            for model in self.host.loaded()
            if model.spec.path == offered.path
        )

    def listed(self) -> list[tuple[str, dict[str, Any]]]:
        return [(o.name, o.facts) for o in self.offered()]

    def running(self) -> list[Running]:
        offered = self.offered()
        listing = []
        for model in self.host.loaded():
            match = next((o for o in offered if o.path == model.spec.path), None)
            name, facts = (match.name, match.facts) if match else (model.label, {})
            listing.append(_running(model, name, facts))
        return listing


class SingleModel:
    """One model whatever the request names (``hearth serve --model``); its seat (a pinned
    lease) keeps it loaded while the server runs."""

    def __init__(
        self,
        host: EngineHost,
        spec: ModelSpec,
        name: str,
        facts: dict[str, Any],
        defaults: Callable[[], dict[str, Any]],
    ) -> None:
        self.host, self.spec, self.name = host, spec, name
        self.facts, self.defaults = facts, defaults
        self.seat = Seat(host, purpose=PURPOSE)
        self.seat.label = name
        self.seat.lease(spec)

    async def take(self, name: str | None, keep_alive_s: float | None = None) -> Served:
        lease = self.host.lease(self.spec, purpose=PURPOSE, label=self.name)
        return Served(self.name, lease, self.defaults(), self.facts)

    def unload(self, name: str | None) -> bool:
        return False  # the one model stays

    def listed(self) -> list[tuple[str, dict[str, Any]]]:
        return [(self.name, {**self.facts, "path": self.spec.path, "engine": self.spec.engine})]

    def running(self) -> list[Running]:
        return [
            _running(model, self.name, self.facts)
            for model in self.host.loaded()
            if model.spec == self.spec.base
        ]


def _running(model: Loaded, name: str, facts: dict[str, Any]) -> Running:
    expires = model.expires_at if model.expires_at is not None else time.time() + FOREVER_S
    return Running(
        name,
        facts,
        model.spec,
        model.memory_bytes + model.vram_bytes,
        expires,
        int(model.facts.get("n_ctx") or model.spec.n_ctx or 0),
        model.vram_bytes,
        model.slots,
        model.replies,
    )
