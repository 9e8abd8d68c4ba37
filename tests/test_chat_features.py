"""The chat people prefer: rendering, reasoning, editing, branches, search, export.

Every test drives the real window and the real worker process; the model is the scripted
engine, so the exact deltas (a tag split in two, a fence still open) are known."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from PySide6.QtGui import QGuiApplication, QTextBlock, QTextDocument
from pytestqt.qtbot import QtBot

from app.chat import store as st
from app.chat import transfer
from app.core import Core
from tests.gui_helpers import MARK, click_link, footer_of, scripted_window, send_and_wait, shows
from ui.chat.markdown_html import CODE_IMAGE
from ui.main_window import MainWindow

pytestmark = pytest.mark.slow  # drives the real app, an engine or a server

CODE_REPLY = (
    "Here is a table:\n\n| Name | Age |\n|------|-----|\n| Ada | 36 |\n\n"
    "And code:\n\n```python\ndef double(x):\n    return x * 2\n```\n\n"
    "See [the docs](https://example.com) and ![a cat](https://example.com/cat.png).\n\n"
    "- one\n- two\n"
)


def _blocks(document: QTextDocument) -> list[QTextBlock]:
    block = document.firstBlock()
    found = []
    while block.isValid():
        found.append(block)
        block = block.next()
    return found


def test_markdown_tables_code_and_links_render_without_loading_anything(
    qtbot: QtBot, core: Core
) -> None:
    window = scripted_window(qtbot, core, CODE_REPLY)
    send_and_wait(qtbot, window, "Show me")
    html = window.chat.transcript.toHtml()
    text = window.chat.transcript.toPlainText()
    assert "<table" in html and "Ada" in text and "|" not in text  # a table, not pipes
    assert "python" in text and "def double(x):" in text and "```" not in text
    # The only images are Hearth's own drawings (the code blocks, the actions' icons): the
    # cat is a link.
    from ui.chat.action_icons import ICON_SCHEME

    images = re.findall(r'<img src="([^"]*)"', html)
    assert any(name.startswith(CODE_IMAGE) for name in images)
    assert all(name.startswith((CODE_IMAGE, f"{ICON_SCHEME}:")) for name in images)
    assert "example.com" not in " ".join(images) and "[image: a cat]" in text  # never fetched
    # The code block's Copy link copies exactly the code.
    key = max(window.chat.transcript.code_blocks.texts)
    from PySide6.QtCore import QUrl

    from ui.chat.markdown_html import COPY_CODE

    window.chat.transcript.anchorClicked.emit(QUrl(f"{COPY_CODE}{key}"))
    assert QGuiApplication.clipboard().text() == "def double(x):\n    return x * 2\n"
    # What follows a list (the footer, the next message) is not part of the list.
    from PySide6.QtGui import QTextCursor

    last = window.chat.transcript.document().lastBlock()
    assert footer_of(last) and QTextCursor(last).currentList() is None
    window.chat.send("And again")
    qtbot.waitUntil(lambda: not window.chat.busy, timeout=300_000)
    headers = [b for b in _blocks(window.chat.transcript.document()) if b.text().startswith("You")]
    assert len(headers) == 2 and all(QTextCursor(b).currentList() is None for b in headers)
    # Reopening shows the same rendering as streaming did.
    streamed = window.chat.transcript.toPlainText()
    window.chat.show_conversation()
    assert window.chat.transcript.toPlainText() == streamed


def test_an_open_code_fence_is_not_rendered_until_it_closes_and_blocks_render_once(
    qtbot: QtBot, core: Core
) -> None:
    script = MARK.join(
        ["Intro line.\n\n", "```python\n", "x = 1\n", "y = 2\n", "```\n", "\nAfter.\n"]
    )
    window = scripted_window(qtbot, core, script)
    rendered: list[str] = []
    original = window.chat.transcript.renderer.block

    def counting(markdown: str) -> str:
        rendered.append(markdown)
        return original(markdown)

    window.chat.transcript.renderer.block = counting  # type: ignore[method-assign]
    window.chat.sampling_overrides = {"delay_s": 0.4}
    window.chat.send("Code please")
    qtbot.waitUntil(lambda: "y = 2" in window.chat.transcript.streamed_text, timeout=300_000)
    middle = window.chat.transcript.toPlainText()
    assert "```python" in middle  # shown as typed while open…
    assert not any("```python" in block for block in rendered)  # …and not rendered yet
    with qtbot.waitSignal(window.reply_finished, timeout=300_000):
        pass
    assert "```" not in window.chat.transcript.toPlainText()
    assert "x = 1" in window.chat.transcript.toPlainText()
    assert len(rendered) == len(set(rendered)) == 3  # each finished block rendered once


def test_a_think_tag_split_across_deltas_becomes_a_collapsed_thinking_section(
    qtbot: QtBot, core: Core
) -> None:
    script = MARK.join(["<thi", "nk>Two and two ", "make four.</th", "ink>The answer is 4."])
    window = scripted_window(qtbot, core, script)
    result = send_and_wait(qtbot, window, "2+2?")
    assert window.chat.transcript.reasoning_text == "Two and two make four."
    assert window.chat.transcript.streamed_text == "The answer is 4."
    saved = window.store.message(int(result["message_id"]))  # type: ignore[call-overload]
    assert saved.content == "The answer is 4." and saved.reasoning == "Two and two make four."
    assert isinstance(saved.stats.get("thinking_s"), float)
    text = window.chat.transcript.toPlainText()
    assert "Thought for" in text and "make four" not in text  # collapsed once answered
    click_link(window, "think", saved.id)
    assert "make four" in window.chat.transcript.toPlainText()  # opened on a click
    # The thinking is not sent back to the model in the next turn.
    from app.chat.recorder import engine_messages

    sent = engine_messages(window.store.messages(saved.conversation_id))
    assert all("make four" not in m["content"] for m in sent)


def test_an_implied_think_tag_is_found_out_when_it_closes(qtbot: QtBot, core: Core) -> None:
    script = MARK.join(["Hmm, two ", "and two.", "</think>", "\n\nIt is 4."])
    window = scripted_window(qtbot, core, script)
    result = send_and_wait(qtbot, window, "2+2?")
    saved = window.store.message(int(result["message_id"]))  # type: ignore[call-overload]
    assert saved.reasoning == "Hmm, two and two."
    assert saved.content.strip() == "It is 4."
    assert "Hmm" not in window.chat.transcript.toPlainText()


def test_branches_after_two_edits_and_a_regeneration(qtbot: QtBot, core: Core) -> None:
    window = scripted_window(qtbot, core, "A reply.")
    send_and_wait(qtbot, window, "First question")
    assert window.chat.conversation_id is not None
    first = window.store.messages(window.chat.conversation_id)[0]
    for wording in ("Second wording", "Third wording"):
        click_link(window, "edit", window.store.messages(window.chat.conversation_id)[0].id)
        assert window.chat.editing is not None
        send_and_wait(qtbot, window, wording)
    text = window.chat.transcript.toPlainText()
    assert "Third wording" in text and "3/3" in text and "First question" not in text
    current = window.store.messages(window.chat.conversation_id)[0]
    click_link(window, "prev", current.id)
    assert "Second wording" in window.chat.transcript.toPlainText()
    assert "2/3" in window.chat.transcript.toPlainText()
    previous = window.store.messages(window.chat.conversation_id)[0]
    click_link(window, "prev", previous.id)
    assert "First question" in window.chat.transcript.toPlainText()
    assert window.store.messages(window.chat.conversation_id)[0].id == first.id
    # Regenerate the reply: a second version beside the first.
    with qtbot.waitSignal(window.reply_finished, timeout=300_000):
        assert window.chat.regenerate()
    assert "2/2" in window.chat.transcript.toPlainText()
    assert len(window.store.messages(window.chat.conversation_id)) == 2


def test_continue_delete_and_copy(qtbot: QtBot, core: Core) -> None:
    window = scripted_window(qtbot, core, "One two three four five six seven eight.")
    window.chat.sampling_overrides = {"max_tokens": 2}
    result = send_and_wait(qtbot, window, "Count")
    assert result["status"] == st.LENGTH
    assert "Cut at the token limit" in window.chat.transcript.toPlainText()
    reply_id = int(result["message_id"])  # type: ignore[call-overload]
    window.chat.sampling_overrides = {}
    with qtbot.waitSignal(window.reply_finished, timeout=300_000):
        click_link(window, "continue", reply_id)
    continued = window.store.message(reply_id)
    assert continued.content == "One two (continued)" and continued.status == st.COMPLETE
    click_link(window, "copy-md", reply_id)
    assert QGuiApplication.clipboard().text() == "One two (continued)"
    assert window.chat.conversation_id is not None
    click_link(window, "delete", reply_id)
    assert [m.role for m in window.store.messages(window.chat.conversation_id)] == ["user"]
    assert "One two" not in window.chat.transcript.toPlainText()


def test_search_finds_a_word_in_an_old_message_and_opens_it(qtbot: QtBot, core: Core) -> None:
    window = scripted_window(qtbot, core, "Noted.")
    store = window.store
    old = store.create_conversation(title="Long ago")
    store.add_message(old.id, "user", "My grandmother kept a lighthouse in Brittany.")
    for number in range(300):  # thousands of messages elsewhere
        other = store.create_conversation(title=f"Chat {number}")
        for turn in range(10):
            store.add_message(other.id, "user", f"Question {number}-{turn} about cooking")
    send_and_wait(qtbot, window, "Something new")
    window.chat.search_panel.field.setText("lighthouse")
    qtbot.waitUntil(lambda: window.chat.search_panel.results.count() > 0, timeout=300_000)
    assert not window.chat.conversation_list.isVisible()
    item = window.chat.search_panel.results.item(0)
    from ui.chat.search_panel import TEXT_ROLE

    assert "Long ago" in item.data(TEXT_ROLE) and "lighthouse" in item.data(TEXT_ROLE)
    window.chat.search_panel.results.itemClicked.emit(item)
    assert window.chat.conversation_id == old.id
    assert window.chat.transcript.textCursor().selectedText() == "lighthouse"
    window.chat.search_panel.field.clear()
    window.chat.search_panel.run_search()
    assert window.chat.conversation_list.isVisible()


def test_search_lists_each_conversation_once_with_the_words_in_bold(
    qtbot: QtBot, core: Core
) -> None:
    from PySide6.QtWidgets import QLabel

    window = scripted_window(qtbot, core, "Noted.")
    store = window.store
    chat = store.create_conversation(title="Baking")
    for turn in range(3):
        store.add_message(chat.id, "user", f"Sourdough question {turn}: how long to proof?")
    panel = window.chat.search_panel
    panel.field.setText("sourdough")
    panel.run_search()
    assert panel.results.count() == 1, "one entry for the conversation, not one per message"
    shown = panel.results.itemWidget(panel.results.item(0))
    assert isinstance(shown, QLabel)
    assert "<b>Sourdough</b>" in shown.text() and "3 matches" in shown.text()


def test_export_and_import_through_the_window(qtbot: QtBot, core: Core, tmp_path: Path) -> None:
    window = scripted_window(qtbot, core, CODE_REPLY)
    send_and_wait(qtbot, window, "Show me")
    original = window.chat.conversation_id
    assert original is not None
    as_json, as_markdown = tmp_path / "chat.json", tmp_path / "chat.md"
    assert window.chat.export_conversation(original, str(as_json))
    assert window.chat.export_conversation(original, str(as_markdown))
    assert "## You" in as_markdown.read_text(encoding="utf-8")
    copy = window.chat.import_conversation(str(as_json))
    assert copy is not None and copy != original
    exported = transfer.export_document(window.store, original)
    assert transfer.export_document(window.store, copy) == exported
    assert window.chat.conversation_id == copy and shows(window, "Ada")
    damaged = tmp_path / "damaged.json"
    damaged.write_text("{not json", encoding="utf-8")
    before = len(window.store.conversations())
    assert window.chat.import_conversation(str(damaged)) is None
    assert "could not be imported" in window.error_banner.message
    assert len(window.store.conversations()) == before


def test_conversation_settings_and_presets_apply_to_the_next_reply(
    qtbot: QtBot, core: Core
) -> None:
    window = scripted_window(qtbot, core, "Fine.")
    dialog = window.chat.open_conversation_settings()
    dialog.apply_preset("Coding helper")
    assert "programmer" in dialog.system_prompt.toPlainText()
    dialog.accept()
    send_and_wait(qtbot, window, "Hello")
    assert window.chat.conversation_id is not None
    conversation = window.store.conversation(window.chat.conversation_id)
    assert "programmer" in conversation.system_prompt
    assert conversation.settings == {"preset": "Coding helper", "sampling.temperature": 0.2}
    assert window.chat.session.values()["sampling.temperature"] == 0.2
    # A saved preset of the user's comes back in a new dialog.
    dialog = window.chat.open_conversation_settings()
    dialog.system_prompt.setPlainText("Answer like a pirate.")
    assert dialog.save_preset("Pirate")
    dialog.reject()
    again = window.chat.open_conversation_settings()
    assert again.preset_box.findData("Pirate") >= 0
    again.reject()
    # The context meter says how much of the window is used, exactly after a reply.
    assert "Context:" in window.chat.context_meter.label.text()
    assert "≈" not in window.chat.context_meter.label.text()


def test_deleting_a_conversation_can_be_undone_and_pins_stay_on_top(
    qtbot: QtBot, core: Core
) -> None:
    window = scripted_window(qtbot, core, "Ok.")
    send_and_wait(qtbot, window, "Keep me")
    kept = window.chat.conversation_id
    assert kept is not None
    window.chat.new_chat()
    send_and_wait(qtbot, window, "Newer")
    window.chat.set_pinned(kept, True)
    assert window.chat.conversation_list.titles()[0] == "Keep me"
    newer = window.chat.conversation_id
    assert newer is not None
    window.chat.delete_conversation(newer)
    assert window.chat.conversation_list.titles() == ["Keep me"]
    window.chat.undo_bar.undo()
    assert sorted(window.chat.conversation_list.titles()) == ["Keep me", "Newer"]


def test_theme_font_size_and_window_state_are_restored(
    qtbot: QtBot, core: Core, tmp_path: Path
) -> None:
    window = scripted_window(qtbot, core, "Ok.")
    core.settings.set("appearance.theme", "dark")
    core.settings.set("appearance.font_size", 17)
    window.apply_appearance()
    assert window.chat.transcript.palette_colors.pygments_style == "monokai"
    assert QGuiApplication.palette().base().color().lightness() < 60
    assert round(window.chat.transcript.font().pointSizeF()) == 17
    window.resize(1234, 655)
    window.close()
    saved = json.loads((core.paths.data_dir / "settings.json").read_text(encoding="utf-8"))
    assert saved["values"]["window.geometry"]
    core.settings.set("appearance.theme", "light")
    from app.core import open_core

    again = scripted_window(qtbot, open_core(core.paths.data_dir), "Ok.", "Second")
    # (The test screen is narrower than the window, so only the height is free to match.)
    assert again.height() == 655 and saved["values"]["window.splitter"]
    assert QGuiApplication.palette().base().color().lightness() > 200


def test_links_open_in_the_browser_only_when_clicked(qtbot: QtBot, core: Core) -> None:
    from PySide6.QtCore import QObject, QUrl, Slot
    from PySide6.QtGui import QDesktopServices

    class Browser(QObject):
        def __init__(self) -> None:
            super().__init__()
            self.opened: list[str] = []

        @Slot(QUrl)
        def open(self, url: QUrl) -> None:
            self.opened.append(url.toString())

    browser = Browser()
    QDesktopServices.setUrlHandler("https", browser, "open")  # type: ignore[arg-type]
    try:
        window = scripted_window(qtbot, core, CODE_REPLY)
        send_and_wait(qtbot, window, "Show me")
        assert browser.opened == []  # rendering a reply opened nothing, fetched nothing
        window.chat.transcript.anchorClicked.emit(QUrl("https://example.com"))
        assert browser.opened == ["https://example.com"]
        window.chat.transcript.anchorClicked.emit(QUrl("file:///etc/passwd"))
        assert browser.opened == ["https://example.com"]  # only web links leave Hearth
    finally:
        QDesktopServices.unsetUrlHandler("https")


def shown_conversation(window: MainWindow) -> int | None:
    return window.chat.conversation_id


def test_keyboard_shortcuts_for_the_common_actions(qtbot: QtBot, core: Core) -> None:
    from PySide6.QtCore import Qt

    window = scripted_window(qtbot, core, "Fine.")
    send_and_wait(qtbot, window, "Hello")
    assert window.chat.conversation_id is not None
    first = window.chat.conversation_id
    with qtbot.waitSignal(window.reply_finished, timeout=300_000):
        qtbot.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    assert "2/2" in window.chat.transcript.toPlainText()  # Ctrl+R regenerated
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.chat.search_panel.field.hasFocus()  # Ctrl+F searches
    qtbot.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert window.chat.composer.hasFocus()  # Ctrl+L goes to the message box
    qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert shown_conversation(window) is None  # Ctrl+N: a new chat…
    assert first in [c.id for c in window.store.conversations()]  # …the old one kept
    window.chat.sampling_overrides = {"delay_s": 0.5}
    window.chat.send("Slowly")
    qtbot.waitUntil(lambda: window.chat.busy, timeout=300_000)
    with qtbot.waitSignal(window.reply_finished, timeout=300_000) as finished:
        qtbot.keyClick(window.chat.composer, Qt.Key.Key_Escape)  # Esc stops
    assert finished.args[0]["status"] == st.STOPPED


def _ancestors(widget: object) -> list[object]:
    found = []
    parent = widget.parent()  # type: ignore[attr-defined]
    while parent is not None:
        found.append(parent)
        parent = parent.parent()
    return found


def test_every_control_has_a_name_for_screen_readers(qtbot: QtBot, core: Core) -> None:
    from PySide6.QtWidgets import (
        QAbstractButton,
        QAbstractItemView,
        QAbstractSpinBox,
        QComboBox,
        QHeaderView,
        QLineEdit,
        QMenuBar,
        QPlainTextEdit,
        QTabBar,
        QTextEdit,
        QWidget,
    )

    window = scripted_window(qtbot, core, "Fine.")
    dialog = window.chat.open_conversation_settings()
    nameless = []
    for root in (window, dialog):
        for widget in root.findChildren(QWidget):
            interactive = isinstance(
                widget,
                QAbstractButton
                | QComboBox
                | QLineEdit
                | QPlainTextEdit
                | QTextEdit
                | QAbstractSpinBox
                | QAbstractItemView,
            )
            if not interactive or widget.parent() is None:
                continue
            if type(widget).__name__ in ("QLineEdit",) and isinstance(
                widget.parent(), QComboBox | QAbstractSpinBox
            ):
                continue  # the editor inside a combo or spin box: named by its owner
            internal = (
                isinstance(widget, QHeaderView)  # part of its table
                or widget.objectName().startswith("qt_")
                or any(  # inside a combo box, a line edit (its clear button), tabs, menus
                    isinstance(ancestor, QComboBox | QTabBar | QMenuBar | QLineEdit)
                    for ancestor in _ancestors(widget)
                )
            )
            if internal:
                continue
            text = widget.text() if isinstance(widget, QAbstractButton) else ""
            if not (widget.accessibleName() or text):
                nameless.append(
                    f"{type(widget).__name__} {widget.objectName()!r} in "
                    f"{[type(a).__name__ for a in _ancestors(widget)][:3]}"
                )
    dialog.reject()
    assert nameless == [], "\n".join(nameless)


def test_the_context_meter_counts_the_first_message_at_once(qtbot: QtBot, core: Core) -> None:
    window = scripted_window(qtbot, core, "A short answer.")
    meter = window.chat.context_meter
    before = meter.used
    with qtbot.waitSignal(window.reply_finished, timeout=300_000):
        window.chat.send("Please explain how tides work, in a few careful sentences.")
        assert meter.used > before and "≈" in meter.label.text(), "your message, counted"
    assert meter.used > 0
