"""The Models screen: search a hub, open a repository, download, and manage the library.

Everything slow (searching, listing a repository's files, reading model headers) runs on
the thread pool through ``run_in_background``; downloads run in the download manager's
threads and are shown by ``DownloadsModel``, which polls on a timer.  Problems go to the
window's error banner through ``report``/``show_error``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core import Core
from app.errors import HearthError
from app.hub import huggingface
from app.hub.downloads import Download, DownloadManager
from app.hub.huggingface import HubAccessError, RepoSummary
from app.hub.pull import list_repo
from app.hub.recommend import chat_ggufs, estimate_offers, recommend
from app.hub.repo_files import Offer, group_files, human_size
from app.hub.sources import HF, HF_MIRROR, MODELSCOPE, hf_endpoint, modelscope_endpoint
from app.machine.fit import Estimate
from app.machine.fit_service import estimate_entry
from app.machine.hardware import SystemFacts
from app.models.library import ModelEntry
from app.models.library_actions import APP_NAMES, delete_model
from app.secrets import get_token
from ui.background import run_in_background
from ui.i18n import translated
from ui.models.downloads_model import DownloadsModel

SOURCE_LABELS = {HF: "Hugging Face", MODELSCOPE: "ModelScope"}
SORT_LABELS = {
    "downloads": QT_TRANSLATE_NOOP("ModelsScreen", "Most downloaded"),
    "likes": QT_TRANSLATE_NOOP("ModelsScreen", "Most liked"),
    "recent": QT_TRANSLATE_NOOP("ModelsScreen", "Recently updated"),
}
KIND_LABELS = {
    "gguf": QT_TRANSLATE_NOOP("ModelsScreen", "GGUF (llama.cpp)"),
    "transformers": QT_TRANSLATE_NOOP("ModelsScreen", "Transformers checkpoints"),
}
SOURCE_NAMES = {
    "starter": QT_TRANSLATE_NOOP("ModelsScreen", "Bundled"),
    "models_dir": "Hearth",
    "added": QT_TRANSLATE_NOOP("ModelsScreen", "Added by you"),
    "file": QT_TRANSLATE_NOOP("ModelsScreen", "Opened file"),
}


def _t(text: object) -> str:
    return QCoreApplication.translate("ModelsScreen", str(text))


def _table(headers: tuple[object, ...], name: str) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setObjectName(name)
    table.setHorizontalHeaderLabels([_t(h) for h in headers])
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().hide()
    table.setWordWrap(False)
    table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    return table


RECOMMENDED_HERE = QT_TRANSLATE_NOOP("ModelsScreen", "Recommended for this machine")
RECOMMENDED = QT_TRANSLATE_NOOP("ModelsScreen", "Recommended")
VERDICT_COLOURS = {"gpu": "#15803d", "partial": "#1d4ed8", "cpu": "#b45309", "no": "#b91c1c"}


def _verdict_cell(result: Estimate) -> QTableWidgetItem:
    text = result.verdict_text
    if result.verdict != "no":
        text += f" · {result.total_bytes / 1e9:.1f} GB"
    cell = QTableWidgetItem(text)
    cell.setForeground(QColor(VERDICT_COLOURS.get(result.verdict, "#000000")))
    lines = [
        _t(
            "Weights {0:.2f} GB, KV cache {1:.2f} GB, overhead {2:.2f} GB at {3} tokens of context."
        ).format(
            result.weights_bytes / 1e9,
            result.kv_cache_bytes / 1e9,
            result.overhead_bytes / 1e9,
            result.n_ctx,
        )
    ]
    if result.speed_hint:
        lines.append(
            QCoreApplication.translate("ModelsScreen", "Expected speed: {0}.").format(
                result.speed_hint
            )
        )
    lines.extend(result.notes)
    cell.setToolTip("\n".join(lines))
    return cell


def _params(count: int | None) -> str:
    if not count:
        return ""
    if count >= 1e9:
        return f"{count / 1e9:.1f}B"
    if count >= 1e6:
        return f"{count / 1e6:.0f}M"
    return f"{count / 1e3:.1f}K"


class ModelsScreen(QWidget):
    chat_requested = Signal(object)  # a ModelEntry to chat with
    library_changed = Signal(list)  # the new list of ModelEntry
    search_finished = Signal()
    repo_opened = Signal()
    estimates_shown = Signal()

    def __init__(
        self,
        core: Core,
        manager: DownloadManager,
        report: Callable[[BaseException, str], None],
        show_error: Callable[[str], None],
        ask_token: Callable[[str], bool] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("modelsScreen")
        self.core = core
        self.manager = manager
        self.report = report
        self.show_error = show_error
        self.ask_token = ask_token
        self.facts: SystemFacts | None = None
        self.offer_estimates: dict[int, Estimate] = {}
        self.library_estimates: dict[str, Estimate | str] = {}
        self.results: list[RepoSummary] = []
        self.offers: list[Offer] = []
        self.repo_id = ""
        self.repo_source = HF
        self.library: list[ModelEntry] = []
        self._build()

    def suggest_for_region(self, language: str) -> None:
        """On a Chinese locale, start on ModelScope and offer a Hugging Face mirror,
        unless the user already chose an address for Hugging Face."""
        if language != "zh_CN":
            self.region_hint.hide()
            return
        self.source.setCurrentIndex(max(self.source.findData(MODELSCOPE), 0))
        mirror_set = bool(str(self.core.settings.get("hub.huggingface_endpoint")))
        self.mirror_button.setVisible(not mirror_set)
        self.region_hint.show()

    def use_mirror(self) -> None:
        try:
            self.core.settings.set("hub.huggingface_endpoint", HF_MIRROR)
        except (OSError, ValueError) as exc:
            self.report(exc, self.tr("saving the mirror address"))
            return
        self.mirror_button.hide()

    # -- layout ------------------------------------------------------------------------
    def _build(self) -> None:
        layout = QVBoxLayout(self)
        search_row = QHBoxLayout()
        self.source = QComboBox()
        self.source.setAccessibleName(self.tr("Source"))
        for key, label in SOURCE_LABELS.items():
            self.source.addItem(label, key)
        self.kind = QComboBox()
        self.kind.setAccessibleName(self.tr("Kind of model"))
        for kind, kind_label in KIND_LABELS.items():
            self.kind.addItem(_t(kind_label), kind)
        self.sort = QComboBox()
        self.sort.setAccessibleName(self.tr("Sort by"))
        for order, order_label in SORT_LABELS.items():
            self.sort.addItem(_t(order_label), order)
        self.query = QLineEdit()
        self.query.setAccessibleName(self.tr("Search models"))
        self.query.setObjectName("searchQuery")
        self.query.setPlaceholderText(
            self.tr("Search models, or type a repository id (owner/name)")
        )
        self.query.returnPressed.connect(self.search)
        self.search_button = QPushButton(self.tr("Search"))
        self.search_button.clicked.connect(self.search)
        self.open_button = QPushButton(self.tr("Open id"))
        self.open_button.setToolTip(self.tr("Open the repository typed in the box (owner/name)"))
        self.open_button.clicked.connect(lambda: self.open_repo(self.query.text().strip()))
        for widget in (self.source, self.kind, self.sort):
            search_row.addWidget(widget)
        search_row.addWidget(self.query, 1)
        search_row.addWidget(self.search_button)
        search_row.addWidget(self.open_button)
        layout.addLayout(search_row)
        self.region_hint = QWidget()
        self.region_hint.setObjectName("regionHint")
        hint_row = QHBoxLayout(self.region_hint)
        hint_row.setContentsMargins(0, 0, 0, 0)
        self.region_label = QLabel(
            self.tr(
                "In mainland China, ModelScope (chosen above) or a Hugging Face mirror is "
                "usually much faster than huggingface.co."
            )
        )
        self.region_label.setWordWrap(True)
        self.mirror_button = QPushButton(self.tr("Use the hf-mirror.com mirror"))
        self.mirror_button.setToolTip(
            self.tr("Sets the Hugging Face address in Settings to https://hf-mirror.com")
        )
        self.mirror_button.clicked.connect(self.use_mirror)
        hint_row.addWidget(self.region_label, 1)
        hint_row.addWidget(self.mirror_button)
        self.region_hint.hide()
        layout.addWidget(self.region_hint)

        browse = QSplitter(Qt.Orientation.Horizontal)
        self.results_table = _table(
            (
                QT_TRANSLATE_NOOP("ModelsScreen", "Repository"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Downloads"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Likes"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Updated"),
            ),
            "results",
        )
        self.results_table.setAccessibleName(self.tr("Search results"))
        self.results_table.itemSelectionChanged.connect(self._result_chosen)
        browse.addWidget(self.results_table)
        files_box = QWidget()
        files_layout = QVBoxLayout(files_box)
        files_layout.setContentsMargins(0, 0, 0, 0)
        self.repo_label = QLabel(self.tr("Open a repository to see what it offers."))
        self.repo_label.setWordWrap(True)
        self.offers_table = _table(
            (
                QT_TRANSLATE_NOOP("ModelsScreen", "Choice"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Files"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Size"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Fits here?"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Note"),
            ),
            "offers",
        )
        self.offers_table.setAccessibleName(self.tr("Files in this repository"))
        self.download_button = QPushButton(self.tr("Download"))
        self.download_button.setObjectName("downloadButton")
        self.download_button.clicked.connect(self.download_selected)
        files_layout.addWidget(self.repo_label)
        files_layout.addWidget(self.offers_table, 1)
        files_layout.addWidget(self.download_button)
        browse.addWidget(files_box)
        browse.setSizes([420, 520])

        downloads_box = QGroupBox(self.tr("Downloads"))
        downloads_layout = QVBoxLayout(downloads_box)
        self.downloads_model = DownloadsModel(self.manager, self)
        self.downloads_model.completed.connect(lambda _path: self.refresh_library())
        self.downloads_model.failed.connect(self._download_failed)
        self.downloads_view = QTableView()
        self.downloads_view.setObjectName("downloads")
        self.downloads_view.setAccessibleName(self.tr("Downloads"))
        self.downloads_view.setModel(self.downloads_model)
        self.downloads_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.downloads_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.downloads_view.verticalHeader().hide()
        self.downloads_view.setWordWrap(False)
        self.downloads_view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.downloads_view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        for column, width in ((0, 300), (1, 260), (2, 100), (4, 80)):
            header.resizeSection(column, width)
        buttons = QHBoxLayout()
        self.pause_button = QPushButton(self.tr("Pause"))
        self.resume_button = QPushButton(self.tr("Resume"))
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.clear_button = QPushButton(self.tr("Clear finished"))
        self.pause_button.clicked.connect(lambda: self._on_download(self.manager.pause))
        self.resume_button.clicked.connect(lambda: self._on_download(self.manager.resume))
        self.cancel_button.clicked.connect(lambda: self._on_download(self.manager.cancel))
        self.clear_button.clicked.connect(self._clear_finished)
        for button in (
            self.pause_button,
            self.resume_button,
            self.cancel_button,
            self.clear_button,
        ):
            buttons.addWidget(button)
        buttons.addStretch(1)
        downloads_layout.addWidget(self.downloads_view)
        downloads_layout.addLayout(buttons)

        library_box = QGroupBox(self.tr("Library"))
        library_layout = QVBoxLayout(library_box)
        self.library_table = _table(
            (
                QT_TRANSLATE_NOOP("ModelsScreen", "Model"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Format"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Architecture"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Parameters"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Quantization"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Context"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Size"),
                QT_TRANSLATE_NOOP("ModelsScreen", "From"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Fits here?"),
            ),
            "library",
        )
        self.library_table.setAccessibleName(self.tr("Library"))
        library_buttons = QHBoxLayout()
        self.chat_button = QPushButton(self.tr("Chat with this model"))
        self.chat_button.clicked.connect(self._chat_with_selected)
        self.delete_button = QPushButton(self.tr("Delete…"))
        self.delete_button.clicked.connect(self._delete_selected)
        self.add_button = QPushButton(self.tr("Add file or folder…"))
        self.add_button.clicked.connect(self._add_path)
        self.refresh_button = QPushButton(self.tr("Refresh"))
        self.refresh_button.clicked.connect(self.refresh_library)
        for button in (self.chat_button, self.delete_button, self.add_button, self.refresh_button):
            library_buttons.addWidget(button)
        library_buttons.addStretch(1)
        library_layout.addWidget(self.library_table, 1)
        library_layout.addLayout(library_buttons)

        vertical = QSplitter(Qt.Orientation.Vertical)
        vertical.addWidget(browse)
        vertical.addWidget(downloads_box)
        vertical.addWidget(library_box)
        vertical.setSizes([330, 170, 260])
        layout.addWidget(vertical, 1)

    # -- searching ---------------------------------------------------------------------
    def search(self) -> None:
        text = self.query.text().strip()
        source = str(self.source.currentData())
        kind, sort = str(self.kind.currentData()), str(self.sort.currentData())
        core = self.core

        def work() -> list[RepoSummary]:
            if source == MODELSCOPE:
                from app.hub import modelscope

                return modelscope.search(
                    text,
                    sort=sort,
                    endpoint_url=modelscope_endpoint(core),
                    token=get_token(MODELSCOPE),
                )
            return huggingface.search(
                text, kind=kind, sort=sort, endpoint_url=hf_endpoint(core), token=get_token(HF)
            )

        self.search_button.setEnabled(False)
        run_in_background(self, work, self._show_results, self._search_failed)

    def _search_failed(self, exc: BaseException) -> None:
        self.search_button.setEnabled(True)
        self.report(exc, self.tr("searching models"))
        self.search_finished.emit()

    def _show_results(self, results: list[RepoSummary]) -> None:
        self.search_button.setEnabled(True)
        self.results = results
        self.results_table.setRowCount(len(results))
        for row, summary in enumerate(results):
            values = (
                summary.repo_id + ("  🔒" if summary.gated else ""),
                f"{summary.downloads:,}",
                f"{summary.likes:,}",
                summary.last_modified[:10],
            )
            for column, value in enumerate(values):
                self.results_table.setItem(row, column, QTableWidgetItem(value))
        if not results:
            self.show_error(self.tr("No models matched. Try other words, or another source."))
        self.search_finished.emit()

    def _result_chosen(self) -> None:
        rows = self.results_table.selectionModel().selectedRows()
        if rows:
            self.open_repo(self.results[rows[0].row()].repo_id)

    # -- one repository ------------------------------------------------------------------
    def open_repo(self, repo_id: str) -> None:
        if "/" not in repo_id:
            self.show_error(self.tr("A repository id looks like owner/name."))
            return
        source = str(self.source.currentData())
        core = self.core
        self.repo_label.setText(self.tr("Opening {0}…").format(repo_id))
        run_in_background(
            self,
            lambda: group_files(list_repo(core, repo_id, source)),
            lambda offers: self._show_offers(repo_id, source, offers),
            lambda exc: self._open_failed(repo_id, source, exc),
        )

    def _open_failed(self, repo_id: str, source: str, exc: BaseException) -> None:
        self.repo_label.setText(self.tr("Could not open the repository."))
        if (
            isinstance(exc, HubAccessError)
            and self.ask_token is not None
            and self.ask_token(source)
        ):
            self.open_repo(repo_id)  # again, with the token just given
            return
        self.report(exc, self.tr("opening the repository"))
        self.repo_opened.emit()

    def _show_offers(self, repo_id: str, source: str, offers: list[Offer]) -> None:
        self.repo_id, self.repo_source, self.offers = repo_id, source, offers
        best = recommend(offers)
        self.repo_label.setText(
            f"<b>{repo_id}</b> on {SOURCE_LABELS[source]}"
            + ("" if offers else ": no GGUF files or transformers checkpoints here.")
        )
        self.offers_table.setRowCount(len(offers))
        for row, offer in enumerate(offers):
            note = offer.warning or (_t(RECOMMENDED) if offer is best else "")
            fits = "…" if self.facts is not None and offer.kind == "gguf" else ""
            values = (offer.label, str(len(offer.files)), human_size(offer.size), fits, note)
            for column, value in enumerate(values):
                cell = QTableWidgetItem(value)
                if offer.warning:
                    cell.setToolTip(offer.warning)
                self.offers_table.setItem(row, column, cell)
        if best is not None:
            self.offers_table.selectRow(offers.index(best))
        self.repo_opened.emit()
        self._estimate_offers()

    # -- will it fit? ----------------------------------------------------------------
    def set_facts(self, facts: SystemFacts) -> None:
        """The system check finished: show verdicts for the library and the open repository."""
        self.facts = facts
        self._estimate_library()
        self._estimate_offers()

    def _estimate_offers(self) -> None:
        facts, offers = self.facts, list(self.offers)
        if facts is None or not chat_ggufs(offers):
            return
        repo_id, source, core = self.repo_id, self.repo_source, self.core
        context = int(core.settings.get("engine.context_length"))

        def work() -> dict[int, Estimate]:
            return estimate_offers(core, source, repo_id, offers, facts, context)

        def show(results: dict[int, Estimate]) -> None:
            if self.repo_id != repo_id:
                return  # another repository was opened meanwhile
            self.offer_estimates = results
            for row, result in results.items():
                self.offers_table.setItem(row, 3, _verdict_cell(result))
            chosen = recommend(offers, results)
            best = offers.index(chosen) if chosen is not None else None
            if best is not None:
                for row in range(len(offers)):
                    note = self.offers_table.item(row, 4)
                    if note is not None and note.text() in (_t(RECOMMENDED), _t(RECOMMENDED_HERE)):
                        note.setText("")
                self.offers_table.setItem(best, 4, QTableWidgetItem(_t(RECOMMENDED_HERE)))
                self.offers_table.selectRow(best)
            self.estimates_shown.emit()

        def failed(exc: BaseException) -> None:
            for row in range(self.offers_table.rowCount()):
                cell = self.offers_table.item(row, 3)
                if cell is not None and cell.text() == "…":
                    cell.setText("?")
                    cell.setToolTip(str(exc))
            self.estimates_shown.emit()

        run_in_background(self, work, show, failed)

    def _estimate_library(self) -> None:
        facts, models, core = self.facts, list(self.library), self.core
        if facts is None:
            return
        context = int(core.settings.get("engine.context_length"))

        def work() -> dict[str, Estimate | str]:
            results: dict[str, Estimate | str] = {}
            for entry in models:
                try:
                    results[str(entry.path)] = estimate_entry(entry, facts, context)
                except HearthError as exc:
                    results[str(entry.path)] = exc.message
            return results

        def show(results: dict[str, Estimate | str]) -> None:
            self.library_estimates = results
            for row, entry in enumerate(self.library):
                result = results.get(str(entry.path))
                if isinstance(result, Estimate):
                    self.library_table.setItem(row, 8, _verdict_cell(result))
                elif result:
                    cell = QTableWidgetItem("?")
                    cell.setToolTip(result)
                    self.library_table.setItem(row, 8, cell)
            self.estimates_shown.emit()

        run_in_background(
            self, work, show, lambda exc: self.report(exc, self.tr("estimating memory"))
        )

    def download_selected(self) -> None:
        rows = self.offers_table.selectionModel().selectedRows()
        if not rows or not self.offers:
            self.show_error(self.tr("Choose what to download first."))
            return
        offer = self.offers[rows[0].row()]
        self.download(offer)

    def download(self, offer: Offer) -> None:
        revision = "master" if self.repo_source == MODELSCOPE else "main"
        target = self.core.models_dir / self.repo_id
        try:
            for file in offer.files:
                self.manager.add(self.repo_source, self.repo_id, file, target, revision=revision)
        except HearthError as exc:
            self.report(exc, self.tr("starting the download"))
        self.downloads_model.refresh()

    # -- the download queue --------------------------------------------------------------
    def _selected_download(self) -> str | None:
        rows = self.downloads_view.selectionModel().selectedRows()
        if not rows:
            return None
        item = self.downloads_model.item_at(rows[0].row())
        return item.id if item else None

    def _on_download(self, action: Callable[[str], None]) -> None:
        download_id = self._selected_download()
        if download_id is None:
            self.show_error(self.tr("Choose a download in the list first."))
            return
        action(download_id)
        self.downloads_model.refresh()

    def _download_failed(self, item: Download) -> None:
        """A gated file asks for a token and resumes; other failures are said once."""
        if (
            item.error_kind == "access"
            and self.ask_token is not None
            and self.ask_token(item.source)
        ):
            self.manager.resume(item.id)
            return
        self.show_error(item.error)

    def _clear_finished(self) -> None:
        for item in self.manager.snapshot():
            self.manager.remove_finished(item.id)
        self.downloads_model.refresh()

    # -- library -------------------------------------------------------------------------
    def refresh_library(self) -> None:
        run_in_background(
            self,
            self.core.models,
            self.show_library,
            lambda exc: self.report(exc, self.tr("listing models")),
        )

    def show_library(self, models: list[ModelEntry]) -> None:
        self.library = models
        self.library_table.setRowCount(len(models))
        for row, entry in enumerate(models):
            source = (
                _t(SOURCE_NAMES[entry.source])
                if entry.source in SOURCE_NAMES
                else APP_NAMES.get(entry.source, entry.source)
            )
            values = (
                entry.name,
                entry.format,
                entry.architecture,
                _params(entry.parameters),
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
                self.library_table.setItem(row, column, cell)
        self.library_changed.emit(models)
        self._estimate_library()

    def _selected_entry(self) -> ModelEntry | None:
        rows = self.library_table.selectionModel().selectedRows()
        return self.library[rows[0].row()] if rows else None

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
        self.refresh_library()

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
        self.refresh_library()
