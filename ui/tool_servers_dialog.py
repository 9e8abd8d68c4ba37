"""Tool servers…: the MCP servers Hearth may start for chats, and the tools always allowed.

Servers are added from the ``mcpServers`` JSON that Claude Desktop, Cursor and LM Studio
write (pasted, or read from a file); a key in a header goes to the system keyring, never
into ``tools.json``.  A server can be turned off or removed; an *Always allow* can be
taken back.  A server's own network use is its own: Hearth starts it only when a chat
that may use it needs it.  Nothing here starts a server.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
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

from app.tools.config import ConfigProblem, ToolsFile, read_servers, split_secrets
from ui.i18n import translated
from wire.phrases import message_of

EXAMPLE = '{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}'


class ToolServersDialog(QDialog):
    def __init__(self, file: ToolsFile, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolServersDialog")
        self.file = file
        self.setWindowTitle(self.tr("Tool servers"))
        layout = QVBoxLayout(self)
        intro = QLabel(
            self.tr(
                "MCP servers give the model tools. Hearth starts a server only when a chat "
                "that may use it needs it (choose them with Tools under the message box), "
                "and asks you before every call. A server's own network use is its own."
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.server_list = QListWidget()
        self.server_list.setAccessibleName(self.tr("Tool servers"))
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
        self.paste.setMaximumHeight(110)
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

    def refresh(self) -> None:
        config = self.file.load()
        self.server_list.blockSignals(True)
        self.server_list.clear()
        for server in config.servers:
            item = QListWidgetItem(f"{server.name} — {server.describe()}")
            item.setData(Qt.ItemDataRole.UserRole, server.name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if server.enabled else Qt.CheckState.Unchecked)
            self.server_list.addItem(item)
        self.server_list.blockSignals(False)
        self.allowed_list.clear()
        self.allowed_list.addItems(sorted(config.always_allow))
        if self.file.problem:
            self.say(self.file.problem)

    def say(self, text: str) -> None:
        self.problem.setText(translated(text))
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
            self.file.add(servers, secrets)
        except ConfigProblem as exc:
            self.say(message_of(exc))
            return False
        except Exception as exc:  # noqa: BLE001 - the keyring or the disk: say so
            self.say(message_of(exc))
            return False
        self.paste.clear()
        self.say("")
        self.refresh()
        return True

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
        config.always_allow.discard(chosen[0].text())
        self.file.save(config)
        self.refresh()
