"""The conversation view: messages as blocks of a QTextDocument, streaming appended at the end.

Opening a conversation renders it once.  While a reply streams, new text is inserted
with a cursor parked at the end of the document; nothing already shown is re-rendered,
so the cost of each update does not grow with the length of the conversation.  The view
follows the end only while the user is at the bottom, so scrolling up to read is never
yanked away.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QTextBlockFormat, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextBrowser, QWidget

from app import store as st

STATUS_TEXT = {
    st.STOPPED: "Stopped",
    st.INTERRUPTED: "Interrupted: the engine stopped before the reply was finished",
    st.LENGTH: "Cut at the token limit",
    st.FAILED: "Failed",
    st.STREAMING: "Writing…",
}


def stats_text(stats: dict[str, object]) -> str:
    """The line under a reply: speed, time to first token, length."""
    parts: list[str] = []
    speed = stats.get("tokens_per_s")
    if isinstance(speed, int | float):
        parts.append(f"{speed:.1f} tok/s")
    ttft = stats.get("client_ttft_ms", stats.get("ttft_ms"))
    if isinstance(ttft, int | float):
        parts.append(f"first token {ttft / 1000:.2f} s")
    generated = stats.get("generated_tokens")
    if isinstance(generated, int):
        parts.append(f"{generated} tokens")
    return " · ".join(parts)


class TranscriptView(QTextBrowser):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transcript")
        self.setAccessibleName("Conversation")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setUndoRedoEnabled(False)
        self.document().setDocumentMargin(14)
        base = self.font()
        self._header = QTextCharFormat()
        self._header.setFontWeight(QFont.Weight.Bold)
        self._body = QTextCharFormat()
        self._body.setFont(base)
        self._meta = QTextCharFormat()
        self._meta.setForeground(QColor("#6b7280"))
        meta_font = QFont(base)
        meta_font.setPointSizeF(max(base.pointSizeF() * 0.85, 7.0))
        self._meta.setFont(meta_font)
        self._error = QTextCharFormat(self._meta)
        self._error.setForeground(QColor("#b91c1c"))
        self._reasoning = QTextCharFormat(self._meta)
        self._reasoning.setFontItalic(True)
        self._streaming = False
        self.streamed_text = ""  # the text of the reply being streamed, as shown
        self.reasoning_text = ""

    # -- whole conversations -------------------------------------------------------
    def show_messages(self, messages: list[st.Message]) -> None:
        self._streaming = False
        self.clear()
        for message in messages:
            self.append_message(message)

    def append_message(self, message: st.Message) -> None:
        """Add one finished message at the end, without touching what is shown."""
        self._add_header(message.role, message.model)
        self._add_body(message.content)
        if message.role == "assistant":
            self._add_footer(message.status, message.stats, message.error)
        self._scroll_to_end()

    def _cursor_at_end(self) -> QTextCursor:
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        return cursor

    def _new_block(self, cursor: QTextCursor, top_margin: float = 0.0) -> None:
        block = QTextBlockFormat()
        block.setTopMargin(top_margin)
        if self.document().isEmpty():
            cursor.setBlockFormat(block)
        else:
            cursor.insertBlock(block)

    def _add_header(self, role: str, model: str) -> None:
        cursor = self._cursor_at_end()
        self._new_block(cursor, top_margin=12.0)
        label = (
            "You" if role == "user" else ("System" if role == "system" else (model or "Assistant"))
        )
        cursor.insertText(label, self._header)

    def _add_body(self, text: str) -> None:
        cursor = self._cursor_at_end()
        self._new_block(cursor, top_margin=2.0)
        cursor.insertText(text, self._body)

    def _add_footer(self, status: str, stats: dict[str, object], error: str = "") -> None:
        parts = []
        if status in STATUS_TEXT and status != st.COMPLETE:
            parts.append(STATUS_TEXT[status])
        line = stats_text(stats)
        if line:
            parts.append(line)
        if not parts and not error:
            return
        cursor = self._cursor_at_end()
        self._new_block(cursor, top_margin=2.0)
        if parts:
            cursor.insertText(" · ".join(parts), self._meta)
        if error:
            if parts:
                cursor.insertText("  ", self._meta)
            cursor.insertText(error, self._error)

    # -- streaming -----------------------------------------------------------------
    def begin_reply(self, model_label: str, text_so_far: str = "") -> None:
        """Start a reply at the end of the document (with text already streamed, if any)."""
        self._add_header("assistant", model_label)
        self._add_body(text_so_far)
        self.streamed_text = text_so_far
        self.reasoning_text = ""
        self._streaming = True
        self._scroll_to_end()

    def append_stream(self, text: str) -> None:
        if not self._streaming or not text:
            return
        bar = self.verticalScrollBar()
        follow = bar.value() >= bar.maximum() - 4
        cursor = self._cursor_at_end()
        cursor.insertText(text, self._body)
        self.streamed_text += text
        if follow:
            bar.setValue(bar.maximum())

    def append_reasoning(self, text: str) -> None:
        """The model's thinking, in grey italics ahead of the answer."""
        if not self._streaming or not text:
            return
        cursor = self._cursor_at_end()
        cursor.insertText(text, self._reasoning)
        self.reasoning_text += text

    def end_reply(self, status: str, stats: dict[str, object], error: str = "") -> None:
        if not self._streaming:
            return
        self._streaming = False
        self._add_footer(status, stats, error)
        self._scroll_to_end()

    @property
    def streaming(self) -> bool:
        return self._streaming

    def _scroll_to_end(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())
