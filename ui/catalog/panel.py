"""The Models screen's first view: Hearth's catalogue as cards, the models recommended for
this computer first, the whole catalogue one click away (above the hub search, which is
for those who know what they are looking for).  Under the cards: when their sizes were
last checked on the hub, and *Check the hub* to check them now (``app.hub.catalog_refresh``;
nothing is asked of a hub until then, unless the daily check is allowed in Settings)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
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
from ui.catalog.card import CardGrid, CatalogCard
from ui.catalog.downloads import CatalogDownloads
from ui.chat.welcome import welcome_style
from ui.theme import problem_style

COLUMNS = 4


class CatalogPanel(QWidget):
    chat_requested = Signal(str)  # a catalogue model's name
    check_requested = Signal()  # Check the hub

    def __init__(
        self,
        downloads: CatalogDownloads,
        is_here: Callable[[CatalogEntry], bool],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("catalogPanel")
        self.setStyleSheet(welcome_style())
        self.best: list[Ranked] = []
        self.picks: list[Ranked] = []
        self.showing_all = False
        self.matching = ""  # a search the hub could not answer: the catalogue's matches
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
        foot = QHBoxLayout()
        self.hub_note = QLabel("")
        self.hub_note.setObjectName("catalogHubNote")
        self.hub_note.setWordWrap(True)
        self.hub_note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.check_button = QPushButton(self.tr("Check the hub"))
        self.check_button.setObjectName("catalogCheck")
        self.check_button.setToolTip(
            self.tr(
                "Ask the hub for today's file names and sizes of the catalogue's models. "
                "Only the models' repositories are asked for; nothing about you."
            )
        )
        self.check_button.clicked.connect(self.check_requested)
        foot.addWidget(self.hub_note, 1)
        foot.addWidget(self.check_button)
        layout.addLayout(foot)
        self._fill()

    def set_hub_note(self, text: str, failed: bool = False) -> None:
        """When the sizes were checked (or why the check failed: said here, where the
        user pressed the button)."""
        self.hub_note.setText(text)
        self.hub_note.setStyleSheet(problem_style() if failed else "")

    def set_checking(self, checking: bool) -> None:
        self.check_button.setEnabled(not checking)
        self.check_button.setText(self.tr("Checking…") if checking else self.tr("Check the hub"))

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
        self.matching = ""
        self._fill()

    def show_matches(self, query: str) -> int:
        """Show the catalogue's models whose name, use or repository hold every word of
        ``query`` (the hub could not be asked); returns how many.  An empty query ends
        such a view (a later search was answered)."""
        if not query.strip() and not self.matching:
            return 0
        self.matching = " ".join(query.split())
        self.showing_all = bool(self.matching) and bool(self._matches())
        self._fill()
        return len(self._matches()) if self.matching else 0

    def _matches(self) -> list[Ranked]:
        words = self.matching.casefold().split()

        def text(ranked: Ranked) -> str:
            entry = ranked.entry
            return " ".join(
                (entry.name, entry.title, entry.purpose, entry.repo_hf, entry.repo_modelscope)
            ).casefold()

        return [r for r in self.best if all(word in text(r) for word in words)]

    def _fill(self) -> None:
        matches = self._matches() if self.matching else []
        shown = matches or (self.best if self.showing_all else self.picks)
        if self.showing_all:
            self.all_box.setFixedHeight(max(2 * self.picks_box.height(), 200) + 10)
        self.all_grid.show_cards(shown if self.showing_all else [])
        self.picks_grid.show_cards([] if self.showing_all else shown)
        self.title.setText(
            self.tr("Hearth's catalogue: {0} models match “{1}”").format(
                len(matches), self.matching
            )
            if matches
            else self.tr("Hearth's catalogue by use, the best for this computer first")
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
