"""Code blocks in the transcript: drawn as one object each, scrolled sideways on their own.

A ``QTextDocument`` cannot scroll one paragraph: a line that does not wrap widens the
whole document, and the whole conversation scrolls sideways.  So each code block is an
inline object (an ``<img>`` named ``hearth:code/N``) that this handler sizes to the
column's width and draws itself: the highlighted code, moved left by the block's own
offset and cut at the block's edges, with a thin scroll bar under it when a line is
longer than the column.  The wheel with Shift (or a sideways swipe) over the block, or
dragging its bar, scrolls it.  Everything else stays one document: the conversation
keeps its single layout, its budgets and its selection; the code's text is put back
wherever the document's text is read (copying a selection, ``toPlainText``).

Only the blocks on screen are drawn, and each block's drawing (a small document of its
own) is made the first time it is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRect, QRectF, QSizeF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QFontMetricsF,
    QPainter,
    QPyTextObject,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrame,
    QTextOption,
)
from PySide6.QtWidgets import QTextEdit

from ui.chat.markdown_html import CODE_IMAGE, CodeBlock, CodeBlocks, Palette

OBJECT = "\ufffc"  # the character an object takes in the document's text
PADDING_X = 8.0  # between the block's edge and its code
PADDING_Y = 4.0
BAR = 10.0  # the room the scroll bar takes under a wide block
TAB = 4  # spaces per tab stop


@dataclass
class _Metrics:
    """Sizes of the code font: every line of a block is as tall as every other."""

    font: QFont
    first_line: float  # the height of a one-line block
    line: float  # each further line
    space: float

    def width_of(self, text: str, bold: QFontMetricsF, regular: QFontMetricsF) -> float:
        widest = 0.0
        for line in text.expandtabs(TAB).split("\n"):
            widest = max(widest, regular.horizontalAdvance(line), bold.horizontalAdvance(line))
        return widest


class CodeBlockPainter(QPyTextObject):
    """Sizes and draws the transcript's code blocks (``<img src="hearth:code/N">``)."""

    def __init__(self, view: QTextEdit, blocks: CodeBlocks) -> None:
        super().__init__(view)
        self._view = view
        self.blocks = blocks
        self.palette_colors: Palette | None = None
        self._metrics: _Metrics | None = None
        self._sizes: dict[int, tuple[float, float]] = {}  # key: (natural width, height)
        self._drawings: dict[int, QTextDocument] = {}
        self.drawn_at: dict[int, QRectF] = {}  # where each block was last drawn

    def install(self, document: QTextDocument) -> None:
        document.documentLayout().registerHandler(int(QTextFormat.ObjectTypes.ImageObject), self)

    def reset(self, palette: Palette, font: QFont) -> None:
        """New colours or a new font: measure and draw everything again."""
        self.palette_colors = palette
        self._metrics = _measure(font)
        self.forget()

    def forget(self) -> None:
        """The blocks were cleared: drop what was kept about them."""
        self._sizes.clear()
        self._drawings.clear()
        self.drawn_at.clear()

    # -- QTextObjectInterface ------------------------------------------------------------
    def intrinsicSize(self, doc: QTextDocument, pos: int, fmt: QTextFormat) -> QSizeF:
        key = key_of(fmt)
        block = self.blocks.get(key) if key else None
        if block is None:
            return QSizeF(0, 0)  # not Hearth's: nothing is ever loaded, nothing shown
        natural, height = self._size(key, block)
        width = self._room(doc, pos)
        if natural + 2 * PADDING_X > width:
            height += BAR
        return QSizeF(width, height)

    def drawObject(
        self,
        painter: QPainter,
        rect: QRectF | QRect,
        doc: QTextDocument,
        pos: int,
        fmt: QTextFormat,
    ) -> None:
        key = key_of(fmt)
        block = self.blocks.get(key) if key else None
        if block is None or self.palette_colors is None:
            return
        colors = self.palette_colors
        rect = QRectF(rect)
        self.drawn_at[key] = rect
        natural, _height = self._size(key, block)
        room = rect.width() - 2 * PADDING_X
        block.offset = max(0.0, min(block.offset, natural - room))
        painter.save()
        painter.fillRect(rect, QColor(colors.code_background))
        painter.setClipRect(
            QRectF(rect.left() + 1, rect.top(), rect.width() - 2, rect.height()),
            Qt.ClipOperation.IntersectClip,
        )
        painter.translate(QPointF(rect.left() + PADDING_X - block.offset, rect.top() + PADDING_Y))
        self._drawing(key, block).drawContents(
            painter, QRectF(block.offset - PADDING_X, 0, rect.width(), rect.height())
        )
        painter.restore()
        bar = self.bar_rect(key)
        if bar is not None:
            thumb = self.thumb_rect(key)
            painter.save()
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(colors.code_border))
            painter.drawRoundedRect(thumb, 3, 3)
            painter.restore()

    # -- scrolling -----------------------------------------------------------------------
    def wide(self, key: int) -> bool:
        """Whether the block has lines longer than its column (and so a scroll bar)."""
        rect = self.drawn_at.get(key)
        block = self.blocks.get(key)
        if rect is None or block is None:
            return False
        return self._size(key, block)[0] + 2 * PADDING_X > rect.width()

    def bar_rect(self, key: int) -> QRectF | None:
        """Where the block's scroll bar is (in the document), if it has one."""
        rect = self.drawn_at.get(key)
        if rect is None or not self.wide(key):
            return None
        return QRectF(rect.left() + 2, rect.bottom() - BAR + 2, rect.width() - 4, BAR - 4)

    def thumb_rect(self, key: int) -> QRectF:
        bar = self.bar_rect(key)
        block = self.blocks.get(key)
        assert bar is not None and block is not None
        natural = self._size(key, block)[0] + 2 * PADDING_X
        visible = bar.width() / natural
        return QRectF(
            bar.left() + block.offset / natural * bar.width(),
            bar.top(),
            max(bar.width() * visible, 24.0),
            bar.height(),
        )

    def scroll_to(self, key: int, offset: float) -> bool:
        """Scroll a block sideways; False when it cannot move (at an end, or not wide)."""
        block = self.blocks.get(key)
        rect = self.drawn_at.get(key)
        if block is None or rect is None or not self.wide(key):
            return False
        limit = self._size(key, block)[0] - (rect.width() - 2 * PADDING_X)
        offset = max(0.0, min(offset, limit))
        if offset == block.offset:
            return False
        block.offset = offset
        self._view.viewport().update()
        return True

    def scroll_by(self, key: int, pixels: float) -> bool:
        block = self.blocks.get(key)
        return block is not None and self.scroll_to(key, block.offset + pixels)

    def pixels_per_drag(self, key: int) -> float:
        """How far the code moves for each pixel the bar's thumb is dragged."""
        bar = self.bar_rect(key)
        block = self.blocks.get(key)
        if bar is None or block is None or bar.width() <= 0:
            return 0.0
        return (self._size(key, block)[0] + 2 * PADDING_X) / bar.width()

    def key_at(self, doc_point: QPointF) -> int:
        """The code block under a point of the document (0: none)."""
        document = self._view.document()
        position = document.documentLayout().hitTest(doc_point, Qt.HitTestAccuracy.FuzzyHit)
        if position < 0:
            return 0
        cursor = QTextCursor(document)
        for after in (position + 1, position):  # the format of the character before it
            if after < 1 or after >= document.characterCount():
                continue
            cursor.setPosition(after)
            key = key_of(cursor.charFormat())
            rect = self.drawn_at.get(key)
            if key and rect is not None and rect.contains(doc_point):
                return key
        return 0

    # -- sizes and drawings --------------------------------------------------------------
    def _size(self, key: int, block: CodeBlock) -> tuple[float, float]:
        size = self._sizes.get(key)
        if size is None:
            metrics = self._metrics or _measure(self._view.document().defaultFont())
            self._metrics = metrics
            bold_font = QFont(metrics.font)
            bold_font.setBold(True)
            natural = metrics.width_of(
                block.text.rstrip("\n"), QFontMetricsF(bold_font), QFontMetricsF(metrics.font)
            )
            lines = block.text.rstrip("\n").count("\n") + 1
            height = metrics.first_line + (lines - 1) * metrics.line + 2 * PADDING_Y
            size = self._sizes[key] = (natural + 2.0, height)  # 2 px: rounding, italics
        return size

    def _room(self, doc: QTextDocument, pos: int) -> float:
        """The width a block at ``pos`` has: the column, less the indents it sits in."""
        width = doc.textWidth()
        if width <= 0:
            return 600.0
        width -= 2 * doc.documentMargin()
        # (no QTextCursor here: moving one asks for the layout being made, and recurses)
        paragraph = doc.findBlock(pos)
        block_format = paragraph.blockFormat()
        width -= block_format.leftMargin() + block_format.rightMargin()
        width -= block_format.indent() * doc.indentWidth()
        text_list = paragraph.textList()
        if text_list is not None:
            width -= text_list.format().indent() * doc.indentWidth()
        frame: QTextFrame | None = doc.frameAt(pos)  # None above the root frame
        while frame is not None:  # in a quote (a table): less its bar and padding
            if frame.metaObject().className() == "QTextTable":
                width -= QUOTE_INSET
            frame = frame.parentFrame()
        return max(width, 40.0)

    def _drawing(self, key: int, block: CodeBlock) -> QTextDocument:
        drawing = self._drawings.get(key)
        if drawing is None:
            metrics = self._metrics or _measure(self._view.document().defaultFont())
            drawing = QTextDocument(self)
            drawing.setDocumentMargin(0)
            drawing.setDefaultFont(metrics.font)
            option = QTextOption()
            option.setWrapMode(QTextOption.WrapMode.NoWrap)
            option.setTabStopDistance(metrics.space * TAB)
            drawing.setDefaultTextOption(option)
            text_color = self.palette_colors.text if self.palette_colors else "#000000"
            drawing.setHtml(f'<pre style="margin:0px; color:{text_color};">{block.body}</pre>')
            if len(self._drawings) > 200:  # only the blocks on screen need theirs
                self._drawings.clear()
            self._drawings[key] = drawing
        return drawing


QUOTE_INSET = 20.0  # a quote's bar (4 px), its padding (12 px) and the cell's edges


def key_of(fmt: QTextFormat) -> int:
    """The code block an object's format names (0: not a code block)."""
    if not fmt.isImageFormat():
        return 0
    name = fmt.toImageFormat().name()
    if not name.startswith(CODE_IMAGE):
        return 0
    number = name.removeprefix(CODE_IMAGE)
    return int(number) if number.isdigit() else 0


def _measure(font: QFont) -> _Metrics:
    """The code font at the conversation's size, and its line heights as a document lays
    them out (measured, not computed, so the space a block takes fits its drawing)."""
    mono = QFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    if font.pointSizeF() > 0:
        mono.setPointSizeF(font.pointSizeF())
    heights = []
    for text in ("x", "x\nx"):
        probe = QTextDocument()
        probe.setDocumentMargin(0)
        probe.setDefaultFont(mono)
        probe.setPlainText(text)
        heights.append(probe.size().height())
    return _Metrics(
        mono, heights[0], heights[1] - heights[0], QFontMetricsF(mono).horizontalAdvance(" ")
    )


def text_with_code(document: QTextDocument, blocks: CodeBlocks, start: int, end: int) -> str:
    """The document's text from ``start`` to ``end`` with each code block's text in place
    of its object (as ``toPlainText`` writes it, a newline between paragraphs)."""
    cursor = QTextCursor(document)
    cursor.setPosition(start)
    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    text = cursor.selection().toPlainText()
    if OBJECT not in text:
        return text
    pieces = text.split(OBJECT)
    result = [pieces[0]]
    found = QTextCursor(document)
    found.setPosition(start)
    for piece in pieces[1:]:
        found = document.find(OBJECT, found)
        key = key_of(found.charFormat()) if not found.isNull() else 0
        block = blocks.get(key) if key else None
        result.append(block.text.rstrip("\n") if block is not None else "")
        result.append(piece)
    return "".join(result)
