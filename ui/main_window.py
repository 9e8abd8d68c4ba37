"""The main window: a shell of menus, four screens (Chat, Models, Documents, System), a
status bar and the dialogs that belong to no screen.

The window only arranges and connects.  What happens when a person sends a message lives
in ``app.chat.session`` (adapted by the Chat screen); models are listed and loaded by the
Chat screen's model bar, whose seat leases them from the process's engine host
(``Core.engines``); the catalogue's welcome and recommendations are ``CatalogController``'s,
the menus ``WindowMenus``'.  Nothing slow happens on the Qt main thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QByteArray, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication, QPaintEvent
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app import __version__
from app.chat import store as st
from app.core import Core
from app.engine.seat import Seat
from app.errors import describe_error
from app.machine.hardware import SystemFacts
from ui.chat.chat_screen import ChatScreen
from ui.documents.indexing import Indexing
from ui.error_banner import ErrorBanner
from ui.i18n import translated
from ui.screen_fit import keep_on_screen, place_first_window
from ui.settings.opener import SettingsParts
from ui.update_check import UpdateChecker
from ui.usage_line import UsageLine
from ui.window_icons import apply_window_icons

log = logging.getLogger(__name__)

PAINT_GRACE_MS = 500


class MainWindow(QMainWindow):
    models_ready = Signal()
    model_loaded = Signal(dict)
    reply_finished = Signal(dict)
    # Made in _build, read by the parts it makes first (the catalogue, the menus).
    tabs: QTabWidget
    models_page: QScrollArea
    indexing: Indexing
    updates: UpdateChecker

    def __init__(
        self,
        core: Core,
        store: st.ChatStore | None = None,
        load_on_start: bool = True,
    ) -> None:
        super().__init__()
        self.core = core
        self.seat = Seat(core.engines)  # the chat's model, on the process's engine host
        self.store = store or core.open_store()
        self.store.on_note = self.show_error  # a repair made while Hearth runs is said at once
        self.closed = False  # set when the window closes: late background results are dropped
        self._painted = False  # the first paint happened (start-up work waits for it)
        self._after_paint: list[Callable[[], None]] = []
        # A window that is never shown (or a platform that does not paint it) must not
        # wait for a paint forever.
        QTimer.singleShot(PAINT_GRACE_MS, self._run_after_paint)
        from app.hub.sources import download_manager

        self.downloads = download_manager(core.settings, core.paths.data_dir)
        self.setWindowTitle(self.tr("Hearth"))
        self.setObjectName("mainWindow")
        place_first_window(self)  # from the screen; a remembered geometry replaces it
        self._build(load_on_start)
        from ui.startup_notes import StartupNotes

        # What was repaired or recovered since the last run.
        parts = (self.store, self.downloads, self.documents, self.chat, self.error_banner)
        StartupNotes(core, *parts, self).show()
        self.apply_appearance()
        self._restore_window_state()
        QGuiApplication.styleHints().colorSchemeChanged.connect(lambda _s: self.apply_appearance())
        self.chat.refresh_conversations()
        self.chat.model_bar.refresh()
        # Load the Markdown parser and the code highlighter on a thread, not during the
        # first reply (tens of milliseconds); the GIL is released often enough meanwhile.
        # It starts once the window is painted, so it does not slow the first paint.
        warm_up = threading.Thread(
            target=self.chat.transcript.renderer.warm_up, name="renderer-warm-up", daemon=True
        )
        self.after_first_paint(warm_up.start)
        self.downloads.resume_interrupted()
        self.system_screen.run()
        # Collections are brought up to date once the window is painted, then every minute.
        self.after_first_paint(self.indexing.start_watching)
        self.after_first_paint(self.updates.start)  # asked once; checked only when allowed

    # -- layout ------------------------------------------------------------------------
    def _build(self, load_on_start: bool) -> None:
        self.error_banner = ErrorBanner()
        from app.documents import open_documents

        # the embedding model of the settings starts only when a passage needs vectors
        self.documents = open_documents(self.core, quiet=True)
        self.chat = ChatScreen(
            self.core,
            self.seat,
            self.store,
            self.error_banner,
            self.report,
            self.after_first_paint,
            load_on_start,
            documents=self.documents,
        )
        bar = self.chat.model_bar
        bar.models_ready.connect(self.models_ready)
        bar.model_loaded.connect(self.model_loaded)
        self.chat.reply_finished.connect(self.reply_finished)
        self.chat.status_message.connect(self.statusBar().showMessage)

        from ui.i18n import resolve_language
        from ui.models.models_screen import ModelsScreen
        from ui.system.system_screen import SystemScreen

        self.models_screen = ModelsScreen(self.core, self.downloads, self.ask_token)
        self.models_screen.suggest_for_region(
            resolve_language(str(self.core.settings.get("appearance.language")))
        )
        self.models_screen.chat_requested.connect(self.chat_with)
        self.models_screen.library_changed.connect(bar.set_library)
        bar.listed.connect(self.models_screen.show_library)
        library = self.models_screen.library_panel
        library.estimates_shown.connect(lambda: bar.set_fits(library.estimates))
        self.system_screen = SystemScreen(self.core, self._smallest_peak)
        self.system_screen.facts_ready.connect(self._facts_ready)
        self.system_screen.engines_requested.connect(lambda: self.open_settings("engines"))
        from ui.catalog.controller import CatalogController

        # The welcome, the recommendations and their downloads (kept by name for tests).
        catalog = self.catalog = CatalogController(
            self.core, self.downloads, self.chat, self.models_screen, self
        )
        catalog.chat_requested.connect(self.chat_with)
        catalog.models_requested.connect(lambda: self.tabs.setCurrentWidget(self.models_page))
        catalog.speak_through(self.statusBar().showMessage, self.show_error, self.report)
        self.welcome, self.catalog_panel = self.catalog.welcome, self.catalog.catalog_panel
        self.catalog_downloads = self.catalog.catalog_downloads
        self.catalog_check = self.catalog.catalog_check
        self.tabs = QTabWidget()
        self.tabs.setObjectName("screens")
        self.tabs.setDocumentMode(True)
        self.tabs.tabBar().setAccessibleName(self.tr("Screens"))
        self.tabs.addTab(self.chat, self.tr("Chat"))
        # The Models screen scrolls in a small window rather than crushing its tables.
        self.models_page = QScrollArea()
        self.models_page.setObjectName("modelsPage")
        self.models_page.setWidgetResizable(True)
        self.models_page.setFrameShape(QFrame.Shape.NoFrame)
        self.models_page.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # its controls are the stops
        self.models_page.setWidget(self.models_screen)
        self.tabs.addTab(self.models_page, self.tr("Models"))
        self.tabs.addTab(self.system_screen, self.tr("System"))
        from ui.documents.documents_screen import DocumentsScreen
        from ui.documents.indexing import Indexing

        self.indexing = Indexing(self.documents, self)
        self.documents_screen = DocumentsScreen(self.documents, self.indexing)
        self.tabs.addTab(self.documents_screen, self.tr("Documents"))
        self.documents_screen.ask_requested.connect(self._ask_collection)
        from ui.update_check import UpdateOffer

        # Above every screen: the first start's one question (may Hearth check for updates?)
        self.update_offer = UpdateOffer()
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.update_offer)
        column.addWidget(self.tabs, 1)
        self.setCentralWidget(central)
        self.usage_label = UsageLine(lambda: self.seat.worker_pid)
        self.chat.busy_changed.connect(self.usage_label.busy_changed)
        self.statusBar().addWidget(self.usage_label)
        self.stats_label = QLabel("")
        self.stats_label.setObjectName("statsLabel")
        self.statusBar().addPermanentWidget(self.stats_label)
        self.chat.stats_shown.connect(self.stats_label.setText)
        from ui.update_check import UpdateChecker

        self.updates = UpdateChecker(
            self.core.settings, self.statusBar(), self.update_offer, parent=self
        )
        from ui.server.switch import ApiSwitch

        self.api = ApiSwitch(
            self.core, self.seat, bar, self.statusBar(), self.report, self.documents
        )
        from ui.window_menus import WindowMenus

        menus = self.menus = WindowMenus(self.menuBar(), self.chat, self)
        menus.settings_requested.connect(self.open_settings)
        menus.endpoint_requested.connect(self.add_endpoint)
        menus.token_requested.connect(self.ask_token)
        menus.api_switched.connect(self.set_api_server)
        menus.api_server_requested.connect(self.show_api_server)
        menus.loaded_models_requested.connect(self.show_loaded_models)
        menus.about_requested.connect(self.show_about)
        menus.quit_requested.connect(self.close)
        menus.screen_requested.connect(self.tabs.setCurrentIndex)
        self.serve_action = menus.serve_action
        self._name_api_address()
        self.api.changed.connect(lambda: self.serve_action.setChecked(self.api.running))
        self.api.changed.connect(self._name_api_address)
        self.chat.composer.setFocus()

    # -- dialogs -----------------------------------------------------------------------
    def ask_token(self, source: str) -> bool:
        """Ask for a hub access token (kept in the keyring); True when one was saved."""
        from ui.models.token_dialog import ask_token

        return ask_token(self, source, self.report)

    def show_loaded_models(self) -> None:
        """The models loaded now (the chat's and the API's), their memory, and Unload."""
        self.api.open_loaded_models(self)

    def open_settings(self, page: str = "") -> None:
        from ui.settings.opener import open_settings

        after = [self.apply_appearance, self._name_api_address, self.updates.settings_changed]
        open_settings(self.settings_parts(), self, [*after, self.catalog_check.check_if_due], page)

    def settings_parts(self) -> SettingsParts:
        """What Settings acts on beside its dialog (``ui.settings.opener``)."""
        chat = self.chat
        return SettingsParts(
            *(self.core, self.seat, chat.model_bar, self.system_screen),
            chat.tools_ui.open_servers_dialog,
            self.show_api_server,
        )

    def add_endpoint(self) -> None:
        """Ask for a server's name, address and key; its models then join the picker."""
        from ui.models.endpoint_dialog import EndpointDialog

        dialog = EndpointDialog(self.core, self)
        dialog.accepted.connect(self.chat.model_bar.refresh)
        dialog.open()

    def show_about(self) -> None:
        QMessageBox.about(
            self,
            self.tr("About Hearth"),
            self.tr(
                "<b>Hearth {0}</b><br>Private, offline chat with open language "
                "models.<br><br>Data folder: {1}"
            ).format(__version__, self.core.paths.data_dir)
            + (f"<br><br>{line}" if (line := self.updates.about_line()) else ""),
        )

    def _ask_collection(self, name: str) -> None:
        self.chat.new_chat()
        self.chat.message_documents.ask(name)
        self.tabs.setCurrentIndex(0)
        self.chat.composer.setFocus()

    def chat_with(self, entry: Any) -> None:
        if self.chat.chat_with(entry):
            self.tabs.setCurrentIndex(0)

    # -- the first paint ---------------------------------------------------------------
    def after_first_paint(self, action: Callable[[], None]) -> None:
        """Run ``action`` now if the window has been painted, else right after that."""
        if self._painted:
            action()
        else:
            self._after_paint.append(action)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        self._run_after_paint()

    def _run_after_paint(self) -> None:
        """The first paint happened (or a hidden window waited long enough)."""
        if self._painted:
            return
        self._painted = True
        actions, self._after_paint = self._after_paint, []
        for action in actions:
            QTimer.singleShot(0, action)

    # -- appearance and window state -------------------------------------------------
    def apply_appearance(self) -> None:
        """Theme and conversation font size from the settings (applied at once)."""
        from ui.theme import apply_theme

        colors = apply_theme(str(self.core.settings.get("appearance.theme")))
        apply_window_icons(self)  # drawn in the theme's colours
        for styled in (self.welcome, self.catalog_panel):
            styled.setStyleSheet(styled.styleSheet())  # palette() in it: read the new theme
        size = int(self.core.settings.get("appearance.font_size"))
        points = float(size) if size > 0 else float(self.font().pointSizeF())
        composer, transcript = self.chat.composer, self.chat.transcript
        font = composer.font()
        font.setPointSizeF(points)
        composer.setFont(font)
        if colors is not transcript.palette_colors:
            transcript.set_palette_colors(colors)
        if abs(transcript.font().pointSizeF() - points) > 0.01:
            transcript.set_font_size(points)
        transcript.set_wrap_code(bool(self.core.settings.get("appearance.wrap_code")))

    def _restore_window_state(self) -> None:
        geometry = str(self.core.settings.get("window.geometry"))
        if geometry:
            self.restoreGeometry(QByteArray.fromBase64(geometry.encode("ascii")))
            keep_on_screen(self)  # the screen may be smaller now, or gone
        splitter = str(self.core.settings.get("window.splitter"))
        if splitter:
            self.chat.splitter.restoreState(QByteArray.fromBase64(splitter.encode("ascii")))

    def _save_window_state(self) -> None:
        def encoded(state: QByteArray) -> str:
            return bytes(state.toBase64().data()).decode("ascii")

        try:
            self.core.settings.set("window.geometry", encoded(self.saveGeometry()))
            self.core.settings.set("window.splitter", encoded(self.chat.splitter.saveState()))
        except (OSError, ValueError):
            log.warning("could not save the window's size and place", exc_info=True)

    # -- problems ----------------------------------------------------------------------
    def show_error(self, message: str) -> None:
        """Show a sentence for the user, in the window's language where it is a Phrase."""
        self.error_banner.show_message(translated(message))

    def report(self, exc: BaseException, doing: str) -> None:
        """Log with the stack, then show a sentence (the one error path)."""
        self.show_error(describe_error(exc, doing, str(self.core.paths.logs_dir)))

    # -- this machine -------------------------------------------------------------------
    def _facts_ready(self, facts: object) -> None:
        if isinstance(facts, SystemFacts):
            self.core.facts = facts
            self.models_screen.set_facts(facts)
            self.catalog.show_recommendations(facts)
            self.catalog_check.check_if_due()
            self.usage_label.count_gpus(bool(facts.usable_gpus))

    def _smallest_peak(self, facts: object) -> int | None:
        """Called on a worker thread by the system check: the least memory any model needs."""
        from app.machine.fit_service import smallest_peak

        if not isinstance(facts, SystemFacts):
            return None
        context = int(self.core.settings.get("engine.context_length"))
        return smallest_peak(list(self.chat.model_bar.library), facts, context)

    # -- the local API -----------------------------------------------------------------
    def set_api_server(self, on: bool, port: int | None = None) -> None:
        """Start or stop the local API for the library, sharing the chat's worker."""
        self.api.set(on, port, port_taken=self.show_api_server)  # the panel offers a free one
        self.serve_action.setChecked(self.api.running)

    def _name_api_address(self) -> None:
        self.menus.serve_text(*self.api.address())

    def show_api_server(self) -> None:  # on/off, address, key, status and examples
        from ui.server.dialog import open_panel

        open_panel(self.api, self.core.settings, str(self.core.paths.logs_dir), self)

    # -- closing -----------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        self.closed = True
        self._save_window_state()
        try:
            self.chat.close_sessions()
        except Exception:
            log.exception("could not save the reply while closing")
        self.api.set(False)
        self.indexing.close()
        self.documents.close()
        self.core.engines.close(timeout=3.0)
        self.downloads.close()
        self.store.close()
        super().closeEvent(event)
