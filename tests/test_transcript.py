"""The transcript shows a streamed reply exactly as it shows the same reply reopened."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QWidget

from app.chat import store as st
from tests.gui_helpers import footer_of
from ui.chat.transcript import READING_WIDTH, TranscriptView
from ui.gui import make_application

SAMPLES = {
    "paragraphs": "First paragraph\nstill first.\n\nSecond one.\n",
    "list after paragraph": "Colours:\n\n- red\n- green\n\nThat is all.\n",
    "loose list": "1. one\n\n2. two\n\n   more about two\n\n3. three\n",
    "table after code": "```js\nlet x = 1;\n```\n| a | b |\n|---|---|\n| 1 | 2 |\n\nEnd.\n",
    "heading, quote, rule": "# Title\n> quoted\n> more\n\n---\n\n## Next\ntext\n",
    "code then list": "```\nplain\n```\n\n- item\n",
    "unclosed fence": "Here:\n\n```python\nprint('never closed')\n",
    "cjk and emoji": "你好，世界！🌍\n\n| 名称 | 值 |\n|---|---|\n| 甲 | 1 |\n",
}


def layout_of(view: TranscriptView) -> list[tuple[str, float, float, bool]]:
    """Each paragraph's text, its margins and whether it is in a list."""
    rows = []
    block = view.document().firstBlock()
    while block.isValid():
        fmt = block.blockFormat()
        rows.append(
            (block.text(), fmt.topMargin(), fmt.bottomMargin(), block.textList() is not None)
        )
        block = block.next()
    return rows


@pytest.fixture
def view() -> Iterator[TranscriptView]:
    make_application()
    transcript = TranscriptView()
    transcript.resize(700, 500)
    yield transcript
    ended(transcript)


def ended(widget: QWidget) -> None:
    """Close and delete a top-level widget now, in the GUI thread: left to the garbage
    collector, its end could run in another thread and wait there for this one."""
    widget.close()
    widget.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.mark.parametrize("name", sorted(SAMPLES))
@pytest.mark.parametrize("chunk", [1, 3, 17])
def test_streamed_and_reopened_replies_look_the_same(
    view: TranscriptView, name: str, chunk: int
) -> None:
    text = SAMPLES[name]
    question = st.Message(1, 1, "user", "Show me")
    view.show_messages([question])
    view.begin_reply("model")
    for start in range(0, len(text), chunk):
        view.append_stream(text[start : start + chunk])
    reply = st.Message(2, 1, "assistant", text, model="model")
    view.end_reply(st.COMPLETE, {}, "", reply)
    streamed = view.toPlainText()
    streamed_layout = layout_of(view)
    last = view.document().lastBlock()
    assert footer_of(last) and QTextCursor(last).currentList() is None
    view.show_messages([question, reply])
    assert view.toPlainText() == streamed
    assert layout_of(view) == streamed_layout  # the same margins, lists and headings too
    assert view.streaming is False


def test_an_unfinished_fence_streams_in_the_code_font(view: TranscriptView) -> None:
    view.begin_reply("model")
    view.append_stream("Intro.\n\n```python\nx = 1\n")
    cursor = QTextCursor(view.document())
    cursor.movePosition(QTextCursor.MoveOperation.End)
    cursor.movePosition(QTextCursor.MoveOperation.Left)
    families = cursor.charFormat().fontFamilies() or []
    assert view._mono in families  # the font the code will keep
    assert "```python" in view.toPlainText()  # not rendered until it closes


def test_long_conversations_open_with_their_end_and_show_more_on_request(
    view: TranscriptView,
) -> None:
    messages = [
        st.Message(i, 1, "user" if i % 2 else "assistant", f"message number {i}")
        for i in range(1, 351)
    ]
    view.show_messages(messages)
    text = view.toPlainText()
    assert "message number 350" in text and "message number 10\n" not in text
    assert "Show 250 earlier messages" in text
    assert view.highlight("message number 10")  # a search hit renders the rest
    assert "message number 1\n" in view.toPlainText()


LONG_LINE = "value = " + " + ".join(f"term_{i}" for i in range(60))


def test_a_poem_keeps_its_lines_and_long_code_never_scrolls_the_conversation(
    view: TranscriptView,
) -> None:
    poem = "Roses are red,\nviolets are blue,\na model at home\nwrites this for you."
    code = f"```python\n{LONG_LINE}\n```"
    view.show_messages([st.Message(1, 1, "assistant", f"{poem}\n\n{code}", model="m")])
    shown = view.toPlainText()
    assert "Roses are red,\nviolets are blue," in shown.replace("\u2028", "\n"), "lines kept"
    assert LONG_LINE in shown, "the code is there, on one line"
    assert view.horizontalScrollBar().maximum() == 0, "the conversation never scrolls sideways"


def test_a_quote_has_a_bar_and_a_nested_list_no_gap(view: TranscriptView) -> None:
    view.show_messages(
        [st.Message(1, 1, "assistant", "> wise words\n\n1. one\n   - inner\n2. two", model="m")]
    )
    document = view.document()
    cursor = QTextCursor(document)
    tables = []
    while True:
        table = cursor.currentTable()
        if table is not None and table not in tables:
            tables.append(table)
        if not cursor.movePosition(QTextCursor.MoveOperation.NextBlock):
            break
    assert len(tables) == 1 and tables[0].columns() == 2, "a bar cell beside the quote"
    bar = tables[0].cellAt(0, 0).format().background().color().name()
    assert bar == view.palette_colors.quote_bar
    inner = next(r for r in layout_of(view) if r[0] == "inner")
    assert inner[1] <= 4, "the nested list sits close to its item"


def test_your_messages_are_tinted_and_the_one_being_edited_stands_out(
    view: TranscriptView,
) -> None:
    mine = st.Message(1, 1, "user", "My question")
    view.show_messages([mine, st.Message(2, 1, "assistant", "The answer", model="m")])

    def background(text: str) -> str:
        block = view.document().firstBlock()
        while block.isValid() and text not in block.text():
            block = block.next()
        return block.blockFormat().background().color().name()

    colors = view.palette_colors
    assert background("My question") == colors.user_background
    assert background("The answer") != colors.user_background
    view.set_editing(1)
    assert background("My question") == colors.editing_background
    view.set_editing(None)
    assert background("My question") == colors.user_background


def test_a_wide_view_centres_its_reading_column(view: TranscriptView) -> None:
    view.resize(1000, 700)
    view.show()
    # Enough to need the vertical scroll bar (which once flipped the margins forever).
    view.show_messages(
        [
            st.Message(i, 1, "assistant", f"Reply {i}\n\n" + "Hello " * 60, model="m")
            for i in range(80)
        ]
    )
    QApplication.processEvents()
    side = view.viewportMargins().left()
    assert side == (view.contentsRect().width() - READING_WIDTH) // 2 > 0
    assert view.viewportMargins().right() == side
    assert view.viewport().width() <= READING_WIDTH


def test_the_actions_under_a_message_are_icons_named_on_hover_and_reached_by_tab(
    view: TranscriptView,
) -> None:
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QToolTip

    from ui.chat.code_view import OBJECT

    question = st.Message(1, 1, "user", "Hello")
    reply = st.Message(2, 1, "assistant", "Hi there.", model="m")
    view.show()
    view.show_messages([question, reply])
    assert "Regenerate" not in view.toPlainText(), "icons, not words with dots between"
    document = view.document()
    icons: dict[str, QPoint] = {}
    cursor = document.find(OBJECT)
    while not cursor.isNull():
        href = cursor.charFormat().anchorHref()
        if href:
            before = QTextCursor(cursor)
            before.setPosition(cursor.selectionStart())
            icons[href] = view.cursorRect(before).center() + QPoint(8, 0)
        cursor = document.find(OBJECT, cursor)
    assert set(icons) >= {"hearth:act/regenerate/2", "hearth:act/copy-md/2", "hearth:act/edit/1"}
    # Resting the pointer on an icon names its action.
    point = icons["hearth:act/regenerate/2"]
    assert view.anchorAt(point) == "hearth:act/regenerate/2"
    tip = QHelpEvent(QEvent.Type.ToolTip, point, view.viewport().mapToGlobal(point))
    QApplication.sendEvent(view.viewport(), tip)
    assert QToolTip.text() == "Regenerate"
    # Tab goes from action to action; each is a link Enter runs.
    view.setFocus()
    reached = set()
    for _ in range(12):
        view.focusNextPrevChild(True)
        reached.add(view.textCursor().charFormat().anchorHref())
    assert {"hearth:act/edit/1", "hearth:act/regenerate/2"} <= reached


def test_an_action_reached_by_tab_is_named_and_says_copied_beside_itself(
    view: TranscriptView,
) -> None:
    """The keyboard gets what the pointer gets: the icon Tab reached is named in a tooltip,
    and Enter on Copy says "Copied" beside that icon, not wherever the pointer is."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtGui import QCursor
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QToolTip

    view.show()
    view.show_messages(
        [st.Message(1, 1, "user", "Hello"), st.Message(2, 1, "assistant", "Hi.", model="m")]
    )
    QCursor.setPos(view.mapToGlobal(QPoint(-400, -400)))  # the pointer is elsewhere
    view.setFocus()
    for _ in range(12):
        QTest.keyClick(view, Qt.Key.Key_Tab)
        if view.textCursor().charFormat().anchorHref() == "hearth:act/copy-md/2":
            break
    assert view.textCursor().charFormat().anchorHref() == "hearth:act/copy-md/2"
    QApplication.processEvents()
    assert QToolTip.text() == "Copy (Markdown)", "named for the keyboard"
    place = view.viewport().mapToGlobal(view.cursorRect(view.textCursor()).center())
    said = view.tips.feedback_point()
    assert (said - place).manhattanLength() < 40, "beside the chosen icon"
    view.copy_to_clipboard("Hi.")
    assert QToolTip.text() == "Copied"


def test_focus_with_no_smaller_place_to_show_rings_the_whole_widget() -> None:
    """Tab's first stop in the conversation (no link chosen yet) and an empty list are not
    invisible stops: focus that came by the keyboard rings them whole, as a box one types
    in is ringed; a click into the conversation (to select text) draws no ring."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtGui import QColor
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QLineEdit, QListWidget, QVBoxLayout

    from ui.style import HearthStyle
    from ui.visual import EDGES

    app = make_application()
    style = HearthStyle()
    ring = QColor(EDGES["light"][1])
    window = QWidget()
    column = QVBoxLayout(window)
    start, empty, transcript = QLineEdit(), QListWidget(), TranscriptView()
    for widget in (start, empty, transcript):
        widget.setStyle(style)
        column.addWidget(widget)
    transcript.show_messages([st.Message(1, 1, "user", "Hello")])
    window.resize(300, 400)
    window.show()
    window.activateWindow()
    start.setFocus()
    app.processEvents()

    def ringed(widget: QWidget) -> bool:
        app.processEvents()
        assert widget.hasFocus()
        image = widget.grab().toImage()
        left = image.pixelColor(0, image.height() // 2)
        return abs(left.blue() - ring.blue()) < 40 and abs(left.red() - ring.red()) < 40

    QTest.keyClick(start, Qt.Key.Key_Tab)
    assert ringed(empty), "an empty list reached by Tab"
    QTest.keyClick(empty, Qt.Key.Key_Tab)
    assert ringed(transcript), "the conversation reached by Tab, before a link is chosen"
    start.setFocus()
    QTest.mouseClick(transcript.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
    assert not ringed(transcript), "a click to select text draws no ring"
    ended(window)
