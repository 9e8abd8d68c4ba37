"""Asking before a checkpoint's own Python code may run (``trust_remote_code``)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMessageBox, QWidget

from app.core import Core, code_fingerprint
from app.models.library import ModelEntry


def ask_remote_code_consent(parent: QWidget, core: Core, entry: ModelEntry) -> bool:
    """Show which code a checkpoint wants to run; remember a yes for exactly that code."""

    files = sorted(p.name for p in entry.path.glob("*.py"))
    preview = []
    for name in files[:3]:
        lines = (entry.path / name).read_text(encoding="utf-8", errors="replace").splitlines()
        preview.append(f"--- {name} ({len(lines)} lines) ---\n" + "\n".join(lines[:12]))
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle(QCoreApplication.translate("RemoteCodeDialog", "Run this model's own code?"))
    code = ", ".join(files) or "files named in its config"
    box.setText(
        QCoreApplication.translate(
            "RemoteCodeDialog",
            "{0} comes with Python code ({1}) that transformers would run on your computer "
            "with your permissions. Allow it only if you trust where the model comes from. "
            "Hearth remembers your answer for exactly this code; if the files change, it asks "
            "again.",
        ).format(entry.name, code)
    )
    box.setDetailedText("\n\n".join(preview))
    box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
    box.setDefaultButton(QMessageBox.StandardButton.No)
    if box.exec() != QMessageBox.StandardButton.Yes:
        return False
    choice = core.overrides.get(str(entry.path))
    choice.trusted_code = code_fingerprint(entry.path)
    core.overrides.set(str(entry.path), choice)
    return True


def offer_remote_code(
    parent: QWidget, core: Core, model: ModelEntry | None, say: Callable[[str], None]
) -> None:
    """A reply failed because the model needs its own code: ask, and say what to do next."""
    if model is not None and ask_remote_code_consent(parent, core, model):
        say(
            QCoreApplication.translate(
                "ChatScreen", "Allowed. Send your message again to load the model with its code."
            )
        )
