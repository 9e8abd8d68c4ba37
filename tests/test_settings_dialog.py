"""The settings dialog is generated from the declaration and validates through it."""

import pytest
from PySide6.QtWidgets import QDoubleSpinBox, QPlainTextEdit, QSpinBox
from pytestqt.qtbot import QtBot

from app.core import Core
from app.errors import HearthError
from app.settings import DECLARATIONS
from ui.settings.dialog import SettingsDialog


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

    from ui.settings.editors import FolderEdit

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


def test_settings_are_on_pages_and_the_search_finds_them_by_name_or_description(
    qtbot: QtBot, core: Core
) -> None:
    from ui.settings.dialog import SettingsPage

    dialog = SettingsDialog(core.settings)
    qtbot.addWidget(dialog)
    dialog.show()
    names = [dialog.sections.item(row).text() for row in range(dialog.sections.count())]
    assert names == [
        "General",
        "Chat",
        "Models and downloads",
        "Engines",
        "Documents",
        "Tools",
        "API server",
        "Privacy and updates",
        "Advanced",
    ]
    assert dialog.current_page() == "general"
    dialog.sections.setCurrentRow(names.index("API server"))
    page = dialog.stack.currentWidget()
    assert isinstance(page, SettingsPage) and page.page_id == "server"
    assert {row.setting.key for row in page.rows} >= {"server.host", "server.port"}
    assert dialog.editors["server.port"].isVisible()

    def shown_sections() -> list[str]:
        return [
            dialog.sections.item(row).text()
            for row in range(dialog.sections.count())
            if not dialog.sections.item(row).isHidden()
        ]

    # A word of a description finds its setting; the other sections step aside.
    dialog.search.setText("same seed")
    assert shown_sections() == ["Advanced"] and dialog.current_page() == "advanced"
    assert dialog.editors["sampling.seed"].isVisible()
    assert not dialog.editors["sampling.top_p"].isVisible()
    dialog.search.setText("hf-mirror")  # in the Hugging Face address's description alone
    assert shown_sections() == ["Models and downloads"]
    assert dialog.editors["hub.huggingface_endpoint"].isVisible()
    dialog.search.setText("no such setting anywhere")
    assert shown_sections() == []
    assert dialog.nothing.isVisible() and "no such setting anywhere" in dialog.nothing.text()
    dialog.search.clear()
    assert len(shown_sections()) == len(names) and dialog.editors["hub.huggingface_endpoint"]
    # The daily catalogue check asks the network: it is a privacy choice.
    dialog.search.setText("daily")
    assert "Privacy and updates" in shown_sections()


def test_the_api_server_settings_are_hearth_serves_defaults(
    core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    import argparse

    from app import secrets
    from app.cli import serve

    monkeypatch.delenv("HEARTH_SERVE_API_KEY", raising=False)
    monkeypatch.setattr(secrets, "get_token", lambda _source: None)  # no key anywhere

    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers()
    serve.add_parser(commands, argparse.ArgumentParser(add_help=False))
    core.settings.set("server.port", 9123)
    args = parser.parse_args(["serve"])
    assert args.host is None and args.port is None
    with pytest.raises(HearthError, match=r"0\.0\.0\.0"):  # refused before anything listens
        core.settings.set("server.host", "0.0.0.0")
        serve.cmd_serve(core, args)
    assert (vars(args)["host"], vars(args)["port"]) == ("0.0.0.0", 9123)


def _wheel(widget: object, steps: int = -1) -> None:
    """A turn of the mouse wheel over ``widget`` (down for a negative ``steps``)."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication, QWidget

    assert isinstance(widget, QWidget)
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(centre.toPoint())),
        QPoint(0, 0),
        QPoint(0, 120 * steps),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def test_the_wheel_scrolls_the_page_and_never_changes_a_field_it_passes(
    qtbot: QtBot, core: Core
) -> None:
    """Scrolling Settings › Advanced with the wheel over Min-p once turned it Off: a field
    takes the wheel only after a click or Tab chose it; until then the page scrolls."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QComboBox

    dialog = SettingsDialog(core.settings)
    qtbot.addWidget(dialog)
    dialog.resize(760, 420)  # a page longer than the dialog: it scrolls
    dialog.show()
    dialog.show_page("advanced")
    page = dialog.pages["advanced"]
    min_p = dialog.editors["sampling.min_p"]
    assert isinstance(min_p, QDoubleSpinBox)
    page.ensureWidgetVisible(min_p)
    qtbot.waitUntil(lambda: page.verticalScrollBar().maximum() > 0)
    before, scrolled = min_p.value(), page.verticalScrollBar().value()
    _wheel(min_p)
    assert min_p.value() == before, "the wheel passing over Min-p leaves it as it was"
    assert page.verticalScrollBar().value() != scrolled, "the page scrolled instead"
    assert min_p.focusPolicy() == Qt.FocusPolicy.StrongFocus, "the wheel does not choose it"

    min_p.setFocus()  # chosen by a click or Tab: now the wheel steps it
    qtbot.waitUntil(min_p.hasFocus)
    _wheel(min_p)
    assert min_p.value() < before

    # The same for every number and choice field the dialog built.
    fields = [e for e in dialog.editors.values() if isinstance(e, QSpinBox | QComboBox)]
    assert fields and all(f.focusPolicy() == Qt.FocusPolicy.StrongFocus for f in fields)
    dialog.reject()


def test_the_conversation_and_model_settings_fields_ignore_a_passing_wheel(
    qtbot: QtBot, core: Core
) -> None:
    from PySide6.QtWidgets import QComboBox

    from app.chat.presets import PresetStore, effective_values
    from app.models.library import ModelEntry
    from ui.chat.conversation_settings_dialog import ConversationSettingsDialog
    from ui.models.model_settings_dialog import ModelSettingsDialog

    conversation = ConversationSettingsDialog(
        PresetStore(core.paths.data_dir / "presets.json"),
        "",
        {},
        effective_values(core.settings, {}, {}),
        {},
    )
    qtbot.addWidget(conversation)
    model = ModelSettingsDialog(
        core, ModelEntry("m", core.paths.data_dir / "m.gguf", "gguf", 1, "file")
    )
    qtbot.addWidget(model)
    for dialog in (conversation, model):
        dialog.show()
        spins = [*dialog.findChildren(QDoubleSpinBox), *dialog.findChildren(QSpinBox)]
        combos = dialog.findChildren(QComboBox)
        assert spins and combos
        for spin in spins:
            shown = spin.text()
            for steps in (+1, -1):
                _wheel(spin, steps)
                assert spin.text() == shown, spin.accessibleName()
        for combo in combos:
            index = combo.currentIndex()
            for steps in (+1, -1):
                _wheel(combo, steps)
                assert combo.currentIndex() == index, combo.accessibleName()
        dialog.reject()
