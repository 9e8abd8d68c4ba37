"""The window's switch for Hearth's local API (Chat › Serve the API), and what the window
knows of the models loaded in this process (Chat › Loaded models).

The server offers the whole library, as ``hearth serve`` does, on the window's own engine
host (``Core.engines``): a request for the window's model runs on the window's worker,
whose queue keeps an editor's request and a chat here from ever mixing; another model is
loaded beside it under the one memory budget; choosing that model here uses its worker
instead of loading it again, and while the API serves, the models nobody leases stay
loaded for its keep-alive.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QStatusBar

from app.core import Core
from app.docs.library import Documents
from app.engine.hosted import Loaded
from app.engine.seat import Seat
from app.serve.served_models import PURPOSE
from ui.chat.model_bar import ModelBar
from ui.loaded_models import LoadedModel


class ApiSwitch(QObject):
    def __init__(
        self,
        core: Core,
        seat: Seat,
        models: ModelBar,
        status: QStatusBar,
        report: Callable[[BaseException, str], None],
        documents: Documents | None = None,
    ) -> None:
        super().__init__(status)
        self.core, self.seat, self.models = core, seat, models
        self.documents = documents  # for the hearth.collections request option
        self.status, self.report = status, report
        self.server: Any = None

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
        from app.library_offer import library_app
        from app.serve.api_server import ApiServer
        from app.serve.config import ServerConfig

        chosen = self.models.model
        config = ServerConfig(port=port, model_name=chosen.name if chosen else "")
        try:
            app, _offer = library_app(self.core, config, self.documents)
            server = ApiServer(app, config)
            server.start()
        except Exception as exc:  # noqa: BLE001 - shown to the user (the one error path)
            self.core.engines.set_keep_alive(0.0)
            self.report(exc, self.tr("starting the API"))
            return
        self.server = server
        self.status.showMessage(
            self.tr("API serving the library at http://127.0.0.1:{0}/v1, {1} by default").format(
                port, config.model_name
            )
        )

    def _stop(self) -> None:
        if self.server is None:
            return
        self.server.stop()
        self.server = None
        # The models the API kept loaded end now (in the background), or once answered;
        # the window's stays, and so does the documents' embedding model.
        self.core.engines.set_keep_alive(0.0, used_by=PURPOSE)
        self.status.showMessage(self.tr("API stopped"), 3000)

    # -- the loaded models ---------------------------------------------------------------
    def loaded(self) -> list[LoadedModel]:
        """Every model with a worker: the chat's first, then the others by last use."""
        return [self._row(model) for model in self.core.engines.loaded()]

    def _row(self, model: Loaded) -> LoadedModel:
        chosen = self.seat.current
        chat = chosen is not None and chosen.spec == model.spec
        if chat:
            used_by = self.tr("Chat and API") if self.running else self.tr("Chat")
            unload: Callable[[], bool] = self._unload_window_model
        else:
            used_by = self.tr("Documents") if "documents" in model.purposes else self.tr("API")
            unload = partial(self.core.engines.unload, model.spec)
        expires = None if model.expires_at is None else max(model.expires_at - time.time(), 0.0)
        return LoadedModel(
            model.label,
            used_by,
            model.memory_bytes,
            model.vram_bytes,
            None if chat else expires,
            model.busy,
            unload,
            model.slots,
            model.replies,
        )

    def _unload_window_model(self) -> bool:
        """End the window's worker when it is idle; the next message loads it again."""
        if self.seat.busy:
            return False
        self.seat.unload()
        self.models.engine_stopped()
        return True
