"""Asking before a tool call: which tool of which server, what its server says it may do,
and the arguments the model chose, with control and bidi characters shown as escapes (a
server's name must not reverse or hide what the question says).  *Always allow* keeps the
choice for that tool of that server (Tool servers… takes it back); Esc, closing and Enter
are *Deny* (the dialog may open while the person types).  The dialog never blocks the
window's thread: it answers through ``decided``."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.tools.approval import Decision, PendingCall, risks
from ui.i18n import translated
from wire.visible_text import visible


class ToolApprovalDialog(QDialog):
    decided = Signal(str)  # a Decision's value

    def __init__(self, call: PendingCall, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolApproval")
        self.call = call
        self._answer = Decision.DENY
        tool = call.tool
        self.setWindowTitle(self.tr("Allow a tool call?"))
        layout = QVBoxLayout(self)
        name = visible(tool.title or tool.name)
        heading = QLabel(
            self.tr("The model wants to use <b>{0}</b> from the tool server <b>{1}</b>.").format(
                _escaped(name), _escaped(visible(tool.server))
            )
        )
        heading.setTextFormat(Qt.TextFormat.RichText)
        heading.setWordWrap(True)
        layout.addWidget(heading)
        if tool.description:
            about = QLabel(visible(tool.description.strip().splitlines()[0]))
            about.setTextFormat(Qt.TextFormat.PlainText)  # the server's words, never markup
            about.setWordWrap(True)
            about.setObjectName("toolDescription")
            layout.addWidget(about)
        said = risks(tool)
        warning = QLabel(
            self.tr("Its server says this tool {0}.").format(", ".join(translated(r) for r in said))
            if said
            else self.tr("Its server says this tool only reads, on this computer.")
        )
        warning.setWordWrap(True)
        warning.setObjectName("toolRisks" if said else "toolSafe")
        layout.addWidget(warning)
        layout.addWidget(QLabel(self.tr("Arguments:")))
        shown = json.dumps(call.arguments, ensure_ascii=False, indent=2)
        arguments = QPlainTextEdit(visible(shown, multiline=True))
        arguments.setReadOnly(True)
        arguments.setAccessibleName(self.tr("The arguments of the call"))
        arguments.setMaximumHeight(160)
        layout.addWidget(arguments)
        buttons = QDialogButtonBox()
        self.once = QPushButton(self.tr("Allow once"))
        self.always = QPushButton(self.tr("Always allow this tool"))
        self.deny = QPushButton(self.tr("Deny"))
        buttons.addButton(self.once, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.always, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.deny, QDialogButtonBox.ButtonRole.RejectRole)
        # Enter while typing in the message box must not run a tool: Deny is the default.
        for button in (self.once, self.always):
            button.setAutoDefault(False)
        self.deny.setDefault(True)
        self.once.clicked.connect(lambda: self.answer(Decision.ALLOW_ONCE))
        self.always.clicked.connect(lambda: self.answer(Decision.ALWAYS))
        self.deny.clicked.connect(lambda: self.answer(Decision.DENY))
        layout.addWidget(buttons)
        self.finished.connect(lambda _code: self.decided.emit(self._answer.value))

    def answer(self, decision: Decision) -> None:
        self._answer = decision
        if decision == Decision.DENY:
            self.reject()
        else:
            self.accept()


def _escaped(text: str) -> str:
    import html

    return html.escape(text)
