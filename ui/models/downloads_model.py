"""The download queue as a Qt table model, refreshed on a timer.

Download threads never touch Qt: the model polls ``DownloadManager.snapshot()`` every
``interval_ms`` on the main thread and updates only the rows that changed.  A finished
download emits ``completed`` so the library and the model picker can refresh.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)

from app.hub import downloads as dl
from app.hub.downloads import Download, DownloadManager
from app.hub.repo_files import human_duration, human_size

_C = "DownloadsModel"
COLUMNS = (
    QT_TRANSLATE_NOOP("DownloadsModel", "File"),
    QT_TRANSLATE_NOOP("DownloadsModel", "Repository"),
    QT_TRANSLATE_NOOP("DownloadsModel", "Status"),
    QT_TRANSLATE_NOOP("DownloadsModel", "Progress"),
    QT_TRANSLATE_NOOP("DownloadsModel", "Size"),
)
STATE_TEXT = {
    dl.QUEUED: QT_TRANSLATE_NOOP("DownloadsModel", "Waiting"),
    dl.RUNNING: QT_TRANSLATE_NOOP("DownloadsModel", "Downloading"),
    dl.PAUSED: QT_TRANSLATE_NOOP("DownloadsModel", "Paused"),
    dl.VERIFYING: QT_TRANSLATE_NOOP("DownloadsModel", "Checking"),
    dl.DONE: QT_TRANSLATE_NOOP("DownloadsModel", "Done"),
    dl.FAILED: QT_TRANSLATE_NOOP("DownloadsModel", "Failed"),
    dl.CANCELLED: QT_TRANSLATE_NOOP("DownloadsModel", "Cancelled"),
}


def _t(text: object) -> str:
    return QCoreApplication.translate(_C, str(text))


Index = QModelIndex | QPersistentModelIndex


def progress_text(item: Download) -> str:
    if item.state == dl.DONE:
        return QCoreApplication.translate("DownloadsModel", "Verified")
    if item.state == dl.FAILED:
        return item.error
    text = QCoreApplication.translate("DownloadsModel", "{0:.0%} · {1} of {2}").format(
        item.fraction, human_size(item.received), human_size(item.size)
    )
    if item.state == dl.RUNNING and item.speed > 0:
        text += f" · {human_size(int(item.speed))}/s"
        eta = item.eta_s
        if eta is not None:
            text += " · " + QCoreApplication.translate("DownloadsModel", "{0} left").format(
                human_duration(eta)
            )
    return text


class DownloadsModel(QAbstractTableModel):
    completed = Signal(str)  # the target path of a verified download
    failed = Signal(object)  # a Download that has just failed

    def __init__(
        self, manager: DownloadManager, parent: QObject | None = None, interval_ms: int = 500
    ) -> None:
        super().__init__(parent)
        self.manager = manager
        self.items: list[Download] = manager.snapshot()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.refresh)
        self._timer.start()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.items)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(COLUMNS)

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return _t(COLUMNS[section])
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        item = self.items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                item.path,
                item.repo_id,
                _t(STATE_TEXT.get(item.state, item.state)),
                progress_text(item),
                human_size(item.size),
            )[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return item.error or item.target
        if role == Qt.ItemDataRole.UserRole:
            return item.id
        return None

    def item_at(self, row: int) -> Download | None:
        return self.items[row] if 0 <= row < len(self.items) else None

    def refresh(self) -> None:
        fresh = self.manager.snapshot()
        before = {i.id: i for i in self.items}
        if [i.id for i in fresh] != [i.id for i in self.items]:
            self.beginResetModel()
            self.items = fresh
            self.endResetModel()
        else:
            for row, item in enumerate(fresh):
                if item != self.items[row]:
                    self.items[row] = item
                    self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))
        for item in fresh:
            old = before.get(item.id)
            if item.state == dl.DONE and (old is None or old.state != dl.DONE):
                self.completed.emit(item.target)
            if item.state == dl.FAILED and old is not None and old.state != dl.FAILED:
                self.failed.emit(item)
