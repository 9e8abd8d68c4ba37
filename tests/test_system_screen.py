"""The System tab, the live readout, verdicts next to models, and per-model settings."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QTableWidget
from pytestqt.qtbot import QtBot

from app.core import Core
from tests.conftest import no_gpu_here
from tests.fakehub import FakeHub
from tests.gguf_files import build_gguf
from tests.gui_helpers import open_window, wait_until
from ui.main_window import MainWindow

pytestmark = pytest.mark.slow


def cell(table: QTableWidget, row: int, column: int) -> str:
    item = table.item(row, column)
    return item.text() if item is not None else ""


def wait_for_facts(qtbot: QtBot, window: MainWindow) -> None:
    wait_until(qtbot, lambda: window.core.facts is not None, 300_000)


@no_gpu_here
def test_system_check_tab_and_copy_report(qtbot: QtBot, core: Core) -> None:
    window = open_window(qtbot, core)
    wait_for_facts(qtbot, window)
    screen = window.system_screen
    items = [screen.tree.topLevelItem(i) for i in range(screen.tree.topLevelItemCount())]
    titles = [item.text(0) for item in items if item is not None]
    assert any("No GPU found" in t for t in titles)
    assert any(t.endswith("Memory") for t in titles)
    assert "llama-cpp-python 0.3.36 (CPU only)" in screen.details.toPlainText()
    screen.copy_button.click()
    report = QGuiApplication.clipboard().text()
    assert report.startswith("Hearth") and "Checks:" in report and "Memory:" in report


@no_gpu_here
def test_verdicts_in_the_library_and_live_usage_while_generating(qtbot: QtBot, core: Core) -> None:
    window = open_window(qtbot, core)
    wait_for_facts(qtbot, window)
    library = window.models_screen.library_panel.table
    wait_until(qtbot, lambda: cell(library, 0, 8).startswith("CPU and RAM"))
    tip = library.item(0, 8).toolTip()  # type: ignore[union-attr]
    assert "KV cache" in tip and "Expected speed" in tip
    window.chat.sampling_overrides = {"max_tokens": 2000, "ignore_eos": True}
    window.chat.send("Count to one hundred.")
    wait_until(qtbot, lambda: "model process" in window.usage_label.text(), 300_000)
    assert "RAM" in window.usage_label.text()
    with qtbot.waitSignal(window.reply_finished, timeout=300_000):
        window.chat.stop()


@pytest.fixture
def hub(core: Core, tmp_path: Path) -> Iterator[FakeHub]:
    server = FakeHub().start()
    data = build_gguf(tmp_path / "src.gguf", file_type=15).read_bytes()
    server.add("acme/tiny-GGUF", {"tiny-Q4_K_M.gguf": data, "tiny-Q8_0.gguf": data + b"\0" * 64})
    core.settings.set("hub.huggingface_endpoint", server.url)
    yield server
    server.stop()


@no_gpu_here
def test_offers_show_a_verdict_from_the_remote_header(
    qtbot: QtBot, core: Core, hub: FakeHub
) -> None:
    window = open_window(qtbot, core)
    wait_for_facts(qtbot, window)
    screen = window.models_screen
    screen.query.setText("acme/tiny-GGUF")
    screen.open_button.click()
    wait_until(qtbot, lambda: cell(screen.offers_table, 0, 3).startswith("CPU and RAM"), 300_000)
    ranged = [r for r in hub.requests if "resolve" in r and "bytes=0-" in r]
    assert ranged and not (core.models_dir / "acme").exists()  # nothing downloaded


def test_model_settings_override_the_automatic_choice(qtbot: QtBot, core: Core) -> None:
    from PySide6.QtWidgets import QCheckBox, QComboBox, QSpinBox

    from ui.models.model_settings_dialog import ModelSettingsDialog

    window = open_window(qtbot, core)
    assert window.chat.model_bar.model is not None
    dialog = ModelSettingsDialog(core, window.chat.model_bar.model, window)
    qtbot.addWidget(dialog)
    # A GGUF offers llama.cpp's options, in the catalogue's ranges.
    assert [dialog.engine.itemData(i) for i in range(dialog.engine.count())] == [None, "llama_cpp"]
    assert set(dialog.editors) == {
        "gpu_layers",
        "threads",
        "n_ctx",
        "parallel",
        "runtime",
        "no_prompt_lookup",
    }
    threads, context = dialog.editors["threads"], dialog.editors["n_ctx"]
    assert isinstance(threads, QSpinBox) and isinstance(context, QSpinBox)
    runtime, lookup = dialog.editors["runtime"], dialog.editors["no_prompt_lookup"]
    assert isinstance(runtime, QComboBox) and isinstance(lookup, QCheckBox)
    # Only the runtimes usable here can be chosen; the others say why not.
    from PySide6.QtGui import QStandardItemModel

    qtbot.waitUntil(lambda: core.facts is not None, timeout=300_000)
    dialog = ModelSettingsDialog(core, window.chat.model_bar.model, window)
    qtbot.addWidget(dialog)
    threads, context = dialog.editors["threads"], dialog.editors["n_ctx"]
    runtime, lookup = dialog.editors["runtime"], dialog.editors["no_prompt_lookup"]
    assert isinstance(threads, QSpinBox) and isinstance(context, QSpinBox)
    assert isinstance(runtime, QComboBox) and isinstance(lookup, QCheckBox)
    items = runtime.model()
    assert isinstance(items, QStandardItemModel)
    texts = [runtime.itemText(i) for i in range(runtime.count())]
    assert "none" not in texts, "no unexplained choice"
    import sys

    absent = items.item(runtime.findData("cuda" if sys.platform == "darwin" else "metal"))
    assert not absent.isEnabled() and "unavailable" in absent.text()
    assert items.item(runtime.findData("cpu")).isEnabled()
    assert lookup.text() == "Don't guess ahead from the conversation"
    assert "prompt-lookup decoding" in lookup.toolTip(), "the term is in the tooltip"
    threads.setValue(1)
    context.setValue(2048)
    runtime.setCurrentIndex(runtime.findData("cpu"))
    lookup.setChecked(True)
    dialog.accept()
    spec = core.model_spec(window.chat.model_bar.model)
    assert (spec.threads, spec.n_ctx, spec.gpu_layers) == (1, 2048, 0)
    assert (spec.runtime, spec.prompt_lookup) == ("cpu", False)
    dialog = ModelSettingsDialog(core, window.chat.model_bar.model, window)
    qtbot.addWidget(dialog)
    threads, context = dialog.editors["threads"], dialog.editors["n_ctx"]
    assert isinstance(threads, QSpinBox) and isinstance(context, QSpinBox)
    assert threads.value() == 1  # what was chosen comes back
    context.setValue(100)  # below the smallest context: back to Automatic
    assert context.text() == "Automatic"
    dialog.accept()
    assert core.model_spec(window.chat.model_bar.model).n_ctx == 4096  # the setting again
    core.paths.data_dir.joinpath("model_settings.json").write_text("{ damaged")
    assert core.overrides.get(str(window.chat.model_bar.model.path)).threads is None


@pytest.mark.parametrize(
    ("name", "expected"),
    [("rtx3060", "Q8_0"), ("laptop", "Q4_K_M"), ("nothing-fits", "Q4_K_M")],
)
def test_the_models_screen_and_hearth_pull_recommend_the_same_file(
    qtbot: QtBot, core: Core, hub: FakeHub, name: str, expected: str
) -> None:
    """One policy: on the same machine, the file marked in the window is the one that
    ``hearth pull`` (without --file) fetches."""
    import json

    from app.hub.pull import plan
    from app.machine.hardware import SystemFacts
    from tests.conftest import REPO

    machine = "laptop" if name == "nothing-fits" else name
    described = json.loads((REPO / "tests" / "machines" / f"{machine}.json").read_text())
    if name == "nothing-fits":
        described["memory"]["total_bytes"] = 1_000_000  # then the usual choice, and a warning
    facts = SystemFacts.from_json(described)
    window = open_window(qtbot, core)
    wait_for_facts(qtbot, window)
    screen = window.models_screen
    screen.set_facts(facts)
    screen.query.setText("acme/tiny-GGUF")
    rows = range(2)
    screen.open_button.click()
    table = screen.offers_table
    wait_until(qtbot, lambda: all(cell(table, r, 3) not in ("", "…") for r in rows), 300_000)
    marks = ("Recommended for this machine", "Recommended")
    marked = next(screen.offers[r].label for r in rows if cell(screen.offers_table, r, 4) in marks)
    planned = plan(core.settings, "acme/tiny-GGUF", None, "hf", facts)
    assert marked == planned.label and expected in marked
    assert ("may not run here" in planned.warning) == (name == "nothing-fits")


def test_a_check_that_cannot_finish_says_why_on_its_own_screen(
    qtbot: QtBot, core: Core, monkeypatch: pytest.MonkeyPatch, expect_error_logs: None
) -> None:
    """The failure is shown on the System screen, not on the Chat tab, and Retry runs it."""
    from ui.gui import make_application
    from ui.system import system_screen

    make_application()
    from app.machine.hardware import probe_system as real_probe

    attempts: list[int] = []

    def probe_once_unreadable(models_dir: Path, **options: object) -> object:
        attempts.append(1)
        if len(attempts) == 1:
            raise PermissionError(13, "Permission denied", "meminfo")
        return real_probe(models_dir, **options)  # type: ignore[arg-type]

    monkeypatch.setattr("ui.system.system_screen.probe_system", probe_once_unreadable)
    screen = system_screen.SystemScreen(core, lambda facts: None)
    qtbot.addWidget(screen)
    screen.show()
    screen.run()
    qtbot.waitUntil(screen.banner.isVisible, timeout=300_000)
    assert "checking the system" in screen.banner.message
    assert screen.status.text() == "The check could not finish."
    screen.banner.retry_button.click()
    qtbot.waitUntil(lambda: screen.tree.topLevelItemCount() > 0, timeout=300_000)
    assert not screen.banner.isVisible() and len(attempts) == 2
