"""Under the composer: files attached to the next message, and the collections the chat
answers from.

Attached files show as chips with their size in tokens (read in the background, through
the extraction process); a file that cannot be read says why and is not kept.  The
collections menu lists the Documents screen's collections; the ones ticked stay ticked
for the conversation.  Nothing is read on the main thread.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QToolButton,
    QWidget,
)

from app.docs.extraction import Extractor, Skipped
from app.docs.formats import SUPPORTED_SUFFIXES
from app.docs.library import Documents
from app.docs.terms import estimate_tokens
from app.errors import describe_error
from ui.background import run_in_background
from ui.i18n import translated
from ui.visual import SPACE
from wire import images


class _Chip(QFrame):
    removed = Signal(object)

    def __init__(self, path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self.tokens: int | None = None
        self.setObjectName("attachmentChip")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        row = QHBoxLayout(self)
        row.setContentsMargins(SPACE["s"], SPACE["xxs"], SPACE["xxs"], SPACE["xxs"])
        row.setSpacing(SPACE["xs"])
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        row.addWidget(self.label)
        self.close_button = close = QToolButton()
        close.setText("×")
        close.setAutoRaise(True)
        close.setAccessibleName(self.tr("Remove {0}").format(path.name))
        close.clicked.connect(lambda: self.removed.emit(self))
        row.addWidget(close)
        self.show_reading()

    def show_reading(self) -> None:
        self.label.setText(self.tr("{0} · reading…").format(self.path.name))

    def show_tokens(self, tokens: int) -> None:
        self.tokens = tokens
        self.label.setText(self.tr("{0} · {1:,} tokens").format(self.path.name, tokens))


class DocumentsBar(QWidget):
    changed = Signal()

    def __init__(
        self,
        documents: Documents,
        show_error: Callable[[str], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.documents = documents
        self.show_error = show_error
        self.chips: list[_Chip] = []
        self.pictures_to: Callable[[list[Path]], None] | None = None
        self._collections: list[str] = []
        row = self.row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(SPACE["s"])
        self.attach_button = QToolButton()
        self.attach_button.setObjectName("attachButton")
        self.attach_button.setText(self.tr("Attach…"))
        self.attach_button.setToolTip(
            self.tr(
                "Give the model files or pictures with your next message (or drop them on "
                "the box, or paste a picture)"
            )
        )
        self.attach_button.setAccessibleName(self.tr("Attach files"))
        self.attach_button.clicked.connect(self.choose_files)
        row.addWidget(self.attach_button)
        self.collections_button = QToolButton()
        self.collections_button.setObjectName("collectionsButton")
        self.collections_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.collections_button.setAccessibleName(self.tr("Collections this chat answers from"))
        self.menu = QMenu(self.collections_button)
        self.menu.aboutToShow.connect(self._fill_menu)
        self.collections_button.setMenu(self.menu)
        row.addWidget(self.collections_button)
        self.chip_row = QHBoxLayout()
        self.chip_row.setSpacing(SPACE["xs"])
        row.addLayout(self.chip_row)
        row.addStretch(1)
        self._show_collections()

    def add_controls(self, widgets: list[QWidget]) -> None:
        """Controls of another part (the Tools button and its choice), after Collections."""
        at = self.row.indexOf(self.collections_button) + 1
        for offset, widget in enumerate(widgets):
            self.row.insertWidget(at + offset, widget)

    def stops(self) -> list[QWidget]:
        """Where Tab stops in the bar, left to right: its buttons, then each file's ×."""
        stops: list[QWidget] = []
        for index in range(self.row.count()):
            item = self.row.itemAt(index)
            widget = item.widget() if item is not None else None
            if widget is not None:
                stops.append(widget)
        return stops + [chip.close_button for chip in self.chips]

    # -- attachments ------------------------------------------------------------------
    def choose_files(self) -> None:
        patterns = " ".join(f"*{suffix}" for suffix in sorted(SUPPORTED_SUFFIXES))
        pictures = " ".join(f"*{suffix}" for suffix in images.SUFFIXES)
        paths, _ = QFileDialog.getOpenFileNames(
            self,
            self.tr("Attach files"),
            "",
            ";;".join(
                (
                    self.tr("Documents and pictures ({0})").format(f"{patterns} {pictures}"),
                    self.tr("Documents ({0})").format(patterns),
                    self.tr("Pictures ({0})").format(pictures),
                )
            ),
        )
        self.add_files([Path(p) for p in paths])

    def add_files(self, paths: list[Path]) -> None:
        """Documents become chips; pictures go to ``pictures_to`` (the picture tray)."""
        pictures = [p for p in paths if p.suffix.lower() in images.SUFFIXES]
        if pictures and self.pictures_to is not None:
            self.pictures_to(pictures)
            paths = [p for p in paths if p not in pictures]
        for path in paths:
            if any(chip.path == path for chip in self.chips):
                continue
            chip = _Chip(path)
            chip.removed.connect(self._remove_chip)
            self.chips.append(chip)
            self.chip_row.addWidget(chip)
            self._read(chip)
        self.changed.emit()

    def _read(self, chip: _Chip) -> None:
        """Count the chip's tokens in the background (the file is read by the extraction
        process); an unreadable file says why and its chip goes."""
        path = chip.path

        def counted(tokens: int) -> None:
            self._counted(chip, tokens)

        def unreadable(exc: BaseException) -> None:
            self._unreadable(chip, exc)

        run_in_background(self, lambda: _count_tokens(path), counted, unreadable)

    def _counted(self, chip: _Chip, tokens: int) -> None:
        if chip in self.chips:
            chip.show_tokens(tokens)
            self.changed.emit()

    def _unreadable(self, chip: _Chip, exc: BaseException) -> None:
        reason = (
            exc.reason
            if isinstance(exc, Skipped)
            else translated(describe_error(exc, self.tr("reading {0}").format(chip.path.name)))
        )
        self.show_error(self.tr("{0} cannot be attached: {1}.").format(chip.path.name, reason))
        self._remove_chip(chip)

    def _remove_chip(self, chip: _Chip) -> None:
        if chip in self.chips:
            self.chips.remove(chip)
            chip.deleteLater()
            self.changed.emit()

    def attachments(self) -> list[Path]:
        return [chip.path for chip in self.chips]

    @property
    def reading(self) -> bool:
        """Some attached file is still being read."""
        return any(chip.tokens is None for chip in self.chips)

    def clear_attachments(self) -> None:
        for chip in list(self.chips):
            self._remove_chip(chip)

    # -- collections ------------------------------------------------------------------
    def collections(self) -> list[str]:
        known = set(self.documents.collections.names())
        return [name for name in self._collections if name in known]

    def set_collections(self, names: list[str]) -> None:
        self._collections = list(names)
        self._show_collections()

    def _fill_menu(self) -> None:
        self.menu.clear()
        names = self.documents.collections.names()
        if not names:
            empty = self.menu.addAction(
                self.tr("No collections yet: make one on the Documents screen")
            )
            empty.setEnabled(False)
            return
        for name in names:
            action = self.menu.addAction(name)
            action.setCheckable(True)
            action.setChecked(name in self._collections)
            action.toggled.connect(lambda on, name=name: self._toggle(name, on))

    def _toggle(self, name: str, on: bool) -> None:
        if on and name not in self._collections:
            self._collections.append(name)
        elif not on and name in self._collections:
            self._collections.remove(name)
        self._show_collections()
        self.changed.emit()

    def _show_collections(self) -> None:
        chosen = self.collections()
        if chosen:
            self.collections_button.setText(self.tr("Collections: {0}").format(", ".join(chosen)))
        else:  # the button's menu draws its own arrow
            self.collections_button.setText(self.tr("Collections"))


def _count_tokens(path: Path) -> int:
    with Extractor() as extractor:
        return estimate_tokens(extractor.extract(path).text)
