"""The window's switch for Hearth's local OpenAI-compatible API (Chat › Serve the API).

The server shares the window's engine client and worker, whose queue keeps a request from
an editor and a chat in the window from ever mixing; it serves the model chosen in the
window at the time of each request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QStatusBar

from app.core import Core
from app.engine_client import EngineClient
from ui.chat.model_bar import ModelBar


class ApiSwitch(QObject):
    def __init__(
        self,
        core: Core,
        client: EngineClient,
        models: ModelBar,
        status: QStatusBar,
        report: Callable[[BaseException, str], None],
    ) -> None:
        super().__init__(status)
        self.core, self.client, self.models = core, client, models
        self.status, self.report = status, report
        self.server: Any = None

    @property
    def running(self) -> bool:
        return self.server is not None

    def set(self, on: bool, port: int = 8765) -> None:
        """Start (for the chosen model) or stop the API; problems are reported."""
        if not on:
            if self.server is not None:
                self.server.stop()
                self.server = None
                self.status.showMessage(self.tr("API stopped"), 3000)
            return
        if self.server is not None:
            return
        from app.serve.api_server import ApiServer, ServerConfig, build_app  # FastAPI: ~0.5 s

        model = self.models.model
        if model is None:
            self.models.show_error(self.tr("Choose a model first, then start the API."))
            return
        config = ServerConfig(port=port, model_name=model.name, model_facts=model.as_json())
        core, models = self.core, self.models
        app = build_app(
            self.client,
            lambda: core.model_spec(models.model or model),
            config,
            lambda: core.sampling(models.advice()),
        )
        server = ApiServer(app, config)
        try:
            server.start()
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.report(exc, self.tr("starting the API"))
            return
        self.server = server
        self.status.showMessage(
            self.tr("API serving {0} at http://127.0.0.1:{1}/v1").format(model.name, port)
        )
