"""Under the conversation: the message box with Send beside it (Stop while a reply runs),
the bar of Attach…, Collections, Tools and the files attached, and the pictures attached
as a compact strip under them.  The panel owns the draft: the words, the pictures and the
documents, and which message of the person's it edits (``edit``, ``cancel_edit``,
``sent``), and whether it may go now (not while a reply runs, ``set_busy``, or its
documents are read, ``set_preparing``; not before its pictures are read, nor to a model
that cannot see them).  Enter or Send hands the Chat screen the draft (``draft_ready``);
Stop asks it to stop the reply (``stop_requested``).

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

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QPushButton, QVBoxLayout, QWidget

from app.chat import store as st
from app.chat.outbox import Draft
from app.docs.library import Documents
from app.models.library import ModelEntry
from ui.chat.composer import Composer
from ui.chat.documents_bar import DocumentsBar
from ui.chat.picture_tray import PictureTray
from ui.elided_label import ElidedLabel
from wire.model_spec import ModelSpec

# The model chosen and the models there are (the model bar's), for the pictures' check.
Chosen = Callable[[], tuple[ModelEntry | None, list[ModelEntry]]]


class ComposerArea(QWidget):
    draft_ready = Signal(object)  # a Draft the person sent (Enter, or Send)
    stop_requested = Signal()

    def __init__(
        self,
        documents: Documents,
        show_error: Callable[[str], None],
        keep_picture: Callable[[bytes, str], dict[str, Any]],
        chosen: Chosen,
        spec_of: Callable[[ModelEntry], ModelSpec],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("composerArea")
        self._chosen, self._spec_of = chosen, spec_of
        self.busy = False  # a reply runs: Stop stands where Send was
        self.preparing = False  # the draft's documents are being read
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
        self.composer.submitted.connect(self.submit)
        self.send_button.clicked.connect(lambda: self.submit(self.composer.toPlainText()))
        self.stop_button.clicked.connect(self.stop_requested)
        self.order_tabs()
        self.editing: st.Message | None = None  # a message of the person's being edited
        # Said while one is (on a row of its own, shortened to fit: placed by the screen,
        # above its status row, so that a long note never pushes the sidebar aside).
        self.edit_label = ElidedLabel()
        self.edit_label.setObjectName("editLabel")
        self.edit_label.hide()

    # -- the draft ---------------------------------------------------------------------
    def submit(self, text: str) -> None:
        """Enter or Send: the box's draft goes to the Chat screen, if it may go now."""
        draft = self.take_draft(text)
        if draft is not None:
            self.draft_ready.emit(draft)

    def take_draft(self, text: str) -> Draft | None:
        """The draft of ``text`` (the box's, or given) with the pictures, files and
        collections it is given, or None when it may not go now (why is said)."""
        if self.busy or self.preparing:
            return None
        model, models = self._chosen()
        if not self.picture_tray.ready_to_send(text, model, models, self._spec_of):
            return None
        bar, editing = self.documents_bar, self.editing
        return Draft(
            text,
            tuple(bar.attachments()),
            tuple(bar.collections()),
            tuple(self.picture_tray.pictures()),  # an edit's: exactly what the tray shows
            editing.id if editing is not None else None,
            editing.documents if editing is not None else None,
        )

    def set_busy(self, busy: bool) -> None:
        """A reply runs (Stop in Send's place), or has ended (the box has the focus)."""
        self.busy = busy
        self.send_button.setVisible(not busy)
        self.stop_button.setVisible(busy)
        self.stop_button.setEnabled(busy)
        if not busy:
            self.composer.setFocus()

    def set_preparing(self, preparing: bool) -> None:
        """The draft's documents are being read: Send waits."""
        self.preparing = preparing
        self.send_button.setEnabled(not preparing)

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
