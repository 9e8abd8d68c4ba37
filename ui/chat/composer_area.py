"""Under the conversation: the message box with Send beside it (Stop while a reply runs),
the bar of Attach…, Collections, Tools and the files attached, and the pictures attached
as a compact strip under them.  The panel owns the draft: the words, the pictures and the
documents, and which message of the person's it edits (``edit``, ``cancel_edit``,
``draft``, ``sent``); the Chat screen asks it for the draft and tells it a send went.

Why a part of its own: pictures used to sit above the box in a column with it, so that
Send, aligned with the column's top, moved away from the box beside the thumbnails; here
the box and Send share a row whatever is attached.  And Tab follows what the eye reads:
the box, Send, Attach…, Collections, Tools and the choice of tools, each attached file,
each picture (Qt's own order followed the order the widgets were made in, so Send came
after Tools).  ``order_tabs`` sets it again whenever something is attached or taken out.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QGridLayout, QPushButton, QVBoxLayout, QWidget

from app.chat import store as st
from app.chat.outbox import Draft
from app.docs.library import Documents
from ui.chat.composer import Composer
from ui.chat.documents_bar import DocumentsBar
from ui.chat.picture_tray import PictureTray
from ui.elided_label import ElidedLabel


class ComposerArea(QWidget):
    def __init__(
        self,
        documents: Documents,
        show_error: Callable[[str], None],
        keep_picture: Callable[[bytes, str], dict[str, Any]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("composerArea")
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        self.composer = Composer()
        self.send_button = QPushButton(self.tr("Send"))
        self.send_button.setObjectName("sendButton")
        self.send_button.setAccessibleName(self.tr("Send message"))
        self.stop_button = QPushButton(self.tr("Stop"))
        self.stop_button.setObjectName("stopButton")
        self.stop_button.setAccessibleName(self.tr("Stop the reply"))
        self.stop_button.hide()
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        grid.addWidget(self.composer, 0, 0)
        grid.addLayout(buttons, 0, 1)
        self.documents_bar = DocumentsBar(documents, show_error)
        grid.addWidget(self.documents_bar, 1, 0, 1, 2)
        self.picture_tray = PictureTray(show_error, keep_picture)
        grid.addWidget(self.picture_tray, 2, 0, 1, 2)
        grid.setColumnStretch(0, 1)
        self.documents_bar.pictures_to = self.picture_tray.add_files
        self.composer.picture_pasted.connect(self.picture_tray.add_image)
        self.documents_bar.changed.connect(self.order_tabs)
        self.picture_tray.changed.connect(self.order_tabs)
        self.order_tabs()
        self.editing: st.Message | None = None  # a message of the person's being edited
        # Said while one is (on a row of its own, shortened to fit: placed by the screen,
        # above its status row, so that a long note never pushes the sidebar aside).
        self.edit_label = ElidedLabel()
        self.edit_label.setObjectName("editLabel")
        self.edit_label.hide()

    # -- the draft ---------------------------------------------------------------------
    def draft(self, text: str) -> Draft:
        """What is about to be sent: ``text`` (the box's, or given) and what it is given."""
        bar = self.documents_bar
        return Draft(text, tuple(bar.attachments()), tuple(bar.collections()))

    def edit(self, message: st.Message, read_picture: Callable[[dict[str, Any]], bytes]) -> None:
        """Put a message of the person's in the box, its pictures in the tray; sending it
        starts a new branch."""
        self.editing = message
        self.picture_tray.edit(message.images, read_picture)
        self.composer.setPlainText(message.content)
        self.composer.setFocus()
        self.edit_label.setText(
            self.tr("Editing your message: Send keeps the old version as a branch (Esc cancels).")
        )
        self.edit_label.show()

    def cancel_edit(self) -> None:
        if self.editing is not None:
            self.editing = None
            self.composer.clear()
            self.picture_tray.clear()
        self.edit_label.hide()

    def sent(self) -> None:
        """The draft went: the box, the tray and the edit start again empty."""
        self.editing = None
        self.edit_label.hide()
        self.composer.clear()
        self.picture_tray.clear()

    def stops(self) -> list[QWidget]:
        """Where Tab stops, in order (hidden ones are passed over by Qt)."""
        return [
            self.composer,
            self.send_button,
            self.stop_button,
            *self.documents_bar.stops(),
            *self.picture_tray.stops(),
        ]

    def order_tabs(self) -> None:
        stops = self.stops()
        for first, second in itertools.pairwise(stops):
            QWidget.setTabOrder(first, second)
