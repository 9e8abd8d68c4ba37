"""Documents in the window: a chat answers from a collection and from attached files,
shows the numbered sources under the answer (cited first), and a click on one shows the
exact passage the model was given, in its place."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QUrl
from pytestqt.qtbot import QtBot

from app.chat import store as st
from app.chat.presets import COLLECTIONS_KEY
from app.core import Core
from app.docs.grounding import Grounding
from tests import documents as make
from tests.gui_helpers import LOAD_TIMEOUT_MS, scripted_window, send_and_wait, shows
from ui.chat.documents_html import SOURCE
from ui.chat.source_preview import SourcePreview

pytestmark = pytest.mark.slow  # drives the real app, an engine or a server

ANSWER = "The river Wombat is 412 kilometres long [1]."


def _shelf(folder: Path) -> Path:
    folder.mkdir()
    make.pdf(
        folder / "atlas.pdf",
        [
            "Chapter one describes the coast of Freedonia.",
            "The river Wombat is 412 kilometres long and flows into the Bay of Marmots.",
            "The river Wombat is also home to many otters near Freedonia.",
        ],
    )
    (folder / "guide.md").write_text(
        "# Kettle\n\nDescale the kettle every month.\n", encoding="utf-8"
    )
    return folder


def test_a_chat_answers_from_a_collection_with_sources_you_can_check(
    qtbot: QtBot, core: Core, tmp_path: Path
) -> None:
    window = scripted_window(qtbot, core, ANSWER)
    chat = window.chat
    chat.documents.add("shelf", [_shelf(tmp_path / "shelf")])
    chat.documents_bar.set_collections(["shelf"])
    chat.message_documents.remember_collections()
    assert "shelf" in chat.documents_bar.collections_button.text()

    send_and_wait(qtbot, window, "How long is the river Wombat?")
    messages = chat.session.messages()
    question, answer = messages[-2], messages[-1]
    grounding = Grounding.from_json(question.documents)
    assert grounding.sources[0].page == 2 and "412" in grounding.sources[0].text
    assert answer.status == st.COMPLETE
    # under the answer: the cited source first, each marked cited or used as context
    assert shows(window, "Sources")
    text = chat.transcript.toPlainText()
    assert "[1] atlas.pdf, page 2" in text
    marks = text.count(" — cited") + text.count(" — used as context")
    assert marks == len(grounding.sources)
    assert "Collections: shelf" in text  # under your message: what it asked

    # a click on the source shows the passage given to the model, in its place
    with qtbot.waitSignal(chat.transcript.source_requested):
        chat.transcript.anchorClicked.emit(QUrl(f"{SOURCE}{question.id}/1"))
    preview = chat.findChild(SourcePreview)
    assert preview is not None
    assert "412 kilometres" in preview.view.toPlainText()
    assert "Freedonia" in preview.view.toPlainText()  # a neighbouring passage too
    assert preview.open_button.isEnabled()
    preview.reject()

    # the collections stay with the conversation
    conversation = chat.conversation_id
    assert conversation is not None
    assert chat.session.own_settings[COLLECTIONS_KEY] == ["shelf"]
    chat.new_chat()
    assert chat.documents_bar.collections() == []
    chat.open_conversation(conversation)
    assert chat.documents_bar.collections() == ["shelf"]


def test_files_dropped_on_the_composer_are_attached_and_kept_with_the_message(
    qtbot: QtBot, core: Core, tmp_path: Path
) -> None:
    window = scripted_window(qtbot, core, "Descale it monthly [1].")
    chat = window.chat
    guide = _shelf(tmp_path / "shelf") / "guide.md"
    dropped = QMimeData()
    dropped.setUrls([QUrl.fromLocalFile(str(guide))])
    assert chat.composer.canInsertFromMimeData(dropped)
    chat.composer.insertFromMimeData(dropped)
    assert chat.composer.toPlainText() == ""  # a file, not its path as text
    qtbot.waitUntil(lambda: not chat.documents_bar.reading, timeout=LOAD_TIMEOUT_MS)
    assert "guide.md" in chat.documents_bar.chips[0].label.text()
    assert "tokens" in chat.documents_bar.chips[0].label.text()

    send_and_wait(qtbot, window, "How often should I descale?")
    assert chat.documents_bar.attachments() == []  # sent with this message, not the next
    question = chat.session.messages()[-2]
    grounding = Grounding.from_json(question.documents)
    assert [a.name for a in grounding.attachments] == ["guide.md"]
    assert grounding.attachments[0].mode == "whole"
    assert "Descale the kettle every month." in grounding.sources[0].text
    text = chat.transcript.toPlainText()
    assert "Attached: guide.md" in text and "[1] guide.md" in text

    # a file that cannot be read says why, and is not attached
    junk = tmp_path / "junk.txt"
    junk.write_bytes(bytes(range(256)) * 50)
    chat.documents_bar.add_files([junk])
    qtbot.waitUntil(lambda: not chat.documents_bar.chips, timeout=LOAD_TIMEOUT_MS)
    assert "junk.txt cannot be attached" in chat.error_banner.label.text()


def test_the_documents_screen_indexes_a_folder_in_the_background(
    qtbot: QtBot, core: Core, tmp_path: Path
) -> None:
    from tests.gui_helpers import open_window

    window = open_window(qtbot, core)
    screen = window.documents_screen
    window.tabs.setCurrentWidget(screen)
    folder = tmp_path / "notes"
    folder.mkdir()
    for number in range(300):
        (folder / f"note{number:03d}.md").write_text(
            f"# Note {number}\n\nThe word is owl{number}.\n"
        )
    (folder / "broken.docx").write_bytes(b"not a zip")
    screen.new_collection("notes", str(folder))
    qtbot.waitUntil(
        lambda: window.indexing.running is None and screen.list.count() == 1,
        timeout=LOAD_TIMEOUT_MS,
    )
    qtbot.waitUntil(lambda: "300 files" in screen.list.item(0).text(), timeout=LOAD_TIMEOUT_MS)
    qtbot.waitUntil(lambda: screen.files.rowCount() == 301, timeout=LOAD_TIMEOUT_MS)

    # what was left out comes first, with its reason
    def cell(row: int, column: int) -> str:
        item = screen.files.item(row, column)
        return item.text() if item is not None else ""

    assert cell(0, 0) == "broken.docx", "its place in the folder, not a long absolute path"
    first = screen.files.item(0, 0)
    assert first is not None and first.toolTip() == str(folder / "broken.docx"), "whole on hover"
    assert cell(0, 1) == "failed"
    assert "not a valid DOCX" in cell(0, 3)
    assert window.documents.search(["notes"], "owl123")[0].file.endswith("note123.md")

    # a file changed on disk is picked up by the next update
    (folder / "note007.md").write_text("# Note 7\n\nThe word is now heron.\n")
    screen.update_selected()
    qtbot.waitUntil(
        lambda: bool(window.documents.search(["notes"], "heron")), timeout=LOAD_TIMEOUT_MS
    )

    # pause stops it and keeps it stopped; the chat's menu offers the collection
    screen.toggle_pause()
    assert window.documents.collections.get("notes").paused
    assert screen.pause_button.text() == "Resume"
    screen.toggle_pause()
    assert not window.documents.collections.get("notes").paused
    window.chat.documents_bar._fill_menu()
    assert [a.text() for a in window.chat.documents_bar.menu.actions()] == ["notes"]

    # Ask this collection: a new chat that answers from it, ready to type in
    screen.ask_button.click()
    assert window.tabs.currentIndex() == 0
    assert window.chat.documents_bar.collections() == ["notes"]
    assert "notes" in window.chat.documents_bar.collections_button.text()
    assert window.chat.stage.currentWidget() is window.welcome
    window.tabs.setCurrentWidget(screen)

    stale = window.documents.summaries()  # a listing read before the removal below
    screen.remove_selected(confirm=False)
    qtbot.waitUntil(lambda: screen.list.count() == 0, timeout=LOAD_TIMEOUT_MS)
    assert (folder / "note001.md").exists()
    # A listing that was in flight when the collection went is not an error: read again.
    screen._listed(stale)
    qtbot.waitUntil(lambda: screen.list.count() == 0, timeout=LOAD_TIMEOUT_MS)


def test_an_edited_question_keeps_its_files_and_a_switched_chat_gets_nothing(
    qtbot: QtBot, core: Core, tmp_path: Path
) -> None:
    window = scripted_window(qtbot, core, "It is monthly [1].")
    chat = window.chat
    shelf = _shelf(tmp_path / "shelf")
    chat.documents.add("shelf", [shelf])
    chat.documents_bar.add_files([shelf / "guide.md"])
    qtbot.waitUntil(lambda: not chat.documents_bar.reading, timeout=LOAD_TIMEOUT_MS)
    send_and_wait(qtbot, window, "How often?")
    question = chat.session.messages()[-2]

    # edit the question with a collection ticked: the file it was sent with stays
    chat.edit_message(question.id)
    chat.documents_bar.set_collections(["shelf"])
    send_and_wait(qtbot, window, "How often should I descale, and how long is the river?")
    edited = Grounding.from_json(chat.session.messages()[-2].documents)
    assert [a.name for a in edited.attachments] == ["guide.md"]
    assert edited.sources[0].whole and edited.sources[0].file == "guide.md"
    assert any(s.collection == "shelf" for s in edited.sources)
    assert [s.n for s in edited.sources] == list(range(1, len(edited.sources) + 1))

    # a chat opened while the files are read does not receive the message
    before = len(chat.store.conversations())
    assert chat.send("When does the ferry leave?")
    chat.new_chat()
    qtbot.waitUntil(lambda: not chat.message_documents.preparing, timeout=LOAD_TIMEOUT_MS)
    assert "was not sent" in chat.error_banner.label.text()
    assert len(chat.store.conversations()) == before
    assert chat.session.messages() == []
