"""Code blocks in the transcript: a long line scrolls inside its own block, never the
conversation, and the code stays what people copy, find and read."""

from __future__ import annotations

import gc
import re
import weakref

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, Qt, QUrl
from PySide6.QtGui import QGuiApplication, QMouseEvent, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.chat import store as st
from ui.chat.code_view import OBJECT, PADDING_X, PADDING_Y, key_of
from ui.chat.markdown_html import COPY_CODE
from ui.chat.transcript import TranscriptView
from ui.gui import make_application
from ui.visual import DARK

LONG_LINE = "value = " + " + ".join(f"term_{i}" for i in range(60))
PROSE = "\n".join(f"Line {i} of some prose around the code." for i in range(30))


@pytest.fixture
def view() -> TranscriptView:
    make_application()
    transcript = TranscriptView()
    transcript.resize(700, 500)
    return transcript


def _painted(view: TranscriptView) -> None:
    """Show the view and let it paint, so its code blocks know where they are."""
    view.show()
    QApplication.processEvents()
    view.viewport().repaint()


def _object_rects(view: TranscriptView) -> dict[int, QRectF]:
    """Each code block's place in the document, from the layout (drawn or not)."""
    rects = {}
    document = view.document()
    cursor = document.find(OBJECT)
    while not cursor.isNull():
        block = cursor.block()
        layout = block.layout()
        top = document.documentLayout().blockBoundingRect(block).top()
        line = layout.lineAt(0)
        key = key_of(cursor.charFormat())
        if key:  # a code block (the other objects are the actions' icons)
            rects[key] = QRectF(
                layout.position().x() + line.x(), top, line.naturalTextWidth(), line.height()
            )
        cursor = document.find(OBJECT, cursor)
    return rects


def _centre_on(view: TranscriptView, key: int) -> QPointF:
    """Scroll the conversation so that the block is in the middle; a point over it."""
    rect = _object_rects(view)[key]
    bar = view.verticalScrollBar()
    bar.setValue(int(rect.center().y() - view.viewport().height() / 2))
    view.viewport().repaint()
    assert 0 < bar.value() < bar.maximum(), "room to scroll both ways"
    return QPointF(rect.center().x(), rect.center().y() - bar.value())


def _wheel(
    view: TranscriptView, at: QPointF, dx: int, dy: int, shift: bool = False, pixels: bool = False
) -> None:
    modifiers = Qt.KeyboardModifier.ShiftModifier if shift else Qt.KeyboardModifier.NoModifier
    event = QWheelEvent(
        at,
        view.viewport().mapToGlobal(at),
        QPoint(dx, dy) if pixels else QPoint(0, 0),
        QPoint(dx, dy),
        Qt.MouseButton.NoButton,
        modifiers,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(view.viewport(), event)


def _reply(view: TranscriptView, text: str) -> None:
    view.show_messages([st.Message(1, 1, "assistant", text, model="m")])
    _painted(view)


LONG_AND_SHORT = (
    f"{PROSE}\n\n```python\ndef f():\n    {LONG_LINE}\n```\n\n"
    f"{PROSE}\n\n```\nx = 1\n```\n\n{PROSE}\n"
)


def test_shift_wheel_or_a_swipe_scrolls_the_block_and_not_the_conversation(
    view: TranscriptView,
) -> None:
    _reply(view, LONG_AND_SHORT)
    wide, short = sorted(_object_rects(view))
    over = _centre_on(view, wide)
    objects = view.code_objects
    assert objects.wide(wide), "the long line's block has a bar"
    bar = view.verticalScrollBar()
    down = bar.value()
    block = view.code_blocks.get(wide)
    assert block is not None and block.offset == 0

    _wheel(view, over, 0, -120, shift=True)
    assert block.offset > 0, "Shift+wheel scrolled the block sideways"
    assert bar.value() == down, "the conversation stayed"
    _wheel(view, over, 120, 0)  # a sideways swipe back
    assert block.offset == 0
    _wheel(view, over, -30, 0, pixels=True)  # a touchpad: pixel by pixel
    assert block.offset == 30
    assert view.horizontalScrollBar().maximum() == 0, "the conversation never scrolls sideways"

    # A swipe that is mostly downwards scrolls the conversation, even over the block.
    _wheel(view, over, -10, -120)
    assert bar.value() > down and block.offset == 30
    # The short block has no bar: a sideways swipe over it does nothing to it.
    short_block = view.code_blocks.get(short)
    assert short_block is not None and not objects.wide(short)
    _wheel(view, _centre_on(view, short), -120, 0)
    assert short_block.offset == 0


def test_dragging_the_blocks_bar_shows_the_end_of_the_line(view: TranscriptView) -> None:
    _reply(view, LONG_AND_SHORT)
    key = min(_object_rects(view))
    _centre_on(view, key)
    objects = view.code_objects
    bar = objects.bar_rect(key)
    block = view.code_blocks.get(key)
    assert bar is not None and block is not None
    top = view.verticalScrollBar().value()
    start = QPoint(int(objects.thumb_rect(key).center().x()), int(bar.center().y() - top))
    viewport = view.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier(0), start)
    QTest.mouseMove(viewport, QPoint(int(bar.right()) + 50, start.y()))
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier(0), start)
    rect = objects.drawn_at[key]
    assert block.offset > 0 and objects.thumb_rect(key).right() == pytest.approx(bar.right())
    assert not objects.scroll_by(key, 10), "at the end of the line"
    assert rect.width() < view.viewport().width(), "the block stayed in its column"

    # A release that went elsewhere: moving without a button no longer drags.
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier(0), start)
    at_end = block.offset
    view.mouseMoveEvent(_move_without_buttons(QPointF(bar.left() - 200, start.y())))
    assert block.offset == at_end


def _move_without_buttons(at: QPointF) -> QMouseEvent:
    return QMouseEvent(
        QEvent.Type.MouseMove,
        at,
        at,
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )


def test_code_blocks_fill_their_line_in_lists_and_quotes(view: TranscriptView) -> None:
    _reply(
        view,
        f"1. Install:\n   ```bash\n   {LONG_LINE}\n   ```\n2. Done\n\n"
        f"> quoted:\n> ```\n> {LONG_LINE}\n> ```\n\n"
        f"- outer\n  - inner\n\n    ```\n    {LONG_LINE}\n    ```\n",
    )
    assert view.horizontalScrollBar().maximum() == 0
    document = view.document()
    cursor = document.find(OBJECT)
    checked = 0
    while not cursor.isNull():
        if not key_of(cursor.charFormat()):  # an action's icon, not a code block
            cursor = document.find(OBJECT, cursor)
            continue
        line = cursor.block().layout().lineAt(0)
        drawn = view.code_objects.drawn_at.get(key_of(cursor.charFormat()))
        assert drawn is not None
        assert abs(drawn.width() - line.width()) <= 1, "as wide as its line, no wider"
        checked += 1
        cursor = document.find(OBJECT, cursor)
    assert checked == 3


def test_a_line_with_chinese_or_emoji_is_measured_as_it_is_drawn(view: TranscriptView) -> None:
    code = "# 你好，世界 🌍\nprint('ok')  # 好\n"
    _reply(view, f"```python\n{code}```\n")
    key = min(_object_rects(view))
    block = view.code_blocks.get(key)
    assert block is not None
    drawing = view.code_objects._drawing(key, block)
    assert view.code_objects.drawn_at[key].height() >= drawing.size().height() + 2 * PADDING_Y


def test_copying_a_selection_gives_the_code_as_text_and_html(view: TranscriptView) -> None:
    _reply(view, f"Before.\n\n```python\nsecret_word = 42\n{LONG_LINE}\n```\n\nAfter.\n")
    view.selectAll()
    view.copy()
    data = QGuiApplication.clipboard().mimeData()
    copied = data.text()
    assert "Before." in copied and "secret_word = 42\n" + LONG_LINE in copied
    assert copied.index("Before.") < copied.index("secret_word") < copied.index("After.")
    assert OBJECT not in copied
    assert "secret_word = 42" in data.html() and "hearth:code" not in data.html()
    assert "Before." in view.toPlainText() and LONG_LINE in view.toPlainText()


def test_a_search_hit_in_code_is_scrolled_to_and_marked(view: TranscriptView) -> None:
    hidden = (
        "x = 0\n" * 40 + "far_right = " + " + ".join(f"t{i}" for i in range(80)) + " + NEEDLE\n"
    )
    _reply(view, f"{PROSE}\n\n```python\n{hidden}```\n\n{PROSE}\n\nNeedle in prose, later.\n")
    view.verticalScrollBar().setValue(0)
    assert view.highlight("needle")
    key = min(_object_rects(view))
    block = view.code_blocks.get(key)
    column = hidden.splitlines()[40].index("NEEDLE")
    assert block is not None and block.found == (40, column, column + 6), "code came first"
    view.viewport().repaint()
    rect = view.code_objects.drawn_at[key]
    found = view.code_objects._found_rect(key, block)
    assert block.offset <= found.left() < block.offset + rect.width(), "scrolled to its column"
    line_top = rect.top() + PADDING_Y + found.top() - view.verticalScrollBar().value()
    assert 0 <= line_top < view.viewport().height(), "the hit's line is on screen"


def test_a_search_finds_prose_before_later_code(view: TranscriptView) -> None:
    _reply(view, "The needle is here.\n\n```\nneedle()\n```\n")
    assert view.highlight("needle")
    assert view.textCursor().selectedText() == "needle"
    assert all(block.found is None for block in view.code_blocks.blocks.values())


def test_copy_links_copy_their_own_block_after_switching_conversations(
    view: TranscriptView,
) -> None:
    first = [st.Message(1, 1, "assistant", "```\nfirst code\n```", model="m")]
    second = [st.Message(2, 2, "assistant", "```\nsecond code\n```", model="m")]
    view.show_messages(first)
    view.show_messages(second)
    view.show_messages(first)  # from the cache
    links = re.findall(re.escape(COPY_CODE) + r"(\d+)", view.toHtml())
    assert len(links) == 1
    view.anchorClicked.emit(QUrl(COPY_CODE + links[0]))
    assert QGuiApplication.clipboard().text() == "first code\n"


def test_a_streamed_code_block_copies_exactly_and_keeps_its_place(view: TranscriptView) -> None:
    view.show_messages([st.Message(1, 1, "user", "Show me")])
    view.begin_reply("m")
    reply = f"Here:\n\n```python\n{LONG_LINE}\n```\n\nDone.\n"
    for start in range(0, len(reply), 7):
        view.append_stream(reply[start : start + 7])
    view.end_reply(st.COMPLETE, {}, "", st.Message(2, 1, "assistant", reply, model="m"))
    _painted(view)
    key = max(_object_rects(view))
    view.code_objects.scroll_to(key, 100)
    view.set_editing(1)  # rendered again: the block keeps where it was scrolled
    _painted(view)
    links = re.findall(re.escape(COPY_CODE) + r"(\d+)", view.toHtml())
    view.anchorClicked.emit(QUrl(COPY_CODE + links[-1]))
    assert QGuiApplication.clipboard().text() == LONG_LINE + "\n"
    block = view.code_blocks.get(int(links[-1]))
    assert block is not None and block.offset == 100


def test_theme_and_zoom_reach_the_code(view: TranscriptView) -> None:
    _reply(view, f"```python\n{LONG_LINE}\nsecond = 2\n```\n")
    key = min(_object_rects(view))
    height = view.code_objects.drawn_at[key].height()
    view.zoomIn(6)  # Ctrl+wheel
    _painted(view)
    key = min(_object_rects(view))
    assert view.code_objects.font.pointSizeF() == view.document().defaultFont().pointSizeF()
    assert view.code_objects.drawn_at[key].height() > height, "bigger text, taller block"
    view.set_palette_colors(DARK)
    _painted(view)
    key = min(_object_rects(view))
    block = view.code_blocks.get(key)
    assert block is not None
    assert DARK.text in view.code_objects._drawing(key, block).toHtml()


def test_rendering_again_frees_the_drawings(view: TranscriptView) -> None:
    _reply(view, f"```\n{LONG_LINE}\n```\n\n```\nother\n```\n")
    key = min(_object_rects(view))
    block = view.code_blocks.get(key)
    assert block is not None
    drawing = weakref.ref(view.code_objects._drawing(key, block))
    view.set_editing(1)  # the conversation rendered again
    _painted(view)
    gc.collect()
    assert drawing() is None, "the old drawing is gone, not kept alive by Qt"


def test_wrapping_code_makes_it_text_of_the_conversation(view: TranscriptView) -> None:
    view.set_wrap_code(True)
    _reply(view, f"```python\n{LONG_LINE}\n```\n")
    assert _object_rects(view) == {}, "no code block object: text"
    assert LONG_LINE in view.document().toPlainText().replace("\u2028", "\n")
    cursor = view.document().find("term_0 +")
    assert cursor.block().layout().lineCount() > 1, "it wraps in its block"
    view.set_wrap_code(False)
    assert _object_rects(view), "a code block object again"


def test_an_open_fence_streams_where_its_block_will_be(view: TranscriptView) -> None:
    view.begin_reply("m")
    view.append_stream("Intro.\n\n```python\nx = 1\n")
    tail = view.document().lastBlock().blockFormat()
    assert tail.background().color().name() == view.palette_colors.code_background
    assert tail.leftMargin() == PADDING_X, "the code does not jump sideways when it closes"


def test_a_copy_link_written_by_the_model_does_nothing(view: TranscriptView) -> None:
    QGuiApplication.clipboard().setText("before")
    _reply(view, f"[copy me]({COPY_CODE}abc) and [this]({COPY_CODE}1x)")
    for target in (f"{COPY_CODE}abc", f"{COPY_CODE}1x", f"{COPY_CODE}²"):
        view.anchorClicked.emit(QUrl(target))
    assert QGuiApplication.clipboard().text() == "before", "nothing copied"
