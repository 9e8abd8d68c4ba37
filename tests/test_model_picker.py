"""The model picker as a new user reads it: the chosen model's name and whether it is
loaded, never cut at a laptop's width; sizes under a tenth of a gigabyte in megabytes;
and a word in the status bar when choosing another model unloaded the one before."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.core import Core
from app.models.library import ModelEntry
from tests.gui_helpers import LOAD_TIMEOUT_MS, open_window, scripted_window

pytestmark = pytest.mark.slow


def test_the_closed_picker_shows_the_name_and_state_and_small_sizes_in_mb(
    qtbot: QtBot, core: Core, tmp_path: Path
) -> None:
    window = open_window(qtbot, core)
    window.resize(1000, 560)  # a small laptop's window (1024 × 600)
    bar = window.chat.model_bar
    picker, model = bar.picker, bar.model
    assert model is not None
    qtbot.waitUntil(lambda: picker.width() < 600)
    whole = picker.currentText()
    assert "demo model" in whole and "loaded" in whole, "the list says everything"
    room = picker.fontMetrics().horizontalAdvance(whole)
    assert room > picker.width(), "the whole label does not fit the closed box here"
    assert picker.shown_text() == f"{model.name} · ● loaded", "name and state, never cut"

    tiny = ModelEntry("tiny-vlm", tmp_path / "tiny-vlm.gguf", "gguf", 8_216_864, "file")
    bar.set_library([*bar.library, tiny])
    labels = [picker.itemText(index) for index in range(picker.count())]
    small = next(label for label in labels if label.startswith("tiny-vlm"))
    assert "8 MB" in small and "0.0 GB" not in small
    picker.showPopup()
    view = picker.view()
    qtbot.waitUntil(view.isVisible)
    assert view.width() >= view.sizeHintForColumn(0), "the open list is never cut"
    picker.hidePopup()


def test_choosing_another_model_says_which_one_was_unloaded(qtbot: QtBot, core: Core) -> None:
    window = scripted_window(qtbot, core, "One.", name="First")
    other = core.paths.data_dir / "Second.script.txt"
    other.write_text("Two.", encoding="utf-8")
    entry = ModelEntry("Second", other, "synthetic", other.stat().st_size, "file")
    bar = window.chat.model_bar
    bar.models.append(entry)
    with qtbot.waitSignal(window.model_loaded, timeout=LOAD_TIMEOUT_MS):
        bar.select(entry)
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == "Unloaded First")
    assert all(m.label != "First" for m in core.engines.loaded()), "it truly was"
