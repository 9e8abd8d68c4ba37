"""One recommended model as a card: what it is good at, the download size, how it will run
on this computer (the fit verdict and expected speed), its licence, and one button that
downloads it — with progress in the card — or starts a chat with it once it is here.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.hub.catalog import CatalogEntry, Ranked
from app.machine.fit import CPU, FITS_GPU, NO_FIT, PARTIAL
from ui.catalog.downloads import CatalogDownloads
from ui.i18n import current_language
from ui.visual import SPACE

PURPOSE_LABELS = {
    "chat": QT_TRANSLATE_NOOP("CatalogCard", "Everyday chat"),
    "reasoning": QT_TRANSLATE_NOOP("CatalogCard", "Reasoning (thinks first)"),
    "coding": QT_TRANSLATE_NOOP("CatalogCard", "Coding"),
    "multilingual": QT_TRANSLATE_NOOP("CatalogCard", "Chinese and many languages"),
    "vision": QT_TRANSLATE_NOOP("CatalogCard", "Pictures (reads images)"),
    "embedding": QT_TRANSLATE_NOOP("CatalogCard", "Document search (embeddings)"),
}
VERDICT_LABELS = {
    FITS_GPU: QT_TRANSLATE_NOOP("CatalogCard", "Runs on your GPU"),
    PARTIAL: QT_TRANSLATE_NOOP("CatalogCard", "Runs partly on your GPU"),
    CPU: QT_TRANSLATE_NOOP("CatalogCard", "Runs on your CPU"),
    NO_FIT: QT_TRANSLATE_NOOP("CatalogCard", "Too large for this computer"),
}


def tr_card(text: object) -> str:
    return QCoreApplication.translate("CatalogCard", str(text))


class CatalogCard(QFrame):
    chat_requested = Signal(str)  # the model's catalogue name

    def __init__(
        self,
        ranked: Ranked,
        downloads: CatalogDownloads,
        is_here: Callable[[CatalogEntry], bool],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("catalogCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.ranked, self.entry = ranked, ranked.entry
        self.downloads, self.is_here = downloads, is_here
        entry, fit = ranked.entry, ranked.estimate
        layout = QVBoxLayout(self)
        layout.setContentsMargins(SPACE["l"], SPACE["m"], SPACE["l"], SPACE["m"])
        layout.setSpacing(SPACE["s"])
        self.title = QLabel(entry.title)
        self.title.setObjectName("cardTitle")
        self.title.setWordWrap(True)
        purpose = QLabel(tr_card(PURPOSE_LABELS.get(entry.purpose, entry.purpose)))
        purpose.setObjectName("cardPurpose")
        purpose.setForegroundRole(QPalette.ColorRole.Link)
        purpose.setWordWrap(True)
        layout.addWidget(self.title)
        layout.addWidget(purpose)
        summary = QLabel(entry.summary_in(current_language()))
        summary.setWordWrap(True)
        summary.setObjectName("cardSummary")
        layout.addWidget(summary)
        speed = (
            self.tr("about {0} words a second").format(max(round(fit.tokens_per_s * 0.75), 1))
            if fit.tokens_per_s and fit.verdict != NO_FIT
            else ""
        )
        verdict = tr_card(VERDICT_LABELS.get(fit.verdict, fit.verdict_text))
        size = entry.size_bytes + entry.projector_bytes  # a projector comes with its model
        facts = [
            self.tr("{0} download").format(f"{size / 1e9:.1f} GB"),
            *([self.tr("reads images")] if entry.reads_images else []),
            f"{verdict}, {speed}" if speed else verdict,
            entry.license,
        ]
        self.facts = QLabel(" · ".join(facts))
        self.facts.setObjectName("cardFacts")
        self.facts.setForegroundRole(QPalette.ColorRole.PlaceholderText)  # quieter, any theme
        self.facts.setWordWrap(True)
        self.facts.setToolTip(
            self.tr("{0} parameters, {1} file {2} from {3}").format(
                entry.parameters, entry.quantization, entry.file, entry.repo_hf
            )
        )
        layout.addWidget(self.facts)
        layout.addStretch(1)  # cards of one row share a height: the room goes above the button
        row = QHBoxLayout()
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(8)
        self.status = QLabel("")
        self.status.setObjectName("cardStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # a hub's words, never markup
        self.button = QPushButton("")
        self.button.setObjectName("cardButton")
        self.button.clicked.connect(self._clicked)
        row.addWidget(self.status, 1)
        row.addWidget(self.button)
        layout.addWidget(self.progress)
        layout.addLayout(row)
        # A failure's details: each hub's answer, folded until asked for.
        self.details_button = QToolButton()
        self.details_button.setObjectName("cardDetailsButton")
        self.details_button.setText(self.tr("Details"))
        self.details_button.setCheckable(True)
        self.details_button.setAutoRaise(True)
        self.details_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.details_button.setArrowType(Qt.ArrowType.RightArrow)
        self.details_button.hide()
        self.details = QLabel("")
        self.details.setObjectName("cardDetails")
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.details.hide()
        self.details_button.toggled.connect(self._fold)
        layout.addWidget(self.details_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.details)
        downloads.changed.connect(self._changed)
        self.refresh()

    def _fold(self, shown: bool) -> None:
        self.details.setVisible(shown)
        self.details_button.setArrowType(
            Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        )

    def _changed(self, name: str) -> None:
        if name == self.entry.name:
            self.refresh()

    def refresh(self) -> None:
        state = self.downloads.state(self.entry.name)
        if state is not None:
            self.progress.show()
            if state.fraction < 0:
                self.progress.setRange(0, 0)  # busy: the file is being looked up
            else:
                self.progress.setRange(0, 1000)
                self.progress.setValue(int(state.fraction * 1000))
            self.status.setText(state.words)
            self.button.setText(self.tr("Cancel"))
            self.button.setAccessibleName(
                self.tr("Cancel downloading {0}").format(self.entry.title)
            )
            return
        self.progress.hide()
        if self.is_here(self.entry):
            self.status.setText(self.tr("Downloaded"))
            self.button.setText(self.tr("Chat with it"))
            self.button.setAccessibleName(self.tr("Chat with {0}").format(self.entry.title))
        else:
            if not self.status.property("failed"):
                self.status.setText("")
            self.button.setText(self.tr("Download"))
            self.button.setAccessibleName(self.tr("Download {0}").format(self.entry.title))

    def show_failure(self, message: str, details: str = "") -> None:
        """One sentence in the card, the hubs' own answers folded under Details."""
        self.status.setText(message)
        self.status.setToolTip(message)
        self.status.setProperty("failed", True)
        self.status.setWordWrap(True)
        self.details.setText(details)
        self.details_button.setVisible(bool(details))
        self.details_button.setChecked(False)
        self.button.setText(self.tr("Try again"))
        self.button.setAccessibleName(self.tr("Try again to download {0}").format(self.entry.title))

    def clear_failure(self) -> None:
        """Forget a failure (a new chat's welcome does not keep an old error)."""
        if self.status.property("failed"):
            self.status.setProperty("failed", False)
            self.status.setToolTip("")
            self.details.clear()
            self.details_button.hide()
            self.details_button.setChecked(False)
            self.refresh()

    def _clicked(self) -> None:
        if self.downloads.state(self.entry.name) is not None:
            self.downloads.cancel(self.entry.name)
        elif self.is_here(self.entry):
            self.chat_requested.emit(self.entry.name)
        else:
            self.clear_failure()
            self.downloads.start(self.entry)
        self.refresh()


class CardGrid(QGridLayout):
    """Cards of catalogue models in equal columns: made, found and refreshed in one place
    for the welcome and the Models screen."""

    def __init__(
        self,
        downloads: CatalogDownloads,
        is_here: Callable[[CatalogEntry], bool],
        on_chat: Callable[[str], None],
        columns: int,
        spacing: int,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.downloads, self.is_here, self.on_chat = downloads, is_here, on_chat
        self.columns = columns
        self.cards: list[CatalogCard] = []
        self.setContentsMargins(0, 0, 0, 0)
        self.setSpacing(spacing)
        for index in range(columns):
            self.setColumnStretch(index, 1)

    def show_cards(self, shown: list[Ranked]) -> None:
        for card in self.cards:
            card.setParent(None)
            card.deleteLater()
        self.cards = []
        for index, ranked in enumerate(shown):
            card = CatalogCard(ranked, self.downloads, self.is_here)
            card.chat_requested.connect(self.on_chat)
            self.addWidget(card, index // self.columns, index % self.columns)
            self.cards.append(card)

    def card(self, name: str) -> CatalogCard | None:
        return next((c for c in self.cards if c.entry.name == name), None)

    def refresh(self) -> None:
        """The library changed: cards say Download or Chat with it accordingly."""
        for card in self.cards:
            card.refresh()
