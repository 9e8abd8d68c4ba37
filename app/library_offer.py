"""The library as ``hearth serve`` offers it: every usable model, the default first, each
with how to load it here and its recommended sampling (the engine host loads the ones
requested, ``app.serve.served_models``); and the API app that serves it, assembled once
for ``hearth serve`` and the window's switch (``library_app``).

The library is read again at most every ``REFRESH_S`` seconds, so a model downloaded
while the server runs is offered without a restart.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from app.chat.presets import recommended_sampling
from app.core import Core
from app.docs.library import Documents
from app.engines import engine_for
from app.errors import HearthError
from app.models.library import ModelEntry
from app.serve.config import DEFAULT_MODEL_NAME, ServerConfig
from app.serve.served_models import Offered
from wire.phrases import Phrase

log = logging.getLogger(__name__)
T = TypeVar("T")

REFRESH_S = 10.0


class LibraryOffer:
    def __init__(self, core: Core, n_ctx: int | None) -> None:
        self.core, self.n_ctx = core, n_ctx
        self._lock = threading.Lock()
        self._offered: list[Offered] = []
        self._read_at = -REFRESH_S
        self._reading = False  # a thread reads the library again

    def offered(self) -> list[Offered]:
        """The offer, read again when it is older than ``REFRESH_S``; a library that
        cannot be read (or has become empty) offers nothing, and requests get a 404.

        Once read, a request never waits for the library to be read again (thirty models
        on a busy machine took the server's event loop to seconds): it gets the last
        offer while a thread reads the new one."""
        with self._lock:
            if self._read_at < 0:  # never read: this first time, the caller waits
                self._offered, self._read_at = self._read_or_nothing(), time.monotonic()
            elif time.monotonic() - self._read_at >= REFRESH_S and not self._reading:
                self._reading = True
                threading.Thread(target=self._refresh, name="library-offer", daemon=True).start()
            return list(self._offered)

    def _refresh(self) -> None:
        """On its own thread: the library read without the lock, then swapped in."""
        try:
            fresh = self._read_or_nothing()
            with self._lock:
                self._offered, self._read_at = fresh, time.monotonic()
        finally:
            self._reading = False

    def _read_or_nothing(self) -> list[Offered]:
        try:
            return self._read()
        except HearthError as exc:
            log.warning("the library offers no model now: %s", exc)
            return []

    def first(self) -> Offered:
        """The default model, read now: the library's problem in words when it has none."""
        with self._lock:
            self._offered = self._read()
            self._read_at = time.monotonic()
            return self._offered[0]

    def _read(self) -> list[Offered]:
        core = self.core
        models = core.models()
        usable = [m for m in core.chat_models(models) if m.usable]
        if not usable:
            raise HearthError(
                Phrase(
                    "Hearth found no model to serve. Reinstall Hearth to restore the starter "
                    "model, or put a .gguf file into {0}.",
                    core.models_dir,
                )
            )
        default = core.default_model(models)
        ordered = [default, *(m for m in usable if m.path != default.path)]
        return [self._offer(entry) for entry in ordered]

    def _offer(self, entry: ModelEntry) -> Offered:
        facts: dict[str, Any] = {**entry.as_json(), "engine": engine_for(entry.format).name}
        # Each read once per offer (the load check reads the model's header): a request
        # for a loaded model costs no disk access.
        return Offered(
            name=entry.name,
            facts=facts,
            spec=once(lambda: self.core.load_spec(entry, self.n_ctx)),
            defaults=once(lambda: self.core.sampling(recommended_sampling(entry))),
        )


def once(make: Callable[[], T]) -> Callable[[], T]:
    """``make``'s answer, made on the first call (a refusal is raised again each time)."""
    made: list[T] = []
    lock = threading.Lock()

    def answer() -> T:
        with lock:
            if not made:
                made.append(make())
            return made[0]

    return answer


def library_app(
    core: Core, config: ServerConfig, documents: Documents | None, n_ctx: int | None = None
) -> tuple[Any, LibraryOffer]:
    """The API app serving the library on the process's engine host, and the offer (its
    default model is named in ``config`` unless it names one): with the documents'
    collections for the ``hearth.collections`` option, and the keep-alive of Settings for
    the models nobody leases.  HearthError, in words, when the library has nothing to
    serve."""
    from app.docs.library import api_grounder
    from app.serve.api_server import build_app
    from app.serve.served_models import LibraryModels

    offer = LibraryOffer(core, n_ctx)
    default = offer.first()
    if not config.model_name or config.model_name == DEFAULT_MODEL_NAME:
        config.model_name = default.name
    if documents is not None:
        config.ground = api_grounder(documents)
    core.engines.set_keep_alive(60.0 * float(core.settings.get("server.keep_alive_minutes")))
    return build_app(LibraryModels(core.engines, offer.offered), config), offer
