"""The API server panel (Chat › API server…): Hearth's local API for other programs.

On and off, where it listens (Settings › API server: the same address and port are
``hearth serve``'s defaults), the key it asks for (kept in the key store, shown, copied
or made new here), its status with the address and the models it offers, and examples to
copy for curl, the OpenAI client, Ollama clients and MCP clients, written from what the
server really is.  A port in use is said in words, with a button that picks a free one.
Not modal: the chat goes on beside it.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QTimer, SignalInstance
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.errors import HearthError, describe_error
from app.paths import default_data_dir
from app.secrets import get_token, set_token
from app.serve.config import PortTaken, ServerConfig, free_port
from app.serve.examples import base_url, examples, reachable_from_others
from app.settings import Settings, highest, lowest
from ui.dialog_parts import open_once
from ui.i18n import translated
from ui.screen_fit import fit_to_screen
from ui.theme import problem_style
from ui.wheel_guard import guard_fields

KEY_SOURCE = "serve"  # the key store's name for it, as `hearth serve` reads it
EXAMPLE_NOTES = {
    "curl": QT_TRANSLATE_NOOP("ApiServerDialog", "A request in OpenAI's dialect, from a terminal."),
    "openai": QT_TRANSLATE_NOOP(
        "ApiServerDialog", "With OpenAI's library for Python (pip install openai)."
    ),
    "ollama": QT_TRANSLATE_NOOP(
        "ApiServerDialog",
        "With Ollama's library for Python (pip install ollama). Apps that take an Ollama "
        "address (Open WebUI, editors' plug-ins) use {0}.",
    ),
    "mcp": QT_TRANSLATE_NOOP(
        "ApiServerDialog",
        "Your document collections for an MCP client (Claude Desktop, Cursor, LM Studio): "
        "add this to its mcpServers. It runs hearth mcp, which only searches them.",
    ),
}
EXAMPLE_TITLES = {
    "curl": "curl",
    "openai": QT_TRANSLATE_NOOP("ApiServerDialog", "OpenAI client (Python)"),
    "ollama": QT_TRANSLATE_NOOP("ApiServerDialog", "Ollama clients"),
    "mcp": QT_TRANSLATE_NOOP("ApiServerDialog", "MCP clients"),
}


class Api(Protocol):
    """What the panel uses of the window's API (``ui.server.switch.ApiSwitch``)."""

    changed: SignalInstance
    models: Any  # the model bar: the chosen model names the examples' model

    @property
    def running(self) -> bool: ...
    def address(self) -> tuple[str, int]: ...
    def offered(self) -> list[str]: ...
    def start(self, port: int | None = None) -> None: ...
    def set(self, on: bool, port: int | None = None) -> None: ...


def open_panel(api: Api, settings: Settings, logs_dir: str, parent: QWidget) -> None:
    """Chat › API server…: the panel, raised when it is open already.  A port another
    program holds is said at once, with Use a free port."""
    open_once(parent, ApiServerDialog, lambda: ApiServerDialog(api, settings, logs_dir, parent))
    panel = parent.findChild(ApiServerDialog)
    if panel is not None:
        panel.check_port()


class ApiServerDialog(QDialog):
    def __init__(
        self, api: Api, settings: Settings, logs_dir: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("API server"))
        self.setObjectName("apiServerDialog")
        self.api, self.settings, self.logs_dir = api, settings, logs_dir
        layout = QVBoxLayout(self)
        intro = QLabel(
            self.tr(
                "Other programs on this computer (editors, agents, scripts) can use your "
                "models through Hearth, in OpenAI's, Ollama's and Anthropic's dialects. "
                "Nothing leaves the computer unless you choose an address for other computers."
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        top = QHBoxLayout()
        self.switch = QPushButton()
        self.switch.setObjectName("apiSwitch")
        self.switch.setCheckable(True)
        self.switch.clicked.connect(self._switched)
        self.status = QLabel()
        self.status.setObjectName("apiStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        top.addWidget(self.switch, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.status, 1)
        layout.addLayout(top)
        self.problem = QLabel()
        self.problem.setObjectName("apiProblem")
        self.problem.setWordWrap(True)
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.setStyleSheet(problem_style())
        self.free_button = QPushButton(self.tr("Use a free port"))
        self.free_button.setObjectName("freePortButton")
        self.free_button.clicked.connect(self._use_free_port)
        # The row keeps its height, shown or not: when a warning went, everything under
        # it moved up, and a click aimed at New key landed on the examples' tabs.
        self.problem_row = QWidget()
        self.problem_row.setObjectName("apiProblemRow")
        problem_row = QHBoxLayout(self.problem_row)
        problem_row.setContentsMargins(0, 0, 0, 0)
        problem_row.addWidget(self.problem, 1)
        problem_row.addWidget(self.free_button, 0, Qt.AlignmentFlag.AlignTop)
        for part in (self.problem, self.free_button):
            policy = part.sizePolicy()
            policy.setRetainSizeWhenHidden(True)
            part.setSizePolicy(policy)
        lines = self.problem.fontMetrics().lineSpacing() * 2
        self.problem_row.setMinimumHeight(max(lines, self.free_button.sizeHint().height()))
        layout.addWidget(self.problem_row)
        self.problem.hide()
        self.free_button.hide()

        form = QFormLayout()
        self.host = QLineEdit(str(settings.get("server.host")))
        self.host.setObjectName("apiHost")
        self.host.setAccessibleName(self.tr("Address"))
        self.host.setToolTip(
            self.tr(
                "127.0.0.1: only this computer. 0.0.0.0: every network of this computer "
                "(then a key is required)."
            )
        )
        self.port = QSpinBox()
        self.port.setObjectName("apiPort")
        self.port.setAccessibleName(self.tr("Port"))
        self.port.setRange(int(lowest("server.port")), int(highest("server.port")))
        self.port.setValue(int(settings.get("server.port")))
        form.addRow(self.tr("Address"), self.host)
        form.addRow(self.tr("Port"), self.port)
        key_row = QHBoxLayout()
        self.key = QLineEdit()
        self.key.setObjectName("apiKey")
        self.key.setAccessibleName(self.tr("API key"))
        self.key.setReadOnly(True)
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText(self.tr("none: programs on this computer need no key"))
        self.show_key = QPushButton(self.tr("Show"))
        self.show_key.setCheckable(True)
        self.show_key.toggled.connect(self._show_key)
        self.copy_key = QPushButton(self.tr("Copy"))
        self.copy_key.clicked.connect(lambda: self._copy(self.key.text(), self.copy_key))
        self.new_key = QPushButton(self.tr("New key"))
        self.new_key.setObjectName("newKeyButton")
        self.new_key.clicked.connect(self._make_key)
        self.remove_key = QPushButton(self.tr("Remove"))
        self.remove_key.clicked.connect(self._remove_key)
        for widget in (self.key, self.show_key, self.copy_key, self.new_key, self.remove_key):
            key_row.addWidget(widget, 1 if widget is self.key else 0)
        form.addRow(self.tr("API key"), key_row)
        layout.addLayout(form)

        self.examples = QTabWidget()
        self.examples.setObjectName("apiExamples")
        self.examples.tabBar().setAccessibleName(self.tr("Examples"))
        self.example_texts: dict[str, QPlainTextEdit] = {}
        self.example_notes: dict[str, QLabel] = {}
        code_font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        for key, title in EXAMPLE_TITLES.items():
            page = QWidget()
            column = QVBoxLayout(page)
            note = QLabel()
            note.setWordWrap(True)
            column.addWidget(note)
            self.example_notes[key] = note
            text = QPlainTextEdit()
            text.setObjectName("codeExample")  # code: never translated
            text.setReadOnly(True)
            text.setFont(code_font)
            text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
            text.setAccessibleName(QCoreApplication.translate("ApiServerDialog", str(title)))
            copy = QPushButton(self.tr("Copy"))
            copy.clicked.connect(lambda _c=False, t=text, b=copy: self._copy(t.toPlainText(), b))
            column.addWidget(text, 1)
            column.addWidget(copy, 0, Qt.AlignmentFlag.AlignRight)
            self.example_texts[key] = text
            self.examples.addTab(page, QCoreApplication.translate("ApiServerDialog", str(title)))
        layout.addWidget(self.examples, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.host.editingFinished.connect(self._save_address)
        self.port.valueChanged.connect(lambda _v: self._save_address())
        api.changed.connect(self.refresh)
        guard_fields(self)  # the port never changes under a stray wheel turn
        self.resize(720, 640)
        fit_to_screen(self)
        self._load_key()
        self.refresh()

    # -- state ---------------------------------------------------------------------------
    def refresh(self) -> None:
        running = self.api.running
        host, port = self.api.address()
        self.switch.setChecked(running)
        self.switch.setText(self.tr("Stop") if running else self.tr("Start"))
        self.switch.setAccessibleName(
            self.tr("Stop the API server") if running else self.tr("Start the API server")
        )
        for editor in (self.host, self.port):
            editor.setEnabled(not running)  # the address changes while it is stopped
        url = base_url(host, port)
        if running:
            names = self.api.offered()
            shown = ", ".join(names[:8]) + (", …" if len(names) > 8 else "")
            words = self.tr(
                "Running at {0}/v1 (Ollama's dialect at {0}). Models offered ({1}): {2}."
            )
            status = words.format(url, len(names), shown)
            if reachable_from_others(host):
                status += " " + self.tr("Other computers reach it at this computer's address.")
            self.status.setText(status)
        else:
            self.status.setText(self.tr("Stopped. Start makes it listen at {0}/v1.").format(url))
        chosen = self.api.models.model
        model = (self.api.offered() or [chosen.name if chosen is not None else "hearth"])[0]
        keyed = bool(self.key.text())
        data_dir = Path(self.logs_dir).parent  # the logs live in the data folder
        moved = str(data_dir) if data_dir != default_data_dir() else None
        for example in examples(host, port, model, keyed, moved):
            self.example_texts[example.key].setPlainText(example.text)
            note = QCoreApplication.translate("ApiServerDialog", str(EXAMPLE_NOTES[example.key]))
            if keyed and example.key != "mcp":
                note += " " + self.tr(
                    "The key is read from HEARTH_API_KEY: set it to the key above."
                )
            self.example_notes[example.key].setText(note.format(url))

    def _switched(self, on: bool) -> None:
        self._say("")
        if not on:
            self.api.set(False)
            return
        self._save_address()
        try:
            self.api.start()
        except PortTaken:
            self._say_port_taken(*self.api.address())
        except HearthError as exc:
            self._say(translated(describe_error(exc, self.tr("starting the API"), self.logs_dir)))
        except Exception as exc:  # noqa: BLE001 - the one error path: logged, then said
            self._say(translated(describe_error(exc, self.tr("starting the API"), self.logs_dir)))
        self.refresh()

    def check_port(self) -> None:
        """While stopped: say now when the chosen port is in use (a bind, no waiting)."""
        if self.api.running:
            return
        host, port = self.api.address()
        try:
            ServerConfig(host=host, port=port).check_port()
        except PortTaken:
            self._say_port_taken(host, port)
        except HearthError:
            pass  # anything else is said by Start, with its cause

    def _say_port_taken(self, host: str, port: int) -> None:
        self._say(
            self.tr("Port {0} is already in use on {1}: another program listens there.").format(
                port, host
            ),
            free_port=True,
        )

    def _say(self, words: str, free_port: bool = False) -> None:
        self.problem.setText(words)
        self.problem.setVisible(bool(words))
        self.free_button.setVisible(free_port)

    def _use_free_port(self) -> None:
        try:
            port = free_port(self.host.text().strip() or "127.0.0.1", self.port.value())
        except (HearthError, OSError) as exc:
            self._say(
                translated(describe_error(exc, self.tr("finding a free port"), self.logs_dir))
            )
            return
        self.port.setValue(port)  # saved in Settings too
        self._say("")

    def _save_address(self) -> None:
        host = self.host.text().strip() or "127.0.0.1"
        try:
            if host != self.settings.get("server.host"):
                self.settings.set("server.host", host)
            if self.port.value() != self.settings.get("server.port"):
                self.settings.set("server.port", self.port.value())
        except (OSError, ValueError) as exc:
            self._say(translated(describe_error(exc, self.tr("saving the address"), self.logs_dir)))
        if not self.api.running:
            self.refresh()

    # -- the key -------------------------------------------------------------------------
    def _load_key(self) -> None:
        self.key.setText(get_token(KEY_SOURCE) or "")
        self._key_buttons()

    def _key_buttons(self) -> None:
        has = bool(self.key.text())
        for button in (self.show_key, self.copy_key, self.remove_key):
            button.setEnabled(has)

    def _make_key(self) -> None:
        self._store_key(f"hearth-{secrets.token_urlsafe(24)}")

    def _remove_key(self) -> None:
        self._store_key("")

    def _store_key(self, key: str) -> None:
        try:
            set_token(KEY_SOURCE, key)
        except HearthError as exc:
            self._say(translated(describe_error(exc, self.tr("saving the key"), self.logs_dir)))
            return
        self.key.setText(key)
        self._key_buttons()
        if self.api.running:
            self._say(self.tr("The new key is used once the server starts again (Stop, Start)."))
        self.refresh()

    def _show_key(self, shown: bool) -> None:
        self.key.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        self.show_key.setText(self.tr("Hide") if shown else self.tr("Show"))

    def _copy(self, text: str, button: QPushButton) -> None:
        """Copy, and say so on the button that was pressed."""
        QGuiApplication.clipboard().setText(text)
        label = str(button.property("label") or button.text())
        button.setProperty("label", label)
        button.setText(self.tr("Copied"))
        restore: Callable[[], None] = lambda: button.setText(label)  # noqa: E731
        QTimer.singleShot(1500, button, restore)
