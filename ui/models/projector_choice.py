"""Model settings' choice of a GGUF model's image projector: the one beside it
(automatic), none (the model reads text only), another projector beside it, or a file the
person picks."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QComboBox, QFileDialog, QWidget

from app.models.library import ModelEntry, projector_files

OTHER = "\0other"  # the entry that asks for a file


def projector_choice(entry: ModelEntry, chosen: str | None, parent: QWidget) -> QComboBox:
    """A combo box whose current data is the choice kept in ``ModelChoice.projector``."""
    combo = QComboBox(parent)
    combo.setAccessibleName(QCoreApplication.translate("ProjectorChoice", "Image projector"))
    combo.setToolTip(
        QCoreApplication.translate(
            "ProjectorChoice",
            "The projector (mmproj-*.gguf) through which this model reads pictures. "
            "Automatic: the one beside it.",
        )
    )
    beside = (
        entry.projector.name
        if entry.projector is not None
        else QCoreApplication.translate("ProjectorChoice", "none found")
    )
    combo.addItem(
        QCoreApplication.translate("ProjectorChoice", "Automatic ({0})").format(beside), None
    )
    combo.addItem(
        QCoreApplication.translate("ProjectorChoice", "None: the model reads text only"), ""
    )
    folder = entry.path.parent
    for path in projector_files(folder):
        combo.addItem(path.name, str(path))
    if chosen and combo.findData(chosen) < 0:
        combo.addItem(Path(chosen).name, chosen)
    combo.addItem(QCoreApplication.translate("ProjectorChoice", "Another file…"), OTHER)
    combo.setCurrentIndex(max(combo.findData(chosen), 0))
    previous = [combo.currentIndex()]

    def picked(index: int) -> None:
        if combo.itemData(index) != OTHER:
            previous[0] = index
            return
        path, _ = QFileDialog.getOpenFileName(
            parent,
            QCoreApplication.translate("ProjectorChoice", "Choose the image projector"),
            str(folder),
            QCoreApplication.translate("ProjectorChoice", "GGUF files (*.gguf)"),
        )
        if not path:
            combo.setCurrentIndex(previous[0])
            return
        at = combo.findData(path)
        if at < 0:
            combo.insertItem(combo.count() - 1, Path(path).name, path)
            at = combo.findData(path)
        combo.setCurrentIndex(at)

    combo.currentIndexChanged.connect(picked)
    return combo
