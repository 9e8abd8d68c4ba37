"""The main window: conversations on the left, the chat on the right.

The window only arranges and reacts.  Models are listed on a background thread; the
model runs in the worker behind ``EngineClient``; streamed text reaches the transcript
through ``JobWatcher`` (coalesced on a timer) and is saved by ``ReplyRecorder`` while it
streams.  Nothing slow happens on the Qt main thread.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QKeySequence,
    QPaintEvent,
    QStandardItemModel,
)
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app import __version__
from app.chat import store as st
from app.chat.presets import effective_values, engine_params, recommended_sampling
from app.chat.recorder import ReplyRecorder, engine_messages, status_for
from app.core import Core
from app.engine_client import EngineClient
from app.errors import describe_error
from app.files import safe_file_name, write_text_atomically
from app.models.library import ModelEntry, describe
from backends.text_stream import REASONING, RETRO, ThinkSplitter
from ui.chat.composer import Composer
from ui.chat.context_meter import ContextMeter
from ui.chat.conversation_list import ConversationList
from ui.chat.conversation_settings_dialog import ConversationSettingsDialog
from ui.chat.transcript import TranscriptView, stats_text
from ui.chat.undo_bar import UndoBar
from ui.elided_label import ElidedLabel
from ui.i18n import translated
from ui.job_watcher import JobWatcher
from wire import protocol
from wire.phrases import from_wire

log = logging.getLogger(__name__)

CHARACTERS_PER_TOKEN = 3.5  # the context meter's estimate until the engine has counted
PAINT_GRACE_MS = 500


@dataclass
class ChatRun:
    """The reply being streamed: where it is saved and how it is watched."""

    conversation_id: int
    message_id: int
    model: ModelEntry
    watcher: JobWatcher
    recorder: ReplyRecorder
    stopping: bool = False
    save_failed: bool = False
    stats: dict[str, Any] = field(default_factory=dict)
    splitter: ThinkSplitter = field(default_factory=ThinkSplitter)
    think_started: float = 0.0  # when the first reasoning arrived (monotonic clock)
    thinking_s: float | None = None  # how long the model thought before answering


class ErrorBanner(QFrame):
    """The one place where problems are shown to the user, as sentences, until dismissed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBanner")
        self.setStyleSheet(
            "#errorBanner { background: #fef2f2; border: 1px solid #fca5a5; border-radius: 6px; }"
            " #errorBanner QLabel { color: #7f1d1d; }"
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setAccessibleName(self.tr("Error message"))
        close = QToolButton()
        close.setText("✕")
        close.setAccessibleName(self.tr("Dismiss error"))
        close.setAutoRaise(True)
        close.clicked.connect(self.dismiss)
        layout.addWidget(self.label, 1)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_message(self, message: str) -> None:
        self.label.setText(message)
        self.show()

    def dismiss(self) -> None:
        self.label.clear()
        self.hide()

    @property
    def message(self) -> str:
        return self.label.text() if self.isVisible() or self.label.text() else ""


class MainWindow(QMainWindow):
    models_ready = Signal()
    model_loaded = Signal(dict)
    reply_finished = Signal(dict)

    def __init__(
        self,
        core: Core,
        client: EngineClient | None = None,
        store: st.ChatStore | None = None,
        load_on_start: bool = True,
    ) -> None:
        super().__init__()
        self.core = core
        self.client = client or EngineClient(log_dir=core.paths.logs_dir)
        self.store = store or core.open_store()
        self.models: list[ModelEntry] = []  # what the picker offers (chat-capable)
        self.library: list[ModelEntry] = []  # everything found, for the Models screen
        self.remote: list[ModelEntry] = []  # models of the server endpoints
        self.api_server: Any = None
        self.model: ModelEntry | None = None
        self.conversation_id: int | None = None
        self.run: ChatRun | None = None
        self.editing: st.Message | None = None  # a message of the user's being edited
        self.closed = False  # set when the window closes: late background results are dropped
        self._painted = False  # the first paint happened (start-up work waits for it)
        self._after_paint: list[Callable[[], None]] = []
        # A window that is never shown (or a platform that does not paint it) must not
        # wait for a paint forever.
        QTimer.singleShot(PAINT_GRACE_MS, self._run_after_paint)
        self.pending_settings: dict[str, Any] = {}  # for the conversation not yet created
        self.pending_system_prompt = str(core.settings.get("chat.system_prompt"))
        self.loaded_context: int | None = None  # the context of the loaded model
        self._recommended: dict[str, dict[str, Any]] = {}  # model path -> its advice
        self._loader: JobWatcher | None = None
        self._load_on_start = load_on_start
        from app.hub.sources import download_manager

        self.downloads = download_manager(core)
        # Extra sampling parameters for every reply (benchmarks run replies to a fixed
        # length with {"ignore_eos": True}); empty in normal use.
        self.sampling_overrides: dict[str, Any] = {}
        self.setWindowTitle(self.tr("Hearth"))
        self.setObjectName("mainWindow")
        self.resize(QSize(1100, 760))
        self._build()
        self._flush_timer = QTimer(self)
        self._flush_timer.setInterval(250)
        self._flush_timer.timeout.connect(self._flush_reply)
        self._report_startup_problems()
        from app.machine.live_usage import UsageSampler

        self._usage = UsageSampler()
        self._usage_timer = QTimer(self)
        self._usage_timer.setInterval(1000)
        self._usage_timer.timeout.connect(self._show_usage)
        self.apply_appearance()
        self._restore_window_state()
        from PySide6.QtGui import QGuiApplication

        QGuiApplication.styleHints().colorSchemeChanged.connect(lambda _s: self.apply_appearance())
        self.refresh_conversations()
        self.refresh_models()
        # Load the Markdown parser and the code highlighter on a thread, not during the
        # first reply (tens of milliseconds); the GIL is released often enough meanwhile.
        # It starts once the window is painted, so it does not slow the first paint.
        warm_up = threading.Thread(
            target=self.transcript.renderer.warm_up, name="renderer-warm-up", daemon=True
        )
        self.after_first_paint(warm_up.start)
        self.downloads.resume_interrupted()
        self.system_screen.run()

    # -- layout ------------------------------------------------------------------------
    def _build(self) -> None:
        sidebar = QWidget()
        side = QVBoxLayout(sidebar)
        side.setContentsMargins(8, 8, 4, 8)
        self.new_button = QPushButton(self.tr("New chat"))
        self.new_button.setAccessibleName(self.tr("New chat"))
        self.new_button.clicked.connect(self.new_chat)
        self.conversation_list = ConversationList()
        self.conversation_list.selected.connect(self.open_conversation)
        self.conversation_list.rename_requested.connect(self.rename_conversation)
        self.conversation_list.delete_requested.connect(self.delete_conversation)
        self.conversation_list.pin_requested.connect(self.set_pinned)
        from ui.chat.search_panel import SearchPanel

        self.search_panel = SearchPanel(self.store.search)
        self.search_panel.hit_chosen.connect(self.open_search_hit)
        self.search_panel.active_changed.connect(
            lambda active: self.conversation_list.setVisible(not active)
        )
        self.conversation_list.export_requested.connect(self.export_conversation)
        side.addWidget(self.new_button)
        side.addWidget(self.search_panel)
        side.addWidget(self.conversation_list, 1)

        chat = QWidget()
        layout = QVBoxLayout(chat)
        layout.setContentsMargins(4, 8, 8, 8)
        top = QHBoxLayout()
        self.model_picker = QComboBox()
        self.model_picker.setObjectName("modelPicker")
        self.model_picker.setAccessibleName(self.tr("Model"))
        self.model_picker.setMinimumContentsLength(20)
        self.model_picker.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.model_picker.activated.connect(self._picker_activated)
        self.open_model_button = QPushButton(self.tr("Open model file…"))
        self.open_model_button.clicked.connect(self._open_model_file)
        self.load_progress = QProgressBar()
        self.load_progress.setRange(0, 100)
        self.load_progress.setMaximumWidth(160)
        self.load_progress.setAccessibleName(self.tr("Model loading progress"))
        self.load_progress.hide()
        self.model_status = ElidedLabel(self.tr("Finding models…"))
        self.model_status.setObjectName("modelStatus")
        top.addWidget(QLabel(self.tr("Model:")))
        top.addWidget(self.model_picker, 1)
        top.addWidget(self.open_model_button)
        self.model_settings_button = QPushButton(self.tr("Model settings…"))
        self.model_settings_button.setToolTip(
            self.tr("Engine, GPU layers, threads and context for this model")
        )
        self.model_settings_button.clicked.connect(self.open_model_settings)
        top.addWidget(self.model_settings_button)
        self.conversation_settings_button = QPushButton(self.tr("Instructions…"))
        self.conversation_settings_button.setObjectName("conversationSettingsButton")
        self.conversation_settings_button.setToolTip(
            self.tr("System prompt, preset and reply settings of this conversation")
        )
        self.conversation_settings_button.clicked.connect(self.open_conversation_settings)
        top.addWidget(self.conversation_settings_button)
        layout.addLayout(top)

        self.error_banner = ErrorBanner()
        layout.addWidget(self.error_banner)
        self.undo_bar = UndoBar()
        layout.addWidget(self.undo_bar)
        self.transcript = TranscriptView()
        self.transcript.action.connect(self.message_action)
        layout.addWidget(self.transcript, 1)
        under = QHBoxLayout()
        self.edit_label = QLabel()
        self.edit_label.setObjectName("editLabel")
        self.edit_label.hide()
        self.context_meter = ContextMeter()
        under.addWidget(self.edit_label, 1)
        under.addWidget(self.model_status, 1)
        under.addWidget(self.load_progress)
        under.addWidget(self.context_meter)
        layout.addLayout(under)

        bottom = QHBoxLayout()
        self.composer = Composer()
        self.composer.submitted.connect(self.send)
        self.search_panel.field.cleared.connect(self.composer.setFocus)
        self.send_button = QPushButton(self.tr("Send"))
        self.send_button.setObjectName("sendButton")
        self.send_button.setAccessibleName(self.tr("Send message"))
        self.send_button.clicked.connect(lambda: self.send(self.composer.toPlainText()))
        self.stop_button = QPushButton(self.tr("Stop"))
        self.stop_button.setObjectName("stopButton")
        self.stop_button.setAccessibleName(self.tr("Stop the reply"))
        self.stop_button.clicked.connect(self.stop)
        self.stop_button.hide()
        bottom.addWidget(self.composer, 1)
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        bottom.addLayout(buttons)
        layout.addLayout(bottom)

        splitter = QSplitter()
        splitter.setObjectName("chatSplitter")
        splitter.addWidget(sidebar)
        splitter.addWidget(chat)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([260, 840])
        self.splitter = splitter
        from ui.models.models_screen import ModelsScreen

        self.models_screen = ModelsScreen(
            self.core, self.downloads, self.report, self.show_error, self.ask_token
        )
        from ui.i18n import resolve_language

        self.models_screen.suggest_for_region(
            resolve_language(str(self.core.settings.get("appearance.language")))
        )
        self.models_screen.chat_requested.connect(self.chat_with)
        self.models_screen.library_changed.connect(self._library_changed)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("screens")
        self.tabs.setDocumentMode(True)
        from ui.system_screen import SystemScreen

        self.system_screen = SystemScreen(self.core, self.report, self._smallest_peak)
        self.system_screen.facts_ready.connect(self._facts_ready)
        self.tabs.addTab(splitter, self.tr("Chat"))
        self.tabs.addTab(self.models_screen, self.tr("Models"))
        self.tabs.addTab(self.system_screen, self.tr("System"))
        self.setCentralWidget(self.tabs)
        self.usage_label = QLabel("")
        self.usage_label.setObjectName("usageLabel")
        self.statusBar().addWidget(self.usage_label)
        self.stats_label = QLabel("")
        self.stats_label.setObjectName("statsLabel")
        self.statusBar().addPermanentWidget(self.stats_label)

        self._build_menus()
        self.composer.setFocus()

    def _build_menus(self) -> None:
        def action(menu: QMenu, text: str, keys: QKeySequence | None, slot: Any) -> QAction:
            item = QAction(text, self)
            if keys is not None:
                item.setShortcut(keys)
            item.triggered.connect(slot)
            menu.addAction(item)
            return item

        file_menu = self.menuBar().addMenu(self.tr("&File"))
        action(
            file_menu,
            self.tr("&New chat"),
            QKeySequence(QKeySequence.StandardKey.New),
            self.new_chat,
        )
        action(
            file_menu,
            self.tr("&Open model file…"),
            QKeySequence(QKeySequence.StandardKey.Open),
            self._open_model_file,
        )
        file_menu.addSeparator()
        action(
            file_menu,
            self.tr("&Export conversation…"),
            QKeySequence("Ctrl+E"),
            self.export_conversation,
        )
        action(file_menu, self.tr("&Import conversation…"), None, self.import_conversation)
        file_menu.addSeparator()
        action(file_menu, self.tr("&Settings…"), QKeySequence("Ctrl+,"), self.open_settings)
        action(file_menu, self.tr("Add server &endpoint…"), None, self.add_endpoint)
        action(file_menu, self.tr("Hugging Face &token…"), None, lambda: self.ask_token("hf"))
        action(file_menu, self.tr("ModelScope t&oken…"), None, lambda: self.ask_token("modelscope"))
        file_menu.addSeparator()
        action(file_menu, self.tr("&Quit"), QKeySequence(QKeySequence.StandardKey.Quit), self.close)
        view_menu = self.menuBar().addMenu(self.tr("&View"))
        action(
            view_menu,
            self.tr("&Chat"),
            QKeySequence("Ctrl+1"),
            lambda: self.tabs.setCurrentIndex(0),
        )
        action(
            view_menu,
            self.tr("&Models"),
            QKeySequence("Ctrl+2"),
            lambda: self.tabs.setCurrentIndex(1),
        )
        action(
            view_menu,
            self.tr("&System check"),
            QKeySequence("Ctrl+3"),
            lambda: self.tabs.setCurrentIndex(2),
        )
        chat_menu = self.menuBar().addMenu(self.tr("&Chat"))
        action(chat_menu, self.tr("&Stop reply"), QKeySequence(Qt.Key.Key_Escape), self.escape)
        action(
            chat_menu,
            self.tr("&Regenerate reply"),
            QKeySequence("Ctrl+R"),
            lambda: self.regenerate(),  # noqa: PLW0108 - not given "checked"
        )
        action(
            chat_menu,
            self.tr("&Continue reply"),
            QKeySequence("Ctrl+Shift+R"),
            lambda: self.continue_reply(),  # noqa: PLW0108 - not given "checked"
        )
        action(
            chat_menu,
            self.tr("Conversation &settings…"),
            QKeySequence("Ctrl+Shift+S"),
            self.open_conversation_settings,
        )
        action(
            chat_menu, self.tr("&Focus message box"), QKeySequence("Ctrl+L"), self.composer.setFocus
        )
        action(
            chat_menu,
            self.tr("&Search conversations"),
            QKeySequence("Ctrl+F"),
            self.search_panel.focus,
        )
        self.serve_action: QAction = QAction(self.tr("Serve the &API on 127.0.0.1:8765"), self)
        self.serve_action.setCheckable(True)
        self.serve_action.triggered.connect(self.set_api_server)
        chat_menu.addAction(self.serve_action)
        help_menu = self.menuBar().addMenu(self.tr("&Help"))
        action(help_menu, self.tr("&About Hearth"), None, self.show_about)

    def ask_token(self, source: str) -> bool:
        """Ask for a hub access token and keep it in the keyring; True when one was saved."""
        from app.secrets import set_token

        name = "Hugging Face" if source == "hf" else "ModelScope"
        token, ok = QInputDialog.getText(
            self,
            self.tr("{0} access token").format(name),
            self.tr(
                "This needs a {0} access token. Paste it here; it is kept in the system keyring. "
                "Leave it empty to remove a saved token."
            ).format(name),
            QLineEdit.EchoMode.Password,
        )
        if not ok:
            return False
        try:
            set_token(source, token.strip())
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.report(exc, self.tr("saving the token"))
            return False
        return bool(token.strip())

    def open_settings(self) -> None:
        from ui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.core.settings, self)
        dialog.accepted.connect(self.apply_appearance)
        dialog.open()

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
        size = int(self.core.settings.get("appearance.font_size"))
        points = float(size) if size > 0 else float(self.font().pointSizeF())
        font = self.composer.font()
        font.setPointSizeF(points)
        self.composer.setFont(font)
        if colors is not self.transcript.palette_colors:
            self.transcript.set_palette_colors(colors)
        if abs(self.transcript.font().pointSizeF() - points) > 0.01:
            self.transcript.set_font_size(points)

    def _restore_window_state(self) -> None:
        from PySide6.QtCore import QByteArray

        geometry = str(self.core.settings.get("window.geometry"))
        if geometry:
            self.restoreGeometry(QByteArray.fromBase64(geometry.encode("ascii")))
        splitter = str(self.core.settings.get("window.splitter"))
        if splitter:
            self.splitter.restoreState(QByteArray.fromBase64(splitter.encode("ascii")))

    def _save_window_state(self) -> None:
        try:
            self.core.settings.set(
                "window.geometry", bytes(self.saveGeometry().toBase64().data()).decode("ascii")
            )
            self.core.settings.set(
                "window.splitter",
                bytes(self.splitter.saveState().toBase64().data()).decode("ascii"),
            )
        except (OSError, ValueError):
            log.warning("could not save the window's size and place", exc_info=True)

    def show_about(self) -> None:
        QMessageBox.about(
            self,
            self.tr("About Hearth"),
            self.tr(
                "<b>Hearth {0}</b><br>Private, offline chat with open language "
                "models.<br><br>Data folder: {1}"
            ).format(__version__, self.core.paths.data_dir),
        )

    # -- problems ----------------------------------------------------------------------
    def show_error(self, message: str) -> None:
        """Show a sentence for the user, in the window's language where it is a Phrase."""
        self.error_banner.show_message(translated(message))

    def report(self, exc: BaseException, doing: str) -> None:
        """Log with the stack, then show a sentence (the one error path)."""
        self.show_error(describe_error(exc, doing, str(self.core.paths.logs_dir)))

    def _report_startup_problems(self) -> None:
        notes = list(self.core.settings.problems)
        if self.store.recovery_note:
            notes.append(self.store.recovery_note)
        if self.store.recovered_replies:
            notes.append(
                self.tr(
                    "Hearth was closed while writing %n reply(s); what was written was kept "
                    "and marked as interrupted.",
                    "",
                    self.store.recovered_replies,
                )
            )
        if notes:
            self.show_error(" ".join(notes))

    # -- models ------------------------------------------------------------------------
    def refresh_models(self) -> None:
        from ui.background import run_in_background

        core = self.core
        run_in_background(
            self,
            lambda: (core.models(), core.remote_models()),
            self._models_listed,
            lambda exc: self.report(exc, self.tr("listing models")),
        )

    def _models_listed(self, found: tuple[list[ModelEntry], list[ModelEntry]]) -> None:
        if self.closed:
            return  # the list arrived after the window closed: nothing to show or load
        models, self.remote = found
        # The Models screen shows the library and hands it back (library_changed), which
        # fills the picker: one place for that.
        self.models_screen.show_library(models)
        try:
            default = self.core.default_model(models)
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.report(exc, self.tr("choosing a model"))
            self.model_status.setText(self.tr("No model"))
            self.models_ready.emit()
            return
        # Starting the engine's process takes the main thread tens of milliseconds: never
        # before the window has been painted once.
        self.after_first_paint(lambda: self.select_model(default, load=self._load_on_start))
        self.models_ready.emit()

    def _fill_picker(self) -> None:
        self.model_picker.blockSignals(True)
        self.model_picker.clear()
        model = self.model_picker.model()
        for index, entry in enumerate(self.models):
            quant = entry.quantization
            label = entry.name + (f"  ({quant})" if quant and quant not in entry.name else "")
            if entry.source == "starter":
                label += "  — starter"
            self.model_picker.addItem(label, str(entry.path))
            tip = translated(entry.problem) or f"{entry.path}\n{entry.size_bytes / 1e6:,.0f} MB"
            self.model_picker.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
            if entry.problem and isinstance(model, QStandardItemModel):
                item = model.item(index)
                if item is not None:
                    item.setEnabled(False)
        self.model_picker.blockSignals(False)

    # -- this machine -------------------------------------------------------------------
    def _facts_ready(self, facts: object) -> None:
        from app.machine.hardware import SystemFacts

        if isinstance(facts, SystemFacts):
            self.core.facts = facts
            self.models_screen.set_facts(facts)
            from app.machine.live_usage import UsageSampler

            self._usage = UsageSampler(gpus=bool(facts.usable_gpus))

    def _smallest_peak(self, facts: object) -> int | None:
        """Called on a worker thread by the system check: the least memory any model needs."""
        from app.errors import HearthError
        from app.machine.fit_service import estimate_entry
        from app.machine.hardware import SystemFacts

        if not isinstance(facts, SystemFacts):
            return None
        context = int(self.core.settings.get("engine.context_length"))
        peaks = []
        for entry in list(self.library):
            try:
                peaks.append(estimate_entry(entry, facts, context).peak_bytes)
            except HearthError:
                continue
        return min(peaks) if peaks else None

    def _show_usage(self) -> None:
        self.usage_label.setText(self._usage.line(self.client.worker_pid))

    def add_endpoint(self) -> None:
        """Ask for a server's name, address and key; its models then join the picker."""
        from ui.models.endpoint_dialog import EndpointDialog

        dialog = EndpointDialog(self.core, self)
        dialog.accepted.connect(self.refresh_models)
        dialog.open()

    def set_api_server(self, on: bool, port: int = 8765) -> None:
        """Start or stop the local OpenAI-compatible API for the model chosen here.

        It shares this window's engine client and worker, whose queue keeps a request from
        an editor and a chat here from ever mixing."""
        from app.serve.api_server import ApiServer, ServerConfig, build_app

        if not on:
            if self.api_server is not None:
                self.api_server.stop()
                self.api_server = None
            self.statusBar().showMessage(self.tr("API stopped"), 3000)
            return
        if self.model is None:
            self.show_error(self.tr("Choose a model first, then start the API."))
            self.serve_action.setChecked(False)
            return
        config = ServerConfig(port=port, model_name=self.model.name)
        app = build_app(
            self.client,
            lambda: self.core.model_spec(self.model),  # type: ignore[arg-type]
            config,
            self.core.sampling,
        )
        server = ApiServer(app, config)
        try:
            server.start()
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.report(exc, self.tr("starting the API"))
            self.serve_action.setChecked(False)
            return
        self.api_server = server
        self.serve_action.setChecked(True)
        self.statusBar().showMessage(
            self.tr("API serving {0} at http://127.0.0.1:{1}/v1").format(self.model.name, port)
        )

    def open_conversation_settings(self) -> ConversationSettingsDialog:
        """System prompt, preset and sampling of the open (or next new) conversation."""
        from app.chat.presets import PresetStore

        conversation = (
            self.store.conversation(self.conversation_id)
            if self.conversation_id is not None
            else None
        )
        own = conversation.settings if conversation else self.pending_settings
        prompt = conversation.system_prompt if conversation else self.pending_system_prompt
        defaults = effective_values(self.core.settings, self._model_advice(), {})
        dialog = ConversationSettingsDialog(
            PresetStore(self.core.paths.data_dir / "presets.json"),
            prompt,
            own,
            defaults,
            self._model_advice(),
            self,
        )

        def accepted() -> None:
            settings = dialog.result_settings()
            system_prompt = dialog.system_prompt.toPlainText()
            if self.conversation_id is None:
                self.pending_settings, self.pending_system_prompt = settings, system_prompt
            else:
                try:
                    self.store.set_conversation_settings(
                        self.conversation_id, system_prompt, settings
                    )
                except Exception as exc:  # noqa: BLE001
                    self.report(exc, self.tr("saving the conversation settings"))
            self._update_context_meter()

        dialog.accepted.connect(accepted)
        dialog.open()
        return dialog

    def open_model_settings(self) -> None:
        if self.model is None:
            self.show_error(self.tr("Choose a model first."))
            return
        from ui.models.model_settings_dialog import ModelSettingsDialog

        dialog = ModelSettingsDialog(self.core, self.model, self)
        dialog.accepted.connect(self.load_model)
        dialog.open()

    def _library_changed(self, models: list[ModelEntry]) -> None:
        """The Models screen found a new library (a download finished, a model was deleted)."""
        self.library = models
        current = self.model
        self.models = self.core.chat_models(models) + self.remote
        self._fill_picker()
        if current is not None:
            for index, entry in enumerate(self.models):
                if entry.path == current.path:
                    self.model_picker.setCurrentIndex(index)

    def chat_with(self, entry: ModelEntry) -> None:
        """Start a new chat with ``entry`` (from the library)."""
        from app.core import transformers_available

        if entry.format != "gguf" and not transformers_available():
            self.show_error(
                self.tr(
                    "{0} is a Hugging Face checkpoint and needs the PyTorch engine, which this "
                    "edition does not include (see the README)."
                ).format(entry.name)
            )
            return
        if self.run is not None:
            self.show_error(
                self.tr("Wait for the reply to finish (or press Stop) before switching models.")
            )
            return
        if all(m.path != entry.path for m in self.models):
            self.models.append(entry)
            self._fill_picker()
        self.tabs.setCurrentIndex(0)
        self.new_chat()
        self.select_model(entry)

    def _picker_activated(self, index: int) -> None:
        if 0 <= index < len(self.models):
            self.select_model(self.models[index])

    def _open_model_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Open a GGUF model"),
            str(self.core.models_dir),
            "GGUF models (*.gguf);;All files (*)",
        )
        if path:
            self.add_model_file(Path(path))

    def add_model_file(self, path: Path) -> bool:
        entry = describe(path, "file")
        if entry.problem:
            self.show_error(
                self.tr(
                    "This file cannot be used as a model: {0} Choose another file or model."
                ).format(translated(entry.problem))
            )
            return False
        if all(m.path != entry.path for m in self.models):
            self.models.append(entry)
            self._fill_picker()
        self.select_model(entry)
        return True

    def select_model(self, entry: ModelEntry, load: bool = True) -> None:
        if not entry.usable:
            self.show_error(
                self.tr("{0} cannot be used: {1}").format(entry.name, translated(entry.problem))
            )
            return
        if all(m.path != entry.path for m in self.models):
            self.models.append(entry)
        if self.model_picker.findData(str(entry.path)) < 0:
            self._fill_picker()
        self.model = entry
        self._model_advice()  # start reading the model's advice now, off the main thread
        for index, candidate in enumerate(self.models):
            if candidate.path == entry.path:
                self.model_picker.setCurrentIndex(index)
        try:
            self.core.remember_model(entry)
        except (OSError, ValueError) as exc:
            self.report(exc, self.tr("saving the model choice"))
        self.model_status.setText(entry.name)
        if load:
            self.load_model()

    def load_model(self) -> None:
        if self.model is None or self.closed:
            return
        watcher = JobWatcher(self)
        self._loader = watcher
        watcher.progress.connect(self._load_progress)
        watcher.finished.connect(lambda event: self._load_finished(watcher, event))
        self.load_progress.setValue(0)
        self.load_progress.show()
        watcher.watch(self.client.load(self.core.model_spec(self.model), watcher.callback))

    def _load_progress(self, fraction: float, stage: str) -> None:
        self.load_progress.show()
        self.load_progress.setValue(int(fraction * 100))
        self.model_status.setText(stage)

    def _load_finished(self, watcher: JobWatcher, event: dict[str, Any]) -> None:
        watcher.deleteLater()
        if watcher is not self._loader:
            return  # a load that another model choice replaced
        self._loader = None
        if event["type"] == protocol.ERROR:
            self.load_progress.hide()
            self.model_status.setText(self.tr("Not loaded"))
            name = self.model.name if self.model else self.tr("The model")
            self.show_error(
                self.tr("{0} could not be loaded. {1}").format(name, translated(from_wire(event)))
            )
            return
        self._model_ready(event)

    def _model_ready(self, event: dict[str, Any]) -> None:
        notes = event.get("notes") or []
        if notes:
            self.show_error(" ".join(str(n) for n in notes))
        self.load_progress.hide()
        name = self.model.name if self.model else ""
        context = event.get("n_ctx")
        if isinstance(context, int):
            self.loaded_context = context
            self._update_context_meter()
        self.model_status.setText(
            self.tr("{0} · {1} tokens context").format(name, context) if context else name
        )
        self.model_loaded.emit(event)

    # -- conversations -----------------------------------------------------------------
    def refresh_conversations(self) -> None:
        self.conversation_list.set_conversations(self.store.conversations(), self.conversation_id)

    def new_chat(self) -> None:
        self.conversation_id = None
        self.pending_settings = {}
        self.pending_system_prompt = str(self.core.settings.get("chat.system_prompt"))
        self.cancel_edit()
        self.conversation_list.clearSelection()
        self.conversation_list.setCurrentRow(-1)
        self.transcript.show_messages([])
        self._update_context_meter()
        self.composer.setFocus()

    def open_conversation(self, conversation_id: int) -> None:
        if (
            conversation_id == self.conversation_id
            and self.transcript.document().characterCount() > 1
        ):
            return
        self.conversation_id = conversation_id
        self.cancel_edit()
        self.show_conversation()
        self.conversation_list.select_id(conversation_id)

    def show_conversation(self) -> None:
        """Render the open conversation (its current branch) from the store."""
        if self.conversation_id is None:
            self.transcript.show_messages([])
            return
        messages = self.store.messages(self.conversation_id)
        branches = self.store.branches(self.conversation_id)
        run = self.run
        if run is not None and run.conversation_id == self.conversation_id:
            shown = [m for m in messages if m.id != run.message_id]
            self.transcript.show_messages(shown, branches)
            self.transcript.begin_reply(run.model.name, run.recorder.text, run.recorder.reasoning)
        else:
            self.transcript.show_messages(messages, branches)
        self._update_context_meter(messages)

    def open_search_hit(self, conversation_id: int, query: str) -> None:
        """Open a conversation found by a search and highlight the first match."""
        self.open_conversation(conversation_id)
        if query:
            self.transcript.highlight(query)

    def export_conversation(self, conversation_id: int | None = None, path: str = "") -> bool:
        """Save a conversation as Markdown (readable anywhere) or JSON (re-importable)."""
        import json

        conversation_id = conversation_id or self.conversation_id
        if conversation_id is None:
            self.show_error(self.tr("Open a conversation first."))
            return False
        title = self.store.conversation(conversation_id).title
        if not path:
            path, _ = QFileDialog.getSaveFileName(
                self,
                self.tr("Export conversation"),
                str(Path.home() / f"{safe_file_name(title)}.md"),
                self.tr("Markdown (*.md);;Hearth conversation, JSON (*.json)"),
            )
        if not path:
            return False
        try:
            if path.lower().endswith(".json"):
                text = json.dumps(
                    self.store.export_conversation(conversation_id), ensure_ascii=False, indent=2
                )
            else:
                text = self.store.export_markdown(conversation_id)
            write_text_atomically(Path(path), text)
        except Exception as exc:  # noqa: BLE001 - disk full, no permission: say so
            self.report(exc, self.tr("exporting the conversation"))
            return False
        self.statusBar().showMessage(self.tr("Exported to {0}").format(path), 5000)
        return True

    def import_conversation(self, path: str = "") -> int | None:
        """Add a conversation from a Hearth JSON export; a bad file changes nothing."""
        import json

        if not path:
            path, _ = QFileDialog.getOpenFileName(
                self,
                self.tr("Import conversation"),
                str(Path.home()),
                self.tr("Conversation, JSON (*.json);;All files (*)"),
            )
        if not path:
            return None
        try:
            document = json.loads(Path(path).read_text(encoding="utf-8"))
            conversation_id = self.store.import_conversation(document)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            self.show_error(self.tr("{0} could not be imported: {1}").format(Path(path).name, exc))
            return None
        except st.StoreError as exc:
            self.show_error(self.tr("{0} could not be imported: {1}").format(Path(path).name, exc))
            return None
        self.refresh_conversations()
        self.open_conversation(conversation_id)
        return conversation_id

    def rename_conversation(self, conversation_id: int, title: str) -> None:
        self.store.rename_conversation(conversation_id, title)

    def set_pinned(self, conversation_id: int, pinned: bool) -> None:
        self.store.set_pinned(conversation_id, pinned)
        self.refresh_conversations()

    def delete_conversation(self, conversation_id: int) -> None:
        """Delete at once, with Undo offered for a while (and until Hearth closes, Ctrl+Z)."""
        if self.run is not None and self.run.conversation_id == conversation_id:
            self.stop()
            self._finish_run({"type": protocol.DONE, "finish_reason": protocol.FINISH_CANCELLED})
        title = self.store.conversation(conversation_id).title
        self.store.trash_conversation(conversation_id)
        if self.conversation_id == conversation_id:
            self.new_chat()
        self.refresh_conversations()
        self.undo_bar.offer(
            self.tr("Deleted “{0}”.").format(title),
            lambda: self.restore_conversation(conversation_id),
        )

    def restore_conversation(self, conversation_id: int) -> None:
        self.store.restore_conversation(conversation_id)
        self.refresh_conversations()
        self.open_conversation(conversation_id)

    # -- editing the conversation ------------------------------------------------------
    def message_action(self, action: str, message_id: int) -> None:
        """A link under or beside a message was clicked in the transcript."""
        if action in ("copy-md", "copy-text"):
            self.copy_message(message_id, plain=action == "copy-text")
            return
        if self.run is not None:
            self.show_error(self.tr("Wait for the reply to finish (or press Stop) first."))
            return
        handlers: dict[str, Callable[[int], object]] = {
            "edit": self.edit_message,
            "delete": self.delete_message,
            "regenerate": self.regenerate,
            "continue": self.continue_reply,
            "prev": lambda m: self.step_branch(m, -1),
            "next": lambda m: self.step_branch(m, +1),
        }
        handler = handlers.get(action)
        if handler is not None:
            handler(message_id)

    def copy_message(self, message_id: int, plain: bool = False) -> None:
        from ui.chat.transcript import plain_text

        try:
            content = self.store.message(message_id).content
        except KeyError:
            return
        self.transcript.copy_to_clipboard(plain_text(content) if plain else content)
        self.statusBar().showMessage(self.tr("Copied"), 2000)

    def edit_message(self, message_id: int) -> None:
        """Put a message of the user's in the box; sending it starts a new branch."""
        message = self.store.message(message_id)
        self.editing = message
        self.composer.setPlainText(message.content)
        self.composer.setFocus()
        self.edit_label.setText(
            self.tr("Editing your message: Send keeps the old version as a branch (Esc cancels).")
        )
        self.edit_label.show()

    def cancel_edit(self) -> None:
        if getattr(self, "editing", None) is not None:
            self.editing = None
            self.composer.clear()
        self.edit_label.hide()

    def delete_message(self, message_id: int) -> None:
        self.store.delete_message(message_id)
        self.show_conversation()
        self.refresh_conversations()

    def step_branch(self, message_id: int, step: int) -> None:
        target = self.store.sibling(message_id, step)
        if target is not None:
            self.store.switch_branch(target)
            self.show_conversation()

    def regenerate(self, message_id: int | None = None) -> bool:
        """A new reply to the message before ``message_id`` (default: the last reply);
        the old reply stays as a branch."""
        if self.conversation_id is None or self.run is not None:
            return False
        messages = self.store.messages(self.conversation_id)
        if message_id is None:
            replies = [m for m in messages if m.role == "assistant"]
            if not replies:
                return False
            message_id = replies[-1].id
        target = self.store.message(message_id)
        if target.parent_id is None:
            return False
        return self._start_reply(self.conversation_id, target.parent_id)

    def continue_reply(self, message_id: int | None = None) -> bool:
        """Let the model go on with a reply cut at the token limit or stopped."""
        if self.conversation_id is None or self.run is not None:
            return False
        messages = self.store.messages(self.conversation_id)
        if not messages or messages[-1].role != "assistant":
            return False
        if message_id is not None and messages[-1].id != message_id:
            return False
        return self._start_reply(self.conversation_id, None, continue_message=messages[-1])

    # -- chatting ----------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.run is not None

    def send(self, text: str) -> bool:
        """Send ``text`` as the user's next message; False when it cannot be sent now."""
        text = text.strip("\n")
        if not text.strip() or self.run is not None:
            return False
        if self.model is None:
            self.show_error(self.tr("Choose a model first: pick one above, or open a .gguf file."))
            return False
        self.error_banner.dismiss()
        editing = self.editing
        try:
            if self.conversation_id is None:
                conversation = self.store.create_conversation(
                    model=self.model.name, system_prompt=self.pending_system_prompt
                )
                if self.pending_settings:
                    self.store.set_conversation_settings(
                        conversation.id, self.pending_system_prompt, self.pending_settings
                    )
                self.conversation_id = conversation.id
            if editing is not None and editing.conversation_id == self.conversation_id:
                user_id = self.store.add_message(
                    self.conversation_id, "user", text, parent_id=editing.parent_id
                )
            else:
                user_id = self.store.add_message(self.conversation_id, "user", text)
        except Exception as exc:  # noqa: BLE001 - e.g. disk full: say so, keep the text
            self.report(exc, self.tr("saving your message"))
            return False
        self.editing = None
        self.edit_label.hide()
        self.composer.clear()
        if editing is None:
            self.transcript.append_message(self.store.message(user_id))
        return self._start_reply(self.conversation_id, user_id, shown=editing is None)

    def _start_reply(
        self,
        conversation_id: int,
        user_id: int | None,
        continue_message: st.Message | None = None,
        shown: bool = False,
    ) -> bool:
        """Stream a reply to ``user_id`` (or go on with ``continue_message``)."""
        if self.model is None:
            self.show_error(self.tr("Choose a model first: pick one above, or open a .gguf file."))
            return False
        model = self.model
        conversation = self.store.conversation(conversation_id)
        try:
            if continue_message is not None:
                message_id = continue_message.id
                self.store.update_message(message_id, status=st.STREAMING, error="")
                path = self.store.messages(conversation_id)
            else:
                assert user_id is not None
                message_id = self.store.add_message(
                    conversation_id,
                    "assistant",
                    "",
                    status=st.STREAMING,
                    model=model.name,
                    parent_id=user_id,
                )
                path = self.store.messages(conversation_id)[:-1]
        except Exception as exc:  # noqa: BLE001
            self.report(exc, self.tr("saving the reply"))
            return False
        recorder = ReplyRecorder(self.store, message_id)
        if continue_message is not None:
            recorder.text = continue_message.content
            recorder.reasoning = continue_message.reasoning
        messages = engine_messages(
            path,
            conversation.system_prompt,
            include_reasoning=bool(self.core.settings.get("chat.send_reasoning")),
        )
        watcher = JobWatcher(self)
        self.run = ChatRun(conversation_id, message_id, model, watcher, recorder)
        self.refresh_conversations()
        if shown:
            self.transcript.begin_reply(model.name)
        else:
            self.show_conversation()
        watcher.text.connect(self._reply_text)
        watcher.reasoning.connect(self._reply_reasoning)
        watcher.progress.connect(self._load_progress)
        watcher.loaded.connect(self._model_ready)
        watcher.notice.connect(self.show_error)
        watcher.stats.connect(self._reply_stats)
        watcher.finished.connect(self._finish_run)
        self._set_busy(True)
        self._usage_timer.start()  # first reading after a second: nothing slow on send
        values = self.conversation_values(conversation)
        params = {**engine_params(values), **self.sampling_overrides}
        spec = self.core.model_spec(model, n_ctx=int(values["engine.context_length"]))
        job = self.client.chat(
            spec, messages, params, watcher.callback, continue_reply=continue_message is not None
        )
        watcher.watch(job)
        self._flush_timer.start()
        return True

    def conversation_values(self, conversation: st.Conversation | None = None) -> dict[str, Any]:
        """The sampling values a reply in ``conversation`` uses (see ``app.chat.presets``)."""
        own = conversation.settings if conversation is not None else self.pending_settings
        return effective_values(self.core.settings, self._model_advice(), own)

    def _model_advice(self) -> dict[str, Any]:
        """The chosen model's recommended sampling: read once per model on a background
        thread (a GGUF's metadata takes tens of milliseconds to parse); {} until then."""
        if self.model is None:
            return {}
        key = str(self.model.path)
        if key not in self._recommended:
            self._recommended[key] = {}
            from ui.background import run_in_background

            entry = self.model
            run_in_background(
                self,
                lambda: recommended_sampling(entry),
                lambda advice: self._recommended.__setitem__(key, advice),
                lambda exc: log.warning("no recommended settings for %s: %s", key, exc),
            )
        return self._recommended[key]

    def _reply_text(self, text: str) -> None:
        run = self.run
        if run is None or run.stopping:
            return
        self._apply_pieces(run, run.splitter.feed(text))

    def _reply_reasoning(self, text: str) -> None:
        run = self.run
        if run is not None and not run.stopping:
            self._apply_pieces(run, [(REASONING, text)])

    def _apply_pieces(self, run: ChatRun, pieces: list[tuple[str, str]]) -> None:
        """Answer and thinking go to the store and, if this chat is shown, the transcript."""
        shown = self.conversation_id == run.conversation_id
        now = time.monotonic()
        for kind, piece in pieces:
            if kind == REASONING:
                run.think_started = run.think_started or now
                self._save(run, partial(run.recorder.append_reasoning, piece))
                if shown:
                    self.transcript.append_reasoning(piece)
            elif kind == RETRO:
                run.recorder.answer_was_reasoning()
                if shown:
                    self.transcript.answer_was_reasoning()
            else:
                if run.think_started and run.thinking_s is None and piece.strip():
                    run.thinking_s = round(now - run.think_started, 1)
                self._save(run, partial(run.recorder.append, piece))
                if shown:
                    self.transcript.append_stream(piece)

    def _save(self, run: ChatRun, write: Callable[[], None]) -> None:
        """Save streamed text; a failure (disk full) is said once and streaming goes on."""
        try:
            write()
        except Exception as exc:  # noqa: BLE001
            if not run.save_failed:
                run.save_failed = True
                self.report(exc, self.tr("saving the reply"))

    def _reply_stats(self, stats: dict[str, Any]) -> None:
        if self.run is not None:
            self.run.stats = {k: v for k, v in stats.items() if k not in ("type", "id")}
            self.stats_label.setText(stats_text(self.run.stats))

    def _flush_reply(self) -> None:
        run = self.run
        if run is not None and not run.save_failed:
            try:
                run.recorder.flush_if_due()
            except Exception as exc:  # noqa: BLE001
                run.save_failed = True
                self.report(exc, self.tr("saving the reply"))

    def escape(self) -> None:
        """Esc: stop the reply, else leave editing a message."""
        if self.run is not None:
            self.stop()
        elif self.editing is not None:
            self.cancel_edit()

    def stop(self) -> None:
        """Stop the reply now: no more text is shown or saved; the engine is told at once."""
        run = self.run
        if run is None or run.stopping:
            return
        run.stopping = True
        self.stop_button.setEnabled(False)
        if run.watcher.job is not None:
            run.watcher.job.cancel()

    def _finish_run(self, final: dict[str, Any]) -> None:
        run = self.run
        if run is None:
            return
        if not run.stopping:
            self._apply_pieces(run, run.splitter.finish())
        self.run = None
        run.watcher.deleteLater()
        self._flush_timer.stop()
        self._usage_timer.stop()
        status = (
            st.STOPPED if run.stopping and final.get("type") == protocol.DONE else status_for(final)
        )
        error = from_wire(final) if final.get("type") == protocol.ERROR else ""
        if run.think_started:
            seconds = run.thinking_s
            if seconds is None:
                seconds = round(time.monotonic() - run.think_started, 1)
            run.stats["thinking_s"] = seconds
        try:
            run.recorder.finish(status, run.stats, error)
        except Exception as exc:  # noqa: BLE001
            self.report(exc, self.tr("saving the reply"))
        if self.conversation_id == run.conversation_id:
            try:
                message = self.store.message(run.message_id)
            except (KeyError, sqlite3.Error):
                message = None
            self.transcript.end_reply(status, run.stats, error, message)
            if run.message_id in self.store.branches(run.conversation_id):
                self.show_conversation()  # a new version: its ‹ n/m › appears at once
            self._update_context_meter(stats=run.stats)
        if error:
            self.show_error(error)
            self.model_status.setText(
                self.tr("Not loaded")
                if final.get("kind") == protocol.ERR_WORKER_DIED
                else self.model_status.full_text()
            )
        self._set_busy(False)
        self.refresh_conversations()
        self.reply_finished.emit({**final, "status": status, "message_id": run.message_id})
        if final.get("kind") == protocol.ERR_NEEDS_REMOTE_CODE:
            self.ask_remote_code_consent(run.model)

    def _update_context_meter(
        self, messages: list[st.Message] | None = None, stats: dict[str, Any] | None = None
    ) -> None:
        conversation = (
            self.store.conversation(self.conversation_id)
            if self.conversation_id is not None
            else None
        )
        window = int(
            self.loaded_context or self.conversation_values(conversation)["engine.context_length"]
        )
        if stats and isinstance(stats.get("prompt_tokens"), int):
            used = int(stats["prompt_tokens"]) + int(stats.get("generated_tokens") or 0)
            exact = True
        else:
            if messages is None:
                messages = self.store.messages(self.conversation_id) if self.conversation_id else []
            system = conversation.system_prompt if conversation else self.pending_system_prompt
            characters = len(system) + sum(len(m.content) for m in messages)
            used = round(characters / CHARACTERS_PER_TOKEN)
            exact = False
        self.context_meter.show_usage(used, window, exact)

    def ask_remote_code_consent(self, entry: ModelEntry) -> bool:
        """Show which code a checkpoint wants to run; remember a yes for exactly that code."""
        from app.core import code_fingerprint

        files = sorted(p.name for p in entry.path.glob("*.py"))
        preview = []
        for name in files[:3]:
            lines = (entry.path / name).read_text(encoding="utf-8", errors="replace").splitlines()
            preview.append(f"--- {name} ({len(lines)} lines) ---\n" + "\n".join(lines[:12]))
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(self.tr("Run this model's own code?"))
        code = ", ".join(files) or "files named in its config"
        box.setText(
            self.tr(
                "{0} comes with Python code ({1}) that transformers would run on your computer "
                "with your permissions. Allow it only if you trust where the model comes from. "
                "Hearth remembers your answer for exactly this code; if the files change, it asks "
                "again."
            ).format(entry.name, code)
        )
        box.setDetailedText("\n\n".join(preview))
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        if box.exec() != QMessageBox.StandardButton.Yes:
            return False
        choice = self.core.overrides.get(str(entry.path))
        choice.trusted_code = code_fingerprint(entry.path)
        self.core.overrides.set(str(entry.path), choice)
        self.show_error(
            self.tr("Allowed. Send your message again to load the model with its code.")
        )
        return True

    def _set_busy(self, busy: bool) -> None:
        self.send_button.setVisible(not busy)
        self.stop_button.setVisible(busy)
        self.stop_button.setEnabled(busy)
        self.model_picker.setEnabled(not busy)
        self.open_model_button.setEnabled(not busy)
        self.model_settings_button.setEnabled(not busy)
        if not busy:
            self.composer.setFocus()

    # -- closing -----------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        self.closed = True
        self._save_window_state()
        run = self.run
        if run is not None:
            self.run = None
            run.stopping = True
            try:
                run.recorder.finish(st.STOPPED, run.stats)
            except Exception:
                log.exception("could not save the reply while closing")
        if self.api_server is not None:
            self.api_server.stop()
        self.client.close(timeout=3.0)
        self.downloads.close()
        self.store.close()
        super().closeEvent(event)
