"""Checking the catalogue's models on the hub, from the window: when the user presses
*Check the hub*, or once a day when Settings allow it (``hub.refresh_catalog``).

The check lists about fifteen repositories, so it runs in the background; the panel's
button says "Checking…" meanwhile, and its note says when the sizes were checked or, in
red where the user pressed the button, why the check failed (the last facts stay)."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from app.core import Core
from app.hub.catalog_refresh import HubFacts, check_hub, current_catalog, due, summary
from ui.background import run_in_background
from ui.i18n import translated
from ui.models.catalog_panel import CatalogPanel
from wire.phrases import message_of


class CatalogCheck(QObject):
    checked = Signal()  # new facts were saved: rank the catalogue again

    def __init__(self, core: Core, panel: CatalogPanel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.core = core
        self.panel = panel
        self.running = False
        panel.check_requested.connect(self.check)

    def show_facts(self, facts: HubFacts, entries: int) -> None:
        self.panel.set_hub_note(translated(summary(facts, entries)))

    def check_if_due(self) -> None:
        """The daily check, only where the user allowed it."""
        if not bool(self.core.settings.get("hub.refresh_catalog")):
            return
        _entries, facts = current_catalog(self.core.paths.data_dir)
        if due(facts):
            self.check()

    def check(self) -> None:
        if self.running:
            return
        from app.hub.catalog import load_catalog, preferred_source

        self.running = True
        self.panel.set_checking(True)
        source = preferred_source(str(self.core.settings.get("appearance.language")))
        run_in_background(
            self,
            lambda: check_hub(self.core, load_catalog(), source),
            self._done,
            self._failed,
        )

    def _done(self, _facts: object) -> None:
        self.running = False
        self.panel.set_checking(False)
        self.checked.emit()

    def _failed(self, exc: BaseException) -> None:
        self.running = False
        self.panel.set_checking(False)
        self.panel.set_hub_note(
            self.tr("The check failed: {0}").format(translated(message_of(exc))), failed=True
        )
