"""Code blocks in the transcript: drawn as one object each, scrolled sideways on their own.

A ``QTextDocument`` cannot scroll one paragraph: a line that does not wrap widens the
whole document, and the whole conversation scrolls sideways.  So each code block is an
inline object (an ``<img>`` named ``hearth:code/N``) that this handler sizes to the
column's width and draws itself: the highlighted code, moved left by the block's own
offset and cut at the block's edges, with a thin scroll bar under it when a line is
longer than the column.  The transcript scrolls a block with Shift+wheel, a sideways
swipe or a drag of its bar.  Everything else stays one document: the conversation keeps
its single layout and its budgets, and the code's text is put back where the transcript
hands text out (a copied selection, search, ``toPlainText``).

What this costs, and the way out: a block is selected whole or not at all, keyboard
users cannot scroll it, and screen readers meet one object.  The setting "Wrap long
code lines" (``appearance.wrap_code``) renders code as wrapped text of the document
instead (``MarkdownRenderer.wrap_code``).

Sizes come from laying the code out (in a scratch document in the code font, kept by the
code's text), so a line with CJK or emoji, whose fallback font is taller, is measured as
it is drawn.  Only the blocks on screen are drawn; each block's drawing (a small
document of its own, without a Qt parent so that dropping it frees it) is made the first
time it is drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QPointF, QRect, QRectF, QSizeF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QFontMetricsF,
    QImage,
    QPainter,
    QPyTextObject,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrame,
    QTextLine,
    QTextOption,
)
from PySide6.QtWidgets import QTextEdit

from ui.chat.action_icons import draw_icon, icon_size
from ui.chat.markdown_html import (
    CODE_IMAGE,
    QUOTE_BAR_PX,
    QUOTE_PADDING_PX,
    CodeBlock,
    CodeBlocks,
)
from ui.visual import Palette

OBJECT = "\ufffc"  # the character an object takes in the document's text
PADDING_X = 8.0  # between the block's edge and its code
PADDING_Y = 4.0
BAR = 10.0  # the room the scroll bar takes under a wide block
MIN_THUMB = 24.0  # the narrowest the bar's thumb gets (something to grab)
TAB = 4  # spaces per tab stop
# A code block in a quote has the quote's bar and its padding beside it (the quote is a
# two-cell table, see ``markdown_html``); the cells have no spacing or padding of their own.
QUOTE_INSET = float(QUOTE_BAR_PX + QUOTE_PADDING_PX)
KEEP_DRAWINGS = 200  # only the blocks on screen need theirs


def code_font(size_from: QFont) -> QFont:
    """The system's fixed-width font at the conversation's size."""
    mono = QFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    if size_from.pointSizeF() > 0:
        mono.setPointSizeF(size_from.pointSizeF())
    return mono


def _plain_code_document(font: QFont) -> QTextDocument:
    """A document that lays code out as the drawings do: no margin, no wrapping."""
    document = QTextDocument()
    document.setDocumentMargin(0)
    document.setDefaultFont(font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.NoWrap)
    option.setTabStopDistance(QFontMetricsF(font).horizontalAdvance(" ") * TAB)
    document.setDefaultTextOption(option)
    return document


class CodeBlockObjects(QPyTextObject):
    """Sizes, draws and scrolls the transcript's code blocks (``<img src="hearth:code/N">``)."""

    def __init__(self, view: QTextEdit, blocks: CodeBlocks, palette: Palette) -> None:
        super().__init__(view)
        self._view = view
        self.blocks = blocks
        self.palette_colors = palette
        self.font = code_font(view.document().defaultFont())
        self._scratch = _plain_code_document(self.font)
        self._sizes: dict[str, tuple[float, float]] = {}  # by text: (natural width, height)
        self._drawings: dict[int, QTextDocument] = {}
        self._found_rects: dict[int, QRectF] = {}  # search hits, in their drawings
        self.drawn_at: dict[int, QRectF] = {}  # where each block was last drawn
        # A picture of your messages by its name in the text (``TranscriptPictures.image``).
        self.pictures: Callable[[str], QImage | None] = lambda _name: None

    def install(self, document: QTextDocument) -> None:
        document.documentLayout().registerHandler(int(QTextFormat.ObjectTypes.ImageObject), self)

    def reset(self, palette: Palette, font: QFont) -> None:
        """New colours or a new size of text (a setting, a zoom): measure and draw again."""
        self.palette_colors = palette
        self.font = code_font(font)
        self._scratch = _plain_code_document(self.font)
        self._sizes.clear()
        self.forget()

    def forget(self) -> None:
        """The blocks were rendered again: drop their drawings and places."""
        self._drawings.clear()
        self._found_rects.clear()
        self.drawn_at.clear()

    # -- QTextObjectInterface ------------------------------------------------------------
    def intrinsicSize(self, doc: QTextDocument, pos: int, fmt: QTextFormat) -> QSizeF:
        key = key_of(fmt)
        block = self.blocks.get(key) if key else None
        if block is None:  # a picture of yours, an action's icon, else nothing loaded or shown
            picture = self.pictures(fmt.toImageFormat().name())
            return QSizeF(picture.size()) if picture is not None else icon_size(fmt)
        natural, height = self._size(block)
        width = self.room_at(doc, pos)
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
        if block is None:
            picture = self.pictures(fmt.toImageFormat().name())
            if picture is not None:
                painter.drawImage(QRectF(rect), picture)
            else:
                draw_icon(painter, QRectF(rect), fmt)
            return
        rect = QRectF(rect)
        self.drawn_at[key] = rect
        colors = self.palette_colors
        block.offset = max(0.0, min(block.offset, self._max_offset(block, rect)))
        painter.save()
        painter.fillRect(rect, QColor(colors.code_background))
        painter.translate(QPointF(rect.left() + PADDING_X - block.offset, rect.top() + PADDING_Y))
        visible = QRectF(block.offset - PADDING_X, -PADDING_Y, rect.width(), rect.height())
        if block.found is not None:
            painter.setClipRect(visible, Qt.ClipOperation.IntersectClip)
            painter.fillRect(self._found_rect(key, block), QColor(colors.found))
        self._drawing(key, block).drawContents(painter, visible)  # clipped to ``visible``
        painter.restore()
        if self.bar_rect(key) is not None:
            painter.save()
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(colors.code_border))
            painter.drawRoundedRect(self.thumb_rect(key), 3, 3)
            painter.restore()

    # -- scrolling -----------------------------------------------------------------------
    def _max_offset(self, block: CodeBlock, rect: QRectF) -> float:
        return max(0.0, self._size(block)[0] + 2 * PADDING_X - rect.width())

    def wide(self, key: int) -> bool:
        """Whether the block has lines longer than its column (and so a scroll bar)."""
        rect = self.drawn_at.get(key)
        block = self.blocks.get(key)
        return rect is not None and block is not None and self._max_offset(block, rect) > 0

    def bar_rect(self, key: int) -> QRectF | None:
        """Where the block's scroll bar is (in the document), if it has one."""
        rect = self.drawn_at.get(key)
        if rect is None or not self.wide(key):
            return None
        return QRectF(rect.left() + 2, rect.bottom() - BAR + 2, rect.width() - 4, BAR - 4)

    def thumb_rect(self, key: int) -> QRectF:
        """The bar's thumb: as wide as the share of the code shown, where the offset is."""
        bar = self.bar_rect(key)
        block = self.blocks.get(key)
        rect = self.drawn_at.get(key)
        assert bar is not None and block is not None and rect is not None
        shown = rect.width() / (self._size(block)[0] + 2 * PADDING_X)
        width = min(max(bar.width() * shown, MIN_THUMB), bar.width())
        track = bar.width() - width
        limit = self._max_offset(block, rect)
        left = bar.left() + (block.offset / limit * track if limit else 0.0)
        return QRectF(left, bar.top(), width, bar.height())

    def pixels_per_drag(self, key: int) -> float:
        """How far the code moves for each pixel the bar's thumb is dragged."""
        bar = self.bar_rect(key)
        block = self.blocks.get(key)
        rect = self.drawn_at.get(key)
        if bar is None or block is None or rect is None:
            return 0.0
        track = bar.width() - self.thumb_rect(key).width()
        return self._max_offset(block, rect) / track if track > 0 else 0.0

    def scroll_to(self, key: int, offset: float) -> bool:
        """Scroll a block sideways; False when it cannot move (at an end, or not wide)."""
        block = self.blocks.get(key)
        rect = self.drawn_at.get(key)
        if block is None or rect is None or not self.wide(key):
            return False
        offset = max(0.0, min(offset, self._max_offset(block, rect)))
        if offset == block.offset:
            return False
        self.blocks.scrolled(key, offset)
        self._view.viewport().update()
        return True

    def scroll_by(self, key: int, pixels: float) -> bool:
        block = self.blocks.get(key)
        return block is not None and self.scroll_to(key, block.offset + pixels)

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

    # -- search hits ---------------------------------------------------------------------
    def reveal(self, key: int, start: int, length: int, room: float) -> float:
        """Mark a search hit (``start``: its index in the block's text) and scroll the block
        sideways so that it shows in ``room`` pixels; the hit's line's top, from the top of
        the block."""
        block = self.blocks.get(key)
        if block is None:
            return 0.0
        before = block.text[:start]
        line = before.count("\n")
        column = len(before) - (before.rfind("\n") + 1)
        block.found = (line, column, column + length)
        self._found_rects.pop(key, None)
        self._view.viewport().update()
        found = self._found_rect(key, block)
        if found.right() > block.offset + room - 2 * PADDING_X or found.left() < block.offset:
            self.blocks.scrolled(key, max(0.0, found.left() - room / 3))
        return PADDING_Y + found.top()

    def clear_found(self) -> None:
        for block in self.blocks.blocks.values():
            block.found = None
        self._found_rects.clear()

    def _found_rect(self, key: int, block: CodeBlock) -> QRectF:
        """Where a search hit lies in the block's drawing (laid out as the drawing is;
        kept, so painting does not lay the code out again)."""
        kept = self._found_rects.get(key)
        if kept is not None:
            return kept
        assert block.found is not None
        line_number, start, end = block.found
        text_block = self._drawing_for_size(block).findBlockByNumber(line_number)
        layout = text_block.layout()
        if not text_block.isValid() or layout is None or layout.lineCount() == 0:
            return QRectF()
        line = layout.lineAt(0)
        top = layout.position().y() + line.y()
        left = _x_of(line, start)
        right = _x_of(line, min(end, text_block.length() - 1))
        rect = self._found_rects[key] = QRectF(left, top, max(right - left, 2.0), line.height())
        return rect

    # -- sizes and drawings --------------------------------------------------------------
    def _drawing_for_size(self, block: CodeBlock) -> QTextDocument:
        self._scratch.setPlainText(block.text.rstrip("\n"))
        return self._scratch

    def _size(self, block: CodeBlock) -> tuple[float, float]:
        size = self._sizes.get(block.text)
        if size is None:
            scratch = self._drawing_for_size(block)
            # 2 px: highlighting may set a token in bold, a hair wider in some fonts
            size = (scratch.idealWidth() + 2.0, scratch.size().height() + 2 * PADDING_Y)
            if len(self._sizes) > 4000:
                self._sizes.clear()
            self._sizes[block.text] = size
        return size

    def room_at(self, doc: QTextDocument, pos: int) -> float:
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
        while frame is not None:
            if frame.metaObject().className() == "QTextTable":
                width -= QUOTE_INSET
            frame = frame.parentFrame()
        return max(width, 40.0)

    def _drawing(self, key: int, block: CodeBlock) -> QTextDocument:
        drawing = self._drawings.get(key)
        if drawing is None:
            drawing = _plain_code_document(self.font)
            drawing.setHtml(
                f'<pre style="margin:0px; color:{self.palette_colors.text};">{block.body}</pre>'
            )
            if len(self._drawings) >= KEEP_DRAWINGS:
                self._drawings.clear()
            self._drawings[key] = drawing
        return drawing


def _x_of(line: QTextLine, column: int) -> float:
    """Where a column of a laid-out line begins (PySide answers with (x, column))."""
    answer: Any = line.cursorToX(column)
    return float(answer[0] if isinstance(answer, tuple) else answer)


def key_of(fmt: QTextFormat) -> int:
    """The code block an object's format names (0: not a code block)."""
    if not fmt.isImageFormat():
        return 0
    name = fmt.toImageFormat().name()
    if not name.startswith(CODE_IMAGE):
        return 0
    number = name.removeprefix(CODE_IMAGE)
    return int(number) if number.isdecimal() and number.isascii() else 0


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
    found.setPosition(cursor.selectionStart())  # Qt may widen a selection at a table's edge
    for piece in pieces[1:]:
        found = document.find(OBJECT, found)
        key = key_of(found.charFormat()) if not found.isNull() else 0
        block = blocks.get(key) if key else None
        result.append(block.text.rstrip("\n") if block is not None else "")
        result.append(piece)
    return "".join(result)
