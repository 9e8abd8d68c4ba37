"""The Models screen's first view: Hearth's catalogue as cards, the models recommended for
this computer first, the whole catalogue one click away (above the hub search, which is
for those who know what they are looking for)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.hub.catalog import CatalogEntry, Ranked
from ui.catalog_card import CardGrid, CatalogCard
from ui.catalog_downloads import CatalogDownloads
from ui.chat.welcome import STYLE

COLUMNS = 4


class CatalogPanel(QWidget):
    chat_requested = Signal(str)  # a catalogue model's name

    def __init__(
        self,
        downloads: CatalogDownloads,
        is_here: Callable[[CatalogEntry], bool],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("catalogPanel")
        self.setStyleSheet(STYLE)
        self.best: list[Ranked] = []
        self.picks: list[Ranked] = []
        self.showing_all = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        self.title = QLabel(self.tr("Recommended for this computer"))
        self.title.setObjectName("catalogTitle")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.toggle = QPushButton("")
        self.toggle.setObjectName("catalogToggle")
        self.toggle.clicked.connect(self._toggle)
        head.addWidget(self.title, 1)
        head.addWidget(self.toggle)
        layout.addLayout(head)
        # The recommendations lie in the page (their wrapped text sizes them); the whole
        # catalogue scrolls in about two rows of the same height.
        self.picks_box = QWidget()
        self.picks_grid = CardGrid(
            downloads, is_here, self.chat_requested.emit, COLUMNS, 10, self.picks_box
        )
        layout.addWidget(self.picks_box)
        self.all_box = QScrollArea()
        self.all_box.setWidgetResizable(True)
        self.all_box.setFrameShape(QFrame.Shape.NoFrame)
        self.all_box.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        every = QWidget()
        self.all_grid = CardGrid(downloads, is_here, self.chat_requested.emit, COLUMNS, 10, every)
        self.all_box.setWidget(every)
        layout.addWidget(self.all_box)
        self._fill()

    def set_ranked(self, best: list[Ranked], picks: list[Ranked]) -> None:
        self.best, self.picks = best, picks
        self._fill()

    @property
    def cards(self) -> list[CatalogCard]:
        return (self.all_grid if self.showing_all else self.picks_grid).cards

    def card(self, name: str) -> CatalogCard | None:
        return (self.all_grid if self.showing_all else self.picks_grid).card(name)

    def refresh(self) -> None:
        (self.all_grid if self.showing_all else self.picks_grid).refresh()

    def _toggle(self) -> None:
        self.showing_all = not self.showing_all
        self._fill()

    def _fill(self) -> None:
        shown = self.best if self.showing_all else self.picks
        if self.showing_all:
            self.all_box.setFixedHeight(max(2 * self.picks_box.height(), 200) + 10)
        self.all_grid.show_cards(shown if self.showing_all else [])
        self.picks_grid.show_cards([] if self.showing_all else shown)
        self.title.setText(
            self.tr("Hearth's catalogue, best first for this computer")
            if self.showing_all
            else self.tr("Recommended for this computer")
        )
        self.picks_box.setVisible(not self.showing_all)
        self.all_box.setVisible(self.showing_all)
        self.toggle.setText(
            self.tr("Show fewer")
            if self.showing_all
            else self.tr("All {0} catalogue models").format(len(self.best))
        )
        self.toggle.setVisible(bool(self.best))
        self.setVisible(bool(shown))
