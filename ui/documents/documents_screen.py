"""The Documents screen: make collections of files and folders, see what was indexed and
what was left out (and why), follow the indexing, pause it.

Files stay where they are; a collection remembers its folders, and the indexer keeps up
with them in the background (``ui.documents.indexing``).  A chat uses a collection through
the Collections menu under its message box.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.docs.collections import check_name
from app.docs.index import FAILED, INDEXED, FileRecord
from app.docs.indexer import Progress, UpdateReport
from app.docs.library import Documents
from app.errors import HearthError
from app.hub.repo_files import human_duration, human_size
from ui.background import run_in_background
from ui.documents.indexing import Indexing
from ui.error_banner import ErrorBanner
from ui.i18n import translated
from ui.models.tables import make_table
from wire.visible_text import visible

PROGRESS_EVERY_S = 0.1  # the progress line is redrawn at most this often


class DocumentsScreen(QWidget):
    collections_changed = Signal()
    ask_requested = Signal(str)  # Ask this collection: a new chat that answers from it

    def __init__(
        self, documents: Documents, indexing: Indexing, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("documentsScreen")
        self.documents = documents
        self.indexing = indexing
        self._drawn_at = 0.0
        self.banner = ErrorBanner()
        self._build()
        indexing.progress.connect(self._progress)
        indexing.finished.connect(self._indexed)
        indexing.failed.connect(self._failed)
        indexing.idle.connect(lambda: self.progress_row.setVisible(False))
        self.refresh()

    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.addWidget(self.banner)
        intro = QLabel(
            self.tr(
                "Collections of your files that chats can answer from, with sources. Files "
                "stay where they are, are read only on this computer, and are kept up to date."
            )
        )
        intro.setWordWrap(True)
        outer.addWidget(intro)
        splitter = QSplitter()
        left = QWidget()
        side = QVBoxLayout(left)
        side.setContentsMargins(0, 0, 0, 0)
        self.list = QListWidget()
        self.list.setObjectName("collectionList")
        self.list.setAccessibleName(self.tr("Collections"))
        self.list.currentItemChanged.connect(lambda *_: self._show_selected())
        side.addWidget(self.list, 1)
        self.new_button = QPushButton(self.tr("New collection…"))
        self.new_button.clicked.connect(lambda _checked=False: self.new_collection())
        side.addWidget(self.new_button)
        splitter.addWidget(left)

        right = QWidget()
        main = QVBoxLayout(right)
        main.setContentsMargins(0, 0, 0, 0)
        self.summary = QLabel()
        self.summary.setObjectName("collectionSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        main.addWidget(self.summary)
        buttons = QHBoxLayout()
        self.ask_button = QPushButton(self.tr("Ask this collection"))
        self.ask_button.setObjectName("askCollection")
        self.ask_button.setToolTip(
            self.tr("A new chat whose answers come from this collection, with their sources")
        )
        self.ask_button.clicked.connect(self._ask)
        self.add_folder_button = QPushButton(self.tr("Add folder…"))
        self.add_folder_button.clicked.connect(lambda _checked=False: self.add_folder())
        self.add_files_button = QPushButton(self.tr("Add files…"))
        self.add_files_button.clicked.connect(lambda _checked=False: self.add_files())
        self.update_button = QPushButton(self.tr("Update now"))
        self.update_button.clicked.connect(self.update_selected)
        self.pause_button = QPushButton(self.tr("Pause"))
        self.pause_button.clicked.connect(self.toggle_pause)
        self.remove_button = QPushButton(self.tr("Remove…"))
        self.remove_button.clicked.connect(lambda _checked=False: self.remove_selected())
        for button in (
            self.ask_button,
            self.add_folder_button,
            self.add_files_button,
            self.update_button,
            self.pause_button,
            self.remove_button,
        ):
            buttons.addWidget(button)
        buttons.addStretch(1)
        main.addLayout(buttons)
        self.progress_row = QWidget()
        row = QHBoxLayout(self.progress_row)
        row.setContentsMargins(0, 0, 0, 0)
        self.progress_bar = QProgressBar()
        self.progress_bar.setObjectName("indexingProgress")
        self.progress_label = QLabel()
        self.progress_label.setObjectName("indexingLabel")
        row.addWidget(self.progress_bar, 1)
        row.addWidget(self.progress_label, 2)
        self.progress_row.hide()
        main.addWidget(self.progress_row)
        self.files: QTableWidget = make_table(("", "", "", ""), "collectionFiles")
        self.files.setHorizontalHeaderLabels(
            [self.tr("File"), self.tr("Status"), self.tr("Tokens"), self.tr("Why")]
        )
        self.files.setAccessibleName(self.tr("Files of the collection"))
        main.addWidget(self.files, 1)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([220, 780])
        outer.addWidget(splitter, 1)

    # -- collections ------------------------------------------------------------------
    def _ask(self) -> None:
        name = self.selected()
        if name is not None:
            self.ask_requested.emit(name)

    def selected(self) -> str | None:
        item = self.list.currentItem()
        return str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None

    def refresh(self) -> None:
        """The collections with their counts (read in the background)."""
        run_in_background(self, self.documents.summaries, self._listed, self._report)

    def _listed(self, summaries: Sequence[object]) -> None:
        current = self.selected()
        self.list.blockSignals(True)
        self.list.clear()
        for summary in summaries:
            name = str(getattr(summary, "name", ""))
            item = QListWidgetItem(
                self.tr("{0}\n{1} files · {2} passages").format(
                    name, getattr(summary, "indexed", 0), getattr(summary, "chunks", 0)
                )
            )
            item.setData(Qt.ItemDataRole.UserRole, name)
            self.list.addItem(item)
            if name == current or current is None:
                self.list.setCurrentItem(item)
                current = name
        self.list.blockSignals(False)
        self._show_selected()
        self.collections_changed.emit()

    def _show_selected(self) -> None:
        name = self.selected()
        has = name is not None
        for button in (
            self.ask_button,
            self.add_folder_button,
            self.add_files_button,
            self.update_button,
            self.pause_button,
            self.remove_button,
        ):
            button.setEnabled(has)
        if name is None:
            self.summary.setText(self.tr("No collections yet. Make one, then add a folder to it."))
            self.files.setRowCount(0)
            return
        try:
            collection = self.documents.collections.get(name)
        except HearthError:  # removed after the list was read (a listing in flight)
            self.refresh()
            return
        self.pause_button.setText(self.tr("Resume") if collection.paused else self.tr("Pause"))
        paths = "\n".join(collection.paths) or self.tr("(no files or folders yet)")
        state = self.tr(" (paused)") if collection.paused else ""
        self.summary.setText(f"{name}{state}\n{paths}")
        run_in_background(
            self,
            lambda: self.documents.index.files(name),
            lambda records: self._show_files(name, records, list(collection.paths)),
            self._report,
        )

    def _show_files(self, name: str, records: list[FileRecord], roots: list[str]) -> None:
        if name != self.selected():
            return
        # what was left out first: that is what the user needs to see
        records = sorted(records, key=lambda r: (r.status == INDEXED, r.path))
        position = self.files.verticalScrollBar().value()
        self.files.setUpdatesEnabled(False)
        self.files.setRowCount(len(records))
        words = {INDEXED: self.tr("indexed"), FAILED: self.tr("failed")}
        for row, record in enumerate(records):
            cells = (
                visible(shown_path(record.path, roots)),
                words.get(record.status, self.tr("skipped")),
                f"{record.tokens:,}" if record.status == INDEXED else "",
                visible(record.reason),
            )
            for column, value in enumerate(cells):
                cell = QTableWidgetItem(value)
                if column in (0, 3):  # the whole path, and the whole reason
                    cell.setToolTip(visible(record.path) if column == 0 else value)
                self.files.setItem(row, column, cell)
        self.files.setUpdatesEnabled(True)
        self.files.verticalScrollBar().setValue(position)

    def new_collection(self, name: str | None = None, folder: str | None = None) -> str | None:
        """Ask for a name, then for a folder (tests pass both)."""
        if name is None:
            asked = QInputDialog(self)
            asked.setWindowTitle(self.tr("New collection"))
            asked.setInputMode(QInputDialog.InputMode.TextInput)
            asked.setLabelText(
                self.tr(
                    "A name for the collection, for example “Taxes 2025”. Next you choose "
                    "the folder whose documents it reads; Hearth keeps it up to date."
                )
            )
            field = asked.findChild(QLineEdit)
            if field is not None:
                field.setAccessibleName(self.tr("Name of the collection"))
            words = asked.findChild(QLabel)
            if words is not None:
                words.setWordWrap(True)  # a sentence, not one line wider than a netbook
            accepted = asked.exec() == QDialog.DialogCode.Accepted
            name = asked.textValue()
            asked.deleteLater()
            if not accepted:
                return None
        try:
            name = check_name(name)
        except HearthError as exc:
            self.banner.show_message(translated(exc.message))
            return None
        if folder is None:
            folder = QFileDialog.getExistingDirectory(
                self, self.tr("A folder for {0}").format(name)
            )
            if not folder:
                return None
        self._add(name, [Path(folder)])
        return name

    def add_folder(self, folder: str | None = None) -> None:
        name = self.selected()
        if name is None:
            return
        if folder is None:
            folder = QFileDialog.getExistingDirectory(
                self, self.tr("Add a folder to {0}").format(name)
            )
        if folder:
            self._add(name, [Path(folder)])

    def add_files(self, files: list[str] | None = None) -> None:
        name = self.selected()
        if name is None:
            return
        if files is None:
            files, _ = QFileDialog.getOpenFileNames(self, self.tr("Add files to {0}").format(name))
        if files:
            self._add(name, [Path(f) for f in files])

    def _add(self, name: str, paths: list[Path]) -> None:
        self.banner.dismiss()
        try:
            self.documents.collections.add_paths(name, paths)
        except (HearthError, OSError) as exc:
            self._report(exc)
            return
        self.refresh()
        self._select(name)
        self.indexing.update(name)

    def _select(self, name: str) -> None:
        for row in range(self.list.count()):
            if self.list.item(row).data(Qt.ItemDataRole.UserRole) == name:
                self.list.setCurrentRow(row)

    def update_selected(self) -> None:
        """Update now: what changed, and the files whose reader failed, read again."""
        name = self.selected()
        if name is not None:
            self.indexing.update(name, retry_failed=True)

    def toggle_pause(self) -> None:
        name = self.selected()
        if name is None:
            return
        if self.documents.collections.get(name).paused:
            self.indexing.resume(name)
        else:
            self.indexing.pause(name)
        self._show_selected()

    def remove_selected(self, confirm: bool = True) -> None:
        name = self.selected()
        if name is None:
            return
        if confirm:
            answer = QMessageBox.question(
                self,
                self.tr("Remove {0}?").format(name),
                self.tr(
                    "Forget the collection {0} and its index? Your files are not touched."
                ).format(name),
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        self.indexing.forget(name)
        self.remove_button.setEnabled(False)
        # in the background: it waits for an update of this collection to stop
        run_in_background(
            self, lambda: self.documents.remove(name), lambda _none: self.refresh(), self._report
        )

    # -- progress ---------------------------------------------------------------------
    def _progress(self, progress: Progress) -> None:
        now = time.monotonic()
        if now - self._drawn_at < PROGRESS_EVERY_S and progress.files_done < progress.files_total:
            return
        self._drawn_at = now
        self.progress_row.setVisible(progress.files_total > 0)
        self.progress_bar.setRange(0, max(1, progress.files_total))
        self.progress_bar.setValue(progress.files_done)
        eta = progress.eta_s
        left = self.tr(" · about {0} left").format(human_duration(eta)) if eta is not None else ""
        self.progress_label.setText(
            self.tr("{0}: {1} of {2} files · {3} of {4}{5}").format(
                progress.collection,
                progress.files_done,
                progress.files_total,
                human_size(progress.bytes_done),
                human_size(progress.bytes_total),
                left,
            )
        )

    def _indexed(self, name: str, report: UpdateReport) -> None:
        """An update ended: the list and the table are drawn again only when it changed
        something (the watch updates every collection every minute)."""
        self.progress_row.hide()
        p = report.progress
        if report.fault or report.rebuilt:  # a full disk, a damaged index: said once
            self.banner.show_message(translated(report.fault or report.rebuilt))
        if p.indexed or p.renamed or p.removed or p.skipped or p.failed or report.problems:
            self.refresh()

    def _failed(self, name: str, exc: BaseException) -> None:
        self.progress_row.hide()
        self._report(exc)

    def _report(self, exc: BaseException) -> None:
        from app.errors import describe_error

        message = (
            exc.message
            if isinstance(exc, HearthError)
            else describe_error(exc, self.tr("indexing documents"))
        )
        self.banner.show_message(translated(message))


def shown_path(path: str, roots: list[str]) -> str:
    """A file as the table shows it: its place inside the collection's folder it came from
    (``2025/receipt.pdf``), not a long absolute path; a file added on its own by its name."""
    file = Path(path)
    for root in roots:
        if file != Path(root) and file.is_relative_to(root):
            return str(file.relative_to(root))
    return file.name
