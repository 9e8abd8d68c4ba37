"""The library as ``hearth serve`` offers it: every usable model, the default first, each
with how to load it here and its recommended sampling (``app.serve.model_pool`` keeps the
ones requested loaded).

The library is read again at most every ``REFRESH_S`` seconds, so a model downloaded
while the server runs is offered without a restart.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from app.chat.presets import recommended_sampling
from app.core import Core
from app.engines import engine_for
from app.errors import HearthError
from app.models.library import ModelEntry
from app.serve.model_pool import Needs, Offered
from wire.phrases import Phrase

log = logging.getLogger(__name__)

REFRESH_S = 10.0
# When a model's memory cannot be estimated from its metadata: its file, plus this share
# for the context and the engine's buffers.
ESTIMATE_OVERHEAD = 0.25
BUDGET_SHARE_OF_FREE = 0.8


class LibraryOffer:
    def __init__(self, core: Core, n_ctx: int | None) -> None:
        self.core, self.n_ctx = core, n_ctx
        self._lock = threading.Lock()
        self._offered: list[Offered] = []
        self._read_at = -REFRESH_S

    def offered(self) -> list[Offered]:
        """The offer, read again when it is older than ``REFRESH_S``; a library that
        cannot be read (or has become empty) offers nothing, and requests get a 404."""
        with self._lock:
            if time.monotonic() - self._read_at >= REFRESH_S:
                self._read_at = time.monotonic()
                try:
                    self._offered = self._read()
                except HearthError as exc:
                    log.warning("the library offers no model now: %s", exc)
                    self._offered = []
            return list(self._offered)

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
        return Offered(
            name=entry.name,
            facts=facts,
            spec=lambda: self.core.load_spec(entry, self.n_ctx),
            defaults=lambda: self.core.sampling(advice_for(entry)),
            needs=lambda: self.needs(entry),
        )

    def needs(self, entry: ModelEntry) -> Needs:
        """The memory ``entry`` will take as it is loaded here: the ``fit`` estimate (the
        same that places its layers on the GPU), else its file and a quarter more; a
        remote model takes nothing here but its worker, which is measured."""
        if entry.format == "remote":
            return Needs(0)
        spec_context = self.n_ctx or int(self.core.settings.get("engine.context_length"))
        try:
            from app.machine.fit_service import estimate_entry

            result = estimate_entry(entry, self.core.machine_facts(), spec_context)
        except HearthError:
            return Needs(int(entry.size_bytes * (1 + ESTIMATE_OVERHEAD)))
        return Needs(result.ram_bytes, result.gpu_bytes)

    def budget_bytes(self) -> int:
        """RAM for the served models: the setting, else four fifths of the RAM free now."""
        chosen = float(self.core.settings.get("server.memory_budget_gb"))
        if chosen > 0:
            return int(chosen * 1e9)
        import psutil

        return int(psutil.virtual_memory().available * BUDGET_SHARE_OF_FREE)

    def vram_budget_bytes(self) -> int:
        """GPU memory for the served models: the share of the usable GPUs' free memory
        that the fit estimates plan with (0 without a GPU)."""
        from app.machine.fit import VRAM_SHARE

        gpus = self.core.machine_facts().usable_gpus
        return int(sum(g.vram_free_bytes or g.vram_total_bytes for g in gpus) * VRAM_SHARE)


def advice_for(entry: ModelEntry) -> dict[str, Any]:
    """What the model's authors recommend for sampling (as the window applies it)."""
    return recommended_sampling(entry) if entry.format != "remote" else {}
