"""What an empty chat shows: what Hearth is, that nothing leaves this computer, whether
the model chosen is only the starter demo, and a few models recommended for this machine
as cards (``ui.catalog.card``) that download with one click.

It stands in for the transcript until the conversation has a message (``ChatScreen``).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
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
from ui.visual import RADIUS, SPACE, points

COLUMNS = 2
READING_WIDTH = 860  # the column the welcome is laid out in, centred


# Colours from the palette, so the light and dark themes both apply.
def welcome_style() -> str:
    """The welcome's and the catalogue's surfaces, on the visual system of ui/theme.py."""
    surface = RADIUS["surface"]
    return f"""
#welcome, #welcomeInner {{ background: transparent; }}
#welcomeTitle {{ font-size: {points("display")}pt; font-weight: 600; }}
#welcomeModelNote {{ background: palette(alternate-base); border-radius: {surface}px;
    padding: {SPACE["m"]}px; }}
#catalogCard {{ background: palette(base); border: 1px solid palette(mid);
    border-radius: {surface}px; }}
#cardTitle {{ font-size: {points("heading")}pt; font-weight: 600; }}
"""


class WelcomePanel(QScrollArea):
    chat_requested = Signal(str)  # a catalogue model's name
    models_requested = Signal()  # "More models": the Models screen

    def __init__(
        self,
        downloads: CatalogDownloads,
        is_here: Callable[[CatalogEntry], bool],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        # Not a Tab stop of its own (nothing would show it): its cards' buttons are, and
        # the panel scrolls to the one that has the focus.
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setStyleSheet(welcome_style())
        inner = QWidget()
        inner.setObjectName("welcomeInner")
        outer = QVBoxLayout(inner)
        outer.setContentsMargins(SPACE["xl"], SPACE["xl"], SPACE["xl"], SPACE["xl"])
        column = QWidget()
        column.setMaximumWidth(READING_WIDTH)
        # Centred by stretches, not by alignment: an aligned widget is sized to its hint,
        # and its wrapped text would be cut.
        centred = QHBoxLayout()
        centred.addStretch(1)
        centred.addWidget(column, 100)
        centred.addStretch(1)
        outer.addLayout(centred)
        outer.addStretch(1)
        layout = QVBoxLayout(column)
        layout.setSpacing(SPACE["m"])
        title = QLabel(self.tr("Welcome to Hearth"))
        title.setObjectName("welcomeTitle")
        layout.addWidget(title)
        about = QLabel(
            self.tr(
                "Hearth runs open language models on this computer. What you write stays "
                "here: nothing is sent anywhere, and it works offline."
            )
        )
        about.setWordWrap(True)
        layout.addWidget(about)
        self.model_note = QLabel("")
        self.model_note.setObjectName("welcomeModelNote")
        self.model_note.setTextFormat(Qt.TextFormat.PlainText)  # a model's name, never markup
        self.model_note.setWordWrap(True)
        layout.addWidget(self.model_note)
        # Until the system check has found this machine's memory and GPU (a second or two).
        self.finding = QLabel(self.tr("Finding the models that suit this computer…"))
        self.finding.setObjectName("welcomeFinding")
        layout.addWidget(self.finding)
        self.grid = CardGrid(downloads, is_here, self.chat_requested.emit, COLUMNS, 12)
        layout.addLayout(self.grid)
        self.more = QPushButton(self.tr("More models…"))
        self.more.setObjectName("welcomeMore")
        self.more.clicked.connect(self.models_requested)
        layout.addWidget(self.more, 0, Qt.AlignmentFlag.AlignLeft)
        self.setWidget(inner)
        self.set_model(None, starter=False)

    def set_model(self, name: str | None, starter: bool) -> None:
        """Say what the chosen model is: the starter gets an honest warning."""
        if starter:
            self.model_note.setText(
                self.tr(
                    "You are chatting with the starter, a tiny demo model (135 million "
                    "parameters): it answers at once, but often wrongly. For useful answers, "
                    "download one of these models, chosen for this computer:"
                )
            )
        elif name:
            self.model_note.setText(
                self.tr(
                    "Type a message below to chat with {0}, or try a model recommended for "
                    "this computer:"
                ).format(name)
            )
        else:
            self.model_note.setText(self.tr("Download a model to start; these suit this computer:"))

    @property
    def cards(self) -> list[CatalogCard]:
        return self.grid.cards

    def set_picks(self, picks: list[Ranked]) -> None:
        self.grid.show_cards(picks)
        self.finding.hide()
        # Tab goes through the cards as they read (left to right, row by row), then to
        # More models under them: the cards are made after it, so the order is set here.
        buttons = [card.button for card in self.grid.cards]
        for before, after in zip(buttons, [*buttons[1:], self.more], strict=True):
            QWidget.setTabOrder(before, after)

    def refresh(self) -> None:
        """The library changed: cards say Download or Chat with it accordingly."""
        self.grid.refresh()

    def showEvent(self, event: QShowEvent) -> None:
        """A new chat's welcome starts clean: a download that failed earlier (offline, say)
        is not still reported on its card."""
        for card in self.grid.cards:
            card.clear_failure()
        super().showEvent(event)

    def card(self, name: str) -> CatalogCard | None:
        return self.grid.card(name)
