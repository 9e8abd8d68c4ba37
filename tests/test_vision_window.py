"""Pictures in the window, with the tests' tiny vision model: attached or pasted into the
composer (thumbnails, taken out before sending), sent with the message, kept with it and
shown in the conversation; a text model says before sending that it cannot see them, and
names the models here that can."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData
from PySide6.QtGui import QColor, QImage
from pytestqt.qtbot import QtBot

from app.chat import store as st
from app.core import Core
from app.models.library import describe, projector_beside
from tests.conftest import link_or_copy
from tests.gui_helpers import open_window, wait_until
from tests.vision_model import VisionModel, png
from wire import images

pytestmark = pytest.mark.slow


def test_pictures_go_from_the_composer_into_the_conversation(
    qtbot: QtBot, core: Core, vision_model: VisionModel, tmp_path: Path
) -> None:
    window = open_window(qtbot, core)
    chat = window.chat
    red, blue, notes = tmp_path / "red.png", tmp_path / "blue.jpg", tmp_path / "notes.txt"
    red.write_bytes(png((255, 0, 0)))
    blue.write_bytes(png((0, 0, 255)))
    notes.write_text("Kettles boil at ninety degrees up a mountain.")
    tray = chat.picture_tray
    assert tray.isHidden(), "no pictures, no tray"
    # Emptied while a picture is read: the late read is dropped, not kept for later.
    tray.add_files([red])
    tray.clear()
    wait_until(qtbot, lambda: tray.late_reads == 1)  # the read ended after the emptying
    assert not tray.thumbs and not tray.waiting and tray.isHidden()
    chat.message_documents.attach_dropped([str(red), str(blue), str(notes)])
    assert not chat.send("Too soon"), "a message waits for its pictures to be read"
    assert "still being read" in window.error_banner.message
    wait_until(qtbot, lambda: len(tray.thumbs) == 2, 60_000)
    assert not tray.isHidden()
    assert [t.attached.name for t in tray.thumbs] == ["red.png", "blue.jpg"]
    assert all(not t.attached.thumbnail.isNull() for t in tray.thumbs)
    assert [p.name for p in chat.documents_bar.attachments()] == ["notes.txt"]
    chat.documents_bar.clear_attachments()
    tray.thumbs[1].removed.emit(tray.thumbs[1])  # its Remove button
    assert [t.attached.name for t in tray.thumbs] == ["red.png"]
    pasted = QImage(40, 30, QImage.Format.Format_RGB32)
    pasted.fill(QColor("green"))
    clipboard = QMimeData()
    clipboard.setImageData(pasted)
    chat.composer.insertFromMimeData(clipboard)
    wait_until(qtbot, lambda: len(tray.thumbs) == 2, 60_000)
    assert tray.thumbs[1].attached.name == "pasted.png"
    kept = tray.thumbs[1].attached.ref
    assert kept["kind"] == "png", "a screenshot is kept as a PNG file"
    path = chat.store.pictures.path(kept)
    assert path is not None and images.kind_of(path.read_bytes()) == "png", (
        "kept in the store as it was read, before Send"
    )

    # The starter model reads text only: it says so, and names the model that can.
    assert chat.model_bar.model is not None and not chat.model_bar.model.reads_images
    vision = projector_beside(describe(vision_model.text, "added"))
    chat.model_bar.models.append(vision)
    assert not chat.send("What are these?")
    assert "reads text only" in window.error_banner.message
    assert vision.name in window.error_banner.message
    assert len(tray.thumbs) == 2, "nothing was lost"

    core.settings.set("sampling.temperature", 0.0)
    with qtbot.waitSignal(window.model_loaded, timeout=300_000):
        chat.chat_with(vision)
    with qtbot.waitSignal(window.reply_finished, timeout=300_000) as finished:
        assert chat.send("What are these?")
    assert finished.args[0]["status"] in (st.COMPLETE, st.LENGTH)
    assert tray.isHidden() and not tray.thumbs, "sent: the tray is empty again"
    question = next(m for m in chat.session.messages() if m.role == "user")
    assert [ref["name"] for ref in question.images] == ["red.png", "pasted.png"]
    assert question.content == "What are these?"
    shown = chat.transcript.pictures
    wait_until(qtbot, lambda: len(shown._drawn) == 2, 60_000)
    assert all(image.height() <= 160 for image in shown._drawn.values())

    # Editing puts the message's pictures back in the tray; the edit sends what it holds.
    chat.edit_message(question.id)
    wait_until(qtbot, lambda: len(tray.thumbs) == 2, 60_000)
    tray.thumbs[1].removed.emit(tray.thumbs[1])
    with qtbot.waitSignal(window.reply_finished, timeout=300_000):
        assert chat.send("Only the red one?")
    edited = next(m for m in chat.session.messages() if m.role == "user")
    assert edited.id != question.id and [r["name"] for r in edited.images] == ["red.png"]


def test_the_models_screen_says_which_models_read_images(
    qtbot: QtBot, core: Core, vision_model: VisionModel
) -> None:
    """A hub's vision repository is marked in the search results and its files, and its
    download brings the projector beside the model."""
    from tests.fakehub import FakeHub

    hub = FakeHub().start()
    repo = "acme/tiny-vlm-GGUF"
    try:
        hub.add(
            repo,
            {
                "tiny-vlm-F16.gguf": vision_model.text.read_bytes(),
                "mmproj-tiny-vlm-f16.gguf": vision_model.projector.read_bytes(),
            },
            tags=["gguf", "image-text-to-text"],
        )
        core.settings.set("hub.huggingface_endpoint", hub.url)
        core.settings.set("hub.modelscope_endpoint", hub.url)
        window = open_window(qtbot, core)
        screen = window.models_screen
        screen.query.setText("tiny-vlm")
        with qtbot.waitSignal(screen.search_finished, timeout=300_000):
            screen.search_button.click()
        first = screen.results_table.item(0, 0)
        assert first is not None and "reads images" in first.text()
        with qtbot.waitSignal(screen.repo_opened, timeout=300_000):
            screen.results_table.selectRow(0)
        offered = screen.offers_table.item(0, 0)
        assert offered is not None and offered.text() == "F16 · reads images"
        screen.download_button.click()
        folder = core.models_dir / repo
        wait_until(qtbot, (folder / "mmproj-tiny-vlm-f16.gguf").exists, 300_000)
        wait_until(qtbot, (folder / "tiny-vlm-F16.gguf").exists, 300_000)
        wait_until(
            qtbot,
            lambda: any(m.reads_images for m in window.chat.model_bar.models),
            300_000,
        )
    finally:
        hub.stop()


def test_model_settings_choose_the_projector(
    qtbot: QtBot, core: Core, vision_model: VisionModel
) -> None:
    """Automatic takes the projector beside the model; None makes it read text only (and
    the window then says so before sending pictures)."""
    from ui.models.model_settings_dialog import ModelSettingsDialog

    vision = projector_beside(describe(vision_model.text, "added"))
    dialog = ModelSettingsDialog(core, vision)
    qtbot.addWidget(dialog)
    chooser = dialog.projector
    assert chooser is not None
    assert chooser.currentData() is None and vision_model.projector.name in chooser.currentText()
    assert core.model_spec(vision).projector == str(vision_model.projector)
    chooser.setCurrentIndex(chooser.findData(""))
    dialog.accept()
    assert core.overrides.get(str(vision.path)).projector == ""
    assert core.model_spec(vision).projector == "", "the model now reads text only"
    again = ModelSettingsDialog(core, vision)
    qtbot.addWidget(again)
    assert again.projector is not None and again.projector.currentData() == ""
    again.projector.setCurrentIndex(again.projector.findData(str(vision_model.projector)))
    again.accept()
    assert core.model_spec(vision).projector == str(vision_model.projector)


def test_a_vision_model_opened_from_its_file_reads_the_pictures(
    qtbot: QtBot, core: Core, vision_model: VisionModel, tmp_path: Path
) -> None:
    """*Open model file…* pairs the model with the projector beside it, by the rule the
    library and hearth chat follow: the picker says it reads images and the pictures go
    with the message.  With its projector turned off in Model settings, the refusal says
    so, not that no model here reads pictures."""
    from app.models.overrides import ModelChoice

    folder = tmp_path / "Downloads"
    folder.mkdir()
    link_or_copy(vision_model.text, folder / "tiny-smolvlm-f16.gguf")
    link_or_copy(vision_model.projector, folder / "mmproj-tiny-smolvlm-f16.gguf")
    core.settings.set("sampling.max_tokens", 8)
    window = open_window(qtbot, core)
    chat = window.chat
    with qtbot.waitSignal(window.model_loaded, timeout=300_000):
        chat.model_bar.add_model_file(folder / "tiny-smolvlm-f16.gguf")
    assert "reads images" in chat.model_bar.picker.currentText()
    picture = tmp_path / "red.png"
    picture.write_bytes(png((255, 0, 0)))
    chat.picture_tray.add_files([picture])
    wait_until(qtbot, lambda: len(chat.picture_tray.thumbs) == 1, 60_000)
    with qtbot.waitSignal(window.reply_finished, timeout=300_000) as finished:
        assert chat.send("What is this?")
    assert finished.args[0]["status"] in (st.COMPLETE, st.LENGTH)
    assert not window.error_banner.message, "the pictures were not refused"
    question = next(m for m in chat.session.messages() if m.role == "user")
    assert [ref["name"] for ref in question.images] == ["red.png"]

    model = chat.model_bar.model
    assert model is not None
    core.overrides.set(str(model.path), ModelChoice(projector=""))
    chat.picture_tray.add_files([picture])
    wait_until(qtbot, lambda: len(chat.picture_tray.thumbs) == 1, 60_000)
    assert not chat.send("And now?")
    said = window.error_banner.message
    assert "Model settings" in said and "no model here reads pictures" not in said
