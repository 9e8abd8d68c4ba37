"""The library on the Models screen: every model Hearth can use, where it comes from, and
whether it fits this machine; chat with one, delete one Hearth downloaded, add a file."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QMessageBox,
    QPushButton,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core import Core
from app.errors import HearthError
from app.hub.repo_files import human_size
from app.library_actions import APP_NAMES, delete_model
from app.machine.fit import Estimate
from app.machine.fit_service import estimate_entry
from app.machine.hardware import SystemFacts
from app.models.library import ModelEntry
from ui.background import run_in_background
from ui.i18n import translated
from ui.models.tables import SOURCE_NAMES, make_table, parameter_count, tr_models, verdict_cell


class LibraryPanel(QGroupBox):
    chat_requested = Signal(object)  # a ModelEntry to chat with
    library_changed = Signal(list)  # the new list of ModelEntry
    estimates_shown = Signal()

    def __init__(
        self,
        core: Core,
        report: Callable[[BaseException, str], None],
        show_error: Callable[[str], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Library"))
        self.core, self.report, self.show_error = core, report, show_error
        self.facts: SystemFacts | None = None
        self.models: list[ModelEntry] = []
        self.estimates: dict[str, Estimate | str] = {}
        library_layout = QVBoxLayout(self)
        self.table = make_table(
            (
                QT_TRANSLATE_NOOP("ModelsScreen", "Model"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Format"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Architecture"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Parameters"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Quantization"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Trained context"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Size"),
                QT_TRANSLATE_NOOP("ModelsScreen", "From"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Fits here?"),
            ),
            "library",
        )
        self.table.setAccessibleName(self.tr("Library"))
        trained = self.table.horizontalHeaderItem(5)
        if trained is not None:
            trained.setToolTip(
                self.tr(
                    "The longest context the model was trained for. A chat uses the context "
                    "set in Settings (or the model's or the conversation's own), which is "
                    "often shorter to save memory."
                )
            )
        library_buttons = QHBoxLayout()
        self.chat_button = QPushButton(self.tr("Chat with this model"))
        self.chat_button.clicked.connect(self._chat_with_selected)
        self.delete_button = QPushButton(self.tr("Delete…"))
        self.delete_button.clicked.connect(self._delete_selected)
        self.add_button = QPushButton(self.tr("Add file or folder…"))
        self.add_button.clicked.connect(self._add_path)
        self.refresh_button = QPushButton(self.tr("Refresh"))
        self.refresh_button.clicked.connect(self.refresh)
        for button in (self.chat_button, self.delete_button, self.add_button, self.refresh_button):
            library_buttons.addWidget(button)
        library_buttons.addStretch(1)
        library_layout.addWidget(self.table, 1)
        library_layout.addLayout(library_buttons)

    def set_facts(self, facts: SystemFacts) -> None:
        self.facts = facts
        self._estimate()

    def _estimate(self) -> None:
        facts, models, core = self.facts, list(self.models), self.core
        if facts is None:
            return
        context = int(core.settings.get("engine.context_length"))

        def work() -> dict[str, Estimate | str]:
            results: dict[str, Estimate | str] = {}
            for entry in models:
                try:
                    slots = core.model_spec(entry, context).parallel  # a KV cache each
                except (HearthError, OSError, ValueError):
                    slots = 1
                try:
                    results[str(entry.path)] = estimate_entry(entry, facts, context, slots)
                except HearthError as exc:
                    results[str(entry.path)] = exc.message
            return results

        def show(results: dict[str, Estimate | str]) -> None:
            self.estimates = results
            for row, entry in enumerate(self.models):
                result = results.get(str(entry.path))
                if isinstance(result, Estimate):
                    self.table.setItem(row, 8, verdict_cell(result))
                elif result:
                    cell = QTableWidgetItem("?")
                    cell.setToolTip(result)
                    self.table.setItem(row, 8, cell)
            self.estimates_shown.emit()

        run_in_background(
            self, work, show, lambda exc: self.report(exc, self.tr("estimating memory"))
        )

    def refresh(self) -> None:
        run_in_background(
            self,
            self.core.models,
            self.show_models,
            lambda exc: self.report(exc, self.tr("listing models")),
        )

    def show_models(self, models: list[ModelEntry]) -> None:
        self.models = models
        self.table.setRowCount(len(models))
        for row, entry in enumerate(models):
            source = (
                tr_models(SOURCE_NAMES[entry.source])
                if entry.source in SOURCE_NAMES
                else APP_NAMES.get(entry.source, entry.source)
            )
            reads = " · " + self.tr("reads images") if entry.reads_images else ""
            values = (
                entry.name + reads,
                entry.format,
                entry.architecture,
                parameter_count(entry.parameters),
                entry.quantization,
                str(entry.context_length or ""),
                human_size(entry.size_bytes),
                source,
            )
            for column, value in enumerate(values):
                cell = QTableWidgetItem(value)
                tip = translated(entry.problem) or entry.warning or str(entry.path)
                cell.setToolTip(tip)
                if entry.problem:
                    cell.setForeground(Qt.GlobalColor.gray)
                self.table.setItem(row, column, cell)
        self.library_changed.emit(models)
        self._estimate()

    def _selected_entry(self) -> ModelEntry | None:
        rows = self.table.selectionModel().selectedRows()
        return self.models[rows[0].row()] if rows else None

    def _chat_with_selected(self) -> None:
        entry = self._selected_entry()
        if entry is None:
            self.show_error(self.tr("Choose a model in the library first."))
            return
        self.chat_requested.emit(entry)

    def _delete_selected(self, confirm: bool = True) -> None:
        entry = self._selected_entry()
        if entry is None:
            return
        if confirm:
            answer = QMessageBox.question(
                self,
                self.tr("Delete model"),
                self.tr("Delete {0} ({1}) from disk?").format(
                    entry.name, human_size(entry.size_bytes)
                ),
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        try:
            delete_model(self.core, entry)
        except (HearthError, OSError) as exc:
            self.report(exc, self.tr("deleting the model"))
            return
        self.refresh()

    def _add_path(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Add a GGUF model"), str(Path.home()), "GGUF models (*.gguf)"
        )
        if path:
            self.add_path(Path(path))

    def add_path(self, path: Path) -> None:
        lines = [line for line in str(self.core.settings.get("models.added")).splitlines() if line]
        if str(path) not in lines:
            lines.append(str(path))
            with contextlib.suppress(ValueError):
                self.core.settings.set("models.added", "\n".join(lines))
        self.refresh()
