"""A cited source, checked: the exact passage the model was given, shown in its place
(with the passages before and after it, when its collection still has them), and a button
that opens the file in the system's viewer."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.docs.formats import kind_of
from app.docs.grounding import Source
from app.docs.index import DocumentIndex
from ui.chat.documents_html import source_label
from ui.visual import Palette


class SourcePreview(QDialog):
    def __init__(
        self,
        source: Source,
        index: DocumentIndex | None,
        palette: Palette,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.source = source
        self.setObjectName("sourcePreview")
        self.setWindowTitle(self.tr("Source [{0}]: {1}").format(source.n, source_label(source)))
        self.resize(720, 520)
        layout = QVBoxLayout(self)
        where = QLabel(self._where())
        where.setWordWrap(True)
        layout.addWidget(where)
        self.view = QTextBrowser()
        self.view.setObjectName("sourceText")
        self.view.setOpenLinks(False)
        self.view.setHtml(self._html(index, palette))
        layout.addWidget(self.view, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.open_button = QPushButton(self.tr("Open the file"))
        # Only a document of a kind Hearth reads is opened (an imported chat could name
        # any path, a program included).
        path = Path(source.path) if source.path else None
        self.open_button.setEnabled(
            path is not None and path.is_file() and kind_of(path) is not None
        )
        if not self.open_button.isEnabled():
            self.open_button.setToolTip(self.tr("The file is no longer where it was."))
        self.open_button.clicked.connect(self.open_file)
        buttons.addButton(self.open_button, QDialogButtonBox.ButtonRole.ActionRole)
        layout.addWidget(buttons)

    def _where(self) -> str:
        source = self.source
        if source.whole:
            return self.tr("The whole of {0} was given to the model.").format(source_label(source))
        if source.collection:
            return self.tr("This passage of {0} (collection {1}) was given to the model.").format(
                source.path or source.file, source.collection
            )
        return self.tr("This passage of {0} was given to the model.").format(source_label(source))

    def _html(self, index: DocumentIndex | None, palette: Palette) -> str:
        """The passage highlighted between its neighbours (from the index), or alone."""
        source = self.source
        passage = _paragraphs(source.text)
        highlighted = f'<div style="background-color:{palette.editing_background};">{passage}</div>'
        if index is None or not source.collection or source.whole:
            return highlighted
        try:
            around = index.neighbours(source.collection, source.path or source.file, source.ordinal)
        except Exception:  # noqa: BLE001 - the preview still shows what was given
            around = []
        parts = []
        for ordinal, text in around:
            if ordinal == source.ordinal:
                parts.append(highlighted)
            else:
                parts.append(f'<div style="color:{palette.muted};">{_paragraphs(text)}</div>')
        return "".join(parts) if any(o == source.ordinal for o, _ in around) else highlighted

    def open_file(self) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(self.source.path))


def _paragraphs(text: str) -> str:
    return "".join(
        f"<p>{html.escape(p).replace(chr(10), '<br>')}</p>" for p in text.split("\n\n") if p.strip()
    )
