"""Which build of the PyTorch engine to install: the variants this version of Hearth offers
for this computer, the one Hearth suggests chosen, and each that cannot run here disabled
with its reason in one sentence ("the driver supports CUDA 12.2; this build needs 13.0"),
so nobody downloads gigabytes that the check would refuse."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from app.packs.engine_list import VariantChoice
from app.packs.fetch import amount
from ui.i18n import translated
from ui.visual import SPACE

VARIANT_WORDS = {
    "cpu": QT_TRANSLATE_NOOP("VariantDialog", "CPU: runs on any computer"),
    "cuda": QT_TRANSLATE_NOOP("VariantDialog", "CUDA: on an NVIDIA GPU"),
    "rocm": QT_TRANSLATE_NOOP("VariantDialog", "ROCm: on an AMD GPU"),
    "mps": QT_TRANSLATE_NOOP("VariantDialog", "MPS: on the GPU of Apple silicon"),
}


def variant_words(variant: str) -> str:
    return QCoreApplication.translate("VariantDialog", str(VARIANT_WORDS.get(variant, variant)))


class VariantDialog(QDialog):
    """The choice of variant; ``chosen()`` once accepted."""

    def __init__(
        self, choices: Sequence[VariantChoice], current: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("variantDialog")
        self.setWindowTitle(self.tr("Install the PyTorch engine"))
        layout = QVBoxLayout(self)
        intro = QLabel(
            self.tr(
                "Which build of the PyTorch engine should Hearth install? The one suggested "
                "for this computer is chosen."
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.group = QButtonGroup(self)
        self.buttons: dict[str, QRadioButton] = {}
        self.reasons: dict[str, QLabel] = {}
        for choice in choices:
            words = self.tr("{0} ({1} to download)").format(
                variant_words(choice.name), amount(choice.download)
            )
            if choice.suggested:
                words += " · " + self.tr("suggested")
            if choice.name == current:
                words += " · " + self.tr("installed now")
            button = QRadioButton(words)
            button.setObjectName(f"variant:{choice.name}")
            button.setEnabled(not choice.refusal)
            self.group.addButton(button)
            self.buttons[choice.name] = button
            layout.addWidget(button)
            if choice.refusal:
                reason = QLabel(self.tr("Cannot run here: {0}.").format(translated(choice.refusal)))
                reason.setObjectName(f"reason:{choice.name}")
                reason.setWordWrap(True)
                reason.setIndent(SPACE["xl"])
                reason.setForegroundRole(QPalette.ColorRole.PlaceholderText)  # muted
                button.setToolTip(reason.text())
                self.reasons[choice.name] = reason
                layout.addWidget(reason)
        preferred = [c.name for c in choices if c.suggested and not c.refusal]
        usable = preferred + [c.name for c in choices if not c.refusal]
        if usable:
            self.buttons[usable[0]].setChecked(True)
        note = QLabel(
            self.tr(
                "An interrupted download goes on where it stopped. Nothing changes until the "
                "new engine has been checked on this computer."
            )
        )
        note.setWordWrap(True)
        note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        layout.addSpacing(SPACE["s"])
        layout.addWidget(note)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.install_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.install_button.setText(self.tr("Install"))
        self.install_button.setEnabled(bool(usable))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def chosen(self) -> str:
        return next((name for name, b in self.buttons.items() if b.isChecked()), "")
