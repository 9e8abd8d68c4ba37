"""The settings dialog is generated from the declaration and validates through it."""

from PySide6.QtWidgets import QDoubleSpinBox, QPlainTextEdit, QSpinBox
from pytestqt.qtbot import QtBot

from app.core import Core
from app.settings import DECLARATIONS
from ui.settings_dialog import SettingsDialog


def test_every_visible_setting_has_an_editor_of_its_type(qtbot: QtBot, core: Core) -> None:
    dialog = SettingsDialog(core.settings)
    qtbot.addWidget(dialog)
    visible = [s for s in DECLARATIONS if not s.internal]
    assert set(dialog.editors) == {s.key for s in visible}
    assert isinstance(dialog.editors["engine.context_length"], QSpinBox)
    assert isinstance(dialog.editors["sampling.temperature"], QDoubleSpinBox)
    assert isinstance(dialog.editors["chat.system_prompt"], QPlainTextEdit)
    spin = dialog.editors["engine.context_length"]
    assert isinstance(spin, QSpinBox)
    assert (spin.minimum(), spin.maximum()) == (256, 1_048_576)


def test_ok_saves_and_restore_defaults_resets(qtbot: QtBot, core: Core) -> None:
    dialog = SettingsDialog(core.settings)
    qtbot.addWidget(dialog)
    temperature = dialog.editors["sampling.temperature"]
    prompt = dialog.editors["chat.system_prompt"]
    assert isinstance(temperature, QDoubleSpinBox) and isinstance(prompt, QPlainTextEdit)
    temperature.setValue(0.25)
    prompt.setPlainText("Answer like a pirate.")
    dialog.accept()
    assert core.settings.get("sampling.temperature") == 0.25
    reopened = type(core.settings)(core.paths.settings_file)
    assert reopened.get("chat.system_prompt") == "Answer like a pirate."
    dialog = SettingsDialog(core.settings)
    qtbot.addWidget(dialog)
    dialog.restore_defaults()
    dialog.accept()
    assert core.settings.get("sampling.temperature") == 0.7
    assert core.settings.get("chat.system_prompt") == ""


def test_special_values_are_words_and_the_models_folder_has_a_default_and_browse(
    qtbot: QtBot, core: Core
) -> None:
    from PySide6.QtWidgets import QPushButton

    from ui.settings_dialog import FolderEdit

    dialog = SettingsDialog(core.settings)
    qtbot.addWidget(dialog)
    seed, threads = dialog.editors["sampling.seed"], dialog.editors["engine.threads"]
    assert isinstance(seed, QSpinBox) and isinstance(threads, QSpinBox)
    assert seed.text() == "Random each time" and threads.text().startswith("Automatic")
    seed.setValue(7)
    assert seed.text() == "7"
    folder = dialog.editors["models.directory"]
    assert isinstance(folder, FolderEdit)
    assert "models" in folder.line.placeholderText() and not folder.line.text()
    assert any(b.text() == "Browse…" for b in folder.findChildren(QPushButton))
    folder.line.setText(str(core.models_dir))
    dialog.accept()
    assert core.settings.get("models.directory") == str(core.models_dir)
