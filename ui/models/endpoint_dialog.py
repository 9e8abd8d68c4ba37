"""Adding a server endpoint: a name, an address, and an API key kept in the keyring."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QFormLayout, QLabel, QLineEdit, QWidget

from app.core import Core
from app.errors import HearthError
from ui.dialog_parts import add_problem_and_buttons
from ui.i18n import translated


class EndpointDialog(QDialog):
    def __init__(self, core: Core, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.core = core
        self.setWindowTitle(self.tr("Add a server endpoint"))
        form = QFormLayout(self)
        form.addRow(
            QLabel(
                self.tr(
                    "An OpenAI-compatible server: vLLM, trtllm-serve, Ollama, "
                    "llama-server, LM Studio or another Hearth."
                )
            )
        )
        self.name = QLineEdit()
        self.name.setPlaceholderText(self.tr("e.g. gpu-box"))
        self.url = QLineEdit()
        self.url.setPlaceholderText(self.tr("http://192.168.1.20:8000"))
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText(self.tr("optional; kept in the system keyring"))
        for label, field in (
            (self.tr("Name"), self.name),
            (self.tr("Address"), self.url),
            (self.tr("API key"), self.key),
        ):
            field.setAccessibleName(label)
            form.addRow(label, field)
        self.problem = add_problem_and_buttons(self, form.addRow)

    def accept(self) -> None:
        try:
            self.core.endpoints.add(self.name.text(), self.url.text(), self.key.text())
        except HearthError as exc:
            self.problem.setText(translated(exc.message))
            self.problem.show()
            return
        super().accept()
