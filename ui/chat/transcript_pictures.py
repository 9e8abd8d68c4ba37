"""The pictures of your messages in the conversation: each drawn small in the background
(``picture_tray.thumbnail_of``, the same limits) from its file in Hearth's data folder, and
shown in the transcript once drawn; until then a plain frame holds its place.

The transcript loads nothing by address (``TranscriptView.loadResource``): a picture is
``picture:SHA256``, found only among the pictures the messages shown name, and laid out
and drawn by the transcript's object handler (``CodeBlockObjects.pictures``).
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QUrl
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QTextBrowser

from ui.background import run_in_background
from ui.chat.picture_tray import thumbnail_of

log = logging.getLogger(__name__)

SHOWN_HEIGHT = 160  # a picture's height in the conversation, in pixels
SCHEME = "picture"


class TranscriptPictures(QObject):
    def __init__(self, view: QTextBrowser) -> None:
        super().__init__(view)
        self.view = view
        self.path_of: Callable[[dict[str, Any]], Path | None] = lambda _ref: None
        self._drawn: dict[str, QImage] = {}
        self._refs: dict[str, dict[str, Any]] = {}
        self._asked: set[str] = set()
        self._frame: QImage | None = None

    def html(self, refs: list[dict[str, Any]]) -> str:
        """Your message's pictures, in a row, each with its file name as its text."""
        shown = []
        for ref in refs:
            digest = str(ref.get("sha256") or "")
            self._refs[digest] = ref
            name = html.escape(str(ref.get("name") or ""))
            shown.append(
                f'<img src="{SCHEME}:{digest}" height="{SHOWN_HEIGHT}" alt="{name}" '
                f'title="{name}"> '
            )
        return (
            f'<p style="margin-top:0px; margin-bottom:4px;">{"".join(shown)}</p>' if shown else ""
        )

    def image(self, name: QUrl | str) -> QImage | None:
        """The picture the transcript asks for by ``name``, or a frame while it is drawn;
        None for anything that is not a picture of a message shown."""
        url = name if isinstance(name, QUrl) else QUrl(name)
        if url.scheme() != SCHEME:
            return None
        digest = url.path()
        drawn = self._drawn.get(digest)
        if drawn is not None:
            return drawn
        ref = self._refs.get(digest)
        if ref is None:
            return None
        if digest not in self._asked:
            self._asked.add(digest)
            self._draw(digest, ref)
        if self._frame is None:  # one for all pictures being drawn (asked at every paint)
            self._frame = QImage(SHOWN_HEIGHT, SHOWN_HEIGHT, QImage.Format.Format_RGB32)
            self._frame.fill(QColor(self.view.palette().mid().color()))
        return self._frame

    def _draw(self, digest: str, ref: dict[str, Any]) -> None:
        path = self.path_of(ref)
        if path is None:
            return

        def draw() -> QImage:
            return thumbnail_of(path.read_bytes(), SHOWN_HEIGHT)

        def drawn(image: QImage) -> None:
            if image.isNull():
                return  # not drawable here: its frame stays (the model read it all the same)
            self._drawn[digest] = image
            document = self.view.document()  # laid out again: the picture's own size
            document.markContentsDirty(0, document.characterCount())
            self.view.viewport().update()

        def failed(exc: BaseException) -> None:  # its frame stays
            log.warning("could not draw the picture %s: %s", path, exc)

        run_in_background(self, draw, drawn, failed)
