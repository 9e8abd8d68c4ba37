"""Pictures for the next message: attached, dropped or pasted into the composer, shown as
a compact strip of thumbnails under it, each with × to take it out before sending.

A picture's file is read, checked (size, kind by its first bytes: ``wire.images``), kept
in the chat's picture store (hashed once, there) and its thumbnail drawn in the
background, never on the window's thread; Qt's reader is held to a small memory limit
and reads a large JPEG already scaled down, so a hostile file costs the window little.
The tray then holds each picture's reference, not its bytes: sending the message hands
the session those references, which reach the worker as they are.  What the model reads
is decoded by the worker alone.  A picture pasted from the clipboard (a screenshot) is
saved as PNG, also in the background.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QCoreApplication, QIODevice, QSize, Qt, Signal
from PySide6.QtGui import QImage, QImageReader, QPixmap
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from app.engines import reads_images
from app.errors import HearthError
from app.files import open_regular
from app.models.library import ModelEntry
from ui.background import run_in_background
from ui.i18n import translated
from ui.visual import SPACE
from wire import images
from wire.model_spec import ModelSpec
from wire.phrases import message_of

TRAY_HEIGHT = 40  # a thumbnail's height in the strip under the composer, in pixels
READER_LIMIT_MB = 64  # what Qt's reader may allocate for one picture in the window
LARGEST_PIXELS = 40_000_000  # as the worker: a picture said to be larger is not drawn


@dataclass(frozen=True)
class Read:
    """A picture read for the tray, before it is kept."""

    data: bytes
    name: str
    thumbnail: QImage
    ref: dict[str, Any] | None = None  # already kept (a message's picture, being edited)


@dataclass(frozen=True)
class Attached:
    """A picture in the tray: kept in the store (its reference), and drawn small."""

    ref: dict[str, Any]
    name: str
    thumbnail: QImage


def thumbnail_of(data: bytes, height: int) -> QImage:
    """A picture drawn ``height`` pixels high (a null image for one Qt cannot draw, or
    one past ``LARGEST_PIXELS``); safe in any thread."""
    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer)
    reader.setAutoTransform(True)  # a photo's EXIF orientation, as the worker reads it
    reader.setAllocationLimit(READER_LIMIT_MB)
    size = reader.size()
    if not size.isValid() or size.width() * size.height() > LARGEST_PIXELS:
        return QImage()
    if size.height() > height:
        reader.setScaledSize(
            size.scaled(QSize(height * 8, height), Qt.AspectRatioMode.KeepAspectRatio)
        )
    return reader.read()


def read_attached(path: Path) -> Read:
    """A picture file, read, checked and drawn small (in a background thread)."""
    with open_regular(path) as file:
        size = path.stat().st_size
        if size > images.MAX_IMAGE_BYTES:
            raise images.too_large(size, path.name)
        data = images.checked(file.read(), path.name)
    return Read(data, path.name, thumbnail_of(data, TRAY_HEIGHT))


def stored(read: Callable[[dict[str, Any]], bytes], ref: dict[str, Any], name: str) -> Read:
    """A picture a message already carries, read from the chat's store (in the background)."""
    data = read(ref)
    return Read(data, name, thumbnail_of(data, TRAY_HEIGHT), ref)


def pasted(image: QImage) -> Read:
    """A picture from the clipboard, as a PNG file (in a background thread)."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # PySide takes str only
    data = images.checked(bytes(buffer.data().data()), "the pasted picture")
    return Read(data, "pasted.png", image.scaledToHeight(min(TRAY_HEIGHT, image.height())))


class _Thumb(QFrame):
    """One picture in the strip: drawn small, with × to take it out before sending."""

    removed = Signal(object)

    def __init__(self, attached: Attached, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.attached = attached
        self.place = 0  # its order among the pictures given
        self.setObjectName("pictureChip")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        row = QHBoxLayout(self)
        row.setContentsMargins(SPACE["xs"], SPACE["xxs"], 0, SPACE["xxs"])
        row.setSpacing(SPACE["xxs"])
        picture = QLabel()
        picture.setObjectName("pictureThumbnail")
        picture.setFixedHeight(TRAY_HEIGHT)
        if attached.thumbnail.isNull():
            picture.setText(attached.name)
        else:
            picture.setPixmap(QPixmap.fromImage(attached.thumbnail))
        picture.setToolTip(attached.name)
        picture.setAccessibleName(self.tr("Picture {0}").format(attached.name))
        row.addWidget(picture)
        self.remove_button = QToolButton()
        self.remove_button.setObjectName("removePicture")
        self.remove_button.setText("×")
        self.remove_button.setAutoRaise(True)
        self.remove_button.setToolTip(self.tr("Remove"))
        self.remove_button.setAccessibleName(
            self.tr("Remove the picture {0}").format(attached.name)
        )
        self.remove_button.clicked.connect(lambda: self.removed.emit(self))
        row.addWidget(self.remove_button, 0, Qt.AlignmentFlag.AlignTop)


class PictureTray(QWidget):
    """The pictures the next message carries; hidden while there are none."""

    changed = Signal()

    def __init__(
        self,
        show_error: Callable[[str], None],
        keep: Callable[[bytes, str], dict[str, Any]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("pictureTray")
        self.show_error = show_error
        # Where a picture is kept as soon as it is read, in the background (the chat's
        # ``Pictures.put``, which checks and hashes it): sending it then reads, hashes and
        # writes nothing on the window's thread.
        self.keep = keep
        self.thumbs: list[_Thumb] = []
        self.waiting = 0  # pictures still being read
        self._given = 0
        self._epoch = 0  # each emptying of the tray (a read that ends later is dropped)
        self.late_reads = 0  # reads that ended after the tray was emptied, and were dropped
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(0, 0, 0, 0)
        self.row.setSpacing(SPACE["xs"])
        self.row.addStretch(1)
        self.hide()

    def stops(self) -> list[QWidget]:
        """Where Tab stops in the strip: each picture's ×, in the pictures' order."""
        return [thumb.remove_button for thumb in self.thumbs]

    def pictures(self) -> list[dict[str, Any]]:
        """The references of the pictures the next message carries, in the tray's order."""
        return [thumb.attached.ref for thumb in self.thumbs]

    def add_files(self, paths: list[Path]) -> None:
        for path in paths:
            self._add_later(functools.partial(read_attached, path), path.name)

    def edit(self, refs: list[dict[str, Any]], read: Callable[[dict[str, Any]], bytes]) -> None:
        """The pictures of a message being edited, back in the tray: sending the edit
        sends what the tray then holds."""
        self.clear()
        for ref in refs:
            name = str(ref.get("name") or "picture")
            self._add_later(functools.partial(stored, read, ref, name), name)

    def add_image(self, image: QImage) -> None:
        self._add_later(lambda: pasted(image), self.tr("the pasted picture"))

    def _add_later(self, work: Callable[[], Read], name: str) -> None:
        if len(self.thumbs) + self.waiting >= images.MAX_IMAGES_PER_MESSAGE:
            self.show_error(
                self.tr("A message carries at most {0} pictures.").format(
                    images.MAX_IMAGES_PER_MESSAGE
                )
            )
            return
        self.waiting += 1
        self._given += 1
        place = self._given  # pictures keep the order they were given in, however read
        epoch = self._epoch

        def failed(exc: BaseException) -> None:
            if epoch != self._epoch:
                self.late_reads += 1
                return  # the tray was emptied meanwhile (the message was sent)
            self.waiting -= 1
            if isinstance(exc, OSError):
                reason = exc.strerror or str(exc)
            else:
                reason = translated(message_of(exc))
            self.show_error(self.tr("{0} cannot be attached: {1}").format(name, reason))

        def read_and_keep() -> Attached:
            read = work()
            ref = read.ref if read.ref is not None else self.keep(read.data, read.name)
            return Attached(ref, read.name, read.thumbnail)

        run_in_background(
            self, read_and_keep, lambda attached: self._add(attached, place, epoch), failed
        )

    def _add(self, attached: Attached, place: int, epoch: int) -> None:
        if epoch != self._epoch:
            self.late_reads += 1
            return  # read for a message already sent
        self.waiting -= 1
        if any(t.attached.ref["sha256"] == attached.ref["sha256"] for t in self.thumbs):
            return  # the same picture twice is sent once
        thumb = _Thumb(attached)
        thumb.place = place
        thumb.removed.connect(self._remove)
        index = sum(1 for t in self.thumbs if t.place < place)
        self.thumbs.insert(index, thumb)
        self.row.insertWidget(index, thumb)
        self.show()
        self.changed.emit()

    def _remove(self, thumb: _Thumb) -> None:
        self.thumbs.remove(thumb)
        thumb.deleteLater()
        self.setVisible(bool(self.thumbs))
        self.changed.emit()

    def clear(self) -> None:
        """Empty, and forget the pictures still being read."""
        self._epoch += 1
        self.waiting = 0
        for thumb in list(self.thumbs):
            self._remove(thumb)

    def ready_to_send(
        self,
        text: str,
        model: ModelEntry | None,
        models: list[ModelEntry],
        spec_of: Callable[[ModelEntry], ModelSpec],
    ) -> bool:
        """Whether a message of ``text`` and the tray's pictures can go now to ``model``
        (one of ``models``, each loaded as ``spec_of`` says): something to send, no picture
        still being read, and a model that sees the pictures (if not, that is said before
        anything is sent, with the models here that do)."""
        if not (text.strip() or self.thumbs or self.waiting):
            return False

        def sees(entry: ModelEntry) -> bool:  # as it would load (Model settings' projector)
            try:
                return reads_images(spec_of(entry))
            except HearthError:
                return entry.reads_images

        if self.waiting:
            self.show_error(
                QCoreApplication.translate(
                    "PictureTray", "Wait a moment: a picture is still being read."
                )
            )
            return False
        if not self.thumbs or model is None or sees(model):
            return True
        readers = [entry.name for entry in models if sees(entry)]
        if model.reads_images:  # it has a projector, and its Model settings chose none
            self.show_error(
                QCoreApplication.translate(
                    "PictureTray",
                    "{0} reads text only as its Model settings say (Image projector: none). "
                    "Choose its projector in Model settings…, or take the pictures out.",
                ).format(model.name)
            )
        elif readers:
            self.show_error(
                QCoreApplication.translate(
                    "PictureTray",
                    "{0} reads text only, so it cannot see pictures. Choose a model that reads "
                    "them above: {1}.",
                ).format(model.name, ", ".join(readers))
            )
        else:
            self.show_error(
                QCoreApplication.translate(
                    "PictureTray",
                    "{0} reads text only, and no model here reads pictures. Download one in "
                    "Models (Gemma 3, Qwen2.5-VL or SmolVLM, with its projector), or take the "
                    "pictures out.",
                ).format(model.name)
            )
        return False
