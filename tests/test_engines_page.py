"""Settings › Engines as a person uses it: every engine and runtime with its state, the
PyTorch engine installed for real (small wheels built here, served from 127.0.0.1, the
lock file the engine reads pointed at them: every step of the install is the real one)
with its progress in bytes and stages, cancelled (the download kept, and said), failing
(its sentence, the row as it was), removed, rolled back and reinstalled after its folder
was removed by hand; the System screen's way there; the picker offering Hugging Face
checkpoints once the engine is in; and the mirrors a Chinese window offers."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QLineEdit, QMessageBox
from pytestqt.qtbot import QtBot

from app.core import Core
from app.machine.hardware import GpuFacts
from app.packs import engine_list, pytorch_engine, pytorch_lock
from app.packs.pytorch_engine import InstallProgress
from tests.file_server import FileServer
from tests.test_pytorch_engine import FAKE_TORCH, engine_wheels, lock_for, wheel
from ui.engines import engine_job
from ui.engines.engines_panel import EnginesPanel
from ui.gui import make_application
from wire.engine_overlay import engine_folder, installed_site, record_of

pytestmark = pytest.mark.slow  # drives the real app, an engine or a server

LISTED_MS = 120_000  # the engines are asked in a child process
INSTALLED_MS = 300_000


@dataclass
class Offered:
    """The PyTorch engine's lock file as the app reads it, naming wheels ``server`` has."""

    server: FileServer
    folder: Path
    lock_path: Path

    def offer(self, version: str = "2.13.0+cpu", big: bool = False, broken: bool = False) -> Any:
        """Wheels of torch ``version`` (``big``: 3 MB that do not compress, so the download
        takes a while; ``broken``: a torch that fails the check) made the lock's."""
        made = self.folder / version
        wheels = engine_wheels(made, version)
        files: dict[str, bytes] = {"torch/__init__.py": FAKE_TORCH.format(version=version).encode()}
        if big:
            files["torch/lib/weights.bin"] = os.urandom(3_000_000)
        if broken:
            files["torch/__init__.py"] = b"raise ImportError('libtorch_cpu.so: cannot open')\n"
        wheels[0] = wheel(made, "torch", version, files)
        lock = lock_for(wheels, self.server, f"whl/{version}")
        offered = lock["platforms"][_platform()]
        # A CUDA build too: this machine has no NVIDIA GPU, so the page says why not.
        offered["cuda"] = {**offered["cpu"], "needs": {"cuda": "13.0", "driver": "580"}}
        self.lock_path.write_text(json.dumps(lock), encoding="utf-8")
        return lock

    def torch_path(self, lock: Any) -> str:
        torch = lock["platforms"][_platform()]["cpu"]["wheels"][0]
        return str(torch["url"]).split("/", 3)[3]


def _platform() -> str:
    from wire.platforms import wheel_platform

    return wheel_platform()


@pytest.fixture
def offered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Offered]:
    """The installed app's case: no torch of its own, the engine's lock naming our wheels."""
    server = FileServer()
    made = Offered(server, tmp_path / "wheels", tmp_path / "pytorch-lock.json")
    monkeypatch.setattr(pytorch_lock, "lock_file", lambda: made.lock_path)
    monkeypatch.setattr(pytorch_engine, "torch_here", lambda: False)
    yield made
    server.close()


@pytest.fixture(autouse=True)
def _no_job_left() -> Iterator[None]:
    """A job a failed test left running ends before the next test's page opens."""
    yield
    job = engine_job.running()
    if job is not None:
        job.cancel()
        import time

        from PySide6.QtWidgets import QApplication

        deadline = time.monotonic() + 60
        while engine_job.running() is not None and time.monotonic() < deadline:
            QApplication.processEvents()
            time.sleep(0.05)


def open_panel(qtbot: QtBot, core: Core) -> EnginesPanel:
    make_application()
    panel = EnginesPanel(core, core.paths.logs_dir)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.listed, timeout=LISTED_MS):
        panel.show()  # the rows are read when the page is first shown
    return panel


def wait_idle(qtbot: QtBot, panel: EnginesPanel) -> None:
    """The action ended and the rows were read again."""
    qtbot.waitUntil(lambda: panel.job is None and not panel._listing, timeout=INSTALLED_MS)


def state(panel: EnginesPanel, name: str = "pytorch") -> str:
    return panel.rows[name].state.text()


def install_pytorch(qtbot: QtBot, panel: EnginesPanel, variant: str = "cpu") -> None:
    """Install… (or Reinstall…), the variant chosen, Install."""
    row = panel.rows["pytorch"]
    button = row.buttons.get(engine_list.INSTALL) or row.buttons[engine_list.REINSTALL]
    button.click()
    dialog = panel.variant_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.buttons[variant].setChecked(True)
    dialog.install_button.click()


def test_the_page_lists_every_engine_and_runtime_with_its_state(
    qtbot: QtBot, core: Core, offered: Offered
) -> None:
    offered.offer()
    panel = open_panel(qtbot, core)
    names = list(panel.rows)
    assert names[0] == "pytorch", "the PyTorch engine first"
    pytorch = panel.rows["pytorch"]
    assert state(panel) == "Not installed: Hugging Face checkpoints need it"
    assert pytorch.name.text() == "PyTorch engine"
    assert list(pytorch.buttons) == [engine_list.INSTALL]
    assert pytorch.buttons[engine_list.INSTALL].text() == "Install…"
    cpu = panel.rows["cpu"]  # comes with the app: usable, nothing to do
    assert cpu.state.text().startswith("Usable here") and not cpu.buttons
    assert "comes with Hearth" in cpu.kind.text()
    for pack in ("cuda-12", "cuda-13"):  # can be added, but not on this computer
        assert state(panel, pack) == "Not installed: no NVIDIA GPU", state(panel, pack)
        assert not panel.rows[pack].buttons, "nothing offered that cannot run here"
    assert not panel.progress_box.isVisible() and not panel.busy_note.isVisible()


def test_the_variants_say_why_one_cannot_run_here(qtbot: QtBot, offered: Offered) -> None:
    """The suggested build is chosen; a CUDA build the driver is too old for is disabled
    with its reason, before anything is downloaded."""
    from ui.engines.variant_dialog import VariantDialog

    make_application()
    lock = offered.offer()
    rtx3060 = GpuFacts(name="RTX 3060", driver_version="535.183.01", cuda_driver_version="12.2")
    choices = engine_list.variant_choices([rtx3060], lock)
    dialog = VariantDialog(choices, "")
    qtbot.addWidget(dialog)
    assert dialog.chosen() == "cpu" and dialog.buttons["cpu"].isEnabled()
    assert (
        "suggested" in dialog.buttons["cpu"].text()
        and "to download" in dialog.buttons["cpu"].text()
    )
    assert not dialog.buttons["cuda"].isEnabled()
    assert dialog.reasons["cuda"].text() == (
        "Cannot run here: the driver supports CUDA 12.2; this build needs 13.0 (NVIDIA's "
        "driver 580 or newer)."
    )
    h200 = GpuFacts(name="H200", driver_version="580.65.06", cuda_driver_version="13.0")
    newer = VariantDialog(engine_list.variant_choices([h200], lock), "cpu")
    qtbot.addWidget(newer)
    assert newer.chosen() == "cuda" and "installed now" in newer.buttons["cpu"].text()
    assert server_untouched(offered)


def server_untouched(offered: Offered) -> bool:
    return offered.server.requests == []


def test_an_install_shows_its_progress_and_waits_for_nothing_else(
    qtbot: QtBot, core: Core, offered: Offered
) -> None:
    """Install… runs the real install in the background: the bar and the words of the
    command's progress (bytes, speed, time left; unpacking; the check), every other action
    disabled with the reason, a page opened meanwhile following the same install; at the
    end one sentence, and the row installed and usable."""
    lock = offered.offer(big=True)
    stall = offered.server.fault(offered.torch_path(lock), stall_after=1_200_000)
    panel = open_panel(qtbot, core)
    install_pytorch(qtbot, panel)
    assert panel.job is not None
    seen: list[InstallProgress] = []
    panel.job.progress.connect(seen.append)
    qtbot.waitUntil(lambda: panel.detail.text().startswith("Downloading 1 of 3 MB"), timeout=60_000)
    assert panel.progress_box.isVisible() and panel.bar.maximum() > 0 and panel.bar.value() > 0
    assert "Installing the PyTorch engine (cpu)" in panel.job_title.text()
    assert "MB/s" in panel.detail.text() and panel.detail.text().endswith("left")
    assert panel.cancel_button.isEnabled() and "kept" in panel.cancel_note.text()
    assert panel.busy_note.isVisible()
    assert "One install, removal or rollback runs at a time" in panel.busy_note.text()
    for row in panel.rows.values():
        assert not any(b.isEnabled() for b in row.buttons.values())
        assert all(b.toolTip() == panel.busy_note.text() for b in row.buttons.values())
    second = EnginesPanel(core, core.paths.logs_dir)  # Settings opened again meanwhile
    qtbot.addWidget(second)
    assert second.job is panel.job and second.detail.text().startswith("Downloading")
    stall.go.set()
    wait_idle(qtbot, panel)
    assert panel.result.text() == (
        "Installed the PyTorch engine: torch 2.13.0+cpu (cpu), checked on this computer."
    )
    assert not panel.progress_box.isVisible() and not panel.busy_note.isVisible()
    stages = [p.stage for p in seen]
    assert "download" in stages and "unpack" in stages and stages[-1] == "check"
    words = {engine_list.progress_line(p) for p in seen if p.stage != "download"}
    assert {"Unpacking 1 of 3", "Checking that it runs on this computer"} <= words
    assert state(panel) == "Usable here"
    assert panel.rows["pytorch"].details.text().startswith("torch 2.13.0+cpu · cpu · ")
    assert "on disk" in panel.rows["pytorch"].details.text()
    assert set(panel.rows["pytorch"].buttons) == {engine_list.REINSTALL, engine_list.REMOVE}
    assert installed_site(core.paths.data_dir) is not None


def test_cancel_keeps_the_download_and_says_so(qtbot: QtBot, core: Core, offered: Offered) -> None:
    lock = offered.offer(big=True)
    offered.server.fault(offered.torch_path(lock), stall_after=1_200_000)
    panel = open_panel(qtbot, core)
    install_pytorch(qtbot, panel)
    qtbot.waitUntil(lambda: panel.detail.text().startswith("Downloading 1 of"), timeout=60_000)
    panel.cancel_button.click()
    assert not panel.cancel_button.isEnabled() and panel.detail.text() == "Cancelling…"
    wait_idle(qtbot, panel)
    assert panel.result.text() == (
        "The install was cancelled; what was downloaded is kept for the next try."
    )
    parts = list((engine_folder(core.paths.data_dir) / "downloads").glob("*.part"))
    assert parts and parts[0].stat().st_size >= 1_000_000, "the download is kept"
    assert state(panel) == "Not installed: Hugging Face checkpoints need it"
    assert all(b.isEnabled() for b in panel.rows["pytorch"].buttons.values())
    row = panel.rows["pytorch"]
    assert "downloaded by an install that did not finish" in row.details.text()
    row.buttons[engine_list.DELETE_DOWNLOAD].click()
    wait_idle(qtbot, panel)
    assert panel.result.text().startswith("Deleted the PyTorch engine's download (")
    assert not engine_folder(core.paths.data_dir).exists()
    assert list(panel.rows["pytorch"].buttons) == [engine_list.INSTALL]


def test_quitting_during_an_install_cancels_it(qtbot: QtBot, core: Core, offered: Offered) -> None:
    """Closing Hearth while the engine downloads does not keep the window waiting for the
    download: the install stops at the next chunk and nothing is installed."""
    from PySide6.QtCore import QCoreApplication

    lock = offered.offer(big=True)
    offered.server.fault(offered.torch_path(lock), stall_after=1_200_000)
    panel = open_panel(qtbot, core)
    install_pytorch(qtbot, panel)
    qtbot.waitUntil(lambda: panel.detail.text().startswith("Downloading 1 of"), timeout=60_000)
    app = QCoreApplication.instance()
    assert app is not None
    app.aboutToQuit.emit()
    wait_idle(qtbot, panel)
    assert panel.result.text().startswith("The install was cancelled")
    assert installed_site(core.paths.data_dir) is None


def test_a_failing_install_says_why_and_leaves_the_row_as_it_was(
    qtbot: QtBot, core: Core, offered: Offered
) -> None:
    pytorch_engine.install(core.paths.data_dir, [], "cpu", lock=offered.offer())
    offered.offer("2.13.1+cpu", broken=True)
    panel = open_panel(qtbot, core)
    assert panel.rows["pytorch"].details.text().startswith("torch 2.13.0+cpu")
    install_pytorch(qtbot, panel)
    wait_idle(qtbot, panel)
    sentence = panel.result.text()
    assert sentence.startswith("The PyTorch engine did not start on this computer"), sentence
    assert "libtorch_cpu.so" in sentence and "color" in panel.result.styleSheet()
    assert state(panel) == "Usable here"
    assert panel.rows["pytorch"].details.text().startswith("torch 2.13.0+cpu"), "as it was"
    assert record_of(core.paths.data_dir)["versions"]["torch"] == "2.13.0+cpu"


def test_roll_back_and_remove_update_the_row(qtbot: QtBot, core: Core, offered: Offered) -> None:
    data = core.paths.data_dir
    pytorch_engine.install(data, [], "cpu", lock=offered.offer())
    pytorch_engine.install(data, [], "cpu", lock=offered.offer("2.13.1+cpu"))
    panel = open_panel(qtbot, core)
    row = panel.rows["pytorch"]
    assert row.details.text().startswith("torch 2.13.1+cpu")
    row.buttons[engine_list.ROLL_BACK].click()
    wait_idle(qtbot, panel)
    assert panel.result.text() == "The PyTorch engine is torch 2.13.0+cpu again."
    assert panel.rows["pytorch"].details.text().startswith("torch 2.13.0+cpu")
    panel.rows["pytorch"].buttons[engine_list.REMOVE].click()
    confirm = panel.confirm
    assert confirm is not None and confirm.isVisible()
    assert "Remove the PyTorch engine?" in confirm.text() and "frees" in confirm.text()
    assert engine_folder(data).exists(), "nothing removed before the answer"
    remove = next(
        b
        for b in confirm.buttons()
        if confirm.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole
    )
    remove.click()
    wait_idle(qtbot, panel)
    assert panel.result.text().startswith("Removed the PyTorch engine (")
    assert "GB freed" in panel.result.text()
    assert state(panel) == "Not installed: Hugging Face checkpoints need it"
    assert list(panel.rows["pytorch"].buttons) == [engine_list.INSTALL]
    assert not engine_folder(data).exists()


def test_a_folder_removed_by_hand_is_said_and_reinstalled(
    qtbot: QtBot, core: Core, offered: Offered
) -> None:
    data = core.paths.data_dir
    record = pytorch_engine.install(data, [], "cpu", lock=offered.offer())
    shutil.rmtree(engine_folder(data) / record["current"])
    panel = open_panel(qtbot, core)
    assert state(panel) == (
        "Installed, not usable here: its folder is missing or damaged; reinstall it"
    )
    assert panel.rows["pytorch"].buttons[engine_list.REINSTALL].text() == "Reinstall…"
    install_pytorch(qtbot, panel)
    wait_idle(qtbot, panel)
    assert panel.result.text().startswith("Installed the PyTorch engine: torch 2.13.0+cpu")
    assert state(panel) == "Usable here" and installed_site(data) is not None


def test_a_runtime_pack_is_reinstalled_and_removed_from_the_page(
    qtbot: QtBot, core: Core, tmp_path: Path
) -> None:
    """A pack (a CPU runtime made a pack, as the tests of runtime packs make one) installed
    from a folder the settings name: the page offers Reinstall and Remove, runs them and
    shows the pack's own stages."""
    from app.packs.pack_manifest import MANIFEST_NAME
    from tests.runtime_pack_builds import NAME, make_pack, make_runtime

    out = tmp_path / "packs"
    manifest = make_pack(make_runtime(tmp_path / "runtime"), out)
    (out / MANIFEST_NAME).write_text(json.dumps(manifest), encoding="utf-8")
    core.settings.set("engine.packs_manifest", str(out))
    engine_list.install(core, NAME)
    panel = open_panel(qtbot, core)
    assert state(panel, NAME).startswith("Usable here")
    assert set(panel.rows[NAME].buttons) == {engine_list.REINSTALL, engine_list.REMOVE}
    assert "runtime pack" in panel.rows[NAME].kind.text()
    stages: list[str] = []
    panel.rows[NAME].buttons[engine_list.REINSTALL].click()
    assert panel.job is not None
    panel.job.stage.connect(stages.append)
    wait_idle(qtbot, panel)
    assert panel.result.text().startswith(f"Installed the {NAME} runtime in ")
    assert f"Checking that the {NAME} pack runs here" in stages
    assert engine_list.ROLL_BACK in panel.rows[NAME].buttons, "the one before is kept"
    panel.rows[NAME].buttons[engine_list.REMOVE].click()
    assert panel.confirm is not None
    next(
        b
        for b in panel.confirm.buttons()
        if panel.confirm.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole
    ).click()
    wait_idle(qtbot, panel)
    assert panel.result.text().startswith(f"Removed the {NAME} runtime (")
    assert NAME not in panel.rows


def test_the_models_unloaded_before_a_removal_are_those_that_use_it() -> None:
    """What Remove unloads first: a checkpoint on the added PyTorch engine, a GGUF model on
    the pack's runtime (chosen by hand or by its worker); nothing else."""
    from wire.model_spec import ModelSpec

    added = ModelSpec("ckpt", engine="transformers", engine_path="/data/engines/pytorch/x")
    own_torch = ModelSpec("ckpt", engine="transformers")  # a source checkout's torch
    gguf = ModelSpec("model.gguf")
    assert engine_list.uses("pytorch", added, "")
    assert not engine_list.uses("pytorch", own_torch, "") and not engine_list.uses(
        "pytorch", gguf, "cpu"
    )
    assert engine_list.uses("cuda-12", gguf, "cuda-12"), "its worker runs the pack"
    assert engine_list.uses("cuda-12", ModelSpec("model.gguf", runtime="cuda-12"), "")
    assert not engine_list.uses("cuda-12", gguf, "cpu")


def test_removing_what_the_chats_model_runs_on_unloads_it_and_waits_for_its_worker(
    qtbot: QtBot, core: Core
) -> None:
    """Remove asks ``free_engine`` first: the chat's model is unloaded and the removal waits
    for its worker to end (Windows cannot delete a library a live worker has open); a
    model a program of the local server holds is said, and nothing is removed."""
    import psutil

    from tests.gui_helpers import open_window
    from ui.settings.opener import free_engine

    window = open_window(qtbot, core)
    [model] = core.engines.loaded()
    assert model.runtime, "the starter model runs on a llama.cpp runtime"
    why, workers = free_engine(window.settings_parts(), model.runtime)
    assert why == "" and workers == [model.pid]
    engine_list.wait_ended(workers)
    assert core.engines.loaded() == []
    assert not psutil.pid_exists(model.pid) or (
        psutil.Process(model.pid).status() == psutil.STATUS_ZOMBIE
    )
    other = core.engines.lease(model.spec, purpose="api")
    try:
        other.load().wait(300)
        [again] = core.engines.loaded()
        why, workers = free_engine(window.settings_parts(), again.runtime)
        assert "answering a program that uses Hearth's server" in why and workers == []
        assert [m.pid for m in core.engines.loaded()] == [again.pid], "nothing was unloaded"
    finally:
        other.release(keep_alive_s=0.0)


def _checkpoint(models_dir: Path) -> Path:
    """A Hugging Face checkpoint folder, as the library lists one (never loaded here)."""
    folder = models_dir / "tiny-checkpoint"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(
        json.dumps({"architectures": ["LlamaForCausalLM"], "model_type": "llama"}), "utf-8"
    )
    header = b"{}"
    (folder / "model.safetensors").write_bytes(len(header).to_bytes(8, "little") + header)
    return folder


def test_the_system_screen_opens_engines_and_the_picker_follows_the_engine(
    qtbot: QtBot, core: Core, offered: Offered, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The installed app (no torch of its own): the System screen's Engines… opens
    Settings › Engines; once the PyTorch engine is installed there the picker offers the
    library's checkpoint, and once it is removed it no longer does."""
    from app.engines import can_run
    from ui.main_window import MainWindow
    from ui.settings.dialog import SettingsDialog

    # The installed app: no transformers engine of its own.
    monkeypatch.setattr("app.core.can_run", lambda f: f != "transformers" and can_run(f))
    offered.offer()
    folder = _checkpoint(core.models_dir)
    make_application()
    window = MainWindow(core, load_on_start=False)
    qtbot.addWidget(window)
    window.show()
    bar = window.chat.model_bar
    qtbot.waitUntil(lambda: bar.model is not None, timeout=LISTED_MS)

    def offers_checkpoint() -> bool:
        return any(m.path == folder for m in bar.models)

    assert not offers_checkpoint()
    window.tabs.setCurrentWidget(window.system_screen)
    window.system_screen.engines_button.click()
    dialog = window.findChild(SettingsDialog)
    assert dialog is not None and dialog.current_page() == "engines"
    panel = dialog.engines_panel
    assert isinstance(panel, EnginesPanel)
    mirrors = {row.setting.key for row in dialog.pages["engines"].rows}
    assert {"engine.pypi_mirror", "engine.pytorch_mirror", "engine.packs_mirror"} <= mirrors
    qtbot.waitUntil(lambda: "pytorch" in panel.rows, timeout=LISTED_MS)
    install_pytorch(qtbot, panel)
    wait_idle(qtbot, panel)
    assert state(panel) == "Usable here", panel.result.text()
    qtbot.waitUntil(offers_checkpoint, timeout=10_000)
    panel.rows["pytorch"].buttons[engine_list.REMOVE].click()
    assert panel.confirm is not None
    next(
        b
        for b in panel.confirm.buttons()
        if panel.confirm.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole
    ).click()
    wait_idle(qtbot, panel)
    qtbot.waitUntil(lambda: not offers_checkpoint(), timeout=10_000)
    dialog.reject()


def test_the_system_checks_advice_to_add_the_engine_opens_it(qtbot: QtBot, core: Core) -> None:
    """On a machine with an NVIDIA GPU and no PyTorch engine (the RTX 3060 as recorded),
    the check that says so carries a button to Settings › Engines."""
    from PySide6.QtWidgets import QPushButton

    from app.machine.system_check import run_checks
    from tests.conftest import recorded_machine
    from ui.system.system_screen import SystemScreen

    make_application()
    facts = recorded_machine("rtx3060")
    facts.engines.torch.installed = False
    screen = SystemScreen(core, lambda _facts: None)
    qtbot.addWidget(screen)
    screen._show((facts, run_checks(facts)))
    links = screen.tree.findChildren(QPushButton, "openEngines")
    assert len(links) == 1, "under the PyTorch engine's check only"
    with qtbot.waitSignal(screen.engines_requested, timeout=1000):
        links[0].click()


@pytest.fixture
def chinese() -> Iterator[None]:
    from ui.i18n import install_translations

    make_application()
    assert install_translations("zh_CN") == "zh_CN"
    yield
    install_translations("en")


def test_a_chinese_window_offers_the_well_known_mirrors_and_says_it_all_in_chinese(
    qtbot: QtBot, core: Core, offered: Offered, chinese: None
) -> None:
    from app.packs.wheel_sources import PYPI_MIRRORS, PYTORCH_MIRRORS
    from tests.test_translations import untranslated_words, visible_texts
    from ui.settings.dialog import SettingsDialog
    from ui.settings.editors import SuggestedText

    offered.offer()
    dialog = SettingsDialog(core.settings, engines=lambda: EnginesPanel(core, core.paths.logs_dir))
    qtbot.addWidget(dialog)
    pypi, pytorch = dialog.editors["engine.pypi_mirror"], dialog.editors["engine.pytorch_mirror"]
    assert isinstance(pypi, SuggestedText) and isinstance(pytorch, SuggestedText)
    assert [pypi.itemText(i) for i in range(1, pypi.count())] == list(PYPI_MIRRORS)
    assert [pytorch.itemText(i) for i in range(1, pytorch.count())] == list(PYTORCH_MIRRORS)
    assert isinstance(dialog.editors["engine.packs_mirror"].findChild(QLineEdit), QLineEdit)
    pypi.setCurrentIndex(1)
    dialog.accept()
    assert core.settings.get("engine.pypi_mirror") == PYPI_MIRRORS[0]
    shown = SettingsDialog(core.settings, engines=lambda: EnginesPanel(core, core.paths.logs_dir))
    qtbot.addWidget(shown)
    shown.show()
    shown.show_page("engines")
    panel = shown.engines_panel
    assert isinstance(panel, EnginesPanel)
    qtbot.waitUntil(lambda: "pytorch" in panel.rows, timeout=LISTED_MS)
    install_pytorch(qtbot, panel)
    qtbot.waitUntil(lambda: bool(panel.detail.text()), timeout=60_000)
    assert panel.variant_dialog is not None
    problems = {
        text: words
        for root in (panel, panel.variant_dialog)
        for text in visible_texts(root)
        if (words := untranslated_words(text))
    }
    assert problems == {}, problems
    assert state(panel, "cuda-12") == "未安装：没有 NVIDIA GPU", "the pack's reason too"
    wait_idle(qtbot, panel)
    assert "PyTorch" in panel.result.text() and not untranslated_words(panel.result.text())
    shown.reject()


def test_english_windows_keep_a_plain_mirror_field(qtbot: QtBot, core: Core) -> None:
    from ui.settings.dialog import SettingsDialog

    make_application()
    dialog = SettingsDialog(core.settings)
    qtbot.addWidget(dialog)
    assert type(dialog.editors["engine.pypi_mirror"]) is QLineEdit
    assert dialog.engines_panel is None
