"""The conversation view: rendered messages in a QTextDocument, a streaming reply at the end.

Why it is built this way:

* Opening a conversation renders its last ``window`` messages as one HTML document
  (each message's HTML is cached), so opening and switching are fast even for very long
  conversations; "Show earlier messages" renders more on request.
* A streaming reply is split into Markdown blocks (``app.chat.markdown_blocks``).  A finished
  block is rendered once and inserted at the end; only the unfinished tail (one block) is
  shown as plain text and replaced when it is finished, so nothing already shown is
  re-parsed and the cost of an update does not grow with the reply.  An unfinished code
  fence is shown in the code font meanwhile, so closing it does not make the text jump.
* Reasoning (``<think>``) streams into an open "Thinking" section that collapses to one
  line with its duration when the answer starts; a click opens it again.
* Actions are links inside the document (copy, edit, regenerate, continue, delete,
  ‹ branch ›), handled by the window through ``action``; links to the web open in the
  system browser only when clicked, and nothing is ever loaded to render a reply.
* Code blocks are objects drawn by ``ui.chat.code_view``: a long line scrolls inside its
  block (Shift+wheel, a sideways swipe, or its own scroll bar: ``ui.chat.code_pointer``),
  never the conversation.
* Each finished message's HTML comes from ``ui.chat.message_html`` (cached).
* The view follows the end only while the user is at the bottom.
"""

from __future__ import annotations

import html
import re
import time
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import (
    QByteArray,
    QEvent,
    QMimeData,
    QUrl,
    Signal,
)
from PySide6.QtGui import (
    QColor,
    QDesktopServices,
    QFont,
    QFontDatabase,
    QGuiApplication,
    QMouseEvent,
    QResizeEvent,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
    QTextFormat,
    QWheelEvent,
)
from PySide6.QtWidgets import QTextBrowser, QWidget

from app.chat import store as st
from app.chat.markdown_blocks import BlockSplitter
from ui.chat.action_icons import ACTION, ActionTips
from ui.chat.code_pointer import CodePointer
from ui.chat.code_view import (
    OBJECT,
    PADDING_X,
    CodeBlockObjects,
    code_font,
    key_of,
    text_with_code,
)
from ui.chat.documents_html import SOURCE
from ui.chat.markdown_html import (
    CODE_IMAGE,
    COPY_CODE,
    CodeBlocks,
    MarkdownRenderer,
)
from ui.chat.message_html import LIVE, MessageHtml
from ui.chat.transcript_pictures import TranscriptPictures
from ui.visual import LIGHT, Palette

READING_WIDTH = 860  # the widest the conversation's column gets, in pixels
DEFAULT_WINDOW = 100  # messages rendered when a conversation opens
CODE_OBJECT_HTML = re.compile(r'<img[^>]*src="' + re.escape(CODE_IMAGE) + r'(\d+)"[^>]*/?>')


@dataclass
class _Live:
    """The reply being streamed, and where its parts are in the document."""

    label: str
    splitter: BlockSplitter = field(default_factory=BlockSplitter)
    think_start: int = -1  # where the Thinking section begins (-1: none yet)
    think_started: float = 0.0
    think_seconds: float | None = None  # set when the answer starts
    answer_start: int = -1  # where the rendered answer begins (-1: not started)
    live_start: int = -1  # where the unfinished tail's paragraph begins (its separator)
    rounds: list[dict[str, Any]] = field(default_factory=list)  # its tool rounds so far


class TranscriptView(QTextBrowser):
    action = Signal(str, int)  # (action, message id): edit, delete, regenerate, …
    source_requested = Signal(int, int)  # (your message's id, source number): a preview

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transcript")
        self.setAccessibleName(self.tr("Conversation"))
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setUndoRedoEnabled(False)
        self.anchorClicked.connect(self._anchor)
        self.document().setDocumentMargin(14)
        self.code_blocks = CodeBlocks()
        self.palette_colors: Palette = LIGHT
        self._mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
        self.renderer = MarkdownRenderer(self.palette_colors, self.code_blocks, self._mono)
        self.code_objects = CodeBlockObjects(self, self.code_blocks, self.palette_colors)
        self.code_objects.install(self.document())
        # Code blocks scroll sideways under the wheel and their own scroll bars.
        self.pointer = CodePointer(self, self.code_objects, self.code_blocks)
        self.tips = ActionTips(self)  # each action's name where the pointer rests
        self._messages: list[st.Message] = []
        self._by_id: dict[int, st.Message] = {}  # the same messages, by id (for parents)
        self._branches: dict[int, tuple[int, int]] = {}
        self._window = DEFAULT_WINDOW
        self.expanded: set[int] = set()  # messages whose Thinking section is open
        self.tools_open: set[int] = set()  # messages whose tool blocks are open
        self._live: _Live | None = None
        self.streamed_text = ""  # the answer being streamed, as received
        self.reasoning_text = ""
        self.last_copied = ""
        self.editing_id: int | None = None  # the message of yours being edited (highlighted)
        self.rendered = MessageHtml(self)  # each message's HTML, cached
        self.pictures = TranscriptPictures(self)
        self.code_objects.pictures = self.pictures.image  # your messages' pictures

    # -- appearance ----------------------------------------------------------------------
    def set_palette_colors(self, palette: Palette) -> None:
        self.palette_colors = palette
        self.renderer = MarkdownRenderer(
            palette, self.code_blocks, self._mono, self.renderer.wrap_code
        )
        self.code_objects.reset(palette, self.document().defaultFont())
        self._rerender()

    def set_wrap_code(self, wrap: bool) -> None:
        """Long code lines wrap in their block (text of the document) or scroll in it."""
        if wrap != self.renderer.wrap_code:
            self.renderer = MarkdownRenderer(
                self.palette_colors, self.code_blocks, self._mono, wrap
            )
            self._rerender()

    def set_font_size(self, points: float) -> None:
        font = QFont(self.font())
        font.setPointSizeF(points)
        self.setFont(font)
        self.document().setDefaultFont(font)
        self.code_objects.reset(self.palette_colors, font)
        self._rerender()

    # -- whole conversations -------------------------------------------------------------
    def show_messages(
        self,
        messages: list[st.Message],
        branches: dict[int, tuple[int, int]] | None = None,
        window: int = DEFAULT_WINDOW,
    ) -> None:
        """Render a conversation (its last ``window`` messages) in one go."""
        self._live = None
        self.code_objects.clear_found()
        self._messages = list(messages)
        self._by_id = {message.id: message for message in self._messages}
        self._branches = dict(branches or {})
        self._window = window
        self._render_document()
        self._scroll_to_end()

    def _render_document(self) -> None:
        if len(self.rendered.cache) > 4000:
            self._forget_rendered()
        shown = self._messages[-self._window :] if self._window else self._messages
        parts = []
        hidden = len(self._messages) - len(shown)
        if hidden:
            parts.append(
                f'<p align="center"><a href="{ACTION}more/0">'
                + html.escape(self.tr("Show {0} earlier messages").format(hidden))
                + "</a></p>"
            )
        last_id = self._messages[-1].id if self._messages else None
        parts += [self.rendered.message(m, m.id == last_id) for m in shown]
        self.document().setHtml("".join(parts))

    def _forget_rendered(self) -> None:
        """Drop the rendered HTML and the code blocks it names (their numbers go with it)."""
        self.rendered.cache.clear()
        self.code_blocks.clear()
        self.code_objects.forget()
        self.pointer.dragging = None  # its block's number is gone

    def highlight(self, words: str) -> bool:
        """Select and show the first place where ``words`` appear (all messages if needed),
        in the text or inside a code block, whichever comes first."""
        self.code_objects.clear_found()
        for attempt in range(2):
            in_text = self.document().find(words)
            in_code = self._first_code_with(words)
            if in_code is not None and (in_text.isNull() or in_code[0] < in_text.position()):
                position, key, start = in_code
                self._show_code_hit(position, key, start, len(words))
                return True
            if not in_text.isNull():
                self.setTextCursor(in_text)
                self.ensureCursorVisible()
                return True
            if attempt == 0:
                self.show_all()
        return False

    def _first_code_with(self, words: str) -> tuple[int, int, int] | None:
        """(position in the document, block, index in its code) of the first code block
        whose code has ``words`` (its text is not the document's, so ``find`` misses it)."""
        wanted = re.compile(re.escape(words), re.IGNORECASE)  # indexes of the text itself
        document = self.document()
        cursor = document.find(OBJECT)
        while not cursor.isNull():
            key = key_of(cursor.charFormat())
            block = self.code_blocks.get(key)
            hit = wanted.search(block.text) if block is not None else None
            if hit is not None:
                return cursor.selectionStart(), key, hit.start()
            cursor = document.find(OBJECT, cursor)
        return None

    def _show_code_hit(self, position: int, key: int, start: int, length: int) -> None:
        """Scroll to the hit's line, the block sideways to its column, and mark it."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(position)
        self.setTextCursor(cursor)
        layout = self.document().documentLayout()
        top = layout.blockBoundingRect(cursor.block()).top()
        room = self.code_objects.room_at(self.document(), position)
        line_top = self.code_objects.reveal(key, start, length, room)
        bar = self.verticalScrollBar()
        bar.setValue(int(top + line_top - self.viewport().height() / 3))

    def show_all(self) -> None:
        """Render every message of the conversation, not only the last ones."""
        if len(self._messages) > self._window:
            self._window = len(self._messages)
            self._rerender()

    def _rerender(self) -> None:
        """Render again (theme, font, a section opened), keeping the reading position."""
        bar = self.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 4
        position = bar.value()
        live = self._live
        self._forget_rendered()
        self._render_document()
        if live is not None:
            self.begin_reply(live.label, self.streamed_text, self.reasoning_text, live)
        bar.setValue(bar.maximum() if at_end else position)

    def append_message(self, message: st.Message) -> None:
        """Add one finished message at the end, without touching what is shown."""
        self._messages.append(message)
        self._by_id[message.id] = message
        self._append_html(self.rendered.message(message, True))
        self._scroll_to_end()

    def branch_of(self, message_id: int) -> tuple[int, int] | None:
        return self._branches.get(message_id)

    def parent_of(self, message: st.Message) -> st.Message | None:
        return self._by_id.get(message.parent_id) if message.parent_id is not None else None

    def set_editing(self, message_id: int | None) -> None:
        """Highlight the message being edited (None: none)."""
        if message_id != self.editing_id:
            self.editing_id = message_id
            self._rerender()

    # -- streaming -----------------------------------------------------------------------
    def begin_reply(
        self,
        model_label: str,
        text_so_far: str = "",
        reasoning_so_far: str = "",
        previous: _Live | None = None,
        rounds: list[dict[str, Any]] | None = None,
    ) -> None:
        """Start a reply at the end of the document (with what was streamed, if any, after
        its tool ``rounds``)."""
        live = _Live(model_label, rounds=list(rounds or (previous.rounds if previous else [])))
        if previous is not None:
            live.think_started = previous.think_started
            live.think_seconds = previous.think_seconds
        self._live = live
        self._append_html(self.rendered.header("assistant", model_label, LIVE, None))
        if live.rounds:
            self._append_html(self.rendered.tool_rounds(live.rounds, LIVE))
        self.streamed_text = ""
        self.reasoning_text = ""
        if reasoning_so_far:
            self.append_reasoning(reasoning_so_far)
        if text_so_far:
            self.append_stream(text_so_far)
        self._scroll_to_end()

    def append_reasoning(self, text: str) -> None:
        """The model's thinking, in an open section ahead of the answer."""
        live = self._live
        if live is None or not text:
            return
        self.reasoning_text += text
        if live.answer_start >= 0:
            return  # thinking after the answer began: kept, shown when the reply is reopened
        follow = self._at_bottom()
        if live.think_start < 0:
            live.think_start = self._cursor_at_end().position()
            if not live.think_started:
                live.think_started = time.monotonic()
            self._redraw_thinking()
        else:
            cursor = self._cursor_at_end()
            cursor.insertText(text, self._reasoning_format())
        if follow:
            self._scroll_to_end()

    def answer_was_reasoning(self) -> None:
        """What arrived as the answer was thinking (an implied ``<think>``): move it."""
        live = self._live
        if live is None:
            return
        moved, self.streamed_text = self.streamed_text, ""
        self.reasoning_text = moved + self.reasoning_text
        if live.answer_start >= 0:
            self._remove_from(live.answer_start)
        if live.think_start >= 0:
            self._remove_from(live.think_start)
        live.answer_start = live.live_start = -1
        live.think_seconds = None
        live.splitter = BlockSplitter()
        live.think_start = self._cursor_at_end().position()
        live.think_started = live.think_started or time.monotonic()
        self._redraw_thinking()

    def append_stream(self, text: str) -> None:
        live = self._live
        if live is None or not text:
            return
        follow = self._at_bottom()
        self.streamed_text += text
        if live.answer_start < 0:
            if live.think_start >= 0 and live.think_seconds is None:
                live.think_seconds = time.monotonic() - live.think_started
                self._redraw_thinking()  # collapsed, with its duration
            live.answer_start = live.live_start = self._end_position()
            self._new_plain_block()  # the tail's own paragraph
        blocks = live.splitter.feed(text)
        if blocks:
            # The finished blocks replace the tail that showed them as plain text.
            self._remove_from(live.live_start)
            self._append_html("".join(self.renderer.block(b) for b in blocks))
            live.live_start = self._end_position()
            self._new_plain_block()
            self._insert_tail(live.splitter.pending, live.splitter.in_code)
        else:
            self._insert_tail(text, live.splitter.in_code)
        if follow:
            self._scroll_to_end()

    def end_reply(
        self,
        status: str,
        stats: dict[str, object],
        error: str = "",
        message: st.Message | None = None,
    ) -> None:
        """The reply ended: render its last block and its footer (with its actions)."""
        live = self._live
        if live is None:
            return
        self._live = None
        if live.answer_start >= 0:
            self._remove_from(live.live_start)
            blocks = live.splitter.finish()
            if blocks:
                self._append_html("".join(self.renderer.block(b) for b in blocks))
        if message is None:
            message = st.Message(
                LIVE, 0, "assistant", self.streamed_text, status, stats=dict(stats), error=error
            )
        self._messages.append(message)
        self._by_id[message.id] = message
        self._append_html(self.rendered.sources(message) + self.rendered.footer(message, True))
        self._scroll_to_end()

    @property
    def streaming(self) -> bool:
        return self._live is not None

    def thinking_seconds(self) -> float | None:
        """How long the model thought before answering in the reply being streamed."""
        return self._live.think_seconds if self._live is not None else None

    # -- document helpers ----------------------------------------------------------------
    def _redraw_thinking(self) -> None:
        live = self._live
        assert live is not None
        self._remove_from(live.think_start)
        expanded = live.think_seconds is None or LIVE in self.expanded
        self._append_html(
            self.rendered.thinking(LIVE, self.reasoning_text, live.think_seconds, expanded)
        )

    def _insert_tail(self, text: str, code: bool) -> None:
        """The unfinished block as typed; an open code fence already in the code's font,
        background and place (the paragraphs typed after it take the same format)."""
        fmt = QTextCharFormat()
        cursor = self._cursor_at_end()
        if code:
            fmt.setFontFamilies([self._mono])
            block_format = cursor.blockFormat()
            if not self.renderer.wrap_code:
                fmt.setFont(self.code_objects.font)
            if not self.renderer.wrap_code and block_format.leftMargin() != PADDING_X:
                # once per paragraph, not on every update of a streaming reply
                block_format.setBackground(QColor(self.palette_colors.code_background))
                block_format.setLeftMargin(PADDING_X)
                block_format.setNonBreakableLines(False)
                cursor.setBlockFormat(block_format)
        cursor.insertText(text, fmt)

    def _reasoning_format(self) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setFontItalic(True)
        fmt.setForeground(QGuiApplication.palette().placeholderText())
        return fmt

    def _remove_from(self, position: int) -> None:
        cursor = QTextCursor(self.document())
        cursor.setPosition(min(position, self._end_position()))
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()

    def _end_position(self) -> int:
        return self._cursor_at_end().position()

    def _append_html(self, fragment: str) -> None:
        """Insert HTML at the end, in blocks of its own, laid out exactly as the same HTML
        rendered with the whole conversation (margins and all)."""
        cursor = self._cursor_at_end()
        # A list, a table or a rule starts a block of its own when inserted at the end.
        if fragment.lstrip().startswith(("<ul", "<ol", "<table", "<hr")):
            cursor.insertHtml(fragment)
            return
        # Anything else would merge its first paragraph into the block at the cursor and
        # lose that paragraph's format (margins, heading, quote).  So the HTML is parsed
        # once into a scratch document and its first paragraph's format given to a block
        # of its own (after a table, the table's empty trailing block stays as a gap).
        scratch = QTextDocument()
        scratch.setDefaultFont(self.document().defaultFont())
        scratch.setHtml(fragment)
        first = QTextBlockFormat(scratch.firstBlock().blockFormat())
        first.clearProperty(QTextFormat.Property.ObjectIndex)  # a list of the scratch's
        block = cursor.block()
        after_table = (
            block.previous().isValid() and QTextCursor(block.previous()).currentTable() is not None
        )
        if block.length() > 1 or after_table:
            cursor.insertBlock(first, QTextCharFormat())
        else:
            cursor.setBlockFormat(first)  # not in the list or quote before it
            cursor.setCharFormat(QTextCharFormat())
        cursor.insertFragment(QTextDocumentFragment(scratch))

    def _new_plain_block(self) -> None:
        """A new paragraph at the end that belongs to no list, quote or code block."""
        self._cursor_at_end().insertBlock(QTextBlockFormat(), QTextCharFormat())

    def _cursor_at_end(self) -> QTextCursor:
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        return cursor

    def _at_bottom(self) -> bool:
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() - 4

    def _scroll_to_end(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    # -- links ---------------------------------------------------------------------------
    def _anchor(self, url: QUrl) -> None:
        target = url.toString()
        if target.startswith(COPY_CODE):
            number = target.removeprefix(COPY_CODE)
            # a model may write such a link itself: only a number of Hearth's is one
            block = self.code_blocks.get(int(number)) if number.isdecimal() else None
            if block is not None:
                self.copy_to_clipboard(block.text)
            return
        if target.startswith(SOURCE):
            user_id, _, number = target.removeprefix(SOURCE).partition("/")
            self.source_requested.emit(int(user_id or 0), int(number or 0))
            return
        if target.startswith(ACTION):
            name, _, number = target.removeprefix(ACTION).partition("/")
            message_id = int(number or 0)
            if name in ("think", "tools"):
                opened = self.expanded if name == "think" else self.tools_open
                opened ^= {message_id}
                self._rerender()
            elif name == "more":
                self._window += DEFAULT_WINDOW
                self._rerender()
            else:
                self.action.emit(name, message_id)
            return
        if url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)

    def copy_to_clipboard(self, text: str) -> None:
        self.last_copied = text
        QGuiApplication.clipboard().setText(text)
        self.tips.say(self.tr("Copied"))  # where it was clicked, or beside the icon Enter ran

    # -- code blocks: their own sideways scrolling, their text where text is read -------
    def toPlainText(self) -> str:
        """The conversation's text, with each code block's code in its place."""
        return text_with_code(self.document(), self.code_blocks, 0, self._end_position())

    def createMimeDataFromSelection(self) -> QMimeData:
        """A copied selection carries the code of the code blocks in it, as text and as
        HTML (where a pasted image of Hearth's would show nothing).  Qt's own data would
        give each block's object character, whatever is set on it, so this is new data."""
        cursor = self.textCursor()
        start, end = cursor.selectionStart(), cursor.selectionEnd()
        data = QMimeData()
        data.setText(text_with_code(self.document(), self.code_blocks, start, end))
        data.setHtml(CODE_OBJECT_HTML.sub(self._code_as_html, cursor.selection().toHtml()))
        return data

    def _code_as_html(self, found: re.Match[str]) -> str:
        block = self.code_blocks.get(int(found.group(1)))
        text = block.text.rstrip("\n") if block is not None else ""
        return f"<pre>{html.escape(text)}</pre>"

    def wheelEvent(self, event: QWheelEvent) -> None:
        if not self.pointer.wheel(event):
            super().wheelEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if not self.pointer.press(event):
            super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        if not self.pointer.double_click(event):
            super().mouseDoubleClickEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if not self.pointer.move(event):
            super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if not self.pointer.release(event):
            super().mouseReleaseEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        """Zoom (Ctrl+wheel) and font changes reach the code: it is measured again and the
        blocks are laid out again, keeping where each was scrolled."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.ApplicationFontChange):
            font = self.document().defaultFont()
            if code_font(font).pointSizeF() != self.code_objects.font.pointSizeF():
                self.code_objects.reset(self.palette_colors, font)
                document = self.document()
                document.markContentsDirty(0, document.characterCount())

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A centred reading column: lines longer than ``READING_WIDTH`` are tiring, and
        on a wide window the text would otherwise run from edge to edge.

        The margins come from the widget's own width, never from the event's: this is
        called for the viewport's resizes too, and the viewport's width is what the
        margins change, so measuring it would flip the margins back and forth forever."""
        side = max((self.contentsRect().width() - READING_WIDTH) // 2, 0)
        if side != self.viewportMargins().left():
            self.setViewportMargins(side, 0, side, 0)
        super().resizeEvent(event)

    def loadResource(self, type: int, name: QUrl | str) -> object:
        """Nothing is ever loaded to show a reply: no images, no style sheets, no files."""
        return QByteArray()  # empty: (returning None trips a reference-count bug in PySide)
