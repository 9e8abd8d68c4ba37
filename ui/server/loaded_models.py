"""Chat › Loaded models: every model that has a worker now — the chat's, and those the API
loaded — with its memory, whether it is working, when it will be unloaded, and Unload.

The list is read again every ``REFRESH_MS`` while the dialog is open (a few ``psutil``
readings: instant), so a model the API loads or lets go appears or leaves by itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

REFRESH_MS = 2000


@dataclass(frozen=True)
class LoadedModel:
    """One loaded model as the window shows it."""

    name: str
    used_by: str  # "Chat", "API", "Chat and API" (translated)
    ram_bytes: int  # measured, or the estimate where that is larger
    vram_bytes: int  # estimated (0: none, or no GPU)
    unloads_in_s: float | None  # None: stays while the chat uses it
    busy: bool
    unload: Callable[[], bool]  # False: it is working, nothing was unloaded
    slots: int = 1  # replies it writes at once
    replies: int = 0  # replies not yet done (beyond ``slots``: waiting their turn)


def memory_words(ram_bytes: int, vram_bytes: int) -> str:
    ram = f"{ram_bytes / 1e9:.2f} GB"
    return ram if not vram_bytes else f"{ram} + {vram_bytes / 1e9:.2f} GB GPU"


class LoadedModelsDialog(QDialog):
    COLUMNS = 5

    def __init__(self, source: Callable[[], list[LoadedModel]], parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setObjectName("loadedModels")
        self.setWindowTitle(self.tr("Loaded models"))
        self.source = source
        self.rows: list[LoadedModel] = []
        layout = QVBoxLayout(self)
        self.summary = QLabel("")
        self.summary.setObjectName("loadedSummary")
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.table = QTableWidget(0, self.COLUMNS)
        self.table.setObjectName("loadedTable")
        self.table.setHorizontalHeaderLabels(
            [self.tr("Model"), self.tr("Used by"), self.tr("Memory"), self.tr("Unloads"), ""]
        )
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, self.COLUMNS):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        layout.addWidget(self.table, 1)
        hint = QLabel(
            self.tr(
                "Models loaded for the API leave after the time set in Settings without "
                "requests, or sooner when another needs their memory. Memory is measured; "
                "GPU memory is estimated."
            )
        )
        hint.setObjectName("loadedHint")
        hint.setWordWrap(True)
        layout.addWidget(hint)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(720, 300)
        self.timer = QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self.refresh)
        self.timer.start()
        self.refresh()

    def refresh(self) -> None:
        self.rows = self.source()
        table = self.table
        table.setRowCount(len(self.rows))
        for row, model in enumerate(self.rows):
            cells = [
                model.name,
                model.used_by,
                memory_words(model.ram_bytes, model.vram_bytes),
                self._unloads_words(model),
            ]
            for column, text in enumerate(cells):
                item = table.item(row, column)
                if item is None:
                    item = QTableWidgetItem()
                    table.setItem(row, column, item)
                item.setText(text)
                item.setToolTip(text)
            button = QPushButton(self.tr("Unload"))
            button.setAccessibleName(self.tr("Unload {0}").format(model.name))
            button.setEnabled(not model.busy)
            if model.busy:
                button.setToolTip(self.tr("It is answering; unload it when it is done."))
            button.clicked.connect(lambda _checked=False, m=model: self._unload(m))
            table.setCellWidget(row, 4, button)
        total = sum(m.ram_bytes for m in self.rows)
        gpu = sum(m.vram_bytes for m in self.rows)
        if not self.rows:
            self.summary.setText(self.tr("No model is loaded."))
        elif len(self.rows) == 1:
            self.summary.setText(self.tr("One model loaded, {0}.").format(memory_words(total, gpu)))
        else:
            self.summary.setText(
                self.tr("{0} models loaded, {1} in all.").format(
                    len(self.rows), memory_words(total, gpu)
                )
            )

    def _unloads_words(self, model: LoadedModel) -> str:
        if model.busy:
            if model.slots <= 1:
                return self.tr("answering")
            writing = min(model.replies, model.slots)
            words = self.tr("answering ({0} of {1} at once)").format(writing, model.slots)
            waiting = model.replies - writing
            if waiting > 0:
                words += self.tr(", {0} waiting").format(waiting)
            return words
        if model.unloads_in_s is None:
            return self.tr("while chosen")
        minutes, seconds = divmod(int(model.unloads_in_s), 60)
        return self.tr("in {0}:{1:02d}").format(minutes, seconds)

    def _unload(self, model: LoadedModel) -> None:
        if not model.unload():
            self.summary.setText(
                self.tr("{0} is answering a request; unload it when it is done.").format(model.name)
            )
            return
        self.refresh()
