"""The Models screen in the real window, against the fake hub."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QTableWidget
from pytestqt.qtbot import QtBot

from app.core import Core
from app.hub import downloads as dl
from tests.fakehub import FakeHub
from tests.gguf_files import build_gguf
from tests.gui_helpers import open_window, wait_until
from ui.main_window import MainWindow

pytestmark = pytest.mark.slow
REPO = "acme/tiny-GGUF"


@pytest.fixture
def hub(core: Core, tmp_path: Path) -> Iterator[FakeHub]:
    server = FakeHub().start()
    q4 = build_gguf(tmp_path / "src/q4.gguf", file_type=15).read_bytes() + b"\0" * 3_000_000
    q8 = build_gguf(tmp_path / "src/q8.gguf", file_type=7).read_bytes() + b"\0" * 5_000_000
    server.add(
        REPO,
        {"tiny-Q4_K_M.gguf": q4, "tiny-Q8_0.gguf": q8, "README.md": b"x"},
        tags=["gguf"],
        downloads=50,
    )
    server.add("acme/other-GGUF", {"o-Q4_0.gguf": q4}, tags=["gguf"], downloads=5)
    server.add(
        "acme/pickles",
        {"config.json": b"{}", "pytorch_model.bin": b"\x80" * 2000},
        tags=["transformers"],
        downloads=1,
    )
    core.settings.set("hub.huggingface_endpoint", server.url)
    core.settings.set("hub.modelscope_endpoint", server.url)
    yield server
    server.stop()


def cell(table: QTableWidget, row: int, column: int) -> str:
    item = table.item(row, column)
    assert item is not None
    return item.text()


def search(qtbot: QtBot, window: MainWindow, text: str) -> None:
    screen = window.models_screen
    screen.query.setText(text)
    with qtbot.waitSignal(screen.search_finished, timeout=300_000):
        screen.search_button.click()


def open_first(qtbot: QtBot, window: MainWindow) -> None:
    with qtbot.waitSignal(window.models_screen.repo_opened, timeout=300_000):
        window.models_screen.results_table.selectRow(0)


def test_search_open_download_and_chat(qtbot: QtBot, core: Core, hub: FakeHub) -> None:
    window = open_window(qtbot, core)
    window.tabs.setCurrentIndex(1)
    screen = window.models_screen
    search(qtbot, window, "acme")
    assert [r.repo_id for r in screen.results] == [REPO, "acme/other-GGUF"]  # by downloads
    open_first(qtbot, window)
    labels = [o.label for o in screen.offers]
    assert labels == ["Q4_K_M", "Q8_0"]
    assert cell(screen.offers_table, 0, 4) == "Recommended"
    screen.download_button.click()
    target = core.models_dir / REPO / "tiny-Q4_K_M.gguf"
    wait_until(qtbot, target.exists, 300_000)
    # The finished download shows up in the library and in the chat model picker.
    wait_until(qtbot, lambda: any(m.path == target for m in screen.library_panel.models), 300_000)
    wait_until(qtbot, lambda: any(m.path == target for m in window.chat.model_bar.models), 300_000)
    row = next(i for i, m in enumerate(screen.library_panel.models) if m.path == target)
    assert cell(screen.library_panel.table, row, 4) == "Q4_K_M"
    assert cell(screen.library_panel.table, row, 7) == "Hearth"
    screen.library_panel.table.selectRow(row)
    screen.library_panel.chat_button.click()
    assert window.tabs.currentIndex() == 0 and window.chat.model_bar.model is not None
    assert window.chat.model_bar.model.path == target


def test_pause_resume_and_cancel_from_the_screen(qtbot: QtBot, core: Core, hub: FakeHub) -> None:
    # Slow enough that Pause and Cancel always find the download running, on any machine.
    hub.fault(REPO, "tiny-Q8_0.gguf", bytes_per_s=400_000)
    window = open_window(qtbot, core)
    screen = window.models_screen
    search(qtbot, window, "tiny")
    open_first(qtbot, window)
    screen.offers_table.selectRow(1)  # Q8_0
    screen.download_button.click()
    model = screen.downloads_panel.model
    # Progress with the speed (it is measured over half a second of data).
    wait_until(qtbot, lambda: model.rowCount() == 1 and "B/s" in model.data(model.index(0, 3)))
    screen.downloads_panel.view.selectRow(0)
    screen.downloads_panel.pause_button.click()
    wait_until(qtbot, lambda: model.items[0].state == dl.PAUSED, 300_000)
    assert model.data(model.index(0, 2)) == "Paused"
    hub.faults.clear()
    screen.downloads_panel.resume_button.click()
    wait_until(qtbot, lambda: model.items[0].state == dl.DONE, 300_000)
    assert (core.models_dir / REPO / "tiny-Q8_0.gguf").exists()

    hub.fault(REPO, "tiny-Q4_K_M.gguf", bytes_per_s=200_000)
    screen.offers_table.selectRow(0)
    screen.download_button.click()
    wait_until(qtbot, lambda: model.rowCount() == 2 and model.items[1].received > 0)
    screen.downloads_panel.view.selectRow(1)
    screen.downloads_panel.cancel_button.click()
    wait_until(qtbot, lambda: model.items[1].state == dl.CANCELLED, 300_000)
    assert not list((core.models_dir / REPO).glob("tiny-Q4_K_M.gguf*"))


def test_a_download_interrupted_by_quitting_resumes_at_the_next_start(
    qtbot: QtBot, core: Core, hub: FakeHub
) -> None:
    hub.fault(REPO, "tiny-Q8_0.gguf", bytes_per_s=2_000_000)
    window = open_window(qtbot, core)
    screen = window.models_screen
    search(qtbot, window, "tiny")
    open_first(qtbot, window)
    screen.offers_table.selectRow(1)
    screen.download_button.click()
    wait_until(
        qtbot,
        lambda: (
            screen.downloads_panel.model.rowCount() == 1
            and screen.downloads_panel.model.items[0].received > 500_000
        ),
    )
    window.close()
    assert (core.models_dir / REPO / "tiny-Q8_0.gguf.part").exists()
    hub.faults.clear()
    again = open_window(qtbot, core)
    wait_until(qtbot, (core.models_dir / REPO / "tiny-Q8_0.gguf").exists, 300_000)
    assert again.models_screen.downloads_panel.model.rowCount() == 1


def test_modelscope_search_and_pickle_warning(qtbot: QtBot, core: Core, hub: FakeHub) -> None:
    window = open_window(qtbot, core)
    screen = window.models_screen
    screen.source.setCurrentIndex(1)  # ModelScope
    search(qtbot, window, "pickles")
    assert [r.repo_id for r in screen.results] == ["acme/pickles"]
    open_first(qtbot, window)
    assert screen.offers[0].kind == "pickle-checkpoint"
    assert "pickle" in cell(screen.offers_table, 0, 4)


def test_errors_show_in_the_models_screen_with_a_retry(
    qtbot: QtBot, core: Core, hub: FakeHub, expect_error_logs: None
) -> None:
    window = open_window(qtbot, core)
    screen = window.models_screen
    screen.query.setText("acme/missing")
    with qtbot.waitSignal(screen.repo_opened, timeout=300_000):
        screen.open_button.click()
    assert "not found" in screen.banner.message, "where the user is looking"
    assert not window.error_banner.message, "not on the Chat tab"
    assert "acme/missing" in screen.repo_label.text() and screen.busy_row.isHidden()
    assert not screen.banner.retry_button.isHidden()
    hub.add("acme/missing", {"late-Q4_K_M.gguf": b"GGUF" + b"\0" * 2000})  # it appears
    with qtbot.waitSignal(screen.repo_opened, timeout=300_000):
        screen.banner.retry_button.click()
    assert not screen.banner.message and [o.label for o in screen.offers]


def test_an_unreachable_hub_fails_fast_in_words(
    qtbot: QtBot, core: Core, expect_error_logs: None
) -> None:
    core.settings.set("hub.huggingface_endpoint", "http://hearth-test-hub.invalid")
    window = open_window(qtbot, core)
    screen = window.models_screen
    screen.query.setText("qwen")
    with qtbot.waitSignal(screen.search_finished, timeout=300_000):
        screen.search_button.click()
        assert not screen.busy_row.isHidden() and "Searching" in screen.busy_label.text()
    assert "hearth-test-hub.invalid" in screen.banner.message
    assert "internet connection" in screen.banner.message
    assert screen.busy_row.isHidden() and screen.search_button.isEnabled()


@pytest.fixture
def file_keyring(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """A real file-based keyring stands in for the desktop's (none runs on this machine)."""
    import keyring
    from keyrings.alt.file import PlaintextKeyring

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    previous = keyring.get_keyring()
    keyring.set_keyring(PlaintextKeyring())
    yield
    keyring.set_keyring(previous)


def test_a_gated_repository_asks_for_a_token_and_keeps_it_in_the_keyring(
    qtbot: QtBot, core: Core, hub: FakeHub, monkeypatch: pytest.MonkeyPatch, file_keyring: None
) -> None:
    hub.add("acme/gated-GGUF", {"g-Q4_K_M.gguf": b"GGUF" + b"\0" * 4000}, gated=True)
    asked: list[str] = []

    def answer(*args: object, **kwargs: object) -> tuple[str, bool]:
        asked.append(str(args[1]))
        return hub.token, True

    from PySide6.QtWidgets import QInputDialog

    monkeypatch.setattr(QInputDialog, "getText", answer)  # the user types the token
    window = open_window(qtbot, core)
    screen = window.models_screen
    screen.query.setText("acme/gated-GGUF")
    with qtbot.waitSignal(screen.repo_opened, timeout=300_000):
        screen.open_button.click()
    assert [o.label for o in screen.offers] == ["Q4_K_M"]  # listing is public, as on the hub
    screen.download(screen.offers[0])
    # The file itself is refused without a token: Hearth asks, stores it, and resumes.
    wait_until(qtbot, (core.models_dir / "acme/gated-GGUF/g-Q4_K_M.gguf").exists, 300_000)
    assert asked == ["Hugging Face access token"]
    from app.secrets import get_token

    assert get_token("hf") == hub.token  # kept in the keyring, not in settings.json
    assert hub.token not in core.paths.settings_file.read_text()


def test_buttons_with_nothing_to_act_on_are_disabled(
    qtbot: QtBot, core: Core, hub: FakeHub
) -> None:
    window = open_window(qtbot, core)
    screen = window.models_screen
    panel = screen.downloads_panel
    assert not screen.download_button.isEnabled(), "no repository open"
    assert not panel.pause_button.isEnabled() and not panel.resume_button.isEnabled()
    assert not panel.cancel_button.isEnabled() and not panel.clear_button.isEnabled()
    search(qtbot, window, "acme")
    open_first(qtbot, window)
    assert screen.download_button.isEnabled(), "the recommended file is chosen"
    screen.download_button.click()
    panel.view.selectRow(0)
    wait_until(qtbot, panel.clear_button.isEnabled, 300_000)  # it finished
    assert not panel.pause_button.isEnabled(), "a finished download has nothing to pause"


def test_my_models_and_discover_are_two_views_and_offline_a_search_finds_the_catalogue(
    qtbot: QtBot, core: Core
) -> None:
    core.settings.set("hub.huggingface_endpoint", "http://127.0.0.1:9")  # as offline
    window = open_window(qtbot, core)
    window.tabs.setCurrentWidget(window.models_page)
    screen = window.models_screen
    # Only the starter is here: the screen opens on Discover, the catalogue first.
    assert screen.current_view() == "discover" and screen.discover_button.isChecked()
    wait_until(qtbot, lambda: bool(window.catalog_panel.cards))  # once the machine is known
    assert window.catalog_panel.isVisible() and not screen.library_panel.isVisible()
    screen.mine_button.click()
    assert screen.library_panel.isVisible() and screen.downloads_panel.isVisible()
    assert not screen.query.isVisible()
    screen.discover_button.click()
    window.resize(1000, 560)  # a small laptop's window
    search(qtbot, window, "qwen")
    # The box typed in stays in view (once the layout has settled).
    wait_until(qtbot, lambda: not screen.query.visibleRegion().isEmpty())
    said = screen.banner.message
    assert "cannot reach Hugging Face" in said, "the hub could not be asked, and it says so"
    assert "match “qwen”" in said
    panel = window.catalog_panel
    assert panel.cards and "match “qwen”" in panel.title.text()
    for card in panel.cards:
        entry = card.entry
        assert "qwen" in f"{entry.name} {entry.title} {entry.repo_hf}".lower()
    # Words that match nothing: no catalogue view, only the hub's failure.
    search(qtbot, window, "zzzz-nothing")
    assert "match" not in screen.banner.message
    assert "match" not in panel.title.text()
    # The hub's failure is about Discover: My models does not show it; Discover still does.
    assert screen.banner.isVisible()
    screen.mine_button.click()
    assert screen.library_panel.isVisible() and not screen.banner.isVisible()
    screen.discover_button.click()
    assert screen.banner.isVisible() and "cannot reach Hugging Face" in screen.banner.message


def test_the_models_screen_opens_on_my_models_once_there_are_models_of_ones_own(
    qtbot: QtBot, core: Core, hub: FakeHub, tmp_path: Path
) -> None:
    build_gguf(core.models_dir / "acme" / "mine-Q4_0.gguf", file_type=2)
    window = open_window(qtbot, core)
    screen = window.models_screen
    wait_until(qtbot, lambda: screen.current_view() == "mine")
    assert screen.mine_button.isChecked()
