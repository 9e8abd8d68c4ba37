"""The download queue on the Models screen: progress, speed, time left; pause, resume,
cancel (what ``app.hub.downloads`` does, shown by ``DownloadsModel`` on a timer)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.hub.downloads import Download, DownloadManager
from ui.models.downloads_model import DownloadsModel


class DownloadsPanel(QGroupBox):
    completed = Signal(str)  # the path of a verified file

    def __init__(
        self,
        manager: DownloadManager,
        show_error: Callable[[str], None],
        ask_token: Callable[[str], bool] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Downloads"))
        self.manager, self.show_error, self.ask_token = manager, show_error, ask_token
        downloads_layout = QVBoxLayout(self)
        self.model = DownloadsModel(self.manager, self)
        self.model.completed.connect(self.completed)
        self.model.failed.connect(self._download_failed)
        self.view = QTableView()
        self.view.setObjectName("downloads")
        self.view.setAccessibleName(self.tr("Downloads"))
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.verticalHeader().hide()
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        # Narrow enough on a 1024-pixel screen for the progress: bytes, speed, time left.
        for column, width in ((0, 230), (1, 190), (2, 100), (4, 80)):
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
        downloads_layout.addWidget(self.view)
        downloads_layout.addLayout(buttons)
        # Each button is enabled only when the chosen download can take it.
        self.view.selectionModel().selectionChanged.connect(lambda *_: self.update_buttons())
        self.model.dataChanged.connect(lambda *_: self.update_buttons())
        self.model.modelReset.connect(self.update_buttons)
        self.update_buttons()

    def update_buttons(self) -> None:
        from app.hub import downloads as dl

        rows = self.view.selectionModel().selectedRows()
        item = self.model.item_at(rows[0].row()) if rows else None
        state = item.state if item is not None else ""
        self.pause_button.setEnabled(state in dl.ACTIVE)
        self.resume_button.setEnabled(state in (dl.PAUSED, dl.FAILED))
        self.cancel_button.setEnabled(state in (*dl.ACTIVE, dl.PAUSED, dl.FAILED))
        finished = (dl.DONE, dl.CANCELLED, dl.FAILED)
        self.clear_button.setEnabled(any(i.state in finished for i in self.model.items))

    def _selected_download(self) -> str | None:
        rows = self.view.selectionModel().selectedRows()
        if not rows:
            return None
        item = self.model.item_at(rows[0].row())
        return item.id if item else None

    def _on_download(self, action: Callable[[str], None]) -> None:
        download_id = self._selected_download()
        if download_id is None:
            self.show_error(self.tr("Choose a download in the list first."))
            return
        action(download_id)
        self.model.refresh()

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
        self.model.refresh()
