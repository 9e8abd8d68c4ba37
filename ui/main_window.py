"""The main window: a shell of menus, three screens (Chat, Models, System), a status bar
and the dialogs that belong to no screen.

The window only arranges and connects.  What happens when a person sends a message lives
in ``app.chat.session`` (adapted by the Chat screen); models are listed and loaded by the
Chat screen's model bar; the engine runs in the worker behind ``EngineClient``.  Nothing
slow happens on the Qt main thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QKeySequence, QPaintEvent
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QMainWindow,
    QMenu,
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
from app.machine.live_usage import UsageSampler
from ui.chat.chat_screen import ChatScreen
from ui.error_banner import ErrorBanner
from ui.i18n import translated

log = logging.getLogger(__name__)

PAINT_GRACE_MS = 500
Keys = QKeySequence | QKeySequence.StandardKey | Qt.Key | str
API_PORT = 8765


class MainWindow(QMainWindow):
    models_ready = Signal()
    model_loaded = Signal(dict)
    reply_finished = Signal(dict)

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

        self.downloads = download_manager(core)
        self.setWindowTitle(self.tr("Hearth"))
        self.setObjectName("mainWindow")
        self.resize(QSize(1100, 760))
        self._build(load_on_start)
        self._report_startup_problems()
        self._usage = UsageSampler()
        self._usage_timer = QTimer(self)
        self._usage_timer.setInterval(1000)
        self._usage_timer.timeout.connect(self._show_usage)
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
        self.chat.busy_changed.connect(self._busy_changed)
        self.chat.status_message.connect(self.statusBar().showMessage)

        from ui.i18n import resolve_language
        from ui.models.models_screen import ModelsScreen
        from ui.system_screen import SystemScreen

        self.models_screen = ModelsScreen(self.core, self.downloads, self.ask_token)
        self.models_screen.suggest_for_region(
            resolve_language(str(self.core.settings.get("appearance.language")))
        )
        self.models_screen.chat_requested.connect(self._chat_with)
        self.models_screen.library_changed.connect(bar.set_library)
        bar.listed.connect(self.models_screen.show_library)
        library = self.models_screen.library_panel
        library.estimates_shown.connect(lambda: bar.set_fits(library.estimates))
        self.system_screen = SystemScreen(self.core, self._smallest_peak)
        self.system_screen.facts_ready.connect(self._facts_ready)
        self._build_welcome()
        self.tabs = QTabWidget()
        self.tabs.setObjectName("screens")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.chat, self.tr("Chat"))
        # The Models screen scrolls in a small window rather than crushing its tables.
        self.models_page = QScrollArea()
        self.models_page.setObjectName("modelsPage")
        self.models_page.setWidgetResizable(True)
        self.models_page.setFrameShape(QFrame.Shape.NoFrame)
        self.models_page.setWidget(self.models_screen)
        self.tabs.addTab(self.models_page, self.tr("Models"))
        self.tabs.addTab(self.system_screen, self.tr("System"))
        from ui.documents.documents_screen import DocumentsScreen
        from ui.documents.indexing import Indexing

        self.indexing = Indexing(self.documents, self)
        self.documents_screen = DocumentsScreen(self.documents, self.indexing)
        self.tabs.addTab(self.documents_screen, self.tr("Documents"))
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
        self.usage_label = QLabel("")
        self.usage_label.setObjectName("usageLabel")
        self.statusBar().addWidget(self.usage_label)
        self.stats_label = QLabel("")
        self.stats_label.setObjectName("statsLabel")
        self.statusBar().addPermanentWidget(self.stats_label)
        self.chat.stats_shown.connect(self.stats_label.setText)
        from ui.update_check import UpdateChecker

        self.updates = UpdateChecker(
            self.core.settings, self.statusBar(), self.update_offer, parent=self
        )
        from ui.api_switch import ApiSwitch

        self.api = ApiSwitch(
            self.core, self.seat, bar, self.statusBar(), self.report, self.documents
        )
        self._build_menus()
        self.chat.composer.setFocus()

    def _build_welcome(self) -> None:
        """The empty chat's welcome and the Models screen's recommendations: one catalogue,
        one download per model, whichever card started it."""
        from ui.catalog_downloads import CatalogDownloads
        from ui.chat.welcome import WelcomePanel

        bar = self.chat.model_bar
        self.catalog_downloads = CatalogDownloads(self.core, self.downloads, self)
        self.catalog_downloads.finished.connect(self._catalog_model_downloaded)
        self.catalog_downloads.failed.connect(self._catalog_download_failed)
        self.welcome = WelcomePanel(self.catalog_downloads, self._in_library)
        self.welcome.chat_requested.connect(self._chat_with_catalog_model)
        self.welcome.models_requested.connect(lambda: self.tabs.setCurrentWidget(self.models_page))
        self.chat.set_welcome(self.welcome)
        from ui.models.catalog_panel import CatalogPanel

        self.catalog_panel = CatalogPanel(self.catalog_downloads, self._in_library)
        self.catalog_panel.chat_requested.connect(self._chat_with_catalog_model)
        self.models_screen.show_catalog(self.catalog_panel)
        from ui.catalog_check import CatalogCheck

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
            self._show_recommendations(self.core.facts)

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
            self._chat_with(model)

    def _catalog_model_downloaded(self, name: str, path: str) -> None:
        """A recommended model arrived: chat with it (a new chat), and list it."""
        from app.models.library import describe

        self.models_screen.library_panel.refresh()
        entry = describe(Path(path), "models_dir")
        if entry.problem:
            self.show_error(
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
            self._chat_with(entry)  # the user is waiting for it on the welcome
        self.statusBar().showMessage(
            self.tr("{0} is ready: choose it in the model list or on its card.").format(entry.name)
            if not waiting
            else self.tr("{0} is ready.").format(entry.name),
            8000,
        )

    def _catalog_download_failed(self, name: str, message: str) -> None:
        log.warning("downloading the catalogue model %s failed: %s", name, message)
        for card in (self.welcome.card(name), self.catalog_panel.card(name)):
            if card is not None:
                card.show_failure(message)

    def _build_menus(self) -> None:
        chat = self.chat

        def action(menu: QMenu, text: str, keys: Keys | None, slot: Any) -> QAction:
            item = QAction(text, self)
            if keys is not None:
                item.setShortcut(QKeySequence(keys))
            item.triggered.connect(slot)
            menu.addAction(item)
            return item

        standard = QKeySequence.StandardKey
        file_menu = self.menuBar().addMenu(self.tr("&File"))
        action(file_menu, self.tr("&New chat"), standard.New, chat.new_chat)
        action(
            file_menu, self.tr("&Open model file…"), standard.Open, chat.model_bar.open_model_file
        )
        file_menu.addSeparator()
        action(
            file_menu,
            self.tr("&Export conversation…"),
            "Ctrl+E",
            lambda: chat.export_conversation(),  # noqa: PLW0108 - not given "checked"
        )
        action(
            file_menu,
            self.tr("&Import conversation…"),
            None,
            lambda: chat.import_conversation(),  # noqa: PLW0108 - not given "checked"
        )
        file_menu.addSeparator()
        action(file_menu, self.tr("&Settings…"), "Ctrl+,", self.open_settings)
        action(file_menu, self.tr("Add server &endpoint…"), None, self.add_endpoint)
        action(file_menu, self.tr("Hugging Face &token…"), None, lambda: self.ask_token("hf"))
        action(file_menu, self.tr("ModelScope t&oken…"), None, lambda: self.ask_token("modelscope"))
        file_menu.addSeparator()
        action(file_menu, self.tr("&Quit"), standard.Quit, self.close)
        view_menu = self.menuBar().addMenu(self.tr("&View"))
        for index, (text, keys) in enumerate(
            (
                (self.tr("&Chat"), "Ctrl+1"),
                (self.tr("&Models"), "Ctrl+2"),
                (self.tr("&System check"), "Ctrl+3"),
                (self.tr("&Documents"), "Ctrl+4"),
            )
        ):
            action(view_menu, text, keys, lambda _c=False, i=index: self.tabs.setCurrentIndex(i))
        chat_menu = self.menuBar().addMenu(self.tr("&Chat"))
        action(chat_menu, self.tr("&Stop reply"), Qt.Key.Key_Escape, chat.escape)
        action(
            chat_menu,
            self.tr("&Regenerate reply"),
            "Ctrl+R",
            lambda: chat.regenerate(),  # noqa: PLW0108 - not given "checked"
        )
        action(
            chat_menu,
            self.tr("&Continue reply"),
            "Ctrl+Shift+R",
            lambda: chat.continue_reply(),  # noqa: PLW0108 - not given "checked"
        )
        action(
            chat_menu,
            self.tr("Conversation &settings…"),
            "Ctrl+Shift+S",
            chat.open_conversation_settings,
        )
        action(chat_menu, self.tr("&Focus message box"), "Ctrl+L", chat.composer.setFocus)
        action(chat_menu, self.tr("&Search conversations"), "Ctrl+F", chat.search_panel.focus)
        self.serve_action = action(
            chat_menu,
            self.tr("Serve the &API on 127.0.0.1:8765"),
            None,
            lambda on: self.set_api_server(bool(on)),
        )
        self.serve_action.setCheckable(True)
        action(chat_menu, self.tr("&Loaded models…"), "Ctrl+Shift+L", self.show_loaded_models)
        help_menu = self.menuBar().addMenu(self.tr("&Help"))
        action(help_menu, self.tr("&About Hearth"), None, self.show_about)

    # -- dialogs -----------------------------------------------------------------------
    def ask_token(self, source: str) -> bool:
        """Ask for a hub access token (kept in the keyring); True when one was saved."""
        from ui.models.token_dialog import ask_token

        return ask_token(self, source, self.report)

    def show_loaded_models(self) -> None:
        """The models loaded now (the chat's and the API's), their memory, and Unload."""
        from ui.loaded_models import LoadedModelsDialog

        existing = self.findChild(LoadedModelsDialog)
        if existing is not None:
            existing.raise_()
            existing.activateWindow()
            return
        dialog = LoadedModelsDialog(self.api.loaded, self)
        dialog.finished.connect(dialog.deleteLater)
        dialog.show()  # not modal: the chat goes on beside it

    def open_settings(self) -> None:
        from ui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.core.settings, self)
        dialog.accepted.connect(self.apply_appearance)
        dialog.accepted.connect(self.updates.settings_changed)
        dialog.accepted.connect(self.catalog_check.check_if_due)  # a daily check allowed now
        dialog.open()

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

    def _chat_with(self, entry: Any) -> None:
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

    def _report_startup_problems(self) -> None:
        notes = self.core.state_problems()
        if self.downloads.document.problem not in ("", *notes):
            notes.append(self.downloads.document.problem)
        if self.store.recovery_note:
            notes.append(self.store.recovery_note)
        notes += self.documents.problems  # a damaged collections file or index
        if self.store.recovered_replies:
            self._show_recovered_reply(notes)
        elif notes:
            self.show_error(" ".join(notes))

    def _show_recovered_reply(self, notes: list[str]) -> None:
        """Hearth was closed (or killed) while writing a reply: open that conversation and
        say so calmly — nothing was lost, and Continue goes on with it."""
        count = self.store.recovered_replies
        message = (
            self.tr(
                "Hearth was closed while writing this reply. What was written is kept; "
                "Continue goes on with it."
            )
            if count == 1
            else self.tr(
                "Hearth was closed while writing {0} replies. What was written is kept; "
                "Continue goes on with each."
            ).format(count)
        )
        conversations = self.store.recovered_conversations
        if conversations:
            self.chat.open_conversation(conversations[0])
        if notes:  # a repair too: that is a problem, and both are said
            self.show_error(" ".join([*notes, message]))
        else:
            self.error_banner.show_message(message, info=True)

    # -- this machine -------------------------------------------------------------------
    def _facts_ready(self, facts: object) -> None:
        if isinstance(facts, SystemFacts):
            self.core.facts = facts
            self.models_screen.set_facts(facts)
            self._show_recommendations(facts)
            self.catalog_check.check_if_due()
            self._usage = UsageSampler(gpus=bool(facts.usable_gpus))

    def _show_recommendations(self, facts: SystemFacts) -> None:
        """The catalogue ranked for this machine (a few estimates: instant)."""
        from app.errors import HearthError
        from app.hub.catalog import picks, ranked
        from app.hub.catalog_refresh import current_catalog

        context = int(self.core.settings.get("engine.context_length"))
        try:
            entries, hub_facts = current_catalog(self.core.paths.data_dir)
            best = ranked(facts, context, entries)
        except HearthError as exc:
            self.report(exc, self.tr("reading the model catalogue"))
            return
        from ui.i18n import current_language

        chosen = picks(best, language=current_language())
        self.welcome.set_picks(chosen)
        self.catalog_panel.set_ranked(best, chosen)
        self.catalog_check.show_facts(hub_facts, len(entries))

    def _smallest_peak(self, facts: object) -> int | None:
        """Called on a worker thread by the system check: the least memory any model needs."""
        from app.errors import HearthError
        from app.machine.fit_service import estimate_entry

        if not isinstance(facts, SystemFacts):
            return None
        context = int(self.core.settings.get("engine.context_length"))
        peaks = []
        for entry in list(self.chat.model_bar.library):
            try:
                peaks.append(estimate_entry(entry, facts, context).peak_bytes)
            except HearthError:
                continue
        return min(peaks) if peaks else None

    def _busy_changed(self, busy: bool) -> None:
        if busy:
            self._usage_timer.start()  # first reading after a second: nothing slow on send
        else:
            self._usage_timer.stop()
            if self.usage_label.text():
                self._show_usage()  # the last figures: no model process if it ended

    def _show_usage(self) -> None:
        self.usage_label.setText(translated(self._usage.line(self.seat.worker_pid)))

    # -- the local API -----------------------------------------------------------------
    def set_api_server(self, on: bool, port: int = API_PORT) -> None:
        """Start or stop the local API (OpenAI, Ollama and Anthropic dialects) for the
        library, sharing the chat's worker."""
        self.api.set(on, port)
        self.serve_action.setChecked(self.api.running)

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
