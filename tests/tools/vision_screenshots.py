"""Pictures in the chat: the composer with two pictures attached, and a conversation with
them sent, with the tests' tiny vision model (its answers are noise: random weights), in
the light theme, the dark one and Chinese.  Run under a real X server:

    xvfb-run -a -s "-screen 0 1280x900x24" python -m tests.tools.vision_screenshots screenshots/

The model is ``HEARTH_TEST_VISION_MODEL`` (``make vision-model``), else built here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QImage, QLinearGradient, QPainter

from app.core import open_core
from app.models.library import describe, projector_beside
from tests.tools.screenshot import in_three_looks, settle
from tests.tools.tool_screenshots import grab_screen
from ui.gui import dispose_window
from ui.main_window import MainWindow


def model_folder() -> Path:
    built = os.environ.get("HEARTH_TEST_VISION_MODEL", "")
    if built and (Path(built) / ".built").is_file():
        return Path(built)
    folder = Path(tempfile.mkdtemp(prefix="hearth-vision-model-"))
    subprocess.run([sys.executable, "-m", "tests.tools.make_vision_model", str(folder)], check=True)
    return folder


def sunset(path: Path) -> None:
    """A picture worth attaching: a sky at dusk over a hill."""
    image = QImage(480, 320, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    sky = QLinearGradient(QPointF(0, 0), QPointF(0, 320))
    sky.setColorAt(0, QColor("#1e3a8a"))
    sky.setColorAt(0.6, QColor("#f97316"))
    sky.setColorAt(1, QColor("#fde68a"))
    painter.fillRect(image.rect(), sky)
    painter.setBrush(QColor("#fef3c7"))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawEllipse(QPointF(330, 210), 40, 40)
    painter.setBrush(QColor("#14532d"))
    painter.drawEllipse(QPointF(160, 420), 320, 170)
    painter.end()
    image.save(str(path))


def tiles(path: Path) -> None:
    """Another: coloured tiles."""
    image = QImage(320, 320, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    colours = ["#ef4444", "#22c55e", "#3b82f6", "#eab308"]
    for row in range(4):
        for column in range(4):
            painter.fillRect(column * 80, row * 80, 80, 80, QColor(colours[(row + column) % 4]))
    painter.end()
    image.save(str(path))  # a JPEG, by its name


def shoot(folder: Path, theme: str, suffix: str) -> None:
    models = model_folder()
    with tempfile.TemporaryDirectory(prefix="hearth-shot-vision-") as data:
        core = open_core(data)
        core.settings.set("appearance.theme", theme)
        core.settings.set("sampling.temperature", 0.0)
        core.settings.set("sampling.max_tokens", 24)
        window = MainWindow(core, load_on_start=False)
        window.resize(1100, 720)
        window.move(0, 0)
        window.show()
        settle(lambda: window.chat.model_bar.model is not None)
        chat = window.chat
        entry = projector_beside(describe(models / "tiny-smolvlm-f16.gguf", "added"))
        chat.model_bar.models.append(entry)
        chat.model_bar.select(entry)
        settle(lambda: chat.model_bar.loaded_context is not None)
        pictures = Path(data) / "pictures-to-send"
        pictures.mkdir()
        sunset(pictures / "dusk.png")
        tiles(pictures / "tiles.jpg")
        chat.message_documents.attach_dropped(
            [str(pictures / "dusk.png"), str(pictures / "tiles.jpg")]
        )
        settle(lambda: len(chat.picture_tray.thumbs) == 2)
        chat.composer.setPlainText("What is in these two pictures?")
        settle(lambda: True)
        grab_screen(window, folder / f"composer-pictures{suffix}.png")
        finished: list[bool] = []
        window.reply_finished.connect(lambda _final: finished.append(True))
        chat.send(chat.composer.toPlainText())
        settle(lambda: bool(finished), 300)
        settle(lambda: len(chat.transcript.pictures._drawn) == 2)
        settle(lambda: True)
        grab_screen(window, folder / f"chat-pictures{suffix}.png")
        window.close()
        dispose_window(window)


if __name__ == "__main__":
    sys.exit(in_three_looks(shoot))
