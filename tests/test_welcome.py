"""The first ten minutes: the empty chat's welcome says what Hearth is and that the
starter is a demo, recommends models for this machine, and one click on a card downloads
a model (progress in the card) and switches the chat to it."""

import itertools
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.chat import store as st
from app.core import Core
from app.hub.catalog import CatalogEntry, load_catalog
from tests.fakehub import FakeHub, both_hubs
from tests.gui_helpers import open_window, wait_until
from ui.main_window import MainWindow

pytestmark = pytest.mark.slow
HUB_SPEED = 100_000_000  # bytes/s, as the figure asks


@pytest.fixture
def hub(core: Core) -> Iterator[FakeHub]:
    with both_hubs(core) as server:
        yield server


def serve(hub: FakeHub, entry: CatalogEntry, data: bytes) -> None:
    """The card's model on both hubs (one fake serves both), at HUB_SPEED."""
    for repo in {entry.repo_hf, entry.repo_modelscope}:
        hub.add(repo, {entry.file: data, "README.md": b"model card"})
        hub.fault(repo, entry.file, bytes_per_s=HUB_SPEED)


def cards_shown(window: MainWindow) -> bool:
    return bool(window.welcome.cards)


def welcome_window(qtbot: QtBot, core: Core) -> MainWindow:
    """The window, once the welcome shows its recommended cards."""
    window = open_window(qtbot, core)
    wait_until(qtbot, lambda: cards_shown(window))
    return window


def test_a_recommended_model_downloads_from_its_card_and_the_chat_uses_it(
    qtbot: QtBot, core: Core, hub: FakeHub, starter: Path
) -> None:
    started = time.perf_counter()
    window = open_window(qtbot, core)
    assert window.chat.stage.currentWidget() is window.welcome, "an empty chat welcomes"
    assert (
        "starter" in window.welcome.model_note.text() and "demo" in window.welcome.model_note.text()
    )
    wait_until(qtbot, lambda: cards_shown(window))
    purposes = [card.entry.purpose for card in window.welcome.cards]
    assert 3 <= len(purposes) <= 5 and "embedding" not in purposes
    card = window.welcome.cards[0]
    assert card.button.text() == "Download" and "GB download" in card.facts.text()
    serve(hub, card.entry, starter.read_bytes())  # a small real GGUF stands in for it
    seen: list[float] = []
    window.catalog_downloads.changed.connect(
        lambda name: (
            seen.append(s.fraction) if (s := window.catalog_downloads.state(name)) else None
        )
    )
    with qtbot.waitSignal(window.model_loaded, timeout=300_000):
        card.button.click()
    downloaded = window.chat.model_bar.model
    assert downloaded is not None and downloaded.path.name == card.entry.file
    assert any(0 < f < 1 for f in seen), "progress showed in the card"
    with qtbot.waitSignal(window.reply_finished, timeout=300_000) as finished:
        window.chat.sampling_overrides = {"max_tokens": 8}
        window.chat.send("Hello")
    first_reply_s = time.perf_counter() - started
    assert finished.args[0]["status"] in (st.COMPLETE, st.LENGTH)
    assert window.chat.stage.currentWidget() is window.chat.transcript
    print(f"\nfirst start to the first reply of a recommended model: {first_reply_s:.1f} s")
    window.chat.new_chat()
    assert window.chat.stage.currentWidget() is window.welcome
    wait_until(qtbot, lambda: window.welcome.cards[0].button.text() == "Chat with it")
    assert "starter" not in window.welcome.model_note.text()


def test_a_card_whose_model_cannot_be_found_says_so_and_offers_a_retry(
    qtbot: QtBot, core: Core, hub: FakeHub
) -> None:
    window = welcome_window(qtbot, core)
    card = window.welcome.cards[0]
    card.button.click()  # the fake hub has no such repository: as if it were gone
    wait_until(qtbot, lambda: card.button.text() == "Try again")
    said = card.status.text()
    assert "either hub" not in said and "\n" not in said, "the hub's own answer, one sentence"
    assert "not found" in said
    assert card.details_button.isVisible() and not card.details.isVisible()
    card.details_button.click()
    assert card.details.isVisible() and card.entry.repo_modelscope in card.details.text()
    assert window.chat.model_bar.model is not None
    assert window.chat.model_bar.model.source == "starter", "the chat goes on as it was"
    # A new chat's welcome does not keep the old error.
    window.chat.send("Hello")
    wait_until(qtbot, lambda: not window.chat.busy)
    window.chat.new_chat()
    assert window.chat.stage.currentWidget() is window.welcome
    assert card.button.text() == "Download" and not card.status.text()
    assert not card.details_button.isVisible()


def test_tab_goes_through_the_cards_as_they_read_then_to_more_models(
    qtbot: QtBot, core: Core, hub: FakeHub
) -> None:
    from PySide6.QtCore import Qt

    window = welcome_window(qtbot, core)
    welcome = window.welcome
    assert welcome.focusPolicy() == Qt.FocusPolicy.NoFocus, "no invisible Tab stop"
    stops = [card.button for card in welcome.cards] + [welcome.more]
    for before, after in itertools.pairwise(stops):
        assert before.nextInFocusChain() is after


def test_offline_a_card_says_so_in_one_sentence(qtbot: QtBot, core: Core) -> None:
    for key in ("hub.huggingface_endpoint", "hub.modelscope_endpoint"):
        core.settings.set(key, "http://127.0.0.1:9")  # nothing listens: as offline
    window = welcome_window(qtbot, core)
    card = window.welcome.cards[0]
    card.button.click()
    wait_until(qtbot, lambda: card.button.text() == "Try again")
    assert card.status.text().startswith("You are offline")
    assert f"connect to the internet to download {card.entry.title}" in card.status.text()
    assert card.entry.repo_hf in card.details.text()
    assert "refused" in card.details.text(), "each hub's own answer is kept, folded"


def test_the_models_screen_opens_on_the_same_recommendations_and_the_whole_catalogue(
    qtbot: QtBot, core: Core, hub: FakeHub
) -> None:
    window = welcome_window(qtbot, core)
    panel = window.catalog_panel
    assert [c.entry.name for c in panel.cards] == [c.entry.name for c in window.welcome.cards]
    panel.toggle.click()
    assert len(panel.cards) == len(load_catalog()) >= 15
    assert panel.toggle.text() == "Show fewer"
    panel.toggle.click()
    assert len(panel.cards) == len(window.welcome.cards)


def test_at_800_by_600_every_button_shows_its_whole_label(
    qtbot: QtBot, core: Core, hub: FakeHub
) -> None:
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QAbstractButton, QApplication

    window = welcome_window(qtbot, core)
    window.resize(800, 600)

    def cut_labels(index: int) -> list[str]:
        return [
            f"{window.tabs.tabText(index)}: {button.text()!r}"
            for button in window.findChildren(QAbstractButton)
            if button.isVisible()
            and button.text()  # a label to cut (a field's icon has none)
            and button.width() < button.sizeHint().width()
        ]

    cut: list[str] = []
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)  # lay the tab out
        try:  # and wait for whatever else settles (a busy machine may take a while)
            qtbot.waitUntil(partial(lambda i: not cut_labels(i), index), timeout=30_000)
        except qtbot.TimeoutError:
            cut += cut_labels(index)
    assert window.width() <= 800 and window.height() <= 600
    assert cut == []
