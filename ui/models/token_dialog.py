"""Asking for a hub access token (gated or private repositories); kept in the keyring."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QInputDialog, QLineEdit, QWidget


def ask_token(parent: QWidget, source: str, report: Callable[[BaseException, str], None]) -> bool:
    """Ask for a token for ``source`` ("hf" or "modelscope"); True when one was saved."""
    from app.secrets import set_token

    name = "Hugging Face" if source == "hf" else "ModelScope"
    token, ok = QInputDialog.getText(
        parent,
        QCoreApplication.translate("MainWindow", "{0} access token").format(name),
        QCoreApplication.translate(
            "MainWindow",
            "This needs a {0} access token. Paste it here; it is kept in the system keyring. "
            "Leave it empty to remove a saved token.",
        ).format(name),
        QLineEdit.EchoMode.Password,
    )
    if not ok:
        return False
    try:
        set_token(source, token.strip())
    except Exception as exc:  # noqa: BLE001 - shown to the user
        report(exc, QCoreApplication.translate("MainWindow", "saving the token"))
        return False
    return bool(token.strip())
