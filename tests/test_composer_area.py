"""Under the conversation, as the keyboard and the eye meet it: Send stays beside the
message box when pictures are attached (they are a compact strip under it), and Tab goes
box → Send → Attach… → Collections → Tools → each attachment's × and on to the
reply's actions, with a visible focus at every stop.  The real window with a scripted engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from app.chat.outbox import Draft
from app.core import Core
from tests.gui_helpers import LOAD_TIMEOUT_MS, click_link, scripted_window, send_and_wait
from tests.vision_model import png

pytestmark = pytest.mark.slow


def test_send_stays_beside_the_box_when_pictures_are_attached(
    qtbot: QtBot, core: Core, tmp_path: Path
) -> None:
    window = scripted_window(qtbot, core, "Fine.")
    chat = window.chat
    box, send, tray = chat.composer, chat.send_button, chat.picture_tray

    def top(widget: QWidget) -> int:
        return widget.mapTo(window, widget.rect().topLeft()).y()

    before = top(send)
    assert top(box) <= before < top(box) + box.height(), "Send beside the box"
    pictures = []
    for name, colour in (("red.png", (255, 0, 0)), ("blue.png", (0, 0, 255))):
        path = tmp_path / name
        path.write_bytes(png(colour, (320, 240)))
        pictures.append(path)
    tray.add_files(pictures)
    qtbot.waitUntil(lambda: len(tray.thumbs) == 2 and tray.isVisible(), timeout=LOAD_TIMEOUT_MS)
    qtbot.waitUntil(lambda: top(tray) > top(box))
    assert top(box) <= top(send) < top(box) + box.height(), "still beside the box"
    assert top(tray) >= top(box) + box.height(), "the pictures are a strip under the box"
    assert tray.height() <= 2 * send.height() + 8, "a compact strip"
    assert all(
        t.remove_button.accessibleName().startswith("Remove the picture") for t in tray.thumbs
    )


def test_tab_goes_from_the_box_to_send_the_bar_the_pictures_and_the_replys_actions(
    qtbot: QtBot, core: Core, tmp_path: Path
) -> None:
    window = scripted_window(qtbot, core, "A reply to act on.")
    chat = window.chat
    send_and_wait(qtbot, window, "Hello")
    picture = tmp_path / "red.png"
    picture.write_bytes(png((255, 0, 0)))
    chat.picture_tray.add_files([picture])
    notes = tmp_path / "notes.txt"
    notes.write_text("Kettles boil at ninety degrees up a mountain.")
    chat.documents_bar.add_files([notes])
    qtbot.waitUntil(lambda: len(chat.picture_tray.thumbs) == 1, timeout=LOAD_TIMEOUT_MS)
    qtbot.waitUntil(lambda: not chat.documents_bar.reading, timeout=LOAD_TIMEOUT_MS)
    chat.composer.setFocus()
    qtbot.waitUntil(chat.composer.hasFocus)
    bar = chat.documents_bar
    expected = [
        chat.send_button,
        bar.attach_button,
        bar.collections_button,
        chat.tools_ui.button,
        bar.chips[0].close_button,
        chat.picture_tray.thumbs[0].remove_button,
    ]
    seen: list[QWidget] = []
    actions: list[str] = []
    unfocused = window.grab().toImage()  # every stop but the box, as it looks without focus

    def looks(image: QImage, widget: QWidget) -> QImage:
        place = QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())
        return image.copy(place)

    for _ in range(40):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        focused = QApplication.focusWidget()
        assert focused is not None and focused.isVisible(), "focus never disappears"
        if focused is not chat.composer:
            now = window.grab().toImage()
            name = focused.objectName() or str(focused)
            assert looks(now, focused) != looks(unfocused, focused), f"{name} shows its focus"
        seen.append(focused)
        if focused is chat.transcript:
            cursor = focused.textCursor()
            actions.append(cursor.charFormat().anchorHref() if cursor.hasSelection() else "")
        if focused is chat.composer:
            break
    assert seen[: len(expected)] == expected, [w.objectName() or str(w) for w in seen]
    assert any(a.startswith("hearth:act/regenerate/") for a in actions), "a reply's actions"
    assert any(a.startswith("hearth:act/copy-md/") for a in actions)
    assert seen[-1] is chat.composer, "and round to the box again"


def test_enter_hands_the_screen_one_draft_with_what_the_composer_holds(
    qtbot: QtBot, core: Core, tmp_path: Path
) -> None:
    """The composer panel owns the draft: a person edits their message, attaches a file,
    types and presses Enter, and the screen is handed one draft with the words, the file
    and the message it replaces; the file is read, and the edit goes as a new version of
    that message, sent with the file."""
    window = scripted_window(qtbot, core, "Fine.")
    chat = window.chat
    send_and_wait(qtbot, window, "Hello")
    first = chat.session.messages()[0]
    drafts: list[Draft] = []
    chat.composer_area.draft_ready.connect(drafts.append)
    click_link(window, "edit", first.id)
    assert chat.composer.toPlainText() == "Hello"
    notes = tmp_path / "notes.txt"
    notes.write_text("Kettles boil at ninety degrees up a mountain.")
    chat.documents_bar.add_files([notes])
    qtbot.waitUntil(lambda: not chat.documents_bar.reading, timeout=LOAD_TIMEOUT_MS)
    chat.composer.selectAll()
    qtbot.keyClicks(chat.composer, "Where do kettles boil soonest?")
    with qtbot.waitSignal(window.reply_finished, timeout=LOAD_TIMEOUT_MS):
        qtbot.keyClick(chat.composer, Qt.Key.Key_Return)
    assert len(drafts) == 1, "one draft per Enter"
    draft = drafts[0]
    assert draft.text == "Where do kettles boil soonest?" and draft.edit_of == first.id
    assert [p.name for p in draft.attachments] == ["notes.txt"]
    sent = chat.session.messages()[0]
    assert sent.content == draft.text and sent.id != first.id, "a new version"
    assert "notes.txt" in str(sent.documents), "sent with the file"
    assert chat.composer.toPlainText() == "" and chat.editing is None
