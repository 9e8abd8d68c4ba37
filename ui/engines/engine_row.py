"""One engine or runtime on Settings › Engines: its name and kind, whether it is installed
and usable here (or why not, in one sentence), its version, variant and size, and the
actions it offers (``app.packs.engine_list.EngineEntry.actions``), asked for by signal."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from app.packs.engine_list import (
    DELETE_DOWNLOAD,
    ENGINE_KIND,
    INSTALL,
    REINSTALL,
    REMOVE,
    ROLL_BACK,
    RUNTIME_KIND,
    EngineEntry,
)
from app.packs.fetch import amount
from ui.i18n import translated
from ui.theme import warning_style
from ui.visual import SPACE, scaled_font
from wire.engine_overlay import PYTORCH

KIND_WORDS = {
    ENGINE_KIND: QT_TRANSLATE_NOOP("EngineRow", "engine for Hugging Face checkpoints"),
    RUNTIME_KIND: QT_TRANSLATE_NOOP("EngineRow", "llama.cpp runtime that comes with Hearth"),
}
PACK_WORDS = QT_TRANSLATE_NOOP("EngineRow", "llama.cpp runtime pack ({0})")
BUILDS = {"cuda": "CUDA", "vulkan": "Vulkan", "cpu": "CPU", "metal": "Metal"}
# The PyTorch engine's Install asks which variant first, hence the ellipsis; a pack's does not.
ACTION_WORDS = {
    INSTALL: QT_TRANSLATE_NOOP("EngineRow", "Install"),
    REINSTALL: QT_TRANSLATE_NOOP("EngineRow", "Reinstall"),
    REMOVE: QT_TRANSLATE_NOOP("EngineRow", "Remove…"),
    ROLL_BACK: QT_TRANSLATE_NOOP("EngineRow", "Roll back"),
    DELETE_DOWNLOAD: QT_TRANSLATE_NOOP("EngineRow", "Delete download"),
}
ASKS_FIRST = {
    INSTALL: QT_TRANSLATE_NOOP("EngineRow", "Install…"),
    REINSTALL: QT_TRANSLATE_NOOP("EngineRow", "Reinstall…"),
}


def engine_title(name: str) -> str:
    """What the page calls an engine in a sentence: "the PyTorch engine", "the cuda-12
    runtime"."""
    if name == PYTORCH:
        return QCoreApplication.translate("EngineRow", "the PyTorch engine")
    return QCoreApplication.translate("EngineRow", "the {0} runtime").format(name)


class EngineRowView(QFrame):
    requested = Signal(str, str)  # the engine's name, the action (engine_list's words)

    def __init__(self, entry: EngineEntry) -> None:
        super().__init__()
        self.entry = entry
        self.setObjectName(f"engine:{entry.name}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(SPACE["m"], SPACE["s"], SPACE["m"], SPACE["s"])
        layout.setSpacing(SPACE["xs"])
        top = QHBoxLayout()
        title = self.tr("PyTorch engine") if entry.name == PYTORCH else entry.name
        self.name = QLabel(title)
        self.name.setFont(scaled_font(self.name.font(), "body", bold=True))
        kind = self.kind_words(entry.kind)
        self.kind = QLabel(kind)
        self.kind.setForegroundRole(QPalette.ColorRole.PlaceholderText)  # muted, still 4.5:1
        top.addWidget(self.name)
        top.addWidget(self.kind, 1)
        layout.addLayout(top)
        self.state = QLabel(self.state_words())
        self.state.setObjectName("engineState")
        self.state.setWordWrap(True)
        if entry.installed and not entry.usable:
            self.state.setStyleSheet(warning_style())
        layout.addWidget(self.state)
        self.details = QLabel(self.detail_words())
        self.details.setObjectName("engineDetails")
        self.details.setWordWrap(True)
        self.details.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.details.setVisible(bool(self.details.text()))
        for label in (self.name, self.kind, self.state, self.details):
            label.setTextFormat(Qt.TextFormat.PlainText)  # a list's words, never markup
        layout.addWidget(self.details)
        self.buttons: dict[str, QPushButton] = {}
        if entry.actions:
            row = QHBoxLayout()
            for action in entry.actions:
                words = ASKS_FIRST.get(action) if entry.name == PYTORCH else None
                text = QCoreApplication.translate("EngineRow", str(words or ACTION_WORDS[action]))
                button = QPushButton(text)
                button.setObjectName(action.replace(" ", "_"))
                button.setAccessibleName(f"{text} {title}")
                button.clicked.connect(
                    lambda _c=False, a=action: self.requested.emit(entry.name, a)
                )
                self.buttons[action] = button
                row.addWidget(button)
            row.addStretch(1)
            layout.addLayout(row)

    @staticmethod
    def kind_words(kind: str) -> str:
        if kind in KIND_WORDS:
            return QCoreApplication.translate("EngineRow", str(KIND_WORDS[kind]))
        words = QCoreApplication.translate("EngineRow", str(PACK_WORDS))
        return words.format(BUILDS.get(kind, kind))

    def state_words(self) -> str:
        """Installed, usable here, or why not, in one sentence."""
        entry = self.entry
        reason = translated(entry.reason)
        if entry.usable:
            state = self.tr("Usable here")
        elif entry.installed:
            state = self.tr("Installed, not usable here")
        else:
            state = self.tr("Not installed")
        return self.tr("{0}: {1}").format(state, reason) if reason else state

    def detail_words(self) -> str:
        """Version, variant and size, those that are known."""
        entry = self.entry
        parts = []
        if entry.version:
            library = "torch" if entry.name == PYTORCH else "llama-cpp-python"
            parts.append(f"{library} {entry.version}")
        if entry.variant and entry.variant != entry.name:
            parts.append(entry.variant)
        if entry.size:
            parts.append(self.tr("{0} on disk").format(amount(entry.size)))
        if entry.download:
            parts.append(self.tr("{0} to download").format(amount(entry.download)))
        if entry.kept:
            parts.append(
                self.tr("{0} downloaded by an install that did not finish").format(
                    amount(entry.kept)
                )
            )
        return " · ".join(parts)

    def set_busy(self, why: str) -> None:
        """While an install runs, every action waits: disabled, saying why ("" to end)."""
        for button in self.buttons.values():
            button.setEnabled(not why)
            button.setToolTip(why)
