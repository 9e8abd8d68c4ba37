"""The real window, the real worker, the real starter model (offscreen)."""

import contextlib
import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItemModel
from pytestqt.qtbot import QtBot

from app.chat import store as st
from app.core import Core, open_core
from tests.conftest import kill_hard
from tests.gui_helpers import open_window, shows, wait_until
from ui.main_window import MainWindow

pytestmark = pytest.mark.slow

LONG_REPLY = {"ignore_eos": True, "max_tokens": 3000}


def type_and_enter(qtbot: QtBot, window: MainWindow, text: str) -> None:
    window.chat.composer.setFocus()
    qtbot.keyClicks(window.chat.composer, text)
    qtbot.keyClick(window.chat.composer, Qt.Key.Key_Return)


def test_chat_stream_stop_and_find_it_again_after_restart(
    qtbot: QtBot, core: Core, data_dir: Path
) -> None:
    window = open_window(qtbot, core)
    shown = window.chat.model_bar.picker.currentText()
    assert "demo model" in shown and "llama.cpp" in shown, "the picker explains the model"
    assert "98 MB" in shown and "loaded" in shown, "under 0.1 GB in MB"

    # A complete reply: streamed into the window, stats shown under it, saved.
    with qtbot.waitSignal(window.reply_finished, timeout=300_000) as finished:
        type_and_enter(qtbot, window, "Name three primary colors.")
        assert window.chat.stop_button.isVisible() and not window.chat.send_button.isVisible()
    assert finished.args[0]["status"] in (st.COMPLETE, st.LENGTH)
    reply = window.chat.transcript.streamed_text
    assert reply.strip() and "\ufffd" not in reply
    assert "tok/s" in window.chat.transcript.toPlainText()
    assert "first token" in window.stats_label.text()
    assert window.chat.composer.toPlainText() == ""
    assert window.chat.conversation_list.titles() == ["Name three primary colors."]

    # A long reply, stopped mid-stream: it stops at once and the partial text is kept.
    window.chat.sampling_overrides = LONG_REPLY
    type_and_enter(qtbot, window, "Tell me a very long story about a lighthouse.")
    wait_until(qtbot, lambda: len(window.chat.transcript.streamed_text) > 40)
    with qtbot.waitSignal(window.reply_finished, timeout=300_000) as finished:
        qtbot.mouseClick(window.chat.stop_button, Qt.MouseButton.LeftButton)
    assert finished.args[0]["status"] == st.STOPPED
    assert not finished.args[0].get("forced")  # the engine stopped between two tokens
    assert "prompt tokens reused" in window.stats_label.text(), "the first turn was not read again"
    partial = window.chat.transcript.streamed_text
    saved = window.store.message(finished.args[0]["message_id"])
    assert saved.status == st.STOPPED and saved.content == partial
    assert "Stopped" in window.chat.transcript.toPlainText()
    assert window.chat.send_button.isVisible()
    conversation_id = window.chat.conversation_id
    assert conversation_id is not None
    window.close()

    # Open Hearth again on the same data folder: everything is there as it was.
    again = open_window(qtbot, open_core(data_dir))
    assert again.chat.conversation_list.titles() == ["Name three primary colors."]
    again.chat.conversation_list.select_id(conversation_id)
    text = again.chat.transcript.toPlainText()
    assert "Name three primary colors." in text
    assert shows(again, reply) and shows(again, partial)
    assert "Stopped" in text
    assert [m.role for m in again.store.messages(conversation_id)] == ["user", "assistant"] * 2


def test_enter_sends_but_shift_enter_adds_a_line(qtbot: QtBot, core: Core) -> None:
    window = open_window(qtbot, core)
    window.chat.composer.setFocus()
    qtbot.keyClicks(window.chat.composer, "first line")
    qtbot.keyClick(window.chat.composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(window.chat.composer, "second line")
    assert window.chat.composer.toPlainText() == "first line\nsecond line"
    assert window.chat.running is None
    with qtbot.waitSignal(window.reply_finished, timeout=300_000):
        qtbot.keyClick(window.chat.composer, Qt.Key.Key_Return)
    assert window.chat.conversation_id is not None
    first = window.store.messages(window.chat.conversation_id)[0]
    assert first.content == "first line\nsecond line"


def test_a_killed_worker_keeps_the_partial_reply_and_the_next_message_works(
    qtbot: QtBot, core: Core, expect_error_logs: None
) -> None:
    window = open_window(qtbot, core)
    window.chat.sampling_overrides = LONG_REPLY
    window.chat.send("Write a long poem about the sea.")
    wait_until(qtbot, lambda: len(window.chat.transcript.streamed_text) > 20)
    pid = window.seat.worker_pid
    assert pid is not None
    with qtbot.waitSignal(window.reply_finished, timeout=300_000) as finished:
        kill_hard(pid)
    assert finished.args[0]["status"] == st.INTERRUPTED
    saved = window.store.message(finished.args[0]["message_id"])
    assert saved.status == st.INTERRUPTED and len(saved.content) > 20
    assert "Interrupted" in window.chat.transcript.toPlainText()
    assert "stopped unexpectedly" in window.error_banner.message

    window.chat.sampling_overrides = {"max_tokens": 16}
    with qtbot.waitSignal(window.reply_finished, timeout=300_000) as finished:
        assert window.chat.send("Are you back?")
    assert finished.args[0]["status"] in (st.COMPLETE, st.LENGTH)
    assert window.seat.worker_pid not in (None, pid)
    assert window.chat.transcript.streamed_text.strip()


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "empty"),
        (b"<html>not a model</html>" * 10, "not a GGUF"),
        (None, "truncated"),
    ],
)
def test_choosing_a_broken_model_file_explains_and_keeps_working(
    qtbot: QtBot, core: Core, tmp_path: Path, starter: Path, content: bytes | None, reason: str
) -> None:
    window = open_window(qtbot, core)
    path = tmp_path / "broken.gguf"
    path.write_bytes(content if content is not None else starter.read_bytes()[:5_000_000])
    window.chat.model_bar.add_model_file(path)  # read in the background
    wait_until(qtbot, lambda: "broken.gguf" in window.error_banner.message, 60_000)
    assert reason in window.error_banner.message
    assert (
        window.chat.model_bar.model is not None and window.chat.model_bar.model.source == "starter"
    )
    window.chat.sampling_overrides = {"max_tokens": 8}
    with qtbot.waitSignal(window.reply_finished, timeout=300_000) as finished:
        assert window.chat.send("Hello")
    assert finished.args[0]["status"] in (st.COMPLETE, st.LENGTH)


def test_broken_files_in_the_models_folder_are_listed_but_disabled(
    qtbot: QtBot, core: Core
) -> None:
    core.models_dir.mkdir(parents=True)
    (core.models_dir / "half-downloaded.gguf").write_bytes(b"GGUF")
    window = open_window(qtbot, core)
    assert len(window.chat.model_bar.models) == 2
    index = [m.name for m in window.chat.model_bar.models].index("half-downloaded")
    model = window.chat.model_bar.picker.model()
    assert isinstance(model, QStandardItemModel)
    item = model.item(index)
    assert not item.isEnabled()
    assert "incomplete download" in window.chat.model_bar.picker.itemData(
        index, Qt.ItemDataRole.ToolTipRole
    )


def test_new_rename_and_delete_conversations(qtbot: QtBot, core: Core) -> None:
    window = open_window(qtbot, core)
    window.chat.sampling_overrides = {"max_tokens": 4}
    for prompt in ("first chat", "second chat"):
        window.chat.new_chat()
        with qtbot.waitSignal(window.reply_finished, timeout=300_000):
            window.chat.send(prompt)
    assert window.chat.conversation_list.titles() == ["second chat", "first chat"]
    first = window.chat.conversation_list.item(1)
    first.setText("Renamed")
    assert window.store.conversation(int(first.data(Qt.ItemDataRole.UserRole))).title == "Renamed"
    window.chat.conversation_list.select_id(int(first.data(Qt.ItemDataRole.UserRole)))
    assert "first chat" in window.chat.transcript.toPlainText()
    assert window.chat.conversation_id is not None
    window.chat.delete_conversation(window.chat.conversation_id)
    assert window.chat.conversation_list.titles() == ["second chat"]
    assert window.chat.transcript.toPlainText() == ""
    # Deleting can be undone (the bar offers it), and the conversation comes back whole.
    assert window.chat.undo_bar.isVisible() and "Renamed" in window.chat.undo_bar.label.text()
    window.chat.undo_bar.button.click()
    assert window.chat.conversation_list.titles() == ["Renamed", "second chat"] or (
        window.chat.conversation_list.titles() == ["second chat", "Renamed"]
    )
    assert "first chat" in window.chat.transcript.toPlainText()


def test_switching_conversations_while_a_reply_streams(qtbot: QtBot, core: Core) -> None:
    window = open_window(qtbot, core)
    window.chat.sampling_overrides = {"max_tokens": 6}
    with qtbot.waitSignal(window.reply_finished, timeout=300_000):
        window.chat.send("An older chat")
    older = window.chat.conversation_id
    assert older is not None
    window.chat.new_chat()
    window.chat.sampling_overrides = LONG_REPLY
    window.chat.send("A long story, please.")
    streaming = window.chat.conversation_id
    wait_until(qtbot, lambda: len(window.chat.transcript.streamed_text) > 20)
    window.chat.conversation_list.select_id(older)
    assert "An older chat" in window.chat.transcript.toPlainText()
    assert "A long story" not in window.chat.transcript.toPlainText()
    # The reply goes on in the background while another conversation is shown.
    running = window.chat.running
    assert running is not None and running.reply is not None
    away = len(running.reply.text)
    wait_until(qtbot, lambda: running.reply is None or len(running.reply.text) > away + 20)
    assert streaming is not None
    window.chat.conversation_list.select_id(streaming)
    shown_on_return = window.chat.transcript.streamed_text
    assert len(shown_on_return) > 20
    wait_until(qtbot, lambda: len(window.chat.transcript.streamed_text) > len(shown_on_return) + 20)
    with qtbot.waitSignal(window.reply_finished, timeout=300_000) as finished:
        window.chat.stop()
    saved = window.store.message(finished.args[0]["message_id"])
    assert saved.content == window.chat.transcript.streamed_text
    assert saved.content.startswith(shown_on_return)


def test_a_full_disk_is_reported_and_the_reply_still_shows(
    qtbot: QtBot, core: Core, expect_error_logs: None
) -> None:
    window = open_window(qtbot, core)
    window.chat.sampling_overrides = {"max_tokens": 3000, "ignore_eos": True}
    window.chat.send("A long one, please.")
    wait_until(qtbot, lambda: len(window.chat.transcript.streamed_text) > 10)
    # SQLite's own limit makes the next page allocation fail with SQLITE_FULL, and the
    # space left in the pages there are is filled first. Under this limit a save fails
    # only when it needs a new page, and rewriting the reply's row reuses its own pages
    # until the text crosses a page boundary, which a loaded machine may take minutes to
    # reach. So each save of a message here also stores a page's worth: the reply's next
    # save cannot fit, however few tokens it has added.
    db = window.store._db
    db.execute("CREATE TABLE disk_filler (x BLOB)")
    db.execute(
        "CREATE TEMP TRIGGER every_save_needs_a_page AFTER UPDATE ON main.messages"
        " BEGIN INSERT INTO disk_filler VALUES (zeroblob(4096)); END"
    )
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")

    def fill_and_see_it_reported() -> bool:
        """Fill what is free, again at every look, so that nothing a save freed leaves
        room for the next one."""
        for size in (4096, 512, 64, 8, 1):
            with contextlib.suppress(sqlite3.OperationalError):  # "database or disk is full"
                while True:
                    db.execute("INSERT INTO disk_filler VALUES (zeroblob(?))", (size,))
        return "disk is full" in window.error_banner.message

    wait_until(qtbot, fill_and_see_it_reported)
    shown = window.chat.transcript.streamed_text
    wait_until(qtbot, lambda: len(window.chat.transcript.streamed_text) > len(shown) + 20)
    with qtbot.waitSignal(window.reply_finished, timeout=300_000) as finished:
        window.chat.stop()
    assert finished.args[0]["type"] == "done"
    assert window.chat.send_button.isVisible()
    assert "disk is full" in window.error_banner.message


def test_the_menus_shortcuts_reach_the_window_and_its_screens(qtbot: QtBot, core: Core) -> None:
    """The window's menu items as a person uses them, by their shortcuts: a screen each,
    Settings, and the loaded models; the menus ask the window, which opens each."""
    from PySide6.QtGui import QKeySequence
    from PySide6.QtWidgets import QApplication, QDialog

    from ui.settings.dialog import SettingsDialog

    window = open_window(qtbot, core)
    items = {
        action.shortcut().toString(QKeySequence.SequenceFormat.PortableText): action
        for action in window.menus.findChildren(type(window.serve_action))
        + window.findChildren(type(window.serve_action))
    }
    for keys, screen in (("Ctrl+2", window.models_page), ("Ctrl+1", window.chat)):
        items[keys].trigger()
        assert window.tabs.currentWidget() is screen
    items["Ctrl+,"].trigger()
    opened = [w for w in QApplication.topLevelWidgets() if isinstance(w, SettingsDialog)]
    assert opened and opened[0].isVisible(), "Settings opened"
    opened[0].reject()
    before = {id(w) for w in QApplication.topLevelWidgets() if isinstance(w, QDialog)}
    items["Ctrl+Shift+L"].trigger()
    wait_until(
        qtbot,
        lambda: any(
            isinstance(w, QDialog) and w.isVisible() and id(w) not in before
            for w in QApplication.topLevelWidgets()
        ),
    )
