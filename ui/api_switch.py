"""The window's switch for Hearth's local API (Chat › Serve the API), and what the window
knows of the models loaded for it (Chat › Loaded models).

The server offers the whole library, as ``hearth serve`` does, and shares workers with
the window (``ModelPool.share_with``): a request for the window's model runs on the
window's own worker, whose queue keeps an editor's request and a chat here from ever
mixing; another model is loaded for the API beside it, under the memory budget; choosing
that model here takes its worker instead of loading it again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QStatusBar

from app.core import Core
from app.docs.library import Documents
from app.engine_client import EngineClient
from ui.chat.model_bar import ModelBar
from ui.loaded_models import LoadedModel


class ApiSwitch(QObject):
    def __init__(
        self,
        core: Core,
        client: EngineClient,
        models: ModelBar,
        status: QStatusBar,
        report: Callable[[BaseException, str], None],
        documents: Documents | None = None,
    ) -> None:
        super().__init__(status)
        self.core, self.client, self.models = core, client, models
        self.documents = documents  # for the hearth.collections request option
        self.status, self.report = status, report
        self.server: Any = None
        self.pool: Any = None  # app.serve.model_pool.ModelPool while the API runs

    @property
    def running(self) -> bool:
        return self.server is not None

    def set(self, on: bool, port: int = 8765) -> None:
        """Start (for the whole library) or stop the API; problems are reported."""
        if not on:
            self._stop()
            return
        if self.server is not None:
            return
        # FastAPI and the library's offer: about half a second, once.
        from app.docs.library import api_grounder
        from app.errors import HearthError
        from app.library_offer import LibraryOffer
        from app.serve.api_server import ApiServer, ServerConfig, build_app_for
        from app.serve.model_pool import ModelPool
        from app.serve.served_models import LibraryModels

        offer = LibraryOffer(self.core, None)
        try:
            default = offer.first()
        except HearthError as exc:
            self.report(exc, self.tr("starting the API"))
            return
        chosen = self.models.model
        config = ServerConfig(
            port=port,
            model_name=chosen.name if chosen else default.name,
            ground=api_grounder(self.documents) if self.documents is not None else None,
        )
        pool = ModelPool(
            offer.offered,
            self.core.paths.logs_dir,
            offer.budget_bytes(),
            60.0 * float(self.core.settings.get("server.keep_alive_minutes")),
            vram_budget_bytes=offer.vram_budget_bytes(),
        )
        pool.share_with(self.client)
        if not float(self.core.settings.get("server.memory_budget_gb")):
            # "Free memory" was measured with the chat's model already loaded, and the
            # pool counts that model too: give its share back.
            pool.budget_bytes += self.client.worker_memory()
        server = ApiServer(build_app_for(LibraryModels(pool), config), config)
        try:
            server.start()
        except Exception as exc:  # noqa: BLE001 - shown to the user
            pool.close()
            self.report(exc, self.tr("starting the API"))
            return
        self.server, self.pool = server, pool
        self.status.showMessage(
            self.tr("API serving the library at http://127.0.0.1:{0}/v1, {1} by default").format(
                port, config.model_name
            )
        )

    def _stop(self) -> None:
        if self.server is None:
            return
        self.server.stop()
        self.pool.close(wait=False)  # the API's own models end in the background
        self.server = self.pool = None
        self.status.showMessage(self.tr("API stopped"), 3000)

    # -- the loaded models ---------------------------------------------------------------
    def loaded(self) -> list[LoadedModel]:
        """The window's model (when loaded), then those loaded for the API."""
        listing: list[LoadedModel] = []
        spec = self.client.loaded_model
        hosted = self.pool.hosted() if self.pool is not None else None
        if spec is not None:
            chosen = self.models.model
            name = chosen.name if chosen and str(chosen.path) == spec.path else Path(spec.path).name
            listing.append(
                LoadedModel(
                    name,
                    self.tr("Chat and API") if self.running else self.tr("Chat"),
                    self.client.worker_memory(),
                    hosted.gpu_memory() if hosted is not None else 0,
                    None,
                    self.client.busy,
                    self._unload_window_model,
                )
            )
        if self.pool is None:
            return listing
        now, pool = self.pool.now(), self.pool
        for resident in pool.resident():
            if resident.hosted:
                continue
            name = resident.offered.name
            listing.append(
                LoadedModel(
                    name,
                    self.tr("API"),
                    resident.memory(),
                    resident.gpu_memory(),
                    max(resident.expires_at(now) - time.time(), 0.0),
                    resident.busy,
                    partial(pool.unload, name),
                )
            )
        return listing

    def _unload_window_model(self) -> bool:
        """End the window's worker when it is idle; the next message loads it again."""
        if self.client.busy:
            return False
        self.client.unload()
        self.models.engine_stopped()
        return True
