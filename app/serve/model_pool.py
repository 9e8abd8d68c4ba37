"""The models the server offers, and the ones it keeps loaded: one worker per resident
model, loaded on first use, unloaded when idle too long or when another needs the memory.

* A request's ``model`` names a model of the library (its name, Ollama's ``name:tag``, or
  either without the tag, any case); an unknown name is refused with the closest names.
* Resident models stay under a memory budget, RAM and GPU memory apart (each model
  counted by the ``fit`` estimate, and in RAM by its worker's measured memory once that
  is larger).  When a new one does not fit, the least
  recently used idle model is unloaded first; a model that is generating, or has requests
  waiting, is never unloaded.  If only busy models are in the way, the request is refused
  (503) rather than made to wait behind them blindly.
* An idle model is unloaded after its time to live (a setting; Ollama's ``keep_alive``
  per request, 0 meaning "unload when done").
* Requests for one model queue in its worker, in order; requests for two resident models
  run side by side.

* In the window, the pool shares workers with the chat (``share_with``): a request for
  the window's model uses the window's own worker; when the window switches to a model
  the pool has loaded, it takes that worker instead of loading the model again, and the
  pool keeps the window's previous worker for the API.  The window's model is never
  unloaded by the pool, but its memory counts in the budget.

Nothing here imports the library: whoever starts the server passes the ``Offered`` models
(``app.cli``, ``ui.api_switch``).
"""

from __future__ import annotations

import contextlib
import difflib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.engine_client import EngineClient, PinnedClient, Worker
from app.errors import HearthError
from app.serve.naming import ollama_name
from wire import protocol
from wire.model_spec import ModelSpec

log = logging.getLogger(__name__)

LOAD_WAIT_S = 600.0
SWEEP_EVERY_S = 1.0


class UnknownModel(LookupError):
    """No offered model has that name; the message names the closest ones."""


class LoadFailed(RuntimeError):
    """The model could not be loaded (the engine's own words), or there is no room."""

    def __init__(self, message: str, status: int = 503) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Needs:
    """The memory a model is expected to take once loaded: RAM and GPU memory."""

    ram_bytes: int
    vram_bytes: int = 0


@dataclass(frozen=True)
class Offered:
    """A model the server offers: its library name and facts, how to load it here, its
    sampling defaults, and the memory it is expected to take (``needs``: read when it is
    about to load, since estimating reads the model's header)."""

    name: str
    facts: dict[str, Any]
    spec: Callable[[], ModelSpec]
    defaults: Callable[[], dict[str, Any]]
    needs: Callable[[], Needs]

    @property
    def path(self) -> str:
        return str(self.facts.get("path") or "")

    def names(self) -> set[str]:
        """Every name a request may use for it."""
        tagged = ollama_name(self.name)
        return {self.name, self.name.lower(), tagged, tagged.split(":", 1)[0]}


@dataclass
class Resident:
    """A loaded model."""

    offered: Offered
    client: EngineClient
    spec: ModelSpec
    keep_alive_s: float
    last_used: float
    reserved: int = 0  # requests between choosing this model and sending their job
    measured_bytes: int = 0
    info: dict[str, Any] = field(default_factory=dict)
    needs: Needs = field(default_factory=lambda: Needs(0))
    hosted: bool = False  # the window's model, on the window's worker: never unloaded here

    @property
    def busy(self) -> bool:
        """Generating, or with requests waiting or about to be sent."""
        return self.reserved > 0 or self.client.busy

    def memory(self) -> int:
        """The larger of the measured and the estimated memory: a model's weights are
        mapped from its file and count in the measure only once they were read, and the
        measure does not see a GPU's memory."""
        measured = self.client.worker_memory()
        if measured:
            self.measured_bytes = measured
        return max(self.measured_bytes, self.needs.ram_bytes)

    def gpu_memory(self) -> int:
        """The GPU memory it is expected to take (the estimate: a worker's share of the
        GPU is not measured)."""
        return self.needs.vram_bytes

    def expires_at(self, now: float) -> float:
        """When it will be unloaded if no request comes (a ``time.time()`` stamp), from
        ``now`` on the pool's clock."""
        return time.time() + max(self.keep_alive_s - (now - self.last_used), 0.0)


class ModelPool:
    def __init__(
        self,
        offered: Callable[[], list[Offered]],
        log_dir: Path | None,
        budget_bytes: int,
        keep_alive_s: float,
        clock: Callable[[], float] = time.monotonic,
        vram_budget_bytes: int = 0,
    ) -> None:
        self._offered = offered
        self._log_dir = log_dir
        self.budget_bytes = budget_bytes  # RAM
        self.vram_budget_bytes = vram_budget_bytes  # GPU memory; 0: none to budget
        self.keep_alive_s = keep_alive_s
        self._clock = clock
        self._lock = threading.Lock()  # the resident table
        self._loading = threading.Lock()  # one load (and its evictions) at a time
        self._resident: dict[str, Resident] = {}
        self._last_offer: list[Offered] = []
        self._host: EngineClient | None = None
        self._needs_cache: dict[tuple[str, str], Needs] = {}
        self._hosted: Resident | None = None  # the window's model, while it is loaded
        self._stop = threading.Event()
        self._sweeper = threading.Thread(target=self._sweep_forever, name="pool-ttl", daemon=True)
        self._sweeper.start()

    def now(self) -> float:
        return self._clock()

    # -- names -----------------------------------------------------------------------
    def offered(self) -> list[Offered]:
        offered = self._offered()
        self._last_offer = offered
        return offered

    def find(self, name: str | None) -> Offered:
        """The model a request names; with no name, the first offered (the default)."""
        offered = self.offered()
        if not offered:
            raise UnknownModel("This server has no model to offer.")
        if not name:
            hosted = self._hosted_offer(offered)
            return hosted or offered[0]  # the window's model first, where there is one
        for candidate in offered:
            if name in candidate.names() or name.lower() in candidate.names():
                return candidate
        every = sorted({n for o in offered for n in (o.name, ollama_name(o.name))})
        close = difflib.get_close_matches(name, every, n=3, cutoff=0.4)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise UnknownModel(
            f"The model {name!r} is not in this server's library.{hint} "
            f"GET /v1/models lists the {len(offered)} it has."
        )

    # -- residency -------------------------------------------------------------------
    def reserve_loaded(
        self, offered: Offered, keep_alive_s: float | None = None
    ) -> Resident | None:
        """The model reserved for one request if it is loaded (never blocks), else None."""
        keep = self.keep_alive_s if keep_alive_s is None else keep_alive_s
        hosted = self.hosted()
        if hosted is not None and hosted.offered.name == offered.name:
            with self._lock:
                hosted.reserved += 1
                hosted.last_used = self._clock()
            return hosted
        with self._lock:
            resident = self._resident.get(offered.name)
            if resident is None:
                return None
            if resident.client.dead and not resident.busy:
                del self._resident[offered.name]  # its worker ended: load it again
                dead = resident
            else:
                resident.reserved += 1
                resident.keep_alive_s = keep
                resident.last_used = self._clock()
                return resident
        dead.client.close()
        return None

    def acquire(self, offered: Offered, keep_alive_s: float | None = None) -> Resident:
        """The model loaded and reserved for one request (``release`` it once the
        request's job is sent).  Blocks while it loads."""
        keep = self.keep_alive_s if keep_alive_s is None else keep_alive_s
        resident = self.reserve_loaded(offered, keep)
        if resident is not None:
            return resident
        with self._loading:
            resident = self.reserve_loaded(offered, keep)  # loaded while this one waited?
            if resident is not None:
                return resident
            needs = self._needs(offered)
            self._make_room(offered, needs)
            resident = self._load(offered, keep)
            resident.needs = needs
            return resident

    def release(self, resident: Resident) -> None:
        with self._lock:
            resident.reserved = max(resident.reserved - 1, 0)
            resident.last_used = self._clock()

    def resident(self) -> list[Resident]:
        """The loaded models: the window's first (when shared), then the pool's own."""
        hosted = self.hosted()
        with self._lock:
            own = [r for r in self._resident.values() if not r.client.dead]
        return ([hosted] if hosted is not None else []) + own

    # -- sharing with the window -------------------------------------------------------
    def share_with(self, host: EngineClient) -> None:
        """Share workers with ``host`` (the window's engine client) until ``close``."""
        self._host = host
        host.share = self

    def hosted(self) -> Resident | None:
        """The window's model as a resident, while its worker has a library model loaded."""
        host = self._host
        worker = host.current_worker() if host is not None else None
        spec = worker.spec if worker is not None else None
        if host is None or worker is None or spec is None:
            return None
        with self._lock:
            current = self._hosted
            if current is not None and current.client.current_worker() is worker:
                return current
        offered = next((o for o in self._last_offer if o.path == spec.path), None)
        if offered is None:
            return None  # a model the library does not offer (removed, or not a chat model)
        # Requests go to this very worker: one that arrives after the window switched
        # model is refused, rather than switching the window's model back.
        pinned = PinnedClient(host, worker)
        made = Resident(offered, pinned, spec, self.keep_alive_s, self._clock(), hosted=True)
        made.needs = self._needs(offered)
        with self._lock:
            self._hosted = made
        return made

    def _hosted_offer(self, offered: list[Offered]) -> Offered | None:
        host = self._host
        spec = host.loaded_model if host is not None else None
        if spec is None:
            return None
        return next((o for o in offered if o.path == spec.path), None)

    def lend(self, spec: ModelSpec) -> Worker | None:
        """The window wants ``spec``: the pool's idle worker that has it loaded, if any
        (its model leaves the pool's table: it is the window's now)."""
        with self._lock:
            for name, resident in list(self._resident.items()):
                # The spec its worker was started with (with the runtimes avoided then).
                if resident.client.loaded_model != spec or resident.reserved:
                    continue
                worker = resident.client.take_worker(spec)
                if worker is None:
                    return None  # generating for the API: the window loads its own copy
                del self._resident[name]
                break
            else:
                resident = None
        if resident is None:
            self._room_for_window(spec)
            return None
        resident.client.close()  # has no worker any more: closing only marks it closed
        log.info("the window took %s from the API's models", resident.offered.name)
        return worker

    def _room_for_window(self, spec: ModelSpec) -> None:
        """The window is about to load ``spec`` itself: unload idle API models, least
        recently used first, until it fits beside the others."""
        offered = next((o for o in self._last_offer if o.path == spec.path), None)
        if offered is None:
            return
        # Only models that are generating in the way (LoadFailed): the window loads anyway.
        with contextlib.suppress(LoadFailed):
            self._make_room(offered, self._needs(offered), count_window=False)

    def keep(self, worker: Worker) -> bool:
        """The window no longer needs ``worker``: keep its model loaded for the API (with
        the usual time to live) when it is a library model not loaded here yet and it fits
        the budget — or when API requests are still running on it."""
        spec = worker.spec
        if spec is None or self._stop.is_set():
            return False
        offered = next((o for o in self._last_offer if o.path == spec.path), None)
        if offered is None:
            return False
        with worker.lock:
            running = any(not job.finished for job in worker.jobs.values())
        client = EngineClient(log_dir=self._log_dir)
        resident = Resident(offered, client, spec, self.keep_alive_s, self._clock())
        resident.needs = self._needs(offered)
        window = self.hosted()  # the model the window moves to counts too
        with self._lock:
            if self._stop.is_set() or offered.name in self._resident:
                return False  # running requests finish, then it ends (EngineClient._retire)
            if not running:
                others = [r for r in self._resident.values() if not r.client.dead]
                if window is not None:
                    others.append(window)
                ram = sum(r.memory() for r in others) + resident.needs.ram_bytes
                vram = sum(r.gpu_memory() for r in others) + resident.needs.vram_bytes
                over_vram = bool(
                    self.vram_budget_bytes
                    and resident.needs.vram_bytes
                    and vram > self.vram_budget_bytes
                )
                if ram > self.budget_bytes or over_vram:
                    return False
            client.adopt(worker)
            self._resident[offered.name] = resident
        log.info("kept %s loaded for the API (the window moved on)", offered.name)
        return True

    def unload(self, name: str) -> bool:
        """Unload an idle model now (the window's Unload); False if busy or not loaded."""
        with self._lock:
            resident = self._resident.get(name)
            if resident is None or resident.busy:
                return False
            del self._resident[name]
        self._close(resident, "asked")
        return True

    def close(self, wait: bool = True) -> None:
        """Unload the pool's models (the window keeps its own) and stop sharing.
        ``wait=False`` (the window): the workers end in the background."""
        self._stop.set()
        if self._host is not None and self._host.share is self:
            self._host.share = None
        with self._lock:
            residents = list(self._resident.values())
            self._resident.clear()
        for resident in residents:
            if wait:
                resident.client.close()
            else:
                self._close(resident, "the API stopped")

    def _make_room(self, offered: Offered, needs: Needs, count_window: bool = True) -> None:
        """Unload idle models, least recently used first, until ``offered`` fits."""
        while True:
            # The window's model: counted, never unloaded here.
            hosted = self.hosted() if count_window else None
            with self._lock:
                live = [r for r in self._resident.values() if not r.client.dead]
                counted = live + ([hosted] if hosted is not None else [])
                ram = sum(r.memory() for r in counted) + needs.ram_bytes
                vram = sum(r.gpu_memory() for r in counted) + needs.vram_bytes
                # No GPU budget (none found, or unified memory): RAM is the measure.
                fits_vram = (
                    not self.vram_budget_bytes
                    or not needs.vram_bytes
                    or vram <= self.vram_budget_bytes
                )
                if not live or (ram <= self.budget_bytes and fits_vram):
                    return
                idle = sorted((r for r in live if not r.busy), key=lambda r: r.last_used)
                if not idle:
                    busy = ", ".join(r.offered.name for r in live)
                    raise LoadFailed(
                        f"{offered.name} does not fit in the server's memory budget "
                        f"({self._budget_words()}) beside the models that are "
                        f"generating ({busy}). Try again when they are done."
                    )
                victim = idle[0]
                del self._resident[victim.offered.name]
            self._close(victim, "room for " + offered.name)

    def _budget_words(self) -> str:
        ram = f"{self.budget_bytes / 1e9:.1f} GB"
        if not self.vram_budget_bytes:
            return ram
        return f"{ram} of RAM, {self.vram_budget_bytes / 1e9:.1f} GB of GPU memory"

    def _load(self, offered: Offered, keep_alive_s: float) -> Resident:
        try:
            spec = offered.spec()
        except HearthError as exc:  # the load check's sentence (it cannot fit here…)
            raise LoadFailed(str(exc), status=400) from exc
        client = EngineClient(log_dir=self._log_dir)
        try:
            final = client.load(spec).wait(LOAD_WAIT_S)
        except Exception as exc:  # a worker that cannot even start (OSError…)
            client.close()
            raise LoadFailed(f"{offered.name} could not be loaded: {exc}") from exc
        if final is None or final.get("type") == protocol.ERROR:
            client.close()
            message = (final or {}).get("message") or "no answer from the engine"
            raise LoadFailed(f"{offered.name} could not be loaded: {message}")
        resident = Resident(offered, client, spec, keep_alive_s, self._clock(), 1, info=final)
        with self._lock:
            if self._stop.is_set():  # the server closed while this model loaded
                client.close()
                raise LoadFailed("the server is stopping")
            self._resident[offered.name] = resident
        log.info("loaded %s for the API (%d resident)", offered.name, len(self._resident))
        return resident

    def _close(self, resident: Resident, why: str) -> None:
        """End a model's worker in the background: never hold up a request, the window or
        the event loop while a process exits."""
        log.info("unloading %s (%s)", resident.offered.name, why)
        threading.Thread(target=resident.client.close, name="pool-unload", daemon=True).start()

    def _needs(self, offered: Offered) -> Needs:
        """``offered``'s memory estimate, read once (it reads the model's header)."""
        key = (offered.name, offered.path)
        known = self._needs_cache.get(key)
        if known is None:
            known = self._needs_cache[key] = _needs_of(offered)
        return known

    # -- time to live ----------------------------------------------------------------
    def sweep(self) -> None:
        """Unload the idle models whose time to live is over."""
        now = self._clock()
        with self._lock:
            for resident in self._resident.values():
                if resident.busy:  # idle time (and recency) count from the end of its work
                    resident.last_used = now
            expired = [
                r
                for r in self._resident.values()
                if not r.busy and now - r.last_used >= r.keep_alive_s
            ]
            for resident in expired:
                del self._resident[resident.offered.name]
        for resident in expired:
            self._close(resident, "idle")

    def _sweep_forever(self) -> None:
        while not self._stop.wait(SWEEP_EVERY_S):
            try:
                self.sweep()
            except Exception:  # the sweeper must outlive one failure
                log.exception("unloading idle models failed")


def _needs_of(offered: Offered) -> Needs:
    """``offered.needs()``, or nothing known when estimating fails (logged): the measured
    memory then counts alone once it is loaded."""
    try:
        return offered.needs()
    except Exception:
        log.warning("could not estimate the memory of %s", offered.name, exc_info=True)
        return Needs(0)
