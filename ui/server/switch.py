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

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QStatusBar, QWidget

from app.core import Core
from app.docs.library import Documents
from app.engine.hosted import Loaded
from app.engine.seat import Seat
from app.serve.served_models import PURPOSE
from ui.chat.model_bar import ModelBar
from ui.dialog_parts import open_once
from ui.server.loaded_models import LoadedModel


class ApiSwitch(QObject):
    changed = Signal()  # started or stopped

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
        self.offer: Any = None  # the library as offered (app.library_offer.LibraryOffer)
        self.config: Any = None  # the running server's ServerConfig

    @property
    def running(self) -> bool:
        return self.server is not None

    def address(self) -> tuple[str, int]:
        """Where the API listens (running) or would listen (Settings › API server)."""
        if self.config is not None:
            return self.config.host, self.config.port
        return str(self.core.settings.get("server.host")), int(
            self.core.settings.get("server.port")
        )

    def offered(self) -> list[str]:
        """The names of the models the running API offers."""
        return [model.name for model in self.offer.offered()] if self.offer is not None else []

    def start(self, port: int | None = None) -> None:
        """Start for the whole library at the settings' address, with the key of the key
        store (the one `hearth serve` asks for); HearthError in words when it cannot (an
        address for other computers without a key, a port in use: ``PortTaken``)."""
        if self.server is not None:
            return
        # FastAPI and the library's offer: about half a second, once.
        from app.library_offer import library_app
        from app.secrets import get_token
        from app.serve.api_server import ApiServer
        from app.serve.config import ServerConfig
        from app.serve.pictures import RequestPictures

        host, chosen_port = self.address()
        chosen = self.models.model
        config = ServerConfig(
            host=host,
            port=port or chosen_port,
            api_key=get_token("serve") or "",
            model_name=chosen.name if chosen else "",
            pictures=RequestPictures.in_data_folder(self.core.paths.data_dir),
        )
        config.check()
        config.check_port()  # before anything loads, and before uvicorn logs its own error
        try:
            app, offer = library_app(self.core, config, self.documents)
            server = ApiServer(app, config)
            server.start()
        except BaseException:
            self.core.engines.set_keep_alive(0.0)
            raise
        self.server, self.offer, self.config = server, offer, config
        from app.serve.examples import base_url

        self.status.showMessage(
            self.tr("API serving the library at {0}/v1, {1} by default").format(
                base_url(config.host, config.port), config.model_name
            )
        )
        self.changed.emit()

    def set(
        self, on: bool, port: int | None = None, port_taken: Callable[[], None] | None = None
    ) -> None:
        """Start (for the whole library) or stop the API; problems are reported.  A port in
        use calls ``port_taken`` (the window opens the API server panel, which says so and
        offers a free port) instead of the command line's advice."""
        if not on:
            self._stop()
            return
        from app.serve.config import PortTaken

        try:
            self.start(port)
        except PortTaken as exc:
            if port_taken is None:
                self.report(exc, self.tr("starting the API"))
            else:
                port_taken()
        except Exception as exc:  # noqa: BLE001 - shown to the user (the one error path)
            self.report(exc, self.tr("starting the API"))

    def _stop(self) -> None:
        if self.server is None:
            return
        self.server.stop()
        self.server, self.offer, self.config = None, None, None
        # The models the API kept loaded end now (in the background), or once answered;
        # the window's stays, and so does the documents' embedding model.
        self.core.engines.set_keep_alive(0.0, used_by=PURPOSE)
        self.status.showMessage(self.tr("API stopped"), 3000)
        self.changed.emit()

    # -- Loaded models (not modal: the chat goes on beside it) ---------------------------
    def open_loaded_models(self, parent: QWidget) -> None:
        """Loaded models: the chat's and the API's, their memory, and Unload."""
        from ui.server.loaded_models import LoadedModelsDialog

        open_once(parent, LoadedModelsDialog, lambda: LoadedModelsDialog(self.loaded, parent))

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
