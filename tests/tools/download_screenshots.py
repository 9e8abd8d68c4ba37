"""A download under way as a person sees it: the welcome's card for the first catalogue
model, then its row in Models › My models, each with the speed of the last seconds and
the time left.  The file comes from the fake hub on 127.0.0.1, each connection held to
700 KB/s as a hub's CDN holds it, so the several connections show; it is cancelled once
the pictures are taken.  Light, dark and Chinese, on a 1024×600 screen:

    xvfb-run -a -s "-screen 0 1024x600x24" python -m tests.tools.download_screenshots screenshots/
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from app.core import open_core
from app.hub.downloads import RUNNING
from app.paths import resources_dir
from tests.fakehub import FakeHub
from tests.tools.screen_screenshots import grab
from tests.tools.screenshot import in_three_looks, settle
from ui.gui import dispose_window
from ui.main_window import MainWindow

PER_CONNECTION = 700_000  # bytes a second
SIZE = 96 * 1024 * 1024


def catalogue_hub() -> FakeHub:
    """Every catalogue model's repository with its file (small until one is downloaded):
    the welcome shows the models the hub has."""
    hub = FakeHub().start()
    for entry in json.loads((resources_dir() / "catalog.json").read_text())["models"]:
        hub.add(entry["repo_hf"], {entry["file"]: b"GGUF" + bytes(2000)})
    return hub


def shoot(folder: Path, theme: str, suffix: str) -> None:
    hub = catalogue_hub()
    with tempfile.TemporaryDirectory(prefix="hearth-shot-downloads-") as data:
        core = open_core(data)
        core.settings.set("appearance.theme", theme)
        core.settings.set("appearance.language", "en")  # the card's hub: Hugging Face
        core.settings.set("hub.huggingface_endpoint", hub.url)
        core.settings.set("hub.modelscope_endpoint", hub.url)
        window = MainWindow(core, load_on_start=False)
        window.show()
        settle(lambda: window.chat.model_bar.model is not None)
        settle(lambda: bool(window.welcome.cards), 60)
        card = window.welcome.cards[0]
        entry = card.entry
        hub.repos[entry.repo_hf].files[entry.file] = os.urandom(SIZE)
        hub.fault(entry.repo_hf, entry.file, bytes_per_s=PER_CONNECTION)
        card.button.click()
        settle(lambda: any(i.speed > 0 for i in window.downloads.snapshot()), 60)
        settle(lambda: False, 3)  # a few seconds of speed in the window
        window.welcome.ensureWidgetVisible(card.status, 0, 120)
        grab(folder / f"small-download-card{suffix}.png")
        window.tabs.setCurrentWidget(window.models_page)
        window.models_screen.show_view("mine")
        grab(folder / f"small-downloads{suffix}.png")
        for item in window.downloads.snapshot():
            if item.state == RUNNING:
                window.downloads.cancel(item.id)
        window.close()
        dispose_window(window)
    hub.stop()


if __name__ == "__main__":
    sys.exit(in_three_looks(shoot))
