"""Tool servers…: the MCP servers Hearth may start for chats, and the tools always allowed.

Servers are added from the ``mcpServers`` JSON that Claude Desktop, Cursor and LM Studio
write (pasted, or read from a file); a key in a header goes to the system keyring, never
into ``tools.json``.  A server can be turned off or removed; an *Always allow* can be
taken back.  A server's own network use is its own: Hearth starts it when a chat that may
use it needs it, and once right after it is added, to say whether it starts and which
tools it offers (in the background: starting a server can take seconds, never the
window's); that check's server stops again.  A server's words (its name, its tools, why it
failed) are shown with their control and bidi characters as escapes.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.tools.config import ConfigProblem, ServerConfig, ToolsFile, read_servers, split_secrets
from app.tools.servers import ToolInfo, ToolServerError, ToolServers
from ui.background import run_in_background
from ui.i18n import translated
from ui.screen_fit import fit_to_screen
from wire.phrases import message_of
from wire.visible_text import visible

EXAMPLE = '{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}'
CHECK_TIMEOUT_S = 60.0  # listing a server's tools, once it is added
SHOWN_TOOLS = 8  # tools named in a server's line; the rest are counted


def check_server(config: ServerConfig, logs_dir: Path) -> list[ToolInfo]:
    """Start ``config`` on its own, list its tools and stop it (in a background thread)."""
    servers = ToolServers([config], logs_dir)
    try:
        return servers.tools(config.name).result(CHECK_TIMEOUT_S)
    finally:
        servers.close()


class ToolServersDialog(QDialog):
    def __init__(
        self, file: ToolsFile, parent: QWidget | None = None, logs_dir: Path | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("toolServersDialog")
        self.file = file
        self.logs_dir = logs_dir  # where a checked server's stderr goes (None: no check)
        self.status: dict[str, str] = {}  # what the check after Add found, by server name
        self.setWindowTitle(self.tr("Tool servers"))
        layout = QVBoxLayout(self)
        intro = QLabel(
            self.tr(
                "MCP servers give the model tools. Hearth starts a server once when you add "
                "it, to list its tools, and then when a chat that may use it needs it (choose "
                "them with Tools under the message box), and asks you before every call. A "
                "server's own network use is its own."
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.server_list = QListWidget()
        self.server_list.setAccessibleName(self.tr("Tool servers"))
        # A long command is shortened in its middle, never hidden behind a scroll bar.
        self.server_list.setWordWrap(True)
        self.server_list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.server_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.server_list.itemChanged.connect(self._enabled_changed)
        layout.addWidget(self.server_list)
        row = QHBoxLayout()
        self.remove_button = QPushButton(self.tr("Remove"))
        self.remove_button.clicked.connect(self.remove_selected)
        row.addWidget(self.remove_button)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addWidget(QLabel(self.tr("Add servers: paste their mcpServers JSON")))
        self.paste = QPlainTextEdit()
        self.paste.setPlaceholderText(EXAMPLE)
        self.paste.setAccessibleName(self.tr("mcpServers JSON to add"))
        self.paste.setMinimumHeight(self.paste.fontMetrics().lineSpacing() * 4)
        self.paste.setMaximumHeight(self.paste.fontMetrics().lineSpacing() * 8)
        layout.addWidget(self.paste)
        adding = QHBoxLayout()
        self.add_button = QPushButton(self.tr("Add"))
        self.add_button.clicked.connect(self.add_pasted)
        self.open_button = QPushButton(self.tr("Open a file…"))
        self.open_button.clicked.connect(self.add_from_file)
        adding.addWidget(self.add_button)
        adding.addWidget(self.open_button)
        adding.addStretch(1)
        layout.addLayout(adding)
        self.problem = QLabel()
        self.problem.setObjectName("toolServersProblem")
        self.problem.setWordWrap(True)
        self.problem.hide()
        layout.addWidget(self.problem)
        layout.addWidget(QLabel(self.tr("Always allowed (no question before a call):")))
        self.allowed_list = QListWidget()
        self.allowed_list.setAccessibleName(self.tr("Tools always allowed"))
        self.allowed_list.setMaximumHeight(100)
        layout.addWidget(self.allowed_list)
        self.forget_button = QPushButton(self.tr("Ask again"))
        self.forget_button.clicked.connect(self.forget_selected)
        layout.addWidget(self.forget_button, 0, Qt.AlignmentFlag.AlignLeft)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.refresh()
        self.resize(QSize(680, 560))
        fit_to_screen(self)

    def refresh(self) -> None:
        config = self.file.load()
        self.server_list.blockSignals(True)
        self.server_list.clear()
        for server in config.servers:
            line = f"{visible(server.name)} — {visible(server.describe())}"
            status = self.status.get(server.name)
            item = QListWidgetItem(f"{line}\n{status}" if status else line)
            item.setToolTip(line)
            item.setData(Qt.ItemDataRole.UserRole, server.name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if server.enabled else Qt.CheckState.Unchecked)
            self.server_list.addItem(item)
        self.server_list.blockSignals(False)
        self.allowed_list.clear()
        for key in sorted(config.always_allow):
            allowed = QListWidgetItem(visible(key))
            allowed.setData(Qt.ItemDataRole.UserRole, key)
            self.allowed_list.addItem(allowed)
        if self.file.problem:
            self.say(self.file.problem)

    def say(self, text: str) -> None:
        self.problem.setText(visible(translated(text), multiline=True))
        self.problem.setVisible(bool(text))

    def add_pasted(self) -> bool:
        return self.add(self.paste.toPlainText().encode("utf-8"))

    def add_from_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Add tool servers"), "", self.tr("JSON (*.json);;All files (*)")
        )
        if path:
            try:
                self.add(Path(path).read_bytes())
            except OSError as exc:
                self.say(self.tr("Hearth could not read {0} ({1}).").format(path, exc.strerror))

    def add(self, raw: bytes) -> bool:
        """Add the servers of an ``mcpServers`` JSON; a problem is one sentence here."""
        try:
            servers, secrets = split_secrets(read_servers(raw))
            config = self.file.add(servers, secrets)
        except ConfigProblem as exc:
            self.say(message_of(exc))
            return False
        except Exception as exc:  # noqa: BLE001 - the keyring or the disk: say so
            self.say(message_of(exc))
            return False
        self.paste.clear()
        self.say("")
        added = {server.name for server in servers}
        for server in config.servers:
            if server.name in added and server.enabled:
                self.check(server)
        self.refresh()
        return True

    def check(self, server: ServerConfig) -> None:
        """Start the server just added, in the background, and say what came of it in its
        line: its tools, or why it did not start."""
        if self.logs_dir is None:
            return
        name, logs_dir = server.name, self.logs_dir
        self.status[name] = self.tr("starting…")

        def started(tools: list[ToolInfo]) -> None:
            names = [visible(tool.name) for tool in tools[:SHOWN_TOOLS]]
            more = ", …" if len(tools) > SHOWN_TOOLS else ""
            self.status[name] = (
                self.tr("started, {0} tools: {1}").format(len(tools), ", ".join(names) + more)
                if tools
                else self.tr("started, but it offers no tools")
            )
            self.refresh()

        def failed(exc: BaseException) -> None:
            if isinstance(exc, ToolServerError):
                reason = translated(message_of(exc))
            elif isinstance(exc, TimeoutError):
                reason = self.tr("it did not list its tools within {0:g} s").format(CHECK_TIMEOUT_S)
            else:
                reason = str(exc) or type(exc).__name__
            said = visible(reason, multiline=True)
            self.status[name] = self.tr("did not start: {0}").format(said)
            self.refresh()

        run_in_background(self, lambda: check_server(server, logs_dir), started, failed)

    def _selected_name(self) -> str | None:
        chosen = self.server_list.selectedItems()
        return str(chosen[0].data(Qt.ItemDataRole.UserRole)) if chosen else None

    def remove_selected(self) -> None:
        name = self._selected_name()
        if name is None:
            return
        self.file.remove(name)
        self.refresh()

    def _enabled_changed(self, item: QListWidgetItem) -> None:
        from dataclasses import replace

        name = str(item.data(Qt.ItemDataRole.UserRole))
        on = item.checkState() == Qt.CheckState.Checked
        config = self.file.load()
        config.servers = [replace(s, enabled=on) if s.name == name else s for s in config.servers]
        self.file.save(config)

    def forget_selected(self) -> None:
        chosen = self.allowed_list.selectedItems()
        if not chosen:
            return
        config = self.file.load()
        config.always_allow.discard(str(chosen[0].data(Qt.ItemDataRole.UserRole)))
        self.file.save(config)
        self.refresh()
