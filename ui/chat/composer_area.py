"""Under the conversation: the message box with Send beside it (Stop while a reply runs),
the bar of Attach…, Collections, Tools and the files attached, and the pictures attached
as a compact strip under them.

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

from app.docs.library import Documents
from ui.chat.composer import Composer
from ui.chat.documents_bar import DocumentsBar
from ui.chat.picture_tray import PictureTray


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
