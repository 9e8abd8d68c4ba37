"""The pointer over code blocks in the transcript: a sideways swipe or Shift+wheel scrolls
the block under it (a swipe that is mostly downwards scrolls the conversation), and a
block's own scroll bar can be pressed, clicked beside its thumb and dragged.  The view
hands each wheel and mouse event here first; False: not for a code block, the view
handles it as usual."""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QMouseEvent, QWheelEvent
from PySide6.QtWidgets import QAbstractScrollArea

from ui.chat.code_view import CodeBlockObjects
from ui.chat.markdown_html import CodeBlocks

WHEEL_STEP = 48.0  # pixels a code block scrolls sideways for one notch of the wheel


class CodePointer:
    def __init__(
        self, view: QAbstractScrollArea, objects: CodeBlockObjects, blocks: CodeBlocks
    ) -> None:
        self.view, self.objects, self.blocks = view, objects, blocks
        self.dragging: tuple[int, float, float] | None = None  # (block, from x, offset)

    def _document_point(self, viewport_x: float, viewport_y: float) -> QPointF:
        return QPointF(
            viewport_x + self.view.horizontalScrollBar().value(),
            viewport_y + self.view.verticalScrollBar().value(),
        )

    def wheel(self, event: QWheelEvent) -> bool:
        """Over a wide code block, a sideways swipe or Shift+wheel scrolls that block; a
        swipe that is mostly downwards (they nearly always drift a little sideways)
        scrolls the conversation."""
        pixels, notches = event.pixelDelta(), event.angleDelta()
        dx, dy = (pixels.x(), pixels.y()) if not pixels.isNull() else (notches.x(), notches.y())
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier and not dx:
            dx, dy = dy, 0
        if dx and abs(dx) > abs(dy):
            step = dx if not pixels.isNull() else dx / 120 * WHEEL_STEP
            position = event.position()
            key = self.objects.key_at(self._document_point(position.x(), position.y()))
            if key and self.objects.wide(key):
                self.objects.scroll_by(key, -step)
                event.accept()
                return True
        return False

    def _bar_under(self, event: QMouseEvent) -> tuple[int, QPointF] | None:
        """The code block whose scroll bar is under the pointer, and the point."""
        position = event.position()
        point = self._document_point(position.x(), position.y())
        key = self.objects.key_at(point)
        bar = self.objects.bar_rect(key) if key else None
        if bar is not None and bar.adjusted(0, -3, 0, 3).contains(point):
            return key, point
        return None

    def press(self, event: QMouseEvent) -> bool:
        """Pressing a code block's scroll bar starts dragging it (a click beside the thumb
        moves the thumb there first, as scroll bars do)."""
        under = self._bar_under(event) if event.button() == Qt.MouseButton.LeftButton else None
        if under is None:
            return False
        key, point = under
        objects = self.objects
        thumb = objects.thumb_rect(key)
        if not thumb.contains(point):
            objects.scroll_by(key, (point.x() - thumb.center().x()) * objects.pixels_per_drag(key))
        block = self.blocks.get(key)
        assert block is not None
        self.dragging = (key, point.x(), block.offset)
        event.accept()
        return True

    def double_click(self, event: QMouseEvent) -> bool:
        if self._bar_under(event) is not None:
            event.accept()  # a quick second click on a bar: no word selected under it
            return True
        return False

    def move(self, event: QMouseEvent) -> bool:
        if self.dragging is not None and not event.buttons() & Qt.MouseButton.LeftButton:
            self.dragging = None  # the release went elsewhere (a popup, another window)
        if self.dragging is not None:
            key, start_x, start_offset = self.dragging
            moved = event.position().x() + self.view.horizontalScrollBar().value() - start_x
            self.objects.scroll_to(key, start_offset + moved * self.objects.pixels_per_drag(key))
            event.accept()
            return True
        return False

    def release(self, event: QMouseEvent) -> bool:
        if self.dragging is not None:
            self.dragging = None
            event.accept()
            return True
        return False
