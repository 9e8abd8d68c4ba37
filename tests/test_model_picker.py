"""The model picker as a new user reads it: the chosen model's name and whether it is
loaded, never cut at a laptop's width; sizes under a tenth of a gigabyte in megabytes;
and a word in the status bar when choosing another model unloaded the one before."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from app.core import Core
from app.models.library import ModelEntry
from tests.gui_helpers import LOAD_TIMEOUT_MS, open_window, scripted_window
from ui import background

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


def test_the_window_turns_while_a_models_spec_is_made_and_a_later_choice_wins(
    qtbot: QtBot, core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Making a load's spec reads the model's header and may probe memory and GPUs: the
    window's thread never waits for it (held here until the test lets it go), the picker
    says the model is loading meanwhile, and a load that another choice replaced while its
    spec was made never starts."""
    window = scripted_window(qtbot, core, "One.", name="First")
    bar = window.chat.model_bar
    entries = []
    for name in ("Second", "Third"):
        path = core.paths.data_dir / f"{name}.script.txt"
        path.write_text(f"{name}.", encoding="utf-8")
        entries.append(ModelEntry(name, path, "synthetic", path.stat().st_size, "file"))
    bar.models.extend(entries)
    held, asked = threading.Event(), []
    made = core.load_spec

    def slow_spec(entry: ModelEntry, n_ctx: int | None = None) -> Any:
        asked.append((entry.name, threading.current_thread() is threading.main_thread()))
        if entry.name == "Second":
            assert held.wait(60), "the test never let the spec go"
        return made(entry, n_ctx)

    monkeypatch.setattr(core, "load_spec", slow_spec)
    bar.select(entries[0])
    qtbot.waitUntil(lambda: asked == [("Second", False)])
    assert "loading" in bar.picker.shown_text(), "said while its spec is made"
    with qtbot.waitSignal(window.model_loaded, timeout=LOAD_TIMEOUT_MS):
        bar.select(entries[1])  # chosen while the spec of Second is still being made
    assert asked[1] == ("Third", False)
    held.set()
    qtbot.waitUntil(lambda: not background.waiting())  # Second's late spec came back
    labels = [m.label for m in core.engines.loaded()]
    assert "Third" in labels and "Second" not in labels, "Second's load never started"
    assert bar.model is entries[1] and "loaded" in bar.picker.shown_text()
