"""The catalogue in the window: the empty chat's welcome and the Models screen's
recommendations, ranked for this machine, with one download per model whichever card
started it, the hub's check of the catalogue, and what happens when a recommended model
arrives (a new chat with it, when the person is waiting on the welcome)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.core import Core
from app.hub.downloads import DownloadManager
from app.machine.hardware import SystemFacts
from ui.chat.chat_screen import ChatScreen
from ui.i18n import translated
from ui.models.models_screen import ModelsScreen
from ui.speaking_part import SpeakingPart

log = logging.getLogger(__name__)


class CatalogController(SpeakingPart):
    """Given the parts it fills and reads (the Chat screen's welcome and model picker, the
    Models screen's catalogue), it asks the window by signals for what is the window's:
    a chat with a model, the Models screen, a word in the status bar, a problem said."""

    chat_requested = Signal(object)  # a library model to chat with
    models_requested = Signal()  # "More models…" on the welcome: the Models screen

    def __init__(
        self,
        core: Core,
        downloads: DownloadManager,
        chat: ChatScreen,
        models_screen: ModelsScreen,
        parent: QObject,
    ) -> None:
        super().__init__(parent)
        self.core, self.downloads = core, downloads
        self.chat, self.models_screen = chat, models_screen
        self._build()

    def _build(self) -> None:
        """The empty chat's welcome and the Models screen's recommendations: one catalogue,
        one download per model, whichever card started it."""
        from ui.catalog.downloads import CatalogDownloads
        from ui.chat.welcome import WelcomePanel

        bar = self.chat.model_bar
        self.catalog_downloads = CatalogDownloads(self.core, self.downloads, self)
        self.catalog_downloads.finished.connect(self._catalog_model_downloaded)
        self.catalog_downloads.failed.connect(self._catalog_download_failed)
        self.welcome = WelcomePanel(self.catalog_downloads, self._in_library)
        self.welcome.chat_requested.connect(self._chat_with_catalog_model)
        self.welcome.models_requested.connect(self.models_requested)
        self.chat.set_welcome(self.welcome)
        from ui.catalog.panel import CatalogPanel

        self.catalog_panel = CatalogPanel(self.catalog_downloads, self._in_library)
        self.catalog_panel.chat_requested.connect(self._chat_with_catalog_model)
        self.models_screen.show_catalog(self.catalog_panel)
        self.models_screen.catalog_search = self.catalog_panel.show_matches
        from ui.catalog.check import CatalogCheck

        self.catalog_check = CatalogCheck(self.core, self.catalog_panel, self)
        self.catalog_check.checked.connect(self._catalog_checked)
        bar.model_chosen.connect(
            lambda entry: self.welcome.set_model(entry.name, entry.source == "starter")
        )
        bar.listed.connect(lambda _models: self.welcome.refresh())
        self.models_screen.library_changed.connect(lambda _models: self.welcome.refresh())
        self.models_screen.library_changed.connect(lambda _models: self.catalog_panel.refresh())

    def _catalog_checked(self, _facts: object) -> None:
        """The hub's file sizes arrived: the cards, verdicts and order follow them (before
        the system check, the recommendations come when it ends, with the new sizes)."""
        if self.core.facts is not None:
            self.show_recommendations(self.core.facts)

    def _in_library(self, entry: Any) -> bool:
        return self._library_entry(entry) is not None

    def _library_entry(self, catalog_entry: Any) -> Any:
        """The library's model for a catalogue entry: its file, or its repository and
        quantization (a file renamed on the hub)."""
        repos = {catalog_entry.repo_hf, catalog_entry.repo_modelscope}
        for model in self.chat.model_bar.library:
            if model.path.name.lower() == catalog_entry.file.lower():
                return model
            if model.repo_id in repos and model.quantization == catalog_entry.quantization:
                return model
        return None

    def _chat_with_catalog_model(self, name: str) -> None:
        from app.hub.catalog import find
        from app.hub.catalog_refresh import current_catalog

        entry = find(name, current_catalog(self.core.paths.data_dir)[0])
        model = self._library_entry(entry) if entry is not None else None
        if model is not None:
            self.chat_requested.emit(model)

    def _catalog_model_downloaded(self, name: str, path: str) -> None:
        """A recommended model arrived: chat with it (a new chat), and list it."""
        from app.models.library import model_at

        self.models_screen.library_panel.refresh()
        entry = model_at(Path(path), "models_dir")  # a vision model with its projector
        if entry.problem:
            self.problem.emit(
                self.tr("{0} was downloaded but cannot be used: {1}").format(
                    name, translated(entry.problem)
                )
            )
            return
        self.chat.model_bar.library.append(entry)
        self.welcome.refresh()  # its cards now offer to chat with it
        self.catalog_panel.refresh()
        chat = self.chat
        waiting = chat.stage.currentWidget() is self.welcome and not chat.busy
        if waiting and chat.editing is None and not chat.composer.toPlainText().strip():
            self.chat_requested.emit(entry)  # the user is waiting for it on the welcome
        self.said.emit(
            self.tr("{0} is ready: choose it in the model list or on its card.").format(entry.name)
            if not waiting
            else self.tr("{0} is ready.").format(entry.name),
            8000,
        )

    def _catalog_download_failed(self, name: str, message: str) -> None:
        log.warning("downloading the catalogue model %s failed: %s", name, message)
        for card in (self.welcome.card(name), self.catalog_panel.card(name)):
            if card is not None:
                card.show_failure(message, self.catalog_downloads.details.get(name, ""))

    def show_recommendations(self, facts: SystemFacts) -> None:
        """The catalogue ranked for this machine (a few estimates: instant)."""
        from app.errors import HearthError
        from app.hub.catalog import by_use, picks, ranked
        from app.hub.catalog_refresh import current_catalog

        context = int(self.core.settings.get("engine.context_length"))
        try:
            entries, hub_facts = current_catalog(self.core.paths.data_dir)
            best = ranked(facts, context, entries)
        except HearthError as exc:
            self.failed.emit(exc, self.tr("reading the model catalogue"))
            return
        from ui.i18n import current_language

        chosen = picks(best, language=current_language())
        self.welcome.set_picks(chosen)
        self.catalog_panel.set_ranked(by_use(best, current_language()), chosen)
        self.catalog_check.show_facts(hub_facts, len(entries))
