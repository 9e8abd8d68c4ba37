"""Checking the catalogue's models on the hub, from the window: when the user presses
*Check the hub*, or once a day when Settings allow it (``hub.refresh_catalog``).

The check lists the catalogue's twenty repositories, so it runs in the background; the
panel's button says "Checking…" meanwhile.  The panel's note says when the sizes were
checked or, in red where the user pressed the button, why the check failed (the last
facts stay).  A daily check that fails (offline) says nothing and waits a day: every
attempt counts.  Closing Hearth stops a check between two repositories."""

from __future__ import annotations

import logging
import threading
import time

from PySide6.QtCore import QCoreApplication, QObject, Signal

from app.core import Core
from app.errors import describe_error
from app.hub.catalog_refresh import (
    CheckStopped,
    HubFacts,
    check_hub,
    current_catalog,
    due,
    load_facts,
    summary,
)
from ui.background import run_in_background
from ui.catalog.panel import CatalogPanel
from ui.i18n import translated

log = logging.getLogger(__name__)


class CatalogCheck(QObject):
    checked = Signal(object)  # the new HubFacts: rank the catalogue again

    def __init__(self, core: Core, panel: CatalogPanel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.core = core
        self.panel = panel
        self.running = False
        self._asked = False  # the running check is the user's (its failure is said)
        self._stop = threading.Event()
        panel.check_requested.connect(self.check)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self._stop.set)
        self.destroyed.connect(self._stop.set)

    def show_facts(self, facts: HubFacts, entries: int) -> None:
        if facts.problem:  # a damaged facts file was set aside: say it once
            self.panel.set_hub_note(translated(facts.problem), failed=True)
            return
        self.panel.set_hub_note(translated(summary(facts, entries)))

    def check_if_due(self) -> None:
        """The daily check, only where the user allowed it (every attempt counts, so an
        offline computer does not ask again at every start)."""
        if self.running or not bool(self.core.settings.get("hub.refresh_catalog")):
            return
        last_attempt = float(self.core.settings.get("hub.catalog_last_attempt"))
        if due(load_facts(self.core.paths.data_dir), last_attempt):
            self.core.settings.set("hub.catalog_last_attempt", time.time())
            self._start(asked=False)

    def check(self) -> None:
        """Check the hub (the user pressed the button)."""
        if not self.running:
            self._start(asked=True)

    def _start(self, asked: bool) -> None:
        from app.hub.catalog import load_catalog, preferred_source

        self.running, self._asked = True, asked
        self.panel.set_checking(True)
        source = preferred_source(str(self.core.settings.get("appearance.language")))
        stop = self._stop
        run_in_background(
            self,
            lambda: check_hub(
                self.core.settings, self.core.paths.data_dir, load_catalog(), source, stop=stop
            ),
            self._done,
            self._failed,
        )

    def _done(self, facts: object) -> None:
        self.running = False
        self.panel.set_checking(False)
        if isinstance(facts, HubFacts):
            entries, _kept = current_catalog(self.core.paths.data_dir)
            self.show_facts(facts, len(entries))
            self.checked.emit(facts)

    def _failed(self, exc: BaseException) -> None:
        self.running = False
        self.panel.set_checking(False)
        if isinstance(exc, CheckStopped):
            return
        # The one path: logged (a fault of Hearth's or a full disk with its stack), then said.
        doing = self.tr("checking the catalogue on the hub")
        text = translated(describe_error(exc, doing, str(self.core.paths.logs_dir)))
        if not self._asked:
            log.info("the daily catalogue check failed: %s", text)
            return
        self.panel.set_hub_note(self.tr("The check failed: {0}").format(text), failed=True)
